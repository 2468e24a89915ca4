"""A toy third-party variant, written as a stranger would from the docs: the base game on a
tiny map (the plugin test's), plus tolls.

On a turn, instead of the usual actions, a player may put a toll on a route it owns that has
none, paying one train card of any colour (``toll ROUTE COLOUR``). Each toll scores 3 at the
end (a score category of its own, ``tolls``). Everything lives in this module: the action
and its verb, the state's extra field, its observation and position fields, its scoring and
its label. Nothing in ``arena/engine`` knows about it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from arena.engine import (
    Action,
    BoardObservation,
    BoardPosition,
    BoardRules,
    BoardSeatView,
    BoardState,
    IllegalActionError,
    NotationError,
    Observation,
    Position,
    PositionError,
    ScoreLabel,
    Variant,
    verb,
)
from arena.engine.state import BASE_SCORE_LABELS
from arena.plugins import hookimpl
from arena.variants.mapdata import board_variant

# The tiny map of the plugin tests; this module imports nothing from the tests, so that it can
# be installed as a plugin of its own (tests/test_engine_journeys.py does).
TINY_MAP = {
    "title": "Tiny (test fixture)",
    "cities": [{"id": c, "name": c.title()} for c in ("a", "b", "c", "d")],
    "routes": [
        {"id": 1, "a": "a", "b": "b", "length": 1, "color": "red"},
        {"id": 2, "a": "a", "b": "b", "length": 1, "color": "blue"},
        {"id": 3, "a": "b", "b": "c", "length": 2, "color": "gray"},
        {"id": 4, "a": "c", "b": "d", "length": 3, "color": "blue"},
        {"id": 5, "a": "a", "b": "d", "length": 2, "color": "gray"},
    ],
    "tickets": [
        {"a": "a", "b": "c", "points": 3},
        {"a": "b", "b": "d", "points": 5},
        {"a": "a", "b": "d", "points": 2},
        {"a": "c", "b": "d", "points": 3},
    ],
}
TINY_RULES = BoardRules(
    colours=("red", "blue"),
    cards_per_colour=6,
    wild_cards=4,
    pieces_per_player=6,
    starting_hand=2,
    initial_tickets_dealt=1,
    initial_tickets_keep=1,
    draw_tickets=1,
    route_points={1: 1, 2: 2, 3: 4},
    min_players=2,
    max_players=2,
)

TOLL_POINTS = 3


@dataclass(frozen=True, slots=True)
class PayToll(Action):
    route: int
    colour: str

    def __str__(self) -> str:
        return f"toll {self.route} {self.colour}"


@verb("toll")
def parse_toll(args: Sequence[str], text: str) -> Action:
    if len(args) != 2 or not args[0].isdigit():
        raise NotationError(f"'{text}': expected 'toll ROUTE COLOUR'")
    return PayToll(int(args[0]), args[1])


class TollSeatView(BoardSeatView, frozen=True):
    tolls: list[int]  # routes with this seat's tolls


class TollObservation(BoardObservation, frozen=True):
    public: Sequence[TollSeatView]


class TollPosition(BoardPosition, kw_only=True):
    tolls: list[list[int]]


class TollState(BoardState):
    __slots__ = ("_tolls",)

    ACTIONS: ClassVar[dict[type[Action], str]] = {**BoardState.ACTIONS, PayToll: "_pay_toll"}
    EXTRA_SCORE: ClassVar[tuple[str, ...]] = ("tolls",)
    SCORE_LABELS: ClassVar[dict[str, ScoreLabel]] = {
        **BASE_SCORE_LABELS,
        "tolls": ScoreLabel("toll", "tolls on owned routes"),
    }
    position_type: ClassVar[type[Position]] = TollPosition
    observation_type: ClassVar[type[Observation]] = TollObservation
    seat_view_type: ClassVar[type[BoardSeatView]] = TollSeatView

    _tolls: list[list[int]]

    def __init__(self, variant: Variant, num_players: int, seed: int) -> None:
        self._tolls = [[] for _ in range(num_players)]
        super().__init__(variant, num_players, seed)

    def _extra_turn_actions(self, actions: list[Action]) -> None:
        seat = self.to_move
        assert seat is not None
        hand = self.hand(seat)
        colours = [c for c, name in enumerate(self.rules.colours) if hand[c]]
        for r, owner in enumerate(self.route_owner):
            if owner == seat and r + 1 not in self._tolls[seat]:
                actions += [PayToll(r + 1, self.rules.colours[c]) for c in colours]

    def _pay_toll(self, action: PayToll) -> None:
        self._require_turn(action)
        seat = self.to_move
        assert seat is not None
        if action not in self.legal_actions():
            raise IllegalActionError(
                action, "toll.route", "a toll goes on an own route without one, for a card"
            )
        colour = self.rules.colours.index(action.colour)
        self._hands[seat][colour] -= 1
        self._discards[colour] += 1
        self._tolls[seat].append(action.route)
        self._end_turn()

    def _score_extras(self, rows: list[dict[str, int]]) -> None:
        for seat, row in enumerate(rows):
            row["tolls"] = TOLL_POINTS * len(self._tolls[seat])

    def _seat_fields(self, seat: int, p: int) -> dict[str, Any]:
        return super()._seat_fields(seat, p) | {"tolls": list(self._tolls[p])}

    def _copy_into(self, new: Self) -> None:
        super()._copy_into(new)
        new._tolls = [t[:] for t in self._tolls]

    def _position_fields(self) -> dict[str, Any]:
        return super()._position_fields() | {"tolls": [list(t) for t in self._tolls]}

    def _load_position(self, variant: Variant, position: Any) -> None:
        super()._load_position(variant, position)
        self._tolls = [list(t) for t in position.tolls]
        for seat, tolls in enumerate(self._tolls):
            if any(self.route_owner[r - 1] != seat for r in tolls):
                raise PositionError(f"tolls[{seat}]: a toll only on a route the seat owns")

    @classmethod
    def _sample_extras(cls, observation: BoardObservation, fields: dict[str, Any]) -> None:
        fields["tolls"] = [list(public.get("tolls", ())) for public in observation.public]


@hookimpl
def arena_variants() -> list[Variant]:
    data = {**TINY_MAP, "title": "Tolls (a test plugin)"}
    return [board_variant("toll", "tolls on owned routes", TINY_RULES, data, game=TollState)]
