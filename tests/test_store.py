"""Results that survive anything, as a user meets them: the ``arena`` command in a fresh folder,
real SQLite, real processes. Damaged, emptied, old, foreign and read-only stores; a full disk;
a second driver; a match whose worker keeps dying; Ctrl-C and SIGTERM; a working folder
holding folders named like the arena's packages."""

from __future__ import annotations

import csv
import http.client
import io
import json
import multiprocessing
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path

import pytest

from arena import chaos
from arena.tournament.executors import MAX_ATTEMPTS
from arena.tournament.results import match_id
from arena.tournament.store import APPLICATION_ID, SCHEMA_VERSION, ResultsStore
from arena.tournament.storecare import recover
from tests.journey import HANG_S, Journey, interrupt_terminal, run_in_terminal
from tests.referee_helpers import proc_text, processes_with
from tests.store_helpers import (
    ARENA,
    arena,
    folder_state,
    one_line,
    read_only,
    resize,
    seats_csv,
    small_disk,
    tournament,
)

# The schema of stores written before the store had a version (ids in completion order).
UNVERSIONED_SCHEMA = """
CREATE TABLE bots (id INTEGER PRIMARY KEY, name TEXT NOT NULL, version INTEGER NOT NULL,
    kind TEXT NOT NULL, target TEXT NOT NULL, variants TEXT NOT NULL, content_hash TEXT NOT NULL,
    created_at REAL NOT NULL, UNIQUE (name, version));
CREATE TABLE tournaments (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL, spec TEXT NOT NULL, created_at REAL NOT NULL, finished_at REAL);
CREATE TABLE matches (id INTEGER PRIMARY KEY, tournament_id INTEGER NOT NULL REFERENCES
    tournaments(id), idx INTEGER NOT NULL, variant TEXT NOT NULL, seed INTEGER NOT NULL,
    players INTEGER NOT NULL, status TEXT NOT NULL, decisions INTEGER NOT NULL,
    seconds REAL NOT NULL, attempts INTEGER NOT NULL, worker TEXT NOT NULL,
    finished_at REAL NOT NULL, UNIQUE (tournament_id, idx));
CREATE TABLE seats (match_id INTEGER NOT NULL REFERENCES matches(id), seat INTEGER NOT NULL,
    bot TEXT NOT NULL, score INTEGER NOT NULL, rank INTEGER NOT NULL,
    engine_rank INTEGER NOT NULL, breakdown TEXT NOT NULL, fault TEXT, fault_detail TEXT,
    PRIMARY KEY (match_id, seat));
CREATE TABLE logs (match_id INTEGER PRIMARY KEY REFERENCES matches(id), jsonl BLOB NOT NULL);
CREATE INDEX seats_bot ON seats(bot);
"""


@pytest.fixture(scope="module")
def calm(tmp_path_factory):
    """An undisturbed run of the small tournament: its folder and its seats export."""
    folder = tmp_path_factory.mktemp("calm")
    out = arena(*tournament("t", 3), data_dir=folder / "data")
    assert out.code == 0, out.out + out.err
    return folder / "data", seats_csv(folder / "data", folder / "seats.csv")


def stored_matches(data_dir: Path) -> int:
    with ResultsStore.reader(data_dir) as store:
        return sum(t.played for t in store.tournaments())


def test_a_new_store_has_a_version_an_application_id_and_durable_commits(tmp_path):
    store = ResultsStore(tmp_path)
    pragma = {
        name: store.db.execute(f"PRAGMA {name}").fetchone()[0]
        for name in ("application_id", "user_version", "journal_mode", "synchronous")
    }
    store.close()
    assert pragma == {
        "application_id": APPLICATION_ID,
        "user_version": SCHEMA_VERSION,
        "journal_mode": "wal",
        "synchronous": 2,  # FULL: a committed match survives a power cut
    }
    assert not list(tmp_path.glob("*.new-*")), "the store is built aside and linked in place"


def test_a_version_1_store_gains_the_tournament_keys_and_a_reader_leaves_it_as_it_is(tmp_path):
    with ResultsStore(tmp_path) as store:
        tid = store.tournament("t", "fp", {})
        store.db.execute("DROP TABLE tournament_keys")
        store.db.execute("PRAGMA user_version = 1")
    with ResultsStore.reader(tmp_path) as reader:
        assert reader.tournament_info("t") is not None
    version = sqlite3.connect(tmp_path / "results.sqlite").execute("PRAGMA user_version")
    assert version.fetchone()[0] == 1, "a reader never writes"
    with ResultsStore(tmp_path) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5
        key = store.tournament_secret(tid, b"k" * 32)
        assert store.tournament_secret(tid, b"other" * 8) == key == b"k" * 32, "kept"
    recover(tmp_path)  # the key goes with its tournament: the same games when resumed
    copy = sqlite3.connect(tmp_path / "results.sqlite.recover")
    assert copy.execute("SELECT secret FROM tournament_keys").fetchall() == [(b"k" * 32,)]


def test_an_unversioned_store_is_migrated_on_open_and_its_tournament_resumes(tmp_path, calm):
    calm_dir, calm_csv = calm
    with ResultsStore.reader(calm_dir) as store:
        (info,) = store.tournaments()
        results = store.results(info.id)
        logs = {r.idx: store.match_log(r.match_id) for r in results}
    old = tmp_path / "old"
    old.mkdir()
    db = sqlite3.connect(old / "results.sqlite", isolation_level=None)
    db.executescript(UNVERSIONED_SCHEMA)
    db.execute(
        "INSERT INTO tournaments VALUES (1, ?, ?, ?, 0, NULL)",
        (info.name, db_fingerprint(calm_dir), json.dumps(info.spec)),
    )
    # Three matches, stored in the order they finished (ids 1, 2, 3 for indices 4, 0, 2).
    for old_id, result in enumerate([results[4], results[0], results[2]], start=1):
        db.execute(
            "INSERT INTO matches VALUES (?, 1, ?, ?, ?, 2, 'done', ?, ?, 1, 'w', ?)",
            (old_id, result.idx, result.variant, result.seed, result.decisions, 0.1, 0.0),
        )
        for seat, bot in enumerate(result.bots):
            db.execute(
                "INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)",
                (
                    old_id,
                    seat,
                    bot,
                    result.scores[seat],
                    result.ranks[seat],
                    result.engine_ranks[seat],
                    json.dumps(result.breakdown[seat]),
                    result.faults[seat],
                ),
            )
        db.execute("INSERT INTO logs VALUES (?, ?)", (old_id, logs[result.idx]))
    db.close()
    # A reader reads it as it is (migrating a copy in memory) and leaves the file alone.
    before = folder_state(old)
    listed = arena("leaderboard", data_dir=old)
    assert listed.code == 0 and "ticket-by-ticket" in listed.out
    assert folder_state(old) == before
    out = arena(*tournament("t", 3), data_dir=old)
    assert out.code == 0, out.out + out.err
    assert "3 matches played now" in out.out
    assert seats_csv(old, tmp_path / "old.csv") == calm_csv
    with ResultsStore(old) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert sorted(r.match_id for r in store.results()) == [match_id(1, i) for i in range(6)]


def db_fingerprint(data_dir: Path) -> str:
    with ResultsStore.reader(data_dir) as store:
        return store.db.execute("SELECT fingerprint FROM tournaments").fetchone()[0]


def serve_pages(data: Path, folder: Path, paths: list[str]) -> dict[str, tuple[int, str]]:
    """The status and text of pages of ``arena serve`` on ``data`` (the server stopped after)."""
    server = Journey(folder).start("serve", "--port", "0", "--data-dir", data)
    try:
        line = server.stdout.readline()
        port = int(re.search(r"127\.0\.0\.1:(\d+)/", line).group(1))
        pages = {}
        for path in paths:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            connection.request("GET", path)
            response = connection.getresponse()
            pages[path] = (response.status, response.read().decode(errors="replace"))
        return pages
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
        assert server.returncode == 0 and "Traceback" not in err, err


def serve_page(data: Path, folder: Path, path: str) -> int:
    return serve_pages(data, folder, [path])[path][0]


def test_readers_work_on_a_read_only_archive_and_a_run_there_says_why_it_cannot(tmp_path, calm):
    calm_dir, calm_csv = calm
    archive = tmp_path / "archive"
    archive.mkdir()
    for name in ("results.sqlite",):
        (archive / name).write_bytes((calm_dir / name).read_bytes())
    before = folder_state(archive)
    with read_only(archive):
        board = arena("leaderboard", "--format", "csv", data_dir=archive)
        assert board.code == 0 and board.out.count("\n") == 3, board.out + board.err
        assert seats_csv(archive, tmp_path / "seats.csv") == calm_csv
        site = arena("site", str(tmp_path / "site"), data_dir=archive)
        assert site.code == 0, site.out + site.err
        shown = arena("tournament", "show", "t", data_dir=archive)
        assert shown.code == 0 and "6 of 6 planned matches played" in shown.out
        check = arena("store", "check", data_dir=archive)
        assert check.code == 0 and "healthy" in check.out
        assert serve_page(archive, tmp_path, "/") == 200
        run = arena(*tournament("t", 3), data_dir=archive)
        assert run.code == 1
        assert "read-only" in one_line(run)
        assert folder_state(archive) == before, "a reader wrote to the archive"
    assert len(list((tmp_path / "site" / "matches").glob("*.html"))) == 6


def test_an_emptied_store_is_refused_never_taken_for_a_new_one(tmp_path, calm):
    data = tmp_path / "data"
    data.mkdir()
    (data / "results.sqlite").write_bytes(b"")
    for command in (tournament("t", 3), ("leaderboard",), ("results", "--out", "x.csv")):
        out = arena(*command, data_dir=data, cwd=tmp_path)
        assert out.code == 1
        line = one_line(out)
        assert "is empty (0 bytes)" in line and "backup" in line
    assert (data / "results.sqlite").stat().st_size == 0, "nothing was replayed into it"
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.parametrize("where", ["middle", "end"])
def test_damaged_pages_are_refused_and_recover_saves_every_intact_match(tmp_path, calm, where):
    calm_dir, calm_csv = calm
    data = tmp_path / "data"
    data.mkdir()
    store_file = data / "results.sqlite"
    store_file.write_bytes((calm_dir / "results.sqlite").read_bytes())
    size = store_file.stat().st_size
    page = 4096
    offset = size - page
    if where == "middle":  # the middle page of the data: not one of the schema's own pages
        with closing(sqlite3.connect(store_file)) as db:  # (those fail otherwise)
            pages = [
                number
                for (number,) in db.execute(
                    "SELECT pageno FROM dbstat WHERE name != 'sqlite_schema' ORDER BY pageno"
                )
            ]
        offset = (pages[len(pages) // 2] - 1) * page
    with store_file.open("r+b") as file:
        file.seek(offset)
        file.write(b"\xa5garbage" * (page // 8))
    run = arena(*tournament("t", 3), data_dir=data)
    assert run.code == 1
    assert "is damaged" in one_line(run) and "arena store recover" in one_line(run)
    check = arena("store", "check", data_dir=data)
    assert check.code == 1 and "is damaged" in one_line(check)
    if where == "end":  # (the last page holds a match log): its page says so, in one line
        pages = serve_pages(data, tmp_path, [f"/matches/{match_id(1, i)}.js" for i in range(6)])
        failed = [text for status, text in pages.values() if status != 200]
        assert failed and all("is damaged" in text for text in failed), pages
        assert all(text.count("\n") == 1 for text in failed), failed
    recovered = arena("store", "recover", "--replace", data_dir=data)
    assert recovered.code == 0, recovered.out + recovered.err
    assert "intact match" in recovered.out
    assert (data / "results.sqlite.damaged").exists()
    assert arena("store", "check", data_dir=data).code == 0
    # Whatever the damage took is played again: the same results as the undisturbed run.
    resumed = arena(*tournament("t", 3), data_dir=data)
    assert resumed.code == 0, resumed.out + resumed.err
    assert seats_csv(data, tmp_path / "seats.csv") == calm_csv


def test_a_lost_key_is_said_and_means_new_deals_for_the_missing_matches_only(tmp_path, calm):
    """docs/DURABILITY.md's promise, both ways: with the tournament's key kept (or ARENA_SECRET
    pinned) the missing matches replay as they were; with the key lost they get new deals,
    and the user is told so."""
    calm_dir, calm_csv = calm
    data = tmp_path / "data"
    data.mkdir()
    (data / "results.sqlite").write_bytes((calm_dir / "results.sqlite").read_bytes())
    db = sqlite3.connect(data / "results.sqlite", isolation_level=None)
    lost = "SELECT id FROM matches WHERE idx >= 4"
    for table, column in (("seats", "match_id"), ("logs", "match_id"), ("matches", "id")):
        db.execute(f"DELETE FROM {table} WHERE {column} IN ({lost})")
    db.execute("DELETE FROM tournament_keys")
    db.close()
    unpinned = {"ARENA_SECRET": ""}  # (the test suite pins one; a user usually does not)
    out = arena(*tournament("t", 3), data_dir=data, env=unpinned)
    assert out.code == 0, out.text
    assert "had lost its secret key" in out.out and "ARENA_SECRET" in out.out
    calm_rows = calm_csv.decode().splitlines()
    rows = seats_csv(data, tmp_path / "seats.csv").decode().splitlines()
    assert rows[:9] == calm_rows[:9], "the stored matches stay as they were"
    assert rows[9:] != calm_rows[9:], "the missing matches got new deals"
    again = arena(*tournament("t", 3), data_dir=data, env=unpinned)
    assert "lost its secret key" not in again.out, "the new key is kept"


def test_foreign_newer_and_non_sqlite_files_are_refused(tmp_path):
    cases = {
        "foreign": ("CREATE TABLE x (y)", "not a ttr-arena results store"),
        "newer": (f"PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 99;"
                  " CREATE TABLE x (y)", "newer ttr-arena"),
    }  # fmt: skip
    for name, (sql, expected) in cases.items():
        data = tmp_path / name
        data.mkdir()
        db = sqlite3.connect(data / "results.sqlite")
        db.executescript(sql)
        db.close()
        out = arena("leaderboard", data_dir=data)
        assert out.code == 1 and expected in one_line(out), name
    text = tmp_path / "text"
    text.mkdir()
    (text / "results.sqlite").write_text("my notes, not a database\n")
    out = arena(*tournament("t", 1), data_dir=text)
    assert out.code == 1 and "not a results store" in one_line(out)
    missing = arena("leaderboard", data_dir=tmp_path / "nothing-here")
    assert missing.code == 0 and "no stored matches" in missing.out
    assert not (tmp_path / "nothing-here").exists(), "a reader creates nothing"
    assert not (tmp_path / "nothing-here").exists(), "a reader created a folder"


def test_backup_is_a_checked_copy_that_never_overwrites(tmp_path, calm):
    calm_dir, calm_csv = calm
    copy = tmp_path / "copy"
    copy.mkdir()
    out = arena("store", "backup", str(copy), data_dir=calm_dir)
    assert out.code == 0 and "backed up 6 matches" in out.out, out.out + out.err
    assert seats_csv(copy, tmp_path / "seats.csv") == calm_csv
    again = arena("store", "backup", str(copy / "results.sqlite"), data_dir=calm_dir)
    assert again.code == 1 and "exists already" in one_line(again)


def matches_rows(data_dir: Path) -> list[tuple]:
    """Every stored match as (id, when it finished): a match played again finishes later."""
    with ResultsStore.reader(data_dir) as store:
        return store.db.execute("SELECT id, finished_at FROM matches ORDER BY id").fetchall()


# A driver killed right after committing its last matches: they are in the -wal file only.
COMMIT_THEN_DIE = """
import os, signal, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA wal_autocheckpoint=0")
db.execute("ATTACH ? AS calm", (sys.argv[2],))
late = "SELECT id FROM calm.matches WHERE idx >= 3"
db.execute("BEGIN")
db.execute("INSERT INTO matches SELECT * FROM calm.matches WHERE idx >= 3")
for table in ("seats", "logs"):
    db.execute(f"INSERT INTO {table} SELECT * FROM calm.{table} WHERE match_id IN ({late})")
db.execute("COMMIT")
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.fixture(scope="module")
def wal_held(calm, tmp_path_factory) -> Path:
    """The calm store as a killed driver leaves it: its last 3 matches committed but only in
    its write-ahead log (``results.sqlite-wal``), which a replacement must not lose."""
    calm_dir, _ = calm
    data = tmp_path_factory.mktemp("wal-held") / "data"
    data.mkdir()
    shutil.copy(calm_dir / "results.sqlite", data / "results.sqlite")
    shutil.copy(calm_dir / "results.sqlite", data.parent / "calm.sqlite")
    with closing(sqlite3.connect(data / "results.sqlite", isolation_level=None)) as db:
        late = "SELECT id FROM matches WHERE idx >= 3"
        for table in ("seats", "logs"):
            db.execute(f"DELETE FROM {table} WHERE match_id IN ({late})")
        db.execute("DELETE FROM matches WHERE idx >= 3")
    died = subprocess.run(
        [
            sys.executable,
            "-c",
            COMMIT_THEN_DIE,
            data / "results.sqlite",
            data.parent / "calm.sqlite",
        ]
    )
    assert died.returncode == -signal.SIGKILL
    assert (data / "results.sqlite-wal").stat().st_size > 0
    assert matches_rows(data) == matches_rows(calm_dir)
    return data


# A match row with neither seats nor log (the store is damaged: 'store check' fails, and
# 'recover' leaves the match out), added to the log of a store whose log is held.
ADD_AN_ORPHAN_THEN_DIE = """
import os, signal, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA wal_autocheckpoint=0")
db.execute("CREATE TEMP TABLE orphan AS SELECT * FROM matches ORDER BY id DESC LIMIT 1")
db.execute("UPDATE orphan SET id = id + 1000, idx = 99")
db.execute("INSERT INTO matches SELECT * FROM orphan")
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.fixture(scope="module")
def damaged(wal_held, tmp_path_factory) -> tuple[Path, int]:
    """``wal_held``'s store with one match lacking its seats and log: 'recover --replace'
    replaces only a damaged store (a healthy one stays in place). Returns the folder and
    the damaged match's id."""
    data = tmp_path_factory.mktemp("damaged") / "data"
    shutil.copytree(wal_held, data)
    died = subprocess.run([sys.executable, "-c", ADD_AN_ORPHAN_THEN_DIE, data / "results.sqlite"])
    assert died.returncode == -signal.SIGKILL
    assert (data / "results.sqlite-wal").stat().st_size > 0
    orphan = max(row[0] for row in matches_rows(data))
    assert arena("store", "check", data_dir=data).code != 0
    return data, orphan


def killed_at_each_step(
    command: Callable[[Path], tuple[str, ...]], source: Path, folder: Path
) -> Iterator[Path]:
    """Run ``arena command(DATA)``, DATA a fresh copy of the data folder ``source``, once per
    step of its file work, killed (SIGKILL) just before that step; yields each DATA after
    the kill, and ends when the command runs to its end."""
    for step in range(1, 30):
        data = folder / f"step-{step}" / "data"
        shutil.copytree(source, data)
        run = arena(*command(data), data_dir=data, env={chaos.KILL_AT_STEP: str(step)})
        if run.code == 0:
            assert step > 1, "the kill hook is never reached"
            return
        assert run.code == -signal.SIGKILL, run.text
        yield data
    raise AssertionError("the command never ran to its end")


def test_a_kill_at_any_step_of_recover_replace_leaves_a_store_and_loses_nothing(
    tmp_path, calm, damaged
):
    """kill -9 before each step of 'recover --replace': the store in place is the old one or
    the recovered one, never none; the next run replays nothing and loses nothing, and the
    recovery can run again to its end."""
    calm_dir, _ = calm
    source, orphan = damaged
    expected = matches_rows(calm_dir)

    def played(data: Path) -> list[tuple]:  # the damaged match is left out by a recovery
        return [row for row in matches_rows(data) if row[0] != orphan]

    for data in killed_at_each_step(lambda _: ("store", "recover", "--replace"), source, tmp_path):
        assert (data / "results.sqlite").exists(), sorted(p.name for p in data.iterdir())
        resumed = arena(*tournament("t", 3), data_dir=data)
        assert resumed.code == 0, resumed.text
        assert played(data) == expected, "a match was played again or lost"
        kept = data / "results.sqlite.damaged"
        done = kept.exists() and not kept.samefile(data / "results.sqlite")
        again = arena("store", "recover", *(() if done else ("--replace",)), data_dir=data)
        assert again.code == 0, again.text
        assert matches_rows(data) == expected
        assert arena("store", "check", data_dir=data).code == 0


def test_a_kill_at_any_step_of_backup_leaves_the_store_and_no_copy_taken_for_a_store(
    tmp_path, calm, wal_held
):
    """kill -9 before each step of 'backup': the store is untouched; a folder holding only the
    unfinished copy is refused in one line (never a new store), and the backup runs again."""
    calm_dir, _ = calm
    expected = matches_rows(calm_dir)

    def backup_into_a_new_folder(data: Path) -> tuple[str, ...]:
        (data.parent / "copy").mkdir()
        return ("store", "backup", str(data.parent / "copy"))

    for data in killed_at_each_step(backup_into_a_new_folder, wal_held, tmp_path):
        copy = data.parent / "copy"
        resumed = arena(*tournament("t", 3), data_dir=data)
        assert resumed.code == 0, resumed.text
        assert matches_rows(data) == expected
        if (copy / "results.sqlite").exists():
            assert matches_rows(copy) == expected
            continue
        if any(copy.iterdir()):
            refused = arena(*tournament("t", 3), data_dir=copy)
            assert refused.code == 1 and "results.sqlite.partial" in one_line(refused)
            assert not (copy / "results.sqlite").exists()
        again = arena("store", "backup", str(copy), data_dir=data)
        assert again.code == 0, again.text
        assert matches_rows(copy) == expected


@pytest.mark.parametrize("trace", ["results.sqlite.recover", "results.sqlite.damaged"])
def test_the_traces_of_an_unfinished_replacement_without_a_store_are_never_a_new_store(
    tmp_path, calm, trace
):
    """A folder holding a recovered or a set-aside store but no store (as an older arena's
    recovery killed half-way left it) is refused by every command, in one line that says
    what to do; done, the run goes on with nothing played again."""
    calm_dir, _ = calm
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(calm_dir / "results.sqlite", data / trace)
    for command in (tournament("t", 3), ("store", "recover"), ("leaderboard",)):
        refused = arena(*command, data_dir=data, cwd=tmp_path)
        assert refused.code == 1
        assert f"holds {trace} but no results.sqlite" in one_line(refused), command
        assert "rename it to" in one_line(refused)
    assert sorted(p.name for p in data.iterdir()) == [trace], "nothing was created"
    (data / trace).rename(data / "results.sqlite")
    resumed = arena(*tournament("t", 3), data_dir=data)
    assert resumed.code == 0, resumed.text
    assert matches_rows(data) == matches_rows(calm_dir)


def test_a_full_disk_gives_one_line_at_once_keeps_every_match_and_the_same_command_resumes(
    tmp_path,
):
    args = (
        "tournament", "run", "--name", "full", "--bot", "random", "--bot", "ticket-by-ticket",
        "--players", "2", "--games", "5", "--logs-dir", str(tmp_path / "logs"),
    )  # fmt: skip
    with small_disk(tmp_path / "disk", "256k") as disk:
        run = arena(*args, data_dir=disk / "data")
        assert run.code == 1, run.out + run.err
        line = one_line(run)
        assert "is full" in line and "run the same command again" in line
        kept = stored_matches(disk / "data")
        assert 0 < kept < 10
        started = len(list((tmp_path / "logs" / "full").iterdir()))
        assert started <= kept + 1, "it went on playing after the disk was full"
        resize(disk, "8m")
        check = arena("store", "check", data_dir=disk / "data")
        assert check.code == 0, check.out
        assert stored_matches(disk / "data") == kept, "every finished match was kept"
        resumed = arena(*args, data_dir=disk / "data")
        assert resumed.code == 0, resumed.out + resumed.err
        assert f"{10 - kept} matches played now" in resumed.out
    with small_disk(tmp_path / "tiny", "8k") as tiny:
        (tiny / "filler").write_bytes(b"\0" * 8192)
        start = arena(*tournament("t", 3), data_dir=tiny / "data")
        assert start.code == 1 and "is full" in one_line(start)
        assert not (tiny / "data" / "results.sqlite").exists()


def test_bot_logs_that_cannot_be_written_cost_no_match(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    with read_only(logs):
        out = arena(
            "tournament", "run", "--name", "logs", "--bot", "random", "--bot", "ticket-by-ticket",
            "--players", "2", "--games", "1", "--logs-dir", str(logs), data_dir=tmp_path / "data",
        )  # fmt: skip
    assert out.code == 0, out.out + out.err
    with ResultsStore.reader(tmp_path / "data") as store:
        results = store.results("logs")
    assert len(results) == 2 and all(f is None for r in results for f in r.faults)


def test_a_second_driver_refuses_naming_the_first_and_takes_over_once_it_is_dead(tmp_path):
    data = tmp_path / "data"
    args = [*ARENA, *tournament("busy", 40), "--data-dir", str(data), "--no-progress"]
    first = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not (data / "results.sqlite").exists() or not driving(data):
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.02)
        first.send_signal(signal.SIGSTOP)  # alive, but making no progress (a busy driver)
        second = arena(*tournament("busy", 40), data_dir=data)
        assert second.code == 1
        line = one_line(second)
        assert f"already being run by pid {first.pid}" in line and "wait for it" in line
        replaced = arena("store", "recover", "--replace", data_dir=data)
        assert replaced.code == 1 and "stop it before replacing" in one_line(replaced)
        assert not (data / "results.sqlite.recover").exists()
        first.send_signal(signal.SIGKILL)
        first.wait(30)
    finally:
        first.kill()
    shown = arena("tournament", "show", "busy", data_dir=data)  # its lease is left behind ...
    said = " ".join(shown.out.split())  # (lines fit 80 columns)
    assert f"interrupted (pid {first.pid} on" in said and "is gone" in said
    taken = arena(*tournament("busy", 40), data_dir=data)  # ... and taken over: it is dead
    assert taken.code == 0, taken.out + taken.err
    assert stored_matches(data) == 80
    assert "finished" in arena("tournament", "show", "busy", data_dir=data).out


def driving(data_dir: Path) -> bool:
    """Whether a driver holds a lease on a tournament of the store."""
    with ResultsStore.reader(data_dir) as store:
        return any(t.driver is not None for t in store.tournaments())


def _create(args) -> int:
    data_dir, barrier = args
    barrier.wait()
    with ResultsStore(data_dir) as store:
        return store.tournament("same", "fp", {"a": 1})


def test_creating_the_same_tournament_at_the_same_instant_gives_one(tmp_path):
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        barrier = manager.Barrier(4)
        with context.Pool(4) as pool:
            ids = pool.map(_create, [(tmp_path, barrier)] * 4)
    assert ids == [1, 1, 1, 1]


def test_a_match_whose_worker_keeps_dying_is_an_arena_fault_and_the_rest_is_played(tmp_path):
    data = tmp_path / "data"
    deaths = tmp_path / "deaths"
    deaths.mkdir()
    name = "dying"
    args = (
        "tournament", "run", "--name", name, "--bot", "random", "--bot", "ticket-by-ticket",
        "--players", "2", "--games", "2", "--workers", "2",
    )  # fmt: skip
    # Four deaths in all (SIGKILL, the worker's own, its bots started: chaos KILL_IN_MATCH):
    # match 1's worker on each of its three attempts, match 0's once. Deaths are counted per
    # match: match 0 is played on its second attempt.
    kills = f"0:1:{deaths},1:{MAX_ATTEMPTS}:{deaths}"
    out = arena(*args, data_dir=data, env={chaos.KILL_IN_MATCH: kills})
    killed = sorted(path.name for path in deaths.iterdir())
    assert killed == ["death-0-1", "death-1-1", "death-1-2", "death-1-3"], killed
    assert out.code == 1, out.out + out.err
    assert "1 match could not be played" in one_line(out)
    assert "3 matches played now" in out.out, "the tournament went on"
    with ResultsStore.reader(data) as store:
        attempts = {r.idx: r.attempts for r in store.results(name, details=False)}
    assert attempts == {0: 2, 2: 1, 3: 1}, attempts
    shown = " ".join(arena("tournament", "show", name, data_dir=data).out.split())  # (80 wide)
    assert "3 of 4 planned matches played, 1 failed" in shown
    assert "match 1 (" in shown and "3 attempts failed" in shown
    assert "worker process died" in shown
    board = arena("leaderboard", "--format", "csv", data_dir=data)
    rows = list(csv.DictReader(io.StringIO(board.out)))
    assert [row["games"] for row in rows] == ["3", "3"], "the failed match is not rated"
    again = arena(*args, data_dir=data)  # the same command retries it (no more deaths)
    assert again.code == 0 and "1 match played now" in again.out
    assert "0 failed" in arena("tournament", "show", name, data_dir=data).out


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_signal_stops_a_local_tournament_and_the_same_command_resumes(tmp_path, signum):
    marker = f"signal-test-{tmp_path.name}"
    env = {**os.environ, "ARENA_TEST_MARKER": marker, "COLUMNS": "100"}
    args = [
        *ARENA, "tournament", "run", "--name", "sig", "--bot", "random",
        "--bot", "ticket-by-ticket", "--players", "2", "--games", "6", "--workers", "2",
        "--data-dir", "data",
    ]  # fmt: skip
    driver, output = run_in_terminal(args, tmp_path, env)
    started = tmp_path / "data" / "bot-logs" / "sig"
    try:
        deadline = time.monotonic() + 120
        while (
            not (tmp_path / "data" / "results.sqlite").exists()
            or stored_matches(tmp_path / "data") < 2
        ):
            assert time.monotonic() < deadline and driver.poll() is None
            time.sleep(0.05)
        begun = {p.name for p in started.iterdir()}
    except BaseException:
        driver.kill()
        raise
    text, _ = interrupt_terminal(driver, output, signum)
    assert driver.returncode == (130 if signum == signal.SIGINT else 143), text
    assert "Traceback" not in text, text
    last = text.strip().splitlines()[-1]
    assert "stopped by" in last and "run the same command to resume" in last
    assert text.rfind("\x1b[?25h") > text.rfind("\x1b[?25l") >= 0, "the cursor was not restored"
    assert len({p.name for p in started.iterdir()} - begun) <= 2, "matches started after it"
    # What the driver started may still be exiting when it returns (multiprocessing's
    # resource tracker ends when it reads the driver's end): a few seconds on a quiet
    # machine, more on a busy one. The bound is for a process that never goes (a hang).
    deadline = time.monotonic() + HANG_S
    while processes_with(marker, where="environ") and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [proc_text(pid) for pid in processes_with(marker, where="environ")]
    assert not left, f"processes left behind: {left}"
    resumed = arena(*args[len(ARENA) : -2], data_dir=tmp_path / "data", cwd=tmp_path)
    assert resumed.code == 0, resumed.out + resumed.err
    assert stored_matches(tmp_path / "data") == 12


def hostile_folder(root: Path) -> Path:
    """A bot author's working folder: their own bots/, and folders named like every other
    package of the arena that would break it if imported in place of ours."""
    for package in ("arena", "protocols", "leaderboards"):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text(
            f"raise ImportError('the user folder {package}/ was imported')\n"
        )
    (root / "bots").mkdir()  # no __init__.py: a namespace package, the commonest case
    (root / "bots" / "my_bot.py").write_text("MINE = True\n")
    return root


def test_a_working_folder_holding_bots_arena_protocols_leaderboards_changes_nothing(tmp_path):
    folder = hostile_folder(tmp_path / "work")
    run = arena(
        "tournament", "run", "--name", "home", "--bot", "random", "--bot", "ticket-by-ticket",
        "--players", "2", "--games", "1", "--workers", "2", data_dir=Path("data"), cwd=folder,
    )  # fmt: skip
    assert run.code == 0, run.out + run.err
    with ResultsStore.reader(folder / "data") as store:
        results = store.results("home")
    assert len(results) == 2 and all(f is None for r in results for f in r.faults)
    for command in (("leaderboard",), ("site", "site"), ("tournament", "show", "home")):
        out = arena(*command, data_dir=Path("data"), cwd=folder)
        assert out.code == 0, out.out + out.err
