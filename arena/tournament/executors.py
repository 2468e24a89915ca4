"""Executors play match tasks in parallel and hand each result to the driver as it finishes.

``LocalExecutor`` keeps a pool of local worker processes, one match each at a
time, each with its own pool of warm bot processes (``arena/referee/pool.py``);
``RayExecutor`` (``arena/tournament/rayexec.py``) does the same with Ray actors, on
a local Ray or on a cluster. Both count, per match, the times its worker died
(or the arena failed while playing it): a match is retried up to
``MAX_ATTEMPTS`` times, then reported as failed (an arena fault) and the
tournament goes on. Results arrive in completion order; the store makes the
order irrelevant.

The driver talks to an executor through a ``Sink``: ``result`` and ``failed``
for each match, and ``tick``, called at least twice a second, which returns
False to stop at once (Ctrl-C, SIGTERM): the executor then starts nothing more,
stops the matches in flight with their bots, and returns.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import time
import weakref
from collections import Counter, deque
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from typing import Protocol

import msgspec

from arena import deferred_exit
from arena.procfs import child_pids, held_groups, kill_groups
from arena.referee.pool import BotPool
from arena.referee.process import die_with_parent
from arena.tournament.matchrun import MatchTask, play_match
from arena.tournament.results import MatchResult

MAX_ATTEMPTS = 3
TICK_SECONDS = 0.25
STOP_GRACE_SECONDS = 2.0  # a stopped match's referee gets this long to reap its bots


class Sink(Protocol):
    """Where an executor delivers what happens to each match."""

    def result(self, result: MatchResult) -> None: ...

    def failed(self, task: MatchTask, attempts: int, reason: str) -> None: ...

    def tick(self) -> bool: ...


class ExecutorError(RuntimeError):
    """The executor cannot go on (its cluster is unreachable or lost); one line, with what to do."""


def _raise_exit(*_: object) -> None:
    raise SystemExit(143)


def _worker_main(conn: Connection, parent: int) -> None:
    """A pool worker: play the matches the driver sends, one at a time, until told to stop,
    keeping the bot processes of each match warm for the next ones (``BotPool``).

    It runs in a session of its own, so a Ctrl-C or SIGTERM sent to the terminal's process
    group reaches the driver only: the driver decides, and stops a worker with SIGTERM,
    which unwinds the match so its referee reaps its bots. (SIGINT stays ignored.)"""
    os.setsid()
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _raise_exit)
    deferred_exit.install()  # a SIGTERM landing while a bot process forks still stops it
    with BotPool() as pool:  # its warm bot processes: stopped when the worker ends
        while True:
            try:
                task = conn.recv()
            except (EOFError, OSError):
                return
            if task is None:
                return
            try:
                outcome: tuple[str, object] = ("ok", play_match(task, pool))
            except Exception as error:  # an arena failure in this match: reported, counted
                outcome = ("error", f"{type(error).__name__}: {error}")
            conn.send(outcome)


class _Worker:
    """One pool process and the match it is playing."""

    def __init__(self, context: multiprocessing.context.SpawnContext) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=_worker_main, args=(child, os.getpid()), name="arena-worker", daemon=True
        )
        # Started with SIGINT ignored, so even a Ctrl-C during its start-up cannot print
        # a traceback from it (an ignored signal stays ignored across exec).
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            self.process.start()
        finally:
            signal.signal(signal.SIGINT, previous)
        child.close()
        self.task: MatchTask | None = None

    def stop(self) -> list[tuple[int, int | None]]:
        """Ask the worker to end its match (its referee stops the bots); returns the bots,
        held by pidfd (``procfs.held_groups``), so that their process groups can be killed
        if the worker must be killed."""
        pid = self.process.pid
        if pid is None:  # never started
            return []
        bots = held_groups(child_pids(pid))
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        return bots


class LocalExecutor:
    """``workers`` local processes, each running one match (its referee and bots) at a time."""

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)
        self.context = multiprocessing.get_context("spawn")
        self.pool: list[_Worker] = []  # changed in place: the finalizer below holds it
        # Not closed (a script that drops it): its workers are told to end when it is
        # collected or Python exits, so their warm bot processes do not live on with them.
        weakref.finalize(self, _release, self.pool)

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, tasks: Sequence[MatchTask], sink: Sink) -> None:
        """Play every task (retrying a match whose worker died); returns early if
        ``sink.tick()`` says stop. Anything raised by the sink stops the pool first."""
        queue = deque(tasks)
        failures: Counter[tuple[str, int]] = Counter()  # per match: deaths and arena errors
        try:
            while queue or any(w.task is not None for w in self.pool):
                self._dispatch(queue)
                busy = [w for w in self.pool if w.task is not None]
                handles = [w.conn for w in busy] + [w.process.sentinel for w in busy]
                ready = set(wait(handles, timeout=TICK_SECONDS))
                for worker in busy:
                    if worker.conn in ready or worker.process.sentinel in ready:
                        self._collect(worker, queue, failures, sink)
                if not sink.tick():
                    self.abort()
                    return
        except BaseException:
            self.abort()
            raise

    def _dispatch(self, queue: deque[MatchTask]) -> None:
        self.pool[:] = [w for w in self.pool if w.process.is_alive() or w.task is not None]
        while len(self.pool) < min(self.workers, len(queue) + self._busy()):
            self.pool.append(_Worker(self.context))
        for worker in self.pool:
            if worker.task is None and queue:
                worker.task = queue.popleft()
                with contextlib.suppress(OSError):  # it died idle: collected as a death
                    worker.conn.send(worker.task)

    def _busy(self) -> int:
        return sum(w.task is not None for w in self.pool)

    def _collect(
        self, worker: _Worker, queue, failures: Counter[tuple[str, int]], sink: Sink
    ) -> None:
        task = worker.task
        assert task is not None
        worker.task = None
        try:
            kind, payload = worker.conn.recv() if worker.conn.poll() else ("died", None)
        except Exception:  # the worker died while sending
            kind, payload = "died", None
        if kind == "ok":
            assert payload is not None  # a finished match sends its result
            sink.result(
                msgspec.structs.replace(
                    payload, attempts=failures[task.tournament, task.match.index] + 1
                )
            )
            return
        if kind == "died":
            worker.process.join(5)
            self.pool.remove(worker)
            reason = f"its worker process died (exit status {worker.process.exitcode})"
        else:
            reason = f"the arena failed while playing it ({payload})"
        failures[task.tournament, task.match.index] += 1
        attempts = failures[task.tournament, task.match.index]
        if attempts < MAX_ATTEMPTS:
            queue.appendleft(task)
        else:
            sink.failed(task, attempts, f"{attempts} attempts failed; the last: {reason}")

    def abort(self) -> None:
        """Stop every worker now: matches in flight are abandoned, their bots reaped."""
        bots: list[tuple[int, int | None]] = []
        for worker in self.pool:
            if worker.process.is_alive():
                bots += worker.stop()
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for worker in self.pool:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(2)
            worker.conn.close()
        kill_groups(bots)  # each bot leads its own process group: its children go with it
        self.pool.clear()

    def close(self) -> None:
        for worker in self.pool:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
        for worker in self.pool:
            worker.process.join(5)
        self.abort()


def _release(workers: list[_Worker]) -> None:
    """Tell idle workers to end (they stop their warm bot processes on the way out)."""
    for worker in workers:
        with contextlib.suppress(OSError, ValueError):
            worker.conn.send(None)
