"""Is ``arena test`` right, and how many games does it need? Checked, not assumed.

1. A/A: a bot against itself, ``--reps`` times (each with its own seed). The test
   should accept H1 at a rate within the binomial interval of alpha.
2. A pair with a known difference: measured once by a long fixed run of
   ``--long-groups`` deal groups; then ``--reps`` sequential tests. Their verdict
   should agree with the long run's (H1 if its whole interval is above elo1, H0 if
   below elo0), and their mean length is set against the games a fixed-length
   test with the same error rates needs at the variance the long run measured.

Every run is a real ``arena test`` (format ``sprt``, the tournament runner, a
results store in a temporary folder) with ``--in-process`` built-in bots::

    python benchmarks/sprt.py --reps 100 --variant newyork
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.tournament import sprt
from arena.tournament.executors import LocalExecutor
from arena.tournament.runner import TournamentRunner
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import ResultsStore


def run_test(store: ResultsStore, spec: TournamentSpec, folder: Path) -> tuple[sprt.Verdict, list]:
    """One ``arena test`` run to its verdict; its verdict and the group scores it stored."""
    with LocalExecutor(1) as executor:
        runner = TournamentRunner(
            spec, store, executor, folder, show_progress=False, in_process=True
        )
        runner.run()
    assert runner.verdict is not None
    return runner.verdict, runner.group_scores()


def repeat(store: ResultsStore, spec: TournamentSpec, folder: Path, reps: int, label: str) -> dict:
    """``reps`` tests of ``spec``, each with its own seed: how often each verdict, how long."""
    verdicts = {"H0": 0, "H1": 0, None: 0}
    lengths = []
    for rep in range(reps):
        verdict, _ = run_test(store, replace(spec, name=f"{label}-{rep}", seed=rep), folder)
        verdicts[verdict.accepted] += 1
        lengths.append(verdict.groups * 2)
    return {
        "reps": reps,
        "H1": verdicts["H1"],
        "H0": verdicts["H0"],
        "undecided": verdicts[None],
        "mean_games": statistics.fmean(lengths),
        "median_games": statistics.median(lengths),
        "max_games": max(lengths),
    }


def binomial_interval(n: int, p: float) -> tuple[int, int]:
    """The central 95% range of a Binomial(n, p) count."""
    pmf = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    low, total = 0, 0.0
    while total + pmf[low] < 0.025:
        total += pmf[low]
        low += 1
    high, total = n, 0.0
    while total + pmf[high] < 0.025:
        total += pmf[high]
        high -= 1
    return low, high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="newyork")
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--aa-reps", type=int, help="A/A repetitions (default: --reps; 0: none)")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=50.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--pair-reps", type=int, help="pair tests (default: --reps; 0: none)")
    parser.add_argument(
        "--aa",
        default="random",
        help="the bot of the A/A test (a randomised one: a deterministic"
        " bot against itself mirrors every game and accepts H0 after a fixed count)",
    )
    parser.add_argument("--new", default="ticket-by-ticket")
    parser.add_argument("--base", default="greedy-claims")
    parser.add_argument("--long-groups", type=int, default=1000)
    parser.add_argument("--max-games", type=int, default=4000)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    hypotheses = sprt.Hypotheses(args.elo0, args.elo1, args.alpha, args.beta)
    folder = Path(tempfile.mkdtemp(prefix="arena-sprt-bench-"))
    store = ResultsStore(folder)
    base = TournamentSpec(
        name="x",
        variant=args.variant,
        bots=(args.aa, args.aa),
        players=(2,),
        format="sprt",
        games=args.max_games,
        sprt=hypotheses,
    )
    figures: dict = {"hypotheses": vars(args) | {"json": None}}
    started = time.monotonic()

    # 1. A/A
    aa_reps = args.reps if args.aa_reps is None else args.aa_reps
    if aa_reps:
        aa = repeat(store, base, folder, aa_reps, "aa")
        low, high = binomial_interval(aa_reps, args.alpha)
        figures["aa"] = aa | {"bot": args.aa, "alpha_range": [low, high]}
        print(
            f"A/A {args.aa} x{aa_reps}: H1 {aa['H1']} (alpha {args.alpha}: {low}-{high} "
            f"expected), H0 {aa['H0']}, undecided {aa['undecided']}; games mean "
            f"{aa['mean_games']:.0f}, median {aa['median_games']:.0f}",
            flush=True,
        )

    pair_reps = args.reps if args.pair_reps is None else args.pair_reps
    if pair_reps:
        known_pair(args, store, base, folder, hypotheses, figures)
    figures["seconds"] = time.monotonic() - started
    print(f"{figures['seconds']:.0f} s")
    store.close()
    shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


def known_pair(
    args: argparse.Namespace,
    store: ResultsStore,
    base: TournamentSpec,
    folder: Path,
    hypotheses: sprt.Hypotheses,
    figures: dict,
) -> None:
    """A long fixed run of the pair, then ``--pair-reps`` sequential tests of it."""
    # The long fixed run: every group played (bounds out of reach).
    pair = replace(base, bots=(args.new, args.base))
    # Hypotheses 0.02 Elo apart at error rates of 1e-9: bounds no pair here can reach.
    never = sprt.Hypotheses(-0.01, 0.01, 1e-9, 1e-9)
    games = 2 * args.long_groups
    long_spec = replace(pair, name="long", seed=10**6, games=games, sprt=never)
    _, scores = run_test(store, long_spec, folder)
    estimate = sprt.estimate(scores)
    variance = statistics.pvariance(scores)
    truth = "H1" if estimate.low > args.elo1 else "H0" if estimate.high < args.elo0 else None
    fixed = 2 * sprt.fixed_groups(hypotheses, variance)
    figures["long"] = {
        "new": args.new,
        "base": args.base,
        "games": 2 * len(scores),
        "elo": estimate.elo,
        "low": estimate.low,
        "high": estimate.high,
        "group_variance": variance,
        "truth": truth,
        "fixed_games_same_errors": fixed,
    }
    print(
        f"long run {args.new} - {args.base}: {2 * len(scores)} games, {estimate.text()}, "
        f"group variance {variance:.4f}; expected verdict {truth}; a fixed-length test with "
        f"the same error rates needs {fixed} games",
        flush=True,
    )
    tests = repeat(store, pair, folder, args.pair_reps or args.reps, "pair")
    tests["agree"] = tests[truth] if truth else None
    figures["pair"] = tests
    print(
        f"SPRT {args.new} vs {args.base} x{args.reps}: H1 {tests['H1']}, H0 {tests['H0']}, "
        f"undecided {tests['undecided']}; agree with the long run: "
        f"{tests['agree'] if truth else '-'}/{tests['reps']}; games mean "
        f"{tests['mean_games']:.0f}, median {tests['median_games']:.0f}, "
        f"max {tests['max_games']} (fixed-length: {fixed})",
        flush=True,
    )


if __name__ == "__main__":
    main()
