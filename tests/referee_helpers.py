"""Shared helpers for tests that run real bot processes."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

from arena.procfs import stat_fields


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


def proc_text(pid: int, where: str = "cmdline") -> str | None:
    """A process's command line (or environment), NULs made spaces; None once it is gone."""
    try:
        with open(f"/proc/{pid}/{where}", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return None


def processes_with(marker: str, exclude: int | None = None, where: str = "cmdline") -> list[int]:
    """Pids of live processes (other than ``exclude``) whose command line (or, with
    ``where="environ"``, environment) contains ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        text, fields = proc_text(int(entry), where), stat_fields(int(entry))
        if text is None or fields is None:
            continue
        if marker in text and fields[0] != "Z" and int(entry) != exclude:
            found.append(int(entry))
    return found


def tree_cpu(pid: int) -> float:
    """CPU seconds used so far by ``pid`` and every live process below it (from /proc)."""
    from arena.procfs import process_tree

    ticks = 0
    for member in process_tree(pid):
        fields = stat_fields(member)
        if fields is not None:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def recorded(log_dir, seat: int, name: str) -> str:
    """What a ``record NAME`` bot in ``seat`` recorded: its stdout logs under ``log_dir``
    (each match's in turn, by folder), whole (nothing a bot writes in its scratch folder
    outlives it: only its logs)."""
    logs = sorted(log_dir.rglob(f"seat{seat}-*.stdout"))
    text = "".join(path.read_text() for path in logs)
    assert logs and "[ttr-arena:" not in text, f"the recording of {name} was cut by the cap"
    return text


def stderr_of(log_dir, seat: int) -> str:
    """What the bot in ``seat`` wrote to stderr (its capped log under ``log_dir``)."""
    (path,) = log_dir.rglob(f"seat{seat}-*.stderr")
    return path.read_text(errors="replace")


# A process told to go is gone within seconds; a loaded machine may take several to reap
# it. What the checks below guard against is a process that lives on (minutes or for ever).
REAPED_WITHIN_S = 30.0


def left_behind(marker: str, where: str = "cmdline", exclude: int | None = None) -> list[int]:
    """The processes with ``marker`` still alive after waiting up to ``REAPED_WITHIN_S``
    for them to go: [] as soon as none is left."""
    deadline = time.monotonic() + REAPED_WITHIN_S
    while (found := processes_with(marker, exclude, where)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found
