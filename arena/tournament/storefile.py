"""The store's file: what is wrong with it (the ``StoreError`` family, each one line saying
what to do), refusing a file that is not a store before SQLite opens it, creating a new
one atomically, and the traces an unfinished replacement or backup leaves beside it."""

from __future__ import annotations

import os
import sqlite3
import threading
import urllib.parse
from collections import Counter
from contextlib import suppress
from pathlib import Path

from arena.tournament.storeschema import (
    APPLICATION_ID,
    FILE_NAME,
    MIGRATIONS,
    SCHEMA,
    SCHEMA_VERSION,
)

SQLITE_HEADER = b"SQLite format 3\x00"
CHECK_HINT = "run 'arena store check' for details, 'arena store recover' to save what is intact"


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


def _uri(path: Path, **options: str) -> str:
    query = "&".join(f"{key}={value}" for key, value in options.items())
    return f"file:{urllib.parse.quote(str(path.resolve()))}?{query}"


# Closing any descriptor of a file drops every POSIX lock this process holds on it, SQLite's
# included (https://sqlite.org/howtocorrupt.html, "Posix advisory locks canceled by a
# separate thread doing close()"): a header read while another thread's connection is open
# lets a process elsewhere take the store for its own and delete the write-ahead log under
# it, which damages the store. So the header is read only while no store of this process
# holds the file open; the stores count themselves in and out here. (A file is known by
# device and inode, which cannot be reused while a descriptor holds them.)
_HELD: Counter[tuple[int, int]] = Counter()
_HOLDING = threading.Lock()


def _check(path: Path, read_header: bool) -> tuple[int, int]:
    try:
        found = path.stat()
    except OSError as error:
        raise StoreError(f"cannot read {path}: {error.strerror}") from None
    if found.st_size == 0:
        raise StoreDamaged(
            f"{path} is empty (0 bytes): the results it held are lost; restore it from a "
            "backup ('arena store backup' makes one), or move it away to start a new store"
        )
    if read_header:
        try:
            with path.open("rb") as file:
                header = file.read(100)
        except OSError as error:
            raise StoreError(f"cannot read {path}: {error.strerror}") from None
        if not header.startswith(SQLITE_HEADER):
            raise StoreDamaged(
                f"{path} is not a results store (its header is not SQLite's: the file is "
                "damaged or another kind of file); restore it from a backup, or move it away"
            )
    return found.st_dev, found.st_ino


def _inspect(path: Path) -> tuple[int, int]:
    """``inspect_file``'s work; the caller holds ``_HOLDING``."""
    key = _check(path, read_header=False)
    if not _HELD[key]:
        _check(path, read_header=True)
    return key


def inspect_file(path: Path) -> None:
    """Refuse a store file that is empty or not SQLite at all (before SQLite opens it)."""
    with _HOLDING:
        _inspect(path)


def hold_file(path: Path) -> tuple[int, int]:
    """``inspect_file``, then count a store of this process in as holding the file until
    ``release_file`` (its header is read only if none holds it yet)."""
    with _HOLDING:
        key = _inspect(path)
        _HELD[key] += 1
        return key


def release_file(key: tuple[int, int]) -> None:
    with _HOLDING:
        _HELD[key] -= 1
        if _HELD[key] <= 0:
            del _HELD[key]


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
