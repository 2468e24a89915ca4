"""Leaderboard benchmark: `arena leaderboard` after one new match on a 100,000-match store,
and a full recompute next to a bare TrueSkill loop over the same matches.

    python benchmarks/leaderboard.py [--matches 100000] [--rounds 5] [--bots 24]
                                     [--recompute-matches 2000] [--recompute-rounds 15]
                                     [--keep FOLDER]

Fills a results store with ``--matches`` synthetic finished 4-player matches
(random seatings and ranks among ``--bots`` bots, written in bulk through the
store's own API) and computes its rating checkpoint once (``--keep FOLDER``
keeps that store there and uses it again next time). Then two measurements,
each alternating A and B round by round (ratio per round, medians; CPU time as
well as wall time, since the machine may be shared):

1. A: one new match is stored, then ``arena leaderboard`` runs as a subprocess,
   end to end (start-up, the checkpoint, the one match folded in, the new
   checkpoint saved, the table printed). B: ``arena leaderboard`` on an empty
   store (the command's own start-up: Python, imports). Also the leaderboard's
   own work in process (checkpoint, fold, save, rows), without the start-up.
2. A: the full recompute of ``--recompute-matches`` stored matches (what a
   store without a usable checkpoint costs: every match read from SQLite in
   rating order and folded into every board). B: a bare ``trueskill`` loop
   over the same matches, already in memory (``env.rate`` per match and a dict
   of ratings, nothing else). The full recompute is timed on a smaller store by
   default because TrueSkill takes 1-2 ms a match: the ratio does not depend on
   the count. Short rounds, many of them: the machine's load drifts less within one.

Within 1., each round also times the check of the newest checkpoint (how many of the
variant's matches sort at or before it) two ways, alternated: A the store's
``matches_up_to`` (the count kept by triggers, less the matches after the checkpoint), B
the full count of the index's range up to the checkpoint (what it was before schema
version 4: it grows with the store).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.tournament.ratings import environment
from arena.tournament.results import MatchResult
from arena.tournament.store import MATCHES_UP_TO, ResultsStore
from leaderboards.checkpoints import current_standings
from leaderboards.standings import Standings

ARENA = Path(sys.executable).with_name("arena")
# As a user's shell runs it: compiled bytecode kept (a test runner may forbid writing it,
# which would time compiling every module), a wide terminal.
COMMAND_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
COMMAND_ENV["COLUMNS"] = "100"


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
        env=COMMAND_ENV,
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


def prepared(folder: Path, matches: int, bots: int) -> int:
    """The benchmark store in ``folder`` with its checkpoint (made now unless kept from an
    earlier run); returns the ``bench`` tournament's id."""
    with ResultsStore(folder) as store:
        info = store.tournament_info("bench")
        if info is None or info.played < matches:
            start = time.perf_counter()
            tid = fill(store, matches, bots)
            print(f"  stored {matches:,} matches in {time.perf_counter() - start:.0f} s")
        else:
            tid = info.id
        start = time.perf_counter()
        current_standings(store, "usa")
        print(f"  checkpoint ready in {time.perf_counter() - start:.1f} s")
    return tid


def leaderboard_rounds(big: Path, empty: Path, tid: int, rounds: int, bots: int) -> None:
    rng = random.Random(time.time_ns())
    names = [f"bot{i:02d}" for i in range(bots)]
    walls, cpus, start_walls, start_cpus, work = [], [], [], [], []
    kept: list[float] = []
    counted: list[float] = []
    run_leaderboard(big), run_leaderboard(empty)  # bytecode compiled, files cached
    for _ in range(rounds):
        with ResultsStore(big) as store:
            next_index = max(store.done_indices(tid)) + 1
            store.record(tid, synthetic(rng, names, next_index))
            start = time.process_time()
            current_standings(store, "usa").board().rows()  # one new match, in process
            work.append(time.process_time() - start)
            store.record(tid, synthetic(rng, names, next_index + 1))
            newest = store.rating_checkpoints("usa")[0][0]
            for side in ("kept", "counted") if len(kept) % 2 == 0 else ("counted", "kept"):
                start = time.perf_counter()
                for _ in range(20):
                    if side == "kept":
                        found = store.matches_up_to("usa", newest)
                    else:
                        found = store.db.execute(MATCHES_UP_TO, ("usa", newest)).fetchone()[0]
                (kept if side == "kept" else counted).append((time.perf_counter() - start) / 20)
            assert found == store.matches_up_to("usa", newest)
        wall, cpu = run_leaderboard(big)  # one new match, end to end
        start_wall, start_cpu = run_leaderboard(empty)
        walls.append(wall)
        cpus.append(cpu)
        start_walls.append(start_wall)
        start_cpus.append(start_cpu)
    print(f"arena leaderboard after one new match ({rounds} rounds, A and B alternated):")
    print(median_line("A: on the store, wall", walls))
    print(median_line("A: on the store, CPU", cpus))
    print(median_line("B: on an empty store (start-up), wall", start_walls))
    print(median_line("B: on an empty store (start-up), CPU", start_cpus))
    print(median_line("A / B, wall", [a / b for a, b in zip(walls, start_walls, strict=True)], "x"))
    print(median_line("A - B, CPU", [a - b for a, b in zip(cpus, start_cpus, strict=True)]))
    print(median_line("the leaderboard's own work, CPU, in process", work))
    print("the newest checkpoint's count check (A and B alternated, wall, 20 each):")
    print(median_line("A: the kept count less the matches after it", [k * 1e3 for k in kept], "ms"))
    print(median_line("B: the full count up to it (before)", [c * 1e3 for c in counted], "ms"))
    print(median_line("A / B", [k / c for k, c in zip(kept, counted, strict=True)], "x"))


def recompute_rounds(small: Path, matches: int, rounds: int, bots: int) -> None:
    shutil.rmtree(small, ignore_errors=True)  # (a kept one may hold another count)
    with ResultsStore(small) as store:
        fill(store, matches, bots, seed=2)
        pairs = [(m.bots, m.ranks) for m in store.results_after("usa", 0)]
        full, bare = [], []
        for _ in range(rounds):
            start = time.process_time()
            standings = full_recompute(store)
            full.append(time.process_time() - start)
            start = time.process_time()
            ratings = bare_trueskill(pairs)
            bare.append(time.process_time() - start)
            exact = {b: (r.pi, r.tau) for b, r in standings.board().ratings.items()}
            assert exact == {b: (r.pi, r.tau) for b, r in ratings.items()}, "not identical"
    print(f"full recompute of {len(pairs):,} matches, CPU ({rounds} rounds, A and B alternated):")
    print(median_line("A: full recompute from the store", full))
    print(median_line("B: bare trueskill loop, in memory", bare))
    print(median_line("A / B", [a / b for a, b in zip(full, bare, strict=True)], "x"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--recompute-matches", type=int, default=2_000)
    parser.add_argument("--recompute-rounds", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--bots", type=int, default=24)
    parser.add_argument("--keep", type=Path, help="keep the stores in this folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        big, empty = folder / "big", folder / "empty"
        print(f"leaderboard benchmark: {args.matches:,} stored 4-player matches, {args.bots} bots")
        tid = prepared(big, args.matches, args.bots)
        ResultsStore(empty).close()
        leaderboard_rounds(big, empty, tid, args.rounds, args.bots)
        recompute_rounds(folder / "small", args.recompute_matches, args.recompute_rounds, args.bots)


if __name__ == "__main__":
    main()
