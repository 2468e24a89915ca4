"""Engine benchmark: random games per second on one core, and the cost of one decision.

    python benchmarks/engine.py [--variant usa] [--players 4] [--games 500]
    python benchmarks/engine.py --against ../engine-base [--engine pure] [--rounds 4]
    python benchmarks/engine.py --builds [--rounds 4]

Without --variant it reports every playable variant (4 players each).

A random game is new_game + (legal_actions, uniform choice, apply) until the
end + result(). Two per-decision figures: the CPU time of whole random games
(``time.process_time``) over their decisions, and the wall time
(``time.perf_counter``) of legal_actions() + apply() alone, timed around each
call (a wall figure: another process's load moves it). The copy figure is the CPU
time of ``state.copy()`` on positions of those games.

``--against DIR`` measures this tree against another checkout of the project (a
pristine copy of the engine, e.g. ``git worktree add ../engine-base main``) in one
run: each round runs this benchmark once per tree and variant in a fresh process,
alternating which tree goes first (A B, then B A), and the table gives each
tree's median and the ratio, in CPU time (games per CPU second and CPU per
decision: the load of other processes on a shared machine moves it far less than
wall time). Only ratios
measured this way mean anything on a shared machine. ``--engine`` picks the
build this tree runs (ARENA_ENGINE: auto, pure, compiled; arena/native.py).

``--builds`` compares the two builds of this tree the same way: its pure-Python
engine (A) and its mypyc-compiled build (B, ``make compiled``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from importlib.metadata import entry_points
from pathlib import Path

import arena
from arena.engine import Variant
from arena.variants import all_variants, get_variant


def variant_alone(name: str) -> Variant:
    """The variant ``name`` from the variant entry points alone, no bot plugin loaded: with
    ``--against`` the engine measured may be another version's, whose tree lacks (or has
    other) modules for the bots that the installed package names."""
    own = name.split("-")[0]  # cardgame-peek comes with cardgame
    entries = sorted(entry_points(group="arena.variants"), key=lambda entry: entry.name != own)
    for entry in entries:
        try:
            provided = entry.load().arena_variants()
        except ImportError:  # a plugin written for another version of the engine
            continue
        for variant in provided:
            if variant.name == name:
                found: Variant = variant
                return found
    return get_variant(name)  # not found alone: the full registry says why


def run(variant_name: str, players: int, games: int, seed: int) -> dict[str, float]:
    variant = variant_alone(variant_name)
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
    # Timing calls inflate the wall time a little; measure games/s without them too, in
    # wall time and in this process's CPU time (which other processes' load barely moves).
    start, cpu = clock(), time.process_time()
    for game in range(games):
        state = variant.new_game(players, seed + game)
        rng = random.Random(seed + game)
        while not state.is_over:
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
        state.result()
    clean, cpu = clock() - start, time.process_time() - cpu
    return {
        "copy_us": copy_cost(variant, players, games, seed),
        "games_per_second": games / clean,
        "cpu_games_per_second": games / cpu,
        "decisions_per_game": decisions / games,
        "cpu_us_per_decision": cpu / decisions * 1e6,  # whole games, CPU
        "wall_us_per_decision": engine_seconds / decisions * 1e6,  # the two calls, wall
        "instrumented_games_per_second": games / wall,
    }


def copy_cost(variant: Variant, players: int, games: int, seed: int) -> float:
    """Microseconds of CPU per ``state.copy()`` over the positions of random games (every
    fifth decision of up to 100 of them), copying each position 20 times."""
    states = []
    for game in range(min(games, 100)):
        state = variant.new_game(players, seed + game)
        rng = random.Random(seed + game)
        decision = 0
        while not state.is_over:
            if decision % 5 == 0:
                states.append(state.copy())
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
            decision += 1
    cpu = time.process_time()
    for state in states:
        for _ in range(20):
            state.copy()
    return (time.process_time() - cpu) / (20 * len(states)) * 1e6


HERE = Path(__file__).resolve().parent.parent


def measure_in(
    tree: Path, engine: str, name: str, players: int, games: int, seed: int
) -> dict[str, float]:
    """This benchmark, run on the engine of ``tree`` (``engine``: the ARENA_ENGINE build it
    asks for) in a fresh Python process."""
    env = {**os.environ, "PYTHONPATH": str(tree), "ARENA_ENGINE": engine}
    args = [sys.executable, __file__, "--variant", name, "--players", str(players)]
    args += ["--games", str(games), "--seed", str(seed), "--json"]
    out = subprocess.run(args, env=env, capture_output=True, text=True, check=False, cwd=tree)
    if out.returncode:
        last = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"error: {name} on the engine of {tree}: {last}")
    figures: dict[str, float] = json.loads(out.stdout)
    return figures


Side = tuple[Path, str]  # a tree, and the engine build asked of it


def compare(
    sides: dict[str, Side], names: list[str], players: int, games: int, rounds: int
) -> None:
    """Alternate runs of side A and side B; print medians and ratios."""
    runs: dict[tuple[str, str], list[dict[str, float]]] = {}
    builds: dict[str, set[str]] = {"A": set(), "B": set()}
    for round_ in range(rounds):
        order = "AB" if round_ % 2 == 0 else "BA"
        for name in names:
            for side in order:
                tree, engine = sides[side]
                figures = measure_in(tree, engine, name, players, games, 0)
                builds[side].add(str(figures.pop("build", "pure")))
                runs.setdefault((side, name), []).append(figures)
    for side, (tree, _) in sides.items():
        print(f"{side} = {tree} ({' and '.join(sorted(builds[side]))} engine)")
    print(
        f"{players} players, {games} random games a run, {rounds} runs each, A/B alternated;"
        " games per CPU second, CPU microseconds per decision (whole random games) and per"
        " copy()"
    )
    print(
        f"{'variant':<15}{'A games/s':>11}{'B games/s':>11}{'B/A':>7}"
        f"{'A us/dec':>10}{'B us/dec':>10}{'B/A':>7}{'A copy':>9}{'B copy':>9}{'A/B':>7}"
        f"{'A dec/game':>12}{'B dec/game':>12}"
    )
    for name in names:
        a, b = runs[("A", name)], runs[("B", name)]

        def median(figures: list[dict[str, float]], key: str) -> float:
            return statistics.median(f[key] for f in figures)

        ga, gb = median(a, "cpu_games_per_second"), median(b, "cpu_games_per_second")
        ua, ub = median(a, "cpu_us_per_decision"), median(b, "cpu_us_per_decision")
        ca, cb = median(a, "copy_us"), median(b, "copy_us")
        da, db = median(a, "decisions_per_game"), median(b, "decisions_per_game")
        print(
            f"{name:<15}{ga:>11.1f}{gb:>11.1f}{gb / ga:>7.3f}"
            f"{ua:>10.2f}{ub:>10.2f}{ub / ua:>7.3f}{ca:>9.2f}{cb:>9.2f}{ca / cb:>7.2f}"
            f"{da:>12.1f}{db:>12.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default=None, help="one variant (default: every playable)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="one variant's figures as JSON")
    parser.add_argument("--against", type=Path, help="another checkout to compare with")
    parser.add_argument(
        "--builds",
        action="store_true",
        help="compare this tree's pure-Python engine (A) with its compiled build (B)",
    )
    parser.add_argument(
        "--engine",
        choices=("auto", "pure", "compiled"),
        default="auto",
        help="the build of this tree's engine to run with --against (ARENA_ENGINE)",
    )
    parser.add_argument("--rounds", type=int, default=4, help="runs per side with a comparison")
    args = parser.parse_args()
    names = (
        [args.variant]
        if args.variant
        else [name for name, variant in all_variants().items() if variant.playable]
    )
    if args.against and not (args.against / "arena" / "engine").is_dir():
        raise SystemExit(f"error: --against {args.against}: not a checkout of the project")
    if args.against or args.builds:
        sides: dict[str, Side] = (
            {"A": (HERE, "pure"), "B": (HERE, "compiled")}
            if args.builds
            else {"A": (args.against.resolve(), "auto"), "B": (HERE, args.engine)}
        )
        compare(sides, names, args.players, args.games, args.rounds)
        return
    if args.json:
        figures = run(names[0], args.players, args.games, args.seed)
        print(json.dumps({**figures, "build": getattr(arena, "ENGINE_BUILD", "pure")}))
        return
    for name in names:
        figures = run(name, args.players, args.games, args.seed)
        print(
            f"engine benchmark: {name}, {args.players} players, {args.games} random games, "
            f"one core, Python {platform.python_version()}, {arena.ENGINE_BUILD} engine"
        )
        print(f"  random games per second, wall {figures['games_per_second']:9.1f}")
        print(f"  random games per CPU second  {figures['cpu_games_per_second']:10.1f}")
        print(f"  decisions per game (mean)    {figures['decisions_per_game']:10.1f}")
        print(f"  CPU per decision (us)        {figures['cpu_us_per_decision']:10.2f}")
        print(f"  legal_actions()+apply(), wall (us) {figures['wall_us_per_decision']:4.2f}")
        print(f"  copy(), CPU (us)             {figures['copy_us']:10.2f}")


if __name__ == "__main__":
    main()
