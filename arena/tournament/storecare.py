"""Looking after the results store: check it, recover what is intact from a damaged one,
back it up while tournaments run. Part of the store (with ``store.py``, the only SQL).

Recovery reads the damaged file table by table in rowid order, stepping over
pages that cannot be read, and copies every intact match (its row, every seat
and its log, of a tournament whose row survived) into a new store next to it,
``results.sqlite.recover``. Matches lost to the damage are simply missing
there: running the same tournament again plays them.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import defaultdict
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from arena.tournament.results import match_id
from arena.tournament.store import (
    FILE_NAME,
    ResultsStore,
    StoreDamaged,
    StoreError,
    _uri,
    create_store_file,
    inspect_file,
    integrity_problems,
)

RECOVER_SUFFIX = ".recover"
CHUNK = 256
LOWEST = -(2**63)
HIGHEST = 2**63 - 1


@dataclass
class CheckReport:
    path: Path
    problems: list[str] = field(default_factory=list)  # what SQLite's check found
    error: str | None = None  # why the store could not even be checked (one line)
    counts: dict[str, int] = field(default_factory=dict)
    size: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems and self.error is None

    def summary(self) -> str:
        """One line: what is wrong and what to do."""
        if self.error is not None:
            return self.error
        shown = "; ".join(self.problems[:3])
        more = f" (+{len(self.problems) - 3} more)" if len(self.problems) > 3 else ""
        return (
            f"{self.path} is damaged: {shown}{more}; 'arena store recover' copies every "
            "intact match into a new store"
        )


def check(data_dir: Path) -> CheckReport:
    """SQLite's full integrity check plus the store's own consistency (every match with all
    its seats and its log), read-only."""
    path = Path(data_dir) / FILE_NAME
    report = CheckReport(path)
    try:
        store = ResultsStore.reader(data_dir)
    except StoreError as error:
        report.error = str(error)
        return report
    report.size = path.stat().st_size
    try:
        report.problems += integrity_problems(store.db)
        for table in ("tournaments", "matches", "seats", "logs", "failures", "bots"):
            report.counts[table] = store.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        partial = store.db.execute(
            "SELECT COUNT(*) FROM matches m WHERE m.players !="
            " (SELECT COUNT(*) FROM seats s WHERE s.match_id = m.id)"
            " OR NOT EXISTS (SELECT 1 FROM logs l WHERE l.match_id = m.id)"
        ).fetchone()[0]
        if partial:
            report.problems.append(f"{partial} match(es) lack seats or their log")
    except sqlite3.DatabaseError as error:
        report.problems.append(str(error))
    finally:
        store.close()
    return report


def _readable_from(db: sqlite3.Connection, query: str, after: int) -> int | None:
    """The smallest rowid bound ``b >= after`` from which ``query`` (rows with rowid > b) can be
    read, stepping over damaged pages; None if nothing after ``after`` can be read."""

    def readable(bound: int) -> bool:
        try:
            db.execute(query, (bound,)).fetchall()
        except sqlite3.DatabaseError:
            return False
        return True

    step, bad = 1, after
    while True:
        probe = min(HIGHEST, bad + step)
        if readable(probe):
            break
        if probe == HIGHEST:
            return None
        bad, step = probe, step * 2
    good = probe
    while good - bad > 1:  # the first readable bound: nothing readable is skipped
        middle = (bad + good) // 2
        bad, good = (bad, middle) if readable(middle) else (middle, good)
    return good


def scan(db: sqlite3.Connection, table: str, columns: str) -> Iterator[tuple]:
    """Every readable row of ``table`` as (rowid, *columns), in rowid order."""
    query = (
        f"SELECT rowid, {columns} FROM {table} NOT INDEXED WHERE rowid > ? ORDER BY rowid"
        f" LIMIT {CHUNK}"
    )
    after = LOWEST
    while True:
        try:
            rows = db.execute(query, (after,)).fetchall()
        except sqlite3.DatabaseError:
            resumed = _readable_from(db, query, after)
            if resumed is None:
                return
            after = resumed
            continue
        if not rows:
            return
        yield from rows
        after = rows[-1][0]


@dataclass
class Recovery:
    path: Path
    matches: int = 0  # intact matches copied
    seen: int = 0  # match rows that could be read
    tournaments: int = 0
    bots: int = 0


def _open_damaged(path: Path) -> sqlite3.Connection:
    """The damaged file opened read-only; with its -wal unless that cannot be read."""
    inspect_file(path)
    for options in ({"mode": "ro"}, {"mode": "ro", "immutable": "1"}):
        try:
            db = sqlite3.connect(_uri(path, **options), uri=True)
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.DatabaseError:
            continue
    raise StoreDamaged(f"{path}: SQLite cannot read even its list of tables; nothing to recover")


def recover(data_dir: Path) -> Recovery:
    """Copy every intact match (and the tournaments, plans, failures and bots that can be
    read) into ``results.sqlite.recover`` in ``data_dir``; returns what was saved."""
    source_path = Path(data_dir) / FILE_NAME
    target = source_path.with_name(FILE_NAME + RECOVER_SUFFIX)
    if target.exists():
        raise StoreError(f"{target} exists already: move it away first")
    source = _open_damaged(source_path)
    report = Recovery(target)
    try:
        tables = {r[0] for r in source.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError:
        tables = {"tournaments", "matches", "seats", "logs", "bots", "schedule", "failures"}
        tables |= {"tournament_keys"}
    read = {
        "tournaments": "id, name, fingerprint, spec, created_at, finished_at",
        "bots": "name, version, kind, target, variants, content_hash, created_at",
        "matches": "tournament_id, idx, variant, seed, players, status, decisions, seconds,"
        " attempts, worker, finished_at",
        "seats": "match_id, seat, bot, score, rank, engine_rank, breakdown, fault, fault_detail",
        "logs": "match_id, jsonl",
        "schedule": "tournament_id, idx, seed, bots, planned_at",
        "failures": "tournament_id, idx, attempts, error, failed_at",
        "tournament_keys": "tournament_id, secret",
    }
    rows = {t: list(scan(source, t, read[t])) if t in tables else [] for t in read}
    source.close()
    seats: dict[int, dict[int, tuple]] = defaultdict(dict)
    for row in rows["seats"]:
        seats[row[1]][row[2]] = row[2:]
    logs = {row[1]: row[2] for row in rows["logs"]}
    tournaments = {row[1] for row in rows["tournaments"]}
    create_store_file(target)
    db = sqlite3.connect(target, isolation_level=None)
    try:
        db.execute("BEGIN")
        db.executemany(
            "INSERT OR IGNORE INTO tournaments (id, name, fingerprint, spec, created_at,"
            " finished_at) VALUES (?, ?, ?, ?, ?, ?)",
            [row[1:] for row in rows["tournaments"]],
        )
        db.executemany(
            "INSERT OR IGNORE INTO bots (name, version, kind, target, variants, content_hash,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [row[1:] for row in rows["bots"]],
        )
        for table in ("schedule", "failures", "tournament_keys"):
            values = ", ".join("?" * len(read[table].split(",")))
            db.executemany(
                f"INSERT OR IGNORE INTO {table} VALUES ({values})",
                [row[1:] for row in rows[table] if row[1] in tournaments],
            )
        for row in rows["matches"]:
            report.seen += 1
            old_id, tournament_id, idx, players = row[0], row[1], row[2], row[5]
            by_seat = seats.get(old_id, {})
            if (
                tournament_id not in tournaments
                or sorted(by_seat) != list(range(players))
                or old_id not in logs
            ):
                continue
            new_id = match_id(tournament_id, idx)
            db.execute(
                "INSERT OR IGNORE INTO matches (id, tournament_id, idx, variant, seed, players,"
                " status, decisions, seconds, attempts, worker, finished_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (new_id, *row[1:]),
            )
            db.executemany(
                "INSERT OR IGNORE INTO seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(new_id, *by_seat[s]) for s in range(players)],
            )
            db.execute("INSERT OR IGNORE INTO logs VALUES (?, ?)", (new_id, logs[old_id]))
            bots = [by_seat[s][1] for s in range(players)]
            db.execute(
                "INSERT OR IGNORE INTO schedule VALUES (?, ?, ?, ?, ?)",
                (tournament_id, idx, row[4], json.dumps(bots), row[11]),
            )
            db.execute(
                "DELETE FROM failures WHERE tournament_id = ? AND idx = ?", (tournament_id, idx)
            )
            report.matches += 1
        db.execute("COMMIT")
    except BaseException:
        db.close()
        with suppress(OSError):
            os.unlink(target)
        raise
    db.close()
    report.tournaments = len(tournaments)
    report.bots = len(rows["bots"])
    return report


def refuse_if_running(data_dir: Path) -> None:
    """StoreError if a live driver is running a tournament on this store (a store too
    damaged to say is taken to have none)."""
    running = []
    with suppress(StoreError, sqlite3.Error), ResultsStore.reader(data_dir) as store:
        running = [
            (t.name, t.driver) for t in store.tournaments() if t.driver and not t.driver.is_gone()
        ]
    if running:
        name, driver = running[0]
        raise StoreError(
            f"tournament '{name}' is being run by {driver.describe()}: "
            "stop it before replacing the store under it"
        )


def replace_with_recovered(data_dir: Path) -> Path:
    """Put ``results.sqlite.recover`` in place; the damaged file is kept as
    ``results.sqlite.damaged`` (returned)."""
    path = Path(data_dir) / FILE_NAME
    kept = path.with_name(FILE_NAME + ".damaged")
    if kept.exists():
        raise StoreError(f"{kept} exists already: move it away first")
    refuse_if_running(data_dir)
    os.replace(path, kept)
    for suffix in ("-wal", "-shm"):
        with suppress(FileNotFoundError):
            os.replace(path.with_name(FILE_NAME + suffix), kept.with_name(kept.name + suffix))
    os.replace(path.with_name(FILE_NAME + RECOVER_SUFFIX), path)
    return kept


def backup(data_dir: Path, target: Path) -> tuple[Path, int]:
    """Copy the store with SQLite's online backup (safe while a tournament writes to it) to
    ``target`` (a file, or a folder to hold ``results.sqlite``); returns the file and how
    many matches it holds. The copy is checked before it is put in place."""
    target = Path(target)
    if target.is_dir():
        target = target / FILE_NAME
    if target.exists():
        raise StoreError(f"{target} exists already: give a new file name")
    store = ResultsStore.reader(data_dir)
    partial = target.with_name(target.name + ".partial")
    try:
        copy = sqlite3.connect(partial)
        try:
            store.db.backup(copy)
            problems = integrity_problems(copy, "quick_check")
            matches = copy.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        finally:
            copy.close()
        if problems:
            raise StoreDamaged(f"the copy failed its check ({problems[0]}); {target} not written")
        os.replace(partial, target)
    except sqlite3.Error as error:
        raise store.problem(error) from None
    except OSError as error:
        raise StoreError(f"cannot write {target}: {error.strerror}") from None
    finally:
        store.close()
        with suppress(OSError):
            partial.unlink()
    return target, matches
