"""Warm bot processes (arena/referee/pool.py): real sandboxed processes seated in match after
match, what they are told, when they are replaced, and that none outlives its pool."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from arena.referee.launch import BotEntry, ProcessMatch
from arena.referee.pool import BotPool
from bots import get_bot
from tests.referee_helpers import HOSTILE, hostile, left_behind, processes_with, tree_cpu
from tests.test_referee import CALM, USA, check_complete


def play_warm(pool: BotPool, bots: list[str], seed: int, log_dir, limits=None):
    entries = [BotEntry.parse(b) for b in bots]
    with ProcessMatch(USA, entries, CALM, limits, log_dir=log_dir, pool=pool) as referee:
        return referee.play(seed)


def started(log_dir, bot: str) -> int:
    """How many processes of ``bot`` were started (each has its own scratch folder)."""
    return len(list(log_dir.rglob(f"seat*-{bot}.tmp")))


def test_a_warm_process_is_told_each_match_and_nothing_of_the_last(tmp_path):
    recorder = hostile("record", "heard")
    with BotPool() as pool:
        for number, bots in enumerate([["random", recorder], [recorder, "random"]] * 2):
            check_complete(play_warm(pool, bots, 10 + number, tmp_path / str(number)), {})
        assert pool.reused == 6  # every seat after the first match: a warm process
    assert started(tmp_path, "heard") == started(tmp_path, "random") == 1
    heard = "".join(path.read_text() for path in sorted(tmp_path.rglob("seat*-heard.stdout")))
    messages = [json.loads(line) for line in heard.splitlines()]
    assert messages.pop()["type"] == "bye"  # the pool's close: the session's end
    # Four matches on one connection: each opens with a welcome naming the seat it then
    # plays, and every message after it until the next welcome is about that match's game.
    welcomes = [i for i, m in enumerate(messages) if m["type"] == "welcome"]
    assert len(welcomes) == 4 and welcomes[0] == 0
    for number, (start, end) in enumerate(
        zip(welcomes, [*welcomes[1:], len(messages)], strict=True)
    ):
        match = messages[start:end]
        assert match[0]["seat"] == match[1]["seat"] == (1, 0, 1, 0)[number]
        assert match[1]["type"] == "game_start" and match[-1]["type"] == "game_over"
        assert {m["game_id"] for m in match[1:]} == {match[1]["game_id"]}
    assert len({messages[i]["match_id"] for i in welcomes}) == 4
    # Its logs: each match's own files; its start-up line in the first match's alone.
    logs = sorted(tmp_path.rglob("seat*-heard.stderr"))
    assert len(logs) == 4 and "record started" in logs[0].read_text()
    assert not any("started" in log.read_text() for log in logs[1:])
    assert not left_behind(str(HOSTILE))


def test_a_warm_process_that_dies_in_a_match_is_charged_and_replaced(tmp_path):
    bots = ["random", hostile("play")]
    with BotPool() as pool:
        check_complete(play_warm(pool, bots, 1, tmp_path / "1"), {})
        (warm,) = [w for _, w in pool.idle.values() if "hostile" in " ".join(w.process.command)]
        entries = [BotEntry.parse(b) for b in bots]
        with ProcessMatch(USA, entries, CALM, log_dir=tmp_path / "2", pool=pool) as referee:
            os.killpg(warm.process.pid, signal.SIGKILL)  # seated, then killed
            outcome = referee.play(2)
        check_complete(outcome, {1: "crash"})
        check_complete(play_warm(pool, bots, 3, tmp_path / "3"), {})
    assert started(tmp_path, "play") == 2 and started(tmp_path, "random") == 1


def test_a_process_is_replaced_after_its_matches_and_a_fresh_one_never_kept(tmp_path):
    with BotPool(matches_per_process=2) as pool:
        for number in range(5):
            bots = ["random", "greedy-claims"]
            play_warm(pool, bots, number, tmp_path / str(number))
    assert started(tmp_path, "random") == 3  # matches 1-2, 3-4, 5
    with BotPool(matches_per_process=1) as pool:
        for number in range(2):
            play_warm(pool, ["random", "greedy-claims"], number, tmp_path / f"fresh{number}")
        assert not pool.idle and pool.reused == 0
    assert started(tmp_path, "random") == 5
    # A plugin that asks for a fresh process each match never gets a warm one.
    fresh = BotEntry.for_plugin(dataclasses.replace(get_bot("random"), fresh_process=True))
    assert fresh.fresh_process
    with BotPool() as pool:
        for number in range(2):
            entries = [fresh, BotEntry.parse("greedy-claims")]
            with ProcessMatch(
                USA, entries, CALM, log_dir=tmp_path / f"plugin{number}", pool=pool
            ) as referee:
                check_complete(referee.play(number), {})
        assert [warm.process.command[-1] for _, warm in pool.idle.values()] == ["greedy-claims"]
    assert started(tmp_path, "random") == 7


def test_a_warm_process_computes_nothing_between_matches(tmp_path):
    """At each game_over the bot forks a child that spins for ever, sending nothing. The
    child used to run through every later match of its worker while the process sat warm
    in the pool, and the pool's checks (messages, connections, the launched process's CPU)
    never saw it: the process was seated again each time. Frozen in the pool, it uses no
    CPU there; the pool's CPU and memory checks count its whole cgroup."""
    spinner = hostile("spin-after-over")
    with BotPool() as pool:
        check_complete(play_warm(pool, ["random", spinner], 1, tmp_path / "1"), {})
        (warm,) = [w for _, w in pool.idle.values() if "hostile" in " ".join(w.process.command)]
        before = tree_cpu(warm.process.pid)
        for number in range(2, 4):  # other matches of the worker, while it sits warm
            check_complete(
                play_warm(pool, ["random", "greedy-claims"], number, tmp_path / str(number)), {}
            )
        idle = tree_cpu(warm.process.pid)
        assert idle - before < 0.02, f"{idle - before:.2f} s of CPU used sitting in the pool"
        # Seated again: the child it started at the last game_over spins in its turns only.
        check_complete(play_warm(pool, [spinner, "random"], 4, tmp_path / "4"), {})
        assert pool.reused >= 1 and warm.process.alive()
        assert warm.process.usage().cpu_seconds >= tree_cpu(warm.process.pid) - 0.02
    assert "a spinning child started" in "".join(
        path.read_text() for path in tmp_path.rglob("seat*-spin-after-over.stderr")
    )
    assert not processes_with(str(HOSTILE))


def test_a_killed_worker_takes_its_pool_s_processes_with_it(tmp_path):
    """A worker holding idle warm processes dies by SIGKILL: they die with it (the kernel's
    parent-death signal), sandboxed or not."""
    script = textwrap.dedent(
        f"""
        import sys, time
        from pathlib import Path
        from arena.referee.launch import BotEntry, ProcessMatch
        from arena.referee.pool import BotPool
        from arena.referee.process import ProcessLimits
        from tests.test_referee import CALM, USA
        pool = BotPool()
        for sandbox in (True, False):
            entries = [BotEntry.parse(b) for b in ("random", "cmd:{sys.executable} {HOSTILE} play")]
            with ProcessMatch(USA, entries, CALM, ProcessLimits(sandbox=sandbox),
                              log_dir=Path(sys.argv[1]), pool=pool) as referee:
                referee.play(1)
        print(len(pool.idle), flush=True)
        time.sleep(600)
        """
    )
    worker = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.path.dirname(os.path.dirname(__file__)),
    )
    try:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "4"
        assert len(processes_with(str(HOSTILE))) >= 2
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
    finally:
        worker.kill()
    assert not left_behind(str(HOSTILE))


def test_a_killed_worker_s_pool_folder_is_swept_by_the_next_run(tmp_path):
    """A worker killed by SIGKILL cannot remove its pool folder (its endpoints, in the
    temporary folder): the next tournament run removes it, and so does the next pool to
    start, also a folder whose pid now runs another process (the start time tells them
    apart). The folders of live workers stay."""
    from arena.procfs import owner_tag
    from arena.referee.pool import FOLDER_PREFIX
    from tests.store_helpers import arena, tournament

    worker = subprocess.Popen(
        [sys.executable, "-c", POOL_THEN_SLEEP], stdout=subprocess.PIPE, text=True
    )
    try:
        assert worker.stdout is not None
        killed = Path(worker.stdout.readline().strip())
        assert killed.is_dir() and killed.name.startswith(FOLDER_PREFIX)
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
    finally:
        worker.kill()
    assert killed.is_dir(), "a killed worker removes nothing"
    run = arena(*tournament("t", 1), data_dir=tmp_path / "data")
    assert run.code == 0, run.text
    assert not killed.exists(), "the next run left a killed worker's folder"
    namespace, pid, started = owner_tag().split("-")
    temporary = Path(tempfile.gettempdir())
    reused = temporary / f"{FOLDER_PREFIX}{namespace}-{pid}-{int(started) - 1}-x"  # my pid, earlier
    reused.mkdir()
    with BotPool() as live, BotPool() as later:
        assert not reused.exists()
        assert Path(live.ipc_dir).is_dir() and Path(later.ipc_dir).is_dir()
    assert not Path(live.ipc_dir).exists(), "a pool removes its own folder when it closes"


POOL_THEN_SLEEP = """
import time
from arena.referee.pool import BotPool
print(BotPool().ipc_dir, flush=True)
time.sleep(600)
"""
