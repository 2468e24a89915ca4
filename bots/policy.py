"""A fast ticket-planning policy on the engine's own arrays, for search bots.

It plays the seat to move in a ``BoardState`` from what that seat may know
(its hand and tickets, the public board, the display), so the same code
decides a real move on a sampled state and plays every seat of a rollout.

The plan: join all open tickets with the fewest trains, later tickets reusing
the routes planned for earlier ones (a greedy Steiner tree), dropping the least
valuable tickets until the plan fits the trains left. A turn claims the
longest planned route it can pay for, else draws the colours the plan still
lacks. With no plan it asks for tickets while it has trains for them, or
claims long routes. Plans are cached per seat and redone only when they go
stale (a planned route taken by someone else, new tickets).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from arena.engine.actions import DRAW_DECK, DRAW_TICKETS, Action, KeepTickets
from arena.engine.errors import IllegalActionError
from arena.engine.state import BoardState
from arena.engine.variant import Variant

NEVER = 1 << 30


@dataclass(frozen=True)
class Style:
    """The policy's judgement calls; the defaults are tuned against ticket-by-ticket."""

    ticket_trains: int = 25  # draw tickets with no plan left and at least this many trains
    keep_weight: float = 0.5  # a ticket's points less this much per extra train it needs
    keep_margin: int = 3  # trains kept spare when judging whether new tickets fit
    setup_budget: int = 30  # most trains the starting tickets may need together
    long_min: int = 3  # without a plan, claim routes at least this long
    route_overhead: float = 0.0  # trains' worth a claim turn costs when choosing paths


class Planner:
    """Plans and moves for every seat of one board; one instance per search, reused."""

    def __init__(self, variant: Variant, style: Style | None = None) -> None:
        board = variant.board
        self.style = style or Style()
        self.board = board
        self.adjacent = [[] for _ in board.cities]
        for r in range(board.num_routes):
            self.adjacent[board.route_a[r]].append((r, board.route_b[r]))
            self.adjacent[board.route_b[r]].append((r, board.route_a[r]))
        self.colours = len(variant.rules.colours)
        overhead = self.style.route_overhead
        self.weights = [size + overhead for size in board.route_length]
        # Routes by decreasing length: what the no-plan mode looks at.
        self.by_length = sorted(range(board.num_routes), key=lambda r: (-board.route_length[r], r))

    # -- planning ---------------------------------------------------------------------------

    def blocked(self, state: BoardState, seat: int, r: int) -> bool:
        """``r`` cannot be claimed by ``seat`` now or later (owned routes are not blocked).
        ``costs`` applies the same rule to every route at once; this one asks about a single
        route, which is cheaper where few are looked at."""
        owner = state._owner[r]
        if owner >= 0:
            return owner != seat
        s = self.board.route_sibling[r]
        if s >= 0 and state._owner[s] >= 0:
            return (
                state._owner[s] == seat or state.num_players < state.rules.double_routes_min_players
            )
        return False

    def costs(self, state: BoardState, seat: int) -> list[int]:
        """Trains each route still costs ``seat``: 0 if its own, ``NEVER`` if blocked."""
        owner, sibling = state._owner, self.board.route_sibling
        doubles = state.num_players >= state.rules.double_routes_min_players
        costs = list(self.weights)
        for r, holder in enumerate(owner):
            if holder >= 0:
                costs[r] = 0 if holder == seat else NEVER
                s = sibling[r]
                if s >= 0 and owner[s] < 0 and (holder == seat or not doubles):
                    costs[s] = NEVER
        return costs

    def path(self, costs: list[int], a: int, b: int) -> tuple[int, list[int]]:
        """Fewest trains to join ``a`` and ``b`` under ``costs`` and the routes that cost
        something on the way; ``NEVER`` if it cannot be done."""
        adjacent = self.adjacent
        best = [NEVER] * len(adjacent)
        best[a] = 0
        back = [0] * len(adjacent)
        queue = [(0, a)]
        pop, push = heapq.heappop, heapq.heappush
        while queue:
            cost, city = pop(queue)
            if city == b:
                break
            if cost > best[city]:
                continue
            for r, other in adjacent[city]:
                step = cost + costs[r]
                if step < best[other]:
                    best[other] = step
                    back[other] = r
                    push(queue, (step, other))
        if best[b] >= NEVER:
            return NEVER, []
        routes, city = [], b
        route_a, route_b = self.board.route_a, self.board.route_b
        while city != a:
            r = back[city]
            if costs[r]:
                routes.append(r)
            city = route_a[r] if route_b[r] == city else route_b[r]
        return best[b], routes

    def union(
        self, costs: list[int], tickets: list[int], planned: set[int] | None = None
    ) -> tuple[int, set[int]]:
        """Trains needed to join all ``tickets`` together (on top of ``planned``) and the
        routes to claim; later tickets reuse the routes planned for earlier ones."""
        board = self.board
        costs = costs[:]
        planned = set(planned or ())
        for r in planned:
            costs[r] = 0
        total = 0
        length = board.route_length
        for t in sorted(tickets, key=lambda t: -board.ticket_points[t]):
            cost, routes = self.path(costs, board.ticket_a[t], board.ticket_b[t])
            if cost >= NEVER:
                return NEVER, set()
            for r in routes:
                total += length[r]
                costs[r] = 0
            planned.update(routes)
        return total, planned

    def open_tickets(self, state: BoardState, seat: int, costs: list[int]) -> list[int]:
        """Own tickets not yet joined that still can be, most valuable first."""
        board = self.board
        found = []
        for t in state._tickets[seat]:
            cost, _ = self.path(costs, board.ticket_a[t], board.ticket_b[t])
            if 0 < cost < NEVER:
                found.append(t)
        return sorted(found, key=lambda t: -board.ticket_points[t])

    def plan(self, state: BoardState, seat: int) -> set[int]:
        """The routes to claim for the open tickets that fit the trains left."""
        costs = self.costs(state, seat)
        tickets = self.open_tickets(state, seat, costs)
        while tickets:
            cost, routes = self.union(costs, tickets)
            if cost <= state._trains[seat]:
                return routes
            tickets.pop()  # the least valuable goes first
        return set()

    # -- tickets ----------------------------------------------------------------------------

    def keep(self, state: BoardState) -> KeepTickets:
        """The keep choice whose tickets are worth most points less a charge per extra
        train on top of the current plan (fewer tickets on ties); sets that would not fit
        the trains (or, at the start, the setup budget) rank far below."""
        seat = state._to_move
        offer = state._offers[seat]
        style = self.style
        costs = self.costs(state, seat)
        base, planned = self.union(costs, self.open_tickets(state, seat, costs))
        setup = state.phase == "setup_tickets"
        budget = style.setup_budget if setup else state._trains[seat] - style.keep_margin
        points = self.board.ticket_points

        def value(choice: KeepTickets) -> tuple[float, int]:
            kept = [offer[i] for i in choice.indices]
            extra, _ = self.union(costs, kept, planned)
            if base + extra > budget:
                worth = -1000.0 - min(base + extra, 1000)
            else:
                worth = sum(points[t] for t in kept) - style.keep_weight * extra
            return worth, -len(kept)

        return max(state.legal_actions(), key=value)

    # -- cards ------------------------------------------------------------------------------

    def shortfall(self, state: BoardState, seat: int, routes) -> list[int]:
        """Cards of each colour the routes still need beyond the hand; wilds are kept for
        the end."""
        hand = state._hands[seat]
        need = self.demand(state, seat, routes)
        return [max(0, need[c] - hand[c]) for c in range(self.colours)]

    def demand(self, state: BoardState, seat: int, routes) -> list[int]:
        """Cards of each colour the routes call for (gray routes take the colour with most
        to spare)."""
        colours, board = self.colours, self.board
        hand = state._hands[seat]
        need = [0] * colours
        gray = []
        for r in routes:
            c = board.route_colour[r]
            if c < 0:
                gray.append(board.route_length[r])
            else:
                need[c] += board.route_length[r]
        for size in sorted(gray, reverse=True):
            c = max(range(colours), key=lambda c: (hand[c] - need[c], -c))
            need[c] += size
        return need

    def payment(
        self, state: BoardState, seat: int, r: int, spare: list[int] | None
    ) -> Action | None:
        """The cheapest way for ``seat`` to pay for ``r`` now (fewest wilds, then the colour
        the rest of the plan needs least), or None."""
        board = self.board
        size = board.route_length[r]
        if size > state._trains[seat]:
            return None
        hand = state._hands[seat]
        wilds = hand[self.colours]
        least = board.route_ferries[r]
        colour = board.route_colour[r]
        options = range(self.colours) if colour < 0 else (colour,)
        best, best_key = None, None
        for c in options:
            have = hand[c]
            if have + wilds < size or not have:
                continue
            k = max(size - have, least)
            if k > wilds or k >= size:
                continue
            key = (k, spare[c] if spare else 0, -have, c)
            if best_key is None or key < best_key:
                best, best_key = board.claim_table[r][c][k], key
        if best is None and wilds >= size:
            best = board.claim_all_wild[r]
        return best

    def draw(self, state: BoardState, want: list[int]) -> Action:
        """A face-up card of the colour most wanted, else the deck, else anything legal."""
        display = state._display
        best_slot, best = None, 0
        for slot, card in enumerate(display):
            if 0 <= card < self.colours and want[card] > best:
                best_slot, best = slot, want[card]
        if best_slot is not None:
            return state._draw_slots[best_slot]
        if state._deck or any(state._discards):
            return DRAW_DECK
        legal = [a for a in state.legal_actions() if a is not DRAW_TICKETS]
        return legal[0] if legal else state.legal_actions()[0]

    # -- a move -----------------------------------------------------------------------------

    def move(self, state: BoardState, plan: set[int], allow_tickets: bool = True) -> Action:
        """The move of the seat to move, following ``plan`` (its routes still to claim)."""
        phase = state.phase
        if phase in ("setup_tickets", "keep_tickets"):
            return self.keep(state)
        if phase not in ("turn", "second_draw"):
            return state.legal_actions()[0]  # tunnels, tourist tokens: the first choice
        seat = state._to_move
        board = self.board
        if plan:
            if phase == "turn":
                for r in sorted(plan, key=lambda r: (-board.route_length[r], r)):
                    if self.payment(state, seat, r, None) is not None:
                        spare = self.shortfall(state, seat, plan - {r})
                        return self.payment(state, seat, r, spare)
            return self.draw(state, self.shortfall(state, seat, plan))
        trains = state._trains[seat]
        if (
            phase == "turn"
            and allow_tickets
            and state._ticket_deck
            and trains >= self.style.ticket_trains
        ):
            return DRAW_TICKETS
        want = [0] * self.colours
        hand = state._hands[seat]
        favourite = max(range(self.colours), key=lambda c: (hand[c], -c))
        for r in self.by_length:
            size = board.route_length[r]
            if size > trains or state._owner[r] >= 0 or self.blocked(state, seat, r):
                continue
            if phase == "turn" and (size >= self.style.long_min or trains <= 6):
                pay = self.payment(state, seat, r, None)
                if pay is not None:
                    return pay
            if size >= 4:
                c = board.route_colour[r]
                want[favourite if c < 0 else c] += size * size
        return self.draw(state, want)


class Rollout:
    """Plays a state to its end with the planner for every seat, replanning when stale."""

    def __init__(self, planner: Planner) -> None:
        self.planner = planner

    def play(self, state: BoardState, limit: int = 2000) -> BoardState:
        planner = self.planner
        players = state.num_players
        plans: list[set[int] | None] = [None] * players
        tickets = [len(t) for t in state._tickets]
        for _ in range(limit):
            if state.is_over:
                break
            seat = state._to_move
            if plans[seat] is None or len(state._tickets[seat]) != tickets[seat]:
                plans[seat] = planner.plan(state, seat)
                tickets[seat] = len(state._tickets[seat])
            action = planner.move(state, plans[seat])
            try:
                state.apply(action)
            except IllegalActionError:  # a rule the planner does not model: any legal move
                state.apply(state.legal_actions()[0])
                continue
            route = getattr(action, "route", None)
            if route is not None:
                r = route - 1
                for p in range(players):
                    plan = plans[p]
                    if plan is not None and r in plan:
                        if p == seat:
                            plan.discard(r)
                        else:
                            plans[p] = None  # someone took a route of p's plan: plan again
        return state
