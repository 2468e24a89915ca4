"""The planner with a changed style in one seat against default planners: a cheap way to
judge a planning idea before putting it into a search bot.

    python benchmarks/planner_style.py [NAME=VALUE ...] [--games 1000] [--players 4]
                                       [--variant usa] [--seed 80000]

Each NAME=VALUE changes one field of the search bots' ``Style`` (``bots/policy.py``)
for the seat under test, e.g. ``route_overhead=3``. Game g is dealt with seed
``--seed`` + g and the seat under test rotates, so runs with different settings play
the same deals. Planners play on the engine's state directly (they read only what
their own seat may know), about 40 games a second. Prints wins and the mean margin
over the best other seat with its standard error.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import replace

from search import settings_from  # benchmarks/search.py (beside this script)

from arena.engine import BoardState
from arena.engine.errors import IllegalActionError
from arena.variants import get_variant, new_game
from bots.policy import Planner
from bots.search import SEARCH_STYLE


def margin(variant: str, players: int, seed: int, seat: int, tested: Planner, common: Planner):
    """The tested seat's score less the best other seat's, after one game."""
    state = new_game(variant, players, seed)
    if not isinstance(state, BoardState):
        raise SystemExit(f"the planner plays board games; '{variant}' is not one")
    while not state.is_over:
        mover = state.to_move
        assert mover is not None
        planner = tested if mover == seat else common
        try:
            state.apply(planner.move(state, planner.plan(state, mover)))
        except IllegalActionError:  # a rule the planner does not model: any legal move
            state.apply(state.legal_actions()[0])
    scores = state.result().scores
    return scores[seat] - max(s for p, s in enumerate(scores) if p != seat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("changes", nargs="*", metavar="NAME=VALUE")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variant", default="usa")
    parser.add_argument("--seed", type=int, default=80_000)
    args = parser.parse_args()
    changes = settings_from(args.changes, type(SEARCH_STYLE))
    variant = get_variant(args.variant)
    common = Planner(variant, SEARCH_STYLE)
    tested = Planner(variant, replace(SEARCH_STYLE, **changes))
    margins = [
        margin(args.variant, args.players, args.seed + g, g % args.players, tested, common)
        for g in range(args.games)
    ]
    wins = sum(m > 0 for m in margins)
    error = statistics.stdev(margins) / len(margins) ** 0.5
    print(
        f"{changes or 'default style'}: wins {wins}/{args.games} "
        f"({100 * wins / args.games:.1f}%), mean margin {statistics.mean(margins):+.2f} "
        f"± {error:.2f} (one standard error)"
    )


if __name__ == "__main__":
    main()
