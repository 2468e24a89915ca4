"""The search bot against three copies of a published agent: 4-player USA games.

    python benchmarks/search.py [--games 20] [--opponent route-focus] [--iterations 48]

The search bot takes each seat in turn (seats rotate game by game). Reports
its wins, mean score margin over the best opponent, and its decision times.
Built-in bots play in process (the same games as through the protocol).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import ClassVar

from arena.referee.faults import TimeControl
from arena.referee.referee import Referee
from arena.referee.seats import InProcessSeat
from arena.variants import get_variant
from bots import get_bot
from bots.search import MonteCarloBot


class Timed(MonteCarloBot):
    """The search bot, recording how long each decision takes."""

    times: ClassVar[list[float]] = []

    def choose(self, observation, legal_actions):
        start = time.perf_counter()
        action = super().choose(observation, legal_actions)
        Timed.times.append(time.perf_counter() - start)
        return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--opponent", default="route-focus")
    parser.add_argument("--iterations", type=int, default=24)
    args = parser.parse_args()
    usa = get_variant("usa")
    opponent = get_bot(args.opponent)
    wins, margins = 0, []
    for game in range(args.games):
        seat = game % 4
        seats = [
            InProcessSeat(Timed(f"mc:{game}", iterations=args.iterations), "monte-carlo")
            if s == seat
            else InProcessSeat(opponent.factory(f"{game}:{s}"), args.opponent)
            for s in range(4)
        ]
        outcome = Referee(usa, seats, TimeControl()).play(50_000 + game)
        scores = outcome.result.scores
        wins += outcome.ranks[seat] == 1
        margins.append(scores[seat] - max(s for i, s in enumerate(scores) if i != seat))
        print(f"game {game + 1}: rank {outcome.ranks[seat]}, scores {list(scores)}", flush=True)
    times = Timed.times
    print(
        f"search bot vs 3 x {args.opponent}, {args.games} 4-player USA games, "
        f"{args.iterations} samples a decision"
    )
    print(
        f"  wins {wins}/{args.games} ({100 * wins / args.games:.0f}%), "
        f"mean margin over the best opponent {statistics.mean(margins):+.1f}"
    )
    print(
        f"  decision time: mean {statistics.mean(times):.2f} s, "
        f"95th percentile {sorted(times)[int(0.95 * len(times))]:.2f} s, max {max(times):.2f} s"
    )


if __name__ == "__main__":
    main()
