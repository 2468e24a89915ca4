"""Leaderboard benchmark: recompute ratings and tables for 100,000 stored 4-player matches.

    python benchmarks/leaderboard.py [--matches 100000] [--bots 24]

Fills a fresh results store with synthetic finished 4-player matches (random
seatings and ranks among ``--bots`` bots, written in bulk), then times each
step of a recompute from the store: reading the matches in rating order,
one TrueSkill pass giving ratings and rating histories, the leaderboard table,
head-to-head.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time

from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
from leaderboards.data import stored_matches
from leaderboards.tables import head_to_head_from, leaderboard_from, rate_with_history


def fill(store: ResultsStore, matches: int, bots: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    names = [f"bot{i:02d}" for i in range(bots)]
    tid = store.tournament("bench", "bench", {})
    results = []
    for idx in range(matches):
        ranks = tuple(sorted(rng.randint(1, 4) for _ in range(4)))
        results.append(
            MatchResult(
                idx=idx,
                variant="usa",
                seed=idx,
                bots=tuple(rng.sample(names, 4)),
                scores=tuple(100 - 10 * rank for rank in ranks),
                ranks=ranks,
                engine_ranks=ranks,
                faults=(None,) * 4,
                breakdown=({"routes": 0},) * 4,
                decisions=300,
                seconds=0.1,
                worker="bench",
            )
        )
    store.record_many(tid, results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=24)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = ResultsStore(folder)
        fill(store, args.matches, args.bots)
        timings = {}
        start = time.perf_counter()
        matches = stored_matches(store, "usa")
        timings["read matches in rating order"] = time.perf_counter() - start
        start = time.perf_counter()
        ratings, history = rate_with_history(matches)
        timings["TrueSkill ratings + histories"] = time.perf_counter() - start
        for label, step in (
            ("leaderboard table", lambda m: leaderboard_from(m, ratings)),
            ("head-to-head", head_to_head_from),
        ):
            start = time.perf_counter()
            frame = step(matches)
            timings[label] = time.perf_counter() - start
            assert len(frame) and len(history)
    print(f"leaderboard benchmark: {args.matches:,} stored 4-player matches, {args.bots} bots")
    for label, seconds in timings.items():
        print(f"  {label:34s} {seconds:8.2f} s")
    print(f"  {'total':34s} {sum(timings.values()):8.2f} s")


if __name__ == "__main__":
    main()
