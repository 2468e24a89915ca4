"""Who is driving a tournament: one driver per tournament, named by host, pid and start time.

The store keeps one lease row per running tournament. A second driver reads
the row and refuses, naming the first, unless that driver is gone: on the same
host a process is gone when its pid no longer runs the same process (the start
time guards against a reused pid); on another host, when it has not renewed
its lease for ``STALE_SECONDS``.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass

from arena.procfs import process_start

STALE_SECONDS = 60.0  # a lease of another host not renewed for this long is abandoned
RENEW_SECONDS = 10.0  # how often a running driver renews its lease


@dataclass(frozen=True)
class Holder:
    """The driver holding a lease."""

    host: str
    pid: int
    started: str  # process_start(pid) on host
    since: float  # when it took the lease
    heartbeat: float  # when it last renewed it

    @classmethod
    def me(cls) -> Holder:
        now = time.time()
        return cls(socket.gethostname(), os.getpid(), process_start(os.getpid()), now, now)

    def same_process(self, other: Holder) -> bool:
        return (self.host, self.pid, self.started) == (other.host, other.pid, other.started)

    def is_gone(self, now: float | None = None) -> bool:
        """True when this holder can no longer be driving (so its lease may be taken over)."""
        if self.host == socket.gethostname() and self.started:
            return process_start(self.pid) != self.started
        return (now or time.time()) - self.heartbeat > STALE_SECONDS

    def describe(self) -> str:
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.since))
        return f"pid {self.pid} on {self.host} (since {since})"
