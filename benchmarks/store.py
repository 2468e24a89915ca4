"""Store benchmark: what the store's health checks cost on a large store.

    python benchmarks/store.py [--matches 5000] [--log-kb 100] [--runs 5]

Fills a fresh results store with ``--matches`` finished matches, each with a
match log of ``--log-kb`` KB (random bytes: a real log's bulk does not
compress well either), then times, alternating and taking the median of
``--runs`` rounds: opening the store for writing without a check (the
reference), opening it with SQLite's quick check (what ``arena tournament
run`` does), opening it read-only (what readers do), and the full check of
``arena store check``. The file is read once first, as a store in use sits in
the page cache.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
from arena.tournament.storecare import check


def fill(folder: Path, matches: int, log_kb: int) -> int:
    """A store of ``matches`` 4-player matches with ``log_kb`` KB logs; returns its size."""
    log = os.urandom(log_kb * 512).hex().encode()
    with ResultsStore(folder) as store:
        tid = store.tournament("bench", "bench", {})
        for start in range(0, matches, 500):
            store.record_many(
                tid,
                [
                    MatchResult(
                        idx=idx,
                        variant="usa",
                        seed=idx,
                        bots=("a", "b", "c", "d"),
                        scores=(40, 30, 20, 10),
                        ranks=(1, 2, 3, 4),
                        engine_ranks=(1, 2, 3, 4),
                        faults=(None,) * 4,
                        log=log,
                    )
                    for idx in range(start, min(start + 500, matches))
                ],
            )
    return (folder / "results.sqlite").stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5000)
    parser.add_argument("--log-kb", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.matches < 1 or args.log_kb < 0 or args.runs < 1:
        parser.error("--matches and --runs are at least 1, --log-kb at least 0")
    with tempfile.TemporaryDirectory(prefix="arena-store-bench-") as tmp:
        folder = Path(tmp)
        size = fill(folder, args.matches, args.log_kb)
        with (folder / "results.sqlite").open("rb") as file:
            while file.read(1 << 20):
                pass
        steps: dict[str, Callable[[], object]] = {
            "open for writing, no check (reference)": lambda: ResultsStore(folder).close(),
            "open + quick check (arena tournament run)": lambda: ResultsStore(
                folder, check=True
            ).close(),
            "open read-only (leaderboard, results, site, serve)": lambda: ResultsStore.reader(
                folder
            ).close(),
            "full check (arena store check)": lambda: check(folder),
        }
        times: dict[str, list[float]] = {name: [] for name in steps}
        for _ in range(args.runs):  # alternating, so a busy moment hits every step alike
            for name, step in steps.items():
                started = time.perf_counter()
                step()
                times[name].append(time.perf_counter() - started)
    print(f"{args.matches} matches with {args.log_kb} KB logs: a {size / 1e6:.0f} MB store")
    for name, seconds in times.items():
        print(f"  {name}: {statistics.median(seconds) * 1000:.1f} ms (median of {args.runs})")


if __name__ == "__main__":
    main()
