"""Ticket to Ride Europe: tunnels, ferries and stations on the base board game.

Differences from the base game: 2-5 players; starting hand 4; 1 of the 6 long
tickets and 3 of the 40 regular ones dealt, keep at least 2 (the tickets put
away at setup leave the game); ferries need a locomotive per ferry space (a
route property every board reads); tunnels turn 3 cards that may ask for
more; 3 stations each (1, 2, 3 cards), each lending one opponent route into
its city at the end, 4 points per unbuilt station; route points up to 8 -> 21;
the European Express (+10) for the longest path.

Everything Europe adds lives here: its rules and map extras, its actions and
their verbs (``station``, ``pay``, ``withdraw``), the ``tunnel`` phase, its
state (stations, the pending tunnel, the tickets out of the game), its score
category, observation fields and position fields.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self, TypeAlias

import msgspec

from arena.engine.actions import (
    Action,
    BoardAction,
    location,
    no_arguments,
    payment,
    verb,
    wild_count,
)
from arena.engine.board import Board, BoardRules, Ticket
from arena.engine.errors import IllegalActionError, NotationError, PositionError
from arena.engine.game import SETUP, TicketBelief
from arena.engine.observation import (
    BoardObservation,
    BoardSeatView,
    Observation,
    TicketView,
    View,
)
from arena.engine.position import BoardPosition, Position
from arena.engine.result import ScoreLabel
from arena.engine.state import (
    BASE_SCORE_LABELS,
    SAMPLEABLE,
    BoardState,
)
from arena.engine.variant import Variant
from arena.plugins import hookimpl
from arena.variants.mapdata import board_variant, load_map
from arena.variants.usa import train_game_rules

# 2: the regular tickets put away at setup leave the game; the deck is rebuilt as soon as it
# runs out; 3: with no deck and no discards no card may be drawn, face up either
# (docs/RULES.md, "Rules versions").
RULES_VERSION = 3
TUNNEL = 5  # the phase after a tunnel asked for extra cards

# ---------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class BuildStation(Action):
    """Build a station on ``city`` paying ``colour`` cards plus ``wilds`` wilds
    (``colour is None``: wilds only)."""

    city: str
    colour: str | None
    wilds: int = 0

    def __str__(self) -> str:
        if self.colour is None:
            return f"station {self.city} w{self.wilds}"
        if self.wilds:
            return f"station {self.city} {self.colour} w{self.wilds}"
        return f"station {self.city} {self.colour}"


@dataclass(frozen=True, slots=True)
class PayTunnel(Action):
    """Pay the extra cards a tunnel asks for, ``wilds`` of them wild and the rest of the
    colour the claim was paid with."""

    wilds: int = 0

    def __str__(self) -> str:
        return f"pay w{self.wilds}" if self.wilds else "pay"


@dataclass(frozen=True, slots=True)
class Withdraw(Action):
    """Give a tunnel up; the cards laid down go back to the hand, the turn ends."""

    def __str__(self) -> str:
        return "withdraw"


EuropeAction: TypeAlias = BoardAction | BuildStation | PayTunnel | Withdraw
WITHDRAW = Withdraw()


@verb("station")
def parse_station(args: Sequence[str], text: str) -> Action:
    if not 2 <= len(args) <= 3:
        raise NotationError(f"'{text}': expected 'station CITY COLOUR [wN]' or 'station CITY wN'")
    colour, wilds = payment(args[1:], text)
    return BuildStation(location(args[0], text), colour, wilds)


@verb("pay")
def parse_pay(args: Sequence[str], text: str) -> Action:
    if len(args) > 1:
        raise NotationError(f"'{text}': expected 'pay' or 'pay wN'")
    return PayTunnel(wild_count(args[0], text) if args else 0)


@verb("withdraw")
def parse_withdraw(args: Sequence[str], text: str) -> Action:
    no_arguments(args, text, "withdraw")
    return WITHDRAW


# ---------------------------------------------------------------------- rules and map


@dataclass(frozen=True)
class EuropeRules(BoardRules):
    """The base rules plus stations (per player, the cost of each, points for each unbuilt),
    the cards a tunnel turns, and the long tickets dealt at setup."""

    stations: int = 3
    station_costs: tuple[int, ...] = (1, 2, 3)
    station_points: int = 4
    tunnel_reveal: int = 3
    initial_long_tickets: int = 1


class EuropeBoard(Board):
    """The map plus its tunnels, its long tickets and every station action, interned.

    Public, as ``Board.claim_table`` (``arena.envs`` indexes them): ``station_table[city]
    [colour][k]`` is a station in city index ``city`` paid with colour index ``colour`` and
    ``k`` wilds; ``station_all_wild[city][n]`` paid with ``n`` wilds; ``pay_actions[k]`` pays
    ``k`` more cards for a tunnel."""

    rules: EuropeRules
    station_table: tuple[tuple[tuple[BuildStation, ...], ...], ...]
    station_all_wild: tuple[tuple[BuildStation, ...], ...]
    pay_actions: tuple[PayTunnel, ...]

    def __init__(self, data: dict[str, Any], rules: EuropeRules) -> None:
        super().__init__(data, rules)
        self.route_tunnel = tuple(bool(r.get("tunnel")) for r in data["routes"])
        self.ticket_long = tuple(t.get("deck") == "long" for t in data["tickets"])
        # station_table[city][colour][k]: a station paid with that colour and k wilds;
        # station_all_wild[city][n]: paid with n wilds.
        most = max(rules.station_costs, default=0)
        self.station_table = tuple(
            tuple(tuple(BuildStation(city, c, k) for k in range(most)) for c in rules.colours)
            for city in self.cities
        )
        self.station_all_wild = tuple(
            tuple(BuildStation(city, None, n) for n in range(most + 1)) for city in self.cities
        )
        self.pay_actions = tuple(PayTunnel(k) for k in range(rules.tunnel_reveal + 1))

    def ticket_view(self, ticket: Ticket, raw: dict[str, Any]) -> TicketView:
        return EuropeTicket(
            id=ticket.id,
            a=ticket.a,
            b=ticket.b,
            points=ticket.points,
            long=raw.get("deck") == "long",
        )

    def public_rules(self) -> dict[str, Any]:
        rules = self.rules
        return super().public_rules() | {
            "stations": rules.stations,
            "station_costs": list(rules.station_costs),
            "tunnel_reveal": rules.tunnel_reveal,
        }


# ---------------------------------------------------------------------- observation and position


class EuropeTicket(TicketView, frozen=True, omit_defaults=True):
    """A ticket; ``long`` (shown only when true) for the long ones dealt at setup."""

    long: bool = False


class EuropeSeatView(BoardSeatView, frozen=True):
    stations: list[str]  # the cities of the seat's stations, in the order built


class TunnelView(View, frozen=True):
    """A pending tunnel: the route, the colour and cards laid down, the cards turned and the
    extra cards they ask for."""

    route: int
    colour: str
    cards: int
    wilds: int
    turned: list[str]
    extra: int


class EuropeObservation(BoardObservation, frozen=True):
    tickets: Sequence[EuropeTicket]
    offered_tickets: Sequence[EuropeTicket]
    public: Sequence[EuropeSeatView]
    tickets_out: int | None  # tickets out of the game, known once every seat has chosen
    tunnel: TunnelView | None


class TunnelPosition(msgspec.Struct, forbid_unknown_fields=True):
    route: int
    colour: str  # the colour paid ("wild" for wilds only)
    cards: int  # cards of that colour laid down
    wilds: int
    turned: list[str]
    extra: int


class EuropePosition(BoardPosition, kw_only=True):
    stations: list[list[str]]  # per seat, the cities in the order built
    tunnel: TunnelPosition | None
    out: list[int]  # tickets out of the game


# ---------------------------------------------------------------------- the game


class EuropeState(BoardState):
    """A game of Europe."""

    __slots__ = ("_out", "_station_at", "_stations", "_tunnel")

    # Tunnels and stations too are the mover's own.
    MOVES_CHANGE_ONLY_THE_MOVER: ClassVar[bool] = True  # see GameBase

    PHASES: ClassVar[tuple[str, ...]] = (*BoardState.PHASES, "tunnel")
    PHASE_HINTS: ClassVar[dict[int, str]] = {
        **BoardState.PHASE_HINTS,
        TUNNEL: "pay the tunnel's extra cards ('pay [wN]') or 'withdraw'",
    }
    ACTIONS: ClassVar[dict[type[Action], str]] = {
        **BoardState.ACTIONS,
        BuildStation: "_build_station",
        PayTunnel: "_pay_tunnel",
        Withdraw: "_withdraw",
    }
    EXTRA_SCORE: ClassVar[tuple[str, ...]] = ("stations",)
    SCORE_LABELS: ClassVar[dict[str, ScoreLabel]] = {
        **BASE_SCORE_LABELS,
        "stations": ScoreLabel("stn", "unbuilt stations"),
    }
    position_type: ClassVar[type[Position]] = EuropePosition
    observation_type: ClassVar[type[Observation]] = EuropeObservation
    seat_view_type: ClassVar[type[BoardSeatView]] = EuropeSeatView

    rules: EuropeRules
    board: EuropeBoard
    _stations: list[list[int]]  # cities with a station, per seat
    _station_at: dict[int, int]  # city -> seat
    # A pending tunnel: route, colour paid, cards of it, wilds, cards turned, extra asked.
    _tunnel: tuple[int, int, int, int, list[int], int] | None
    _out: list[int]  # tickets out of the game

    def __init__(self, variant: Variant, num_players: int, seed: int) -> None:
        self._stations = [[] for _ in range(num_players)]
        self._station_at = {}
        self._tunnel = None
        super().__init__(variant, num_players, seed)

    # -- setup ------------------------------------------------------------------------------

    def _deal_initial_tickets(self) -> None:
        """Each seat is dealt its long tickets first, then the regular ones; the long tickets
        nobody is dealt are out of the game."""
        rng, long = self._rng, self.board.ticket_long
        ticket_deck = [t for t in range(len(long)) if not long[t]]
        rng.shuffle(ticket_deck)
        self._ticket_deck = ticket_deck
        long_deck = [t for t in range(len(long)) if long[t]]
        rng.shuffle(long_deck)
        rules = self.rules
        for seat in self._seat_order():
            for _ in range(min(rules.initial_long_tickets, len(long_deck))):
                self._offers[seat].append(long_deck.pop())
            for _ in range(min(rules.initial_tickets_dealt, len(ticket_deck))):
                self._offers[seat].append(ticket_deck.pop())
        self._out = long_deck

    def _return_setup_tickets(self, returned: list[int]) -> None:
        """Every ticket put away at setup, long or regular, leaves the game."""
        self._out.extend(returned)

    # -- a turn: stations -------------------------------------------------------------------

    def _extra_turn_actions(self, actions: list[Action]) -> None:
        """Every way to pay for a station on every city without one."""
        rules = self.rules
        seat = self._to_move
        built = len(self._stations[seat])
        if built >= rules.stations:
            return
        hand = self._hands[seat]
        wild = len(hand) - 1
        wilds = hand[wild]
        cost = rules.station_costs[built]
        board = self.board
        taken = self._station_at
        held = [c for c in range(wild) if hand[c] and hand[c] + wilds >= cost]
        high = wilds if wilds < cost else cost - 1
        for city in range(len(board.cities)):
            if city in taken:
                continue
            table = board.station_table[city]
            for c in held:
                low = cost - hand[c] if cost > hand[c] else 0
                for k in range(low, high + 1):
                    actions.append(table[c][k])
            if wilds >= cost:
                actions.append(board.station_all_wild[city][cost])

    def _build_station(self, action: BuildStation) -> None:
        self._require_turn(action)
        rules, board = self.rules, self.board
        seat = self._to_move
        built = len(self._stations[seat])
        if built >= rules.stations:
            raise IllegalActionError(
                action, "station.none-left", f"the player has built all {rules.stations} stations"
            )
        city = board.city_index.get(action.city)
        if city is None:
            raise IllegalActionError(action, "station.city", f"no city '{action.city}'")
        if city in self._station_at:
            raise IllegalActionError(
                action,
                "station.taken",
                f"{board.city_names[action.city]} already has a station "
                f"(seat {self._station_at[city]})",
            )
        cost = rules.station_costs[built]
        hand = self._hands[seat]
        wild = len(hand) - 1
        if action.colour is None:
            colour, coloured = wild, 0
            valid = action.wilds == cost
        else:
            colour = board.colour_index.get(action.colour, -1)
            coloured = cost - action.wilds
            valid = colour >= 0 and 0 < coloured <= hand[colour]
        if not valid or hand[wild] < action.wilds:
            raise IllegalActionError(
                action,
                "station.payment",
                f"station {built + 1} costs {cost} cards of one colour (wilds may stand in); "
                "the player does not hold this payment",
            )
        hand[colour] -= coloured
        hand[wild] -= action.wilds
        self._discards[colour] += coloured
        self._discards[wild] += action.wilds
        self._stations[seat].append(city)
        self._station_at[city] = seat
        self._end_turn()

    # -- a claim: tunnels -------------------------------------------------------------------

    def _pay_claim(self, r: int, colour: int, coloured: int, wilds: int) -> None:
        """A tunnel turns cards from the deck; each of the colour paid (or wild; only wilds
        when the claim was paid with wilds alone) asks for one more card."""
        if not self.board.route_tunnel[r]:
            super()._pay_claim(r, colour, coloured, wilds)
            return
        turned = []
        for _ in range(self.rules.tunnel_reveal):
            card = self._pop_card()
            if card >= 0:
                turned.append(card)
        wild = len(self.rules.colours)
        extra = sum(1 for c in turned if c in (wild, colour))
        if extra == 0:
            discards = self._discards
            discards[colour] += coloured
            discards[wild] += wilds
            for c in turned:
                discards[c] += 1
            self._complete_claim(self._to_move, r)
            return
        self._tunnel = (r, colour, coloured, wilds, turned, extra)
        self._phase = TUNNEL

    def _phase_actions(self, phase: int) -> list[Action]:
        return self._tunnel_actions()

    def _tunnel_actions(self) -> list[Action]:
        """Pay the extra cards (each of the claim's colour or wild), or withdraw."""
        if self._tunnel is None:
            return []
        _, colour, _, _, _, extra = self._tunnel
        hand = self._hands[self._to_move]
        wild = len(hand) - 1
        pay = self.board.pay_actions
        options: list[Action]
        if colour == wild:
            options = [pay[extra]] if hand[wild] >= extra else []
        else:
            low = extra - hand[colour] if extra > hand[colour] else 0
            options = [pay[k] for k in range(low, min(extra, hand[wild]) + 1)]
        return [*options, WITHDRAW]

    def _pay_tunnel(self, action: PayTunnel) -> None:
        if self._phase != TUNNEL or self._tunnel is None:
            raise IllegalActionError(action, "tunnel.phase", "no tunnel is waiting for cards")
        r, colour, coloured, wilds, turned, extra = self._tunnel
        if action not in self._tunnel_actions():
            what = self.board.card_names[colour]
            raise IllegalActionError(
                action,
                "tunnel.cards",
                f"the tunnel asks for {extra} more {what} or wild cards; "
                f"the player cannot pay them with {action.wilds} wilds",
            )
        hand, discards = self._hands[self._to_move], self._discards
        wild = len(hand) - 1
        more_colour = extra - action.wilds if colour != wild else 0
        hand[colour] -= more_colour
        hand[wild] -= action.wilds
        discards[colour] += coloured + more_colour
        discards[wild] += wilds + action.wilds
        for c in turned:
            discards[c] += 1
        self._tunnel = None
        self._complete_claim(self._to_move, r)

    def _withdraw(self, action: Withdraw) -> None:
        if self._phase != TUNNEL or self._tunnel is None:
            raise IllegalActionError(action, "tunnel.phase", "no tunnel is waiting for cards")
        _, colour, coloured, wilds, turned, _ = self._tunnel
        hand = self._hands[self._to_move]
        hand[colour] += coloured
        hand[len(hand) - 1] += wilds
        for c in turned:
            self._discards[c] += 1
        self._tunnel = None
        self._end_turn()

    # -- the end ----------------------------------------------------------------------------

    def _best_tickets(self, seat: int) -> tuple[int, int, int, int]:
        """Each station may use one opponent route into its city. Every combination is tried
        (at most (routes into a city + 1) ** 3) and the one giving the most ticket points kept;
        ties go to more completed tickets, then to the first found."""
        best = self._ticket_outcome(seat, ())
        if not self._stations[seat] or not best[1]:
            return best
        board, owner = self.board, self._owner
        choices = []
        for city in self._stations[seat]:
            into = [r for r in board.city_routes[city] if owner[r] >= 0 and owner[r] != seat]
            choices.append([-1, *into])
        for combo in itertools.product(*choices):
            outcome = self._ticket_outcome(seat, tuple(r for r in combo if r >= 0))
            if (outcome[2] + outcome[3], outcome[0]) > (best[2] + best[3], best[0]):
                best = outcome
        return best

    def _score_extras(self, rows: list[dict[str, int]]) -> None:
        rules = self.rules
        for seat, row in enumerate(rows):
            left = rules.stations - len(self._stations[seat])
            row["stations_left"] = left
            row["stations"] = rules.station_points * left

    # -- views, copies, positions -----------------------------------------------------------

    def _observation_fields(self, seat: int) -> dict[str, Any]:
        fields = super()._observation_fields(seat)
        fields["tickets_out"] = None if self._phase == SETUP else len(self._out)
        tunnel = None
        if self._tunnel is not None:
            r, colour, coloured, wilds, turned, extra = self._tunnel
            names = self.board.card_names
            tunnel = TunnelView(
                route=r + 1,
                colour=names[colour],
                cards=coloured,
                wilds=wilds,
                turned=[names[c] for c in turned],
                extra=extra,
            )
        fields["tunnel"] = tunnel
        return fields

    def _seat_fields(self, seat: int, p: int) -> dict[str, Any]:
        fields = super()._seat_fields(seat, p)
        cities = self.board.cities
        fields["stations"] = [cities[c] for c in self._stations[p]]
        return fields

    def _copy_into(self, new: Self) -> None:
        super()._copy_into(new)
        new._stations = [s[:] for s in self._stations]
        new._station_at = dict(self._station_at)
        new._out = self._out[:]
        tunnel = self._tunnel
        new._tunnel = None if tunnel is None else (*tunnel[:4], tunnel[4][:], tunnel[5])

    def _position_fields(self) -> dict[str, Any]:
        fields = super()._position_fields()
        cities, names = self.board.cities, self.board.card_names
        fields["stations"] = [[cities[c] for c in built] for built in self._stations]
        fields["out"] = [t + 1 for t in self._out]
        tunnel = None
        if self._tunnel is not None:
            r, colour, coloured, wilds, turned, extra = self._tunnel
            tunnel = TunnelPosition(
                r + 1, names[colour], coloured, wilds, [names[c] for c in turned], extra
            )
        fields["tunnel"] = tunnel
        return fields

    def _load_position(self, variant: Variant, position: Any) -> None:
        super()._load_position(variant, position)
        board = self.board
        self._stations = self._per_seat(position.stations, "stations", self._cities)
        self._station_at = {}
        for seat, built in enumerate(self._stations):
            if len(built) > self.rules.stations:
                raise PositionError(f"stations[{seat}]: at most {self.rules.stations}")
            for city in built:
                if city in self._station_at:
                    raise PositionError(f"stations: two stations in {board.cities[city]}")
                self._station_at[city] = seat
        self._out = self._ticket_ids(position.out, "out")
        self._tunnel = None
        tunnel = position.tunnel
        if tunnel is not None:
            r = self._route_ids([tunnel.route], "tunnel.route")[0]
            if not board.route_tunnel[r] or self._owner[r] >= 0:
                raise PositionError(f"tunnel.route: route {tunnel.route} is not a free tunnel")
            self._tunnel = (
                r,
                self._card(tunnel.colour, "tunnel.colour"),
                tunnel.cards,
                tunnel.wilds,
                [self._card(name, "tunnel.turned") for name in tunnel.turned],
                tunnel.extra,
            )
        if (self._phase == TUNNEL) != (self._tunnel is not None):
            raise PositionError("tunnel: a pending tunnel exactly when the phase is 'tunnel'")

    def _cities(self, names: list[str], what: str) -> list[int]:
        index = self.board.city_index
        for name in names:
            if name not in index:
                raise PositionError(f"{what}: no city '{name}'")
        return [index[name] for name in names]

    def _cards_elsewhere(self) -> list[list[int]]:
        if self._tunnel is None:
            return []
        _, colour, coloured, wilds, turned, _ = self._tunnel
        pending = [0] * len(self.board.card_names)
        pending[colour] += coloured
        pending[-1] += wilds
        for c in turned:
            pending[c] += 1
        return [pending]

    def _tickets_elsewhere(self) -> list[list[int]]:
        return [self._out]

    # -- sampling ---------------------------------------------------------------------------

    @classmethod
    def sampleable_phases(cls) -> frozenset[str]:
        return SAMPLEABLE | {"tunnel"}

    @classmethod
    def _seen_elsewhere(cls, observation: BoardObservation) -> list[str]:
        """The cards of a pending tunnel lie face up."""
        tunnel = observation.get("tunnel")
        if tunnel is None:
            return []
        return [tunnel.colour] * tunnel.cards + ["wild"] * tunnel.wilds + list(tunnel.turned)

    @classmethod
    def _sample_tickets(
        cls,
        variant: Variant,
        observation: BoardObservation,
        rng: random.Random,
        belief: TicketBelief | None,
        fields: dict[str, Any],
    ) -> None:
        """The unseen long tickets are held by other seats (one each at most) or out of the
        game; the unseen regular ones by other seats, in their offers, in the deck or out.
        How many other seats kept a long ticket is drawn uniformly among the numbers the
        public counts allow."""
        board: EuropeBoard = variant.board
        long = board.ticket_long
        own = [t.id for t in observation.tickets]
        offered = [t.id for t in observation.offered_tickets]
        known = {*own, *offered}
        hidden = [t + 1 for t in range(len(long)) if t + 1 not in known and not long[t]]
        hidden_long = [t + 1 for t in range(len(long)) if t + 1 not in known and long[t]]
        rng.shuffle(hidden)
        rng.shuffle(hidden_long)
        if observation.phase == "setup_tickets":
            cls._sample_setup(variant, observation, rng, hidden, hidden_long, fields)
            fields["out"] = hidden_long  # the long tickets nobody was dealt
        else:
            seat = observation.seat
            others = [p for p, public in enumerate(observation.public) if p != seat]
            out_count = observation.get("tickets_out") or 0
            least = max(0, len(hidden_long) - out_count)
            most = min(len(others), len(hidden_long))
            keepers = rng.sample(others, rng.randint(least, most) if least <= most else 0)
            dealt = {p: [hidden_long.pop()] for p in keepers}
            tickets, offers = cls._deal_held(observation, hidden, rng, belief, dealt)
            out = hidden_long + [hidden.pop() for _ in range(out_count - len(hidden_long))]
            fields.update(tickets=tickets, offers=offers, setup_returns=[], out=out)
        if len(hidden) != observation.ticket_deck_size:
            raise ValueError("the observation's ticket counts do not add up")
        fields["ticket_deck"] = hidden

    @classmethod
    def _sample_extras(cls, observation: BoardObservation, fields: dict[str, Any]) -> None:
        fields["stations"] = [list(public.get("stations", ())) for public in observation.public]
        tunnel = observation.get("tunnel")
        fields["tunnel"] = (
            None
            if tunnel is None
            else TunnelPosition(
                tunnel.route,
                tunnel.colour,
                tunnel.cards,
                tunnel.wilds,
                list(tunnel.turned),
                tunnel.extra,
            )
        )


def make_variant(data: dict[str, Any] | None = None) -> Variant:
    data = data or load_map("europe")
    parts = data["components"]
    rules = train_game_rules(
        data,
        EuropeRules,
        initial_tickets_dealt=parts["initial_regular_tickets_dealt"],
        initial_long_tickets=parts["initial_long_tickets_dealt"],
        # Europe's rulebook: most tickets, then fewest stations used, then the Express.
        tie_breaks=("completed_tickets", "stations_left", "longest_path_bonus"),
        stations=parts["stations_per_player"],
        station_costs=tuple(parts["station_build_cost"]),
        station_points=parts["station_unused_points"],
        tunnel_reveal=parts["tunnel_extra_cards_revealed"],
    )
    return board_variant(
        "europe",
        "tunnels, ferries, 3 stations each; long tickets; 2-5 players",
        rules,
        data,
        game=EuropeState,
        board=EuropeBoard,
        rules_version=RULES_VERSION,
    )


@hookimpl
def arena_variants() -> list[Variant]:
    return [make_variant()]


__all__ = [
    "BuildStation",
    "EuropeAction",
    "EuropeBoard",
    "EuropeObservation",
    "EuropePosition",
    "EuropeRules",
    "EuropeState",
    "PayTunnel",
    "Withdraw",
]
