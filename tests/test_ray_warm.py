"""Warm bot processes on Ray (arena/tournament/raypool.py): each of Ray's workers keeps its bot
processes between matches as a local worker does; a lost node loses its pool and nothing else;
a bot that crashes in a warm process is charged and replaced; Ctrl-C leaves no bot behind.
Real Ray (the session's two-node cluster, a local Ray the arena starts, a cluster of our own
to lose a node of), real processes, real SQLite."""

from __future__ import annotations

import os
import signal
import tempfile
import time
from pathlib import Path

from arena import chaos
from arena.procfs import process_start, process_tree, stat_fields
from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
from tests.conftest import QUIET_NODE, free_port, own_ports, ray_command, start_head, stop_ray_in
from tests.referee_helpers import HOSTILE, hostile, left_behind, proc_text, processes_with
from tests.store_helpers import arena
from tests.test_ray_journeys import interrupt, marked_bots, start, two_bots, wait_stored

WAIT_S = 240  # for a stall to be reached, or a run to end, on a loaded machine


def stored(data: Path, name: str) -> list[MatchResult]:
    with ResultsStore.reader(data) as store:
        return store.results(name)


def started_in(data: Path, name: str, index: int, bot: str) -> int:
    """How many processes of ``bot`` were started in match ``index`` (each leaves its
    scratch folder in the match it started in)."""
    return len(list((data / "bot-logs" / name / str(index)).rglob(f"seat*-{bot}.tmp")))


def started(data: Path, name: str, bot: str) -> int:
    return len(list((data / "bot-logs" / name).rglob(f"seat*-{bot}.tmp")))


def bots_of(marker: str) -> list[int]:
    """The live bot processes of a tournament run by ``marked_bots`` with ``marker``."""
    return left_behind(marker, where="environ")


def raylet_of(pid: int) -> int:
    """The raylet (the node) that started the worker ``pid``."""
    while pid > 1:
        fields = stat_fields(pid)
        assert fields is not None, "the worker is gone"
        pid = int(fields[1])
        if "raylet" in (proc_text(pid) or "").split(" ")[0]:
            return pid
    raise AssertionError("no raylet above the worker")


def test_each_ray_worker_keeps_its_bot_processes_between_matches(tmp_path, ray_cluster):
    data = tmp_path / "data"
    marker = f"warm-{tmp_path.name}"
    out = arena(*marked_bots(tmp_path, "warm", 10, marker, "--ray", ray_cluster), data_dir=data)
    assert out.code == 0, out.text
    results = stored(data, "warm")
    assert len(results) == 20 and all(r.attempts == 1 for r in results)
    assert all(f is None for r in results for f in r.faults)
    # Two workers, one on each of the cluster's nodes (one CPU each), and each started one
    # process of each bot for all of its matches.
    assert len({r.worker for r in results}) == 2
    assert started(data, "warm", "random") == started(data, "warm", "ticket-by-ticket") == 2
    assert not bots_of(marker), "warm processes outlived the run"


def test_a_bot_that_crashes_in_a_warm_ray_process_is_charged_and_replaced(tmp_path):
    """The bot crashes after its 100th answer in all: in its second match (about 75 a
    match), while warm. A local Ray with one worker plays the matches in order."""
    data = tmp_path / "data"
    crasher = hostile("crash-mid", "100")
    marker = f"crash-{tmp_path.name}"
    args = marked_bots(
        tmp_path, "crash", 3, marker, "--ray", "--workers", "1", bots=("random", crasher)
    )
    out = arena(*args, data_dir=data)
    assert out.code == 0, out.text
    results = stored(data, "crash")
    assert [r.idx for r in results] == list(range(6)) and len({r.worker for r in results}) == 1
    crashed = [r.idx for r in results if any(f is not None for f in r.faults)]
    assert crashed and 0 not in crashed
    for result in results:
        hostile_seat = result.bots.index(crasher)
        expected = "crash" if result.idx in crashed else None
        assert result.faults[hostile_seat] == expected and result.attempts == 1
        assert result.faults[1 - hostile_seat] is None
    for index in crashed:
        assert started_in(data, "crash", index, "100") == 0, "it crashed fresh, not warm"
        if index + 1 < len(results):
            assert started_in(data, "crash", index + 1, "100") == 1, "not replaced"
    assert started(data, "crash", "random") == 1, "the other seat's process was not kept"
    assert "0 failed" in arena("tournament", "show", "crash", data_dir=data).out
    assert not bots_of(marker) and not left_behind(str(HOSTILE))


def test_a_lost_node_loses_its_pool_and_nothing_else(tmp_path):
    """A cluster of our own: a head without CPUs (the driver's node, which stays) and two
    one-CPU nodes. A match stalls on one node's worker, its bots started; that node's Ray
    processes are killed (its bots are left to die with their worker). The match is played
    again on the other node, whose warm processes were never lost."""
    port = free_port()
    temp = Path(tempfile.mkdtemp(prefix="arena-lost-"))  # short: Ray's socket paths live below
    stall = str(tmp_path / "stalled")
    data = tmp_path / "data"
    try:
        start_head(temp, port, "--num-cpus=0")
        for _ in range(2):
            ray_command(
                "start", f"--address=127.0.0.1:{port}", "--node-ip-address=127.0.0.1",
                "--disable-usage-stats", "--num-cpus=1", *own_ports(), *QUIET_NODE, attempts=3,
            )  # fmt: skip
        marker = f"lost-{tmp_path.name}"
        args = marked_bots(tmp_path, "lost", 5, marker, "--ray", f"127.0.0.1:{port}")
        driver = start(args, tmp_path, f"lost-{tmp_path.name}", {chaos.STALL_IN_MATCH: stall})
        try:
            deadline = time.monotonic() + WAIT_S
            while (claim := chaos.claimed(stall)) is None:
                assert driver.poll() is None, driver.communicate()[0]
                assert time.monotonic() < deadline, "no match reached the stall"
                time.sleep(0.1)
            worker, index = claim[0], int(claim[1])
            wait_stored(data, 2, driver)  # the other node plays on, warm
            # Each with its start time: a busy machine may give a dead bot's pid to another.
            bots = {pid: process_start(pid) for pid in process_tree(worker) if pid != worker}
            assert bots, "the stalled match's bots were not started"
            assert set(bots) & set(processes_with(marker, where="environ")), "not marked"
            for pid in set(process_tree(raylet_of(worker))) - set(bots):  # the node's Ray
                os.kill(pid, signal.SIGKILL)
            output, _ = driver.communicate(timeout=WAIT_S)
        finally:
            driver.kill()
    finally:
        stop_ray_in(temp)
    assert driver.returncode == 0, output
    assert "Traceback" not in output and "raylet" not in output, output
    results = stored(data, "lost")
    assert sorted(r.idx for r in results) == list(range(10))
    assert all(f is None for r in results for f in r.faults)
    (again,) = [r for r in results if r.idx == index]
    assert again.attempts == 2 and again.worker.rsplit(":", 1)[1] != str(worker)
    assert all(r.attempts == 1 for r in results if r.idx != index)
    # The lost node's processes of each bot, and the other node's, started once each.
    assert started(data, "lost", "random") == started(data, "lost", "ticket-by-ticket") == 2
    assert not [pid for pid, began in bots.items() if process_start(pid) == began], (
        "its bots outlived it"
    )
    assert not bots_of(marker)


def test_ctrl_c_stops_a_warm_ray_pool_with_every_bot(tmp_path, ray_cluster):
    """One worker stalls in a match, its bots started; the other plays on, keeping warm
    processes between its matches (every bot at the driver's niceness). Ctrl-C ends both
    workers' bots, and the run resumes."""
    stall = str(tmp_path / "stalled")
    data = tmp_path / "data"
    args = two_bots("stop", 8, "--ray", ray_cluster)
    driver = start(args, tmp_path, f"stop-{tmp_path.name}", {chaos.STALL_IN_MATCH: stall})
    try:
        deadline = time.monotonic() + WAIT_S
        while chaos.claimed(stall) is None:
            assert driver.poll() is None, driver.communicate()[0]
            assert time.monotonic() < deadline, "no match reached the stall"
            time.sleep(0.1)
        wait_stored(data, 3, driver)
    except BaseException:
        driver.kill()
        raise
    claim = chaos.claimed(stall)
    assert claim is not None and len(process_tree(claim[0])) > 1, "its bots were not started"
    # The stalled worker's own bots (a bot's environment no longer names the data folder,
    # which it cannot see: they are found as the worker's descendants).
    live = [pid for pid in process_tree(claim[0]) if pid != claim[0]]
    assert len(live) >= 2, f"the stalled match's two bots: {live}"
    # At this process's niceness, as a local worker's bots (Ray's workers run at 15).
    niceness = {int(fields[16]) for pid in live if (fields := stat_fields(pid)) is not None}
    assert niceness == {os.nice(0)}, niceness
    output, took = interrupt(driver, signal.SIGINT)
    assert driver.returncode == 130, (took, output)
    assert "Traceback" not in output and "run the same command to resume" in output
    deadline = time.monotonic() + 60  # (the cluster's node ends them as the worker goes)
    while (
        left := [p for p in live if stat_fields(p) not in (None,) and stat_fields(p)[0] != "Z"]
    ) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"bots left behind: {left}"
    assert stat_fields(claim[0]) is None, "the stalled worker outlived the stop"
    out = arena(*args, data_dir=data)
    assert out.code == 0, out.text
    assert len(stored(data, "stop")) == 16
