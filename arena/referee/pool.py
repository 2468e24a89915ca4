"""Warm bot processes: each started once, sandboxed as always, and seated in match after match.

Starting a bot process (its sandbox, its interpreter, its imports) costs far more
than most matches, so a tournament worker keeps the processes of the matches it
played and seats them again. A process keeps its endpoint and its connection
(one hello, long ago); each match opens with a ``welcome`` naming its new seat,
and everything the bot is told in it (seed, game id, request numbers) is derived
under that match's key as for a fresh process.

A process goes back to the pool only after a match it finished without a fault,
still connected. It is replaced instead (never charged: between matches nothing
counts in a match):

- after any fault charged to it (the referee stops it, as always);
- after ``matches_per_process`` matches;
- when it has used half its CPU-time limit, or holds more than half its memory
  limit: counted for its whole cgroup where it has one (every process it started,
  the pages of its memory-backed files), else for its largest process
  (``ProcessLimits``; the per-process limits leave a warm process at least half
  of each for every match);
- when it did anything between matches: exited, sent a message, opened or lost
  a connection — so nothing of an earlier match ever reaches a later one;
- when the pool holds more than ``MAX_IDLE`` idle processes (the oldest goes).

A bot marked ``fresh_process`` gets a new process for every match. A warm process
is frozen while it waits in the pool (``BotProcess.freeze``: it was frozen when its
last turn passed), so nothing it started computes between matches.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import zmq

from arena.procfs import owner_gone, owner_tag
from arena.referee.faults import DEFAULT_MATCHES_PER_PROCESS
from arena.referee.hub import SeatLink, close_link
from arena.referee.process import BotProcess, ProcessLimits
from protocols.messages import Bye, encode

MAX_IDLE = 16  # idle processes per pool (per worker); beyond it the least recently used go
RETIRE_GRACE_S = 1.0  # a retired process gets this long to leave on its own after 'bye'
LIMIT_SHARE = 0.5  # a process past this share of its CPU or memory limit is replaced
FOLDER_PREFIX = "ttr-arena-pool-"  # then the owner's tag (procfs.owner_tag)


def sweep_folders() -> None:
    """Remove the pool folders (endpoints) in the temporary folder whose worker is gone: a
    worker killed by SIGKILL cannot remove its own, as a killed referee cannot remove its
    bots' cgroups (``cgroup.sweep``). Called by every new pool, so the next worker or
    driver to start does it."""
    for folder in Path(tempfile.gettempdir()).glob(f"{FOLDER_PREFIX}*"):
        if owner_gone(folder.name[len(FOLDER_PREFIX) :]):
            shutil.rmtree(folder, ignore_errors=True)


@dataclass
class WarmBot:
    """A started, connected bot process between two matches."""

    process: BotProcess
    link: SeatLink
    matches: int = 0  # matches it has finished


PoolKey = tuple[object, ProcessLimits]  # (the bot's entry, the limits it was started with)


class BotPool:
    """The idle warm processes of one worker, by bot and limits. Close it when done: every
    process it holds is stopped (they also die with the worker: ``PR_SET_PDEATHSIG``)."""

    def __init__(self, matches_per_process: int = DEFAULT_MATCHES_PER_PROCESS) -> None:
        self.matches_per_process = matches_per_process
        self.context = zmq.Context()
        sweep_folders()
        self.ipc_dir = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{owner_tag()}-")
        self.idle: OrderedDict[int, tuple[PoolKey, WarmBot]] = OrderedDict()
        self._next = 0
        self.started = 0  # processes seated fresh (counted by ProcessMatch)
        self.reused = 0  # seatings of a warm process

    def keeps(self, fresh_process: bool) -> bool:
        """Whether a process of a bot may be kept after a match at all."""
        return not fresh_process and self.matches_per_process > 1

    def take(self, key: PoolKey) -> WarmBot | None:
        """An idle process of ``key`` fit for a match, or None (start a fresh one)."""
        for slot, (held, warm) in list(self.idle.items()):
            if held != key:
                continue
            del self.idle[slot]
            if quiet(warm):
                self.reused += 1
                return warm
            retire(warm)
        return None

    def give(self, key: PoolKey, warm: WarmBot) -> None:
        """Take back a process that finished a match cleanly; retire it if it is due."""
        warm.matches += 1
        if warm.matches >= self.matches_per_process or near_limits(warm.process):
            retire(warm)
            return
        self.idle[self._next] = (key, warm)
        self._next += 1
        while len(self.idle) > MAX_IDLE:
            retire(self.idle.popitem(last=False)[1][1])

    def close(self, grace: float = RETIRE_GRACE_S) -> None:
        """Say ``bye`` to every idle process, give them ``grace`` seconds together to
        leave, stop them; close the endpoints."""
        leaving = [warm for _, warm in self.idle.values()]
        self.idle.clear()
        for warm in leaving:
            say_bye(warm.link)
        deadline = time.monotonic() + grace
        for warm in leaving:
            retire(warm, max(0.0, deadline - time.monotonic()))
        self.context.destroy(linger=0)
        shutil.rmtree(self.ipc_dir, ignore_errors=True)

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        self.close(RETIRE_GRACE_S if kind is None else 0.0)


def pool_key(entry: object, limits: ProcessLimits) -> PoolKey:
    """Processes are shared by bots started the same way: same entry, same limits."""
    return (entry, limits)


def quiet(warm: WarmBot) -> bool:
    """Alive, still connected, and silent since its last match (no message, no connection
    opened or lost)."""
    link = warm.link
    if not warm.process.alive() or link.closed:
        return False
    if int(link.socket.getsockopt(zmq.EVENTS)) & zmq.POLLIN:
        return False
    return not link.monitor.poll(0)


def near_limits(process: BotProcess) -> bool:
    """Whether a process has used half of its CPU-time or memory limit (its whole cgroup's
    use, where it has one: ``BotProcess.usage``)."""
    limits, used = process.limits, process.usage()
    if limits.cpu_seconds and used.cpu_seconds >= limits.cpu_seconds * LIMIT_SHARE:
        return True
    return bool(limits.memory_mb and used.memory_mb >= limits.memory_mb * LIMIT_SHARE)


def say_bye(link: SeatLink) -> None:
    if not link.closed and link.identity is not None:
        with contextlib.suppress(zmq.ZMQError):
            link.socket.send_multipart([link.identity, encode(Bye())], flags=zmq.NOBLOCK)


def retire(warm: WarmBot, grace: float = RETIRE_GRACE_S) -> None:
    """Say ``bye``, give it ``grace`` seconds to leave, stop it, close its endpoint."""
    say_bye(warm.link)
    warm.process.stop(grace)
    if not warm.link.closed:
        close_link(warm.link)
