"""The Card Game heuristic against random bots: wins and mean margin.

    python benchmarks/cardgame_bot.py [--games 60]

Games alternate between 2 players (greedy vs random) and 4 (greedy vs 3 x
random); the greedy bot always sits in seat 0, the deal changes with the seed.
"""

from __future__ import annotations

import argparse
import statistics

from arena.referee.faults import TimeControl
from arena.referee.referee import Referee
from arena.referee.seats import InProcessSeat
from arena.variants import get_variant
from bots import get_bot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    args = parser.parse_args()
    variant = get_variant("cardgame")
    greedy, random_bot = get_bot("cardgame-greedy"), get_bot("random")
    wins, margins = 0, []
    for game in range(args.games):
        players = 4 if game % 2 else 2
        seats = [InProcessSeat(greedy.factory(f"{game}:0"), greedy.name)]
        seats += [
            InProcessSeat(random_bot.factory(f"{game}:{s}"), random_bot.name)
            for s in range(1, players)
        ]
        outcome = Referee(variant, seats, TimeControl()).play(game)
        scores = outcome.result.scores
        wins += outcome.ranks[0] == 1
        margins.append(scores[0] - max(scores[1:]))
    print(
        f"cardgame-greedy vs random, {args.games} games (2 and 4 players): "
        f"wins {wins}/{args.games}, mean margin {statistics.mean(margins):+.1f}"
    )


if __name__ == "__main__":
    main()
