"""Each search bot's default-budget move on the reference position set, as JSON on stdout:
run by tests/test_budgets.py once per engine build (``ARENA_ENGINE=pure`` / ``compiled``),
which says which build of the search bots' planner (``bots/policy.py``) ran.

    python tests/budget_moves.py

For every search bot, the positions of the reference set whose budget implies the most
work (``heaviest``): the bot's move there with its default budget and its time cap lifted
(the budget alone ends the search), the rollouts it played and the most its budget allows
(``samples`` a candidate), from two runs, each with a fresh bot (both moves and counts given).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import arena
import bots.policy
from arena import native
from arena.engine.state import BoardState
from bots.budgets import SEARCH_BOTS, decide, reference_positions, started

# The reference set: three games of each table (seeds 95000-95002).
TABLES = (("usa", 4), ("usa", 2))
GAMES = 3
HEAVIEST = 2  # positions per bot: the two heaviest of each


def reference_set() -> list[BoardState]:
    return [s for variant, players in TABLES for s in reference_positions(variant, players, GAMES)]


def work(name: str, state: BoardState) -> int:
    """The rollouts the bot's budget implies at ``state`` times the trains left to place (a
    rollout's length grows with them); 0 where it does not search."""
    bot = started(name, state, "work")
    # (the candidates depend only on what the seat sees: its plan and the public board)
    candidates = len(bot.candidates(state, state.legal_actions()))
    if candidates < 2:
        return 0
    return candidates * sum(state.trains)


def heaviest(name: str, states: list[BoardState]) -> list[int]:
    """The indices of the ``HEAVIEST`` positions whose budget implies the most work."""
    weights = [work(name, s) for s in states]
    ranked = sorted(range(len(states)), key=lambda i: (-weights[i], i))
    return sorted(ranked[:HEAVIEST])


def main() -> None:
    states = reference_set()
    # Which planner the rollouts ran: its compiled build is part of the engine's.
    planner = "compiled" if bots.policy.__file__.endswith(native.extension_suffix()) else "pure"
    report: dict[str, object] = {"build": arena.ENGINE_BUILD, "planner": planner, "bots": {}}
    for name in SEARCH_BOTS:
        rows = []
        for index in heaviest(name, states):
            state = states[index]
            # Twice, each with a fresh bot: the same move after the same rollouts.
            fresh = [started(name, state, f"ref:{index}", budget_s=1e9) for _ in range(2)]
            twice = [decide(bot, state.copy()) for bot in fresh]
            candidates = len(fresh[0].candidates(state, state.legal_actions()))
            budget = fresh[0].iterations
            assert budget is not None, f"{name} is a budgeted bot"
            rows.append(
                {
                    "position": state.fingerprint(),
                    "action": twice[0].action,
                    "again": twice[1].action,
                    "rollouts": twice[0].rollouts,
                    "again_rollouts": twice[1].rollouts,
                    "ceiling": budget * candidates,
                }
            )
        report["bots"][name] = {"decisions": rows}  # type: ignore[index]
    print(json.dumps(report))


if __name__ == "__main__":
    main()
