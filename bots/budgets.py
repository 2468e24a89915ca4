"""What a search bot's budget costs: reference positions from real games, and the CPU time,
rollouts and move of one searched decision on each.

The search bots (``monte-carlo``, ``monte-carlo-fast``, ``mcts``, ``mcts-fast``) stop on
a budget of rollouts, so that their games are reproducible given their seed; their time
cap is a safety net. Whether the net is ever used depends on what a budget costs, which
``benchmarks/budgets.py`` measures with these helpers (docs/BOTS.md has the figures) and
``tests/test_budgets.py`` checks.

A reference position is a state some seat had to move in, in a game played to its end
by fast bots without search (the planner, ``ticket-by-ticket``, ``fdg-long-route-fixed``
and ``greedy-claims``, seats rotated game by game): setups, ticket keeps and every turn.
Each bot is measured as the seat to move on the positions where it searches (more than
one candidate), in its own process: the decision's CPU time (the thread's, so other
programs on the machine do not count), its rollouts and whether the cap ended it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from arena.engine.state import SAMPLEABLE, BoardState
from arena.variants import new_game
from bots import get_bot
from bots.sdk import Bot
from bots.search import MonteCarloBot

# The bots that play the reference games, rotated over the seats game by game.
PLAYERS = ("planner", "ticket-by-ticket", "fdg-long-route-fixed", "greedy-claims")
# The search bots with a budget (their ``-timed`` twins have none).
SEARCH_BOTS = ("monte-carlo", "monte-carlo-fast", "mcts", "mcts-fast")
SEED = 95_000  # reference games: seeds 95000 and on, never used for tuning or figures


def reference_game(variant: str, players: int, seed: int) -> Iterator[BoardState]:
    """Every state of one game where a seat chose among several legal actions, in order."""
    state = new_game(variant, players, seed)
    assert isinstance(state, BoardState)
    board = state.variant.board.public_json()
    bots: list[Bot] = []
    for seat in range(players):
        bot = get_bot(PLAYERS[(seat + seed) % len(PLAYERS)]).factory(f"{seed}:{seat}")
        bot.start_game(f"{seed}:{seat}", state.observation(seat), board)
        bots.append(bot)
    while not state.is_over:
        seat = state.to_move
        assert seat is not None
        legal = state.legal_actions()
        if len(legal) > 1 and state.phase in SAMPLEABLE:
            yield state.copy()
        state.apply(bots[seat].choose(state.observation(seat), legal))


def reference_positions(
    variant: str = "usa", players: int = 4, games: int = 10, seed: int = SEED
) -> list[BoardState]:
    """The decision states of ``games`` reference games (seeds ``seed`` on)."""
    return [s for g in range(games) for s in reference_game(variant, players, seed + g)]


def started(name: str, state: BoardState, seed: int | str = 0, **settings: object) -> MonteCarloBot:
    """Bot ``name`` (with ``settings``) ready to move as the seat to move in ``state``."""
    factory: Callable[..., Bot] = get_bot(name).factory
    bot = factory(seed, **settings)
    assert isinstance(bot, MonteCarloBot), f"{name} is not a search bot"
    seat = state.to_move
    assert seat is not None
    bot.start_game(seed, state.observation(seat), state.variant.board.public_json())
    return bot


@dataclass(frozen=True)
class Decision:
    cpu_s: float  # the thread's CPU time for the whole decision
    rollouts: int
    out_of_time: bool  # the cap, not the budget, ended the search
    action: str


def decide(
    bot: MonteCarloBot, state: BoardState, clock: Callable[[], float] | None = None
) -> Decision:
    """``bot`` moves at ``state``; ``clock``, if given, is the clock its cap is read on."""
    if clock is not None:
        bot.clock = clock  # type: ignore[method-assign]
    bot.rollouts, bot.out_of_time = 0, False
    seat = state.to_move
    assert seat is not None
    start = time.thread_time()
    action = bot.choose(state.observation(seat), state.legal_actions())
    cpu = time.thread_time() - start
    return Decision(cpu, bot.rollouts, bot.out_of_time, str(action))


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ``values``, the nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(round(q * len(ordered), 9)) - 1)]
