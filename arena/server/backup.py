"""A competition's data folder backed up whole while it runs (``arena admin backup``), and
restored into a new data folder (``arena admin restore``).

A backup is a data folder of its own plus ``backup.json`` (what it holds, with a digest
of every file): both stores, copied with SQLite's online backup API while the ladder and
the web server write; the server's secret (sessions stay signed in); every upload a
submission names; the stored code of every registered file bot; and, on request, the
logs (``server.log``, the bots' match and validation logs).

Consistency between the two stores: each copy is one snapshot (a read transaction held
through the copy), and the accounts snapshot is taken first, the results one just after.
Every step of the arena writes the results store before it marks anything in accounts
(a bot is registered, then its submission marked passed; a match is stored, then
voidable), so everything the accounts copy names is in the results copy. The one thing
a restore may see is the converse: a bot version registered in the results store whose
submission is still queued or validating in accounts (its validation ended between the
two snapshots). The restored server resumes that validation and adopts the version
already registered (``arena.server.worker.registered_before``): nothing is played twice.

Atomic: a backup (and a restore) is built in a hidden folder beside its target and renamed
into place only once whole and checked, so a ``kill -9`` leaves no target at all, never
a half one; the next run in that folder removes what a killed run left.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from arena import chaos
from arena.server import schema
from arena.server.accounts import FILE_NAME as ACCOUNTS
from arena.server.logs import LOG_FILE
from arena.tournament.store import FILE_NAME as RESULTS
from arena.tournament.store import SCHEMA_VERSION, ResultsStore, _uri
from arena.tournament.storecare import integrity_problems, online_copy, sync_folder

MANIFEST = "backup.json"
FORMAT = 1
PARTIAL = ".arena-partial"  # a folder being built beside its target (swept when left)
SECRET_FILE = "server-secret"  # the key sessions are signed with (``host.server_secret``)
LOG_FOLDERS = ("bot-logs", "submissions")  # the bots' match logs, their validation logs


class BackupError(RuntimeError):
    """A backup or restore cannot be done; the message is one line saying why and what to do."""


@dataclass
class Summary:
    """What a backup holds (from its manifest)."""

    path: Path
    counts: dict[str, int]
    logs: bool
    missing: list[str] = field(default_factory=list)  # named by a store, not in the folder

    def describe(self) -> str:
        c = self.counts
        logs = "with logs" if self.logs else "without logs (--logs adds them)"
        return (
            f"{c['users']} accounts, {c['submissions']} submissions, {c['matches']} matches, "
            f"{c['bot_code']} bot code folders, {c['uploads']} uploads, {logs}"
        )


# ---------------------------------------------------------------- taking a backup


def take(data_dir: Path, dest: Path, logs: bool = False) -> Summary:
    """Back up the data folder ``data_dir`` (running or not) into the new folder ``dest``."""
    data_dir, dest = Path(data_dir).absolute(), Path(dest).absolute()
    for name in (ACCOUNTS, RESULTS):
        if not (data_dir / name).is_file():
            raise BackupError(
                f"{data_dir} holds no {name}: give the data folder of a competition (--data-dir)"
            )
    if dest.exists() or dest.is_symlink():
        raise BackupError(f"{dest} exists already: give a new folder (a backup never overwrites)")
    if dest.is_relative_to(data_dir):
        raise BackupError(f"{dest} is inside the data folder: back up to another folder")
    results = ResultsStore.reader(data_dir)
    accounts = sqlite3.connect(data_dir / ACCOUNTS, timeout=30, isolation_level=None)
    try:
        # The snapshots: accounts first, then results (see the module's docstring).
        for db in (accounts, results.db):
            db.execute("BEGIN")
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        with building(dest, sweep=True) as folder:
            _copy_store(accounts, folder / ACCOUNTS)
            _copy_store(results.db, folder / RESULTS)
            for db in (accounts, results.db):
                db.execute("COMMIT")  # the live stores' writers may checkpoint again
            _drop_leases(folder / RESULTS)
            manifest = _copy_files(data_dir, folder, logs)
            (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
            summary = check(folder)
    except sqlite3.Error as error:
        raise BackupError(f"cannot read the stores in {data_dir}: {error}") from None
    except OSError as error:
        raise BackupError(_os_problem(error, f"nothing was written to {dest}")) from None
    finally:
        accounts.close()
        results.close()
    summary.path = dest
    return summary


def _copy_store(source: sqlite3.Connection, path: Path) -> None:
    chaos.kill_at_step()
    problems = online_copy(source, path, "integrity_check")
    if problems:
        raise BackupError(
            f"the copy of {path.name} failed SQLite's integrity check ({problems[0]}): the "
            f"store itself may be damaged ('arena store check'); no backup was written"
        )


def _drop_leases(path: Path) -> None:
    """A copy is a store no driver runs: the ladder's lease (held by the running worker)
    would make a server on the restored folder wait for a process that is not its own."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("DELETE FROM leases")
    finally:
        db.close()


def _copy_files(data_dir: Path, folder: Path, logs: bool) -> dict[str, Any]:
    """Copy what the copied stores name (read from the copies: the snapshots) and the
    secret, then the logs if asked; the manifest describing them."""
    chaos.kill_at_step()
    with _read(folder / ACCOUNTS) as db:
        uploads = {_top(row[0], 2) for row in db.execute("SELECT upload FROM submissions")}
        counts = {
            "users": db.execute("SELECT COUNT(*) FROM users").fetchone()[0],
            "submissions": db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0],
        }
        accounts_version = db.execute("PRAGMA user_version").fetchone()[0]
    with _read(folder / RESULTS) as db:
        targets = [row[0] for row in db.execute("SELECT target FROM bots WHERE kind = 'file'")]
        counts["matches"] = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        counts["bots"] = db.execute("SELECT COUNT(*) FROM bots").fetchone()[0]
        results_version = db.execute("PRAGMA user_version").fetchone()[0]
    code = {str(Path(target).parent) for target in targets if not Path(target).is_absolute()}
    wanted = [SECRET_FILE, *sorted(u for u in uploads if u), *sorted(code)]
    missing = []
    for name in wanted:
        source = data_dir / name
        if not _inside(source, data_dir) or not source.exists():
            missing.append(name)
            continue
        _copy_live(source, folder / name)
    counts["uploads"] = len([u for u in uploads if u and u not in missing])
    counts["bot_code"] = len([c for c in code if c not in missing])
    files = {  # the stores and what a restore needs, each with its digest
        str(path.relative_to(folder)): _digest(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }
    if logs:
        chaos.kill_at_step()
        for name in (LOG_FILE, *LOG_FOLDERS):
            if (data_dir / name).exists():
                _copy_live(data_dir / name, folder / name)
    _sync_tree(folder)
    return {
        "format": FORMAT,
        "arena": _version(),
        "taken_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "data_dir": str(data_dir),
        "accounts_version": accounts_version,
        "results_version": results_version,
        "counts": counts,
        "logs": logs,
        "missing": missing,
        "external_bots": [target for target in targets if Path(target).is_absolute()],
        "files": files,
    }


def _top(relative: str, parts: int) -> str:
    """The first ``parts`` parts of a path relative to the data folder (an upload's own
    folder, ``uploads/ID``); '' when it has fewer."""
    found = Path(relative).parts[:parts]
    return str(Path(*found)) if len(found) == parts else ""


def _inside(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def _copy_live(source: Path, target: Path) -> None:
    """Copy a file or folder that the server may be writing or pruning meanwhile: a file
    gone before it is copied is left out (a log pruned), never an error."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_file():
        with contextlib.suppress(FileNotFoundError):
            shutil.copy2(source, target)
        return
    for root, folders, names in os.walk(source):
        here = target / Path(root).relative_to(source)
        here.mkdir(parents=True, exist_ok=True)
        folders[:] = [f for f in folders if not (Path(root) / f).is_symlink()]
        for name in names:
            path = Path(root) / name
            if path.is_symlink() or not path.is_file():
                continue  # (a data folder holds none; never followed out of it)
            with contextlib.suppress(FileNotFoundError):
                shutil.copy2(path, here / name)


def _digest(path: Path) -> str | None:
    """The file's SHA-256; None if there is no such file."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as file:
            for block in iter(lambda: file.read(1 << 20), b""):
                digest.update(block)
    except (FileNotFoundError, IsADirectoryError):
        return None
    return digest.hexdigest()


def _sync_tree(folder: Path) -> None:
    """Make every file and folder under ``folder`` durable before it is renamed into place
    (a power cut after the rename then finds it whole)."""
    for root, _, names in os.walk(folder):
        for name in names:
            fd = os.open(Path(root) / name, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        sync_folder(Path(root))


def _version() -> str:
    try:
        return metadata.version("ttr-arena")
    except metadata.PackageNotFoundError:
        return "unknown"


# ---------------------------------------------------------------- checking and restoring


def check(backup: Path) -> Summary:
    """Check a backup: its manifest, both stores (SQLite's integrity check, a version this
    arena can open) and every file's digest. BackupError says what is wrong."""
    backup = Path(backup)
    try:
        manifest = json.loads((backup / MANIFEST).read_text())
    except (OSError, ValueError):
        raise BackupError(
            f"{backup} is not a backup made by 'arena admin backup' (no readable {MANIFEST})"
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(
            f"{backup} was made by another ttr-arena (backup format not {FORMAT}): restore "
            "it with that version"
        )
    try:
        return _check(backup, manifest)
    except (KeyError, TypeError, AttributeError):
        raise BackupError(f"{backup / MANIFEST} is damaged: use another backup") from None


def _check(backup: Path, manifest: dict[str, Any]) -> Summary:
    newest = {ACCOUNTS: schema.VERSION, RESULTS: SCHEMA_VERSION}
    for name, known in newest.items():
        found = manifest[f"{name.split('.')[0]}_version"]
        if found > known:
            raise BackupError(
                f"{backup}'s {name} was written by a newer ttr-arena (version {found}; this one "
                f"knows up to {known}): upgrade ttr-arena to restore it"
            )
        try:
            with _read(backup / name) as db:
                problems = integrity_problems(db)
        except sqlite3.Error as error:
            problems = [str(error)]
        if problems:
            raise BackupError(f"{backup / name} is damaged ({problems[0]}): use another backup")
    for name, digest in manifest["files"].items():
        found = _digest(backup / name)
        if found != digest:
            what = "is missing" if found is None else "differs from when it was taken"
            raise BackupError(f"{backup / name} {what}: the backup is damaged, use another")
    return Summary(backup, manifest["counts"], manifest["logs"], manifest["missing"])


def restore(backup: Path, data_dir: Path) -> Summary:
    """Restore ``backup`` into ``data_dir``, a new (or empty) folder: checked first, copied
    beside it, checked again, then renamed into place."""
    backup, data_dir = Path(backup).absolute(), Path(data_dir).absolute()
    if not backup.is_dir():
        raise BackupError(f"no backup at {backup}: give the folder 'arena admin backup' made")
    if data_dir.exists() and (not data_dir.is_dir() or any(data_dir.iterdir())):
        raise BackupError(
            f"{data_dir} is not empty: restore into a new folder (a restore never mixes "
            "with a data folder already there)"
        )
    summary = check(backup)
    try:
        with building(data_dir, sweep=True) as folder:
            chaos.kill_at_step()
            shutil.copytree(backup, folder, symlinks=True, dirs_exist_ok=True)
            check(folder)  # the copy is the backup, file for file
            (folder / MANIFEST).unlink()
            _sync_tree(folder)
    except OSError as error:
        raise BackupError(_os_problem(error, f"nothing was restored to {data_dir}")) from None
    summary.path = data_dir
    return summary


# ---------------------------------------------------------------- building beside a target


@contextlib.contextmanager
def building(target: Path, sweep: bool) -> Iterator[Path]:
    """A new hidden folder beside ``target``, renamed to ``target`` when the block ends
    (``target`` must not exist, or be an empty folder); removed if the block fails. Every
    builder holds a shared lock on the parent folder; one that gets it alone first removes
    the folders that builders killed earlier left there."""
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    lock = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if sweep:
            with contextlib.suppress(BlockingIOError):
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                for left in parent.glob(f".*{PARTIAL}"):
                    shutil.rmtree(left, ignore_errors=True)
        fcntl.flock(lock, fcntl.LOCK_SH)
        folder = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=PARTIAL, dir=parent))
        try:
            yield folder
            chaos.kill_at_step()
            try:
                os.rename(folder, target)  # (over an empty folder only)
            except OSError:
                raise BackupError(f"{target} appeared meanwhile: give a new folder") from None
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        sync_folder(parent)
    finally:
        os.close(lock)  # (the lock goes with it)


@contextlib.contextmanager
def _read(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to a store file that nothing else writes (a copy)."""
    db = sqlite3.connect(_uri(path, mode="ro"), uri=True)
    try:
        yield db
    finally:
        db.close()


def _os_problem(error: OSError, consequence: str) -> str:
    where = f" ({error.filename})" if error.filename else ""
    return f"{error.strerror or error}{where}: {consequence}"
