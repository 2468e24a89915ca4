"""A search bot: determinized Monte Carlo over the in-process engine.

At each decision it samples the hidden information (other hands, other
tickets, deck order) consistently with its own observation
(``arena.engine.sampling.determinize``), so it never reads what it may not
know. For each sample it plays every candidate action followed by a fast
heuristic rollout to the end of the game, and scores the outcome by its
margin over the best opponent plus a bonus for winning. The same samples
serve all candidates (common random numbers), so differences between
candidates are not drowned in the noise of the deal. It keeps sampling until
its iteration budget (24 samples, deterministic given its seed) or its time
cap (0.9 s) runs out and plays the candidate with the best mean.

Ticket choices and trivial decisions use the Route Focus heuristics.
"""

from __future__ import annotations

import functools
import heapq
import time
from collections.abc import Sequence
from typing import Any

from arena.engine.actions import Action, ClaimRoute, DrawCard, DrawTickets
from arena.engine.sampling import determinize
from arena.plugins import hookimpl
from arena.variants import get_variant
from bots.planning import View, cheapest_payment, claims_by_route
from bots.published import RouteFocus
from bots.sdk import Bot, BotSpec

ROLLOUT_LIMIT = 2000  # decisions; a safety bound far above any real game


class MonteCarloBot(Bot):
    name = "monte-carlo"

    def __init__(
        self, seed: int | str = 0, iterations: int | None = 24, budget_s: float = 0.9
    ) -> None:
        """``iterations`` samples per decision (deterministic given the seed); ``budget_s``
        caps the time of a decision (reaching it makes the bot depend on machine speed).
        ``iterations=None`` searches until the time budget instead."""
        super().__init__(seed)
        self.budget_s = budget_s
        self.iterations = iterations
        self.helper = RouteFocus(seed)

    def on_game_start(self, observation: dict[str, Any]) -> None:
        self.variant = get_variant(observation["variant"])
        self.helper.board = self.board
        self.helper.on_game_start(observation)
        self.length = self.variant.board.route_length

    def choose(self, observation: dict[str, Any], legal_actions: Sequence[Action]) -> Action:
        phase = observation["phase"]
        if phase not in ("turn", "second_draw") or len(legal_actions) == 1:
            return self.helper.choose(observation, legal_actions)
        # One plan per decision: the cheapest paths of the open tickets serve both the
        # choice of candidates and this seat's rollout targets.
        view = View(self.helper.graph, observation)
        open_tickets = view.open_tickets()
        candidates = self.candidates(view, open_tickets, legal_actions)
        if len(candidates) == 1:
            return candidates[0]
        seat = observation["seat"]
        targets = frozenset(r.id - 1 for _, _, routes in open_tickets for r in routes)
        totals = [0.0] * len(candidates)
        deadline = time.perf_counter() + self.budget_s
        done = 0
        while True:
            if self.iterations is not None and done >= self.iterations:
                break
            if done and time.perf_counter() >= deadline:
                break
            sample = determinize(self.variant, observation, self.rng)
            for i, action in enumerate(candidates):
                state = sample.copy()
                state.apply(action)
                totals[i] += self.rollout(state, seat, targets)
            done += 1
        best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
        return candidates[best]

    def candidates(self, view: View, open_tickets: list, legal: Sequence[Action]) -> list[Action]:
        """A short list, so every candidate gets many samples: a claim (cheapest payment) of
        each route on its ticket paths, the longest other claim, the deck, face-up cards of
        colours its paths need, and tickets only when every ticket held is done or hopeless."""
        plan = {r.id for _, _, routes in open_tickets for r in routes}
        wanted = view.wanted_colours(r for _, _, routes in open_tickets for r in routes)
        chosen: list[Action] = []
        claims = claims_by_route(legal)
        for rid, options in claims.items():
            if rid in plan:
                chosen.append(cheapest_payment(options, view.hand))
        others = [rid for rid in claims if rid not in plan]
        if others:
            longest = max(others, key=lambda rid: (view.graph.routes[rid].length, -rid))
            if view.graph.routes[longest].length >= 3 or not open_tickets:
                chosen.append(cheapest_payment(claims[longest], view.hand))
        seen_colours = set()
        for action in legal:
            if type(action) is DrawCard:
                colour = "deck" if action.slot is None else view.obs["display"][action.slot]
                useful = colour in ("deck", "wild") or wanted.get(colour, 0) > 0
                if useful and colour not in seen_colours:
                    seen_colours.add(colour)
                    chosen.append(action)
            elif type(action) is DrawTickets and not open_tickets:
                chosen.append(action)
        return chosen or list(legal)

    def rollout(self, state, seat: int, targets: frozenset[int]) -> float:
        """Play to the end with a fast ticket-aware greedy policy for every seat.

        Each seat's targets are the routes on the cheapest paths of its tickets
        (its own, or in the sample, the ones dealt to it), computed at the start
        and again whenever another seat takes one of them. A seat claims a target
        route when it can pay, otherwise a long route once its targets are gone,
        otherwise draws the colour its targets need.
        """
        board = state.board
        length, colour = board.route_length, board.route_colour
        goals = [
            set(targets) if p == seat else set(ticket_targets(state, p))
            for p in range(state.num_players)
        ]
        stale = [False] * state.num_players
        for _ in range(ROLLOUT_LIMIT):
            if state.is_over:
                break
            legal = state.legal_actions()
            if state.phase not in ("turn", "second_draw"):  # tickets, tourist tokens
                state.apply(legal[0])
                continue
            mover = state.to_move
            if stale[mover]:  # a route of its plan was taken: plan again, as Route Focus does
                goals[mover] = set(ticket_targets(state, mover))
                stale[mover] = False
            goal = goals[mover]
            best, best_key = None, None
            for action in legal:
                if type(action) is ClaimRoute:
                    r = action.route - 1
                    key = (r in goal, length[r], -action.wilds)
                    if best_key is None or key > best_key:
                        best, best_key = action, key
            if best is not None and not best_key[0] and (goal or best_key[1] < 3):
                best = None  # keep the cards for the plan, or for a longer route
            if best is None:
                best = draw_towards(state, legal, goal, colour)
            elif type(best) is ClaimRoute:
                r = best.route - 1
                for p, other in enumerate(goals):
                    if r in other:
                        other.discard(r)
                        stale[p] = p != mover
            state.apply(best)
        result = state.result()
        mine = result.scores[seat]
        others = max(s for p, s in enumerate(result.scores) if p != seat)
        return (mine - others) / 50.0


def ticket_targets(state, seat: int) -> list[int]:
    """Free routes on the cheapest paths of ``seat``'s tickets in ``state`` (engine indices)."""
    board = state.board
    owner = state._owner
    needed: list[int] = []
    for t in state._tickets[seat]:
        needed += cheapest_path(
            board,
            owner,
            seat,
            board.ticket_a[t],
            board.ticket_b[t],
            state.num_players,
            state.rules.double_routes_min_players,
        )
    return needed


def cheapest_path(board, owner, seat, a, b, players, double_min) -> list[int]:
    """Dijkstra on the engine's arrays: free routes to claim to join ``a`` and ``b``."""
    adjacency = _adjacency(board)
    best = {a: 0}
    back: dict[int, int] = {}
    queue = [(0, a)]
    sibling = board.route_sibling
    while queue:
        cost, city = heapq.heappop(queue)
        if city == b:
            break
        if cost > best[city]:
            continue
        for r, other in adjacency[city]:
            holder = owner[r]
            if holder >= 0 and holder != seat:
                continue
            s = sibling[r]
            if (
                holder < 0
                and s >= 0
                and owner[s] >= 0
                and (owner[s] == seat or players < double_min)
            ):
                continue
            step = cost + (0 if holder == seat else board.route_length[r])
            if step < best.get(other, 1 << 30):
                best[other] = step
                back[other] = r
                heapq.heappush(queue, (step, other))
    if b not in best:
        return []
    path, city = [], b
    while city != a:
        r = back[city]
        if owner[r] != seat:
            path.append(r)
        city = board.route_a[r] if board.route_b[r] == city else board.route_b[r]
    return path


_ADJACENCY: dict[int, list[list[tuple[int, int]]]] = {}


def _adjacency(board) -> list[list[tuple[int, int]]]:
    found = _ADJACENCY.get(id(board))
    if found is None:
        found = [[] for _ in board.cities]
        for r in range(board.num_routes):
            found[board.route_a[r]].append((r, board.route_b[r]))
            found[board.route_b[r]].append((r, board.route_a[r]))
        _ADJACENCY[id(board)] = found
    return found


def draw_towards(state, legal, goal, colour) -> Action:
    """A face-up card of a colour the goal routes need, else the deck, else anything."""
    wanted = {colour[r] for r in goal}
    display = state._display
    deck = None
    for action in legal:
        if type(action) is DrawCard:
            if action.slot is None:
                deck = action
            elif display[action.slot] in wanted:
                return action
    if deck is not None:
        return deck
    return next((a for a in legal if type(a) is not DrawTickets), legal[0])


@hookimpl
def arena_bots() -> list[BotSpec]:
    return [
        BotSpec(
            "monte-carlo",
            "determinized Monte Carlo search: 24 samples a decision (at most 0.9 s)",
            MonteCarloBot,
        ),
        BotSpec(
            "monte-carlo-fast",
            "the same search with 4 samples a decision, for quick runs",
            functools.partial(MonteCarloBot, iterations=4),
        ),
    ]
