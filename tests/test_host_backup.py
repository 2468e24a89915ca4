"""``arena admin backup`` and ``restore`` on a real competition: a backup taken while a
real ``arena host`` runs its ladder restores to a data folder that a new server serves
(the same accounts, sessions, boards and submissions, and its ladder plays on); a
``kill -9`` at any step of a backup or restore, or in the middle of a store's copy,
leaves no target or the whole one, and the next run removes what it left; a damaged or
foreign backup and a non-empty target are refused in one line."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import chaos
from arena.server.accounts import Accounts
from arena.server.backup import MANIFEST, PARTIAL
from arena.tournament.store import ResultsStore
from tests.host_helpers import ARENA, PYTHON_BOT, HostProcess, Visitor, wait_until

pytestmark = pytest.mark.xdist_group("host-backup")
LADDER = "test-cup-usa-2p"
GREEDY = (PYTHON_BOT / "greedy.py").read_bytes()


class Cup:
    def __init__(self, host: HostProcess, alice: Visitor, bob: Visitor) -> None:
        self.host, self.alice, self.bob = host, alice, bob


@pytest.fixture(scope="module")
def cup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cup]:
    """A competition whose ladder is playing: two participants, a bot each."""
    host = HostProcess(tmp_path_factory.mktemp("cup")).start()
    alice, bob = host.visitor(), host.visitor()
    try:
        for visitor, name, bot in ((alice, "alice", "first"), (bob, "bob", "greedy")):
            assert visitor.signup(name).status_code == 303
            answer = visitor.upload(bot, f"{bot}.py", GREEDY)
            assert answer.status_code == 303, answer.text
            visitor.wait_for(answer.headers["location"], r'id="status">ok<')
        wait_until(lambda: matches(host.data) >= 2, "the ladder plays")
        yield Cup(host, alice, bob)
    finally:
        host.stop()


def matches(data: Path) -> int:
    with ResultsStore.reader(data) as store:
        return len(store.results(LADDER, details=False))


def arena(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [ARENA, *args], capture_output=True, text=True, timeout=600,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def one_line_error(done: subprocess.CompletedProcess, words: str) -> None:
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert words in done.stderr, done.stderr


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob(f".*{PARTIAL}"))


def test_a_backup_taken_while_the_ladder_runs_restores_to_a_folder_a_new_server_serves(
    cup: Cup, tmp_path: Path
) -> None:
    before = matches(cup.host.data)
    backup = tmp_path / "backups" / "monday"
    done = arena("admin", "backup", str(backup), "--data-dir", str(cup.host.data))
    assert done.returncode == 0, done.stderr
    assert f"to {backup} (checked)" in done.stdout and "2 accounts" in done.stdout
    wait_until(lambda: matches(cup.host.data) > before + 2, "the ladder plays on meanwhile")
    manifest = json.loads((backup / MANIFEST).read_text())
    assert manifest["counts"]["bot_code"] == 2 and manifest["counts"]["uploads"] == 2
    assert manifest["missing"] == [] and not manifest["logs"]
    assert backup.stat().st_mode & 0o777 == 0o700  # (it holds the secret and password hashes)
    assert not (backup / "bot-logs").exists() and leftovers(backup.parent) == []

    done = arena("admin", "restore", str(backup), "--data-dir", str(tmp_path / "restored/data"))
    assert done.returncode == 0, done.stderr
    again_dir = tmp_path / "restored" / "data"
    assert "arena host" in done.stdout and not (again_dir / MANIFEST).exists()
    kept = matches(again_dir)
    assert kept >= before
    with ResultsStore.reader(cup.host.data) as live, ResultsStore.reader(again_dir) as copy:
        assert {b["name"] for b in copy.bots()} == {b["name"] for b in live.bots()}
        # The restored results are the live ones as they were: the same first matches.
        ids = [r.match_id for r in copy.results(LADDER, details=False)]
        assert ids == [r.match_id for r in live.results(LADDER, details=False)][:kept]

    # A new server on the restored folder, while the first one still runs.
    (tmp_path / "restored" / "competition.toml").write_text(cup.host.file.read_text())
    again = HostProcess(tmp_path / "restored").start()
    try:
        # The same secret and sessions: Alice's cookie from the first server still works.
        alice = again.visitor()
        alice.client.cookies = cup.alice.client.cookies
        assert alice.get("/me").status_code == 200
        assert re.search(r"alice\.first@1", alice.get("/me").text)
        bob = again.visitor()
        assert bob.signin("bob").status_code == 303
        assert "bob.greedy@1" in bob.get("/me").text
        board = bob.wait_for("/boards/usa/2", r"alice\.first@1")
        assert "bob.greedy@1" in board
        code = bob.get(f"/submissions/{submission_of(again_dir, 'bob')}/code")
        assert code.status_code == 200 and code.content == GREEDY
        # Its own ladder plays on (the copy holds no lease of the first server's worker).
        wait_until(lambda: matches(again_dir) > kept, "the restored server's ladder plays")
    finally:
        again.stop()


def submission_of(data: Path, owner: str) -> int:
    return next(s["id"] for s in Accounts(data).submissions() if s["owner"] == owner)


def test_a_kill_9_in_the_middle_of_a_copy_leaves_no_backup_and_the_next_run_sweeps_it(
    cup: Cup, tmp_path: Path
) -> None:
    marker = tmp_path / "copying"
    backup = tmp_path / "backups" / "tuesday"
    slow = subprocess.Popen(
        [ARENA, "admin", "backup", str(backup), "--data-dir", str(cup.host.data)],
        env={**os.environ, chaos.SLOW_COPY: f"{marker}:0.2"},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        claimed = wait_until(lambda: chaos.claimed(str(marker)), "the copy starts", 120)
        assert claimed[0] == slow.pid
        assert len(leftovers(backup.parent)) == 1 and not backup.exists()
        os.kill(slow.pid, signal.SIGKILL)
    finally:
        slow.kill()
        slow.wait(30)
    assert not backup.exists() and len(leftovers(backup.parent)) == 1
    done = arena("admin", "backup", str(backup), "--data-dir", str(cup.host.data))
    assert done.returncode == 0, done.stderr
    assert leftovers(backup.parent) == []
    assert arena("admin", "restore", str(backup), "--data-dir", str(tmp_path / "r")).returncode == 0


@pytest.fixture(scope="module")
def kept(cup: Cup, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A backup of the cup."""
    backup = tmp_path_factory.mktemp("kept") / "backup"
    done = arena("admin", "backup", str(backup), "--data-dir", str(cup.host.data))
    assert done.returncode == 0, done.stderr
    return backup


def restored(backup: Path, folder: Path) -> Path:
    """``backup`` restored to FOLDER/data (a data folder no server runs on)."""
    done = arena("admin", "restore", str(backup), "--data-dir", str(folder / "data"))
    assert done.returncode == 0, done.stderr
    return folder / "data"


def killed_at_each_step(command: list[str]) -> Iterator[int]:
    """Run ``command`` killed (SIGKILL) before each step of its file work in turn; yields the
    step after each kill and ends once the command runs to its end."""
    for step in range(1, 30):
        done = arena(*command, env={chaos.KILL_AT_STEP: str(step)})
        if done.returncode == 0:
            assert step > 2, "the kill hook is never reached"
            return
        assert done.returncode == -signal.SIGKILL, done.stderr
        yield step
    raise AssertionError("the command never ran to its end")


def test_a_kill_9_at_any_step_of_a_backup_or_restore_leaves_no_target(
    kept: Path, tmp_path: Path
) -> None:
    still = restored(kept, tmp_path)
    backup, target = tmp_path / "b" / "backup", tmp_path / "r" / "data"
    for _ in killed_at_each_step(["admin", "backup", str(backup), "--data-dir", str(still)]):
        assert not backup.exists()
    assert leftovers(backup.parent) == []  # the run that ended swept what the kills left
    for _ in killed_at_each_step(["admin", "restore", str(backup), "--data-dir", str(target)]):
        assert not target.exists()
    assert leftovers(target.parent) == []
    assert Accounts(target).user_named("alice") is not None
    assert matches(target) == matches(still)


def test_refusals_are_one_line(kept: Path, tmp_path: Path) -> None:
    still = restored(kept, tmp_path)
    backup = tmp_path / "backup"
    assert arena("admin", "backup", str(backup), "--data-dir", str(still)).returncode == 0
    one_line_error(
        arena("admin", "backup", str(backup), "--data-dir", str(still)), "exists already"
    )
    one_line_error(
        arena("admin", "backup", str(tmp_path / "x"), "--data-dir", str(tmp_path / "none")),
        "holds no accounts.sqlite",
    )
    one_line_error(arena("admin", "restore", str(backup), "--data-dir", str(still)), "is not empty")
    one_line_error(
        arena("admin", "restore", str(still), "--data-dir", str(tmp_path / "n1")),
        "not a backup made by 'arena admin backup'",
    )
    upload = next(backup.glob("uploads/*/upload.*"))
    upload.write_bytes(upload.read_bytes() + b"#")
    one_line_error(
        arena("admin", "restore", str(backup), "--data-dir", str(tmp_path / "n2")),
        "differs from when it was taken",
    )
    assert not (tmp_path / "n1").exists() and not (tmp_path / "n2").exists()
    with sqlite3.connect(backup / "accounts.sqlite") as db:
        db.execute("PRAGMA user_version = 999")
    manifest = json.loads((backup / MANIFEST).read_text())
    manifest["accounts_version"] = 999
    (backup / MANIFEST).write_text(json.dumps(manifest))
    one_line_error(
        arena("admin", "restore", str(backup), "--data-dir", str(tmp_path / "n3")),
        "newer ttr-arena",
    )


def test_a_validation_the_snapshots_split_is_adopted_not_registered_again(
    kept: Path, tmp_path: Path
) -> None:
    """A backup whose accounts snapshot still shows a submission validating while its
    results snapshot already registered it: the restored server marks it passed with the
    version registered, rather than validating it into a second version."""
    still = restored(kept, tmp_path)
    sid = submission_of(still, "bob")
    with sqlite3.connect(still / "accounts.sqlite") as db:
        db.execute(
            "UPDATE submissions SET status = 'validating', version = NULL, active = 0 WHERE id = ?",
            (sid,),
        )
    host = HostProcess(tmp_path).start()
    try:
        visitor = host.visitor()
        assert visitor.signin("bob").status_code == 303
        page = visitor.wait_for(f"/submissions/{sid}", r'id="status">ok<', 120)
        assert "bob.greedy@1" in page
    finally:
        host.stop()
    with ResultsStore.reader(still) as store:
        assert [b["version"] for b in store.bots() if b["name"] == "bob.greedy"] == [1]
    assert any(
        "had passed as bob.greedy@1" in line
        for line in (still / "server.log").read_text().splitlines()
    )
