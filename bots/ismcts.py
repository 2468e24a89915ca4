"""The strongest built-in bot: determinized search with sequential halving over a pruned move set.

It builds on ``monte-carlo`` (``bots/search.py``): a fast ticket planner
(``bots/policy.py``) plays every seat of its rollouts; what it cannot see is
sampled from its own observation alone (``Variant.sample``, the other seats'
tickets weighted by the cities their routes reach); and it searches the moves
that decide games (every ticket keep, ticket draws once the plan is done, the
end game's claims and draws) while the planner plays the rest. What it adds:

- **Sequential halving** instead of equal samples per candidate: a decision
  among k candidates may play ``samples * k`` rollouts, spent in rounds; each
  round deals fresh determinizations shared by every candidate still in play
  (common random numbers) and drops the worse half. Most rollouts go to
  telling the two or three best moves apart, where they matter.
- **Its own style**: its planner charges three trains' worth per claim when
  choosing paths (``monte-carlo``'s charges one), so its paths run over fewer,
  longer routes, which score more points per train; in its rollouts it plays
  its own seat in that style and the other seats as the common planner.
- **Two settings**: ``mcts`` (80 rollouts per candidate, at most 0.9 s a
  decision) and ``mcts-fast`` (10, at most 80 ms). Both are deterministic
  given their seed as long as the rollout budget, not the time cap, ends a
  search (the cap is a safety net on a slow machine).

Nothing here reads hidden information: every state it plays on is a sample
drawn from its observation (tests/test_ismcts.py gives it two real states its
seat cannot tell apart and gets the same move). docs/BOTS.md has what was
tried and measured.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from arena.engine.actions import Action
from arena.engine.observation import BoardObservation, Observation
from arena.engine.state import BoardState
from arena.plugins import hookimpl
from bots.policy import Planner, Rollout
from bots.sdk import BotSpec
from bots.search import SEARCH_STYLE, MonteCarloBot

OWN_STYLE = replace(SEARCH_STYLE, route_overhead=3.0)


class SeatPlanners(Planner):
    """One seat planned in its own style, every other seat by the common planner: the
    policy of this bot's rollouts. ``Rollout`` asks it for plans and moves only, so only
    those are passed on (it holds no board of its own)."""

    def __init__(self, own: Planner, others: Planner, seat: int) -> None:
        self.own, self.others, self.seat = own, others, seat

    def planner(self, seat: int | None) -> Planner:
        return self.own if seat == self.seat else self.others

    def plan(self, state: BoardState, seat: int) -> set[int]:
        return self.planner(seat).plan(state, seat)

    def move(self, state: BoardState, plan: set[int], allow_tickets: bool = True) -> Action:
        return self.planner(state.to_move).move(state, plan, allow_tickets)


class SearchBot(MonteCarloBot):
    """Determinized Monte Carlo search with sequential halving, in its own planning style."""

    name = "mcts"
    style = OWN_STYLE

    def __init__(
        self, seed: int | str = 0, samples: int = 80, budget_s: float = 0.9, **settings: Any
    ) -> None:
        """``samples``: rollouts per candidate on average; a decision among k candidates
        plays at most ``samples * k`` (the budget sequential halving shares out;
        deterministic given the seed); ``budget_s`` caps its time (reaching it makes the
        bot depend on machine speed). ``settings`` as ``MonteCarloBot``'s (``win_bonus``,
        ``min_trains``, ``endgame_trains``, ``endgame_claims``, ``belief``)."""
        super().__init__(seed, iterations=samples, budget_s=budget_s, **settings)
        self.samples = samples

    def on_game_start(self, observation: Observation) -> None:
        super().on_game_start(observation)
        common = Planner(self.variant, SEARCH_STYLE)
        self.rollout = Rollout(SeatPlanners(self.planner, common, observation.seat))

    def decide(
        self, state: BoardState, observation: BoardObservation, legal: Sequence[Action]
    ) -> Action:
        self.started = time.perf_counter()
        return super().decide(state, observation, legal)

    def search(self, observation: BoardObservation, candidates: list[Action]) -> int:
        """Sequential halving over ``candidates`` with common random numbers: the index of
        the best mean rollout value among the last ones standing."""
        seat = observation.seat
        belief = self.ticket_belief(observation)
        totals = [0.0] * len(candidates)
        counts = [0] * len(candidates)
        alive = list(range(len(candidates)))
        rounds = max(1, math.ceil(math.log2(len(candidates))))
        deadline = self.started + self.budget_s
        for _ in range(rounds):
            for _ in range(max(1, self.samples * len(candidates) // (rounds * len(alive)))):
                sample = self.sample(observation, belief)
                for i in alive:
                    if time.perf_counter() >= deadline:
                        return self.best(alive, totals, counts)
                    state = sample.copy()
                    state.apply(candidates[i])
                    totals[i] += self.value(self.rollout.play(state), seat)
                    counts[i] += 1
            if len(alive) > 2:
                alive.sort(key=lambda i: (-totals[i] / max(counts[i], 1), i))
                alive = alive[: max(2, math.ceil(len(alive) / 2))]
        return self.best(alive, totals, counts)

    @staticmethod
    def best(alive: list[int], totals: list[float], counts: list[int]) -> int:
        """The best mean among ``alive``; out of time, a candidate never played loses to
        any that was (and the first, the planner's move or at a ticket keep the first
        legal choice, is played if none was)."""
        return max(alive, key=lambda i: (counts[i] > 0, totals[i] / max(counts[i], 1), -i))


@hookimpl
def arena_bots() -> list[BotSpec]:
    return [
        BotSpec(
            "mcts",
            "the strongest: determinized search with sequential halving over the moves "
            "that decide games (at most 0.9 s a decision)",
            SearchBot,
        ),
        BotSpec(
            "mcts-fast",
            "the same search with an eighth of the rollouts (at most 80 ms a decision)",
            functools.partial(SearchBot, samples=10, budget_s=0.08),
        ),
    ]
