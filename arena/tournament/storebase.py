"""One open results store: its connection, how it is opened (created, refused, migrated),
how SQLite's errors become one line, transactions and snapshots, and the one query that
reads matches back. Each part of ``ResultsStore`` (``arena.tournament.store``) works
through it."""

from __future__ import annotations

import functools
import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Self, TypeVar

from arena.tournament.results import MATCH_ID_STRIDE, MatchResult
from arena.tournament.storefile import (
    CHECK_HINT,
    StoreCutShort,
    StoreDamaged,
    StoreError,
    StoreFull,
    StoreMissing,
    StoreReadOnly,
    _uri,
    create_store_file,
    hold_file,
    integrity_problems,
    release_file,
    replacement_traces,
)
from arena.tournament.storeschema import (
    APPLICATION_ID,
    FILE_NAME,
    MIGRATIONS,
    SCHEMA_VERSION,
    statements,
)

F = TypeVar("F", bound=Callable[..., Any])


def translated(method: F) -> F:
    """Turn any SQLite error inside ``method`` into a one-line StoreError."""

    @functools.wraps(method)
    def wrapper(self: StoreBase, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as error:
            raise self.problem(error) from None

    return wrapper  # type: ignore[return-value]


class StoreBase:
    """The results store ``results.sqlite`` in ``data_dir``, opened: what every part of
    ``ResultsStore`` shares (see there for how it is opened)."""

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
        self._held: tuple[int, int] | None = hold_file(self.path)
        try:
            self.db = self._connect()
        except sqlite3.Error as error:
            self._release()
            raise self.problem(error) from None
        try:
            self._check_identity()
            if check:
                self.check_integrity()
        except BaseException:
            self.db.close()
            self._release()
            raise

    @classmethod
    def reader(cls, data_dir: Path | str) -> Self:
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
        self._release()

    def _release(self) -> None:
        if self._held is not None:
            release_file(self._held)
            self._held = None

    def __enter__(self) -> Self:
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

    def _has_table(self, name: str) -> bool:
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        return self.db.execute(query, (name,)).fetchone() is not None

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
