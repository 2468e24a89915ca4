"""The search bot against three copies of another built-in bot: 4-player USA games.

    python benchmarks/search.py [--games 200] [--opponent ticket-by-ticket] [--iterations 40]
                                [--bot monte-carlo] [--workers 2] [--first 0]

The bot under test takes each seat in turn (seats rotate game by game; game g
is played with seed 50000 + g, and ``--first`` is the first g, for fresh
deals). Reports its wins, mean score margin over the best opponent, where its
points came from, and its decision times. Built-in bots play in process (the
same games as through the protocol); games are spread over ``--workers``
processes.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from arena.referee.faults import TimeControl
from arena.referee.referee import Referee
from arena.referee.seats import InProcessSeat
from arena.variants import get_variant
from bots import get_bot
from bots.search import MonteCarloBot


class Timed:
    """Wraps a bot, recording how long each of its decisions takes."""

    def __init__(self, bot) -> None:
        self.bot = bot
        self.times: list[float] = []

    def __getattr__(self, name):
        return getattr(self.bot, name)

    def choose(self, observation, legal_actions):
        start = time.perf_counter()
        action = self.bot.choose(observation, legal_actions)
        self.times.append(time.perf_counter() - start)
        return action


def play(game: int, bot: str, iterations: int, opponent: str) -> dict:
    usa = get_variant("usa")
    seat = game % 4
    hero = (
        MonteCarloBot(f"mc:{game}", iterations=iterations)
        if bot == "monte-carlo"
        else get_bot(bot).factory(f"mc:{game}")
    )
    timed = Timed(hero)
    factory = get_bot(opponent).factory
    seats = [
        InProcessSeat(timed, bot) if s == seat else InProcessSeat(factory(f"{game}:{s}"), opponent)
        for s in range(4)
    ]
    outcome = Referee(usa, seats, TimeControl()).play(50_000 + game)
    scores = outcome.result.scores
    return {
        "won": outcome.ranks[seat] == 1,
        "margin": scores[seat] - max(s for i, s in enumerate(scores) if i != seat),
        "row": outcome.result.breakdown[seat],
        "times": timed.times,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--bot", default="monte-carlo")
    parser.add_argument("--opponent", default="ticket-by-ticket")
    parser.add_argument("--iterations", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--first", type=int, default=0, help="index of the first game")
    args = parser.parse_args()
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        games = list(
            pool.map(
                play,
                range(args.first, args.first + args.games),
                [args.bot] * args.games,
                [args.iterations] * args.games,
                [args.opponent] * args.games,
            )
        )
    wins = sum(g["won"] for g in games)
    rate = wins / args.games
    error = math.sqrt(rate * (1 - rate) / args.games)
    times = sorted(t for g in games for t in g["times"])
    rows = [g["row"] for g in games]
    print(f"{args.bot} vs 3 x {args.opponent}, {args.games} 4-player USA games")
    print(
        f"  wins {wins}/{args.games} ({100 * rate:.1f}% ± {100 * error:.1f}), "
        f"mean margin over the best opponent {statistics.mean(g['margin'] for g in games):+.1f}"
    )
    print(
        "  mean points: "
        + ", ".join(
            f"{key} {statistics.mean(row[key] for row in rows):.1f}"
            for key in ("total", "routes", "tickets_completed", "tickets_failed")
        )
        + f", tickets completed {statistics.mean(row['completed_tickets'] for row in rows):.1f}"
    )
    print(
        f"  decision time: mean {statistics.mean(times) * 1000:.0f} ms, "
        f"95th percentile {times[int(0.95 * len(times))] * 1000:.0f} ms, max {max(times):.2f} s"
        f" ({len(times)} decisions; {time.perf_counter() - started:.0f} s in all)"
    )


if __name__ == "__main__":
    main()
