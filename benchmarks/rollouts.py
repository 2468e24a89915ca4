"""A search bot's rollouts per CPU second on the pure-Python and the compiled build, alternated.

    python benchmarks/rollouts.py [--bot mcts-fast] [--rounds 4] [--positions 12]

Each round runs the measure once per build (``ARENA_ENGINE=pure`` then ``compiled``, the
order swapped every other round), each in a fresh process: the bot's default-budget
decisions (time cap lifted) on ``--positions`` reference positions where it searches
(``bots/budgets.py``: the first reference game of ``usa`` for 4 players, spread evenly),
summing the rollouts played and the thread CPU time the decisions took. The table gives
each build's median rollouts per CPU second and their ratio, with the load average
before and after (only ratios measured this way mean anything on a shared machine).
Since ``make compiled`` builds the engine and the search bots' planner and rollouts
(``bots/policy.py``) together, the compiled build runs both.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(bot: str, count: int) -> dict[str, object]:
    """In this process: the bot's rollouts and CPU time over ``count`` reference positions."""
    sys.path.insert(0, str(ROOT))
    import arena
    from bots.budgets import decide, reference_positions, started

    found = []
    for state in reference_positions("usa", 4, 1):
        probe = started(bot, state, "probe", budget_s=1e9)
        if len(probe.candidates(state, state.legal_actions())) > 1:
            found.append(state)
    step = max(1, len(found) // count)
    rollouts, cpu = 0, 0.0
    for index, state in enumerate(found[::step][:count]):
        done = decide(started(bot, state, f"speed:{index}", budget_s=1e9), state.copy())
        rollouts += done.rollouts
        cpu += done.cpu_s
    return {"build": arena.ENGINE_BUILD, "rollouts": rollouts, "cpu": cpu}


def run(engine: str, bot: str, count: int) -> dict[str, object]:
    env = {**os.environ, "ARENA_ENGINE": engine}
    args = [sys.executable, __file__, "--child", "--bot", bot, "--positions", str(count)]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(done.stdout)
    if result["build"] != engine:
        sys.exit(f"asked for the {engine} build, ran the {result['build']} one: make compiled")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="mcts-fast")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.bot, args.positions)))
        return
    before = os.getloadavg()
    speed: dict[str, list[float]] = {"pure": [], "compiled": []}
    for round_ in range(args.rounds):
        order = ("pure", "compiled") if round_ % 2 == 0 else ("compiled", "pure")
        for engine in order:
            result = run(engine, args.bot, args.positions)
            rate = float(result["rollouts"]) / float(result["cpu"])  # type: ignore[arg-type]
            speed[engine].append(rate)
            print(
                f"round {round_ + 1} {engine:>8}: {result['rollouts']} rollouts in "
                f"{float(result['cpu']):.2f} CPU s = {rate:.0f}/s",  # type: ignore[arg-type]
                flush=True,
            )
    after = os.getloadavg()
    pure, compiled = statistics.median(speed["pure"]), statistics.median(speed["compiled"])
    print(f"{args.bot}, rollouts per CPU second (median of {args.rounds} rounds):")
    print(f"  pure {pure:.0f}  compiled {compiled:.0f}  ratio {compiled / pure:.2f}x")
    print(f"  load average before {before[0]:.2f}, after {after[0]:.2f}")


if __name__ == "__main__":
    main()
