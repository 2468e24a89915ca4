"""Tournament benchmark: matches per minute of external bots against the same matches
played in process, side by side.

    python benchmarks/tournament.py [--matches 24] [--fresh-matches 8] [--rounds 5]
                                    [--workers 2] [--bot random] [--ray]

Three ways of running the same 4-player USA matches of ``--bot`` (default: the random
bot, whose decisions cost next to nothing: the worst case for a process), each on
its own local executor with ``--workers`` workers, alternated round after round:

- ``in-process``: the bots called directly (``--in-process``): the reference;
- ``warm``: every seat a sandboxed bot process, kept warm by the worker's pool
  between matches (the default of a tournament);
- ``fresh``: a new bot process for every seat of every match
  (``--matches-per-process 1``).

Each round plays the same matches in each way (the order of the ways rotates
from round to round); it prints every round's ratios to in-process and their
medians. Start-up (workers, and the pool's first processes) is excluded: a
warm-up round runs first. ``--ray`` also measures a local Ray, whose workers keep
their bot processes warm as local workers do (``benchmarks/ray_warm.py`` compares
Ray with the local executor start-up included).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import tempfile
import time
from typing import Any

from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry
from arena.referee.process import ProcessLimits
from arena.tournament.executors import LocalExecutor
from arena.tournament.matchrun import MatchTask
from arena.tournament.rayexec import RayExecutor
from arena.tournament.schedule import MatchSpec, derive_seed

WAYS: dict[str, dict[str, Any]] = {
    "in-process": {"in_process": True},
    "warm": {},
    "fresh": {"matches_per_process": 1},
}


def tasks(count: int, log_dir: str, offset: int = 0, bot: str = "random", **way) -> list[MatchTask]:
    """``count`` 4-player USA matches of ``bot`` in every seat, played ``way``."""
    names = (bot,) * 4
    task = MatchTask(
        tournament="bench",
        variant="usa",
        match=MatchSpec(0, 0, names),
        entries=(BotEntry.parse(bot),) * 4,
        labels=names,
        time_control=TimeControl(move_ms=5000, bank_ms=60000),
        limits=ProcessLimits(),
        log_dir=log_dir,
    )
    return [
        dataclasses.replace(task, match=MatchSpec(i, derive_seed(0, i + offset), names), **way)
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


def rate(executor, batch: list[MatchTask]) -> float:
    """Matches per minute of ``batch`` on ``executor`` (no match may fault)."""
    done = Collect()
    start = time.perf_counter()
    executor.run(batch, done)
    elapsed = time.perf_counter() - start
    assert len(done.results) == len(batch)
    assert not any(f is not None for r in done.results for f in r.faults)
    return len(batch) / elapsed * 60


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=24, help="matches per way and round")
    parser.add_argument(
        "--fresh-matches", type=int, default=8, help="matches per round of the fresh way (slow)"
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--bot", default="random", help="the bot in every seat (built-in)")
    parser.add_argument(
        "--ray",
        action="store_true",
        help="also a local Ray (its workers keep warm processes too)",
    )
    args = parser.parse_args()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    executors: dict[str, LocalExecutor | RayExecutor] = {
        way: LocalExecutor(args.workers) for way in WAYS
    }
    if args.ray:
        ray_executor = RayExecutor(None, args.workers)
        executors["Ray, warm"] = ray_executor
    settings: dict[str, dict[str, Any]] = {**WAYS, "Ray, warm": {}}
    rates: dict[str, list[float]] = {way: [] for way in executors}
    try:
        with tempfile.TemporaryDirectory() as log_dir:
            for way, executor in executors.items():  # start-up: workers, first processes
                warm_up = tasks(args.workers * 2, log_dir, 10_000, args.bot, **settings[way])
                rate(executor, warm_up)
            ways = list(executors)
            for number in range(args.rounds):
                order = ways[number % len(ways) :] + ways[: number % len(ways)]
                for way in order:
                    count = args.fresh_matches if way == "fresh" else args.matches
                    batch = tasks(count, log_dir, number * 1000, args.bot, **settings[way])
                    rates[way].append(rate(executors[way], batch))
                shown = ", ".join(
                    f"{way} {rates[way][-1] / rates['in-process'][-1]:.3f}"
                    for way in ways
                    if way != "in-process"
                )
                print(f"round {number + 1}: ratio to in-process: {shown}", flush=True)
    finally:
        for executor in executors.values():
            executor.close()
    print(
        f"tournament benchmark: {args.matches} 4-player USA matches of the {args.bot} bot per way "
        f"and round ({args.fresh_matches} fresh), {args.rounds} rounds, {args.workers} "
        f"workers, {os.cpu_count()} cores"
    )
    reference = rates["in-process"]
    for way, measured in rates.items():
        ratios = [r / ref for r, ref in zip(measured, reference, strict=True)]
        print(
            f"  {way:12s} median {statistics.median(measured):7.1f} matches/min; "
            f"ratio to in-process: median {statistics.median(ratios):.3f} "
            f"(rounds {', '.join(f'{x:.3f}' for x in ratios)})"
        )


if __name__ == "__main__":
    main()
