"""Fault injection that only tests switch on: a process stalls, or kills itself, at a chosen
point, so a test can disturb it exactly there, whatever the machine's speed.

Each hook is named by an environment variable (a marker path, or a step number); unset
(always, outside the tests) it does nothing. A stalled process writes its pid into the
marker; the test waits for it and kills that process: the victim is chosen by its state (it
is inside the step), never by timing. ``RayExecutor`` forwards these variables to its
tasks, so the hooks work on a cluster too."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

STALL_IN_TRANSACTION = "ARENA_CHAOS_STALL_IN_TRANSACTION"
STALL_IN_MATCH = "ARENA_CHAOS_STALL_IN_MATCH"
KILL_AT_STEP = "ARENA_CHAOS_KILL_AT_STEP"
KILL_IN_MATCH = "ARENA_CHAOS_KILL_IN_MATCH"
SLOW_COPY = "ARENA_CHAOS_SLOW_COPY"
PREFIX = "ARENA_CHAOS_"
STALL_SECONDS = 600


def forwarded() -> dict[str, str]:
    """The hooks set in this process, for the processes it has play matches elsewhere."""
    return {name: value for name, value in os.environ.items() if name.startswith(PREFIX)}


def _claim(marker: str, what: str) -> bool:
    """Create ``marker`` (it must not exist yet) holding this pid and ``what``; False when
    another process (or an earlier attempt) has already claimed it."""
    try:
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as file:
        file.write(f"{os.getpid()} {what}\n")
    return True


def stall_in_transaction() -> None:
    """The store's writer, inside a match's transaction: with ``STALL_IN_TRANSACTION=PATH``
    it writes PATH and stalls, so the test can kill it there."""
    marker = os.environ.get(STALL_IN_TRANSACTION)
    if marker and _claim(marker, "transaction"):
        time.sleep(STALL_SECONDS)


def stall_in_match(index: int) -> None:
    """A worker playing a match, its bots started and greeted: with ``STALL_IN_MATCH=PATH``
    the first worker here claims PATH (its pid and the match's index) and stalls; the
    match's retry, and every other match, find PATH taken and play on."""
    marker = os.environ.get(STALL_IN_MATCH)
    if marker and _claim(marker, str(index)):
        time.sleep(STALL_SECONDS)


def kill_in_match(index: int) -> None:
    """A worker playing a match, its bots started and greeted: with
    ``KILL_IN_MATCH=INDEX:TIMES:FOLDER`` the worker playing match INDEX kills itself
    (SIGKILL, as a lost machine or ``kill -9`` would) at each of that match's first TIMES
    attempts, each claimed as ``FOLDER/death-INDEX-K`` (its pid); later attempts play on.
    Several matches: entries joined by ``,``. A test of a match whose worker keeps dying
    then needs no race with a killer of its own."""
    value = os.environ.get(KILL_IN_MATCH)
    if not value:
        return
    for entry in value.split(","):
        wanted, times, folder = entry.split(":", 2)
        if int(wanted) != index:
            continue
        for death in range(1, int(times) + 1):
            if _claim(os.path.join(folder, f"death-{index}-{death}"), str(index)):
                os.kill(os.getpid(), signal.SIGKILL)


_steps_taken = 0


def kill_at_step() -> None:
    """A step that changes the data folder while a store file is replaced or copied
    (``storecare``): with ``KILL_AT_STEP=N`` the process kills itself (SIGKILL, as ``kill -9``
    would) just before its Nth such step, so a test can try every step in turn."""
    global _steps_taken
    wanted = os.environ.get(KILL_AT_STEP)
    if not wanted:
        return
    _steps_taken += 1
    if _steps_taken == int(wanted):
        os.kill(os.getpid(), signal.SIGKILL)


def slow_copy() -> dict[str, Any]:
    """The pace of a store's online copy (``sqlite3.Connection.backup``'s options): with
    ``SLOW_COPY=PATH:SECONDS`` one page a step and a pause of SECONDS after each, PATH
    claimed (this pid) at the first step, so a test can kill the process mid-copy; unset,
    the whole store in one step."""
    value = os.environ.get(SLOW_COPY)
    if not value:
        return {}
    marker, seconds = value.rsplit(":", 1)

    def pause(status: int, remaining: int, total: int) -> None:
        _claim(marker, "copy")
        time.sleep(float(seconds))

    return {"pages": 1, "progress": pause}


def claimed(marker: str) -> tuple[int, str] | None:
    """The pid and step written by the process stalled at ``marker``; None until then."""
    try:
        text = Path(marker).read_text()
    except FileNotFoundError:
        return None
    if not text.endswith("\n"):  # still being written
        return None
    pid, what = text.split(maxsplit=1)
    return int(pid), what.strip()
