"""Helpers for the durability tests: the ``arena`` command as a user runs it, small disks,
read-only folders, damaged files."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.procfs import stat_fields
from arena.tournament.results import MatchResult
from tests.journey import ARENA, Journey, Outcome

__all__ = ["ARENA", "arena", "one_line"]

IS_ROOT = os.geteuid() == 0 and shutil.which("mount") is not None


def arena(
    *args, data_dir: Path | None = None, cwd: Path | None = None, timeout: float = 600, env=None
) -> Outcome:
    """Run ``arena ARGS`` as a user does (with ``--data-dir`` and, for a tournament,
    ``--no-progress``) in ``cwd``."""
    extra = ["--data-dir", str(data_dir)] if data_dir is not None else []
    if args[:2] == ("tournament", "run"):
        extra.append("--no-progress")
    journey = Journey(cwd or Path.cwd())
    journey.env.update(env or {})
    return journey(*args, *extra, timeout=timeout)


def one_line(out: Outcome) -> str:
    """The one ``error: ...`` line of a failed command (and never a traceback)."""
    return out.one_line_error()


def tournament(name: str, games: int = 3, *extra: str) -> tuple[str, ...]:
    """A small round robin of two built-in bots, played in process (fast; the store is the
    point of these tests)."""
    return (
        "tournament", "run", "--name", name, "--bot", "random", "--bot", "ticket-by-ticket",
        "--players", "2", "--games", str(games), "--seed", "3", "--in-process", *extra,
    )  # fmt: skip


def seats_csv(data_dir: Path, out: Path) -> bytes:
    result = arena("results", "--out", str(out), data_dir=data_dir)
    assert result.code == 0, result.text
    return out.read_bytes()


def _mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True, capture_output=True)


def _unmount(path: Path) -> None:
    for _ in range(50):  # busy while a process still holds a file there
        if subprocess.run(["umount", str(path)], capture_output=True).returncode == 0:
            return
        time.sleep(0.1)
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


@contextlib.contextmanager
def small_disk(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` at ``path`` (a real 'no space left on device'); needs root."""
    if not IS_ROOT:
        pytest.skip("mounting a small tmpfs needs root")
    path.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path))
    try:
        yield path
    finally:
        _unmount(path)


def resize(disk: Path, size: str) -> None:
    _mount("-o", f"remount,size={size}", str(disk))


def nearly_fill(disk: Path, room_kb: int = 48) -> None:
    """Shrink the tmpfs at ``disk`` to what it holds plus ``room_kb``, while a writer goes on
    writing there (tmpfs refuses a size below what it holds: measure again and retry)."""
    for _ in range(50):
        used = shutil.disk_usage(disk).used
        try:
            resize(disk, f"{used // 1024 + room_kb}k")
            return
        except subprocess.CalledProcessError:
            time.sleep(0.02)
    raise AssertionError(f"could not shrink {disk}: it kept growing")


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """``folder`` made read-only: a read-only bind mount as root (root ignores permission
    bits), else its permission bits."""
    if IS_ROOT:
        _mount("--bind", str(folder), str(folder))
        try:
            _mount("-o", "remount,bind,ro", str(folder))
            yield folder
        finally:
            _unmount(folder)
        return
    modes = {p: p.stat().st_mode for p in [folder, *folder.rglob("*")]}
    for path in modes:
        path.chmod(modes[path] & ~0o222)
    try:
        yield folder
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def folder_state(folder: Path) -> dict[str, bytes]:
    """Every file's bytes under ``folder`` (to show a reader changed nothing)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def writing_into(folder: str) -> set[int]:
    """The processes holding a file under ``folder`` open: a match's referee (its worker)
    writes its bots' logs there, whatever containment the bots run in."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                for fd in os.listdir(f"/proc/{entry}/fd"):
                    with contextlib.suppress(OSError):
                        if os.readlink(f"/proc/{entry}/fd/{fd}").startswith(folder):
                            found.add(int(entry))
                            break
    return found


def parent_of(pid: int) -> int | None:
    """The parent's pid of a live process (None once it is gone)."""
    fields = stat_fields(pid)
    return int(fields[1]) if fields is not None else None


def workers_writing_into(folder: str) -> set[int]:
    """The workers holding a file under ``folder`` open, without their children (a bot
    between fork and exec still holds its worker's files)."""
    holders = writing_into(folder)
    return {pid for pid in holders if parent_of(pid) not in holders}


def two_player_match(idx: int, bots: list[str]) -> MatchResult:
    """A plausible stored two-player USA match, drawn from ``idx``: two of ``bots``, one
    winning (for tests that need many matches without playing them)."""
    rng = random.Random(idx)
    ranks = (1, 2) if rng.random() < 0.5 else (2, 1)
    return MatchResult(
        idx=idx, variant="usa", seed=idx, bots=tuple(rng.sample(bots, 2)),
        scores=(100 - 10 * ranks[0], 100 - 10 * ranks[1]), ranks=ranks, engine_ranks=ranks,
        faults=(None, None), breakdown=({}, {}), decisions=300, seconds=0.1, worker="test",
    )  # fmt: skip
