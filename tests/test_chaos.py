"""Chaos: kill -9 the driver, a Ray worker mid-match, and the process writing to SQLite in
the middle of a transaction; kill a ladder at random moments; fill the disk, turn the folder
read-only and damage the file under a running ladder; resuming (or recovering) each time,
the final store must equal the store of an undisturbed run with the same seed."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pandas as pd

from arena.tournament.store import CHAOS_STALL
from arena.tournament.storecare import check
from tests.referee_helpers import HOSTILE, processes_with
from tests.store_helpers import nearly_fill, resize, small_disk
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
    """Rows of matches, seats and logs in the store, after checking it (read-only)."""
    report = check(data_dir)
    assert report.ok, report.summary()
    return report.counts["matches"], report.counts["seats"], report.counts["logs"]


def test_kill_9_of_driver_worker_and_writer_in_a_loop_then_resume_equals_a_calm_run(
    tmp_path, ray_cluster
):
    s = spec(name="chaos", bots=(PLAYER, "random", "greedy-claims"), games=5)
    args = [*cli_args(s), "--ray", ray_cluster]
    run_cli(*args, data_dir=tmp_path / "calm")
    hurt = tmp_path / "hurt"
    total = 30
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
    # Every bot of the run (random ones too) has its scratch folder under tmp_path; the last
    # ones may still be exiting when the driver returns: give them a few seconds, not more.
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (
        processes_with(str(HOSTILE)) or processes_with(str(tmp_path), where="environ")
    ):
        time.sleep(0.1)
    assert not processes_with(str(HOSTILE)), "bots left behind"
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


LADDER = [
    "tournament", "run", "--name", "lad", "--format", "ladder", "--games", "24", "--seed", "11",
    "--bot", "random", "--bot", "ticket-by-ticket", "--bot", "greedy-claims", "--players", "2",
    "--workers", "2",
]  # fmt: skip


def test_a_ladder_killed_at_random_moments_resumes_to_exactly_the_undisturbed_ladder(tmp_path):
    """Each wave's plan is stored before it is played and drawn only from the earlier waves'
    results: after kill -9 in the middle of waves (with later matches of a wave finished
    before earlier ones), the resumed ladder is the ladder that would have run."""
    ladder = [*LADDER, "--in-process"]  # (the bots' processes are not the point here)
    run_cli(*ladder, data_dir=tmp_path / "calm")
    hurt = tmp_path / "hurt"
    rng = random.Random(16)
    for target in (3, 10, 18):  # one kill inside each wave of 8
        driver = start_driver(ladder, hurt)
        try:
            wait_for_matches(hurt, target)
            time.sleep(rng.uniform(0, 0.5))
            kill(driver)
        finally:
            driver.kill()
    run_cli(*ladder, data_dir=hurt)
    result = signature(hurt, "lad")
    assert sorted(set(result.idx)) == list(range(24)) and len(result) == 48
    pd.testing.assert_frame_equal(signature(tmp_path / "calm", "lad"), result)


def test_full_disks_read_only_folders_and_damaged_files_in_a_loop_then_resume_equals_calm(
    tmp_path,
):
    """The store's chaos loop, on a small disk of its own, in the middle of a ladder: the disk
    fills up; the driver is killed and the disk comes back read-only; the file is damaged.
    Every time the user sees one line, and the same command (after 'arena store recover'
    for the damage) goes on; in the end the ladder is the undisturbed one."""
    ladder = [*LADDER, "--in-process"]
    run_cli(*ladder, data_dir=tmp_path / "calm")
    with small_disk(tmp_path / "disk", "16m") as disk:
        hurt = disk / "data"
        # 1. The disk fills up in the middle of a wave.
        driver = start_driver(ladder, hurt)
        try:
            wait_for_matches(hurt, 4)
            nearly_fill(disk)
            output, _ = driver.communicate(timeout=120)
        finally:
            driver.kill()
        assert driver.returncode == 1 and "is full" in output.strip().splitlines()[-1], output
        resize(disk, "16m")
        assert run_cli("store", "check", data_dir=hurt, check=False).returncode == 0
        # 2. Killed; the disk comes back read-only (the kernel never turns a disk read-only
        # under a writer): readers work, a run says why it cannot.
        driver = start_driver(ladder, hurt)
        try:
            wait_for_matches(hurt, stored(hurt)[0] + 3)
            kill(driver)
        finally:
            driver.kill()
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        try:
            assert run_cli("leaderboard", data_dir=hurt, check=False).returncode == 0
            refused = run_cli(*ladder, data_dir=hurt, check=False)
        finally:
            subprocess.run(["mount", "-o", "remount,rw", str(disk)], check=True)
        assert refused.returncode == 1 and "read-only" in refused.stderr, refused.stderr
        # 3. Stopped, then a page in the middle of the file is overwritten with garbage.
        driver = start_driver(ladder, hurt)
        try:
            wait_for_matches(hurt, stored(hurt)[0] + 3)
            driver.send_signal(signal.SIGTERM)
            output, _ = driver.communicate(timeout=60)
        finally:
            driver.kill()
        assert driver.returncode == 143, output
        store_file = hurt / "results.sqlite"
        with store_file.open("r+b") as file:
            file.seek(store_file.stat().st_size // 2 // 4096 * 4096)
            file.write(b"\x5agarbage" * 512)
        refused = run_cli(*ladder, data_dir=hurt, check=False)
        assert refused.returncode == 1 and "is damaged" in refused.stderr, refused.stderr
        run_cli("store", "recover", "--replace", data_dir=hurt)
        run_cli(*ladder, data_dir=hurt)
        result = signature(hurt, "lad")
    pd.testing.assert_frame_equal(signature(tmp_path / "calm", "lad"), result)
