"""Replay viewer benchmark: what a match page's full-state steps cost next to verifying the log.

    python benchmarks/replay.py [--games 40] [--variant usa] [--players 4]

Plays ``--games`` random games in process, keeps their match logs, then times,
alternating A and B on the same log:

A. ``arena.referee.matchlog.verify``: the replay loop alone (what ``arena
   replay`` does), the reference;
B. ``leaderboards.replay.replay_steps``: the same loop plus every seat's
   observation at every step, the organiser's scores so far, the patches, the
   step names and the game-over scoring (what one match page of the site needs).

Reports the mean CPU time of each (process time: the machine may be shared), the
ratio B / A, and the size of a page's step data (compact JSON, as written into
``matches/N.js``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from arena.referee.matchlog import MatchLog, verify
from arena.variants import new_game
from leaderboards.replay import replay_steps


def random_log(variant: str, players: int, seed: int) -> MatchLog:
    state = new_game(variant, players, seed=seed)
    rng = random.Random(seed)
    actions: list[dict] = []
    while not state.is_over:
        action = rng.choice(state.legal_actions())
        actions.append({"n": len(actions) + 1, "seat": state.to_move, "action": str(action)})
        state.apply(action)
    result = state.result()
    header = {
        "variant": variant,
        "rules": state.variant.rules_version,
        "players": players,
        "seed": seed,
        "seats": [{"seat": s, "bot": "random"} for s in range(players)],
    }
    ranks = list(result.ranks)
    final = {"scores": list(result.scores), "ranks": ranks, "engine_ranks": ranks}
    return MatchLog(header=header, actions=actions, result=final)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--variant", default="usa")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    logs = [random_log(args.variant, args.players, seed) for seed in range(args.games)]
    verify_times, page_times, sizes, steps = [], [], [], []
    for log in logs:
        start = time.process_time()
        verify(log)
        verify_times.append(time.process_time() - start)
        start = time.process_time()
        data = replay_steps(log)
        page_times.append(time.process_time() - start)
        sizes.append(len(json.dumps(data, separators=(",", ":"))))
        steps.append(len(data["steps"]))
    a, b = statistics.mean(verify_times), statistics.mean(page_times)
    ratios = [p / v for p, v in zip(page_times, verify_times, strict=True)]
    print(
        f"{args.games} random {args.players}-player {args.variant} games, "
        f"{statistics.mean(steps):.0f} steps on average"
    )
    print(f"A verify (the replay loop alone):     {1000 * a:8.1f} ms CPU per match")
    print(f"B replay_steps (a match page's data): {1000 * b:8.1f} ms CPU per match")
    print(
        f"ratio B / A: mean {statistics.mean(ratios):.1f}x, median {statistics.median(ratios):.1f}x"
    )
    print(
        f"page step data: mean {statistics.mean(sizes) / 1024:.0f} KB, "
        f"max {max(sizes) / 1024:.0f} KB"
    )


if __name__ == "__main__":
    main()
