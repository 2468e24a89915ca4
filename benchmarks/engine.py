"""Engine benchmark: random games per second on one core, and the cost of one decision.

    python benchmarks/engine.py [--variant usa] [--players 4] [--games 500]

Without --variant it reports every playable variant (4 players each).

A random game is new_game + (legal_actions, uniform choice, apply) until the
end + result(). The per-decision figure times legal_actions() + apply() alone.
"""

from __future__ import annotations

import argparse
import platform
import random
import time

from arena.variants import all_variants, get_variant


def run(variant_name: str, players: int, games: int, seed: int) -> dict[str, float]:
    variant = get_variant(variant_name)
    decisions = 0
    engine_seconds = 0.0
    clock = time.perf_counter
    start = clock()
    for game in range(games):
        state = variant.new_game(players, seed + game)
        rng = random.Random(seed + game)
        while not state.is_over:
            t0 = clock()
            actions = state.legal_actions()
            t1 = clock()
            action = actions[rng.randrange(len(actions))]
            t2 = clock()
            state.apply(action)
            engine_seconds += (t1 - t0) + (clock() - t2)
            decisions += 1
        state.result()
    wall = clock() - start
    # Timing calls inflate the wall time a little; measure games/s without them too.
    start = clock()
    for game in range(games):
        state = variant.new_game(players, seed + game)
        rng = random.Random(seed + game)
        while not state.is_over:
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
        state.result()
    clean = clock() - start
    return {
        "games_per_second": games / clean,
        "decisions_per_game": decisions / games,
        "us_per_decision": engine_seconds / decisions * 1e6,
        "instrumented_games_per_second": games / wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default=None, help="one variant (default: every playable)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    names = (
        [args.variant]
        if args.variant
        else [name for name, variant in all_variants().items() if variant.playable]
    )
    for name in names:
        figures = run(name, args.players, args.games, args.seed)
        print(
            f"engine benchmark: {name}, {args.players} players, {args.games} random games, "
            f"one core, Python {platform.python_version()}"
        )
        print(f"  random games per second      {figures['games_per_second']:10.1f}")
        print(f"  decisions per game (mean)    {figures['decisions_per_game']:10.1f}")
        print(f"  legal_actions()+apply() (us) {figures['us_per_decision']:10.2f}")


if __name__ == "__main__":
    main()
