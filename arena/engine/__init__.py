"""The rules engine: pure Python, no I/O beyond reading packaged map data.

Public interface (the same for every variant, ``GameState`` is its contract)::

    state = variant.new_game(num_players, seed)   # or arena.variants.new_game(NAME, 4, 7)
    state.to_move          # seat that must decide next (None when over)
    state.legal_actions()  # list of Action values
    state.apply(action)    # validates; raises IllegalActionError naming the rule
    state.observation(s)   # typed view of seat s (a msgspec Struct), hiding what s may not know
    state.is_over, state.result()
    state.to_position()    # the whole state as JSON; variant.from_position(text) reads it
    state.resample(s, rng) # a full state consistent with seat s's observation

This folder holds only what every game shares: the contract and its shared
skeleton (``game.py``), the base board game (``board.py``, ``state.py``),
actions and the notation registry, observations, positions, scoring helpers,
results and errors. Each edition lives in its own module under
``arena/variants/``.
"""

from arena.engine.actions import (
    DRAW_DECK,
    DRAW_TICKETS,
    PASS,
    Action,
    BoardAction,
    ClaimRoute,
    DrawCard,
    DrawTickets,
    KeepTickets,
    Notation,
    Pass,
    parse_action,
    verb,
)
from arena.engine.board import Board, BoardRules
from arena.engine.errors import (
    IllegalActionError,
    NotationError,
    PositionError,
    RulesVersionError,
    VariantUnavailableError,
)
from arena.engine.game import GameBase, GameState, keep_choices
from arena.engine.observation import BoardObservation, BoardSeatView, Observation, TicketView
from arena.engine.position import BoardPosition, Position
from arena.engine.result import GameResult, ScoreLabel
from arena.engine.state import BoardState
from arena.engine.variant import Variant

__all__ = [
    "DRAW_DECK",
    "DRAW_TICKETS",
    "PASS",
    "Action",
    "Board",
    "BoardAction",
    "BoardObservation",
    "BoardPosition",
    "BoardRules",
    "BoardSeatView",
    "BoardState",
    "ClaimRoute",
    "DrawCard",
    "DrawTickets",
    "GameBase",
    "GameResult",
    "GameState",
    "IllegalActionError",
    "KeepTickets",
    "Notation",
    "NotationError",
    "Observation",
    "Pass",
    "Position",
    "PositionError",
    "RulesVersionError",
    "ScoreLabel",
    "TicketView",
    "Variant",
    "VariantUnavailableError",
    "keep_choices",
    "parse_action",
    "verb",
]
