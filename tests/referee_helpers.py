"""Shared helpers for tests that run real bot processes."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path


def per_worker(script: Path) -> Path:
    """``script`` under a name of this test worker's own (a symbolic link beside it) when
    the tests run in parallel (pytest-xdist): the tests that look for leftover bot
    processes by their command line then see only their own worker's bots."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return script
    link = script.with_name(f"{script.stem}-{worker}{script.suffix}")
    if not link.is_symlink():
        with contextlib.suppress(FileExistsError):
            link.symlink_to(script.name)
    return link


HOSTILE = per_worker(Path(__file__).parent / "bots" / "hostile.py")


def hostile(mode: str, arg: str = "") -> str:
    """A ``--bot`` value for the hostile test bot."""
    return f"cmd:{sys.executable} {HOSTILE} {mode} {arg}".strip()


def processes_with(marker: str, exclude: int | None = None, where: str = "cmdline") -> list[int]:
    """Pids of live processes (other than ``exclude``) whose command line (or, with
    ``where="environ"``, environment) contains ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/{where}", "rb") as f:
                text = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in text and state != "Z" and int(entry) != exclude:
            found.append(int(entry))
    return found


def recorded(log_dir, seat: int, name: str):
    """The file a ``record NAME`` bot in ``seat`` wrote in its scratch folder."""
    (path,) = log_dir.rglob(f"seat{seat}-*.tmp/{name}")
    return path


def stderr_of(log_dir, seat: int) -> str:
    """What the bot in ``seat`` wrote to stderr (its capped log under ``log_dir``)."""
    (path,) = log_dir.rglob(f"seat{seat}-*.stderr")
    return path.read_text(errors="replace")
