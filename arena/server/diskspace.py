"""The data folder's disk: how full it is, and when it counts as full.

A full disk is a state of the competition, not a crash: while less than the reserve
is free, uploads are refused with 503 (``DISK_FULL``), the admin page says so, and
the worker pauses its ladders and validation until space returns. The reserve
(``ARENA_HOST_DISK_RESERVE`` bytes, else 5% of the disk, between 1 MiB and 256 MiB)
leaves room for what is already under way (a match landing, SQLite's journal) so
that no write meets the disk's very end in the usual case; a write that still does
(``ENOSPC``, SQLite's "disk is full") is caught and treated the same way.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from arena.tournament.store import StoreFull

DISK_FULL = "the server's disk is full, try again later"
MIN_RESERVE = 1024 * 1024
MAX_RESERVE = 256 * 1024 * 1024


@dataclass(frozen=True)
class Space:
    """The data folder's file system, in bytes."""

    total: int
    used: int
    free: int  # what this process may still write (the root's reserved blocks left out)
    reserve: int  # below this much free, the disk counts as full

    @property
    def full(self) -> bool:
        return self.free < self.reserve


def reserve_for(total: int) -> int:
    configured = os.environ.get("ARENA_HOST_DISK_RESERVE")
    if configured is not None and configured.isdigit():
        return int(configured)
    return min(MAX_RESERVE, max(MIN_RESERVE, total // 20))


def space(data_dir: Path) -> Space:
    usage = shutil.disk_usage(data_dir)
    return Space(usage.total, usage.used, usage.free, reserve_for(usage.total))


def is_full_error(error: BaseException) -> bool:
    """True for the errors a full disk raises: ENOSPC/EDQUOT, SQLite's SQLITE_FULL (and
    the results store's StoreFull, which says the same)."""
    if isinstance(error, StoreFull):
        return True
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if isinstance(error, sqlite3.Error):
        return getattr(error, "sqlite_errorname", "") == "SQLITE_FULL" or "disk is full" in str(
            error
        )
    return False
