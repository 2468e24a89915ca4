"""The Card Game's printed components and rule numbers: tickets with the cards each asks
for, the Big City bonuses, and which sets of tickets an On-the-Track pile completes."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine.observation import TicketView
from arena.variants.cardgame.actions import PlayGroup, PlayTrio
from arena.variants.cardgame.views import CardTicketView


@dataclass(frozen=True)
class CardGameRules:
    colours: tuple[str, ...]
    cards_per_colour: int
    locomotives: int
    starting_locomotives: int
    starting_hand: int
    face_up: int
    deal_tickets: int
    keep_min: int
    draw_tickets: int
    rounds: dict[int, int]  # player count -> times the train deck is played through
    second_round_hand: int = 4
    owner_sees_track: bool = False  # the rulebook's variant: a player may look at their pile
    min_players: int = 2
    max_players: int = 4
    wild_name: str = "locomotive"

    @property
    def card_supply(self) -> list[int]:
        """How many train cards of each colour, then locomotives."""
        return [self.cards_per_colour] * len(self.colours) + [self.locomotives]


@dataclass(frozen=True)
class CardTicket:
    id: int
    a: str
    b: str
    points: int
    cards: tuple[int, ...]  # count per colour


class CardGameBoard:
    """The printed components: tickets (with the cards each asks for) and big cities.

    Every play is interned here and public (``arena.envs`` indexes them):
    ``group_actions[colour][count][locomotives]`` (colour index in ``rules.colours``) and
    ``trio_actions[a][b][c]`` for colour indices ``a < b < c`` (None elsewhere)."""

    group_actions: tuple[tuple[tuple[PlayGroup, ...], ...], ...]
    trio_actions: tuple[tuple[tuple[PlayTrio | None, ...], ...], ...]

    def __init__(self, data: dict[str, Any], rules: CardGameRules) -> None:
        index = {c: i for i, c in enumerate(rules.colours)}
        self.tickets = tuple(
            CardTicket(
                i + 1,
                t["a"],
                t["b"],
                int(t["points"]),
                tuple(t["cards"].get(c, 0) for c in rules.colours),
            )
            for i, t in enumerate(data["tickets"])
        )
        for t, raw in zip(self.tickets, data["tickets"], strict=True):
            unknown = set(raw["cards"]) - set(index)
            if unknown:
                raise ValueError(f"ticket {t.id} asks for unknown colours {sorted(unknown)}")
        self.ticket_views: tuple[TicketView, ...] = tuple(
            CardTicketView(
                id=t.id,
                a=t.a,
                b=t.b,
                points=t.points,
                cards={c: n for c, n in zip(rules.colours, t.cards, strict=True) if n},
            )
            for t in self.tickets
        )
        self.big_cities = tuple((c["id"], int(c["bonus"])) for c in data["big_cities"])
        # Every play, interned: group_actions[colour][count][locomotives], and
        # trio_actions[a][b][c] for colour indices a < b < c (named in alphabetical order).
        colours = rules.colours
        most = rules.cards_per_colour
        self.group_actions = tuple(
            tuple(
                tuple(PlayGroup(name, count, w) for w in range(rules.locomotives + 1))
                for count in range(most + 1)
            )
            for name in colours
        )
        n = len(colours)
        self.trio_actions = tuple(
            tuple(
                tuple(
                    PlayTrio(_sorted_trio(colours[a], colours[b], colours[c]))
                    if a < b < c
                    else None
                    for c in range(n)
                )
                for b in range(n)
            )
            for a in range(n)
        )
        self.card_names = (*rules.colours, "wild")
        self.colour_index = index
        self.rules = rules
        self.data = data

    def public_json(self) -> dict[str, Any]:
        """What every player sees before the game: tickets, big cities, rule numbers."""
        rules = self.rules
        return {
            "cities": [],
            "routes": [],
            "tickets": [view.to_json() for view in self.ticket_views],
            "big_cities": [{"id": c, "bonus": b} for c, b in self.big_cities],
            "rules": {
                "colours": list(rules.colours),
                "face_up": rules.face_up,
                "draw_tickets": rules.draw_tickets,
                "owner_sees_track": rules.owner_sees_track,
                "rounds": {str(n): r for n, r in rules.rounds.items()},
            },
        }


def _sorted_trio(a: str, b: str, c: str) -> tuple[str, str, str]:
    first, second, third = sorted((a, b, c))
    return first, second, third


def completable(tickets: Sequence[CardTicket], track: Sequence[int], wild: int) -> bool:
    """The pile ``track`` (counts per card) completes all of ``tickets`` together: each card
    serves one ticket and locomotives stand in for any colour, so exactly when the
    locomotives cover every colour's shortfall."""
    need = [0] * wild
    for ticket in tickets:
        for c, n in enumerate(ticket.cards):
            need[c] += n
    shortfall = sum(n - h for n, h in zip(need, track[:wild], strict=True) if n > h)
    return shortfall <= track[wild]


def completable_additions(
    tickets: Sequence[CardTicket], chosen: Sequence[CardTicket], track: Sequence[int], wild: int
) -> list[CardTicket]:
    """The ``tickets`` the pile can complete together with those already ``chosen``."""
    return [t for t in tickets if t not in chosen and completable([*chosen, t], track, wild)]


def best_ticket_set(
    tickets: Sequence[CardTicket], track: Sequence[int], wild: int
) -> tuple[list[CardTicket], int]:
    """The tickets to complete with the cards of ``track`` for the most points (then the most
    tickets): what a player who only wants points chooses. Exact: a depth-first search over
    the tickets (most valuable first), pruned when the points still available cannot beat
    the best set found. The points still available are bounded by the cards left: each card
    serves one ticket, so the tickets still to decide can add at most what the best points
    per card fill of the cards not yet used (a fractional knapsack, rounded up). Without
    that bound a player holding some 30 tickets with a large pile took seconds (a sampled
    card-game state, ``from_observation``, runs this for every seat that chose)."""
    order = sorted(tickets, key=lambda t: (-t.points, t.id))
    have = track[:wild]
    locos = track[wild]
    best: list[CardTicket] = []
    best_key = (0, 0)
    suffix = [0] * (len(order) + 1)
    for i in range(len(order) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + order[i].points
    sizes = [sum(t.cards) for t in order]
    # The tickets by points per card, best first (a ticket of no cards: first).
    by_value = sorted(
        range(len(order)), key=lambda k: (-order[k].points / sizes[k] if sizes[k] else -math.inf, k)
    )
    need = [0] * wild
    chosen: list[CardTicket] = []

    def shortfall() -> int:
        return sum(n - h for n, h in zip(need, have, strict=True) if n > h)

    def within(i: int, room: int) -> int:
        """At most the points the tickets from ``i`` on can add with ``room`` cards."""
        points = 0
        for k in by_value:
            if k < i:
                continue
            if sizes[k] <= room:
                room -= sizes[k]
                points += order[k].points
            else:
                return points + -(-order[k].points * room // sizes[k])
        return points

    def search(i: int, points: int, room: int) -> None:
        nonlocal best, best_key
        key = (points, len(chosen))
        if key > best_key:
            best, best_key = chosen[:], key
        if i == len(order) or points + suffix[i] < best_key[0]:
            return
        if points + within(i, room) < best_key[0]:
            return
        ticket = order[i]
        for c, n in enumerate(ticket.cards):
            need[c] += n
        if shortfall() <= locos:
            chosen.append(ticket)
            search(i + 1, points + ticket.points, room - sizes[i])
            chosen.pop()
        for c, n in enumerate(ticket.cards):
            need[c] -= n
        search(i + 1, points, room)

    search(0, 0, sum(track[: wild + 1]))
    return best, best_key[0]
