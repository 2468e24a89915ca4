"""Which rating predicts? Rate the first part of a stored result set, predict the rest.

The matches of one variant are read in rating order (tournament, then schedule
index); the last ``--test`` share is held out and never shown to a model; each
``--train`` share (the first 5%, 10%, 70%, ...) rates every model in turn. For
every held-out match and every pair of distinct bots that did not tie, each model
gives the probability that the one that finished ahead would: the table shows the
share of pairs predicted the wrong way round (a coin flip counts half), the mean
log loss, and its difference to today's TrueSkill with a bootstrap interval. No
model parameter was tuned on these data: TrueSkill's are its defaults (τ = 0 for
the static one), the priors of the global fits are fixed below, Elo's K is 16.

Order matters for the online models (TrueSkill, Elo): they are also rated on the
same training matches in ``--shuffles`` random orders (the global fits give the
same answer in any order, by construction).

The data: a ladder of built-in bots, 2-5 players, in process (``--generate N``
plays it into ``--data-dir`` first, the same as ``arena tournament run --format
ladder --in-process``)::

    python benchmarks/ratings.py --generate 3000 --data-dir /tmp/rating-data --train 0.05 0.1 0.7

``--final-games`` answers another question, with no data: how many rounds must a
competition's final (a two-player round robin, each pair playing both seats per round,
rated as the final is: TrueSkill with τ = 0) play so that adjacent places are apart at
95% (``arena.server.places``)? N bots whose true strengths are evenly spaced, adjacent
ones ``spread`` Elo apart; each game won by the stronger with the Elo probability; for
each round count, the share of adjacent places told apart, and of those told apart
the wrong way round, over ``--trials`` simulated finals::

    python benchmarks/ratings.py --final-games --bots 8 30 --spreads 50 100 200
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import trueskill

from arena.tournament.executors import LocalExecutor
from arena.tournament.ratings import (
    ENV,
    STATIC_ENV,
    bradley_terry,
    pairwise,
    rate,
)
from arena.tournament.results import MatchResult
from arena.tournament.runner import TournamentRunner
from arena.tournament.spec import TournamentSpec
from arena.tournament.store import ResultsStore

BOTS = (
    "random",
    "greedy-claims",
    "long-claims",
    "ticket-collector",
    "ticket-by-ticket",
    "fdg-route-focus",
    "fdg-destination-hungry",
    "fdg-long-route",
    "fdg-one-step",
    "planner",
)
Predict = Callable[[str, str], float]  # P(first finishes ahead of second)
Match = tuple[Sequence[str], Sequence[int]]


def generate(data_dir: Path, games: int, variant: str, workers: int) -> None:
    spec = TournamentSpec(
        name="rating-data",
        variant=variant,
        bots=BOTS,
        players=(2, 3, 4, 5),
        format="ladder",
        games=games,
        seed=32,
    )
    store = ResultsStore(data_dir)
    with LocalExecutor(workers) as executor:
        TournamentRunner(
            spec, store, executor, data_dir, show_progress=False, in_process=True
        ).run()
    store.close()


def trueskill_model(train: Sequence[Match], env: trueskill.TrueSkill) -> Predict:
    ratings = rate(train, env)
    default = env.create_rating()

    def predict(a: str, b: str) -> float:
        ra, rb = ratings.get(a, default), ratings.get(b, default)
        spread = math.sqrt(2 * env.beta**2 + ra.sigma**2 + rb.sigma**2)
        return env.cdf((ra.mu - rb.mu) / spread)

    return predict


def bt_model(train: Sequence[Match]) -> Predict:
    table: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for bots, ranks in train:
        for a, b, score in pairwise(bots, ranks):
            table[(a, b)][0] += score
            table[(a, b)][1] += 1
    strengths = bradley_terry(table)

    def predict(a: str, b: str) -> float:
        ra = strengths.get(a, (1500.0, 0.0))[0]
        rb = strengths.get(b, (1500.0, 0.0))[0]
        return 1.0 / (1.0 + 10 ** (-(ra - rb) / 400))

    return predict


def plackett_luce_model(train: Sequence[Match], iterations: int = 300) -> Predict:
    """Plackett–Luce by Hunter's MM algorithm on the full orders of finish (tied bots in
    seat order), with one virtual win and one virtual loss against a bot of strength 1 (a
    fixed prior, so that a bot that never won has a rating)."""
    orders = []
    for bots, ranks in train:
        best: dict[str, int] = {}
        for bot, rank in zip(bots, ranks, strict=True):
            best[bot] = min(rank, best.get(bot, rank))
        if len(best) > 1:
            orders.append(sorted(best, key=lambda bot: best[bot]))
    names = sorted({bot for order in orders for bot in order})
    gamma = dict.fromkeys(names, 1.0)
    wins = {bot: 1.0 + sum(bot in order[:-1] for order in orders) for bot in names}
    for _ in range(iterations):
        denominator = {bot: 2.0 / (gamma[bot] + 1.0) for bot in names}  # the virtual games
        for order in orders:
            tail = sum(gamma[bot] for bot in order)
            acc = 0.0
            for stage in range(len(order) - 1):
                acc += 1.0 / tail
                denominator[order[stage]] += acc
                tail -= gamma[order[stage]]
            denominator[order[-1]] += acc
        gamma = {bot: wins[bot] / denominator[bot] for bot in names}

    def predict(a: str, b: str) -> float:
        ga, gb = gamma.get(a, 1.0), gamma.get(b, 1.0)
        return ga / (ga + gb)

    return predict


def elo_model(train: Sequence[Match], k: float = 16.0) -> Predict:
    """Multiplayer Elo: each match as its pairwise games, K shared among a bot's opponents."""
    ratings: dict[str, float] = defaultdict(lambda: 1500.0)
    for bots, ranks in train:
        pairs = pairwise(bots, ranks)
        others = len({bot for pair in pairs for bot in pair[:2]}) - 1
        delta: dict[str, float] = defaultdict(float)
        for a, b, score in pairs:
            expected = 1.0 / (1.0 + 10 ** ((ratings[b] - ratings[a]) / 400))
            delta[a] += k / others * (score - expected)
            delta[b] -= k / others * (score - expected)
        for bot, change in delta.items():
            ratings[bot] += change

    def predict(a: str, b: str) -> float:
        return 1.0 / (1.0 + 10 ** ((ratings[b] - ratings[a]) / 400))

    return predict


def win_rate_model(train: Sequence[Match]) -> Predict:
    """The baseline: each bot's mean pairwise score against the field."""
    score: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for bots, ranks in train:
        for a, b, s in pairwise(bots, ranks):
            score[a][0] += s
            score[a][1] += 1
            score[b][0] += 1 - s
            score[b][1] += 1
    rate_of = {bot: (s + 0.5) / (n + 1) for bot, (s, n) in score.items()}

    def predict(a: str, b: str) -> float:
        ra, rb = rate_of.get(a, 0.5), rate_of.get(b, 0.5)
        return ra / (ra + rb)

    return predict


def evaluate(predict: Predict, test: Sequence[Match]) -> list[tuple[float, float, int]]:
    """Per held-out match: (pairs predicted wrong, log loss summed, pairs), over the pairs
    that did not tie (a coin-flip prediction counts half wrong)."""
    per_match = []
    for bots, ranks in test:
        wrong, loss, pairs = 0.0, 0.0, 0
        for a, b, score in pairwise(bots, ranks):
            if score == 0.5:
                continue
            ahead, behind = (a, b) if score == 1.0 else (b, a)
            p = predict(ahead, behind)
            wrong += 1.0 if p < 0.5 else 0.5 if p == 0.5 else 0.0
            loss -= math.log(min(max(p, 1e-12), 1 - 1e-12))
            pairs += 1
        per_match.append((wrong, loss, pairs))
    return per_match


def totals(per_match: Sequence[tuple[float, float, int]]) -> tuple[float, float, int]:
    """(error share, mean log loss, pairs)."""
    pairs = sum(p for _, _, p in per_match)
    return sum(w for w, _, _ in per_match) / pairs, sum(x for _, x, _ in per_match) / pairs, pairs


def difference(
    model: Sequence[tuple[float, float, int]],
    baseline: Sequence[tuple[float, float, int]],
    resamples: int = 400,
) -> tuple[float, float]:
    """Log loss of ``model`` minus ``baseline`` and the half-width of its 95% interval, by a
    bootstrap over held-out matches (pairs of one match are not independent)."""
    rng = random.Random(0)
    count = len(model)
    diffs = []
    for _ in range(resamples):
        picks = [rng.randrange(count) for _ in range(count)]
        ours = totals([model[i] for i in picks])[1]
        theirs = totals([baseline[i] for i in picks])[1]
        diffs.append(ours - theirs)
    diffs.sort()
    low, high = diffs[int(0.025 * resamples)], diffs[int(0.975 * resamples) - 1]
    return totals(model)[1] - totals(baseline)[1], (high - low) / 2


def simulated_final(bots: int, spread: float, rounds: int, rng: random.Random) -> tuple[int, int]:
    """One simulated final: (adjacent places apart, of them apart the wrong way round)."""
    from arena.server.boards import FINAL_ENV
    from arena.server.places import apart

    strength = {f"b{i}": -spread * i for i in range(bots)}  # b0 the strongest
    names = sorted(strength)
    games: list[Match] = []
    for _ in range(rounds):
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                for seats in ((a, b), (b, a)):
                    p = 1.0 / (1.0 + 10 ** ((strength[seats[1]] - strength[seats[0]]) / 400))
                    games.append((seats, (1, 2) if rng.random() < p else (2, 1)))
    ratings = rate(games, FINAL_ENV)
    order = sorted(names, key=lambda bot: -(ratings[bot].mu - 3 * ratings[bot].sigma))
    told, wrong = 0, 0
    for upper, lower in itertools.pairwise(order):
        if apart(
            (ratings[upper].mu, ratings[upper].sigma), (ratings[lower].mu, ratings[lower].sigma)
        ):
            told += 1
            wrong += strength[upper] < strength[lower]
    return told, wrong


def final_games_table(
    bots: Sequence[int], spreads: Sequence[float], rounds: Sequence[int], trials: int
) -> None:
    """The markdown table: for each field and spread, places apart (and wrong) by rounds."""
    print("| bots | spread (Elo) | rounds | games per bot | adjacent places apart | wrong |")
    print("|---|---|---|---|---|---|")
    for count in bots:
        for spread in spreads:
            for played in rounds:
                rng = random.Random(f"{count}-{spread}-{played}")
                told = wrong = 0
                for _ in range(trials):
                    found = simulated_final(count, spread, played, rng)
                    told, wrong = told + found[0], wrong + found[1]
                pairs = trials * (count - 1)
                print(
                    f"| {count} | {spread:.0f} | {played} | {2 * played * (count - 1)} | "
                    f"{100 * told / pairs:.0f}% | {100 * wrong / max(told, 1):.1f}% |",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--final-games", action="store_true", help="simulate finals instead")
    parser.add_argument("--bots", type=int, nargs="+", default=[8, 30])
    parser.add_argument("--spreads", type=float, nargs="+", default=[50, 100, 200])
    parser.add_argument("--rounds", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--variant", default="usa")
    parser.add_argument(
        "--train", type=float, nargs="+", default=[0.1, 0.7], help="shares of matches rated"
    )
    parser.add_argument("--test", type=float, default=0.3, help="share held out (the last)")
    parser.add_argument("--shuffles", type=int, default=5)
    parser.add_argument("--generate", type=int, default=0, help="play a ladder of N first")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    if args.final_games:
        final_games_table(args.bots, args.spreads, args.rounds, args.trials)
        return
    if args.data_dir is None:
        parser.error("give --data-dir (or --final-games)")
    if args.generate:
        started = time.monotonic()
        generate(args.data_dir, args.generate, args.variant, args.workers)
        print(f"generated in {time.monotonic() - started:.0f} s")
    store = ResultsStore.reader(args.data_dir)
    matches: list[MatchResult] = store.results(variant=args.variant, details=False)
    data: list[Match] = [(m.bots, m.ranks) for m in matches]
    held = int(len(data) * args.test)
    test = data[len(data) - held :]
    counts: dict[int, int] = defaultdict(int)
    for bots, _ in data:
        counts[len(bots)] += 1
    print(
        f"{len(data)} matches of {args.variant} ({dict(sorted(counts.items()))} by player "
        f"count), {len({b for bots, _ in data for b in bots})} bots; the last {held} held out"
    )
    for share in args.train:
        train = data[: int(len(data) * share)]
        table(train, test, args.shuffles)


MODELS: list[tuple[str, Callable[[Sequence[Match]], Predict], bool]] = [
    ("TrueSkill, default τ (today)", lambda t: trueskill_model(t, ENV), True),
    ("TrueSkill, τ = 0", lambda t: trueskill_model(t, STATIC_ENV), True),
    ("Elo, pairwise, K = 16", elo_model, True),
    ("Bradley–Terry, global fit", bt_model, False),
    ("Plackett–Luce, global fit", plackett_luce_model, False),
    ("win rate against the field", win_rate_model, False),
]


def table(train: Sequence[Match], test: Sequence[Match], shuffles: int) -> None:
    """The markdown table of every model rated on ``train``, predicting ``test``."""
    print(f"\nrated on the first {len(train)} matches:\n")
    print(
        "| model | error | log loss | Δ log loss vs today (95%) | error, shuffled orders "
        "(mean, worst) |"
    )
    print("|---|---|---|---|---|")
    baseline: list[tuple[float, float, int]] = []
    for label, fit, ordered in MODELS:
        per_match = evaluate(fit(train), test)
        baseline = baseline or per_match
        error, loss, pairs = totals(per_match)
        delta, half = difference(per_match, baseline)
        shuffled = "same in any order"
        if ordered and shuffles:
            errors = []
            for seed in range(shuffles):
                order = list(train)
                random.Random(seed).shuffle(order)
                errors.append(totals(evaluate(fit(order), test))[0])
            shuffled = f"{100 * sum(errors) / len(errors):.2f}%, {100 * max(errors):.2f}%"
        compared = "—" if per_match is baseline else f"{delta:+.4f} ± {half:.4f}"
        print(
            f"| {label} | {100 * error:.2f}% | {loss:.4f} | {compared} | {shuffled} |",
            flush=True,
        )
    print(f"\n({pairs} held-out pairs that did not tie)")


if __name__ == "__main__":
    main()
