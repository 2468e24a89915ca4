"""Ticket to Ride: San Francisco — the city edition with ferries and tourist tokens.

Differences from the base game: the city editions' rules (``arena.variants.city``),
20 trams each; a ferry route needs one wild card per ferry symbol (a route
property every board reads); tourist stacks (7 symbols x 3 tokens) on five
printed locations, and two that players place once the tickets are chosen,
each choosing which of the remaining stacks and where; a claim takes a token
of a new symbol from one of the route's ends; at the end 2-7 distinct symbols
score 1/2/4/6/9/12.

Everything the tourists add lives here: their rules and map facts, the
actions and verbs ``place`` and ``token``, the phases ``place_stacks`` and
``take_token``, the state (stacks, tokens held, the choices pending), the
``tourists`` score category, observation and position fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self, TypeAlias

import msgspec

from arena.engine.actions import Action, BoardAction, location, verb
from arena.engine.board import Board, BoardRules
from arena.engine.errors import IllegalActionError, NotationError, PositionError
from arena.engine.game import SETUP, TURN
from arena.engine.observation import BoardObservation, BoardSeatView, Observation, View
from arena.engine.position import BoardPosition, Position
from arena.engine.result import ScoreLabel
from arena.engine.state import BASE_SCORE_LABELS, SAMPLEABLE, BoardState
from arena.engine.variant import Variant
from arena.plugins import hookimpl
from arena.variants.city import RULES_VERSION, city_rules
from arena.variants.mapdata import board_variant, load_map

PLACE, TOKEN = 5, 6  # a seat places a tourist stack; a seat picks one of two tokens

# Tokens per stack by player count: (printed stacks, player-placed stacks). 4 players: 3
# each; 2-3 players: 2 each, except that with 2 the two placed stacks hold 1 token.
STACK_TOKENS = {4: (3, 3), 3: (2, 2), 2: (2, 1)}

# ---------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class PlaceStack(Action):
    """Setup: put the tourist stack of ``symbol`` (one still to be placed) on ``city``."""

    city: str
    symbol: str

    def __str__(self) -> str:
        return f"place {self.city} {self.symbol}"


@dataclass(frozen=True, slots=True)
class TakeToken(Action):
    """After a claim whose two ends both offer a new symbol: take the token at ``city``."""

    city: str

    def __str__(self) -> str:
        return f"token {self.city}"


SanFranciscoAction: TypeAlias = BoardAction | PlaceStack | TakeToken


@verb("place")
def parse_place(args: Sequence[str], text: str) -> Action:
    if len(args) != 2:
        raise NotationError(f"'{text}': expected 'place LOCATION SYMBOL'")
    return PlaceStack(location(args[0], text), location(args[1], text))


@verb("token")
def parse_token(args: Sequence[str], text: str) -> Action:
    if len(args) != 1:
        raise NotationError(f"'{text}': expected 'token LOCATION'")
    return TakeToken(location(args[0], text))


# ---------------------------------------------------------------------- rules and map


@dataclass(frozen=True)
class SanFranciscoRules(BoardRules):
    tourist_symbols: tuple[str, ...] = ()
    tourist_bonus: tuple[int, ...] = ()  # indexed by distinct symbols held
    tourist_stack_tokens: dict[int, tuple[int, int]] = field(default_factory=dict)


class SanFranciscoBoard(Board):
    """The map plus its tourist stacks: ``tourist_fixed`` lists (city, symbol) of the stacks
    printed on the board, ``tourist_placed`` the symbols of the stacks players place."""

    rules: SanFranciscoRules

    def __init__(self, data: dict[str, Any], rules: SanFranciscoRules) -> None:
        super().__init__(data, rules)
        symbol_index = {s: i for i, s in enumerate(rules.tourist_symbols)}
        self.symbol_index = symbol_index
        stacks = data.get("tourist_stacks") or {}
        unknown = [c for c in stacks if c not in self.city_index]
        unknown += [s for s in stacks.values() if s not in symbol_index]
        if unknown or len(set(stacks.values())) != len(stacks):
            raise ValueError(f"tourist_stacks: unknown or repeated entries {unknown or stacks}")
        self.tourist_fixed = tuple((self.city_index[c], symbol_index[s]) for c, s in stacks.items())
        used = set(stacks.values())
        self.tourist_placed = tuple(i for i, s in enumerate(rules.tourist_symbols) if s not in used)
        symbols = rules.tourist_symbols
        self.place_actions = tuple(tuple(PlaceStack(c, s) for s in symbols) for c in self.cities)
        self.take_actions = tuple(TakeToken(c) for c in self.cities)


# ---------------------------------------------------------------------- observation and position


class StackView(View, frozen=True):
    symbol: str
    tokens: int


class PlacementView(View, frozen=True):
    seat: int  # who places this stack
    tokens: int  # how many tokens it holds


class SanFranciscoSeatView(BoardSeatView, frozen=True):
    tourist_tokens: list[str]  # the symbols held


class SanFranciscoObservation(BoardObservation, frozen=True):
    public: Sequence[SanFranciscoSeatView]
    tourist_stacks: dict[str, StackView]  # location -> its stack
    stacks_to_place: list[PlacementView]  # in order: the first is placed next
    stack_symbols: list[str]  # the symbols of the stacks still to be placed
    token_choices: list[str]  # the two locations of a pending token choice


class Stack(msgspec.Struct, forbid_unknown_fields=True):
    symbol: str
    tokens: int


class Placement(msgspec.Struct, forbid_unknown_fields=True):
    seat: int
    tokens: int


class SanFranciscoPosition(BoardPosition, kw_only=True):
    tokens: list[list[str]]  # symbols held, per seat
    stacks: dict[str, Stack]  # location -> stack on it
    placements: list[Placement]  # stacks still to be placed, in order
    unplaced: list[str]  # their symbols, for the placers to choose from
    token_offer: list[str]  # the locations of a pending token choice


# ---------------------------------------------------------------------- the game


class SanFranciscoState(BoardState):
    """A game of San Francisco."""

    __slots__ = ("_placements", "_stacks", "_token_offer", "_tokens", "_unplaced")

    PHASES: ClassVar[tuple[str, ...]] = (*BoardState.PHASES, "place_stacks", "take_token")
    PHASE_HINTS: ClassVar[dict[int, str]] = {
        **BoardState.PHASE_HINTS,
        PLACE: "place a tourist stack ('place LOCATION SYMBOL')",
        TOKEN: "choose a tourist token ('token LOCATION')",
    }
    ACTIONS: ClassVar[dict[type[Action], str]] = {
        **BoardState.ACTIONS,
        PlaceStack: "_place_stack",
        TakeToken: "_take_token",
    }
    EXTRA_SCORE: ClassVar[tuple[str, ...]] = ("tourists",)
    SCORE_LABELS: ClassVar[dict[str, ScoreLabel]] = {
        **BASE_SCORE_LABELS,
        "tourists": ScoreLabel("tour", "tourist symbols"),
    }
    position_type: ClassVar[type[Position]] = SanFranciscoPosition
    observation_type: ClassVar[type[Observation]] = SanFranciscoObservation
    seat_view_type: ClassVar[type[BoardSeatView]] = SanFranciscoSeatView

    rules: SanFranciscoRules
    board: SanFranciscoBoard
    _tokens: list[int]  # symbols held, a bit per symbol, per seat
    _stacks: dict[int, list[int]]  # city -> [symbol, tokens left]
    _placements: list[tuple[int, int]]  # (seat, tokens) of each stack still to place
    _unplaced: list[int]  # the symbols of those stacks
    _token_offer: list[int]  # the two cities of a pending token choice

    def __init__(self, variant: Variant, num_players: int, seed: int) -> None:
        super().__init__(variant, num_players, seed)
        n, first = num_players, self.first_player
        fixed, placed = self.rules.tourist_stack_tokens[n]
        self._tokens = [0] * n
        self._stacks = {city: [symbol, fixed] for city, symbol in self.board.tourist_fixed}
        # With 3-4 players the last seat and then the second-to-last place a stack each;
        # with 2 the second seat places both (docs/RULES.md).
        last, second_to_last = (first + n - 1) % n, (first + n - 2) % n
        placers = [last, second_to_last] if n >= 3 else [(first + 1) % n] * 2
        self._unplaced = list(self.board.tourist_placed)
        self._placements = [(seat, placed) for seat in placers[: len(self._unplaced)]]
        self._token_offer = []

    # -- setup: the stacks are placed once the tickets are chosen ---------------------------

    def _begin_play(self) -> None:
        if self._placements:
            self._phase = PLACE
            self._to_move = self._placements[0][0]
        else:
            super()._begin_play()

    def _phase_actions(self, phase: int) -> list[Action]:
        if phase == PLACE:
            place, stacks = self.board.place_actions, self._stacks
            return [
                place[c][s] for c in range(len(place)) if c not in stacks for s in self._unplaced
            ]
        take = self.board.take_actions
        return [take[c] for c in self._token_offer]

    def _city(self, action: PlaceStack | TakeToken, rule: str) -> int:
        city = self.board.city_index.get(action.city)
        if city is None:
            raise IllegalActionError(action, rule, f"no location '{action.city}' on this map")
        return city

    def _place_stack(self, action: PlaceStack) -> None:
        if self._phase != PLACE:
            raise IllegalActionError(action, "place.phase", "no tourist stack is waiting")
        city = self._city(action, "place.location")
        if city in self._stacks:
            raise IllegalActionError(
                action, "place.occupied", f"location '{action.city}' already holds a stack"
            )
        symbol = self.board.symbol_index.get(action.symbol, -1)
        if symbol not in self._unplaced:
            symbols = self.rules.tourist_symbols
            left = ", ".join(symbols[s] for s in self._unplaced)
            raise IllegalActionError(
                action, "place.symbol", f"the stacks still to place hold {left}"
            )
        _, tokens = self._placements.pop(0)
        self._unplaced.remove(symbol)
        self._stacks[city] = [symbol, tokens]
        if self._placements:
            self._to_move = self._placements[0][0]
        else:
            self._phase = TURN
            self._to_move = self.first_player

    # -- after a claim: a tourist token -----------------------------------------------------

    def _after_claim(self, seat: int, r: int) -> bool:
        """Give ``seat`` a tourist token at an end of route ``r`` of a symbol it lacks; with
        two such ends, wait for its choice (True)."""
        stacks, held = self._stacks, self._tokens[seat]
        board = self.board
        ends = [
            c
            for c in (board.route_a[r], board.route_b[r])
            if c in stacks and stacks[c][1] and not held >> stacks[c][0] & 1
        ]
        if len(ends) == 2:
            self._token_offer = ends
            self._phase = TOKEN
            return True
        if ends:
            self._give_token(seat, ends[0])
        return False

    def _give_token(self, seat: int, city: int) -> None:
        stack = self._stacks[city]
        stack[1] -= 1
        self._tokens[seat] |= 1 << stack[0]

    def _take_token(self, action: TakeToken) -> None:
        if self._phase != TOKEN:
            raise IllegalActionError(action, "token.phase", "no tourist token choice is pending")
        city = self._city(action, "token.location")
        if city not in self._token_offer:
            names = " or ".join(self.board.cities[c] for c in self._token_offer)
            raise IllegalActionError(action, "token.choice", f"the token is taken at {names}")
        self._give_token(self._to_move, city)
        self._token_offer = []
        self._end_turn()

    # -- the end ----------------------------------------------------------------------------

    def _score_extras(self, rows: list[dict[str, int]]) -> None:
        bonus = self.rules.tourist_bonus
        for seat, row in enumerate(rows):
            distinct = self._tokens[seat].bit_count()
            row["tourist_symbols"] = distinct
            row["tourists"] = bonus[min(distinct, len(bonus) - 1)]

    # -- views, copies, positions -----------------------------------------------------------

    def _symbols(self, mask: int) -> list[str]:
        return [s for i, s in enumerate(self.rules.tourist_symbols) if mask >> i & 1]

    def _observation_fields(self, seat: int) -> dict[str, Any]:
        fields = super()._observation_fields(seat)
        symbols, cities = self.rules.tourist_symbols, self.board.cities
        fields["tourist_stacks"] = {
            cities[c]: StackView(symbol=symbols[s], tokens=n)
            for c, (s, n) in sorted(self._stacks.items())
        }
        fields["stacks_to_place"] = [PlacementView(seat=p, tokens=n) for p, n in self._placements]
        fields["stack_symbols"] = [symbols[s] for s in self._unplaced]
        fields["token_choices"] = [cities[c] for c in self._token_offer]
        return fields

    def _seat_fields(self, seat: int, p: int) -> dict[str, Any]:
        fields = super()._seat_fields(seat, p)
        fields["tourist_tokens"] = self._symbols(self._tokens[p])
        return fields

    def _copy_into(self, new: Self) -> None:
        super()._copy_into(new)
        new._tokens = self._tokens[:]
        new._stacks = {c: stack[:] for c, stack in self._stacks.items()}
        new._placements = self._placements[:]
        new._unplaced = self._unplaced[:]
        new._token_offer = self._token_offer[:]

    def _position_fields(self) -> dict[str, Any]:
        symbols, cities = self.rules.tourist_symbols, self.board.cities
        return super()._position_fields() | {
            "tokens": [self._symbols(mask) for mask in self._tokens],
            "stacks": {
                cities[c]: Stack(symbols[s], n) for c, (s, n) in sorted(self._stacks.items())
            },
            "placements": [Placement(p, n) for p, n in self._placements],
            "unplaced": [symbols[s] for s in self._unplaced],
            "token_offer": [cities[c] for c in self._token_offer],
        }

    def _load_position(self, variant: Variant, position: Any) -> None:
        super()._load_position(variant, position)
        self._tokens = []
        for p, held in enumerate(self._per_seat(position.tokens, "tokens", self._symbol_ids)):
            if len(set(held)) != len(held):
                raise PositionError(f"tokens[{p}]: a symbol is held at most once")
            self._tokens.append(sum(1 << s for s in held))
        self._stacks = {}
        for name, stack in position.stacks.items():
            city = self._location(name, "stacks")
            symbol = self._symbol_ids([stack.symbol], f"stacks.{name}")[0]
            if stack.tokens < 0:
                raise PositionError(f"stacks.{name}: a negative number of tokens")
            self._stacks[city] = [symbol, stack.tokens]
        self._placements = [
            (self._seat(p.seat, "placements"), p.tokens) for p in position.placements
        ]
        self._unplaced = self._symbol_ids(position.unplaced, "unplaced")
        on_board = {s for s, _ in self._stacks.values()}
        if len(self._unplaced) != len(self._placements) or on_board & set(self._unplaced):
            raise PositionError("unplaced: one symbol per stack still to place, none on the map")
        self._token_offer = [self._location(c, "token_offer") for c in position.token_offer]
        if self._phase == PLACE and not self._placements:
            raise PositionError("placements: the phase is 'place_stacks' but no stack waits")
        if self._placements and self._phase not in (SETUP, PLACE):
            raise PositionError("placements: stacks wait to be placed only at setup")
        if (self._phase == TOKEN) != (len(self._token_offer) == 2):
            raise PositionError("token_offer: two locations exactly when choosing a token")

    def _check_position(self) -> None:
        super()._check_position()
        fixed, placed = self.rules.tourist_stack_tokens[self.num_players]
        board = self.board
        supply = len(board.tourist_fixed) * fixed
        supply += (len(board.tourist_placed) - len(self._unplaced)) * placed
        found = sum(mask.bit_count() for mask in self._tokens)
        found += sum(tokens for _, tokens in self._stacks.values())
        if found != supply:
            raise PositionError(f"tokens: {found} tourist tokens held or stacked, not {supply}")

    def _symbol_ids(self, names: list[str], what: str) -> list[int]:
        index = self.board.symbol_index
        for name in names:
            if name not in index:
                raise PositionError(f"{what}: no tourist symbol '{name}'")
        return [index[name] for name in names]

    def _location(self, name: str, what: str) -> int:
        city = self.board.city_index.get(name)
        if city is None:
            raise PositionError(f"{what}: no location '{name}'")
        return city

    # -- sampling ---------------------------------------------------------------------------

    @classmethod
    def sampleable_phases(cls) -> frozenset[str]:
        return SAMPLEABLE | {"place_stacks", "take_token"}

    @classmethod
    def _sample_extras(cls, observation: BoardObservation, fields: dict[str, Any]) -> None:
        """The tourist components are all public."""
        fields["tokens"] = [list(public.get("tourist_tokens", ())) for public in observation.public]
        fields["stacks"] = {
            city: Stack(stack.symbol, stack.tokens)
            for city, stack in observation.get("tourist_stacks", {}).items()
        }
        fields["placements"] = [
            Placement(p.seat, p.tokens) for p in observation.get("stacks_to_place", ())
        ]
        fields["unplaced"] = list(observation.get("stack_symbols", ()))
        fields["token_offer"] = list(observation.get("token_choices", ()))


def make_variant(data: dict[str, Any] | None = None) -> Variant:
    """San Francisco on the packaged map (unplayable while its data lists gaps), or ``data``."""
    data = data or load_map("sanfrancisco")
    parts = data["components"]
    symbols = tuple(data.get("tourist_symbol_names", ()))
    missing = [] if symbols else ["the names of the 7 tourist symbols"]
    stacks = data.get("tourist_stacks") or {}
    if not stacks:
        missing.append("which tourist symbol each printed stack holds")
    else:
        names = {c["id"]: c["name"] for c in data.get("cities", ())}
        printed = sorted(names.get(c, c) for c in stacks)
        if printed != sorted(parts["tourist_stack_fixed_locations"]):
            raise ValueError(
                f"tourist_stacks are on {printed}, the rules print them on "
                f"{sorted(parts['tourist_stack_fixed_locations'])}"
            )
    if len(symbols) not in (0, parts["tourist_symbols"]):
        raise ValueError(f"San Francisco needs {parts['tourist_symbols']} symbol names")
    bonus = parts["unique_tourist_bonus"]
    rules = city_rules(
        data,
        "trams_per_player",
        SanFranciscoRules,
        tourist_symbols=symbols,
        tourist_bonus=tuple(bonus[str(n)] for n in range(len(bonus))),
        tourist_stack_tokens=STACK_TOKENS,
    )
    return board_variant(
        "sanfrancisco",
        "trams: 20 each, ferries need wilds, tourist tokens: 1-12 for 2-7 symbols",
        rules,
        data,
        extra_missing=missing,
        game=SanFranciscoState,
        board=SanFranciscoBoard,
        rules_version=RULES_VERSION,
    )


@hookimpl
def arena_variants() -> list[Variant]:
    return [make_variant()]
