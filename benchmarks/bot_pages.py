"""Bot page benchmark: what listing one bot's matches and summing its win rates and margins
cost in a large store (the host's bot page reads these).

    python benchmarks/bot_pages.py [--matches 100000] [--bots 8] [--runs 5]

Fills a fresh results store with ``--matches`` matches, half on a 2-player board and half
on a 4-player one, among ``--bots`` bots; then times, median of ``--runs``: one page of
20 of a bot's matches with each filter (all, lost, a fault code, an opponent, a board),
the full sums of its win rates and margins (a bot page's first read after a start), and
the sums of the last 300 seat rows (every later read: the host keeps the sums).
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from arena.tournament.results import MatchResult
from arena.tournament.store import BotFilter, ResultsStore

BOARDS = (("cup-usa-2p", 2), ("cup-usa-4p", 4))


def fill(folder: Path, matches: int, bots: int) -> None:
    rng = random.Random(1)
    names = [f"u{i}.bot@1" for i in range(bots)]
    with ResultsStore(folder) as store:
        for name, players in BOARDS:
            tournament = store.tournament(name, "bench", {})
            results = []
            for idx in range(matches // len(BOARDS)):
                seated = rng.sample(names, players)
                scores = [rng.randint(0, 150) for _ in seated]
                order = sorted(range(players), key=lambda seat: -scores[seat])
                ranks = [0] * players
                for rank, seat in enumerate(order, start=1):
                    ranks[seat] = rank
                faults = tuple("crash" if s == 0 and rng.random() < 0.02 else None for s in ranks)
                results.append(
                    MatchResult(
                        match_id=0, tournament=name, idx=idx, variant="usa", seed=idx,
                        decisions=100, seconds=1.0, attempts=1, worker="bench",
                        finished_at=time.time(), bots=tuple(seated), scores=tuple(scores),
                        ranks=tuple(ranks), engine_ranks=tuple(ranks), faults=faults,
                        fault_details=(None,) * players, breakdown=({},) * players, log=b"{}",
                    )
                )  # fmt: skip
            store.record_many(tournament, results)


def median_ms(run: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        fill(Path(folder), args.matches, args.bots)
        store = ResultsStore.reader(folder)
        bot, names = ["u0.bot@1"], [name for name, _ in BOARDS]
        total, _ = store.bot_matches(bot, names, BotFilter(), 1, 0)
        print(f"{args.matches:,} matches; the bot played {total:,} of them")
        for label, where in (
            ("all", BotFilter()),
            ("lost", BotFilter(won=False)),
            ("crash", BotFilter(fault="crash")),
            ("an opponent", BotFilter(opponents=("u3.bot@1",))),
            ("a board", BotFilter(tournament="cup-usa-4p")),
        ):
            page = functools.partial(store.bot_matches, bot, names, where, 20, 40)
            took = median_ms(page, args.runs)
            print(f"page of 20, {label}: {took:.0f} ms")
        _, _, last = store.bot_tallies(bot, names)
        took = median_ms(lambda: store.bot_tallies(bot, names), args.runs)
        print(f"win and margin sums, all: {took:.0f} ms")
        took = median_ms(lambda: store.bot_tallies(bot, names, after=last - 300), args.runs)
        print(f"win and margin sums, the last 300 seat rows: {took:.1f} ms")
        store.close()


if __name__ == "__main__":
    main()
