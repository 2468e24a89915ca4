"""The search bot: determinized Monte Carlo over the in-process engine.

It plays by a fast ticket planner (``bots.policy``) and searches where the
game is decided: which tickets to keep, whether to draw more, and once some
seat is low on trains, every turn (claim which route, or draw). At those
decisions it samples the hidden information (other hands and tickets, the
deck order) consistently with its own observation
(``Variant.sample``, ``state.resample``), so it never reads what it may not
know; plays each candidate on the sample and the game on to its end with the
planner moving for every seat; and scores the end by its margin over the best
opponent plus a bonus for winning. All candidates share each sample and its
random stream (common random numbers), so their differences are not drowned in
the noise of the deal. It samples until its iteration budget (deterministic
given its seed) or its time cap runs out, and plays the best mean; the default
budgets fit within the cap (docs/BOTS.md, "Budgets, not clocks"), and the
``-timed`` variants sample until their time is spent instead.

Why not search every move: a single card draw changes the final margin by a
point or two, far below the spread of rollouts, so a second's worth of samples
picks such moves almost at random; ticket decisions move it by tens of points,
and near the end rollouts are short and each turn counts, so there the samples
can tell candidates apart (docs/BOTS.md has the figures).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence

from arena.engine.actions import DRAW_DECK, DRAW_TICKETS, Action
from arena.engine.game import TicketBelief
from arena.engine.observation import BoardObservation, Observation
from arena.engine.state import SAMPLEABLE, BoardState
from arena.plugins import hookimpl
from arena.variants import get_variant
from bots.planning import board_observation, claims_by_route
from bots.policy import Planner, Rollout, Style
from bots.published import TicketByTicket
from bots.sdk import Bot, BotSpec

SEARCH_STYLE = Style(route_overhead=1.0)
# The default budgets (samples per searched decision): what the compiled build finishes
# within the 0.9 s cap at the 99th percentile of searched decisions on the project's 2-core
# machine (docs/BOTS.md, "Budgets, not clocks"; tests/test_budgets.py checks them).
MONTE_CARLO_ITERATIONS = 40
FAST_ITERATIONS = 8
# A budgeted search also stops once a decision has taken this many times its cap in wall
# time, and at least WALL_FLOOR_S (the referee's default time a move): a safety net for a
# machine too busy to give it its CPU, which only a machine that busy reaches.
WALL_BACKSTOP = 3.0
WALL_FLOOR_S = 1.0


class PlanningBot(Bot):
    """The ticket planner on its own: no search, a fast and solid opponent."""

    name = "planner"
    style = SEARCH_STYLE

    def on_game_start(self, observation: Observation) -> None:
        self.variant = get_variant(observation.variant)
        self.planner = Planner(self.variant, self.style)
        # San Francisco's tourist stacks and Europe's tunnels: ticket-by-ticket's small choices.
        self.helper = TicketByTicket(0)
        self.helper.board = self.board
        self.helper.on_game_start(observation)

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        observation = board_observation(observation)
        if observation.phase not in SAMPLEABLE or len(legal_actions) == 1:
            return self.helper.choose(observation, legal_actions)
        # The planner reads only what this seat knows, so any sample gives the same move.
        state = self.sample(observation, None)
        return self.decide(state, observation, legal_actions)

    def sample(self, observation: BoardObservation, belief: TicketBelief | None) -> BoardState:
        """A full state consistent with ``observation`` (hidden cards and tickets dealt at
        random by this bot's generator)."""
        state = self.variant.sample(observation, self.rng, belief)
        assert isinstance(state, BoardState)
        return state

    def decide(
        self, state: BoardState, observation: BoardObservation, legal: Sequence[Action]
    ) -> Action:
        """The move, given a sample of the state this seat sees."""
        return self.planner.move(state, self.planner.plan(state, observation.seat))


class MonteCarloBot(PlanningBot):
    name = "monte-carlo"
    # A budgeted search reads its cap on its thread's CPU time: what the search costs,
    # whatever else the machine runs, so a busy machine does not cut it short (its games
    # stay reproducible); wall time backs the cap up (WALL_BACKSTOP, WALL_FLOOR_S) for a
    # machine too busy to give it that CPU in time. A timed search (no budget) reads the
    # wall clock, the referee's. Tests replace ``clock``.
    cpu_clock = staticmethod(time.thread_time)
    wall_clock = staticmethod(time.perf_counter)
    rollouts = 0  # the rollouts the last search played
    out_of_time = False  # whether the cap, not the budget, ended the last search
    started = 0.0  # the decision's start on ``clock``
    wall_deadline = math.inf

    def __init__(
        self,
        seed: int | str = 0,
        iterations: int | None = MONTE_CARLO_ITERATIONS,
        budget_s: float = 0.9,
        win_bonus: float = 0.5,
        min_trains: int = 10,
        endgame_trains: int = 8,
        endgame_claims: int = 8,
        belief: float = 4.0,
    ) -> None:
        """``iterations`` samples per searched decision (deterministic given the seed);
        ``budget_s`` caps its time (reaching it makes the bot depend on machine speed);
        ``iterations=None`` searches until the time budget instead. ``win_bonus`` is added
        to a rollout's margin (in units of 50 points) when it wins; ticket draws are
        considered while at least ``min_trains`` trains are left. Once some seat is down to
        ``endgame_trains`` trains, every turn is searched too: the planner's move, a blind
        draw and claims of the ``endgame_claims`` longest routes it can pay for. Another
        seat is taken to hold a ticket ``belief`` times likelier for each of its two ends
        that its routes reach (1: uniform)."""
        super().__init__(seed)
        self.iterations = iterations
        self.budget_s = budget_s
        self.win_bonus = win_bonus
        self.min_trains = min_trains
        self.endgame_trains = endgame_trains
        self.endgame_claims = endgame_claims
        self.belief = belief

    def on_game_start(self, observation: Observation) -> None:
        super().on_game_start(observation)
        self.rollout = Rollout(self.planner)

    def clock(self) -> float:
        """The clock its cap (a budgeted search) or its time budget (a timed one) is read on."""
        return self.wall_clock() if self.iterations is None else self.cpu_clock()

    def start_clocks(self) -> None:
        self.started = self.clock()
        budgeted = self.iterations is not None
        backstop = max(WALL_BACKSTOP * self.budget_s, WALL_FLOOR_S) if budgeted else math.inf
        self.wall_deadline = self.wall_clock() + backstop

    def time_is_up(self) -> bool:
        """Whether the cap (or a timed search's time) is spent, by ``clock`` or the backstop."""
        return (
            self.clock() >= self.started + self.budget_s or self.wall_clock() >= self.wall_deadline
        )

    def decide(
        self, state: BoardState, observation: BoardObservation, legal: Sequence[Action]
    ) -> Action:
        self.start_clocks()
        candidates = self.candidates(state, legal)
        if len(candidates) == 1:
            return candidates[0]
        return candidates[self.search(observation, candidates)]

    def candidates(self, state: BoardState, legal: Sequence[Action]) -> list[Action]:
        """Every keep choice; else the planner's move, a ticket draw when the plan is done
        and trains are left to use new tickets, and in the end game the other ways to
        spend the turn: the last turns decide how many points are left on the table."""
        if state.phase in ("setup_tickets", "keep_tickets"):
            return list(legal)
        seat = state.to_move
        assert seat is not None
        plan = self.planner.plan(state, seat)
        found = [self.planner.move(state, plan, allow_tickets=False)]
        if state.phase != "turn":
            return found
        # (the planner's move is never a ticket draw: it was asked not to draw)
        if not plan and DRAW_TICKETS in legal and state.trains[seat] >= self.min_trains:
            found.append(DRAW_TICKETS)
        if min(state.trains) <= self.endgame_trains:
            length = state.board.route_length
            claimable = sorted(claims_by_route(legal), key=lambda rid: (-length[rid - 1], rid))
            for rid in claimable[: self.endgame_claims]:
                pay = self.planner.payment(state, seat, rid - 1, None)
                if pay is not None and pay not in found:
                    found.append(pay)
            if DRAW_DECK in legal and DRAW_DECK not in found:
                found.append(DRAW_DECK)
        return found

    def search(self, observation: BoardObservation, candidates: list[Action]) -> int:
        """The index of the candidate with the best mean rollout value."""
        seat = observation.seat
        belief = self.ticket_belief(observation)
        totals = [0.0] * len(candidates)
        done = 0
        self.rollouts, self.out_of_time = 0, False
        while self.iterations is None or done < self.iterations:
            if done and self.time_is_up():
                self.out_of_time = self.iterations is not None
                break
            sample = self.sample(observation, belief)
            for i, action in enumerate(candidates):
                state = sample.copy()
                state.apply(action)
                totals[i] += self.value(self.rollout.play(state), seat)
            self.rollouts += len(candidates)
            done += 1
        return max(range(len(candidates)), key=lambda i: (totals[i], -i))

    def ticket_belief(self, observation: BoardObservation) -> TicketBelief | None:
        """Weights for the other seats' unseen tickets: a seat is likelier to hold the
        tickets whose cities its claimed routes reach."""
        if self.belief == 1.0:
            return None
        board = self.variant.board
        ends = (board.route_a, board.route_b)
        reached = [
            {end[rid - 1] for rid in public.routes for end in ends} for public in observation.public
        ]
        strength = self.belief

        def weight(seat: int, ticket: int) -> float:
            cities = reached[seat]
            touched = (board.ticket_a[ticket] in cities) + (board.ticket_b[ticket] in cities)
            return strength**touched

        return weight

    def value(self, final: BoardState, seat: int) -> float:
        """A rollout's end for ``seat``: its margin over the best other seat (in units of 50
        points), plus ``win_bonus`` for a win. A rollout the planner could not finish within
        its step limit (seats trading moves that change nothing, e.g. a Europe tunnel tried
        and withdrawn over and over) has no verdict: 0, an even game."""
        if not final.is_over:
            return 0.0
        scores = final.result().scores
        best_other = max(s for p, s in enumerate(scores) if p != seat)
        margin = (scores[seat] - best_other) / 50.0
        return margin + (self.win_bonus if scores[seat] > best_other else 0.0)


@hookimpl
def arena_bots() -> list[BotSpec]:
    return [
        BotSpec(
            "monte-carlo",
            f"determinized Monte Carlo: searches ticket choices, {MONTE_CARLO_ITERATIONS} "
            "samples (at most 0.9 s)",
            functools.partial(MonteCarloBot, iterations=MONTE_CARLO_ITERATIONS),
        ),
        BotSpec(
            "monte-carlo-fast",
            f"the same search with {FAST_ITERATIONS} samples a decision, for quick runs",
            functools.partial(MonteCarloBot, iterations=FAST_ITERATIONS),
        ),
        BotSpec(
            "monte-carlo-timed",
            "the same search sampling until 0.9 s have passed (not reproducible)",
            functools.partial(MonteCarloBot, iterations=None, budget_s=0.9),
        ),
        BotSpec(
            "monte-carlo-fast-timed",
            "the same search sampling until 0.1 s have passed (not reproducible)",
            functools.partial(MonteCarloBot, iterations=None, budget_s=0.1),
        ),
        BotSpec(
            "planner",
            "fast ticket planner: joins its tickets with the fewest trains (no search)",
            PlanningBot,
        ),
    ]
