"""Keeping the competition's worker process alive: the web process starts it, reaps it when it
dies (a ``kill -9``, a crash, the out-of-memory killer) and starts a new one.

A worker that dies is started again after a delay that doubles from ``FIRST_DELAY`` to
``MAX_DELAY``, and falls back to ``FIRST_DELAY`` once a worker has stayed up for
``STEADY_SECONDS``: a worker that keeps dying is retried slowly, never in a tight loop,
and is reported (``failing``) on the admin page and in ``server.log``. The new worker
resumes every board as a restarted server does: the dead one's unfinished matches are
planned and not stored, so they are played again, charged to no bot; its ladder leases
name a process that is gone (reaped here at once), so the new worker takes them over
without waiting.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

log = logging.getLogger("arena.host")

# ARENA_HOST_RESTART_SECONDS: the first delay (longer in a test that watches the gap).
FIRST_DELAY = float(os.environ.get("ARENA_HOST_RESTART_SECONDS", "1"))
MAX_DELAY = max(60.0, FIRST_DELAY)
STEADY_SECONDS = 120.0  # a worker up this long is healthy again: the next delay is the first
FAILING_AFTER = 5  # deaths in a row (each before STEADY_SECONDS) that make it "failing"
STOP_SECONDS = 30.0  # a stopping worker's time to release its leases before SIGKILL


def exit_text(code: int) -> str:
    """How a process ended, from Popen's return code: 'exit status 1', 'killed by SIGKILL'."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


@dataclass(frozen=True)
class Death:
    """One death of the worker: when (wall clock), how, and how long it had been up."""

    when: float
    how: str
    uptime: float


@dataclass(frozen=True)
class WorkerState:
    """What the admin page, /readyz and /metrics show of the worker."""

    pid: int | None  # the running worker's, None between a death and the next start
    started: float | None  # when the running worker started (wall clock)
    starts: int  # workers started since the server started (the first one included)
    deaths: int  # deaths since the server started (a stop asked for is not one)
    last_death: Death | None
    next_start: float | None  # when the next worker starts, while none runs
    failing: bool  # died FAILING_AFTER times in a row: retried every MAX_DELAY

    @property
    def alive(self) -> bool:
        return self.pid is not None

    @property
    def restarts(self) -> int:
        return max(0, self.starts - 1)


class Supervisor:
    """Runs ``command`` (the worker) in a thread of its own: started at once by ``start``,
    started again after each death, stopped (SIGTERM, then SIGKILL) by ``stop``."""

    def __init__(
        self,
        command: Sequence[str],
        first_delay: float = FIRST_DELAY,
        max_delay: float = MAX_DELAY,
        steady_seconds: float = STEADY_SECONDS,
    ) -> None:
        self.command = list(command)
        self.first_delay, self.max_delay = first_delay, max_delay
        self.steady_seconds = steady_seconds
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.process: subprocess.Popen | None = None
        self.started: float | None = None
        self.starts = 0
        self.deaths = 0
        self.in_a_row = 0
        self.last_death: Death | None = None
        self.next_start: float | None = None
        self.delays: list[float] = []  # each wait before a start again, in order (the log's)
        self.thread = threading.Thread(target=self._watch, name="worker-supervisor", daemon=True)

    def start(self) -> None:
        self._spawn()
        self.thread.start()

    def state(self) -> WorkerState:
        with self.lock:
            process = self.process
            return WorkerState(
                pid=process.pid if process is not None else None,
                started=self.started if process is not None else None,
                starts=self.starts,
                deaths=self.deaths,
                last_death=self.last_death,
                next_start=self.next_start,
                failing=self.in_a_row >= FAILING_AFTER,
            )

    def stop(self) -> None:
        """Stop the worker (it releases its leases on SIGTERM) and start no other."""
        self.stopping.set()
        with self.lock:
            process = self.process
        if process is not None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            try:
                process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                process.wait()
        if self.thread.is_alive():
            self.thread.join(STOP_SECONDS)
        with self.lock:
            self.process = None

    def _spawn(self) -> None:
        with self.lock:  # under the lock: ``stop`` sees this worker, or this sees the stop
            if self.stopping.is_set():
                return
            try:
                process: subprocess.Popen | None = subprocess.Popen(
                    self.command, start_new_session=True
                )
            except OSError as error:  # no memory, no processes left: a death like any other
                log.error("the worker could not start: %s", error)
                process = None
            self.process = process
            self.started = time.time()
            self.next_start = None
            if process is not None:
                self.starts += 1
        if process is not None and self.starts == 1:
            log.info("worker started (pid %d)", process.pid)
        elif process is not None:
            log.info(
                "worker restarted (pid %d, restart %d)",
                process.pid,
                self.starts - 1,
                extra={"fields": {"event": "worker_restarted", "pid": process.pid}},
            )

    def _watch(self) -> None:
        delay = self.first_delay
        while not self.stopping.is_set():
            with self.lock:
                process, started = self.process, self.started or time.time()
            code = process.wait() if process is not None else 1  # reaps: no zombie stays
            if self.stopping.is_set():
                return
            uptime = time.time() - started
            if uptime >= self.steady_seconds:
                delay, in_a_row = self.first_delay, 1
            else:
                in_a_row = self.in_a_row + 1
            if in_a_row >= FAILING_AFTER:
                delay = self.max_delay  # keeps dying: retried slowly
            death = Death(time.time(), exit_text(code), uptime)
            with self.lock:
                self.process = None
                self.deaths += 1
                self.in_a_row = in_a_row
                self.last_death = death
                self.next_start = time.time() + delay
                self.delays.append(delay)
            fields = {
                "event": "worker_died",
                "pid": process.pid if process is not None else None,
                "how": death.how,
                "uptime_seconds": round(uptime, 1),
                "deaths": self.deaths,
                "restart_in_seconds": delay,
            }
            if in_a_row >= FAILING_AFTER:
                log.error(
                    "the worker keeps dying (%d times in a row, last: %s): retried every %.0f s;"
                    " see the errors above in server.log",
                    in_a_row,
                    death.how,
                    delay,
                    extra={"fields": fields},
                )
            else:
                log.warning(
                    "the worker died (%s after %.0f s up): restarted in %.0f s",
                    death.how,
                    uptime,
                    delay,
                    extra={"fields": fields},
                )
            if self.stopping.wait(delay):
                return
            delay = min(delay * 2, self.max_delay)
            self._spawn()
