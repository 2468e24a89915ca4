"""What a competition keeps on disk: every result and match log (replays need them) for
good, the bots' per-match stdout and stderr files for a while, the data folder within a
budget.

The bots' files of a match live in ``bot-logs/TOURNAMENT/INDEX/`` (one folder per
match). ``prune`` removes the folders of stored matches that no rule keeps:

- a match whose bots wrote nothing (every file empty): at once, nothing to read;
- otherwise kept ``log_days``, and ``faulted_days`` when a bot faulted in it, and the
  newest ``logs_per_bot`` folders of each bot whatever their age;
- a folder with no stored match (a match being played, or one the arena could not
  finish) is kept ``faulted_days`` from its last change.

Then, if the data folder still uses more than its budget, the oldest remaining folders
go (those without a fault first) until it fits or none is left. The results store and
the accounts are never touched: what is left over the budget is said in ``server.log``,
as is a folder past ``WARN_SHARE`` of it. The worker prunes every ``EVERY_SECONDS``;
``arena admin prune`` prunes now.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from arena.server.competition import RetentionTable
from arena.tournament.matchrun import tournament_folder
from arena.tournament.results import MATCH_ID_STRIDE
from arena.tournament.store import FILE_NAME, ResultsStore, StoreError

log = logging.getLogger("arena.host")
LOGS = "bot-logs"
DAY = 86400.0
WARN_SHARE = 0.8  # a warning in server.log past this share of the budget
EVERY_SECONDS = 600.0


@dataclass(frozen=True)
class Folder:
    """One match's bot-log folder and what the rules need to know of it."""

    path: Path
    size: int  # bytes on disk
    changed: float  # last modification (for a folder with no stored match)
    finished: float | None  # when its match was stored (None: no stored match)
    bots: tuple[str, ...] = ()
    faulted: bool = False
    empty: bool = False  # every file in it is empty


@dataclass(frozen=True)
class Pruned:
    """What a prune did: folders removed, bytes freed, the data folder's use after it."""

    folders: int
    freed: int
    kept: int
    used: int
    budget: int

    def describe(self) -> str:
        share = 100 * self.used / self.budget
        return (
            f"pruned {self.folders} match log folders ({megabytes(self.freed)} freed, "
            f"{self.kept} kept); the data folder uses {megabytes(self.used)} of its "
            f"{megabytes(self.budget)} budget ({share:.0f} %)"
        )


def megabytes(count: int) -> str:
    return f"{count / 1e6:.1f} MB"


def disk_use(path: Path) -> int:
    """Bytes ``path`` takes on disk (blocks, as ``du`` counts them: an empty folder costs
    a block), everything below it included."""
    total = 0
    for root, folders, files in os.walk(path):
        for name in (*folders, *files):
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue  # gone meanwhile
    with contextlib.suppress(OSError):
        total += os.lstat(path).st_blocks * 512
    return total


def _folder(path: Path) -> tuple[int, float, bool]:
    """A folder's disk use, last change and whether every file in it is empty."""
    size, changed, empty = 0, 0.0, True
    for root, folders, files in os.walk(path):
        for name in (*folders, *files):
            try:
                stat = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            size += stat.st_blocks * 512
            changed = max(changed, stat.st_mtime)
            if name in files and stat.st_size > 0:
                empty = False
    with_self = os.lstat(path)
    return size + with_self.st_blocks * 512, max(changed, with_self.st_mtime), empty


def match_folders(data_dir: Path, store: ResultsStore) -> list[Folder]:
    """Every match's bot-log folder under the data folder, with its stored match's facts."""
    ids = {tournament_folder(t.name): t.id for t in store.tournaments()}
    found: list[tuple[Path, int | None]] = []
    for tournament in sorted((data_dir / LOGS).glob("*")):
        tid = ids.get(tournament.name)
        for match in sorted(tournament.glob("*")):
            if match.is_dir():
                index = int(match.name) if match.name.isdigit() else None
                key = (
                    tid * MATCH_ID_STRIDE + index if tid is not None and index is not None else None
                )
                found.append((match, key))
    facts = store.match_facts([key for _, key in found if key is not None])
    folders = []
    for path, key in found:
        try:
            size, changed, empty = _folder(path)
        except OSError:
            continue
        fact = facts.get(key) if key is not None else None
        if fact is None:
            folders.append(Folder(path, size, changed, None))
        else:
            finished, bots, faulted = fact
            folders.append(Folder(path, size, changed, finished, bots, faulted, empty))
    return folders


def expired(folders: list[Folder], retention: RetentionTable, now: float) -> list[Folder]:
    """The folders no retention rule keeps (see the module's docstring)."""
    newest_first = sorted(folders, key=lambda f: f.finished or f.changed, reverse=True)
    seen: Counter[str] = Counter()
    gone = []
    for folder in newest_first:
        if folder.finished is None:
            if now - folder.changed >= retention.faulted_days * DAY:
                gone.append(folder)
            continue
        if folder.empty:
            gone.append(folder)
            continue
        age = now - folder.finished
        recent = any(seen[bot] < retention.logs_per_bot for bot in folder.bots)
        seen.update(set(folder.bots))
        days = retention.faulted_days if folder.faulted else retention.log_days
        if not recent and age >= days * DAY:
            gone.append(folder)
    return gone


def remove(folder: Folder) -> bool:
    shutil.rmtree(folder.path, ignore_errors=True)
    return not folder.path.exists()


def prune(data_dir: Path, retention: RetentionTable, now: float | None = None) -> Pruned:
    """Apply the retention rules and the budget to ``data_dir`` now (see the module's
    docstring). Results and match logs are never removed."""
    data_dir = Path(data_dir)
    now = time.time() if now is None else now
    folders: list[Folder] = []
    if (data_dir / FILE_NAME).exists():
        with ResultsStore.reader(data_dir) as store:
            folders = match_folders(data_dir, store)
    removed, freed = 0, 0
    gone = expired(folders, retention, now)
    for folder in gone:
        if remove(folder):
            removed, freed = removed + 1, freed + folder.size
    left = [f for f in folders if f not in set(gone)]
    used = disk_use(data_dir)
    if used > retention.budget_bytes:  # over budget: the oldest logs, faults last
        left.sort(key=lambda f: (f.faulted, f.finished or f.changed))
        while left and used > retention.budget_bytes:
            folder = left.pop(0)
            if folder.finished is None and now - folder.changed < 3600:
                continue  # a match being played now
            if remove(folder):
                removed, freed, used = removed + 1, freed + folder.size, used - folder.size
    return Pruned(removed, freed, len(folders) - removed, used, retention.budget_bytes)


def report(pruned: Pruned) -> None:
    """Say in server.log what a prune did, and warn when the folder nears its budget."""
    if pruned.folders:
        log.info("%s", pruned.describe())
    if pruned.used > pruned.budget:
        log.warning(
            "the data folder uses %s, over its budget of %s, with every old bot log pruned: "
            "raise [retention] budget_bytes, slow [ladder] matches_per_hour, or move the "
            "competition to a bigger disk",
            megabytes(pruned.used),
            megabytes(pruned.budget),
        )
    elif pruned.used >= WARN_SHARE * pruned.budget:
        log.warning(
            "the data folder uses %s, %.0f %% of its budget of %s ([retention] budget_bytes)",
            megabytes(pruned.used),
            100 * pruned.used / pruned.budget,
            megabytes(pruned.budget),
        )


def keep(data_dir: Path, retention: RetentionTable, stop: threading.Event) -> None:
    """Prune at start and every EVERY_SECONDS until ``stop`` (the worker's thread)."""
    while not stop.is_set():
        try:
            report(prune(data_dir, retention))
        except (OSError, StoreError) as error:
            log.warning("pruning the bot logs failed: %s", error)
        stop.wait(EVERY_SECONDS)
