"""Actions: small immutable values with a compact text notation.

The notation (docs/NOTATION.md) is the same everywhere: logs, replays,
error messages and the protocol. ``parse_action(str(a)) == a`` for every
action ``a``.

    draw deck            draw the top card of the train deck
    draw 2               take the face-up card in slot 2 (slots 0-4)
    claim 57 red w2      claim route 57 with red cards, two of them wild
    claim 57 red         ... with red cards only (w0 may be written)
    claim 57 w4          ... with wild cards only
    tickets              draw destination tickets
    keep 0 2             keep the offered tickets 0 and 2
    pass                 the only action when nothing else is legal
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.engine.errors import NotationError


@dataclass(frozen=True, slots=True)
class DrawCard:
    """Draw one train card: from the deck (``slot is None``) or a face-up slot."""

    slot: int | None = None

    def __str__(self) -> str:
        return "draw deck" if self.slot is None else f"draw {self.slot}"


@dataclass(frozen=True, slots=True)
class ClaimRoute:
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
class DrawTickets:
    """Draw destination tickets; the same player then chooses which to keep."""

    def __str__(self) -> str:
        return "tickets"


@dataclass(frozen=True, slots=True)
class KeepTickets:
    """Keep the offered tickets at these 0-based positions (sorted, distinct)."""

    indices: tuple[int, ...]

    def __str__(self) -> str:
        return "keep " + " ".join(str(i) for i in self.indices)


@dataclass(frozen=True, slots=True)
class Pass:
    """Do nothing: legal only when the player has no other legal action."""

    def __str__(self) -> str:
        return "pass"


Action = DrawCard | ClaimRoute | DrawTickets | KeepTickets | Pass

DRAW_DECK = DrawCard(None)
DRAW_TICKETS = DrawTickets()
PASS = Pass()


def _int(token: str, what: str, text: str) -> int:
    if not token.isdigit():
        raise NotationError(f"'{text}': {what} must be a non-negative integer, got '{token}'")
    return int(token)


def _wilds(token: str, text: str) -> int:
    if len(token) < 2 or token[0] != "w":
        raise NotationError(f"'{text}': expected a wild count like 'w2', got '{token}'")
    return _int(token[1:], "the wild count", text)


def parse_action(text: str) -> Action:
    """Parse one action in the notation; raise ``NotationError`` saying what is wrong."""
    if not isinstance(text, str):
        raise NotationError(f"an action must be text, got {type(text).__name__}")
    if len(text) > 200:
        raise NotationError("an action is at most 200 characters long")
    words = text.split()
    if not words:
        raise NotationError("empty action")
    verb, args = words[0], words[1:]
    if verb == "draw":
        if len(args) != 1:
            raise NotationError(f"'{text}': expected 'draw deck' or 'draw SLOT'")
        return DRAW_DECK if args[0] == "deck" else DrawCard(_int(args[0], "the slot", text))
    if verb == "claim":
        if not 2 <= len(args) <= 3:
            raise NotationError(f"'{text}': expected 'claim ROUTE COLOUR [wN]' or 'claim ROUTE wN'")
        route = _int(args[0], "the route id", text)
        if len(args) == 2 and args[1][:1] == "w" and args[1][1:].isdigit():
            return ClaimRoute(route, None, _wilds(args[1], text))
        colour = args[1]
        if not colour.isalpha() or not colour.islower():
            raise NotationError(f"'{text}': '{colour}' is not a colour name")
        wilds = _wilds(args[2], text) if len(args) == 3 else 0
        return ClaimRoute(route, colour, wilds)
    if verb == "tickets":
        if args:
            raise NotationError(f"'{text}': 'tickets' takes no arguments")
        return DRAW_TICKETS
    if verb == "keep":
        if not args:
            raise NotationError(f"'{text}': 'keep' needs at least one ticket position")
        indices = tuple(_int(a, "a ticket position", text) for a in args)
        if list(indices) != sorted(set(indices)):
            raise NotationError(f"'{text}': ticket positions must be distinct and increasing")
        return KeepTickets(indices)
    if verb == "pass":
        if args:
            raise NotationError(f"'{text}': 'pass' takes no arguments")
        return PASS
    raise NotationError(f"'{text}': unknown action '{verb}' (draw, claim, tickets, keep, pass)")
