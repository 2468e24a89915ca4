"""In-process referee benchmark: the referee's CPU per decision against the engine it drives.

    python benchmarks/referee_inprocess.py [--rounds 30] [--games 5] [--players 4]
    python benchmarks/referee_inprocess.py --against ../ttr-base [--runs 6]

Two sides in one process, alternated every round (A then B, then B then A), each round
short (``--games`` USA games of ``--players`` seats), CPU time (``time.process_time``:
another process's load moves it far less than wall time); the figure is the median of the
per-round ratios B / A (the goal: <= 2x).

- A, the engine: the same random games on the engine alone: ``new_game``, then
  ``legal_actions()``, a uniform choice and ``apply()`` until the end, then ``result()``.
- B, the referee: the same number of games played by ``Referee`` with every seat an
  in-process ``random`` bot (``arena play --in-process``): the engine's work plus the
  seat's observation, the bot's call, the check of its choice, the match log's lines and
  the game's header and result.

For context it also reports the CPU of ``state.observation(seat)`` per decision (what
an in-process bot is handed every decision; the engine builds it, the referee asks for
it once per decision) against A.

``--against DIR`` compares this tree's referee with another checkout's (``git worktree
add ../ttr-base main``) in one run: ``--runs`` fresh processes of this benchmark per tree,
alternating which tree goes first; it prints each tree's median referee CPU per decision
and referee / engine ratio, and the ratio of the referees (this tree over the other).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import arena
from arena.referee.referee import Referee
from arena.referee.seats import InProcessSeat
from arena.variants import get_variant
from bots.random_bot import RandomBot

clock = time.process_time


def engine_round(players: int, games: int, first_seed: int) -> tuple[float, int]:
    """CPU seconds per decision of ``games`` random games on the engine alone."""
    usa = get_variant("usa")
    decisions = 0
    start = clock()
    for game in range(games):
        state = usa.new_game(players, first_seed + game)
        rng = random.Random(first_seed + game)
        while not state.is_over:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            decisions += 1
        state.result()
    return (clock() - start) / decisions, decisions


def referee_round(referee: Referee, games: int, first_seed: int) -> tuple[float, int]:
    """CPU seconds per decision of ``games`` refereed games of in-process random bots."""
    decisions = 0
    start = clock()
    for game in range(games):
        outcome = referee.play(first_seed + game)
        assert not outcome.faults, outcome.faults
        decisions += outcome.decisions
    return (clock() - start) / decisions, decisions


def observation_cost(players: int, games: int, first_seed: int) -> float:
    """CPU seconds of ``state.observation(to_move)`` per decision over random games."""
    usa = get_variant("usa")
    spent, decisions = 0.0, 0
    for game in range(games):
        state = usa.new_game(players, first_seed + game)
        rng = random.Random(first_seed + game)
        while not state.is_over:
            seat = state.to_move
            assert seat is not None
            start = clock()
            state.observation(seat)
            spent += clock() - start
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            decisions += 1
    return spent / decisions


HERE = Path(__file__).resolve().parent.parent


def against(other: Path, runs: int, rounds: int, games: int) -> None:
    """Alternate fresh runs of this benchmark on ``other``'s tree (A) and this one (B)."""
    trees = {"A": other.resolve(), "B": HERE}
    figures: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
    for run in range(runs):
        for side in "AB" if run % 2 == 0 else "BA":
            env = {**os.environ, "PYTHONPATH": str(trees[side])}
            args = [sys.executable, __file__, "--json", "--rounds", str(rounds)]
            out = subprocess.run(
                [*args, "--games", str(games)],
                env=env,
                cwd=trees[side],
                capture_output=True,
                text=True,
                check=True,
            )
            figures[side].append(json.loads(out.stdout))
    for side, tree in trees.items():
        rows = figures[side]
        referee = statistics.median(f["referee_us"] for f in rows)
        ratio = statistics.median(f["ratio"] for f in rows)
        print(f"{side} = {tree}: referee {referee:.2f} us CPU a decision, {ratio:.2f} x the engine")
    paired = zip(figures["A"], figures["B"], strict=True)
    pairs = [b["referee_us"] / a["referee_us"] for a, b in paired]
    print(
        f"B / A, referee CPU per decision: median {statistics.median(pairs):.3f} "
        f"(runs {', '.join(f'{p:.3f}' for p in pairs)}; {runs} runs of {rounds} rounds each)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--games", type=int, default=5, help="games per side and round")
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6))
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument("--runs", type=int, default=6, help="runs per tree with --against")
    parser.add_argument("--json", action="store_true", help="the medians as JSON")
    args = parser.parse_args()
    if args.against:
        against(args.against, args.runs, args.rounds, args.games)
        return
    usa = get_variant("usa")
    seats = [InProcessSeat(RandomBot(0), "random") for _ in range(args.players)]
    referee = Referee(usa, seats)
    referee_round(referee, 2, 10_000)  # warm-up: imports, interned actions, caches
    engine_round(args.players, 2, 10_000)
    engine_us, referee_us, ratios, observation_us = [], [], [], []
    decisions = 0
    for round_ in range(args.rounds):
        seed = 1000 * round_
        order = ("engine", "referee") if round_ % 2 == 0 else ("referee", "engine")
        for side in order:
            if side == "engine":
                engine, _ = engine_round(args.players, args.games, seed)
            else:
                per, played = referee_round(referee, args.games, seed)
        decisions += played
        engine_us.append(engine * 1e6)
        referee_us.append(per * 1e6)
        ratios.append(per / engine)
        observation_us.append(observation_cost(args.players, 1, seed) * 1e6)
    engine_median = statistics.median(engine_us)
    if args.json:
        figures = {
            "engine_us": engine_median,
            "referee_us": statistics.median(referee_us),
            "ratio": statistics.median(ratios),
        }
        print(json.dumps(figures))
        return
    print(
        f"in-process referee benchmark: {args.players} in-process random bots on USA, "
        f"{args.rounds} rounds of {args.games} games per side ({decisions} refereed "
        f"decisions), A/B alternated, {arena.ENGINE_BUILD} engine, CPU time"
    )
    print(f"  A engine alone, CPU per decision (median)      {engine_median:8.2f} us")
    referee_median = statistics.median(referee_us)
    print(f"  B referee, CPU per decision (median)           {referee_median:8.2f} us")
    print(
        f"  ratio B / A (median of rounds)                 {statistics.median(ratios):8.2f} x"
        f"   (rounds: {', '.join(f'{r:.2f}' for r in ratios)}; goal: <= 2x)"
    )
    obs = statistics.median(observation_us)
    print(
        f"  of which observation(seat), per decision       {obs:8.2f} us"
        f"   ({obs / engine_median:.2f} x A)"
    )


if __name__ == "__main__":
    main()
