"""The Card Game's observation and position: what a seat sees, and the whole state as JSON."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from arena.engine.observation import Observation, SeatView, TicketView, View
from arena.engine.position import Position


class CardTicketView(TicketView, frozen=True):
    cards: dict[str, int]  # the cards (by colour) the ticket asks for


class YardGroup(View, frozen=True):
    cards: int  # cards of the group's colour
    wilds: int  # locomotives in the group


class CardSeatView(SeatView, frozen=True):
    yard: dict[str, YardGroup]  # the seat's Train Yard, by colour (public)
    track_size: int  # cards in its On-the-Track pile (their faces are hidden)
    completed: list[CardTicketView]  # tickets it completed at a scoring so far


class CardGameObservation(Observation, frozen=True):
    tickets: Sequence[CardTicketView]
    offered_tickets: Sequence[CardTicketView]
    public: Sequence[CardSeatView]
    round: int  # 2 in a 4-player game's second round
    # The seat's own On-the-Track pile: in 'cardgame-peek', and when it is being scored.
    track: dict[str, int] | None
    chosen: list[int]  # at a scoring: the seats done choosing (what, shows once all are)
    own_choice: list[CardTicketView] | None  # at a scoring: this seat's choice so far


class Group(msgspec.Struct, forbid_unknown_fields=True):
    cards: int
    wilds: int


class CardGamePosition(Position, kw_only=True):
    yards: list[dict[str, Group]]  # per seat, its Train Yard's groups by colour
    tracks: list[dict[str, int]]  # per seat, its On-the-Track pile
    completed: list[list[int]]  # per seat, tickets completed at a scoring so far
    chosen: list[list[int] | None]  # at a scoring: the tickets each seat chose (None: not yet)
    played: list[bool]  # per seat, whether it has had a turn (phase 1 skips the first)
    round: int
    deck_out: bool  # the deck's last card was drawn: the last turns are being played
