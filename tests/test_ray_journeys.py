"""Tournaments on Ray as a user meets them: a wrong address, Ctrl-C and SIGTERM, kill -9 of
the driver, a lost cluster, a match whose worker keeps dying, a working folder holding
folders named like the arena's packages. Real Ray (a local one the arena starts, the session's
two-node cluster, and a head of our own to lose), real processes, real SQLite."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from arena import chaos
from arena.commands.common import counted
from arena.tournament.executors import MAX_ATTEMPTS
from arena.tournament.rayexec import SESSIONS, kill_if_using, processes_using, uses
from arena.tournament.store import ResultsStore
from tests.conftest import RAY, free_port, start_head, stop_ray_in
from tests.referee_helpers import left_behind, processes_with
from tests.store_helpers import ARENA, arena, one_line
from tests.test_store import hostile_folder, stored_matches


def played_now(matches: int) -> str:
    """The run's last line, as the CLI words it ("1 match", "3 matches")."""
    return f"{counted(matches, 'match', 'matches')} played now"


def two_bots(name: str, games: int, *extra: str) -> list[str]:
    return [
        "tournament", "run", "--name", name, "--bot", "random", "--bot", "ticket-by-ticket",
        "--players", "2", "--games", str(games), *extra,
    ]  # fmt: skip


def marked_bots(
    folder: Path,
    name: str,
    games: int,
    marker: str,
    *extra: str,
    bots: tuple[str, ...] = ("random", "ticket-by-ticket"),
) -> list[str]:
    """``two_bots`` as a tournament file whose bots carry ``marker`` in their environment.
    A bot's environment is the arena's own, whatever the driver's: only a tournament's
    ``bot_env`` can mark it (so a search for leftover bots by the marker finds them)."""
    spec = folder / f"{name}.toml"
    spec.write_text(
        f'name = "{name}"\nvariant = "usa"\nbots = {json.dumps(list(bots))}\n'
        f'players = [2]\ngames = {games}\nbot_env = ["ARENA_TEST_MARKER={marker}"]\n'
    )
    return ["tournament", "run", str(spec), *extra]


def start(args: list[str], cwd: Path, marker: str, env: dict | None = None) -> subprocess.Popen:
    """The driver in its own process group (as a terminal starts it), output captured."""
    return subprocess.Popen(
        [*ARENA, *args, "--data-dir", "data", "--no-progress"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "ARENA_TEST_MARKER": marker, **(env or {})},
        start_new_session=True,
    )


def wait_stored(data: Path, count: int, driver: subprocess.Popen, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout

    def stored() -> bool:
        return (data / "results.sqlite").exists() and stored_matches(data) >= count

    try:
        while not stored():
            # (the driver may store its last match and exit between two looks: look again)
            assert driver.poll() is None or stored(), driver.communicate()[0]
            assert time.monotonic() < deadline, f"fewer than {count} matches stored in time"
            time.sleep(0.1)
    except BaseException:
        driver.kill()
        raise


def wait_claimed(marker: str, driver: subprocess.Popen, timeout: float = 240) -> None:
    """Until a worker of ``driver`` stalls in a match at ``marker`` (``chaos.STALL_IN_MATCH``)."""
    deadline = time.monotonic() + timeout
    try:
        while chaos.claimed(marker) is None:
            assert driver.poll() is None, driver.communicate()[0]
            assert time.monotonic() < deadline, "no match reached the stall"
            time.sleep(0.1)
    except BaseException:
        driver.kill()
        raise


def interrupt(driver: subprocess.Popen, signum: int) -> tuple[str, float]:
    """Signal the driver's process group as a terminal does; its output and how long it took
    to exit."""
    try:
        signalled = time.monotonic()
        os.killpg(driver.pid, signum)
        output, _ = driver.communicate(timeout=60)
        return output, time.monotonic() - signalled
    finally:
        driver.kill()


def matches_begun(data: Path, name: str) -> set[str]:
    """The matches whose bots were started (each has its log folder)."""
    folder = data / "bot-logs" / name
    return {p.name for p in folder.iterdir()} if folder.exists() else set()


def session_folder(data: Path) -> str:
    (record,) = (data / SESSIONS).glob("*.json")
    return json.loads(record.read_text())["folder"]


def test_an_address_with_nothing_listening_fails_within_15_s_naming_it(tmp_path):
    port = free_port()
    out = arena(*two_bots("nowhere", 1, "--ray", f"127.0.0.1:{port}"), data_dir=tmp_path)
    assert out.code == 1
    assert f"no Ray cluster answers at 127.0.0.1:{port}" in one_line(out)
    bad = arena(*two_bots("nowhere", 1, "--ray", "not-an-address"), data_dir=tmp_path)
    assert bad.code == 1 and "HOST:PORT" in one_line(bad)


def test_a_local_ray_in_a_bot_authors_folder_stops_on_ctrl_c_and_is_cleaned_up_after_kill_9(
    tmp_path,
):
    folder = hostile_folder(tmp_path / "work")
    data = folder / "data"
    marker = f"ray-local-{tmp_path.name}"
    args = marked_bots(tmp_path, "local", 4, marker, "--ray", "--workers", "2")
    # Ctrl-C: the local Ray and every bot gone, one line. One match stalls (the chaos hook)
    # so the run cannot end by itself before the signal, however fast or busy the machine.
    first_stall = str(tmp_path / "first-stall")
    driver = start(args, folder, marker, {chaos.STALL_IN_MATCH: first_stall})
    wait_stored(data, 2, driver)
    wait_claimed(first_stall, driver)
    first_ray = session_folder(data)
    assert processes_with(marker, where="environ"), "the stalled match's bots are not marked"
    # Counted just before the signal: the other worker goes on playing until then (reading
    # every process's environment above takes seconds on a loaded machine).
    begun = matches_begun(data, "local")
    output, _ = interrupt(driver, signal.SIGINT)
    assert len(matches_begun(data, "local") - begun) <= 2, "matches started after Ctrl-C"
    assert driver.returncode == 130, output
    assert "Traceback" not in output and "run the same command to resume" in output
    assert not left_behind(marker, where="environ"), "bots or workers left behind"
    assert not processes_using(first_ray), "Ray processes left behind"
    # kill -9 (while a match stalls: the run is certainly not over): what it leaves behind
    # is ended by the next start, which then finishes the run.
    second_stall = str(tmp_path / "second-stall")
    driver = start(args, folder, marker, {chaos.STALL_IN_MATCH: second_stall})
    try:
        wait_claimed(second_stall, driver)
        second_ray = session_folder(data)
        driver.send_signal(signal.SIGKILL)
        driver.wait(30)
    finally:
        driver.kill()
    out = arena(*args, data_dir=Path("data"), cwd=folder)
    assert out.code == 0, out.out + out.err
    assert not processes_using(second_ray), "the crashed driver's Ray was not cleaned up"
    assert not os.path.exists(second_ray)
    with ResultsStore.reader(data) as store:
        results = store.results("local")
    assert sorted(r.idx for r in results) == list(range(8))
    assert all(f is None for r in results for f in r.faults), "a bot failed to start"


def test_sigterm_stops_a_cluster_run_from_a_bot_authors_folder_and_it_resumes(
    tmp_path, ray_cluster
):
    folder = hostile_folder(tmp_path / "work")
    data = folder / "data"
    marker = f"ray-cluster-{tmp_path.name}"
    args = marked_bots(tmp_path, "cluster", 4, marker, "--ray", ray_cluster)
    stall = str(tmp_path / "stall")  # a match stalls: the run cannot end before the signal
    driver = start(args, folder, marker, {chaos.STALL_IN_MATCH: stall})
    wait_stored(data, 2, driver)
    wait_claimed(stall, driver)
    begun = matches_begun(data, "cluster")
    assert processes_with(marker, where="environ"), "the stalled match's bots are not marked"
    output, _ = interrupt(driver, signal.SIGTERM)
    assert len(matches_begun(data, "cluster") - begun) <= 2, "matches started after SIGTERM"
    assert driver.returncode == 143 and "stopped by SIGTERM" in output, output
    assert not left_behind(marker, where="environ"), "bots left behind on the cluster"
    out = arena(*args, data_dir=Path("data"), cwd=folder)
    assert out.code == 0, out.out + out.err
    assert stored_matches(data) == 8


def test_a_lost_cluster_gives_one_line_and_the_store_resumes_elsewhere(tmp_path, ray_cluster):
    port = free_port()
    temp = Path(tempfile.mkdtemp(prefix="arena-head-"))  # short: Ray's socket paths live below
    start_head(temp, port)  # a head of our own, beside the session's cluster
    data = tmp_path / "data"
    args = two_bots("lost", 6, "--ray", f"127.0.0.1:{port}")
    driver = start(args, tmp_path, f"ray-lost-{tmp_path.name}")
    try:
        wait_stored(data, 1, driver)
        # The head dies (a dead node, or 'ray stop'): every process of it, not the driver
        # (which keeps its own log file in the head's folder).
        for pid in set(processes_using(str(temp))) - {driver.pid}:
            os.kill(pid, signal.SIGKILL)
        output, _ = driver.communicate(timeout=120)  # a hang bound, not a promise of speed
    finally:
        driver.kill()
        stop_ray_in(temp)
    assert driver.returncode == 1, output
    lines = [line for line in output.strip().splitlines() if line.startswith("error:")]
    assert lines and f"lost 127.0.0.1:{port}" in lines[-1], output
    assert "Traceback" not in output
    assert arena("store", "check", data_dir=data).code == 0
    kept = stored_matches(data)
    out = arena(*two_bots("lost", 6, "--ray", ray_cluster), data_dir=data)
    assert out.code == 0, out.out + out.err
    assert stored_matches(data) == 12 and played_now(12 - kept) in out.out


# Run inside a PID namespace of its own, so that `ray stop` (which stops every Ray process it
# can see) sees only the local Ray this driver starts, never the session's cluster.
RAY_STOP_SCRIPT = """
import json, subprocess, sys, time
from pathlib import Path
from tests.test_store import stored_matches

arena, args, data = json.loads(sys.argv[1]), json.loads(sys.argv[2]), Path(sys.argv[3])
driver = subprocess.Popen([*arena, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
deadline = time.monotonic() + 240
while not (data / "results.sqlite").exists() or stored_matches(data) < 2:
    assert driver.poll() is None and time.monotonic() < deadline, driver.communicate()
    time.sleep(0.1)
stopped = subprocess.run([sys.argv[4], "stop"], capture_output=True, text=True, timeout=120)
out, err = driver.communicate(timeout=60)
print(json.dumps({"code": driver.returncode, "out": out, "err": err, "stop": stopped.returncode}))
"""


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None,
    reason="a PID namespace of its own (so that `ray stop` sees only this test's Ray) needs root",
)
def test_ray_stop_during_a_run_gives_one_line_charges_no_match_and_the_store_resumes(tmp_path):
    data = tmp_path / "data"
    args = [*two_bots("stopped", 6, "--ray", "--workers", "2"), "--data-dir", str(data)]
    namespace = subprocess.run(
        [
            "unshare", "--pid", "--fork", "--mount-proc", "--kill-child", sys.executable, "-c",
            RAY_STOP_SCRIPT, json.dumps(ARENA), json.dumps([*args, "--no-progress"]), str(data),
            RAY,
        ],
        capture_output=True, text=True, timeout=600, cwd=Path(__file__).parent.parent,
        # One match stalls, so the run is still going when `ray stop` comes, however fast
        # the other matches are played (warm processes on Ray play 12 in a few seconds).
        env={**os.environ, chaos.STALL_IN_MATCH: str(tmp_path / "stalled")},
    )  # fmt: skip
    assert namespace.returncode == 0, namespace.stdout + namespace.stderr
    seen = json.loads(namespace.stdout.strip().splitlines()[-1])
    assert seen["stop"] == 0, seen
    messages = data / "ray-messages.log"
    seen["ray"] = messages.read_text()[-3000:] if messages.exists() else ""
    assert seen["code"] == 1, seen
    assert seen["err"].strip().count("\n") == 0, f"more than one line: {seen['err']}"
    assert "lost the local Ray" in seen["err"] and "run the same command again" in seen["err"], seen
    shown = arena("tournament", "show", "stopped", data_dir=data)
    assert "played, 0 failed" in shown.out, "a lost cluster is not the matches' fault"
    assert arena("store", "check", data_dir=data).code == 0
    kept = stored_matches(data)
    resumed = arena(*two_bots("stopped", 6), data_dir=data)  # resumable, here locally
    assert resumed.code == 0 and played_now(12 - kept) in resumed.out, resumed.text


def test_a_match_whose_ray_worker_keeps_dying_is_an_arena_fault(tmp_path, ray_cluster):
    """The worker playing match 2 dies (SIGKILL, its bots started) at each of the match's
    attempts: the match is the arena's fault, every other match is played."""
    data = tmp_path / "data"
    deaths = tmp_path / "deaths"
    deaths.mkdir()
    dying = two_bots("dying", 2, "--ray", ray_cluster)
    out = arena(*dying, data_dir=data, env={chaos.KILL_IN_MATCH: f"2:{MAX_ATTEMPTS}:{deaths}"})
    killed = sorted(deaths.iterdir())
    assert len(killed) == MAX_ATTEMPTS, out.out
    assert out.code == 1 and "1 match could not be played" in one_line(out), out.text
    assert "raylet" not in out.text, "Ray's own lines go to the data folder's log, not to us"
    assert "worker died" in (data / "ray-messages.log").read_text()
    assert played_now(3) in out.out
    shown = arena("tournament", "show", "dying", data_dir=data)
    assert "3 of 4 planned matches played, 1 failed" in shown.out


def test_a_ray_session_s_leftovers_are_killed_for_what_they_hold_never_by_number_alone(tmp_path):
    """Ending a local Ray kills the processes that use its session folder, each held by a
    pidfd and checked again first: a process that took a listed number meanwhile (here, one
    that never used the folder) is left alone."""
    folder = tmp_path / "session"
    folder.mkdir()
    log = folder / "raylet.out"
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import time; f = open({str(log)!r}, 'w'); time.sleep(60)"]
    )
    other = subprocess.Popen(["sleep", "60"])
    try:
        deadline = time.monotonic() + 10
        while not uses(holder.pid, str(folder)):
            assert time.monotonic() < deadline, "the holder never opened its file"
            time.sleep(0.05)
        kill_if_using(other.pid, str(folder))
        kill_if_using(holder.pid, str(folder))
        assert holder.wait(5) == -signal.SIGKILL
        time.sleep(0.1)
        assert other.poll() is None, "a process that never used the folder was killed"
    finally:
        for process in (holder, other):
            process.kill()
            process.wait(5)
