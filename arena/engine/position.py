"""Positions: a whole game state as JSON, beside the move notation (as FEN is beside SAN).

``state.to_position()`` writes one; ``variant.from_position(text)`` reads it
back into a state that is the same in every respect (same legal actions, same
future under the same actions: the shuffling generator's state is part of it).
docs/NOTATION.md documents every field. Unlike an observation a position
holds everything, hidden cards included: it is for tests, tools, search and
learning, never for a seat.

Cards are written by name (``"red"``, ``"wild"``), tickets by id and routes by
id, as in the map data; lists that are piles run from the bottom to the top
(the last entry is drawn next). Each game extends these Structs with its own
fields; reading checks the types (msgspec) and then the game's own rules
(every card and ticket accounted for once, seats and phases that exist).
"""

from __future__ import annotations

import msgspec

# random.Random.getstate(): (version, 625 words of Mersenne Twister state, gauss_next)
RandomState = tuple[int, tuple[int, ...], float | None]


class Position(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """What every game of the family holds."""

    variant: str
    players: int
    seed: int | None  # the game's seed (None for a sampled state); informative only
    rng: RandomState  # the generator that shuffles from here on
    first_player: int
    turn: int
    phase: str
    to_move: int
    passes: int
    turns_left: int | None
    deck: list[str]  # bottom first: the last card is drawn next
    discards: dict[str, int]
    display: list[str | None]
    hands: list[dict[str, int]]
    ticket_deck: list[int]  # ticket ids, bottom first
    tickets: list[list[int]]  # held, per seat
    offers: list[list[int]]  # drawn and not yet kept or returned, per seat
    setup_returns: list[int]  # returned at setup, waiting until every seat has chosen


class BoardPosition(Position, kw_only=True):
    """A board game: the routes each seat claimed, in the order it claimed them."""

    routes: list[list[int]]
