"""What each search bot's budget costs: CPU time per searched reference decision.

    python benchmarks/budgets.py [--bot mcts ...] [--table usa:4 --table usa:2 ...]
                                 [--games 20] [--every 1] [--seed 95000]
                                 [--set NAME=VALUE ...] [--capped] [--workers 2]
                                 [--out FILE]

Reference positions come from real games (``bots/budgets.py``: ``--games`` games per
``--table``, variant and players, seeds ``--seed`` on, played by fast bots without
search, seats rotated). For each ``--bot`` (default: every search bot with a budget),
the bot moves as the seat to move on each position (or every ``--every``-th) where it
searches (more than one candidate), a fresh bot seeded by the position's index.
Reported: the thread CPU time of each decision (mean, 50th, 95th and 99th percentiles,
max) against the bot's time cap, the decisions whose CPU time passed the cap, and the
rollouts. The cap itself is lifted (so each decision plays its whole budget) unless
``--capped``. ``--set samples=40`` (repeatable) changes a setting of the bots measured.
Positions are spread over ``--workers`` processes; the engine build is the one
``ARENA_ENGINE`` selects (compiled when built). ``--out FILE`` appends each decision
(bot, position, CPU time, rollouts, move) to FILE as a JSON line.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from search import settings_from  # benchmarks/search.py (beside this script)

import arena
from arena.engine.state import BoardState
from arena.variants import get_variant
from bots import get_bot
from bots.budgets import SEARCH_BOTS, SEED, decide, percentile, reference_positions
from bots.budgets import started as started_bot
from bots.search import MonteCarloBot


def positions(tables: list[str], games: int, seed: int) -> list[tuple[str, str]]:
    """(variant, position text) of every reference position of ``tables``."""
    found = []
    for table in tables:
        variant, _, players = table.partition(":")
        for state in reference_positions(variant, int(players), games, seed):
            found.append((variant, state.to_position()))
    return found


def measure(item: tuple[int, str, str], bot: str, settings: dict, capped: bool) -> dict | None:
    index, variant, text = item
    state = get_variant(variant).from_position(text)
    assert isinstance(state, BoardState)
    if not capped:
        settings = {"budget_s": 1e9, **settings}
    player = started_bot(bot, state, f"ref:{index}", **settings)
    # The candidates depend only on what the seat sees (its plan, the public board).
    if len(player.candidates(state, state.legal_actions())) < 2:
        return None  # not searched
    decision = decide(player, state)
    return {
        "position": index,
        "cpu": decision.cpu_s,
        "rollouts": decision.rollouts,
        "capped": decision.out_of_time,
        "action": decision.action,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", action="append", help="repeatable; default: every search bot")
    parser.add_argument("--table", action="append", help="VARIANT:PLAYERS, repeatable")
    parser.add_argument("--games", type=int, default=20, help="reference games per table")
    parser.add_argument("--every", type=int, default=1, help="measure every Nth position")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--capped", action="store_true", help="keep the bots' time caps")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", help="write each decision as a JSON line to this file")
    args = parser.parse_args()
    settings = settings_from(args.set)
    for bot in args.bot or list(SEARCH_BOTS):  # a name a bot does not take: one line, now
        settings_from(args.set, get_bot(bot).factory)
    tables = args.table or ["usa:4", "usa:2"]
    started = time.perf_counter()
    found = positions(tables, args.games, args.seed)
    print(
        f"{len(found)} reference positions from {args.games} games each of {', '.join(tables)} "
        f"(seeds {args.seed}+), engine build: {arena.ENGINE_BUILD}",
        flush=True,
    )
    with ProcessPoolExecutor(args.workers) as pool:
        for bot in args.bot or list(SEARCH_BOTS):
            probe = functools.partial(measure, bot=bot, settings=settings, capped=args.capped)
            items = [(i, v, t) for i, (v, t) in enumerate(found)][:: args.every]
            rows = [r for r in pool.map(probe, items, chunksize=4) if r]
            label = " ".join([bot, *args.set])
            if args.out:
                with open(args.out, "a") as out:
                    out.writelines(json.dumps({"bot": label, **r}) + "\n" for r in rows)
            cpu = [r["cpu"] for r in rows]
            default = get_bot(bot).factory(0)
            assert isinstance(default, MonteCarloBot)
            cap = float(settings.get("budget_s", default.budget_s))
            over = sum(c > cap for c in cpu)
            print(f"{label}: {len(rows)} searched decisions")
            print(
                f"  CPU time: mean {1000 * statistics.mean(cpu):.0f} ms, "
                f"50th {1000 * percentile(cpu, 0.5):.0f} ms, "
                f"95th {1000 * percentile(cpu, 0.95):.0f} ms, "
                f"99th {1000 * percentile(cpu, 0.99):.0f} ms, max {1000 * max(cpu):.0f} ms; "
                f"cap {1000 * cap:.0f} ms, passed by {over} ({100 * over / len(cpu):.1f}%)"
            )
            print(
                f"  rollouts: mean {statistics.mean(r['rollouts'] for r in rows):.0f}, "
                f"max {max(r['rollouts'] for r in rows)}; "
                f"ended by the cap: {sum(r['capped'] for r in rows)}",
                flush=True,
            )
    print(f"({time.perf_counter() - started:.0f} s in all)")


if __name__ == "__main__":
    main()
