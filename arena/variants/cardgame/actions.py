"""The Card Game's own actions and their verbs: plays into the Train Yard, and the tickets a
player completes with its On-the-Track pile when a round is scored.

    play red 2 w1        two red cards and a locomotive into the Train Yard
    play black blue red  one card each of three colours (alphabetical order)
    complete 12          complete held ticket 12 with the On-the-Track pile (then 'pass')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

from arena.engine.actions import (
    Action,
    DrawCard,
    DrawTickets,
    KeepTickets,
    Pass,
    colour_name,
    integer,
    is_wild_count,
    verb,
    wild_count,
)
from arena.engine.errors import NotationError


@dataclass(frozen=True, slots=True)
class PlayGroup(Action):
    """Play ``count`` cards of ``colour`` plus ``wilds`` locomotives (2 or more cards in all)
    into the player's Train Yard."""

    colour: str
    count: int
    wilds: int = 0

    def __str__(self) -> str:
        text = f"play {self.colour} {self.count}"
        return f"{text} w{self.wilds}" if self.wilds else text


@dataclass(frozen=True, slots=True)
class PlayTrio(Action):
    """Play one card each of three different colours into the Train Yard."""

    colours: tuple[str, str, str]

    def __str__(self) -> str:
        return "play " + " ".join(self.colours)


@dataclass(frozen=True, slots=True)
class CompleteTicket(Action):
    """At a scoring: complete held ticket ``ticket`` (its id) with the cards of the player's
    On-the-Track pile, besides those already chosen; ``pass`` ends the choice."""

    ticket: int

    def __str__(self) -> str:
        return f"complete {self.ticket}"


# Every action a Card Game plays ('pass' also takes no second card, or ends a completion).
CardGameAction: TypeAlias = (
    DrawCard | DrawTickets | KeepTickets | Pass | PlayGroup | PlayTrio | CompleteTicket
)


@verb("play")
def parse_play(args: Sequence[str], text: str) -> Action:
    if len(args) == 3 and not any(a.isdigit() or is_wild_count(a) for a in args[1:]):
        colours = [colour_name(a, text) for a in args]
        if len(set(colours)) != 3 or colours != sorted(colours):
            raise NotationError(f"'{text}': three different colours, in alphabetical order")
        return PlayTrio((colours[0], colours[1], colours[2]))
    if not 2 <= len(args) <= 3:
        raise NotationError(
            f"'{text}': expected 'play COLOUR N [wN]' or 'play COLOUR COLOUR COLOUR'"
        )
    colour = colour_name(args[0], text)
    count = integer(args[1], "the card count", text)
    wilds = wild_count(args[2], text) if len(args) == 3 else 0
    return PlayGroup(colour, count, wilds)


@verb("complete")
def parse_complete(args: Sequence[str], text: str) -> Action:
    if len(args) != 1:
        raise NotationError(f"'{text}': expected 'complete TICKET' (a ticket id)")
    return CompleteTicket(integer(args[0], "the ticket id", text))
