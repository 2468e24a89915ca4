"""The game-state contract, and the skeleton every game of the family shares.

``GameState`` is the contract (a ``typing.Protocol``, after OpenSpiel's State):
the referee, the sampler, the bots and the tournaments use nothing else.
``GameBase`` is what every game shares (a board game or not): seats and turn
order, phases, action dispatch, train cards and tickets in hands and piles,
positions, the common part of the observation, result caching.

A game subclasses ``GameBase`` and names its hooks (python-chess's variant
classes are the model): ``ACTIONS`` maps each action type to the method that
plays it, ``PHASES`` and ``PHASE_HINTS`` name its phases, ``position_type`` /
``observation_type`` / ``seat_view_type`` are its Structs, and it extends
``_copy_into``, ``_position_fields`` / ``_load_position``,
``_observation_fields`` / ``_seat_fields`` with its own state.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self

import msgspec
from mypy_extensions import mypyc_attr

from arena.engine.actions import Action, KeepTickets, parse_action
from arena.engine.errors import IllegalActionError, PositionError
from arena.engine.observation import Components, Observation, SeatView
from arena.engine.position import Position
from arena.engine.result import GameResult, ScoreLabel

if TYPE_CHECKING:
    from arena.engine.variant import Variant

# The phases every game has; a game numbers its own from 5 on.
SETUP, TURN, SECOND_DRAW, KEEP, OVER = range(5)
BASE_PHASES = ("setup_tickets", "turn", "second_draw", "keep_tickets", "over")


class GameState(Protocol):
    """What every game state offers; referee, sampler, bots and tournaments use only this."""

    variant: Variant
    board: Components
    num_players: int
    first_player: int
    turn: int

    @property
    def to_move(self) -> int | None:
        """The seat that must decide next, or None when the game is over."""

    @property
    def is_over(self) -> bool: ...

    @property
    def phase(self) -> str:
        """The name of the current step (``turn``, ``keep_tickets``, a variant's own...)."""

    @property
    def scored_points(self) -> tuple[int, ...]:
        """Points each seat has scored so far, as every player sees them."""

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to move, each once."""

    def apply(self, action: Action | str) -> None:
        """Play an action (or its notation); ``IllegalActionError`` names the rule broken."""

    def observation(self, seat: int) -> Observation:
        """Everything ``seat`` may know, and nothing more."""

    def result(self) -> GameResult:
        """Scores with their breakdown and ranks, once the game is over."""

    def copy(self) -> Self:
        """An independent copy with the same future under the same actions."""

    def fingerprint(self) -> str:
        """The complete state as one value (hidden parts included), for comparisons."""

    def to_position(self) -> str:
        """The complete state as JSON; ``Variant.from_position`` reads it back."""

    def resample(self, seat: int, rng: random.Random) -> Self:
        """A full state consistent with ``seat``'s observation: what it cannot see is dealt
        at random by ``rng``."""


@functools.cache
def keep_choices(offered: int, minimum: int) -> tuple[KeepTickets, ...]:
    """Every subset of ``offered`` positions with at least ``minimum`` members, smallest first.

    Cached: the engine's legal ticket choices are these very objects in every game (public
    for tools that index actions by identity, such as ``arena.envs``)."""
    choices = [
        KeepTickets(tuple(i for i in range(offered) if mask >> i & 1))
        for mask in range(1 << offered)
        if bin(mask).count("1") >= minimum
    ]
    choices.sort(key=lambda k: (len(k.indices), k.indices))
    return tuple(choices)


Handler = Callable[[Any, Any], None]
# How likely ``seat`` holds ``ticket`` (any positive weight; 1 everywhere is uniform).
TicketBelief = Callable[[int, int], float]


@mypyc_attr(allow_interpreted_subclasses=True)
class GameBase:
    """The skeleton of a game of the family. Create states with ``arena.new_game``."""

    __slots__ = (
        "_deck",
        "_discards",
        "_display",
        "_generator",
        "_hands",
        "_last_round",
        "_offers",
        "_passes",
        "_phase",
        "_result",
        "_rng_shared",
        "_setup_left",
        "_setup_returns",
        "_ticket_deck",
        "_tickets",
        "_to_move",
        "_views",
        "board",
        "first_player",
        "num_players",
        "rules",
        "seed",
        "turn",
        "variant",
    )

    # -- the hooks a game names ------------------------------------------------------------
    PHASES: ClassVar[tuple[str, ...]] = BASE_PHASES
    # What the seat to move must do first, by phase (for the 'turn.phase' error).
    PHASE_HINTS: ClassVar[dict[int, str]] = {
        SETUP: "choose which initial tickets to keep ('keep ...')",
        SECOND_DRAW: "draw a second train card",
        KEEP: "choose which drawn tickets to keep ('keep ...')",
    }
    # The method (by name) that plays each kind of action; subclasses extend the dict.
    ACTIONS: ClassVar[dict[type[Action], str]] = {}
    position_type: ClassVar[type[Position]] = Position
    observation_type: ClassVar[type[Observation]] = Observation
    seat_view_type: ClassVar[type[SeatView]] = SeatView
    # How tables head and explain each score category.
    SCORE_LABELS: ClassVar[dict[str, ScoreLabel]] = {}
    _handlers: ClassVar[dict[type[Action], Handler]] = {}

    variant: Variant
    rules: Any
    board: Components
    num_players: int
    seed: int | None
    first_player: int
    turn: int
    _generator: random.Random  # read it through ``_rng``
    _rng_shared: bool  # copies share ``_generator`` until one of them draws from it
    _deck: list[int]  # bottom first
    _discards: list[int]  # count per card
    _display: list[int]  # card per face-up slot, -1 when empty
    _hands: list[list[int]]  # count per card, per seat
    _ticket_deck: list[int]  # bottom first
    _tickets: list[list[int]]
    _offers: list[list[int]]
    _setup_left: int  # seats still to make their initial ticket choice
    _setup_returns: list[int]
    _phase: int
    _to_move: int
    _last_round: int  # turns left once the last round has begun, else -1
    _passes: int
    _result: GameResult | None
    # Each seat's public view (``SeatView``) as every seat sees it, kept between moves and
    # rebuilt only when the seat's public data changed (None: to rebuild); see ``apply``.
    _views: list[Any]
    # Whether a move changes only the mover's own public seat data (hand size, tickets,
    # pieces, ...): then a move rebuilds one cached seat view, else every one. Not
    # inherited (``__init_subclass__``): each edition whose moves never reach another
    # seat's public data declares it True itself.
    MOVES_CHANGE_ONLY_THE_MOVER: ClassVar[bool] = False

    def __init__(self, variant: Variant, num_players: int, seed: int) -> None:
        """Deal a new game of ``variant`` (each game defines it; ``_start`` comes first)."""
        raise NotImplementedError

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # One lookup per apply: the class's own function for each action type.
        cls._handlers = {kind: getattr(cls, name) for kind, name in cls.ACTIONS.items()}
        # Not inherited: a new edition's moves may reach other seats (a toll, a trade), so
        # each class that knows its moves do not says so itself.
        if "MOVES_CHANGE_ONLY_THE_MOVER" not in vars(cls):
            cls.MOVES_CHANGE_ONLY_THE_MOVER = False

    def _start(
        self, variant: Variant, num_players: int, seed: int | None, rng: random.Random | None = None
    ) -> None:
        """The fields every game sets first; the generator is ``rng``, or seeded by ``seed``."""
        self.variant = variant
        self.rules = variant.rules
        self.board = variant.board
        self.num_players = num_players
        self.seed = seed
        self._generator = random.Random(seed) if rng is None else rng
        self._rng_shared = False
        self.turn = 0
        self._passes = 0
        self._last_round = -1
        self._result = None
        self._setup_returns = []
        self._setup_left = num_players
        self._phase = SETUP
        self._views = [None] * num_players

    @property
    def _rng(self) -> random.Random:
        """The game's generator, to draw from. A copy shares its original's generator
        until either of them draws (copy on write): a search copies states far more
        often than games reshuffle, and cloning a Mersenne Twister is most of a copy."""
        if self._rng_shared:
            self._generator = restored_rng(self._generator.getstate())
            self._rng_shared = False
        return self._generator

    # ------------------------------------------------------------------ queries

    @property
    def to_move(self) -> int | None:
        """The seat that must decide next, or None when the game is over."""
        return None if self._phase == OVER else self._to_move

    @property
    def is_over(self) -> bool:
        return self._phase == OVER

    @property
    def phase(self) -> str:
        return self.PHASES[self._phase]

    @property
    def scored_points(self) -> tuple[int, ...]:
        raise NotImplementedError

    def _seat_order(self) -> list[int]:
        first, n = self.first_player, self.num_players
        return [(first + i) % n for i in range(n)]

    def legal_actions(self) -> list[Action]:
        raise NotImplementedError

    # ------------------------------------------------------------------ moves

    def apply(self, action: Action | str) -> None:
        """Play ``action`` (an Action or its notation) for the seat to move.

        Raises ``IllegalActionError`` naming the rule broken; the state is
        unchanged when it raises.
        """
        if isinstance(action, str):
            action = parse_action(action)
        if self._phase == OVER:
            raise IllegalActionError(action, "game.over", "the game is over")
        handler = self._handlers.get(type(action))
        if handler is None:
            raise IllegalActionError(
                action, "action.unknown", f"not an action of {self.variant.title}"
            )
        mover = self._to_move
        handler(self, action)
        views = self._views
        if self.MOVES_CHANGE_ONLY_THE_MOVER:
            views[mover] = None
        else:
            for p in range(len(views)):
                views[p] = None

    def _require_turn(self, action: Action) -> None:
        """Refuse ``action`` unless the seat is at the start of its turn."""
        if self._phase != TURN:
            hint = self.PHASE_HINTS.get(self._phase, f"finish the step '{self.phase}'")
            raise IllegalActionError(action, "turn.phase", f"the player must {hint} first")

    def _check_keep(self, action: KeepTickets, options: Sequence[KeepTickets], least: int) -> None:
        if action not in options:
            offered = len(self._offers[self._to_move])
            raise IllegalActionError(
                action,
                "keep.choice",
                f"keep at least {least} of the {offered} offered tickets, "
                f"by distinct positions 0 to {offered - 1}",
            )

    def _keep_tickets(self, action: KeepTickets) -> list[int]:
        """Move the kept tickets of the seat to move from its offer to its hand; the rest."""
        seat = self._to_move
        offer = self._offers[seat]
        kept = set(action.indices)
        self._tickets[seat].extend(offer[i] for i in action.indices)
        returned = [ticket for i, ticket in enumerate(offer) if i not in kept]
        offer.clear()
        return returned

    # ------------------------------------------------------------------ result

    def result(self) -> GameResult:
        """Final scores with their breakdown and ranks (after the game's tie-breaks)."""
        if self._phase != OVER:
            raise RuntimeError("the game is not over yet")
        if self._result is None:
            self._result = self._score()
        return self._result

    def _score(self) -> GameResult:
        raise NotImplementedError

    @classmethod
    def score_categories(cls, rules: Any) -> tuple[str, ...]:
        """The breakdown entries that add up to a total under ``rules``, in table order."""
        raise NotImplementedError

    # ------------------------------------------------------------------ views

    def observation(self, seat: int) -> Observation:
        """Everything ``seat`` may know, and nothing more.

        Never included: other seats' hands, tickets and ticket offers, and the
        order of the decks. During setup the number of tickets another seat
        kept is hidden too, until every seat has chosen.
        """
        if type(seat) is not int or not 0 <= seat < self.num_players:
            raise ValueError(f"no seat {seat} in a {self.num_players}-player game")
        return self.observation_type(**self._observation_fields(seat))

    def _observation_fields(self, seat: int) -> dict[str, Any]:
        """The observation's fields; a game adds its own (and may replace ``public``)."""
        names = self.board.card_names
        views = self.board.ticket_views
        choosing = self._to_move == seat and self._phase in (SETUP, KEEP)
        return {
            "variant": self.variant.name,
            "seat": seat,
            "players": self.num_players,
            "first_player": self.first_player,
            "turn": self.turn,
            "phase": self.phase,
            "to_move": self.to_move,
            "hand": _by_name(names, self._hands[seat]),
            "tickets": [views[t] for t in self._tickets[seat]],
            "offered_tickets": [views[t] for t in self._offers[seat]] if choosing else [],
            "display": [names[c] if c >= 0 else None for c in self._display],
            "deck_size": len(self._deck),
            "discards": _by_name(names, self._discards),
            "ticket_deck_size": len(self._ticket_deck),
            "public": self._public_views(seat),
            "passes": self._passes,
            "last_round": self._last_round >= 0,
            "turns_left": self._last_round if self._last_round >= 0 else None,
        }

    def _public_views(self, seat: int) -> list[Any]:
        """What ``seat`` sees of every seat. A seat's view is the same for every viewer
        (except the other seats' ticket counts during the initial choice, built afresh), so
        it is built once and kept until a move changes it: an observation then costs a
        fraction of a move. The views are immutable Structs shared between observations."""
        views, view = self._views, self.seat_view_type
        hiding = self._phase == SETUP
        public: list[Any] = []
        for p in range(self.num_players):
            if hiding and p != seat:
                public.append(view(**self._seat_fields(seat, p)))
                continue
            known = views[p]
            if known is None:
                known = views[p] = view(**self._seat_fields(seat, p))
            public.append(known)
        return public

    def _seat_fields(self, seat: int, p: int) -> dict[str, Any]:
        """What ``seat`` sees of seat ``p``; a game adds its public components. Outside the
        initial choice it must not depend on ``seat`` (``_public_views`` shares it)."""
        hidden = self._phase == SETUP and p != seat
        return {
            "seat": p,
            "hand_size": sum(self._hands[p]),
            "tickets": None if hidden else len(self._tickets[p]),
            "offered": None if hidden else len(self._offers[p]),
        }

    # ------------------------------------------------------------------ copies

    def copy(self) -> Self:
        """An independent copy (for search): same future under the same actions."""
        new = type(self).__new__(type(self))
        self._copy_into(new)
        return new

    def _copy_into(self, new: Self) -> None:
        """Copy every field into ``new``; a game copies its own fields after these."""
        new.variant, new.rules, new.board = self.variant, self.rules, self.board
        new.num_players, new.seed, new.first_player = self.num_players, self.seed, self.first_player
        self._rng_shared = new._rng_shared = True
        new._generator = self._generator
        new._deck = self._deck[:]
        new._discards = self._discards[:]
        new._display = self._display[:]
        new._hands = [h[:] for h in self._hands]
        new._ticket_deck = self._ticket_deck[:]
        new._tickets = [t[:] for t in self._tickets]
        new._offers = [o[:] for o in self._offers]
        new._setup_left, new._setup_returns = self._setup_left, self._setup_returns[:]
        new._phase, new._to_move, new.turn = self._phase, self._to_move, self.turn
        new._last_round, new._passes, new._result = self._last_round, self._passes, self._result
        new._views = self._views[:]  # immutable views of identical seats

    # ------------------------------------------------------------------ positions

    def fingerprint(self) -> str:
        """The complete state as one value, hidden parts included: its position."""
        return self.to_position()

    def to_position(self) -> str:
        """The complete state as JSON (docs/NOTATION.md); ``Variant.from_position`` reads it."""
        position = self.position_type(**self._position_fields())
        return msgspec.json.encode(position).decode()

    def _position_fields(self) -> dict[str, Any]:
        """The position's fields; a game adds its own."""
        names = self.board.card_names
        version, words, gauss = self._generator.getstate()
        return {
            "variant": self.variant.name,
            "players": self.num_players,
            "seed": self.seed,
            "rng": (version, words, gauss),
            "first_player": self.first_player,
            "turn": self.turn,
            "phase": self.phase,
            "to_move": self._to_move,
            "passes": self._passes,
            "turns_left": self._last_round if self._last_round >= 0 else None,
            "deck": [names[c] for c in self._deck],
            "discards": dict(zip(names, self._discards, strict=True)),
            "display": [names[c] if c >= 0 else None for c in self._display],
            "hands": [dict(zip(names, hand, strict=True)) for hand in self._hands],
            "ticket_deck": [t + 1 for t in self._ticket_deck],
            "tickets": [[t + 1 for t in held] for held in self._tickets],
            "offers": [[t + 1 for t in offer] for offer in self._offers],
            "setup_returns": [t + 1 for t in self._setup_returns],
        }

    @classmethod
    def from_position(cls, variant: Variant, text: str | bytes) -> Self:
        """The state written in ``text`` (JSON from ``to_position``); ``PositionError`` says
        what is wrong with anything else."""
        try:
            position = msgspec.json.decode(text, type=cls.position_type)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise PositionError(f"not a position of '{variant.name}': {error}") from None
        return cls.from_position_data(variant, position)

    @classmethod
    def from_position_data(cls, variant: Variant, position: Position) -> Self:
        """The state of an already decoded position (the sampler builds them directly)."""
        if position.variant != variant.name:
            raise PositionError(
                f"the position is of variant '{position.variant}', not '{variant.name}'"
            )
        state = cls.__new__(cls)
        state._load_position(variant, position)  # its own class, on the state it builds
        state._check_position()
        return state

    def _load_position(self, variant: Variant, position: Any) -> None:
        """Set every field from ``position`` (checking each value); a game loads its own
        fields after these."""
        players = position.players
        if not variant.min_players <= players <= variant.max_players:
            raise PositionError(
                f"players: '{variant.name}' is for {variant.min_players}-"
                f"{variant.max_players} players, not {players}"
            )
        self._start(variant, players, position.seed, restored_rng(position.rng))
        self.first_player = self._seat(position.first_player, "first_player")
        self._to_move = self._seat(position.to_move, "to_move")
        if position.phase not in self.PHASES:
            raise PositionError(f"phase: '{position.phase}' is not one of {', '.join(self.PHASES)}")
        self._phase = self.PHASES.index(position.phase)
        self.turn = _count(position.turn, "turn")
        self._passes = _count(position.passes, "passes")
        left = position.turns_left
        self._last_round = -1 if left is None else _count(left, "turns_left")
        self._deck = [self._card(name, "deck") for name in position.deck]
        self._discards = self._card_counts(position.discards, "discards")
        face_up = self.rules.face_up
        if len(position.display) != face_up:
            raise PositionError(f"display: {face_up} face-up slots, not {len(position.display)}")
        self._display = [
            -1 if name is None else self._card(name, "display") for name in position.display
        ]
        self._hands = self._per_seat(position.hands, "hands", self._card_counts)
        self._ticket_deck = self._ticket_ids(position.ticket_deck, "ticket_deck")
        self._tickets = self._per_seat(position.tickets, "tickets", self._ticket_ids)
        self._offers = self._per_seat(position.offers, "offers", self._ticket_ids)
        self._setup_returns = self._ticket_ids(position.setup_returns, "setup_returns")
        if self._phase == SETUP:
            done = (self._to_move - self.first_player) % players
            self._setup_left = players - done

    def _check_position(self) -> None:
        """Every card and ticket is somewhere exactly once; a game adds its own checks."""
        supply = self._card_supply()
        found = [0] * len(supply)
        for c in self._deck:
            found[c] += 1
        for c in self._display:
            if c >= 0:
                found[c] += 1
        for pile in (self._discards, *self._hands, *self._cards_elsewhere()):
            for c, n in enumerate(pile):
                found[c] += n
        if found != supply:
            names = self.board.card_names
            wrong = [f"{names[c]} {found[c]} (not {supply[c]})" for c in range(len(supply))]
            wrong = [w for w, f, s in zip(wrong, found, supply, strict=True) if f != s]
            raise PositionError(f"train cards do not add up: {', '.join(wrong)}")
        seen: list[int] = [*self._ticket_deck, *self._setup_returns]
        for pile in (*self._tickets, *self._offers, *self._tickets_elsewhere()):
            seen += pile
        if sorted(seen) != list(range(len(self.board.ticket_views))):
            raise PositionError(
                "tickets do not add up: every ticket must be in exactly one pile "
                "(the ticket deck, a seat's tickets or offer, or the game's other piles)"
            )
        if self._phase == KEEP and not self._offers[self._to_move]:
            raise PositionError("phase 'keep_tickets': the seat to move has no offered tickets")
        self._check_turn_order()

    def _check_turn_order(self) -> None:
        """The counters and pending choices fit the phase: offered tickets only where a seat
        is choosing, setup returns only during the setup, passes and the last round's turns
        left within what play can reach (an edition's own phases check their own)."""
        phase, n, seat = self._phase, self.num_players, self._to_move
        if phase == SETUP:
            chose = {(self.first_player + i) % n for i in range(n - self._setup_left)}
            for p in range(n):
                if p in chose and self._offers[p]:
                    raise PositionError(f"offers[{p}]: seat {p} has already chosen its tickets")
                if p not in chose and self._tickets[p]:
                    raise PositionError(f"tickets[{p}]: seat {p} has not chosen its tickets yet")
            if self.turn or self._passes or self._last_round >= 0:
                raise PositionError("phase 'setup_tickets': turn and passes 0, turns_left null")
            return
        if self._setup_returns:
            raise PositionError("setup_returns: only while seats choose their initial tickets")
        if phase not in (TURN, SECOND_DRAW, KEEP, OVER):
            return
        for p in range(n):
            if self._offers[p] and not (phase == KEEP and p == seat):
                raise PositionError(f"offers[{p}]: only the seat choosing drawn tickets has some")
        if phase == OVER:
            return
        if self._passes >= n:
            raise PositionError(f"passes: {self._passes} in a row end a {n}-player game")
        if self._last_round == 0 or self._last_round > n:
            raise PositionError(f"turns_left: 1 to {n} while the game goes on, or null")

    def _card_supply(self) -> list[int]:
        """How many of each train card the game has."""
        raise NotImplementedError

    def _cards_elsewhere(self) -> list[list[int]]:
        """Card counts held outside deck, discards, display and hands (a game's own piles)."""
        return []

    def _tickets_elsewhere(self) -> list[list[int]]:
        """Tickets held outside the ticket deck, hands, offers and setup returns."""
        return []

    # -- readers for positions: each raises PositionError naming the field ------------------

    def _seat(self, value: int, what: str) -> int:
        if not 0 <= value < self.num_players:
            raise PositionError(f"{what}: no seat {value} in a {self.num_players}-player game")
        return value

    def _card(self, name: str, what: str) -> int:
        names = self.board.card_names
        if name not in names:
            raise PositionError(f"{what}: '{name}' is not a card ({', '.join(names)})")
        return names.index(name)

    def _card_counts(self, counts: dict[str, int], what: str) -> list[int]:
        names = self.board.card_names
        if sorted(counts) != sorted(names):
            raise PositionError(f"{what}: a count for each of {', '.join(names)}")
        return [_count(counts[name], what) for name in names]

    def _ticket_ids(self, ids: list[int], what: str) -> list[int]:
        total = len(self.board.ticket_views)
        for ticket in ids:
            if not 1 <= ticket <= total:
                raise PositionError(f"{what}: no ticket {ticket} (tickets are 1 to {total})")
        return [t - 1 for t in ids]

    def _per_seat(
        self, rows: list[Any], what: str, read: Callable[[Any, str], list[int]]
    ) -> list[list[int]]:
        if len(rows) != self.num_players:
            raise PositionError(f"{what}: one entry per seat ({self.num_players})")
        return [read(row, f"{what}[{p}]") for p, row in enumerate(rows)]

    # ------------------------------------------------------------------ sampling

    @classmethod
    def from_observation(
        cls,
        variant: Variant,
        observation: Observation,
        rng: random.Random,
        belief: TicketBelief | None = None,
    ) -> Self:
        """A random full state consistent with ``observation`` (each game implements it)."""
        raise NotImplementedError

    def resample(self, seat: int, rng: random.Random, belief: TicketBelief | None = None) -> Self:
        """A full state that ``seat`` cannot tell from this one: what it sees is kept, what
        it cannot see (other hands and tickets, the order of the decks) is dealt at random.
        Built from ``seat``'s observation alone, so it never leaks hidden information;
        ``belief`` weights the other seats' tickets (``Variant.sample``)."""
        sampled = self.variant.sample(self.observation(seat), rng, belief)
        if not isinstance(sampled, type(self)):
            raise TypeError(f"{self.variant.name} sampled a {type(sampled).__name__}")
        return sampled


def _by_name(names: tuple[str, ...], counts: list[int]) -> dict[str, int]:
    """``{name: count}`` in card order (a comprehension: compiled, it beats ``dict(zip())``)."""
    return {names[i]: counts[i] for i in range(len(names))}


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """``rng.shuffle(items)``: the same permutation from the same generator, which it leaves
    in the same state (CPython's algorithm, ``tests/test_engine_builds.py`` checks it), but
    compiled with the engine: every rollout's reshuffled deck and every sampled deal calls
    it. A subclass of ``random.Random`` may draw otherwise, so it shuffles by its own method."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j: int = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def restored_rng(state: Any) -> random.Random:
    """A generator in ``state`` (``random.Random.getstate()``); ``PositionError`` for anything
    else. Not seeded first: ``setstate`` sets all of it, and seeding from the system is slow."""
    rng = random.Random.__new__(random.Random)
    try:
        rng.setstate(state)
    except (TypeError, ValueError) as error:
        raise PositionError(f"rng: not a generator state ({error})") from None
    return rng


def _count(value: int, what: str) -> int:
    if value < 0:
        raise PositionError(f"{what}: {value} is negative")
    return value


if TYPE_CHECKING:

    def _every_game_keeps_the_contract(state: GameBase) -> GameState:
        """mypy checks here that the shared skeleton satisfies the contract."""
        return state
