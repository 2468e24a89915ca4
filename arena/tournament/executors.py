"""Executors run match tasks in parallel and hand back each record as it finishes.

``LocalExecutor`` uses a pool of local worker processes; ``RayExecutor`` runs
each match as a Ray task, on a local Ray or on a cluster. Both retry a match
whose worker died. Results are delivered in completion order; the store
makes the order irrelevant.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
from collections.abc import Callable, Sequence
from dataclasses import replace

from arena.referee.process import die_with_parent
from arena.tournament.matchrun import MatchTask, play_match
from arena.tournament.store import MatchRecord

MAX_ATTEMPTS = 3
OnResult = Callable[[MatchRecord], None]


class MatchFailed(RuntimeError):
    """A match could not be played after every retry."""


class LocalExecutor:
    """``workers`` local processes, each running one match (its referee and bots) at a time."""

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)

    def run(self, tasks: Sequence[MatchTask], on_result: OnResult) -> None:
        attempts = {task.match.index: 0 for task in tasks}
        todo = list(tasks)
        while todo:
            for task in todo:
                if attempts[task.match.index] >= MAX_ATTEMPTS:
                    raise MatchFailed(
                        f"match {task.match.index}: its worker died {MAX_ATTEMPTS} times"
                    )
                attempts[task.match.index] += 1
            context = multiprocessing.get_context("spawn")
            delivered: set[int] = set()
            with cf.ProcessPoolExecutor(
                self.workers,
                mp_context=context,
                initializer=die_with_parent,
                initargs=(os.getpid(),),
            ) as pool:
                futures = {pool.submit(play_match, task): task for task in todo}
                try:
                    for future in cf.as_completed(futures):
                        task = futures[future]
                        record = future.result()
                        delivered.add(task.match.index)
                        on_result(replace(record, attempts=attempts[task.match.index]))
                except cf.process.BrokenProcessPool:
                    pass  # a worker died (killed, out of memory): retry what is unfinished
            todo = [task for task in todo if task.match.index not in delivered]

    def close(self) -> None:
        pass


class RayExecutor:
    """Matches as Ray tasks: ``address=None`` starts a local Ray, else joins that cluster."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        import ray

        self.ray = ray
        self.started_here = not ray.is_initialized()
        if self.started_here:
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        # A task whose worker process dies is retried by Ray itself.
        self.remote = ray.remote(num_cpus=1, max_retries=MAX_ATTEMPTS - 1)(play_match)

    def run(self, tasks: Sequence[MatchTask], on_result: OnResult) -> None:
        pending = {self.remote.remote(task): task for task in tasks}
        while pending:
            done, _ = self.ray.wait(list(pending), num_returns=1)
            for ref in done:
                task = pending.pop(ref)
                try:
                    record = self.ray.get(ref)
                except self.ray.exceptions.RayError as error:
                    raise MatchFailed(f"match {task.match.index}: {error}") from None
                on_result(record)

    def close(self) -> None:
        if self.started_here:
            self.ray.shutdown()
