"""Chaos: one loop puts a ladder on a real Ray cluster (bots as processes, the data folder on
a small disk of its own) through everything at once, twice over: kill -9 of the driver at a
random moment, of the process writing to SQLite in the middle of a transaction, of a Ray worker
in the middle of a match; a disk that fills up; a folder that comes back read-only; a page of
the file overwritten with garbage (then 'arena store recover --replace', killed once half-way
through). After each, the user sees one line and the same command goes on; in the end the
store equals an undisturbed run's. Beside it, the ladder's worst case on its own: a resume
with gaps in the stored indices."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pandas as pd

from arena import chaos
from arena.tournament.storecare import check
from tests.referee_helpers import HOSTILE, left_behind
from tests.store_helpers import IS_ROOT, nearly_fill, read_only, resize, small_disk
from tests.test_tournament import (
    ARENA,
    PLAYER,
    assert_same_results,
    kill_a_worker_mid_match,
    run_cli,
    signature,
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


def data_page_offset(store_file):
    """Where the middle leaf page of the store's biggest table starts: garbage there damages
    stored matches, never SQLite's list of tables (a recovered store's schema pages can lie
    in the middle of the file, and a store without its list of tables has nothing to
    recover)."""
    with contextlib.closing(sqlite3.connect(f"file:{store_file}?mode=ro", uri=True)) as db:
        size = db.execute("PRAGMA page_size").fetchone()[0]
        pages = db.execute(
            "SELECT name, pageno FROM dbstat WHERE pagetype = 'leaf' AND name IN "
            "(SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%')"
        ).fetchall()
    tables: dict[str, list[int]] = {}
    for name, page in pages:
        tables.setdefault(name, []).append(page)
    biggest = sorted(max(tables.values(), key=len))
    return (biggest[len(biggest) // 2] - 1) * size


def stored(data_dir):
    """Rows of matches, seats and logs in the store, after checking it (read-only)."""
    report = check(data_dir)
    assert report.ok, report.summary()
    return report.counts["matches"], report.counts["seats"], report.counts["logs"]


@contextlib.contextmanager
def driving(args, data_dir, env=None):
    """A driver running in the background; killed (if still running) on the way out."""
    driver = start_driver(args, data_dir, env)
    try:
        yield driver
    finally:
        driver.kill()
        driver.wait(30)


def last_line(driver) -> str:
    output, _ = driver.communicate(timeout=180)
    assert "Traceback" not in output, output
    return output.strip().splitlines()[-1]


GAMES = 40
LADDER = [
    "tournament", "run", "--name", "lad", "--format", "ladder", "--games", str(GAMES),
    "--seed", "11", "--bot", PLAYER, "--bot", "random", "--bot", "greedy-claims",
    "--players", "2",
]  # fmt: skip


# One cycle of every fault by default (a kill at each step of a recover is tests/test_store.py's
# job); ARENA_CHAOS_CYCLES=2 adds a cycle on the store already played on, at another kill point.
CYCLES = int(os.environ.get("ARENA_CHAOS_CYCLES", "1"))


def test_the_chaos_loop_a_ladder_on_ray_through_kills_full_disks_read_only_and_damage(
    tmp_path, ray_cluster
):
    run_cli(*LADDER, "--workers", "2", data_dir=tmp_path / "calm")  # (same on any executor)
    ladder = [*LADDER, "--ray", ray_cluster]
    rng = random.Random(16)
    disk = small_disk(tmp_path / "disk", "32m") if IS_ROOT else contextlib.nullcontext(tmp_path)
    with disk as root:
        hurt = root / "data"
        for cycle in range(CYCLES):
            # 1. kill -9 of the driver at a random moment (in the middle of a wave, or not).
            with driving(ladder, hurt) as driver:
                wait_for_matches(hurt, stored(hurt)[0] + 1 if cycle else 1, timeout=240)
                time.sleep(rng.uniform(0, 2))
                kill(driver)
            # 2. kill -9 of the writer inside a match's transaction: nothing of it remains.
            before = stored(hurt)
            marker = tmp_path / f"in-transaction-{cycle}"
            with driving(ladder, hurt, {chaos.STALL_IN_TRANSACTION: str(marker)}) as driver:
                deadline = time.monotonic() + 240
                while not marker.exists():
                    assert time.monotonic() < deadline, "the writer never reached a transaction"
                    assert driver.poll() is None, driver.communicate()[0]
                    time.sleep(0.05)
                kill(driver)
            matches, seats, logs = stored(hurt)
            assert (matches, seats, logs) == before, "the interrupted transaction survived"
            # 3. A Ray worker killed in the middle of a match: another worker plays it again,
            # the driver goes on; then it is killed too.
            stalled = tmp_path / f"in-match-{cycle}"
            with driving(ladder, hurt, {chaos.STALL_IN_MATCH: str(stalled)}) as driver:
                kill_a_worker_mid_match(driver, stalled)
                wait_for_matches(hurt, before[0] + 2, timeout=240)
                kill(driver)
            # 4. The disk fills up under a running driver: one line, every finished match kept.
            if IS_ROOT:
                with driving(ladder, hurt) as driver:
                    wait_for_matches(hurt, stored(hurt)[0] + 1, timeout=240)
                    nearly_fill(root)
                    line = last_line(driver)
                assert driver.returncode == 1 and "is full" in line, line
                resize(root, "32m")
                assert run_cli("store", "check", data_dir=hurt, check=False).returncode == 0
            # 5. The folder comes back read-only: readers work, a run says why it cannot.
            with read_only(hurt):
                assert run_cli("leaderboard", data_dir=hurt, check=False).returncode == 0
                refused = run_cli(*ladder, data_dir=hurt, check=False)
            assert refused.returncode == 1 and "read-only" in refused.stderr, refused.stderr
            # 6. Stopped (SIGTERM), then a page in the middle of the file is overwritten with
            # garbage: refused in one line; 'arena store recover --replace' saves what is
            # intact and the same command plays the rest again.
            with driving(ladder, hurt) as driver:
                wait_for_matches(hurt, stored(hurt)[0] + 2, timeout=240)
                driver.send_signal(signal.SIGTERM)
                line = last_line(driver)
            assert driver.returncode == 143 and "run the same command" in line, line
            store_file = hurt / "results.sqlite"
            with store_file.open("r+b") as file:
                file.seek(data_page_offset(store_file))
                file.write(b"\x5agarbage" * 512)
            refused = run_cli(*ladder, data_dir=hurt, check=False)
            assert refused.returncode == 1 and "is damaged" in refused.stderr, refused.stderr
            # Killed (kill -9) in the middle of its renames, it leaves a store in place, the
            # damaged one or the recovered one, and runs again to its end.
            cut = subprocess.run(
                [*ARENA, "store", "recover", "--replace", "--data-dir", str(hurt)],
                env={**os.environ, chaos.KILL_AT_STEP: str(4 + cycle)},
                capture_output=True,
            )
            assert cut.returncode == -signal.SIGKILL, cut.stderr
            assert (hurt / "results.sqlite").exists(), "a kill left no store"
            run_cli("store", "recover", "--replace", data_dir=hurt)
            (hurt / "results.sqlite.damaged").unlink()  # (kept by recover; looked at, gone)
            assert stored(hurt)[0] < GAMES, "the loop must end before the ladder does"
        run_cli(*ladder, data_dir=hurt)
        result = signature(hurt, "lad")
    assert sorted(set(result.idx)) == list(range(GAMES)) and len(result) == 2 * GAMES
    assert_same_results(signature(tmp_path / "calm", "lad"), result)
    # Every bot of the run has its scratch folder under tmp_path (the last ones may still be
    # exiting when the driver returns).
    assert not left_behind(str(HOSTILE)), "bots left behind"
    assert not left_behind(str(tmp_path), where="environ"), "processes left behind"


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
    assert not left_behind(marker), "an orphaned bot lives on"


def test_a_ladder_resumed_with_gaps_in_its_stored_indices_plays_exactly_them_and_ends(tmp_path):
    """The ladder's worst case, forced: later matches of a wave stored before earlier ones,
    and the next waves not yet planned. The resume plays exactly the missing matches, plans
    the next waves as the undisturbed run did, and ends (it once replayed the last match for
    ever)."""
    ladder = [
        "tournament", "run", "--name", "lad", "--format", "ladder", "--games", "24", "--seed",
        "11", "--bot", "random", "--bot", "ticket-by-ticket", "--bot", "greedy-claims",
        "--players", "2", "--workers", "2", "--in-process",
    ]  # fmt: skip
    run_cli(*ladder, data_dir=tmp_path / "calm")
    hurt = tmp_path / "hurt"
    hurt.mkdir()
    (hurt / "results.sqlite").write_bytes((tmp_path / "calm" / "results.sqlite").read_bytes())
    db = sqlite3.connect(hurt / "results.sqlite", isolation_level=None)
    lost = "SELECT id FROM matches WHERE idx IN (5, 12) OR idx >= 14"
    for table, column in (("seats", "match_id"), ("logs", "match_id"), ("matches", "id")):
        db.execute(f"DELETE FROM {table} WHERE {column} IN ({lost})")
    db.execute("DELETE FROM schedule WHERE idx >= 16")  # the last wave: not planned yet
    db.close()
    resumed = run_cli(*ladder, data_dir=hurt, timeout=120)
    assert "12 matches played now" in resumed.stdout, resumed.stdout
    pd.testing.assert_frame_equal(signature(tmp_path / "calm", "lad"), signature(hurt, "lad"))
