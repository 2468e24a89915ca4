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
    place sunset         San Francisco: put the next tourist stack on location 'sunset'
    token alcatraz       San Francisco: take the tourist token at 'alcatraz'
    station wien red w1  Europe: build a station in Wien, paying red cards and one wild
    pay w1               Europe: pay a tunnel's extra cards (the claim's colour, one wild)
    withdraw             Europe: give the tunnel up and take the cards back
    play red 2 w1        Card Game: two red cards and a locomotive into the Train Yard
    play black blue red  Card Game: three cards of three colours (alphabetical order)
    keep none            Card Game: keep none of the drawn tickets
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
        if not self.indices:
            return "keep none"  # the Card Game lets a player keep no drawn ticket
        return "keep " + " ".join(str(i) for i in self.indices)


@dataclass(frozen=True, slots=True)
class Pass:
    """Do nothing: legal only when the player has no other legal action."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class PlaceStack:
    """San Francisco setup: put the next tourist stack on the location ``city`` (its id)."""

    city: str

    def __str__(self) -> str:
        return f"place {self.city}"


@dataclass(frozen=True, slots=True)
class TakeToken:
    """San Francisco: after a claim, take the tourist token at ``city`` (when both ends offer
    one the player does not have yet)."""

    city: str

    def __str__(self) -> str:
        return f"token {self.city}"


@dataclass(frozen=True, slots=True)
class BuildStation:
    """Europe: build a station on ``city`` paying ``colour`` cards plus ``wilds`` wilds
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
class PayTunnel:
    """Europe: pay the extra cards a tunnel asks for, ``wilds`` of them wild and the rest of
    the colour the claim was paid with."""

    wilds: int = 0

    def __str__(self) -> str:
        return f"pay w{self.wilds}" if self.wilds else "pay"


@dataclass(frozen=True, slots=True)
class Withdraw:
    """Europe: give a tunnel up; the cards laid down go back to the hand, the turn ends."""

    def __str__(self) -> str:
        return "withdraw"


@dataclass(frozen=True, slots=True)
class PlayGroup:
    """Card Game: play ``count`` cards of ``colour`` plus ``wilds`` locomotives (2 or more
    cards in all) into the player's Train Yard."""

    colour: str
    count: int
    wilds: int = 0

    def __str__(self) -> str:
        text = f"play {self.colour} {self.count}"
        return f"{text} w{self.wilds}" if self.wilds else text


@dataclass(frozen=True, slots=True)
class PlayTrio:
    """Card Game: play one card each of three different colours into the Train Yard."""

    colours: tuple[str, str, str]

    def __str__(self) -> str:
        return "play " + " ".join(self.colours)


Action = (
    DrawCard
    | ClaimRoute
    | DrawTickets
    | KeepTickets
    | Pass
    | PlaceStack
    | TakeToken
    | BuildStation
    | PayTunnel
    | Withdraw
    | PlayGroup
    | PlayTrio
)

DRAW_DECK = DrawCard(None)
DRAW_TICKETS = DrawTickets()
PASS = Pass()
WITHDRAW = Withdraw()


def _int(token: str, what: str, text: str) -> int:
    if not token.isdigit():
        raise NotationError(f"'{text}': {what} must be a non-negative integer, got '{token}'")
    return int(token)


def _wilds(token: str, text: str) -> int:
    if len(token) < 2 or token[0] != "w":
        raise NotationError(f"'{text}': expected a wild count like 'w2', got '{token}'")
    return _int(token[1:], "the wild count", text)


def _is_wilds(token: str) -> bool:
    return len(token) > 1 and token[0] == "w" and token[1:].isdigit()


def _location(token: str, text: str) -> str:
    if not all(ch.isalnum() or ch in "-_" for ch in token):
        raise NotationError(f"'{text}': '{token}' is not a location id")
    return token


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
            raise NotationError(f"'{text}': 'keep' needs ticket positions, or 'none'")
        if args == ["none"]:
            return KeepTickets(())
        indices = tuple(_int(a, "a ticket position", text) for a in args)
        if list(indices) != sorted(set(indices)):
            raise NotationError(f"'{text}': ticket positions must be distinct and increasing")
        return KeepTickets(indices)
    if verb == "pass":
        if args:
            raise NotationError(f"'{text}': 'pass' takes no arguments")
        return PASS
    if verb == "station":
        if not 2 <= len(args) <= 3:
            raise NotationError(
                f"'{text}': expected 'station CITY COLOUR [wN]' or 'station CITY wN'"
            )
        city = _location(args[0], text)
        if len(args) == 2 and args[1][:1] == "w" and args[1][1:].isdigit():
            return BuildStation(city, None, _wilds(args[1], text))
        colour = args[1]
        if not colour.isalpha() or not colour.islower():
            raise NotationError(f"'{text}': '{colour}' is not a colour name")
        wilds = _wilds(args[2], text) if len(args) == 3 else 0
        return BuildStation(city, colour, wilds)
    if verb == "play":
        if len(args) == 3 and not any(a.isdigit() or _is_wilds(a) for a in args[1:]):
            for colour in args:
                if not colour.isalpha() or not colour.islower():
                    raise NotationError(f"'{text}': '{colour}' is not a colour name")
            if len(set(args)) != 3 or list(args) != sorted(args):
                raise NotationError(f"'{text}': three different colours, in alphabetical order")
            return PlayTrio((args[0], args[1], args[2]))
        if not 2 <= len(args) <= 3:
            raise NotationError(
                f"'{text}': expected 'play COLOUR N [wN]' or 'play COLOUR COLOUR COLOUR'"
            )
        colour = args[0]
        if not colour.isalpha() or not colour.islower():
            raise NotationError(f"'{text}': '{colour}' is not a colour name")
        count = _int(args[1], "the card count", text)
        wilds = _wilds(args[2], text) if len(args) == 3 else 0
        return PlayGroup(colour, count, wilds)
    if verb == "pay":
        if len(args) > 1:
            raise NotationError(f"'{text}': expected 'pay' or 'pay wN'")
        return PayTunnel(_wilds(args[0], text) if args else 0)
    if verb == "withdraw":
        if args:
            raise NotationError(f"'{text}': 'withdraw' takes no arguments")
        return WITHDRAW
    if verb in ("place", "token"):
        if len(args) != 1:
            raise NotationError(f"'{text}': expected '{verb} LOCATION'")
        city = _location(args[0], text)
        return PlaceStack(city) if verb == "place" else TakeToken(city)
    raise NotationError(
        f"'{text}': unknown action '{verb}' "
        "(draw, claim, tickets, keep, pass, place, token, station, pay, withdraw, play)"
    )
