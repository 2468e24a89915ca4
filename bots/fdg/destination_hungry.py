"""Destination Hungry as the FDG 2017 authors' code plays it (``hungryAgent``).

It plans one network for all its tickets: the two ticket cities farthest apart (in trains)
are the two ends; every other city is joined by its cheapest path to the end cluster
nearest it; then the two clusters are joined. Of a double route it plans the track whose
colour the plan needs least. It keeps the tickets whose plan earns most per train (ticket
points plus the plan's route points) and fits its trains less a margin of 5, and asks for
more tickets while a stored threshold is below its trains less 8. Each turn it claims the
first planned route (board order) it can claim, a gray one only with a colour the plan
does not need; with no plan, the longest route it can claim. It replans when the total
score has grown past a counter it keeps.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.engine.actions import Action, KeepTickets
from arena.engine.observation import Observation, TicketView
from bots.fdg.common import (
    GRAY,
    INF,
    FdgAgent,
    blind,
    face_up,
    fewest_points,
    pair_of,
    ticket_draw,
    total_points,
)
from bots.planning import WILD, Route, View

MARGIN = 5  # trains a kept plan leaves spare
DRAW_SPARE = 8  # it asks for tickets while its threshold is below its trains less this


@dataclass(frozen=True)
class DestinationHungryQuirks:
    # The ticket-draw threshold is the trains needed by the last keep choice examined
    # (keep all), not by the one kept, and is not updated as the plan changes.
    stale_ticket_threshold: bool = True
    # A keep choice whose plan fits only inside the 5-train margin overrides the pick when
    # it needs fewer trains than any such choice before it, however poor its ratio.
    margin_override: bool = True
    # A case mismatch: the branch that takes the face-up colour the plan needs most never
    # fires.
    most_needed_colour_unused: bool = True
    # After keeping tickets it adds the other seats' scores to its replan counter (instead
    # of setting it to the total), so it stops replanning until the total passes it.
    replan_counter_adds: bool = True
    # Joining the other cities, the nearest distance found is not reset between cities: a
    # city that is not nearer than an earlier one is joined where that one was.
    nearest_not_reset: bool = True


@dataclass
class Plan:
    """The routes to claim: track by colour (gray included), cards needed by colour."""

    points: int = 0
    routes: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    needs: Counter = field(default_factory=Counter)

    @property
    def trains(self) -> int:
        return sum(self.needs.values())

    @property
    def size(self) -> int:
        return sum(len(pairs) for pairs in self.routes.values())


class Paths:
    """Cheapest (fewest trains) paths on the seat's own plus free routes, memoised for one
    decision."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.known: dict[tuple[str, str], tuple[float, list[Route]]] = {}

    def __call__(self, a: str, b: str) -> tuple[float, list[Route]]:
        key = (a, b) if a < b else (b, a)  # a path serves both ways
        if key not in self.known:
            self.known[key] = self.view.path(*key)
        return self.known[key]

    def distance(self, a: str, b: str) -> float:
        return self(a, b)[0]


class DestinationHungry(FdgAgent):
    name = "fdg-destination-hungry"
    Quirks = DestinationHungryQuirks

    def on_game_start(self, observation: Observation) -> None:
        super().on_game_start(observation)
        self.plan: Plan | None = None
        self.threshold: float = 0  # compared with its trains less 8 to ask for tickets
        self.counter = 0  # replan when the total score passes it

    # -- the plan ------------------------------------------------------------------------------

    def held_cities(self, view: View) -> tuple[list[str], int]:
        """The cities and points of the held tickets whose cities both still have a usable
        route."""
        cities, points = [], 0
        for ticket in view.obs.tickets:
            if self.reachable(view, ticket.a) and self.reachable(view, ticket.b):
                cities += [ticket.a, ticket.b]
                points += ticket.points
        return cities, points

    def reachable(self, view: View, city: str) -> bool:
        return any(view.usable(r) for r in view.graph.adjacent[city])

    def make_plan(self, view: View, paths: Paths, cities: Sequence[str]) -> Plan | None:
        """The network joining ``cities``; None when some city cannot be joined."""
        nodes = sorted(set(cities))
        start: set[str] = set()
        end: set[str] = set()
        farthest = 0.0
        for i, a in enumerate(nodes):
            for b in nodes[i + 1 :]:
                d = paths.distance(a, b)
                if farthest < d < INF:
                    farthest, start, end = d, {a}, {b}
        pairs: dict[tuple[str, str], None] = {}  # the planned city pairs, in order found
        nearest: float | None = None
        which: tuple[str, str] | None = None
        side = ""
        for city in (n for n in nodes if n not in start | end):
            if not self.quirks.nearest_not_reset:
                nearest, side = None, ""
            for name, cluster in (("start", start), ("end", end)):
                for other in sorted(cluster):
                    d = paths.distance(city, other)
                    if d < INF and (nearest is None or d < nearest):
                        nearest, which, side = d, (city, other), name
            if not side or which is None:  # set together: no end cluster is reachable
                return None
            (start if side == "start" else end).add(city)
            self.add_path(paths, city, which[1], pairs)
        links = [(paths.distance(a, b), a, b) for a in sorted(start) for b in sorted(end)]
        links = [link for link in links if link[0] < INF]
        if links:
            _, a, b = min(links, key=lambda link: link[0])
            which = (a, b)
        if which is not None:
            self.add_path(paths, *which, pairs)
        return self.tracks_for(view, pairs)

    def add_path(self, paths: Paths, a: str, b: str, pairs: dict[tuple[str, str], None]) -> None:
        for route in reversed(paths(a, b)[1]):
            pairs.setdefault(pair_of(route), None)

    def tracks_for(self, view: View, pairs: dict[tuple[str, str], None]) -> Plan:
        """Single tracks first; then of each double route the track of a colour the plan
        does not need yet, else of the colour it needs least."""
        plan = Plan()
        doubles = []
        for pair in pairs:
            tracks = [t for t in self.pairs[pair] if view.usable(t)]
            if any(t.id in view.mine for t in tracks):
                continue
            if len(tracks) > 1:
                doubles.append(tracks)
            elif tracks:
                self.add_track(view, plan, tracks[0])
        for tracks in doubles:
            unneeded = [t for t in tracks if plan.needs[t.colour] == 0]
            least = min(tracks, key=lambda t: plan.needs[t.colour])
            self.add_track(view, plan, unneeded[0] if unneeded else least)
        return plan

    def add_track(self, view: View, plan: Plan, track: Route) -> None:
        plan.needs[track.colour] += track.length
        plan.routes.setdefault(track.colour, []).append(pair_of(track))
        plan.points += view.graph.points.get(track.length, 0)

    # -- tickets -------------------------------------------------------------------------------

    def keep(
        self, view: View, legal: Sequence[Action], offered: Sequence[TicketView]
    ) -> Action | None:
        cities, points = self.held_cities(view)
        paths = Paths(view)
        options = [a for a in legal if type(a) is KeepTickets]
        best: tuple[KeepTickets, Plan] | None = None  # fits with the margin, best ratio
        tight: tuple[KeepTickets, Plan] | None = None  # fits only inside it, fewest trains
        best_ratio, fewest_over = 0.0, float(view.trains)
        last_need: float = INF
        for option in options:
            kept = [offered[i] for i in option.indices]
            plan = self.make_plan(view, paths, cities + [c for t in kept for c in (t.a, t.b)])
            if plan is None:  # fits neither way: only the threshold sees it
                last_need = INF
                continue
            need = plan.trains
            value = points + sum(t.points for t in kept)
            ratio = (value + plan.points) / need if need else INF
            if need <= view.trains - MARGIN:
                if ratio > best_ratio:
                    best_ratio, best = ratio, (option, plan)
            elif need <= view.trains and need < fewest_over:
                fewest_over, tight = need, (option, plan)
                if self.quirks.margin_override:
                    best = tight  # one variable for both in the authors' code
            last_need = need
        best = best or tight
        if best is None:
            choice = fewest_points(legal, offered)
            if self.quirks.stale_ticket_threshold:
                return choice  # the authors' agent returns before updating anything
            kept = [offered[i] for i in choice.indices]
            plan = self.make_plan(view, paths, cities + [c for t in kept for c in (t.a, t.b)])
            best = (choice, plan or Plan())
        option, self.plan = best
        self.threshold = last_need if self.quirks.stale_ticket_threshold else self.plan.trains
        if self.quirks.replan_counter_adds:
            others = view.obs.public
            self.counter += sum(p.route_points for p in others if p.seat != view.seat)
        else:
            self.counter = total_points(view)
        return option

    # -- a turn -------------------------------------------------------------------------------

    def replan(self, view: View) -> None:
        total = total_points(view)
        if self.counter < total:
            cities, _ = self.held_cities(view)
            self.plan = self.make_plan(view, Paths(view), cities)
            self.counter = total
            if not self.quirks.stale_ticket_threshold:
                self.threshold = INF if self.plan is None else self.plan.trains

    def turn(self, view: View, legal: Sequence[Action]) -> Action | None:
        self.replan(view)
        if self.threshold < view.trains - DRAW_SPARE:
            draw = ticket_draw(legal)
            if draw is not None:
                return draw
        claims = self.claim_moves(view, legal)
        plan = self.plan
        if claims and (plan is None or plan.size == 0):
            longest = max(claims, key=lambda c: view.graph.routes[c[2].route].length)
            return longest[2]
        if claims and plan is not None:
            for pair, colour, action in claims:
                if pair in plan.routes.get(colour, ()):
                    return action
                if pair in plan.routes.get(GRAY, ()) and plan.needs[colour] <= 0:
                    return action
        return self.draw(view, legal)

    def draw(self, view: View, legal: Sequence[Action]) -> Action | None:
        """The face-up colour the plan needs most (never: a case mismatch), else the most
        plentiful face-up colour if the plan needs it, else that colour when the plan needs
        gray most and two or more show, else blind."""
        plan = self.plan
        shown = Counter(c for c in view.obs.display if c is not None)
        plentiful = max(shown, key=lambda c: shown[c]) if shown else None
        most_needed = None
        if plan is not None:
            order = [*self.graph.colours, GRAY, WILD]
            most_needed = max(order, key=lambda c: plan.needs[c])
            if not self.quirks.most_needed_colour_unused and plan.needs[most_needed] > 0:
                action = face_up(view, legal, most_needed)
                if action is not None:
                    return action
            if plentiful is not None and plan.needs[plentiful] > 0:
                action = face_up(view, legal, plentiful)
                if action is not None:
                    return action
        if most_needed == GRAY and plentiful is not None and shown[plentiful] > 1:
            action = face_up(view, legal, plentiful)
            if action is not None:
                return action
        return blind(legal) or self.rng.choice(list(legal))
