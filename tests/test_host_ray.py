"""``arena host --ray ADDRESS``: the competition's ladder played on a real Ray cluster (the
session's two-node cluster on loopback), its bots started by Ray's workers, not by the
server's own worker; the server stopped, nothing is left on the cluster."""

from __future__ import annotations

from pathlib import Path

from arena.procfs import stat_fields
from arena.tournament.store import ResultsStore
from tests.host_helpers import PYTHON_BOT, HostProcess, wait_until
from tests.referee_helpers import left_behind, proc_text, processes_with

LADDER = "test-cup-usa-2p"


def started_by_ray(pid: int) -> bool:
    """Whether one of ``pid``'s ancestors is a Ray worker (its title starts ``ray::``)."""
    for _ in range(30):
        fields = stat_fields(pid)
        if fields is None:
            return False
        pid = int(fields[1])  # the parent (the fields after the command's name)
        if pid <= 1:
            return False
        if (proc_text(pid) or "").startswith("ray::"):
            return True
    return False


def test_the_ladder_plays_on_a_ray_cluster(tmp_path: Path, ray_cluster: str) -> None:
    host = HostProcess(tmp_path, options=("--ray", ray_cluster)).start()
    try:
        alice, bob = host.visitor(), host.visitor()
        for visitor, name, bot in ((alice, "alice", "bot.py"), (bob, "bob", "greedy.py")):
            assert visitor.signup(name).status_code == 303
            done = host.arena(
                "submit", bot.removesuffix(".py"), "--file", str(PYTHON_BOT / bot),
                "--server", host.url, "--token", visitor.token(),
            )  # fmt: skip
            assert done.returncode == 0, done.stderr

        def bots_on_ray() -> bool:
            found = processes_with(str(host.data))
            return any(started_by_ray(pid) for pid in found)

        wait_until(bots_on_ray, "a participant's bot started by a Ray worker", seconds=300)

        def stored() -> int:
            with ResultsStore.reader(host.data) as store:
                return len(store.results(LADDER, details=False))

        wait_until(lambda: stored() >= 2, "two ladder matches stored", seconds=300)
    finally:
        host.stop()
    assert not left_behind(str(host.data)), "bots left behind on the cluster"
    assert "Traceback" not in host.stderr()
