"""The results store: one SQLite file, the only module that reads or writes SQL.

Tables: ``bots`` (registered submissions), ``tournaments``, ``schedule`` (every
planned match, stored before it is played: a resumed tournament replays the
same plan), ``matches`` (one row per finished game; its id is a function of
tournament and schedule index), ``seats`` (per-seat results), ``logs`` (the
JSON-lines match logs, zlib-compressed: ``arena.tournament.compact``), ``failures``
(matches the arena could not play) and ``leases`` (which driver is running a
tournament), ``rating_checkpoints`` (the leaderboards' state after a prefix of a
variant's matches, ``leaderboards.checkpoints``).

Durability: WAL journal, ``synchronous=FULL``, one transaction per finished
match, so a kill at any moment (or a power cut) leaves either the whole match
or nothing, and a full disk or a read-only folder fails the transaction
without touching what is stored. The file carries an application id and a
schema version (``PRAGMA application_id`` / ``user_version``); a file that is
empty, not SQLite, someone else's, newer, or damaged is refused with one line
that says what to do, never taken for a new store; so is a folder that holds no
store but the traces of a replacement or backup cut short (``replacement_traces``).
Stores written before the schema had a version are migrated when opened.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from arena import chaos
from arena.tournament import views
from arena.tournament.compact import pack_log, unpack_log
from arena.tournament.lease import Holder
from arena.tournament.results import MATCH_ID_STRIDE, MatchResult, match_id
from arena.tournament.schedule import MatchSpec

FILE_NAME = "results.sqlite"
APPLICATION_ID = 0x54545241  # "TTRA"
SCHEMA_VERSION = 5
SQLITE_HEADER = b"SQLite format 3\x00"
CHECK_HINT = "run 'arena store check' for details, 'arena store recover' to save what is intact"

SCHEMA = """
CREATE TABLE bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    kind TEXT NOT NULL,            -- plugin | file | command
    target TEXT NOT NULL,          -- plugin name, stored path, or command line
    variants TEXT NOT NULL,        -- JSON list
    content_hash TEXT NOT NULL,
    created_at REAL NOT NULL,
    UNIQUE (name, version)
);
CREATE TABLE tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    fingerprint TEXT NOT NULL,
    spec TEXT NOT NULL,            -- JSON
    created_at REAL NOT NULL,
    finished_at REAL
);
CREATE TABLE matches (
    id INTEGER PRIMARY KEY,        -- tournament_id * 1e9 + idx
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    idx INTEGER NOT NULL,
    variant TEXT NOT NULL,
    seed INTEGER NOT NULL,
    players INTEGER NOT NULL,
    status TEXT NOT NULL,          -- done
    decisions INTEGER NOT NULL,
    seconds REAL NOT NULL,
    attempts INTEGER NOT NULL,
    worker TEXT NOT NULL,
    finished_at REAL NOT NULL,
    UNIQUE (tournament_id, idx)
);
CREATE TABLE seats (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    bot TEXT NOT NULL,
    score INTEGER NOT NULL,
    rank INTEGER NOT NULL,
    engine_rank INTEGER NOT NULL,
    breakdown TEXT NOT NULL,       -- JSON
    fault TEXT,
    fault_detail TEXT,
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE logs (
    match_id INTEGER PRIMARY KEY REFERENCES matches(id),
    jsonl BLOB NOT NULL
);
CREATE INDEX seats_bot ON seats(bot);
"""
# Version 1: the planned schedule, failed matches and driver leases.
SCHEMA_V1 = """
CREATE TABLE schedule (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    idx INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    bots TEXT NOT NULL,            -- JSON list, by seat
    planned_at REAL NOT NULL,
    PRIMARY KEY (tournament_id, idx)
);
CREATE TABLE failures (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    idx INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    error TEXT NOT NULL,
    failed_at REAL NOT NULL,
    PRIMARY KEY (tournament_id, idx)
);
CREATE TABLE leases (
    tournament_id INTEGER PRIMARY KEY REFERENCES tournaments(id),
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started TEXT NOT NULL,
    since REAL NOT NULL,
    heartbeat REAL NOT NULL
);
"""
# Version 2: each tournament's secret key (arena/referee/keys.py), kept so a resumed
# tournament plays the same games.
SCHEMA_V2 = """
CREATE TABLE tournament_keys (
    tournament_id INTEGER PRIMARY KEY REFERENCES tournaments(id),
    secret BLOB NOT NULL
);
"""
# Version 3: rating checkpoints (leaderboards/checkpoints.py). A checkpoint holds every
# leaderboard of a variant after its matches up to ``position`` (a match id: ids sort in
# rating order). The triggers drop every checkpoint a stored match changes under, in the
# writer's own transaction, so no writer (an older driver included) needs to know about
# them; ``epoch`` counts removals, so a checkpoint computed from a read is saved only if
# nothing it covers went or came meanwhile (ResultsStore.save_rating_checkpoints).
SCHEMA_V3 = """
CREATE TABLE rating_checkpoints (
    variant TEXT NOT NULL,
    position INTEGER NOT NULL,     -- id of the last match it holds
    matches INTEGER NOT NULL,      -- how many of the variant's matches it holds
    model TEXT NOT NULL,           -- the rating model and state format it was made with
    state BLOB NOT NULL,
    digest TEXT NOT NULL,          -- sha256 of state
    saved_at REAL NOT NULL,
    PRIMARY KEY (variant, position)
);
CREATE TABLE ratings_epoch (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    epoch INTEGER NOT NULL
);
INSERT OR IGNORE INTO ratings_epoch (id, epoch) VALUES (1, 0);
CREATE INDEX IF NOT EXISTS matches_variant ON matches(variant, id);
CREATE TRIGGER IF NOT EXISTS checkpoints_match_added AFTER INSERT ON matches BEGIN
    DELETE FROM rating_checkpoints WHERE variant = NEW.variant AND position >= NEW.id;
END;
CREATE TRIGGER IF NOT EXISTS checkpoints_match_removed AFTER DELETE ON matches BEGIN
    DELETE FROM rating_checkpoints WHERE variant = OLD.variant AND position >= OLD.id;
    UPDATE ratings_epoch SET epoch = epoch + 1;
END;
CREATE TRIGGER IF NOT EXISTS checkpoints_match_changed AFTER UPDATE ON matches BEGIN
    DELETE FROM rating_checkpoints WHERE position >= MIN(OLD.id, NEW.id);
    UPDATE ratings_epoch SET epoch = epoch + 1;
END;
CREATE TRIGGER IF NOT EXISTS checkpoints_seat_changed AFTER UPDATE ON seats BEGIN
    DELETE FROM rating_checkpoints WHERE position >= MIN(OLD.match_id, NEW.match_id);
    UPDATE ratings_epoch SET epoch = epoch + 1;
END;
"""
# Version 4: each variant's count of stored matches, kept by triggers in the writer's own
# transaction (an older writer's too), so that how many of a variant's matches sort at or
# before a checkpoint is its count less those after it: a count of the few matches stored
# since the checkpoint, not of the whole store.
SCHEMA_V4 = """
CREATE TABLE variant_counts (
    variant TEXT PRIMARY KEY,
    matches INTEGER NOT NULL
);
INSERT OR IGNORE INTO variant_counts (variant, matches)
    SELECT variant, COUNT(*) FROM matches GROUP BY variant;
CREATE TRIGGER IF NOT EXISTS counts_match_added AFTER INSERT ON matches BEGIN
    INSERT INTO variant_counts (variant, matches) VALUES (NEW.variant, 1)
        ON CONFLICT (variant) DO UPDATE SET matches = matches + 1;
END;
CREATE TRIGGER IF NOT EXISTS counts_match_removed AFTER DELETE ON matches BEGIN
    UPDATE variant_counts SET matches = matches - 1 WHERE variant = OLD.variant;
END;
CREATE TRIGGER IF NOT EXISTS counts_match_moved AFTER UPDATE OF variant ON matches
    WHEN OLD.variant IS NOT NEW.variant BEGIN
    UPDATE variant_counts SET matches = matches - 1 WHERE variant = OLD.variant;
    INSERT INTO variant_counts (variant, matches) VALUES (NEW.variant, 1)
        ON CONFLICT (variant) DO UPDATE SET matches = matches + 1;
END;
"""
# Version 5: a competition's board checkpoints (arena/server/boardstate.py): one ladder's
# board after its matches up to ``position``, less the ones voided then (``voided``), so a
# server starts from the newest instead of rating every match again. Each tournament's count
# of stored matches is kept, as the variants' are, so that how many of its matches sort at
# or before a position is the count less the few after it. The triggers drop every board
# checkpoint a stored match changes under, in the writer's own transaction.
SCHEMA_V5 = """
CREATE TABLE board_checkpoints (
    tournament_id INTEGER NOT NULL,
    position INTEGER NOT NULL,     -- id of the last match it holds
    matches INTEGER NOT NULL,      -- the tournament's stored matches up to it, voided ones too
    voided TEXT NOT NULL,          -- JSON list: the ids up to it left out (voided by an admin)
    model TEXT NOT NULL,           -- the rating model and state format it was made with
    state BLOB NOT NULL,
    digest TEXT NOT NULL,          -- sha256 of state
    saved_at REAL NOT NULL,
    PRIMARY KEY (tournament_id, position)
);
CREATE TABLE tournament_counts (
    tournament_id INTEGER PRIMARY KEY,
    matches INTEGER NOT NULL
);
INSERT OR IGNORE INTO tournament_counts (tournament_id, matches)
    SELECT tournament_id, COUNT(*) FROM matches GROUP BY tournament_id;
CREATE TRIGGER IF NOT EXISTS boards_match_added AFTER INSERT ON matches BEGIN
    DELETE FROM board_checkpoints
        WHERE tournament_id = NEW.tournament_id AND position >= NEW.id;
    INSERT INTO tournament_counts (tournament_id, matches) VALUES (NEW.tournament_id, 1)
        ON CONFLICT (tournament_id) DO UPDATE SET matches = matches + 1;
END;
CREATE TRIGGER IF NOT EXISTS boards_match_removed AFTER DELETE ON matches BEGIN
    DELETE FROM board_checkpoints
        WHERE tournament_id = OLD.tournament_id AND position >= OLD.id;
    UPDATE tournament_counts SET matches = matches - 1 WHERE tournament_id = OLD.tournament_id;
END;
CREATE TRIGGER IF NOT EXISTS boards_match_changed AFTER UPDATE ON matches BEGIN
    DELETE FROM board_checkpoints WHERE position >= MIN(OLD.id, NEW.id);
END;
CREATE TRIGGER IF NOT EXISTS boards_seat_changed AFTER UPDATE ON seats BEGIN
    DELETE FROM board_checkpoints WHERE position >= MIN(OLD.match_id, NEW.match_id);
END;
"""
# What each version adds to the one before it.
MIGRATIONS = {1: SCHEMA_V1, 2: SCHEMA_V2, 3: SCHEMA_V3, 4: SCHEMA_V4, 5: SCHEMA_V5}
# How many of a variant's matches sort at or before a position (a checkpoint's count): with
# the kept count (version 4), the count less the matches after it (the index's range after
# the position: what was stored since the checkpoint); without it (an older store read as
# it is), the range before it.
MATCHES_AFTER = "SELECT COUNT(*) FROM matches WHERE variant = ? AND id > ?"
VARIANT_COUNT = "SELECT matches FROM variant_counts WHERE variant = ?"
MATCHES_UP_TO = "SELECT COUNT(*) FROM matches WHERE variant = ? AND id <= ?"


# How many of a variant's matches of one tournament (an id range) sort at or before a position.
MATCHES_OF_UP_TO = "SELECT COUNT(*) FROM matches WHERE variant = ? AND id BETWEEN ? AND ?"


def count_up_to(
    db: sqlite3.Connection, variant: str, position: int, leave_out: Iterable[int] = ()
) -> int:
    """How many of ``variant``'s matches sort at or before ``position`` in ``db``, not
    counting those of the tournaments ``leave_out`` (ids: each a range of match ids)."""
    has_counts = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'variant_counts'"
    ).fetchone()
    if has_counts is None:
        count = int(db.execute(MATCHES_UP_TO, (variant, position)).fetchone()[0])
    else:
        row = db.execute(VARIANT_COUNT, (variant,)).fetchone()
        total = int(row[0]) if row is not None else 0
        count = total - int(db.execute(MATCHES_AFTER, (variant, position)).fetchone()[0])
    for tournament_id in leave_out:
        first = match_id(tournament_id, 0)
        last = min(position, match_id(tournament_id + 1, 0) - 1)
        if last >= first:
            count -= int(db.execute(MATCHES_OF_UP_TO, (variant, first, last)).fetchone()[0])
    return count


def left_out_ids(db: sqlite3.Connection, include_tests: bool = False) -> tuple[int, ...]:
    """The tournaments whose matches the leaderboards leave out (``arena.tournament.views``:
    people's games, and tests unless ``include_tests``), by id."""
    rows = db.execute("SELECT id, spec FROM tournaments ORDER BY id").fetchall()
    return tuple(
        int(tid) for tid, spec in rows if not views.on_boards(json.loads(spec), include_tests)
    )


def ids_after(tournament_id: int, position: int) -> tuple[int, int]:
    """The bounds (both excluded) of the tournament's match ids after ``position``: a range
    of the table's own key, read without a scan of the tournament's other matches."""
    return max(position, tournament_id * MATCH_ID_STRIDE - 1), (tournament_id + 1) * MATCH_ID_STRIDE


CHECKPOINT_WAIT_SECONDS = 1.0  # a checkpoint is not worth waiting longer for a busy writer


@dataclass(frozen=True)
class StoredCheckpoint:
    """A rating checkpoint as stored; ``leaderboards.checkpoints`` reads and checks it."""

    variant: str
    position: int
    matches: int
    model: str
    state: bytes
    digest: str


@dataclass(frozen=True)
class BotFilter:
    """Which of a bot's matches to list: one tournament, won (ranked first) or not, a fault
    (``yes``, ``no`` or a code), against any of ``opponents`` (labels); None: any."""

    tournament: str | None = None
    won: bool | None = None
    fault: str | None = None
    opponents: tuple[str, ...] | None = None


class StoreError(RuntimeError):
    """The store cannot do what was asked; the message is one line saying why and what to do."""


class StoreMissing(StoreError):
    """There is no store to read."""


class StoreCutShort(StoreError):
    """No store, but the traces of a replacement or backup cut short (its results)."""


class StoreDamaged(StoreError):
    """The file is empty, not a store, or fails its integrity check."""


class StoreFull(StoreError):
    """A write failed for lack of space (or a failing disk); nothing stored was touched."""


class StoreReadOnly(StoreError):
    """The store or its folder cannot be written."""


class TournamentBusy(StoreError):
    """Another driver is running this tournament."""


@dataclass(frozen=True)
class Failure:
    """A match the arena could not play (its worker kept dying, or the arena failed)."""

    idx: int
    bots: tuple[str, ...]
    attempts: int
    error: str
    failed_at: float


@dataclass(frozen=True)
class TournamentInfo:
    """A tournament as stored: its description and how far it got."""

    id: int
    name: str
    spec: dict[str, Any]
    created_at: float
    finished_at: float | None
    planned: int
    played: int
    failed: int
    driver: Holder | None


# Files that only an unfinished replacement or backup of the store leaves without a store
# beside them (``storecare``): the results they hold must not be taken for "no store yet".
RECOVER_SUFFIX = ".recover"  # a recovered store ('arena store recover')
DAMAGED_SUFFIX = ".damaged"  # the damaged store a recovery replaced
PARTIAL_SUFFIX = ".partial"  # a copy being written (backup, recovery)
TRACES = {
    RECOVER_SUFFIX: "a recovered store: put it in place (rename it to {store})",
    DAMAGED_SUFFIX: "a store being replaced after a recovery: put it back (rename it to "
    "{store}) and run 'arena store recover --replace' again",
    PARTIAL_SUFFIX: "an unfinished backup copy: run 'arena store backup' again into this folder",
}


def replacement_traces(data_dir: Path) -> str | None:
    """One line on the traces of an unfinished replacement or backup in ``data_dir`` when it
    holds no store (None if there are none): what they are and what to do."""
    store = Path(data_dir) / FILE_NAME
    for suffix, what in TRACES.items():
        trace = store.with_name(FILE_NAME + suffix)
        if trace.exists():
            return (
                f"{data_dir} holds {trace.name} but no {FILE_NAME}: {what.format(store=store)}, "
                "or move it away to start a new store"
            )
    return None


F = TypeVar("F", bound=Callable[..., Any])


def _translated(method: F) -> F:
    """Turn any SQLite error inside ``method`` into a one-line StoreError."""

    @functools.wraps(method)
    def wrapper(self: ResultsStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as error:
            raise self.problem(error) from None

    return wrapper  # type: ignore[return-value]


def statements(script: str) -> Iterator[str]:
    """The SQL statements of ``script`` one by one (a trigger's body holds semicolons)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending.strip()
            pending = ""


def _uri(path: Path, **options: str) -> str:
    query = "&".join(f"{key}={value}" for key, value in options.items())
    return f"file:{urllib.parse.quote(str(path.resolve()))}?{query}"


def inspect_file(path: Path) -> None:
    """Refuse a store file that is empty or not SQLite at all (before SQLite opens it)."""
    try:
        with path.open("rb") as file:
            header = file.read(100)
    except OSError as error:
        raise StoreError(f"cannot read {path}: {error.strerror}") from None
    if not header:
        raise StoreDamaged(
            f"{path} is empty (0 bytes): the results it held are lost; restore it from a "
            "backup ('arena store backup' makes one), or move it away to start a new store"
        )
    if not header.startswith(SQLITE_HEADER):
        raise StoreDamaged(
            f"{path} is not a results store (its header is not SQLite's: the file is "
            "damaged or another kind of file); restore it from a backup, or move it away"
        )


def create_store_file(path: Path) -> None:
    """Create an empty store at ``path`` atomically: built aside, then linked into place, so a
    store file that exists always holds a whole schema (an empty one is damage). If another
    process created it first, theirs is kept."""
    temporary = path.with_name(f"{path.name}.new-{os.getpid()}")
    try:
        db = sqlite3.connect(temporary, isolation_level=None)
        try:
            # Built with a rollback journal (a new file's is nearly empty), then switched to
            # WAL: the schema's pages are written once, into the file itself, so a disk with
            # room for the store has room to make it, and nothing of it can be left in a
            # -wal file removed below.
            versions = " ".join(MIGRATIONS[v] for v in sorted(MIGRATIONS))
            db.executescript(f"BEGIN; {SCHEMA} {versions} COMMIT;")
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            if db.execute("PRAGMA journal_mode=WAL").fetchone()[0] != "wal":
                raise sqlite3.OperationalError("database or disk is full")
        finally:
            db.close()
        wal = Path(f"{temporary}-wal")
        if wal.exists() and wal.stat().st_size:
            raise sqlite3.OperationalError("database or disk is full")
        with suppress(FileExistsError):
            os.link(temporary, path)
    finally:
        for leftover in (temporary, *temporary.parent.glob(temporary.name + "-*")):
            with suppress(OSError):
                leftover.unlink()


def integrity_problems(db: sqlite3.Connection, pragma: str = "integrity_check") -> list[str]:
    """What SQLite's integrity check (or quick check) finds, one line per problem."""
    found = []
    for (text,) in db.execute(f"PRAGMA {pragma}(20)"):
        lines = [" ".join(line.split()) for line in text.splitlines()]
        found += [line for line in lines if line and line != "ok" and not line.startswith("***")]
    return found


class ResultsStore:
    """The results store ``results.sqlite`` in ``data_dir``.

    Opened for writing (the default; the folder and the store are created if
    new), or with ``read_only=True`` for readers (leaderboards, exports, the
    site), which never write, also on an archived copy in a read-only folder.
    ``check=True`` runs SQLite's quick integrity check on open.
    """

    def __init__(
        self, data_dir: Path | str, *, read_only: bool = False, check: bool = False
    ) -> None:
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / FILE_NAME
        self.read_only = read_only
        if not self.path.exists():
            traces = replacement_traces(self.data_dir)
            if traces is not None:  # never a new, empty store beside them
                raise StoreCutShort(traces)
        if read_only:
            if not self.path.exists():
                raise StoreMissing(
                    f"no results store in {self.data_dir} (nothing was stored there yet; "
                    "give --data-dir the folder a tournament stored its results in)"
                )
        else:
            self._make_folder()
            if not self.path.exists():
                self._create()
        inspect_file(self.path)
        try:
            self.db = self._connect()
        except sqlite3.Error as error:
            raise self.problem(error) from None
        try:
            self._check_identity()
            if check:
                self.check_integrity()
        except BaseException:
            self.db.close()
            raise

    @classmethod
    def reader(cls, data_dir: Path | str) -> ResultsStore:
        """The store in ``data_dir``, opened read-only (it must exist)."""
        return cls(data_dir, read_only=True)

    # ---------------------------------------------------------------- opening

    def _make_folder(self) -> None:
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreReadOnly(
                f"cannot create the data folder {self.data_dir}: {error.strerror}"
            ) from None

    def _create(self) -> None:
        try:
            create_store_file(self.path)
        except (sqlite3.Error, OSError) as error:
            problem = self.problem(error)
            if isinstance(problem, StoreFull):
                problem = StoreFull(
                    f"the disk holding {self.data_dir} is full, so no results store can be "
                    "created there: free some space and run the same command again"
                )
            raise problem from None

    def _connect(self) -> sqlite3.Connection:
        if not self.read_only:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            return db
        try:
            db = sqlite3.connect(_uri(self.path, mode="ro"), uri=True, isolation_level=None)
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return db
        except sqlite3.OperationalError:
            pass
        # A WAL store in a read-only folder without its shared-memory file: readable only
        # as an immutable file, which is right unless writes wait in its -wal file.
        wal = self.path.with_name(FILE_NAME + "-wal")
        if wal.exists() and wal.stat().st_size > 0:
            raise StoreReadOnly(
                f"{self.path} has writes not yet merged into it ({wal.name}) and its folder "
                "is read-only: copy the folder somewhere writable and read it there"
            )
        return sqlite3.connect(
            _uri(self.path, mode="ro", immutable="1"), uri=True, isolation_level=None
        )

    def _check_identity(self) -> None:
        try:
            application = self.db.execute("PRAGMA application_id").fetchone()[0]
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            tables = {
                row[0]
                for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        except sqlite3.Error as error:
            raise self.problem(error) from None
        if application == 0 and version == 0 and {"matches", "tournaments"} <= tables:
            self._migrate(0)
            return
        if application != APPLICATION_ID:
            raise StoreDamaged(
                f"{self.path} is an SQLite file but not a ttr-arena results store; "
                "move it away or give another --data-dir"
            )
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer ttr-arena (store version {version}; this "
                f"one knows up to {SCHEMA_VERSION}): upgrade ttr-arena to use it"
            )
        if version < SCHEMA_VERSION and not self.read_only:  # (readers need nothing newer)
            self._migrate(version)

    def _migrate(self, version: int) -> None:
        """Bring a store of schema ``version`` up to this one in one transaction. From a store
        written before the schema had a version (0): stable match ids and the schedule
        (taken from the stored matches) first; a reader migrates such a store in a copy in
        memory and leaves the file as it is. Then each later version's tables."""
        if self.read_only:
            memory = sqlite3.connect(":memory:", isolation_level=None)
            self.db.backup(memory)
            self.db.close()
            self.db = memory
        db = self.db
        try:
            db.execute("PRAGMA foreign_keys=OFF")
            db.execute("BEGIN IMMEDIATE")
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for statement in statements(MIGRATIONS[step]):  # (executescript would commit)
                    db.execute(statement.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"))
            if version == 0:
                self._number_matches_and_plan_them(db)
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
        except sqlite3.Error as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise self.problem(error) from None
        finally:
            if not self.read_only:
                db.execute("PRAGMA foreign_keys=ON")

    def _number_matches_and_plan_them(self, db: sqlite3.Connection) -> None:
        """Unversioned stores numbered matches in completion order: renumber them by
        (tournament, index), and plan what was played."""
        new_id = f"m.tournament_id * {MATCH_ID_STRIDE} + m.idx"
        for table in ("seats", "logs"):
            db.execute(
                f"UPDATE {table} SET match_id = (SELECT {new_id} FROM matches m"
                f" WHERE m.id = {table}.match_id)"
            )
        db.execute(f"UPDATE matches SET id = tournament_id * {MATCH_ID_STRIDE} + idx")
        db.executemany(
            "INSERT OR IGNORE INTO schedule (tournament_id, idx, seed, bots, planned_at)"
            " VALUES (?, ?, ?, ?, ?)",
            [
                (r.match_id // MATCH_ID_STRIDE, r.idx, r.seed, json.dumps(r.bots), r.finished_at)
                for r in self._results_query("", ())
            ],
        )

    def check_integrity(self) -> list[str]:
        """SQLite's quick check; raises StoreDamaged with the first problem, if any."""
        try:
            problems = integrity_problems(self.db, "quick_check")
        except sqlite3.Error as error:
            raise self.problem(error) from None
        if problems:
            raise StoreDamaged(f"{self.path} is damaged ({problems[0]}): {CHECK_HINT}")
        return problems

    def problem(self, error: Exception) -> StoreError:
        """The one-line StoreError for an SQLite or OS error met on this store."""
        name = getattr(error, "sqlite_errorname", "")
        errno_name = getattr(error, "errno", None)
        kept = "every match finished before this is kept"
        if name == "SQLITE_FULL" or errno_name == 28:
            return StoreFull(
                f"the disk holding {self.path} is full: {kept}; free some space and run the "
                "same command again"
            )
        if name.startswith("SQLITE_IOERR") and not os.access(self.data_dir, os.W_OK):
            name = "SQLITE_READONLY"  # the folder became read-only under us
        if name.startswith("SQLITE_IOERR"):
            return StoreFull(
                f"could not write {self.path} ({error}: is its disk full or failing?): {kept}; "
                "fix the disk and run the same command again"
            )
        if name.startswith("SQLITE_READONLY") or errno_name in (13, 30):
            return StoreReadOnly(
                f"{self.path} is read-only here ({getattr(error, 'strerror', None) or error}): "
                "give --data-dir a writable folder to store results (reading it still works)"
            )
        if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
            return StoreDamaged(f"{self.path} is damaged ({error}): {CHECK_HINT}")
        if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
            return StoreError(f"{self.path} stayed locked by another process for 30 s; try again")
        if name == "SQLITE_CANTOPEN":
            if not self.read_only and not os.access(self.data_dir, os.W_OK):
                return StoreReadOnly(
                    f"the folder {self.data_dir} is read-only, so results cannot be stored "
                    "there: give --data-dir a writable folder (reading it still works)"
                )
            return StoreError(f"cannot open {self.path} ({error}): check the folder's permissions")
        return StoreError(f"{self.path}: {error}")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            if self.db.in_transaction:
                with suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ---------------------------------------------------------------- tournaments

    @_translated
    def tournament(self, name: str, fingerprint: str, spec: dict[str, Any]) -> int:
        """The id of tournament ``name``, created if new (idempotent: two drivers creating it
        at once get the same one); refuses a changed description under one name. An
        existing tournament is only read (no write lock: a busy driver does not block it)."""
        query = "SELECT id, fingerprint FROM tournaments WHERE name = ?"
        row = self.db.execute(query, (name,)).fetchone()
        if row is None:
            with self.transaction() as db:
                db.execute(
                    "INSERT OR IGNORE INTO tournaments (name, fingerprint, spec, created_at)"
                    " VALUES (?, ?, ?, ?)",
                    (name, fingerprint, json.dumps(spec), time.time()),
                )
                row = db.execute(query, (name,)).fetchone()
        tournament_id, stored = row
        if stored != fingerprint:
            raise ValueError(
                f"a tournament named '{name}' exists with a different description; "
                "choose another name to run a new one"
            )
        return int(tournament_id)

    @_translated
    def finish_tournament(self, tournament_id: int) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE tournaments SET finished_at = ? WHERE id = ?", (time.time(), tournament_id)
            )

    @_translated
    def tournaments(self) -> list[TournamentInfo]:
        """Every stored tournament, oldest first, with its progress and current driver."""
        rows = self.db.execute(
            "SELECT t.id, t.name, t.spec, t.created_at, t.finished_at,"
            " (SELECT COUNT(*) FROM schedule s WHERE s.tournament_id = t.id),"
            " (SELECT COUNT(*) FROM matches m WHERE m.tournament_id = t.id),"
            " (SELECT COUNT(*) FROM failures f WHERE f.tournament_id = t.id),"
            " l.host, l.pid, l.started, l.since, l.heartbeat"
            " FROM tournaments t LEFT JOIN leases l ON l.tournament_id = t.id ORDER BY t.id"
        ).fetchall()
        return [
            TournamentInfo(
                id=row[0],
                name=row[1],
                spec=json.loads(row[2]),
                created_at=row[3],
                finished_at=row[4],
                planned=row[5],
                played=row[6],
                failed=row[7],
                driver=Holder(*row[8:]) if row[8] is not None else None,
            )
            for row in rows
        ]

    def tournament_info(self, name: str) -> TournamentInfo | None:
        return next((t for t in self.tournaments() if t.name == name), None)

    # ---------------------------------------------------------------- leases

    @_translated
    def take_lease(self, tournament_id: int, name: str) -> Holder:
        """Become the one driver of a tournament; TournamentBusy names the running one (found
        by a read first, so a driver stopped in the middle of a write is named at once)."""
        me = Holder.me()
        query = "SELECT host, pid, started, since, heartbeat FROM leases WHERE tournament_id = ?"
        self._refuse_if_held(self.db.execute(query, (tournament_id,)).fetchone(), me, name)
        with self.transaction() as db:
            self._refuse_if_held(db.execute(query, (tournament_id,)).fetchone(), me, name)
            db.execute(
                "INSERT OR REPLACE INTO leases (tournament_id, host, pid, started, since,"
                " heartbeat) VALUES (?, ?, ?, ?, ?, ?)",
                (tournament_id, me.host, me.pid, me.started, me.since, me.heartbeat),
            )
        return me

    @staticmethod
    def _refuse_if_held(row: tuple | None, me: Holder, name: str) -> None:
        if row is None:
            return
        holder = Holder(*row)
        if not holder.same_process(me) and not holder.is_gone():
            raise TournamentBusy(
                f"tournament '{name}' is already being run by {holder.describe()}; "
                "wait for it to finish (or stop it), then run this command again"
            )

    @_translated
    def renew_lease(self, tournament_id: int, holder: Holder) -> bool:
        """Renew our lease; False if another driver has taken it over meanwhile."""
        with self.transaction() as db:
            cursor = db.execute(
                "UPDATE leases SET heartbeat = ? WHERE tournament_id = ? AND host = ?"
                " AND pid = ? AND started = ?",
                (time.time(), tournament_id, holder.host, holder.pid, holder.started),
            )
        return cursor.rowcount == 1

    @_translated
    def release_lease(self, tournament_id: int, holder: Holder) -> None:
        with self.transaction() as db:
            db.execute(
                "DELETE FROM leases WHERE tournament_id = ? AND host = ? AND pid = ?"
                " AND started = ?",
                (tournament_id, holder.host, holder.pid, holder.started),
            )

    @_translated
    def leases(self) -> dict[str, Holder]:
        """Each tournament that has a driver now (or had one that died): its holder."""
        rows = self.db.execute(
            "SELECT t.name, l.host, l.pid, l.started, l.since, l.heartbeat"
            " FROM leases l JOIN tournaments t ON t.id = l.tournament_id"
        )
        return {row[0]: Holder(*row[1:]) for row in rows}

    # ---------------------------------------------------------------- the schedule

    @_translated
    def plan(self, tournament_id: int, matches: Iterable[MatchSpec]) -> None:
        """Store planned matches (before they are played); a planned index keeps its plan."""
        now = time.time()
        with self.transaction() as db:
            db.executemany(
                "INSERT OR IGNORE INTO schedule (tournament_id, idx, seed, bots, planned_at)"
                " VALUES (?, ?, ?, ?, ?)",
                [(tournament_id, m.index, m.seed, json.dumps(m.bots), now) for m in matches],
            )

    @_translated
    def planned(self, tournament_id: int) -> list[MatchSpec]:
        """The stored plan, in schedule order."""
        rows = self.db.execute(
            "SELECT idx, seed, bots FROM schedule WHERE tournament_id = ? ORDER BY idx",
            (tournament_id,),
        )
        return [MatchSpec(idx, seed, tuple(json.loads(bots))) for idx, seed, bots in rows]

    @_translated
    def planned_match(self, tournament_id: int, idx: int) -> MatchSpec | None:
        """Match ``idx`` of the stored plan, or None."""
        row = self.db.execute(
            "SELECT seed, bots FROM schedule WHERE tournament_id = ? AND idx = ?",
            (tournament_id, idx),
        ).fetchone()
        return MatchSpec(idx, row[0], tuple(json.loads(row[1]))) if row else None

    @_translated
    def done_indices(self, tournament_id: int) -> set[int]:
        rows = self.db.execute("SELECT idx FROM matches WHERE tournament_id = ?", (tournament_id,))
        return {int(r[0]) for r in rows}

    # ---------------------------------------------------------------- matches

    @_translated
    def record(self, tournament_id: int, result: MatchResult) -> bool:
        """Store a finished match with its seats and log in one transaction.

        Returns False (and stores nothing) when that match is already stored.
        """
        with self.transaction() as db:
            return self._insert(db, tournament_id, result)

    @_translated
    def record_many(self, tournament_id: int, results: Iterable[MatchResult]) -> int:
        """Store many matches in one transaction (bulk loads); returns how many were new."""
        with self.transaction() as db:
            return sum(self._insert(db, tournament_id, r) for r in results)

    def _insert(self, db: sqlite3.Connection, tournament_id: int, result: MatchResult) -> bool:
        key = match_id(tournament_id, result.idx)
        cursor = db.execute(
            "INSERT OR IGNORE INTO matches (id, tournament_id, idx, variant, seed, players,"
            " status, decisions, seconds, attempts, worker, finished_at)"
            " VALUES (?, ?, ?, ?, ?, ?, 'done', ?, ?, ?, ?, ?)",
            (
                key,
                tournament_id,
                result.idx,
                result.variant,
                result.seed,
                result.players,
                result.decisions,
                result.seconds,
                result.attempts,
                result.worker,
                time.time(),
            ),
        )
        if cursor.rowcount == 0:
            return False
        chaos.stall_in_transaction()
        details = result.details_by_seat
        breakdown = result.breakdown or ({},) * result.players
        db.executemany(
            "INSERT INTO seats (match_id, seat, bot, score, rank, engine_rank, breakdown,"
            " fault, fault_detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    key,
                    seat,
                    bot,
                    result.scores[seat],
                    result.ranks[seat],
                    result.engine_ranks[seat],
                    json.dumps(breakdown[seat]),
                    result.faults[seat],
                    details[seat],
                )
                for seat, bot in enumerate(result.bots)
            ],
        )
        db.execute("INSERT INTO logs (match_id, jsonl) VALUES (?, ?)", (key, pack_log(result.log)))
        db.execute(
            "DELETE FROM failures WHERE tournament_id = ? AND idx = ?", (tournament_id, result.idx)
        )
        return True

    @_translated
    def latest_finishes(self, tournament_id: int, count: int) -> list[float]:
        """When a tournament's ``count`` newest matches (by schedule index) finished: what a
        paced ladder counts against its last hour after a restart."""
        rows = self.db.execute(
            "SELECT finished_at FROM matches WHERE tournament_id = ? ORDER BY idx DESC LIMIT ?",
            (tournament_id, count),
        )
        return [float(row[0]) for row in rows]

    @_translated
    def match_facts(self, ids: Sequence[int]) -> dict[int, tuple[float, tuple[str, ...], bool]]:
        """For each of the stored matches ``ids``: when it was stored, its bots by seat and
        whether one faulted (what keeping its bots' log files depends on)."""
        facts: dict[int, tuple[float, tuple[str, ...], bool]] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            rows = self.db.execute(
                "SELECT m.id, m.finished_at, s.bot, s.fault FROM matches m JOIN seats s"
                f" ON s.match_id = m.id WHERE m.id IN ({', '.join('?' * len(chunk))})"
                " ORDER BY m.id, s.seat",
                chunk,
            )
            for key, finished, bot, fault in rows:
                _, bots, faulted = facts.get(key, (finished, (), False))
                facts[key] = (float(finished), (*bots, bot), faulted or fault is not None)
        return facts

    @_translated
    def record_failure(self, tournament_id: int, idx: int, attempts: int, error: str) -> None:
        """Note that match ``idx`` could not be played (an arena fault: no rating change)."""
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO failures (tournament_id, idx, attempts, error, failed_at)"
                " SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS"
                " (SELECT 1 FROM matches WHERE tournament_id = ? AND idx = ?)",
                (tournament_id, idx, attempts, error[:2000], time.time(), tournament_id, idx),
            )

    @_translated
    def failures(self, tournament_id: int) -> list[Failure]:
        rows = self.db.execute(
            "SELECT f.idx, s.bots, f.attempts, f.error, f.failed_at FROM failures f"
            " JOIN schedule s ON s.tournament_id = f.tournament_id AND s.idx = f.idx"
            " WHERE f.tournament_id = ? ORDER BY f.idx",
            (tournament_id,),
        )
        return [
            Failure(idx, tuple(json.loads(bots)), attempts, error, at)
            for idx, bots, attempts, error, at in rows
        ]

    @_translated
    def results(
        self,
        tournament: str | int | None = None,
        *,
        variant: str | None = None,
        players: int | None = None,
        details: bool = True,
        leave_out: Sequence[int] = (),
    ) -> list[MatchResult]:
        """Finished matches (of a tournament, a variant, a player count; not those of the
        tournaments ``leave_out``), in the one fixed order ratings use: tournament (by
        creation), then schedule index. It does not depend on when or where a match
        finished. ``details=False`` leaves out score breakdowns and fault details (faster,
        for ratings); logs come from ``match_log``."""
        where: list[str] = []
        params: list[int | str] = []
        if isinstance(tournament, int):
            where.append("m.tournament_id = ?")
            params.append(tournament)
        elif tournament is not None:
            where.append("t.name = ?")
            params.append(tournament)
        if variant is not None:
            where.append("m.variant = ?")
            params.append(variant)
        if players is not None:
            where.append("m.players = ?")
            params.append(players)
        if leave_out:
            where.append(f"m.tournament_id NOT IN ({', '.join('?' * len(leave_out))})")
            params.extend(leave_out)
        clause = (" WHERE " + " AND ".join(where)) if where else ""
        return self._results_query(clause, tuple(params), details)

    def _results_query(
        self, where: str, params: Sequence[Any], details: bool = True
    ) -> list[MatchResult]:
        extra = ", s.fault_detail, s.breakdown" if details else ""
        rows = self.db.execute(
            "SELECT m.id, t.name, m.idx, m.variant, m.seed, m.decisions, m.seconds, m.attempts,"
            " m.worker, m.finished_at, s.bot, s.score, s.rank, s.engine_rank, s.fault"
            f"{extra} FROM matches m JOIN tournaments t ON t.id = m.tournament_id"
            f" JOIN seats s ON s.match_id = m.id{where} ORDER BY m.tournament_id, m.idx, s.seat",
            params,
        )
        results: list[MatchResult] = []
        group: list[tuple] = []
        for row in rows:
            if group and row[0] != group[0][0]:
                results.append(_result(group, details))
                group = []
            group.append(row)
        if group:
            results.append(_result(group, details))
        return results

    # ---------------------------------------------------------------- rating checkpoints

    @contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """Reads inside see one state of the store, whatever writers commit meanwhile (a
        checkpoint and the matches after it must come from the same state). Inside another
        snapshot it is that one."""
        if self.db.in_transaction:
            yield
            return
        try:
            self.db.execute("BEGIN")
        except sqlite3.Error as error:
            raise self.problem(error) from None
        try:
            yield
        finally:
            if self.db.in_transaction:
                with suppress(sqlite3.Error):
                    self.db.execute("COMMIT")

    @_translated
    def ratings_epoch(self) -> int | None:
        """How many times stored matches were removed or changed; None when this store (an
        older schema, read as it is) keeps no rating checkpoints."""
        if not self._keeps_checkpoints():
            return None
        return int(self.db.execute("SELECT epoch FROM ratings_epoch").fetchone()[0])

    def _keeps_checkpoints(self) -> bool:
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ratings_epoch'"
        return self.db.execute(query).fetchone() is not None

    @_translated
    def rating_checkpoints(self, variant: str) -> list[tuple[int, int]]:
        """The ``(position, matches)`` of the variant's stored checkpoints, newest first."""
        if not self._keeps_checkpoints():
            return []
        rows = self.db.execute(
            "SELECT position, matches FROM rating_checkpoints WHERE variant = ?"
            " ORDER BY position DESC",
            (variant,),
        )
        return [(int(position), int(count)) for position, count in rows]

    @_translated
    def rating_checkpoint(self, variant: str, position: int) -> StoredCheckpoint | None:
        row = self.db.execute(
            "SELECT position, matches, model, state, digest FROM rating_checkpoints"
            " WHERE variant = ? AND position = ?",
            (variant, position),
        ).fetchone()
        if row is None:
            return None
        return StoredCheckpoint(variant, int(row[0]), int(row[1]), str(row[2]), *row[3:])

    @_translated
    def left_out(self, include_tests: bool = False) -> tuple[int, ...]:
        """The ids of the tournaments the leaderboards leave out (``arena.tournament.views``):
        people's games, and tests unless ``include_tests``."""
        return left_out_ids(self.db, include_tests)

    @_translated
    def matches_up_to(self, variant: str, position: int, leave_out: Sequence[int] = ()) -> int:
        """How many of the variant's matches sort at or before ``position`` (not counting
        the tournaments ``leave_out``)."""
        return count_up_to(self.db, variant, position, leave_out)

    @_translated
    def results_after(
        self, variant: str, position: int, leave_out: Sequence[int] = ()
    ) -> list[MatchResult]:
        """The variant's matches that sort after ``position`` (but those of the tournaments
        ``leave_out``), in rating order (no details)."""
        where, params = " WHERE m.variant = ? AND m.id > ?", [variant, position]
        if leave_out:
            where += f" AND m.tournament_id NOT IN ({', '.join('?' * len(leave_out))})"
            params.extend(leave_out)
        return self._results_query(where, params, False)

    @_translated
    def match_result(self, match_id: int) -> MatchResult | None:
        """One stored match with its details, or None."""
        found = self._results_query(" WHERE m.id = ?", (match_id,))
        return found[0] if found else None

    @_translated
    def latest_results(self, tournament: str, count: int) -> list[MatchResult]:
        """A tournament's ``count`` newest matches by schedule index, newest first (no
        details): a page of recent matches without reading them all."""
        where = (
            " WHERE m.id IN (SELECT m2.id FROM matches m2 JOIN tournaments t2"
            " ON t2.id = m2.tournament_id WHERE t2.name = ? ORDER BY m2.idx DESC LIMIT ?)"
        )
        return self._results_query(where, (tournament, count), False)[::-1]

    @_translated
    def tournament_results_after(self, tournament: str, position: int) -> list[MatchResult]:
        """A tournament's matches whose id is after ``position``, in rating order (no
        details): a competition's boards fold in only what is new since their last read."""
        where = " WHERE t.name = ? AND m.id > ?"
        return self._results_query(where, (tournament, position), False)

    def _write_cache(self, write: Callable[[sqlite3.Connection], bool]) -> bool:
        """Run ``write`` in an immediate transaction of a short connection of its own, for a
        cache (rating or board checkpoints): committed if it returns True, else rolled back.
        A store that cannot be written that way (read-only, an older schema, busy for over a
        second) keeps what it has; False then."""
        try:
            db = sqlite3.connect(self.path, timeout=CHECKPOINT_WAIT_SECONDS, isolation_level=None)
        except sqlite3.Error:
            return False
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                return False  # an older store is migrated by a writer, never by a reader
            db.execute("PRAGMA synchronous=NORMAL")  # a checkpoint is a cache: no fsync wait
            db.execute("BEGIN IMMEDIATE")
            if not write(db):
                db.execute("ROLLBACK")
                return False
            db.execute("COMMIT")
            return True
        except sqlite3.Error:
            return False
        finally:
            db.close()

    def save_rating_checkpoints(
        self,
        checkpoints: Sequence[StoredCheckpoint],
        epoch: int,
        drop: Iterable[tuple[str, int]] = (),
    ) -> bool:
        """Keep ``checkpoints`` (computed from a read at ratings epoch ``epoch``) and drop the
        ``(variant, position)`` ones in ``drop``, if each still holds exactly the matches now
        stored up to its position: no match removed or changed since (the epoch), none added
        at or before it (the count). A checkpoint holds the leaderboards' default view (tests
        and people's games left out: ``arena.tournament.views``), and its count is of those.
        Any command may call this, readers too: it writes through its own short connection,
        and a store it cannot write (read-only, an older schema, busy for over a second)
        keeps what it has. Returns whether they were kept."""

        def write(db: sqlite3.Connection) -> bool:
            if db.execute("SELECT epoch FROM ratings_epoch").fetchone()[0] != epoch:
                return False
            leave_out = left_out_ids(db)
            for checkpoint in checkpoints:
                found = count_up_to(db, checkpoint.variant, checkpoint.position, leave_out)
                if found != checkpoint.matches:
                    return False
            db.executemany(
                "DELETE FROM rating_checkpoints WHERE variant = ? AND position = ?", list(drop)
            )
            now = time.time()
            db.executemany(
                "INSERT OR REPLACE INTO rating_checkpoints (variant, position, matches, model,"
                " state, digest, saved_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (c.variant, c.position, c.matches, c.model, c.state, c.digest, now)
                    for c in checkpoints
                ],
            )
            return True

        return self._write_cache(write)

    # ---------------------------------------------------------------- board checkpoints

    def _has_table(self, name: str) -> bool:
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        return self.db.execute(query, (name,)).fetchone() is not None

    @_translated
    def tournament_id_of(self, name: str) -> int | None:
        row = self.db.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()
        return None if row is None else int(row[0])

    @_translated
    def tournament_count(self, tournament_id: int) -> int:
        """How many matches of the tournament are stored (the kept count: no scan)."""
        if self._has_table("tournament_counts"):
            query = "SELECT matches FROM tournament_counts WHERE tournament_id = ?"
            row = self.db.execute(query, (tournament_id,)).fetchone()
            return 0 if row is None else int(row[0])
        query = "SELECT COUNT(*) FROM matches WHERE tournament_id = ?"  # an older store
        return int(self.db.execute(query, (tournament_id,)).fetchone()[0])

    @_translated
    def matches_after(self, tournament_id: int, position: int) -> int:
        """How many of the tournament's matches sort after ``position`` (an index range)."""
        query = "SELECT COUNT(*) FROM matches WHERE id > ? AND id < ?"  # a range of ids
        return int(self.db.execute(query, ids_after(tournament_id, position)).fetchone()[0])

    @_translated
    def tournament_results_after_id(self, tournament_id: int, position: int) -> list[MatchResult]:
        """A tournament's matches after ``position``, in rating order (no details)."""
        where = " WHERE m.id > ? AND m.id < ?"  # a range of ids: the tournament's, after it
        return self._results_query(where, ids_after(tournament_id, position), False)

    @_translated
    def board_checkpoints(self, tournament_id: int) -> list[tuple[int, int, list[int]]]:
        """The ``(position, matches, voided)`` of a tournament's board checkpoints, newest
        first (none in a store older than them)."""
        if not self._has_table("board_checkpoints"):
            return []
        rows = self.db.execute(
            "SELECT position, matches, voided FROM board_checkpoints WHERE tournament_id = ?"
            " ORDER BY position DESC",
            (tournament_id,),
        )
        return [(int(p), int(m), [int(v) for v in json.loads(voided)]) for p, m, voided in rows]

    @_translated
    def board_checkpoint(self, tournament_id: int, position: int) -> tuple[str, bytes, str] | None:
        """A board checkpoint's ``(model, state, digest)``, or None."""
        row = self.db.execute(
            "SELECT model, state, digest FROM board_checkpoints"
            " WHERE tournament_id = ? AND position = ?",
            (tournament_id, position),
        ).fetchone()
        return None if row is None else (str(row[0]), bytes(row[1]), str(row[2]))

    def save_board_checkpoint(
        self,
        tournament_id: int,
        position: int,
        matches: int,
        voided: Sequence[int],
        model: str,
        state: bytes,
        digest: str,
        keep: Callable[[list[tuple[int, int]]], list[int]],
    ) -> bool:
        """Keep a board checkpoint if the tournament still holds exactly ``matches`` stored
        matches up to ``position`` (none landed below it since it was computed), then drop
        the older ones ``keep`` does not name (it gets ``(position, matches)``, newest
        first). Readers call this too: it writes through its own short connection, and a
        store it cannot write (read-only, older, busy for over a second) keeps what it has.
        Returns whether it was kept."""

        def write(db: sqlite3.Connection) -> bool:
            total = db.execute(
                "SELECT matches FROM tournament_counts WHERE tournament_id = ?", (tournament_id,)
            ).fetchone()
            after = db.execute(
                "SELECT COUNT(*) FROM matches WHERE id > ? AND id < ?",
                ids_after(tournament_id, position),
            ).fetchone()[0]
            if total is None or int(total[0]) - int(after) != matches:
                return False
            db.execute(
                "INSERT OR REPLACE INTO board_checkpoints (tournament_id, position, matches,"
                " voided, model, state, digest, saved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (tournament_id, position, matches, json.dumps(sorted(voided)), model, state,
                 digest, time.time()),
            )  # fmt: skip
            stored = db.execute(
                "SELECT position, matches FROM board_checkpoints WHERE tournament_id = ?"
                " ORDER BY position DESC",
                (tournament_id,),
            ).fetchall()
            kept = set(keep([(int(p), int(m)) for p, m in stored]))
            db.executemany(
                "DELETE FROM board_checkpoints WHERE tournament_id = ? AND position = ?",
                [(tournament_id, p) for p, _ in stored if p not in kept],
            )
            return True

        return self._write_cache(write)

    @_translated
    def tally(self, tournament: str) -> tuple[int, dict[str, int]]:
        """How many matches of ``tournament`` are stored, and their faults by code (read
        from one state of the store, by a range of the ids' index)."""
        row = self.db.execute("SELECT id FROM tournaments WHERE name = ?", (tournament,))
        found = row.fetchone()
        if found is None:
            return 0, {}
        span = (found[0] * MATCH_ID_STRIDE, (found[0] + 1) * MATCH_ID_STRIDE)
        with self.read_snapshot():
            count = self.db.execute(
                "SELECT COUNT(*) FROM matches WHERE id >= ? AND id < ?", span
            ).fetchone()[0]
            faults = self.db.execute(
                "SELECT fault, COUNT(*) FROM seats WHERE match_id >= ? AND match_id < ?"
                " AND fault IS NOT NULL GROUP BY fault",
                span,
            ).fetchall()
        return count, dict(faults)

    @_translated
    def stored_since(self, tournament: str, since: float, newest: int = 10_000) -> int:
        """How many of the ``newest`` matches of ``tournament`` finished after ``since``."""
        return self.db.execute(
            "SELECT COUNT(*) FROM (SELECT m.finished_at FROM matches m"
            " JOIN tournaments t ON t.id = m.tournament_id WHERE t.name = ?"
            " ORDER BY m.idx DESC LIMIT ?) WHERE finished_at > ?",
            (tournament, newest, since),
        ).fetchone()[0]

    @_translated
    def match_log(self, match_id: int) -> bytes:
        row = self.db.execute("SELECT jsonl FROM logs WHERE match_id = ?", (match_id,)).fetchone()
        if row is None:
            raise KeyError(f"no match {match_id}")
        try:
            return unpack_log(bytes(row[0]))  # compressed, or plain as older releases stored it
        except ValueError as error:
            raise StoreDamaged(f"{self.path}: match {match_id}: {error}: {CHECK_HINT}") from None

    # ---------------------------------------------------------------- bots

    @_translated
    def register_bot(
        self, name: str, kind: str, target: str, variants: list[str], content_hash: str
    ) -> int:
        """Register a new version of bot ``name``; returns the version number."""
        with self.transaction() as db:
            row = db.execute("SELECT MAX(version) FROM bots WHERE name = ?", (name,)).fetchone()
            version = (row[0] or 0) + 1
            db.execute(
                "INSERT INTO bots (name, version, kind, target, variants, content_hash, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (name, version, kind, target, json.dumps(variants), content_hash, time.time()),
            )
        return version

    @_translated
    def bot(self, name: str, version: int | None = None) -> dict[str, Any] | None:
        """A registered bot (the newest version unless one is given), or None."""
        query = (
            "SELECT name, version, kind, target, variants, content_hash FROM bots WHERE name = ?"
        )
        args: tuple = (name,)
        if version is not None:
            query += " AND version = ?"
            args += (version,)
        row = self.db.execute(query + " ORDER BY version DESC LIMIT 1", args).fetchone()
        if row is None:
            return None
        keys = ("name", "version", "kind", "target", "variants", "content_hash")
        record = dict(zip(keys, row, strict=True))
        record["variants"] = json.loads(record["variants"])
        return record

    @_translated
    def bots(self) -> list[dict[str, Any]]:
        rows = self.db.execute("SELECT name, MAX(version) FROM bots GROUP BY name ORDER BY name")
        found = (self.bot(name, version) for name, version in rows.fetchall())
        return [bot for bot in found if bot is not None]

    # ---------------------------------------------------------------- keys

    @_translated
    def tournament_secret(self, tournament_id: int, fresh: bytes) -> bytes:
        """The secret a tournament's games are keyed with (arena/referee/keys.py): ``fresh``
        is kept the first time, the kept one returned ever after (read without a write lock),
        so a resumed tournament plays the same games. Bots cannot read the store."""
        query = "SELECT secret FROM tournament_keys WHERE tournament_id = ?"
        row = self.db.execute(query, (tournament_id,)).fetchone()
        if row is None:
            with self.transaction() as db:
                db.execute(
                    "INSERT OR IGNORE INTO tournament_keys (tournament_id, secret) VALUES (?, ?)",
                    (tournament_id, fresh),
                )
                row = db.execute(query, (tournament_id,)).fetchone()
        return bytes(row[0])

    @_translated
    def kept_secret(self, tournament_id: int) -> bytes | None:
        """The tournament's secret if the store keeps one; never writes (a reader's call)."""
        query = "SELECT secret FROM tournament_keys WHERE tournament_id = ?"
        row = self.db.execute(query, (tournament_id,)).fetchone()
        return bytes(row[0]) if row else None

    # ---------------------------------------------------------------- managing what is stored

    @_translated
    def registered_bots(self) -> list[dict[str, Any]]:
        """Every registered version of every bot, by name then version."""
        rows = self.db.execute(
            "SELECT name, version, kind, target, variants, content_hash, created_at FROM bots"
            " ORDER BY name, version"
        ).fetchall()
        keys = ("name", "version", "kind", "target", "variants", "content_hash", "created_at")
        records = [dict(zip(keys, row, strict=True)) for row in rows]
        for record in records:
            record["variants"] = json.loads(record["variants"])
        return records

    @_translated
    def remove_bot(self, name: str, version: int | None = None) -> list[dict[str, Any]]:
        """Unregister ``name`` (one version, or all); returns the removed registrations.

        Results it already played stay: they belong to their tournaments."""
        removed = [
            r
            for r in self.registered_bots()
            if r["name"] == name and version in (None, r["version"])
        ]
        if not removed:
            raise KeyError(name if version is None else f"{name}@{version}")
        with self.transaction() as db:
            db.executemany(
                "DELETE FROM bots WHERE name = ? AND version = ?",
                [(r["name"], r["version"]) for r in removed],
            )
        return removed

    @_translated
    def delete_tournament(self, name: str) -> int:
        """Delete tournament ``name`` with its matches, seats, logs, plan and failures in one
        transaction; returns how many matches went. Ratings are recomputed from what
        remains. TournamentBusy while a live driver runs it."""
        with self.transaction() as db:
            row = db.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise KeyError(name)
            lease = db.execute(
                "SELECT host, pid, started, since, heartbeat FROM leases WHERE tournament_id = ?",
                row,
            ).fetchone()
            if lease is not None and not Holder(*lease).is_gone():
                raise TournamentBusy(
                    f"tournament '{name}' is being run by {Holder(*lease).describe()}; "
                    "stop it first, then delete it"
                )
            matches = "SELECT id FROM matches WHERE tournament_id = ?"
            db.execute(f"DELETE FROM logs WHERE match_id IN ({matches})", row)
            db.execute(f"DELETE FROM seats WHERE match_id IN ({matches})", row)
            count = db.execute("DELETE FROM matches WHERE tournament_id = ?", row).rowcount
            for table in ("schedule", "failures", "leases", "tournament_keys"):
                db.execute(f"DELETE FROM {table} WHERE tournament_id = ?", row)
            db.execute("DELETE FROM tournaments WHERE id = ?", row)
        return count

    # ---------------------------------------------------------------- one bot's matches

    @_translated
    def bot_matches(
        self,
        bots: Sequence[str],
        tournaments: Sequence[str],
        where: BotFilter,
        limit: int,
        offset: int,
    ) -> tuple[int, list[dict[str, Any]]]:
        """How many matches of ``bots`` (the labels of one bot's versions) in ``tournaments``
        pass ``where``, and one page of them, newest first (last stored first: seat rows
        grow as matches are stored), each with every seat of its table. Read by the index on
        seats' bots (it holds the row), then one page of rows."""
        clause, params = self._bot_clause(bots, tournaments, where)
        with self.read_snapshot():  # the count and the page from one state of the store
            total = self.db.execute(f"SELECT COUNT(*) FROM seats s{clause}", params).fetchone()[0]
            rows = self.db.execute(
                "SELECT s.match_id, s.seat, t.name, m.idx, m.variant, m.players, m.finished_at"
                " FROM seats s JOIN matches m ON m.id = s.match_id"
                f" JOIN tournaments t ON t.id = m.tournament_id{clause}"
                " ORDER BY s.rowid DESC LIMIT ? OFFSET ?",
                (*params, limit, offset),
            ).fetchall()
            tables = self._tables([row[0] for row in rows])
        keys = ("match_id", "seat", "tournament", "idx", "variant", "players", "finished_at")
        found = [dict(zip(keys, row, strict=True)) for row in rows]
        for match in found:
            match["seats"] = tables[match["match_id"]]
        return int(total), found

    def _tables(self, match_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
        """Every seat of each of a page of matches (by the seats' primary key)."""
        tables: dict[int, list[dict[str, Any]]] = {m: [] for m in match_ids}
        if not match_ids:
            return tables
        marks = ",".join("?" * len(match_ids))
        keys = ("seat", "bot", "score", "rank", "fault", "fault_detail")
        for match, *row in self.db.execute(
            "SELECT match_id, seat, bot, score, rank, fault, fault_detail FROM seats"
            f" WHERE match_id IN ({marks}) ORDER BY match_id, seat",
            match_ids,
        ):
            tables[match].append(dict(zip(keys, row, strict=True)))
        return tables

    def _bot_clause(
        self, bots: Sequence[str], tournaments: Sequence[str], where: BotFilter
    ) -> tuple[str, list[Any]]:
        """The WHERE clause of a bot's seats in some tournaments (each a range of match ids:
        a tournament's id times the stride, plus its index), filtered."""
        spans = self._spans(tournaments if where.tournament is None else [where.tournament])
        if not bots or not spans:
            return " WHERE 0", []
        parts = [f"s.bot IN ({','.join('?' * len(bots))})"]
        params: list[Any] = list(bots)
        parts.append("(" + " OR ".join("s.match_id BETWEEN ? AND ?" for _ in spans) + ")")
        params += [bound for span in spans for bound in span]
        if where.won is not None:
            parts.append("s.rank = 1" if where.won else "s.rank > 1")
        if where.fault == "yes":
            parts.append("s.fault IS NOT NULL")
        elif where.fault == "no":
            parts.append("s.fault IS NULL")
        elif where.fault is not None:
            parts.append("s.fault = ?")
            params.append(where.fault)
        if where.opponents is not None:
            marks = ",".join("?" * len(where.opponents)) or "NULL"
            parts.append(
                "EXISTS (SELECT 1 FROM seats o WHERE o.match_id = s.match_id"
                f" AND o.seat != s.seat AND o.bot IN ({marks}))"
            )
            params += list(where.opponents)
        return " WHERE " + " AND ".join(parts), params

    def _spans(self, tournaments: Sequence[str]) -> list[tuple[int, int]]:
        if not tournaments:
            return []
        marks = ",".join("?" * len(tournaments))
        ids = self.db.execute(
            f"SELECT id FROM tournaments WHERE name IN ({marks}) ORDER BY id", list(tournaments)
        ).fetchall()
        return [(i * MATCH_ID_STRIDE, (i + 1) * MATCH_ID_STRIDE - 1) for (i,) in ids]

    @_translated
    def bot_tallies(
        self,
        bots: Sequence[str],
        tournaments: Sequence[str],
        after: int = 0,
        matches: Sequence[int] | None = None,
    ) -> tuple[list[tuple], list[tuple], int]:
        """Sums for the win rates and score margins of ``bots`` (one bot's versions) in
        ``tournaments``, over the seats stored after seat row ``after`` (rows grow as matches
        are stored: a caller keeps the sums and adds only what is new), or over ``matches``
        only (voided ones, to take them out). Returns the rows per tournament id
        ``(tournament_id, n, wins, margin, square)`` (a win: ranking first; the margin: the
        score less the best other seat's), per tournament id and opponent label
        ``(tournament_id, opponent, n, wins, margin, square)`` (a win: ranking above that
        opponent; the margin: the score less theirs), and the last seat row read."""
        clause, params = self._bot_clause(bots, tournaments, BotFilter())
        clause += " AND s.rowid > ?"
        params.append(after)
        if matches is not None:
            clause += f" AND s.match_id IN ({','.join('?' * len(matches)) or 'NULL'})"
            params += list(matches)
        pairs = (
            "SELECT s.rowid AS row, s.match_id AS match_id, s.rank AS rank, o.bot AS opponent,"
            " s.score - o.score AS margin, s.rank < o.rank AS beat FROM seats s"
            f" JOIN seats o ON o.match_id = s.match_id AND o.seat != s.seat{clause}"
        )
        with self.read_snapshot():  # both sums from one state of the store
            per_board = self.db.execute(
                "SELECT match_id / ?, COUNT(*), SUM(rank = 1), SUM(margin), SUM(margin * margin)"
                " FROM (SELECT match_id, MIN(rank) AS rank, MIN(margin) AS margin FROM"
                f" ({pairs}) GROUP BY match_id) GROUP BY 1",
                (MATCH_ID_STRIDE, *params),
            ).fetchall()
            per_pair = self.db.execute(
                "SELECT match_id / ?, opponent, COUNT(*), SUM(beat), SUM(margin),"
                f" SUM(margin * margin) FROM ({pairs}) GROUP BY 1, 2",
                (MATCH_ID_STRIDE, *params),
            ).fetchall()
            last = self.db.execute(f"SELECT MAX(row) FROM ({pairs})", params).fetchone()[0]
        return per_board, per_pair, max(int(last or 0), after)

    @_translated
    def tournament_ids(self, names: Sequence[str]) -> dict[int, str]:
        marks = ",".join("?" * len(names)) or "NULL"
        query = f"SELECT id, name FROM tournaments WHERE name IN ({marks})"
        return dict(self.db.execute(query, list(names)).fetchall())

    @_translated
    def forfeits(self, tournament: str) -> list[dict[str, Any]]:
        """Every forfeit of a tournament's stored matches, in schedule order."""
        rows = self.db.execute(
            "SELECT m.id, m.idx, s.seat, s.bot, s.fault, s.fault_detail FROM matches m"
            " JOIN tournaments t ON t.id = m.tournament_id JOIN seats s ON s.match_id = m.id"
            " WHERE t.name = ? AND s.fault IS NOT NULL ORDER BY m.idx, s.seat",
            (tournament,),
        ).fetchall()
        keys = ("match_id", "idx", "seat", "bot", "code", "detail")
        return [dict(zip(keys, row, strict=True)) for row in rows]


def _result(rows: list[tuple], details: bool) -> MatchResult:
    """One MatchResult from its rows of the results query (one row per seat)."""
    first = rows[0]
    columns = list(zip(*rows, strict=True))
    return MatchResult(
        match_id=first[0],
        tournament=first[1],
        idx=first[2],
        variant=first[3],
        seed=first[4],
        decisions=first[5],
        seconds=first[6],
        attempts=first[7],
        worker=first[8],
        finished_at=first[9],
        bots=columns[10],
        scores=columns[11],
        ranks=columns[12],
        engine_ranks=columns[13],
        faults=columns[14],
        fault_details=columns[15] if details else (),
        breakdown=tuple(json.loads(b) for b in columns[16]) if details else (),
    )
