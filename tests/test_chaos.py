"""Chaos: kill -9 the driver, a Ray worker mid-match, and the process writing to SQLite in
the middle of a transaction, resuming each time; the final store must equal the store of
an undisturbed run with the same seed."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pandas as pd

from arena.tournament.store import CHAOS_STALL
from tests.referee_helpers import HOSTILE, processes_with
from tests.test_tournament import (
    ARENA,
    PLAYER,
    cli_args,
    kill_a_worker_mid_match,
    run_cli,
    signature,
    spec,
    wait_for_matches,
)


def start_driver(args, data_dir, env=None):
    command = [*ARENA, *args, "--data-dir", str(data_dir), "--no-progress"]
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
    )


def kill(driver):
    driver.send_signal(signal.SIGKILL)
    driver.wait(30)


def stored(data_dir):
    db = sqlite3.connect(data_dir / "results.sqlite", timeout=30)
    try:
        matches = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        seats = db.execute("SELECT COUNT(*) FROM seats").fetchone()[0]
        logs = db.execute("SELECT COUNT(*) FROM logs").fetchone()[0]
    finally:
        db.close()
    return matches, seats, logs


def test_kill_9_of_driver_worker_and_writer_in_a_loop_then_resume_equals_a_calm_run(
    tmp_path, ray_cluster
):
    s = spec(name="chaos", bots=(PLAYER, "random", "greedy-claims"), games=8)
    args = [*cli_args(s), "--ray", ray_cluster]
    run_cli(*args, data_dir=tmp_path / "calm")
    hurt = tmp_path / "hurt"
    total = 48
    for cycle in range(2):
        # 1. The driver, at a random moment between matches.
        driver = start_driver(args, hurt)
        try:
            wait_for_matches(hurt, 2 + 6 * cycle)
            kill(driver)
        finally:
            driver.kill()
        # 2. The writer, inside a match's transaction: nothing of that match may remain.
        marker = tmp_path / f"in-transaction-{cycle}"
        before = stored(hurt)
        driver = start_driver(args, hurt, {CHAOS_STALL: str(marker)})
        try:
            deadline = time.monotonic() + 120
            while not marker.exists():
                assert time.monotonic() < deadline, "the writer never reached a transaction"
                time.sleep(0.05)
            kill(driver)
        finally:
            driver.kill()
        matches, seats, logs = stored(hurt)
        assert seats == 2 * matches and logs == matches, "a half-written match survived"
        assert matches == before[0], "the interrupted transaction must roll back"
        # 3. A Ray worker in the middle of a match: Ray retries it, the driver goes on.
        driver = start_driver(args, hurt)
        try:
            kill_a_worker_mid_match(driver, hurt)
            if cycle == 0:
                wait_for_matches(hurt, before[0] + 4)
                kill(driver)
            else:
                output, _ = driver.communicate(timeout=600)
                assert driver.returncode == 0, output
        finally:
            driver.kill()
    result = signature(hurt, "chaos")
    assert sorted(set(result.idx)) == list(range(total)) and len(result) == 2 * total
    pd.testing.assert_frame_equal(signature(tmp_path / "calm", "chaos"), result)
    time.sleep(0.5)
    assert not processes_with(str(HOSTILE)), "bots left behind"
    # Every bot of the run (random ones too) has its scratch folder under tmp_path.
    assert not processes_with(str(tmp_path), where="environ"), "processes left behind"


STARTER = """
import functools, os, subprocess, sys, time
from arena.referee.process import die_with_parent

def setup(parent):
    open(sys.argv[2], "w").close()  # forked
    time.sleep(1.5)  # the parent is killed during this, before the death signal is asked for
    die_with_parent(parent)

subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(60)", sys.argv[1][::-1]],
    preexec_fn=functools.partial(setup, os.getpid()),
)
"""


def test_a_bot_whose_referee_dies_while_it_starts_does_not_live_on(tmp_path):
    """The kernel's parent-death signal covers only deaths after it is asked for: a
    process started by a referee that is killed in between must notice and exit."""
    marker = str(tmp_path / "orphan-marker")
    forked = tmp_path / "forked"
    # Reversed, so that only the child's command line (once it runs) holds the marker.
    starter = subprocess.Popen([sys.executable, "-c", STARTER, marker[::-1], str(forked)])
    deadline = time.monotonic() + 10
    while not forked.exists():
        assert time.monotonic() < deadline, "the child never started"
        time.sleep(0.05)
    starter.send_signal(signal.SIGKILL)
    starter.wait(10)
    time.sleep(3)  # past the child's start-up: it has exec'd by now, unless it exited
    assert not processes_with(marker), "an orphaned bot lives on"
