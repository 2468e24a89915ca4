"""Ticket to Ride: Amsterdam — the city edition with carts and Merchandise Bonus cards.

Differences from the base game: the city editions' rules (``arena.variants.city``),
16 carts each; claiming a route that carries the cart symbol gives one public
Merchandise card from a deck of 16 (none once it is empty); at the end the
most cards score 8/6/4/2 (4 players), 8/5/2 (3) or 8/4 (2). The contracts are
the tickets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from arena.engine.board import Board, BoardRules
from arena.engine.errors import PositionError
from arena.engine.observation import BoardObservation, BoardSeatView, Observation
from arena.engine.position import BoardPosition, Position
from arena.engine.result import ScoreLabel
from arena.engine.state import BASE_SCORE_LABELS, BoardState
from arena.engine.variant import Variant
from arena.plugins import hookimpl
from arena.variants.city import RULES_VERSION, city_rules
from arena.variants.mapdata import board_variant, load_map


@dataclass(frozen=True)
class AmsterdamRules(BoardRules):
    merchandise_cards: int = 16
    # The end bonus for the most cards, position by position, by player count.
    merchandise_bonus: dict[int, tuple[int, ...]] = field(default_factory=dict)


class AmsterdamBoard(Board):
    def __init__(self, data: dict[str, Any], rules: AmsterdamRules) -> None:
        super().__init__(data, rules)
        self.route_carts = tuple(bool(r.get("carts")) for r in data["routes"])


class AmsterdamSeatView(BoardSeatView, frozen=True):
    merchandise: int  # Merchandise cards held (public)


class AmsterdamObservation(BoardObservation, frozen=True):
    public: Sequence[AmsterdamSeatView]
    merchandise_left: int


class AmsterdamPosition(BoardPosition, kw_only=True):
    merchandise: list[int]  # Merchandise cards per seat; the rest are in their deck


def merchandise_positions(counts: Sequence[int]) -> list[int]:
    """Each seat's 0-based position for the Merchandise bonus: the most cards first; tied
    seats share their position and only the one position after them is skipped."""
    position, at = 0, {}
    for count in sorted(set(counts), reverse=True):
        at[count] = position
        position += 2 if counts.count(count) > 1 else 1
    return [at[count] for count in counts]


class AmsterdamState(BoardState):
    """A game of Amsterdam."""

    __slots__ = ("_merch", "_merch_left")

    EXTRA_SCORE: ClassVar[tuple[str, ...]] = ("merchandise",)
    SCORE_LABELS: ClassVar[dict[str, ScoreLabel]] = {
        **BASE_SCORE_LABELS,
        "merchandise": ScoreLabel("merch", "Merchandise bonus"),
    }
    position_type: ClassVar[type[Position]] = AmsterdamPosition
    observation_type: ClassVar[type[Observation]] = AmsterdamObservation
    seat_view_type: ClassVar[type[BoardSeatView]] = AmsterdamSeatView

    rules: AmsterdamRules
    board: AmsterdamBoard
    _merch: list[int]
    _merch_left: int

    def __init__(self, variant: Variant, num_players: int, seed: int) -> None:
        self._merch = [0] * num_players
        self._merch_left = variant.rules.merchandise_cards
        super().__init__(variant, num_players, seed)

    def _after_claim(self, seat: int, r: int) -> bool:
        """A cart route gives a Merchandise card while the deck lasts."""
        if self._merch_left and self.board.route_carts[r]:
            self._merch_left -= 1
            self._merch[seat] += 1
        return False

    def _score_extras(self, rows: list[dict[str, int]]) -> None:
        """The bonus table by position (``merchandise_positions``); no card, no bonus."""
        table = self.rules.merchandise_bonus[self.num_players]
        counts = self._merch
        for seat, position in enumerate(merchandise_positions(counts)):
            row = rows[seat]
            row["merchandise_cards"] = counts[seat]
            row["merchandise"] = table[position] if counts[seat] and position < len(table) else 0

    def _observation_fields(self, seat: int) -> dict[str, Any]:
        fields = super()._observation_fields(seat)
        fields["merchandise_left"] = self._merch_left
        return fields

    def _seat_fields(self, seat: int, p: int) -> dict[str, Any]:
        fields = super()._seat_fields(seat, p)
        fields["merchandise"] = self._merch[p]
        return fields

    def _copy_into(self, new: Self) -> None:
        super()._copy_into(new)
        new._merch, new._merch_left = self._merch[:], self._merch_left

    def _position_fields(self) -> dict[str, Any]:
        return super()._position_fields() | {"merchandise": list(self._merch)}

    def _load_position(self, variant: Variant, position: Any) -> None:
        super()._load_position(variant, position)
        counts = position.merchandise
        if len(counts) != self.num_players or min(counts) < 0:
            raise PositionError(f"merchandise: a count per seat ({self.num_players})")
        self._merch = list(counts)
        self._merch_left = self.rules.merchandise_cards - sum(counts)
        if self._merch_left < 0:
            raise PositionError(f"merchandise: only {self.rules.merchandise_cards} cards exist")

    @classmethod
    def _sample_extras(cls, observation: BoardObservation, fields: dict[str, Any]) -> None:
        fields["merchandise"] = [public.get("merchandise", 0) for public in observation.public]


def make_variant(data: dict[str, Any] | None = None) -> Variant:
    """Amsterdam on the packaged map (unplayable while its data lists gaps), or on ``data``."""
    data = data or load_map("amsterdam")
    parts = data["components"]
    rules = city_rules(
        data,
        "carts_per_player",
        AmsterdamRules,
        merchandise_cards=parts["merchandise_bonus_cards"],
        merchandise_bonus={
            int(n): tuple(points) for n, points in parts["merchandise_majority_bonus"].items()
        },
    )
    return board_variant(
        "amsterdam",
        "carts: 16 each, Merchandise cards from cart routes, 8/6/4/2 for the most",
        rules,
        data,
        game=AmsterdamState,
        board=AmsterdamBoard,
        rules_version=RULES_VERSION,
    )


@hookimpl
def arena_variants() -> list[Variant]:
    return [make_variant()]
