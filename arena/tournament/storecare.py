"""Looking after the results store: check it, recover what is intact from a damaged one,
back it up while tournaments run. Part of the store (with the ``store*.py`` modules, the only SQL).

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

from arena import chaos
from arena.tournament.results import match_id
from arena.tournament.store import (
    DAMAGED_SUFFIX,
    FILE_NAME,
    PARTIAL_SUFFIX,
    RECOVER_SUFFIX,
    ResultsStore,
    StoreCutShort,
    StoreDamaged,
    StoreError,
    StoreMissing,
    _uri,
    create_store_file,
    inspect_file,
    integrity_problems,
    replacement_traces,
)

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
    read) into ``results.sqlite.recover`` in ``data_dir``; returns what was saved. The copy
    is made aside and renamed into place whole: a ``.recover`` file is always complete."""
    source_path = _store_file(data_dir)
    target = source_path.with_name(FILE_NAME + RECOVER_SUFFIX)
    if target.exists():
        raise StoreError(f"{target} exists already: move it away first")
    partial = target.with_name(target.name + PARTIAL_SUFFIX)
    report = _recover_into(source_path, partial)
    chaos.kill_at_step()
    os.replace(partial, target)
    sync_folder(target.parent)
    report.path = target
    return report


def recover_in_place(data_dir: Path) -> tuple[Recovery, Path]:
    """Recover the store and put the recovered one in its place; the damaged one is kept as
    ``results.sqlite.damaged`` (returned with what was saved).

    At every instant a whole store is under the store's name, so a kill at any point leaves
    the damaged store (and this can run again) or the recovered one, never none: the
    damaged store's log is folded into its file, which is then linked under its second
    name, and the recovered store, written aside, takes the name in one rename."""
    path = _store_file(data_dir)
    kept = path.with_name(FILE_NAME + DAMAGED_SUFFIX)
    ours = kept.exists() and kept.samefile(path)  # (left by a run cut short)
    if kept.exists() and not ours:
        raise StoreError(f"{kept} exists already: move it away first")
    refuse_if_running(data_dir)
    inspect_file(path)
    fold_log(path)
    partial = path.with_name(FILE_NAME + RECOVER_SUFFIX + PARTIAL_SUFFIX)
    report = _recover_into(path, partial)
    if not ours:
        chaos.kill_at_step()
        os.link(path, kept)
    chaos.kill_at_step()
    os.replace(partial, path)
    sync_folder(path.parent)
    report.path = path
    return report, kept


def _store_file(data_dir: Path) -> Path:
    """The store's file; StoreMissing or StoreCutShort (saying what to do) if there is none."""
    path = Path(data_dir) / FILE_NAME
    if not path.exists():
        traces = replacement_traces(data_dir)
        if traces is not None:
            raise StoreCutShort(traces)
        raise StoreMissing(f"no results store in {data_dir}: nothing to recover")
    return path


def _recover_into(source_path: Path, target: Path) -> Recovery:
    """Write what can be read of the store at ``source_path`` into a new store ``target``
    (whatever a recovery cut short left there first removed); on failure none is left."""
    remove_with_journals(target)
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
    chaos.kill_at_step()
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
        chaos.kill_at_step()
        db.execute("COMMIT")
        db.execute("PRAGMA journal_mode=DELETE")  # one file, the whole store: no log beside
    except BaseException:
        db.close()
        remove_with_journals(target)
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


def fold_log(path: Path) -> None:
    """Fold the store's write-ahead log (``-wal``) into its file and leave the file in
    rollback mode, so that the file alone holds the whole store: it can then be kept under
    a second name, and another store can take its name without meeting a log that is not
    its own (SQLite would play that log into it). SQLite does the same whenever the last
    connection to a store closes; StoreDamaged if the log cannot be folded."""
    wal = path.with_name(path.name + "-wal")
    problem = "it is not empty"
    chaos.kill_at_step()
    try:
        db = sqlite3.connect(path, timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            db.execute("PRAGMA journal_mode=DELETE").fetchall()
        finally:
            db.close()
    except sqlite3.Error as error:
        problem = str(error)
    if wal.exists() and wal.stat().st_size > 0:
        raise StoreDamaged(
            f"cannot fold {wal.name} into {path.name} ({problem}), so the store cannot be "
            f"replaced safely: run 'arena store recover' without --replace, then move "
            f"{path.name} away together with its -wal and -shm files, and rename "
            f"{path.name}{RECOVER_SUFFIX} to {path.name}"
        )
    for empty in (wal, path.with_name(path.name + "-shm")):  # (an empty log holds nothing)
        with suppress(FileNotFoundError):
            empty.unlink()


def remove_with_journals(path: Path) -> None:
    """Remove ``path`` and the files SQLite (or ``create_store_file``) keeps beside it."""
    for leftover in (path, *path.parent.glob(f"{path.name}[-.]*")):
        with suppress(FileNotFoundError):
            leftover.unlink()


def place_new(made: Path, target: Path) -> None:
    """Give the finished file ``made`` the name ``target``, never over an existing file
    (FileExistsError): a hard link where the file system has them (a backup's disk may
    not), else a rename once ``target`` is seen not to exist."""
    try:
        os.link(made, target)
    except FileExistsError:
        raise
    except OSError:
        if target.exists():
            raise FileExistsError(target) from None
        os.replace(made, target)


def sync_folder(folder: Path) -> None:
    """Make the renames and links just done in ``folder`` durable (a power cut after this
    keeps them); a kill needs nothing, the kernel has them already."""
    with suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def online_copy(
    source: sqlite3.Connection, path: Path, check: str = "integrity_check"
) -> list[str]:
    """Copy the database open on ``source`` into the new file ``path`` with SQLite's online
    backup, as one file (no journal beside it); what ``check`` then finds in the copy. The
    copy is of the snapshot ``source`` reads: the one of its open read transaction if it
    holds one (writers elsewhere then never make the copy start over), else the store as
    it stands when the copy ends."""
    copy = sqlite3.connect(path, isolation_level=None)
    try:
        source.backup(copy, **chaos.slow_copy())
        copy.execute("PRAGMA journal_mode=DELETE").fetchall()  # one file, the whole copy
        return integrity_problems(copy, check)
    finally:
        copy.close()


def count_matches(path: Path) -> int:
    """How many matches the store file ``path`` (a copy: nothing else writes it) holds."""
    db = sqlite3.connect(_uri(path, mode="ro"), uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
    finally:
        db.close()


def backup(data_dir: Path, target: Path) -> tuple[Path, int]:
    """Copy the store with SQLite's online backup (safe while a tournament writes to it) to
    ``target`` (a file, or a folder to hold ``results.sqlite``); returns the file and how
    many matches it holds. The copy is made aside (``.partial``), checked, then linked into
    place whole, never over an existing file."""
    target = Path(target)
    if target.is_dir():
        target = target / FILE_NAME
    if target.exists():
        raise StoreError(f"{target} exists already: give a new file name")
    store = ResultsStore.reader(data_dir)
    partial = target.with_name(target.name + PARTIAL_SUFFIX)
    try:
        remove_with_journals(partial)  # (left by a backup cut short)
        chaos.kill_at_step()
        problems = online_copy(store.db, partial, "quick_check")
        matches = count_matches(partial)
        if problems:
            raise StoreDamaged(f"the copy failed its check ({problems[0]}); {target} not written")
        chaos.kill_at_step()
        place_new(partial, target)
        sync_folder(target.parent)
        chaos.kill_at_step()
    except FileExistsError:
        raise StoreError(f"{target} exists already: give a new file name") from None
    except sqlite3.Error as error:
        raise store.problem(error) from None
    except OSError as error:
        raise StoreError(f"cannot write {target}: {error.strerror}") from None
    finally:
        store.close()
        remove_with_journals(partial)
    return target, matches
