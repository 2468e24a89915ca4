"""Tournament benchmark: matches per minute, 4 external random bots on USA.

    python benchmarks/tournament.py [--matches 24]

Runs the same matches with the local executor and with a local Ray, each with
1 and 2 workers, and reports matches per minute, the scaling from 1 to 2
workers, and Ray's overhead over local. Every match starts its own referee
and four bot processes. Executor start-up (the worker pool, Ray's processes)
is excluded: a warm-up round runs first.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry
from arena.referee.process import ProcessLimits
from arena.tournament.executors import LocalExecutor, RayExecutor
from arena.tournament.matchrun import MatchTask
from arena.tournament.schedule import MatchSpec, derive_seed


def tasks(count: int, log_dir: str, offset: int = 0) -> list[MatchTask]:
    entry = BotEntry.parse("random")
    return [
        MatchTask(
            tournament="bench",
            variant="usa",
            match=MatchSpec(i, derive_seed(0, i + offset), ("random",) * 4),
            entries=(entry,) * 4,
            labels=("random",) * 4,
            time_control=TimeControl(move_ms=5000, bank_ms=60000),
            limits=ProcessLimits(),
            log_dir=log_dir,
        )
        for i in range(count)
    ]


class Collect:
    """The executor's sink: keeps every result; a failed match fails the benchmark."""

    def __init__(self) -> None:
        self.results: list = []

    def result(self, result) -> None:
        self.results.append(result)

    def failed(self, task, attempts: int, reason: str) -> None:
        raise RuntimeError(f"match {task.match.index} failed: {reason}")

    def tick(self) -> bool:
        return True


def measure(executor, count: int, log_dir: str) -> float:
    executor.run(tasks(executor_warmup(executor), log_dir, offset=10_000), Collect())
    done = Collect()
    start = time.perf_counter()
    executor.run(tasks(count, log_dir), done)
    elapsed = time.perf_counter() - start
    assert len(done.results) == count
    assert not any(f is not None for r in done.results for f in r.faults)
    return count / elapsed * 60


def executor_warmup(executor) -> int:
    return getattr(executor, "workers", 2) or 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=24)
    args = parser.parse_args()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    rates: dict[tuple[str, int], float] = {}
    with tempfile.TemporaryDirectory() as log_dir:
        for workers in (1, 2):
            local = LocalExecutor(workers)
            try:
                rates["local", workers] = measure(local, args.matches, log_dir)
            finally:
                local.close()
        for workers in (1, 2):
            ray_executor = RayExecutor(None, workers)
            ray_executor.workers = workers
            try:
                rates["ray", workers] = measure(ray_executor, args.matches, log_dir)
            finally:
                ray_executor.close()
    print(
        f"tournament benchmark: {args.matches} 4-player USA matches, 4 random-bot processes "
        f"each, {os.cpu_count()} cores"
    )
    for (kind, workers), rate in rates.items():
        print(f"  {kind:5s} {workers} worker{'s' if workers > 1 else ' '}  {rate:7.1f} matches/min")
    for kind in ("local", "ray"):
        print(f"  {kind:5s} scaling 1 -> 2 workers: {rates[kind, 2] / rates[kind, 1]:.2f}x")
    for workers in (1, 2):
        overhead = rates["local", workers] / rates["ray", workers] - 1
        print(f"  Ray overhead over local, {workers} worker(s): {overhead * 100:+.0f}%")


if __name__ == "__main__":
    main()
