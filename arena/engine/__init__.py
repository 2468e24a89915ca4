"""The rules engine: pure Python, no I/O beyond reading packaged map data.

Public interface (the same for every variant)::

    state = variant.new_game(num_players, seed)   # or arena.new_game("usa", 4, 7)
    state.to_move          # seat that must decide next (None when over)
    state.legal_actions()  # list of Action values
    state.apply(action)    # validates; raises IllegalActionError naming the rule
    state.observation(s)   # JSON-ready view of seat s, hiding what s may not know
    state.is_over, state.result()
"""

from arena.engine.actions import (
    Action,
    ClaimRoute,
    DrawCard,
    DrawTickets,
    KeepTickets,
    Pass,
    PlaceStack,
    TakeToken,
    parse_action,
)
from arena.engine.board import Board, BoardRules
from arena.engine.errors import IllegalActionError, NotationError, VariantUnavailableError
from arena.engine.result import GameResult
from arena.engine.state import BoardState
from arena.engine.variant import Variant

__all__ = [
    "Action",
    "Board",
    "BoardRules",
    "BoardState",
    "ClaimRoute",
    "DrawCard",
    "DrawTickets",
    "GameResult",
    "IllegalActionError",
    "KeepTickets",
    "NotationError",
    "Pass",
    "PlaceStack",
    "TakeToken",
    "Variant",
    "VariantUnavailableError",
    "parse_action",
]
