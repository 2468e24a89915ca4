"""The in-process path: trusted Python bots called directly, no sockets.

Used by ``arena play`` today and, later, by benchmarks and search bots for
research speed. A bot that returns an illegal action here is a programming
error and raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.engine.result import GameResult
from arena.engine.variant import Variant
from arena.referee.gamelog import GameLog
from bots.sdk import Bot


def play_game(
    variant: Variant, bots: Sequence[Bot], seed: int, seat_names: Sequence[str] | None = None
) -> tuple[GameResult, GameLog]:
    """Play one game with ``bots[i]`` in seat ``i``; return the result and the game log."""
    state = variant.new_game(len(bots), seed)
    names = list(seat_names) if seat_names else [bot.name for bot in bots]
    log = GameLog(variant.name, len(bots), seed, names)
    for seat, bot in enumerate(bots):
        bot.on_game_start(state.observation(seat))
    while not state.is_over:
        seat = state.to_move
        action = bots[seat].choose(state.observation(seat), state.legal_actions())
        state.apply(action)
        log.actions.append(str(action))
    result = state.result()
    log.record_result(result)
    final: dict[str, Any] = result.to_json()
    for seat, bot in enumerate(bots):
        bot.on_game_over(state.observation(seat), final)
    return result, log
