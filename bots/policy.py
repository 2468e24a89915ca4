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

Compiled with the engine (``arena/native.py``), its hot loops are written for mypyc:
the engine's int lists (``state.hand``, ``trains``, ``route_owner``, ``display``) are
indexed natively, and choices are made by loops over ints rather than ``max`` or
``sorted`` with key tuples.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from mypy_extensions import mypyc_attr

from arena.engine.actions import DRAW_DECK, DRAW_TICKETS, Action, ClaimRoute, DrawCard, KeepTickets
from arena.engine.errors import IllegalActionError
from arena.engine.state import BoardState
from arena.engine.variant import Variant

# Final: the compiled build reads them as constants, not from the module's dictionary.
NEVER: Final = 1 << 30
BLOCKED: Final = float(NEVER)  # the costs are floats throughout: no int among them to compare


@dataclass(frozen=True)
class Style:
    """The policy's judgement calls; the defaults are tuned against ticket-by-ticket."""

    ticket_trains: int = 25  # draw tickets with no plan left and at least this many trains
    keep_weight: float = 0.5  # a ticket's points less this much per extra train it needs
    keep_margin: int = 3  # trains kept spare when judging whether new tickets fit
    setup_budget: int = 30  # most trains the starting tickets may need together
    long_min: int = 3  # without a plan, claim routes at least this long
    route_overhead: float = 0.0  # trains' worth a claim turn costs when choosing paths


@mypyc_attr(allow_interpreted_subclasses=True)
class Planner:
    """Plans and moves for every seat of one board; one instance per search, reused."""

    def __init__(self, variant: Variant, style: Style | None = None) -> None:
        board = variant.board
        self.style = style or Style()
        self.board = board
        # The board's arrays, typed, as this planner's own (the compiled build reads them
        # natively): a route's ends, length, colour (-1 gray), ferries and double; a
        # ticket's ends and points; the claim actions by route, colour and wilds.
        self.route_a: list[int] = list(board.route_a)
        self.route_b: list[int] = list(board.route_b)
        self.route_length: list[int] = list(board.route_length)
        self.route_colour: list[int] = list(board.route_colour)
        self.route_ferries: list[int] = list(board.route_ferries)
        self.route_sibling: list[int] = list(board.route_sibling)
        self.ticket_a: list[int] = list(board.ticket_a)
        self.ticket_b: list[int] = list(board.ticket_b)
        self.ticket_points: list[int] = list(board.ticket_points)
        self.claim_table = board.claim_table
        self.claim_all_wild = board.claim_all_wild
        self.adjacent: list[list[tuple[int, int]]] = [[] for _ in board.cities]
        for r in range(board.num_routes):
            self.adjacent[board.route_a[r]].append((r, board.route_b[r]))
            self.adjacent[board.route_b[r]].append((r, board.route_a[r]))
        self.colours = len(variant.rules.colours)
        # The face-up draws, made once (an action is a value: any equal one will do).
        self.draw_slots = [DrawCard(slot) for slot in range(variant.rules.face_up)]
        overhead = self.style.route_overhead
        self.weights = [size + overhead for size in board.route_length]
        # Whole-number weights (every style's so far) let ``path`` queue plain ints.
        self.whole = all(w == int(w) for w in self.weights)
        # Routes by decreasing length: what the no-plan mode looks at.
        self.by_length = sorted(range(board.num_routes), key=lambda r: (-board.route_length[r], r))
        self.rank = [0] * board.num_routes  # a route's place in that order
        for place, r in enumerate(self.by_length):
            self.rank[r] = place

    # -- planning ---------------------------------------------------------------------------

    def costs(self, state: BoardState, seat: int) -> list[float]:
        """Trains each route still costs ``seat``: 0 if its own, ``NEVER`` if blocked (the
        rule of ``state.route_blocked``, for every route at once)."""
        owner, sibling = state.route_owner, self.route_sibling
        doubles = state.num_players >= state.rules.double_routes_min_players
        costs: list[float] = list(self.weights)
        for r, holder in enumerate(owner):
            if holder >= 0:
                costs[r] = 0.0 if holder == seat else BLOCKED
                s = sibling[r]
                if s >= 0 and owner[s] < 0 and (holder == seat or not doubles):
                    costs[s] = BLOCKED
        return costs

    def path(self, costs: list[float], a: int, b: int) -> tuple[float, list[int]]:
        """Fewest trains to join ``a`` and ``b`` under ``costs`` and the routes that cost
        something on the way; ``NEVER`` if it cannot be done."""
        if not self.whole:
            return self.path_by_pairs(costs, a, b)
        # Dijkstra; a queue entry is one int, cost * cities + city: the (cost, city) pairs'
        # order (the costs are whole numbers) without a tuple to build and compare.
        adjacent = self.adjacent
        n = len(adjacent)
        best: list[float] = [BLOCKED] * n
        best[a] = 0.0
        back = [0] * n
        queue: list[int] = [a]
        pop, push = heapq.heappop, heapq.heappush
        while queue:
            key: int = pop(queue)
            city = key % n
            if city == b:
                break
            cost = best[city]
            if float(key // n) > cost:  # a stale entry: the city was reached for less since
                continue
            for r, other in adjacent[city]:
                step = cost + costs[r]
                if step < best[other]:
                    best[other] = step
                    back[other] = r
                    push(queue, int(step) * n + other)
        return self.route_back(costs, a, b, best[b], back)

    def path_by_pairs(self, costs: list[float], a: int, b: int) -> tuple[float, list[int]]:
        """``path`` for costs that need not be whole numbers: (cost, city) pairs queued."""
        adjacent = self.adjacent
        best: list[float] = [BLOCKED] * len(adjacent)
        best[a] = 0.0
        back = [0] * len(adjacent)
        queue: list[tuple[float, int]] = [(0.0, a)]
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
        return self.route_back(costs, a, b, best[b], back)

    def route_back(
        self, costs: list[float], a: int, b: int, total: float, back: list[int]
    ) -> tuple[float, list[int]]:
        """The path's cost and its routes that cost something, read back from ``b``."""
        if total >= NEVER:
            return NEVER, []
        routes, city = [], b
        route_a, route_b = self.route_a, self.route_b
        while city != a:
            r = back[city]
            if costs[r]:
                routes.append(r)
            city = route_a[r] if route_b[r] == city else route_b[r]
        return total, routes

    def union(
        self, costs: Sequence[float], tickets: Iterable[int], planned: set[int] | None = None
    ) -> tuple[int, set[int]]:
        """Trains needed to join all ``tickets`` together (on top of ``planned``) and the
        routes to claim; later tickets reuse the routes planned for earlier ones."""
        costs = list(costs)
        planned = set(planned or ())
        for r in planned:
            costs[r] = 0.0
        total = 0
        length = self.route_length
        for t in sorted(tickets, key=lambda t: -self.ticket_points[t]):
            cost, routes = self.path(costs, self.ticket_a[t], self.ticket_b[t])
            if cost >= NEVER:
                return NEVER, set()
            for r in routes:
                total += length[r]
                costs[r] = 0.0
            planned.update(routes)
        return total, planned

    def open_tickets(self, state: BoardState, seat: int, costs: list[float]) -> list[int]:
        """Own tickets not yet joined that still can be, most valuable first."""
        found = []
        for t in state.held_tickets(seat):
            cost, _ = self.path(costs, self.ticket_a[t], self.ticket_b[t])
            if 0 < cost < NEVER:
                found.append(t)
        return sorted(found, key=lambda t: -self.ticket_points[t])

    def plan(self, state: BoardState, seat: int) -> set[int]:
        """The routes to claim for the open tickets that fit the trains left."""
        costs = self.costs(state, seat)
        tickets = self.open_tickets(state, seat, costs)
        while tickets:
            cost, routes = self.union(costs, tickets)
            if cost <= state.trains[seat]:
                return routes
            tickets.pop()  # the least valuable goes first
        return set()

    # -- tickets ----------------------------------------------------------------------------

    def keep(self, state: BoardState) -> KeepTickets:
        """The keep choice whose tickets are worth most points less a charge per extra
        train on top of the current plan (fewer tickets on ties); sets that would not fit
        the trains (or, at the start, the setup budget) rank far below."""
        seat = state.to_move
        assert seat is not None
        offer = state.offered_tickets(seat)
        style = self.style
        costs = self.costs(state, seat)
        base, planned = self.union(costs, self.open_tickets(state, seat, costs))
        setup = state.phase == "setup_tickets"
        budget = style.setup_budget if setup else state.trains[seat] - style.keep_margin
        points = self.ticket_points

        def value(choice: KeepTickets) -> tuple[float, int]:
            kept = [offer[i] for i in choice.indices]
            extra, _ = self.union(costs, kept, planned)
            if base + extra > budget:
                worth = -1000.0 - min(base + extra, 1000)
            else:
                worth = sum(points[t] for t in kept) - style.keep_weight * extra
            return worth, -len(kept)

        options = [a for a in state.legal_actions() if isinstance(a, KeepTickets)]
        return max(options, key=value)

    # -- cards ------------------------------------------------------------------------------

    def shortfall(self, state: BoardState, seat: int, routes: Iterable[int]) -> list[int]:
        """Cards of each colour the routes still need beyond the hand; wilds are kept for
        the end."""
        hand = state.hand(seat)
        need = self.demand(state, seat, routes)
        short = [0] * self.colours
        for c in range(self.colours):
            if need[c] > hand[c]:
                short[c] = need[c] - hand[c]
        return short

    def demand(self, state: BoardState, seat: int, routes: Iterable[int]) -> list[int]:
        """Cards of each colour the routes call for (gray routes take the colour with most
        to spare)."""
        colours = self.colours
        hand = state.hand(seat)
        need = [0] * colours
        gray = []
        for r in routes:
            c = self.route_colour[r]
            if c < 0:
                gray.append(self.route_length[r])
            else:
                need[c] += self.route_length[r]
        for size in sorted(gray, reverse=True):
            # the colour with most to spare, the first on ties (a loop: no key tuples)
            c, most = 0, hand[0] - need[0]
            for other in range(1, colours):
                spare = hand[other] - need[other]
                if spare > most:
                    c, most = other, spare
            need[c] += size
        return need

    def payment(
        self, state: BoardState, seat: int, r: int, spare: list[int] | None
    ) -> ClaimRoute | None:
        """The cheapest way for ``seat`` to pay for ``r`` now (fewest wilds, then the colour
        the rest of the plan needs least), or None."""
        size = self.route_length[r]
        if size > state.trains[seat]:
            return None
        hand = state.hand(seat)
        colours = self.colours
        wilds = hand[colours]
        least = self.route_ferries[r]
        colour = self.route_colour[r]
        first, last = (0, colours) if colour < 0 else (colour, colour + 1)
        # The least (wilds, spare, -have, colour), compared field by field (no key tuples).
        best_c = best_k = best_spare = best_have = -1
        for c in range(first, last):
            have = hand[c]
            if have + wilds < size or not have:
                continue
            k = max(size - have, least)
            if k > wilds or k >= size:
                continue
            left = spare[c] if spare else 0
            better = best_c < 0 or k < best_k
            if k == best_k:
                better = left < best_spare or (left == best_spare and have > best_have)
            if better:
                best_c, best_k, best_spare, best_have = c, k, left, have
        if best_c >= 0:
            return self.claim_table[r][best_c][best_k]
        if wilds >= size:
            return self.claim_all_wild[r]
        return None

    def draw(self, state: BoardState, want: list[int]) -> Action:
        """A face-up card of the colour most wanted, else the deck, else anything legal (no
        card may be drawn once the deck and the discards are empty)."""
        if not state.can_draw_blind():
            legal = [a for a in state.legal_actions() if a is not DRAW_TICKETS]
            return legal[0] if legal else state.legal_actions()[0]
        display = state.display
        best_slot, best = -1, 0
        for slot in range(len(display)):
            card = display[slot]
            if 0 <= card < self.colours and want[card] > best:
                best_slot, best = slot, want[card]
        if best_slot < 0:
            return DRAW_DECK
        slots = self.draw_slots
        return slots[best_slot] if best_slot < len(slots) else DrawCard(best_slot)

    # -- a move -----------------------------------------------------------------------------

    def move(self, state: BoardState, plan: set[int], allow_tickets: bool = True) -> Action:
        """The move of the seat to move, following ``plan`` (its routes still to claim)."""
        phase = state.phase
        if phase in ("setup_tickets", "keep_tickets"):
            return self.keep(state)
        if phase not in ("turn", "second_draw"):
            return state.legal_actions()[0]  # tunnels, tourist tokens: the first choice
        seat = state.to_move
        assert seat is not None
        if plan:
            if phase == "turn":
                rank, by_length = self.rank, self.by_length
                for place in sorted([rank[r] for r in plan]):  # the longest first
                    r = by_length[place]
                    if self.payment(state, seat, r, None) is not None:
                        spare = self.shortfall(state, seat, plan - {r})
                        pay = self.payment(state, seat, r, spare)  # the same route, payable
                        assert pay is not None
                        return pay
            return self.draw(state, self.shortfall(state, seat, plan))
        trains = state.trains[seat]
        if (
            phase == "turn"
            and allow_tickets
            and state.ticket_deck_size
            and trains >= self.style.ticket_trains
        ):
            return DRAW_TICKETS
        want = [0] * self.colours
        hand = state.hand(seat)
        favourite = 0  # the colour most held, the first on ties
        for c in range(1, self.colours):
            if hand[c] > hand[favourite]:
                favourite = c
        owner = state.route_owner
        for r in self.by_length:
            size = self.route_length[r]
            if size > trains or owner[r] >= 0 or state.route_blocked(seat, r):
                continue
            if phase == "turn" and (size >= self.style.long_min or trains <= 6):
                pay = self.payment(state, seat, r, None)
                if pay is not None:
                    return pay
            if size >= 4:
                c = self.route_colour[r]
                want[favourite if c < 0 else c] += size * size
        return self.draw(state, want)


class SeatPlanners(Planner):
    """One seat planned in its own style, every other seat by the common planner: the
    policy of ``bots/ismcts.py``'s rollouts. ``Rollout`` asks it for plans and moves only,
    so only those are passed on (it holds no board of its own)."""

    def __init__(self, own: Planner, others: Planner, seat: int) -> None:
        self.own, self.others, self.seat = own, others, seat

    def planner(self, seat: int | None) -> Planner:
        return self.own if seat == self.seat else self.others

    def plan(self, state: BoardState, seat: int) -> set[int]:
        return self.planner(seat).plan(state, seat)

    def move(self, state: BoardState, plan: set[int], allow_tickets: bool = True) -> Action:
        return self.planner(state.to_move).move(state, plan, allow_tickets)


@mypyc_attr(allow_interpreted_subclasses=True)  # tests/test_ismcts.py's CountingRollout
class Rollout:
    """Plays a state to its end with the planner for every seat, replanning when stale."""

    def __init__(self, planner: Planner) -> None:
        self.planner = planner

    def play(self, state: BoardState, limit: int = 2000) -> BoardState:
        planner = self.planner
        players = state.num_players
        plans: list[set[int] | None] = [None] * players
        tickets = [len(state.held_tickets(p)) for p in range(players)]
        for _ in range(limit):
            if state.is_over:
                break
            seat = state.to_move
            assert seat is not None
            plan = plans[seat]
            if plan is None or len(state.held_tickets(seat)) != tickets[seat]:
                plan = plans[seat] = planner.plan(state, seat)
                tickets[seat] = len(state.held_tickets(seat))
            action = planner.move(state, plan)
            try:
                state.apply(action)
            except IllegalActionError:  # a rule the planner does not model: any legal move
                state.apply(state.legal_actions()[0])
                continue
            if isinstance(action, DrawCard):
                continue  # most moves: no route (and no failed attribute look-up)
            route = (
                action.route if isinstance(action, ClaimRoute) else getattr(action, "route", None)
            )
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
