"""Leaderboard benchmark: `arena leaderboard` after one new match on a 100,000-match store,
and a full recompute next to a bare TrueSkill loop over the same matches.

    python benchmarks/leaderboard.py [--matches 100000] [--recompute-matches 5000]
                                     [--rounds 5] [--bots 24]

Fills a results store with ``--matches`` synthetic finished 4-player matches
(random seatings and ranks among ``--bots`` bots, written in bulk through the
store's own API) and computes its rating checkpoint once. Then two measurements,
each alternating A and B for ``--rounds`` rounds (ratio per round, medians):

1. A: one new match is stored, then ``arena leaderboard`` runs as a subprocess,
   end to end (start-up, the checkpoint, the one match folded in, the new
   checkpoint saved, the table printed). B: ``arena leaderboard`` on an empty
   store (the command's own start-up: Python, imports). Wall time of each, and
   A's CPU time.
2. A: the full recompute of ``--recompute-matches`` stored matches (what a
   store without a usable checkpoint costs: every match read from SQLite in
   rating order and folded into every board). B: a bare ``trueskill`` loop
   over the same matches, already in memory (``env.rate`` per match and a dict
   of ratings, nothing else). The full recompute is timed on a smaller store by
   default because TrueSkill takes 1-2 ms a match: the ratio does not depend on
   the count.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.tournament.ratings import environment
from arena.tournament.results import MatchResult
from arena.tournament.store import ResultsStore
from leaderboards.checkpoints import current_standings
from leaderboards.standings import Standings

ARENA = Path(sys.executable).with_name("arena")


def synthetic(rng: random.Random, names: list[str], idx: int) -> MatchResult:
    ranks = tuple(sorted(rng.randint(1, 4) for _ in range(4)))
    return MatchResult(
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


def fill(store: ResultsStore, matches: int, bots: int, seed: int = 0) -> int:
    """``matches`` synthetic matches in tournament ``bench``; returns its id."""
    rng = random.Random(seed)
    names = [f"bot{i:02d}" for i in range(bots)]
    tid = store.tournament("bench", "bench", {})
    store.record_many(tid, [synthetic(rng, names, idx) for idx in range(matches)])
    return tid


def run_leaderboard(data: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``arena leaderboard`` as a subprocess."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [str(ARENA), "leaderboard", "--data-dir", str(data)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "100"},
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or "Traceback" in done.stderr:
        raise SystemExit(f"arena leaderboard failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def full_recompute(store: ResultsStore) -> Standings:
    """Every board of the variant from nothing: the matches read in rating order, folded."""
    standings = Standings("usa")
    standings.add_all(store.results_after("usa", 0))
    standings.board().rows()
    return standings


def bare_trueskill(matches: list[tuple[tuple[str, ...], tuple[int, ...]]]) -> dict:
    """The least a TrueSkill pass can do: one ``env.rate`` per match, ratings in a dict."""
    env = environment()
    ratings: dict = {}
    for bots, ranks in matches:
        groups = []
        for bot in bots:
            rating = ratings.get(bot)
            groups.append((env.create_rating() if rating is None else rating,))
        for bot, (rating,) in zip(bots, env.rate(groups, ranks=ranks), strict=True):
            ratings[bot] = rating
    return ratings


def median_line(label: str, values: list[float], unit: str = "s") -> str:
    shown = "  ".join(f"{v:.3f}" for v in values)
    return f"  {label:44s} median {statistics.median(values):7.3f} {unit}   ({shown})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--recompute-matches", type=int, default=5_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bots", type=int, default=24)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        big, empty, small = Path(folder, "big"), Path(folder, "empty"), Path(folder, "small")
        start = time.perf_counter()
        with ResultsStore(big) as store:
            tid = fill(store, args.matches, args.bots)
            filled = time.perf_counter() - start
            current_standings(store, "usa")
        checkpointed = time.perf_counter() - start - filled
        ResultsStore(empty).close()
        print(
            f"leaderboard benchmark: {args.matches:,} stored 4-player matches, {args.bots} bots "
            f"(stored in {filled:.0f} s, first checkpoint in {checkpointed:.0f} s)"
        )
        rng = random.Random(1)
        names = [f"bot{i:02d}" for i in range(args.bots)]
        walls, cpus, starts, ratios = [], [], [], []
        for round_ in range(args.rounds):
            with ResultsStore(big) as store:
                store.record(tid, synthetic(rng, names, args.matches + round_))
            wall, cpu = run_leaderboard(big)
            bare_wall, _ = run_leaderboard(empty)
            walls.append(wall)
            cpus.append(cpu)
            starts.append(bare_wall)
            ratios.append(wall / bare_wall)
        print(f"arena leaderboard after one new match ({args.rounds} rounds, alternated):")
        print(median_line("A: on the store, wall", walls))
        print(median_line("A: on the store, CPU", cpus))
        print(median_line("B: on an empty store (start-up), wall", starts))
        print(median_line("A / B", ratios, "x"))

        with ResultsStore(small) as store:
            fill(store, args.recompute_matches, args.bots, seed=2)
            pairs = [(m.bots, m.ranks) for m in store.results_after("usa", 0)]
            full, bare, ratios = [], [], []
            for _ in range(args.rounds):
                start = time.perf_counter()
                standings = full_recompute(store)
                full.append(time.perf_counter() - start)
                start = time.perf_counter()
                ratings = bare_trueskill(pairs)
                bare.append(time.perf_counter() - start)
                ratios.append(full[-1] / bare[-1])
                exact = {b: (r.pi, r.tau) for b, r in standings.board().ratings.items()}
                assert exact == {b: (r.pi, r.tau) for b, r in ratings.items()}, "not identical"
        print(f"full recompute of {args.recompute_matches:,} matches ({args.rounds} rounds):")
        print(median_line("A: full recompute from the store", full))
        print(median_line("B: bare trueskill loop, in memory", bare))
        print(median_line("A / B", ratios, "x"))


if __name__ == "__main__":
    main()
