"""Environment benchmark: PettingZoo steps per second next to the raw engine's moves per second.

    python benchmarks/envs.py [--variant usa] [--players 2] [--games 40] [--rounds 6]

Both sides play the same seeded random games in one process, one core, in CPU time (the load
of other processes on a shared machine moves it far less than wall time), alternating A and B
every round (A B, then B A):

- A, the raw engine: ``legal_actions()``, a uniform choice, ``apply()``;
- B, the environment: ``env.last()`` (the seat's typed observation, encoded, and the action
  mask), a uniform choice among the mask's legal indices, ``env.step(index)``.

The figure is B's rate over A's (median of the per-round ratios): the issue's goal is >= 0.5.
The engine build is the process's: ``ARENA_ENGINE=pure`` for the Python source.
For context it also times A+, the raw engine plus the mover's typed observation (what every
bot's loop pays), and gives B over A+: the environment's own cost (encoding, mask, API).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

import arena
from arena.envs import aec
from arena.variants import get_variant


def raw_engine(variant: str, players: int, games: int, seed: int) -> int:
    """Random games on the engine alone; the number of moves played."""
    rules = get_variant(variant)
    moves = 0
    for game in range(games):
        state = rules.new_game(players, seed + game)
        rng = random.Random(seed + game)
        while not state.is_over:
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
            moves += 1
    return moves


def engine_with_observation(variant: str, players: int, games: int, seed: int) -> int:
    """The raw engine plus the mover's typed observation: what every bot's loop pays."""
    rules = get_variant(variant)
    moves = 0
    for game in range(games):
        state = rules.new_game(players, seed + game)
        rng = random.Random(seed + game)
        while state.to_move is not None:
            state.observation(state.to_move)
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
            moves += 1
    return moves


def environment(variant: str, players: int, games: int, seed: int) -> int:
    """The same number of random masked games through the AEC environment; steps played."""
    env = aec(variant, players)
    steps = 0
    for game in range(games):
        env.reset(seed=seed + game)
        rng = random.Random(seed + game)
        while True:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                break
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return steps


def timed(fn, *args: object) -> float:
    """Moves (or steps) per CPU second of one call."""
    start = time.process_time()
    count = fn(*args)
    return count / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="usa")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    job = (args.variant, args.players, args.games, args.seed)
    environment(args.variant, args.players, 2, args.seed)  # build the spaces once, warm up
    raw, observed, env, ratios, own = [], [], [], [], []
    for round_ in range(args.rounds):
        order = (raw_engine, engine_with_observation, environment)
        rates = {fn.__name__: timed(fn, *job) for fn in order[:: 1 if round_ % 2 == 0 else -1]}
        raw.append(rates["raw_engine"])
        observed.append(rates["engine_with_observation"])
        env.append(rates["environment"])
        ratios.append(rates["environment"] / rates["raw_engine"])
        own.append(rates["environment"] / rates["engine_with_observation"])
    print(
        f"{args.variant}, {args.players} players, {args.games} games x {args.rounds} rounds "
        f"(CPU time, one core, A/B alternating; the {arena.ENGINE_BUILD} engine)"
    )
    print(f"  raw engine   {statistics.median(raw):>9,.0f} moves/s (median)")
    print(f"  + observation{statistics.median(observed):>9,.0f} moves/s (median)")
    print(f"  environment  {statistics.median(env):>9,.0f} steps/s (median)")
    print(
        f"  ratio        {statistics.median(ratios):.2f}  "
        f"(per round: {', '.join(f'{r:.2f}' for r in ratios)}; goal >= 0.5)"
    )
    print(f"  environment / (engine + observation)  {statistics.median(own):.2f}")


if __name__ == "__main__":
    main()
