"""Ticket to Ride: New York — the city edition with taxis and tourist attractions.

Differences from the base game: the city editions' rules (``arena.variants.city``),
15 taxis each and +1 point for every tourist attraction a player's routes
touch; no longest-path bonus. The attractions are marked on the map
(``"attraction": true`` on a location); they add a score category and nothing
else, so the edition is a board subclass and a state subclass with one hook.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from arena.engine.board import Board, BoardRules
from arena.engine.result import ScoreLabel
from arena.engine.state import BASE_SCORE_LABELS, BoardState
from arena.engine.variant import Variant
from arena.plugins import hookimpl
from arena.variants.city import RULES_VERSION, city_rules
from arena.variants.mapdata import board_variant, load_map


@dataclass(frozen=True)
class NewYorkRules(BoardRules):
    attraction_points: int = 1  # per attraction a player's routes touch


class NewYorkBoard(Board):
    def __init__(self, data: dict[str, Any], rules: NewYorkRules) -> None:
        super().__init__(data, rules)
        index = self.city_index
        self.attractions = frozenset(index[c["id"]] for c in data["cities"] if c.get("attraction"))


class NewYorkState(BoardState):
    """A game of New York."""

    __slots__ = ()

    MOVES_CHANGE_ONLY_THE_MOVER: ClassVar[bool] = True  # see GameBase

    EXTRA_SCORE: ClassVar[tuple[str, ...]] = ("attractions",)
    SCORE_LABELS: ClassVar[dict[str, ScoreLabel]] = {
        **BASE_SCORE_LABELS,
        "attractions": ScoreLabel("attr", "tourist attractions"),
    }

    rules: NewYorkRules
    board: NewYorkBoard

    def _score_extras(self, rows: list[dict[str, int]]) -> None:
        board = self.board
        a, b = board.route_a, board.route_b
        for seat, row in enumerate(rows):
            touched = {c for r in self._routes[seat] for c in (a[r], b[r])}
            row["attractions"] = self.rules.attraction_points * len(touched & board.attractions)


def make_variant(data: dict[str, Any] | None = None) -> Variant:
    """New York on the packaged map, or on ``data`` (a map in the same format)."""
    data = data or load_map("newyork")
    rules = city_rules(
        data,
        "taxis_per_player",
        NewYorkRules,
        attraction_points=data["components"]["tourist_attraction_points"],
    )
    return board_variant(
        "newyork",
        "taxis: 15 each, 2 cards, tickets 2 keep 1, +1 per tourist attraction",
        rules,
        data,
        game=NewYorkState,
        board=NewYorkBoard,
        rules_version=RULES_VERSION,
    )


@hookimpl
def arena_variants() -> list[Variant]:
    return [make_variant()]
