"""Our heuristic bots: four playing styles of the FDG 2017 agents of de Mesentier Silva,
Lee, Togelius and Nealen, rebuilt from one-line summaries before the authors' code was
read, and stronger than the originals (those are ``bots/fdg``). The names say what they do.

Each plans on the board sent at game start (shortest paths over routes that are still
usable, recomputed every decision) and reads only its own observation; docs/BOTS.md says
what each does, decision by decision.

- ticket-collector: collects tickets and completes them; draws new tickets whenever all
  of its tickets are done.
- ticket-by-ticket: works on one ticket at a time, the most valuable one still possible,
  claiming the routes of its path.
- greedy-claims: no plan; each turn it takes the single claim that does the most for it
  right now, counting the ticket progress it makes.
- long-claims: claims long routes for their points (and the longest path), keeps the
  tickets whose paths are made of long routes, never draws more.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from arena.engine.actions import Action, ClaimRoute
from arena.engine.observation import Observation, TicketView
from arena.plugins import hookimpl
from bots.planning import (
    WILD,
    BoardGraph,
    Route,
    View,
    board_observation,
    can_draw_tickets,
    cheapest_payment,
    claims_by_route,
    draw_for,
    keep_choice,
    tourist_choice,
)
from bots.sdk import Bot, BotSpec

INF = float("inf")


class PlannerBot(Bot):
    """Dispatches each decision to the style's keep / turn / draw policy."""

    take_face_up_wild = False

    def on_game_start(self, observation: Observation) -> None:
        self.graph = BoardGraph(self.board)
        self.wanted: Counter[str] = Counter()

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        observation = board_observation(observation)
        view = View(self.graph, observation)
        phase = observation.phase
        if phase in ("setup_tickets", "keep_tickets"):
            return self.keep(view, legal_actions, observation.offered_tickets)
        if phase == "second_draw":
            return draw_for(self.wanted, legal_actions, observation, take_face_up_wild=False)
        if phase in ("place_stacks", "take_token"):
            return tourist_choice(view, legal_actions)
        if phase == "tunnel":  # pay with the fewest locomotives, or withdraw if it cannot
            return legal_actions[0]
        return self.turn(view, legal_actions)

    # -- shared judgement --------------------------------------------------------------

    def union_cost(self, view: View, tickets: Sequence[TicketView]) -> float:
        """Trains needed to connect all ``tickets`` together, sharing routes between them."""
        routes: dict[int, Route] = {}
        for ticket in tickets:
            cost, needed = view.path(ticket.a, ticket.b)
            if cost == INF:
                return INF
            routes.update((r.id, r) for r in needed)
        return sum(r.length for r in routes.values())

    def claim(
        self, view: View, legal: Sequence[Action], routes: Sequence[Route]
    ) -> ClaimRoute | None:
        """Claim the longest of ``routes`` that can be paid for now."""
        options = claims_by_route(legal)
        payable = [r for r in routes if r.id in options]
        if not payable:
            return None
        best = max(payable, key=lambda r: (r.length, -r.id))
        return cheapest_payment(options[best.id], view.hand)

    def draw(self, view: View, legal: Sequence[Action], wanted: Counter[str]) -> Action:
        self.wanted = wanted
        return draw_for(wanted, legal, view.obs, self.take_face_up_wild)

    def fallback(self, view: View, legal: Sequence[Action]) -> Action:
        """No plan left: claim the longest route payable, else draw."""
        routes = [view.graph.routes[rid] for rid in claims_by_route(legal)]
        action = self.claim(view, legal, routes)
        if action is not None and (action.wilds == 0 or view.trains <= 10):
            return action
        held = Counter({c: n for c, n in view.hand.items() if c != WILD})
        return self.draw(view, legal, held)

    def keep(self, view: View, legal: Sequence[Action], offered: Sequence[TicketView]) -> Action:
        raise NotImplementedError

    def turn(self, view: View, legal: Sequence[Action]) -> Action:
        raise NotImplementedError


class TicketCollector(PlannerBot):
    name = "ticket-collector"

    def keep(self, view, legal, offered):
        held = view.obs.tickets
        budget = view.trains - 5

        def score(kept):
            cost = self.union_cost(view, [*held, *kept])
            points = sum(t.points for t in kept)
            return points if cost <= budget else -cost

        return keep_choice(legal, offered, score)

    def turn(self, view, legal):
        open_tickets = [t for t in view.open_tickets() if t[1] <= view.trains]
        needed = {r.id: r for _, _, routes in open_tickets for r in routes}
        action = self.claim(view, legal, list(needed.values()))
        if action is not None:
            return action
        if not open_tickets:
            tickets = can_draw_tickets(legal)
            if tickets is not None and view.trains >= 10:
                return tickets
            return self.fallback(view, legal)
        return self.draw(view, legal, view.wanted_colours(needed.values()))


class TicketByTicket(PlannerBot):
    name = "ticket-by-ticket"

    def keep(self, view, legal, offered):
        def score(kept):
            cost = self.union_cost(view, kept)
            return -INF if cost == INF else sum(t.points for t in kept) / max(cost, 1)

        options = [a for a in legal if len(a.indices) == min(len(b.indices) for b in legal)]
        return keep_choice(options, offered, score)

    def turn(self, view, legal):
        feasible = [t for t in view.open_tickets() if t[1] <= view.trains]
        if feasible:
            _, _, routes = max(feasible, key=lambda t: (t[0].points, -t[1], t[0].id))
            action = self.claim(view, legal, routes)
            if action is not None:
                return action
            return self.draw(view, legal, view.wanted_colours(routes))
        tickets = can_draw_tickets(legal)
        if tickets is not None and view.trains >= 20:
            return tickets
        return self.fallback(view, legal)


class GreedyClaims(PlannerBot):
    name = "greedy-claims"

    def keep(self, view, legal, offered):
        options = [a for a in legal if len(a.indices) == min(len(b.indices) for b in legal)]
        return keep_choice(options, offered, lambda kept: -self.union_cost(view, kept))

    def turn(self, view, legal):
        open_tickets = view.open_tickets()
        options = claims_by_route(legal)
        best, best_value = None, 0.0
        for rid in options:
            route = view.graph.routes[rid]
            value = view.graph.points.get(route.length, 0) / 10
            if open_tickets:
                view.mine.add(rid)  # one step ahead: as if this route were ours
                for ticket, before, _ in open_tickets:
                    after, _ = view.path(ticket.a, ticket.b)
                    if after < before:
                        value += ticket.points * (before - after) / before
                view.mine.discard(rid)
            if value > best_value:
                best, best_value = rid, value
        if best is not None and (best_value >= 1 or not open_tickets):
            return cheapest_payment(options[best], view.hand)
        needed = [r for _, _, routes in open_tickets for r in routes]
        if needed:
            return self.draw(view, legal, view.wanted_colours(needed))
        return self.fallback(view, legal)


class LongClaims(PlannerBot):
    name = "long-claims"
    take_face_up_wild = True

    def keep(self, view, legal, offered):
        def long_lengths(kept):
            total = 0
            for ticket in kept:
                cost, routes = view.path(ticket.a, ticket.b)
                if cost == INF:
                    return -INF
                total += sum(r.length for r in routes if r.length >= 4)
            return total

        options = [a for a in legal if len(a.indices) == min(len(b.indices) for b in legal)]
        return keep_choice(options, offered, long_lengths)

    def turn(self, view, legal):
        options = claims_by_route(legal)
        network = {
            c for rid in view.mine for c in (view.graph.routes[rid].a, view.graph.routes[rid].b)
        }

        def rank(rid):
            route = view.graph.routes[rid]
            touches = route.a in network or route.b in network
            return (route.length, touches, -rid)

        if options:
            rid = max(options, key=rank)
            length = view.graph.routes[rid].length
            if length >= 4 or (length >= 3 and view.trains <= 15) or view.trains <= 6:
                return cheapest_payment(options[rid], view.hand)
        # Collect the colours of the longest routes still open to it.
        wanted: Counter = Counter()
        held = {c: n for c, n in view.hand.items() if c != WILD}
        favourite = max(held, key=lambda c: (held[c], c)) if held else None
        for route in view.graph.routes.values():
            if route.length >= 4 and route.id not in view.owner and view.usable(route):
                colour = route.colour if route.colour != "gray" else favourite
                if colour:
                    wanted[colour] += route.length**2
        return self.draw(view, legal, wanted)


HEURISTICS = (TicketCollector, TicketByTicket, GreedyClaims, LongClaims)
DESCRIPTIONS = {
    "ticket-collector": "collects tickets and completes them on cheapest paths (ours)",
    "ticket-by-ticket": "one ticket at a time, the most valuable, its path's routes (ours)",
    "greedy-claims": "no plan: the claim that does most for its tickets right now (ours)",
    "long-claims": "long routes for points, tickets on long routes, no more tickets (ours)",
}


@hookimpl
def arena_bots() -> list[BotSpec]:
    return [BotSpec(cls.name, DESCRIPTIONS[cls.name], cls) for cls in HEURISTICS]
