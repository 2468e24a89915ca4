"""Actions and their notation: small immutable values, and the registry of verbs that reads them.

The notation (docs/NOTATION.md) is the same everywhere: logs, replays, error
messages and the protocol. ``parse_action(str(a)) == a`` for every action ``a``.

Every action is an ``Action``; the base game's are defined here::

    draw deck            draw the top card of the train deck
    draw 2               take the face-up card in slot 2 (slots 0-4)
    claim 57 red w2      claim route 57 with red cards, two of them wild
    claim 57 red         ... with red cards only (w0 may be written)
    claim 57 w4          ... with wild cards only
    tickets              draw destination tickets
    keep 0 2             keep the offered tickets 0 and 2 (``keep none``: none of them)
    pass                 the only action when nothing else is legal

A variant brings its own actions and registers their verbs with ``verb``
(for example ``@verb("toll")`` in tests/toll_variant.py), the way pytest plugins
register hooks: ``parse_action`` then reads them too, and the variant's
state plays them. A verb belongs to one parser; registering a taken verb
with another parser is an error said at import time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from arena.engine.errors import NotationError

MAX_ACTION_TEXT = 200


class Action:
    """Base of every action of every game: an immutable value whose ``str()`` is its notation."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class DrawCard(Action):
    """Draw one train card: from the deck (``slot is None``) or a face-up slot."""

    slot: int | None = None

    def __str__(self) -> str:
        return "draw deck" if self.slot is None else f"draw {self.slot}"


@dataclass(frozen=True, slots=True)
class ClaimRoute(Action):
    """Claim route ``route`` (its 1-based id) paying with ``colour`` cards plus ``wilds`` wilds.

    ``colour is None`` means the route is paid with wild cards only.
    """

    route: int
    colour: str | None
    wilds: int = 0

    def __str__(self) -> str:
        if self.colour is None:
            return f"claim {self.route} w{self.wilds}"
        if self.wilds:
            return f"claim {self.route} {self.colour} w{self.wilds}"
        return f"claim {self.route} {self.colour}"


@dataclass(frozen=True, slots=True)
class DrawTickets(Action):
    """Draw destination tickets; the same player then chooses which to keep."""

    def __str__(self) -> str:
        return "tickets"


@dataclass(frozen=True, slots=True)
class KeepTickets(Action):
    """Keep the offered tickets at these 0-based positions (sorted, distinct)."""

    indices: tuple[int, ...]

    def __str__(self) -> str:
        if not self.indices:
            return "keep none"  # where a game lets a player keep no drawn ticket
        return "keep " + " ".join(str(i) for i in self.indices)


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """Do nothing: legal only where the game says so (on the boards: when nothing else is)."""

    def __str__(self) -> str:
        return "pass"


# The base board game's actions: the type of every action the base game plays.
BoardAction: TypeAlias = DrawCard | ClaimRoute | DrawTickets | KeepTickets | Pass

DRAW_DECK = DrawCard(None)
DRAW_TICKETS = DrawTickets()
PASS = Pass()

# ---------------------------------------------------------------------- the registry

VerbParser: TypeAlias = Callable[[Sequence[str], str], Action]
"""Reads the words after the verb (``args``) of the action ``text``; raises ``NotationError``."""


class Notation:
    """The registry of verbs: each verb names the parser that reads its arguments."""

    def __init__(self) -> None:
        self._verbs: dict[str, VerbParser] = {}

    @property
    def verbs(self) -> tuple[str, ...]:
        """Every registered verb, in registration order."""
        return tuple(self._verbs)

    def register(self, name: str, parser: VerbParser) -> None:
        """Add ``name``; registering it again with the same parser is harmless."""
        if not name.isalpha() or not name.islower():
            raise ValueError(f"a verb is a lower-case word, not '{name}'")
        known = self._verbs.get(name)
        if known is not None and _qualified(known) != _qualified(parser):
            raise ValueError(
                f"the verb '{name}' is already read by {_qualified(known)}; "
                f"{_qualified(parser)} must use another verb"
            )
        self._verbs[name] = parser

    def parse(self, text: object) -> Action:
        """Parse one action; raise ``NotationError`` saying what is wrong."""
        if not isinstance(text, str):
            raise NotationError(f"an action must be text, got {type(text).__name__}")
        if len(text) > MAX_ACTION_TEXT:
            raise NotationError(f"an action is at most {MAX_ACTION_TEXT} characters long")
        words = text.split()
        if not words:
            raise NotationError("empty action")
        parser = self._verbs.get(words[0])
        if parser is None:
            raise NotationError(f"'{text}': unknown action '{words[0]}' ({', '.join(self._verbs)})")
        return parser(words[1:], text)


def _qualified(parser: VerbParser) -> str:
    return f"{parser.__module__}.{getattr(parser, '__qualname__', repr(parser))}"


NOTATION = Notation()


def verb(name: str) -> Callable[[VerbParser], VerbParser]:
    """Decorator: register the decorated function as the parser of the verb ``name``."""

    def register(parser: VerbParser) -> VerbParser:
        NOTATION.register(name, parser)
        return parser

    return register


def parse_action(text: object) -> Action:
    """Parse one action of any installed game; raise ``NotationError`` saying what is wrong."""
    return NOTATION.parse(text)


# ---------------------------------------------------------------------- argument readers


def integer(token: str, what: str, text: str) -> int:
    """A non-negative integer argument (``what`` names it in the error)."""
    if not token.isdigit():
        raise NotationError(f"'{text}': {what} must be a non-negative integer, got '{token}'")
    return int(token)


def is_wild_count(token: str) -> bool:
    """True for a wild count like ``w2``."""
    return len(token) > 1 and token[0] == "w" and token[1:].isdigit()


def wild_count(token: str, text: str) -> int:
    """The number in a wild count like ``w2``."""
    if len(token) < 2 or token[0] != "w":
        raise NotationError(f"'{text}': expected a wild count like 'w2', got '{token}'")
    return integer(token[1:], "the wild count", text)


def colour_name(token: str, text: str) -> str:
    """A card colour: one lower-case word."""
    if not token.isalpha() or not token.islower():
        raise NotationError(f"'{text}': '{token}' is not a colour name")
    return token


def location(token: str, text: str) -> str:
    """A location (city) id of a map: letters, digits, '-' and '_'."""
    if not all(ch.isalnum() or ch in "-_" for ch in token):
        raise NotationError(f"'{text}': '{token}' is not a location id")
    return token


def payment(args: Sequence[str], text: str) -> tuple[str | None, int]:
    """``COLOUR``, ``COLOUR wN`` or ``wN``: the colour paid (None: wilds only) and the wilds."""
    if len(args) == 1 and is_wild_count(args[0]):
        return None, wild_count(args[0], text)
    colour = colour_name(args[0], text)
    return colour, wild_count(args[1], text) if len(args) == 2 else 0


def no_arguments(args: Sequence[str], text: str, verb_name: str) -> None:
    if args:
        raise NotationError(f"'{text}': '{verb_name}' takes no arguments")


# ---------------------------------------------------------------------- the base verbs


@verb("draw")
def _parse_draw(args: Sequence[str], text: str) -> Action:
    if len(args) != 1:
        raise NotationError(f"'{text}': expected 'draw deck' or 'draw SLOT'")
    return DRAW_DECK if args[0] == "deck" else DrawCard(integer(args[0], "the slot", text))


@verb("claim")
def _parse_claim(args: Sequence[str], text: str) -> Action:
    if not 2 <= len(args) <= 3:
        raise NotationError(f"'{text}': expected 'claim ROUTE COLOUR [wN]' or 'claim ROUTE wN'")
    route = integer(args[0], "the route id", text)
    colour, wilds = payment(args[1:], text)
    return ClaimRoute(route, colour, wilds)


@verb("tickets")
def _parse_tickets(args: Sequence[str], text: str) -> Action:
    no_arguments(args, text, "tickets")
    return DRAW_TICKETS


def positions(args: Sequence[str], text: str, what: str) -> tuple[int, ...]:
    """Distinct increasing 0-based positions, or ``none`` for the empty choice."""
    if not args:
        raise NotationError(f"'{text}': expected {what} positions, or 'none'")
    if list(args) == ["none"]:
        return ()
    indices = tuple(integer(a, f"a {what} position", text) for a in args)
    if list(indices) != sorted(set(indices)):
        raise NotationError(f"'{text}': {what} positions must be distinct and increasing")
    return indices


@verb("keep")
def _parse_keep(args: Sequence[str], text: str) -> Action:
    return KeepTickets(positions(args, text, "ticket"))


@verb("pass")
def _parse_pass(args: Sequence[str], text: str) -> Action:
    no_arguments(args, text, "pass")
    return PASS
