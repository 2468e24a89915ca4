"""What the heuristic bots share: the board as a graph, shortest ticket paths, payments, draws.

Everything here works from public information only: the board sent at game
start and the seat's own observation. Nothing reads the engine's state.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine.actions import Action, ClaimRoute, DrawCard, DrawTickets, KeepTickets
from arena.engine.observation import BoardObservation, Observation, TicketView
from arena.variants.sanfrancisco import PlaceStack, SanFranciscoObservation, TakeToken

WILD = "wild"


@dataclass(frozen=True)
class Route:
    id: int
    a: str
    b: str
    length: int
    colour: str  # "gray" or a card colour


class BoardGraph:
    """The printed board as an undirected multigraph of routes."""

    def __init__(self, board: dict[str, Any]) -> None:
        self.routes = {
            r["id"]: Route(r["id"], r["a"], r["b"], r["length"], r["color"])
            for r in board["routes"]
        }
        self.adjacent: dict[str, list[Route]] = {c["id"]: [] for c in board["cities"]}
        pairs: dict[tuple[str, str], list[int]] = {}
        for route in self.routes.values():
            self.adjacent[route.a].append(route)
            self.adjacent[route.b].append(route)
            pairs.setdefault((route.a, route.b), []).append(route.id)
        self.sibling = {
            rid: next(other for other in ids if other != rid)
            for ids in pairs.values()
            if len(ids) == 2
            for rid in ids
        }
        rules = board.get("rules", {})
        self.double_min = rules.get("double_routes_min_players", 4)
        self.colours = tuple(rules.get("colours", ()))
        self.points = {int(k): v for k, v in board.get("route_points", {}).items()}


def board_observation(observation: Observation) -> BoardObservation:
    """``observation`` as a board's (these bots play the board games only)."""
    if not isinstance(observation, BoardObservation):
        raise TypeError(f"a board bot was given a {type(observation).__name__}")
    return observation


class View:
    """One decision's view: the graph plus the seat's observation, with derived facts."""

    def __init__(self, graph: BoardGraph, observation: BoardObservation) -> None:
        self.graph = graph
        self.obs = observation
        self.seat = observation.seat
        self.players = observation.players
        self.owner = dict(observation.claimed)  # route id -> seat
        self.hand = observation.hand
        self.trains = observation.public[self.seat].trains
        self.mine = {rid for rid, seat in self.owner.items() if seat == self.seat}

    def usable(self, route: Route) -> bool:
        """Free and claimable by this seat (double-route rules included), or already mine."""
        if route.id in self.mine:
            return True
        if route.id in self.owner:
            return False
        sibling = self.graph.sibling.get(route.id)
        return not (
            sibling is not None
            and sibling in self.owner
            and (self.owner[sibling] == self.seat or self.players < self.graph.double_min)
        )

    def path(
        self, a: str, b: str, step: Callable[[Route], float] | None = None
    ) -> tuple[float, list[Route]]:
        """Cheapest way to connect ``a`` and ``b`` and the free routes on it, nearest ``b``
        first; ``inf`` when it can no longer be done. By default a free route costs its
        length and an own one 0 (trains still to place); ``step(route)`` prices every usable
        route instead, own ones included (``inf`` leaves a route out)."""
        best: dict[str, float] = {a: 0}
        back: dict[str, Route] = {}
        queue: list[tuple[float, str]] = [(0, a)]
        while queue:
            cost, city = heapq.heappop(queue)
            if city == b:
                break
            if cost > best.get(city, float("inf")):
                continue
            for route in self.graph.adjacent[city]:
                if not self.usable(route):
                    continue
                other = route.b if route.a == city else route.a
                if step is not None:
                    price = step(route)
                else:
                    price = 0 if route.id in self.mine else route.length
                reached = cost + price
                if reached < best.get(other, float("inf")):
                    best[other] = reached
                    back[other] = route
                    heapq.heappush(queue, (reached, other))
        if b not in best:
            return float("inf"), []
        needed, city = [], b
        while city != a:
            route = back[city]
            if route.id not in self.mine:
                needed.append(route)
            city = route.a if route.b == city else route.b
        return best[b], needed

    def ticket_paths(
        self, tickets: Iterable[TicketView]
    ) -> list[tuple[TicketView, float, list[Route]]]:
        return [(t, *self.path(t.a, t.b)) for t in tickets]

    def open_tickets(self) -> list[tuple[TicketView, float, list[Route]]]:
        """Own tickets not yet connected but still possible: (ticket, cost, routes)."""
        return [
            (t, cost, routes)
            for t, cost, routes in self.ticket_paths(self.obs.tickets)
            if 0 < cost < float("inf")
        ]

    def wanted_colours(self, routes: Iterable[Route]) -> Counter[str]:
        """Card colours that the given routes call for (gray: the colour held most)."""
        held = {c: n for c, n in self.hand.items() if c != WILD}
        favourite = max(held, key=lambda c: (held[c], c)) if held else None
        wanted: Counter[str] = Counter()
        for route in routes:
            colour = route.colour if route.colour != "gray" else favourite
            if colour:
                wanted[colour] += route.length
        return wanted


def claims_by_route(legal: Sequence[Action]) -> dict[int, list[ClaimRoute]]:
    found: dict[int, list[ClaimRoute]] = {}
    for action in legal:
        if type(action) is ClaimRoute:
            found.setdefault(action.route, []).append(action)
    return found


def cheapest_payment(options: Sequence[ClaimRoute], hand: dict[str, int]) -> ClaimRoute:
    """Fewest wilds; then the colour the hand has most of (keeps the rest together)."""
    return min(options, key=lambda a: (a.wilds, -hand.get(a.colour or WILD, 0), a.colour or ""))


def draw_for(
    wanted: Counter[str],
    legal: Sequence[Action],
    observation: BoardObservation,
    take_face_up_wild: bool = False,
) -> Action:
    """Take a face-up card of a wanted colour, else (optionally) a face-up wild, else blind."""
    display = observation.display
    face_up = [
        (a, display[a.slot]) for a in legal if isinstance(a, DrawCard) and a.slot is not None
    ]
    best: tuple[int, DrawCard] | None = None
    for action, colour in face_up:
        if colour is not None and colour != WILD and wanted.get(colour, 0) > 0:
            key = wanted[colour]
            if best is None or key > best[0]:
                best = (key, action)
    if best:
        return best[1]
    if take_face_up_wild:
        for action, colour in face_up:
            if colour == WILD:
                return action
    for any_action in legal:
        if isinstance(any_action, DrawCard) and any_action.slot is None:
            return any_action
    return face_up[0][0] if face_up else legal[0]


def keep_choice(
    legal: Sequence[Action],
    offered: Sequence[TicketView],
    score: Callable[[list[TicketView]], float],
) -> KeepTickets:
    """The legal keep choice whose kept tickets score highest under ``score(tickets)``."""
    options = [a for a in legal if type(a) is KeepTickets]
    return max(options, key=lambda k: (score([offered[i] for i in k.indices]), -len(k.indices)))


def can_draw_tickets(legal: Sequence[Action]) -> DrawTickets | None:
    return next((a for a in legal if type(a) is DrawTickets), None)


def tourist_choice(view: View, legal: Sequence[Action]) -> Action:
    """San Francisco's small decisions: place a tourist stack, or pick one of two tokens.

    A stack goes where this seat's tickets lead (their ends first), else on the
    best-connected free location; of two tokens, take the one whose stack has fewest
    left (the other is likelier to still be there later)."""
    obs = view.obs
    stacks = obs.tourist_stacks if isinstance(obs, SanFranciscoObservation) else {}
    if obs.phase == "take_token":
        takes = [a for a in legal if isinstance(a, TakeToken)]
        return min(takes, key=lambda a: (stacks[a.city].tokens, a.city))
    places = [a for a in legal if isinstance(a, PlaceStack)]
    ends = {c for t in (*view.obs.tickets, *view.obs.offered_tickets) for c in (t.a, t.b)}
    degree = {c: len(routes) for c, routes in view.graph.adjacent.items()}
    return max(places, key=lambda a: (a.city in ends, degree.get(a.city, 0), a.city, a.symbol))
