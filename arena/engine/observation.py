"""Observations: what one seat may know, as typed msgspec Structs.

``state.observation(seat)`` returns one of these. They are the protocol's
``observation`` (the same JSON as before they were typed), they appear in its
JSON Schema, and bots read them by attribute: ``observation.public[2].trains``.

Every game's observation extends ``Observation`` (what every game of the
family shows); the board games use ``BoardObservation``, and each edition
extends that, in its own module under ``arena/variants/``, with its own
components. Reading by key, ``observation["phase"]`` and
``observation.get("turns_left")``, still works for bots written when
observations were dicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import msgspec


class View(msgspec.Struct, frozen=True, kw_only=True):
    """Base of every observation part: immutable, read by attribute (or by key)."""

    def __getitem__(self, key: str) -> Any:
        if key not in self.__struct_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        """The field ``key``, or ``default`` when this observation has no such field."""
        return getattr(self, key) if key in self.__struct_fields__ else default

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (dicts and lists), exactly what goes on the wire."""
        data: dict[str, Any] = msgspec.to_builtins(self, str_keys=True)  # JSON's keys are text
        return data


class TicketView(View, frozen=True):
    """A destination ticket: its id (1-based, as in the map data), its cities and points."""

    id: int
    a: str
    b: str
    points: int


class SeatView(View, frozen=True):
    """What everyone knows about one seat. ``tickets`` and ``offered`` (tickets drawn and not
    yet kept or returned) are ``None`` for the other seats while the initial choice is open."""

    seat: int
    hand_size: int
    tickets: int | None
    offered: int | None


class Observation(View, frozen=True):
    """What every game of the family shows a seat (board games and others alike)."""

    variant: str
    seat: int
    players: int
    first_player: int
    turn: int
    phase: str
    to_move: int | None
    hand: dict[str, int]
    tickets: Sequence[TicketView]
    offered_tickets: Sequence[TicketView]  # this seat's pending choice, if it is choosing
    display: list[str | None]
    deck_size: int
    discards: dict[str, int]
    ticket_deck_size: int
    public: Sequence[SeatView]
    passes: int  # players who passed in a row
    last_round: bool
    turns_left: int | None


class BoardSeatView(SeatView, frozen=True):
    """A seat on a board: pieces left, points from routes so far, routes claimed (ids)."""

    trains: int
    route_points: int
    routes: list[int]


class BoardObservation(Observation, frozen=True):
    """What a seat of a board game sees; ``claimed`` maps route id to seat: ints here, as
    ``obs.claimed.get(57)`` expects; text in the JSON on the wire (JSON keys are strings)."""

    public: Sequence[BoardSeatView]
    claimed: dict[int, int]


class Components(Protocol):
    """What the shared skeleton (``GameBase.board``) needs of a game's printed components.

    Here, not in the compiled ``game`` module: mypyc gives an attribute one runtime type in
    every subclass, and each game's board is its own class."""

    card_names: tuple[str, ...]  # the train cards: colours, then the wild card
    ticket_views: tuple[TicketView, ...]

    def public_json(self) -> dict[str, Any]:
        """The components as every seat may see them (sent once, in ``game_start``)."""
        ...
