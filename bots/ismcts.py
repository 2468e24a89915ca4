"""The strongest built-in bot: determinized search with sequential halving and threat-aware claims.

It builds on ``monte-carlo`` (``bots/search.py``): the same fast planner
(``bots/policy.py``) for every seat of its rollouts, the same determinization
of what it cannot see from its own observation alone (``Variant.sample`` with
ticket beliefs weighted by the cities each seat's routes reach), and the same
pruned set of moves worth searching (every ticket keep, ticket draws once the
plan is done, the end game's claims and draws). What it adds:

- **Sequential halving** instead of equal samples per candidate: the rollout
  budget is spent in rounds, each round on one fresh determinization per
  sample shared by every candidate still in play (common random numbers), and
  the worse half is dropped after each round. Most samples go to telling the
  two or three best moves apart, where they matter.
- **Threat-aware claims**: on each of a few determinizations it plans for
  every other seat too (their sampled tickets, weighted by what their routes
  reveal) and counts how often each route of its own plan lies on someone
  else's plan. Among the planned routes it can pay for, it claims the one most
  likely to be taken first (the planner alone claims the longest); when the
  most threatened route cannot be paid for yet, its colours come first in the
  draw. The threatened claim is also a search candidate beside the planner's.
- **Two settings**: ``mcts`` (up to 0.9 s a decision) and ``mcts-fast``
  (up to 90 ms). Both are deterministic given their seed as long as the
  rollout budget, not the time cap, ends a search (the cap is a safety net on
  a slow machine).

Nothing here reads hidden information: every state it plays on is a sample
drawn from its observation (tests/test_ismcts.py gives it two real states its
seat cannot tell apart and gets the same move).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Sequence

from arena.engine.actions import Action, ClaimRoute
from arena.engine.observation import BoardObservation
from arena.engine.state import BoardState
from arena.plugins import hookimpl
from bots.sdk import BotSpec
from bots.search import MonteCarloBot


class SearchBot(MonteCarloBot):
    """Determinized Monte Carlo search with sequential halving and threat-aware claims."""

    name = "mcts"

    def __init__(
        self,
        seed: int | str = 0,
        rollouts: int = 320,
        budget_s: float = 0.9,
        threat_samples: int = 6,
        win_bonus: float = 0.5,
        min_trains: int = 10,
        endgame_trains: int = 8,
        endgame_claims: int = 8,
        belief: float = 4.0,
    ) -> None:
        """``rollouts``: the most rollouts one decision may play (the budget sequential
        halving shares out; deterministic given the seed); ``budget_s`` caps its time.
        ``threat_samples``: determinizations on which the other seats' plans are made to
        judge which of its planned routes are contested (0 turns it off: the planner's
        longest-first order). The rest as ``MonteCarloBot``."""
        super().__init__(
            seed,
            iterations=rollouts,
            budget_s=budget_s,
            win_bonus=win_bonus,
            min_trains=min_trains,
            endgame_trains=endgame_trains,
            endgame_claims=endgame_claims,
            belief=belief,
        )
        self.rollouts = rollouts
        self.threat_samples = threat_samples

    # -- which moves -------------------------------------------------------------------------

    def decide(
        self, state: BoardState, observation: BoardObservation, legal: Sequence[Action]
    ) -> Action:
        self.observation = observation
        self.started = time.perf_counter()
        candidates = self.candidates(state, legal)
        if len(candidates) == 1:
            return candidates[0]
        return candidates[self.search(observation, candidates)]

    def candidates(self, state: BoardState, legal: Sequence[Action]) -> list[Action]:
        """``monte-carlo``'s candidates, with the threat-aware move first in place of
        the planner's (and the planner's kept as an alternative when they differ)."""
        found = super().candidates(state, legal)
        if state.phase not in ("turn", "second_draw") or not self.threat_samples:
            return found
        seat = state.to_move
        assert seat is not None
        plan = self.planner.plan(state, seat)
        if not plan:
            return found
        guarded = self.guarded_move(state, plan)
        if guarded is None or guarded == found[0]:
            return found
        if guarded in found:
            found.remove(guarded)
        return [guarded, *found]

    def guarded_move(self, state: BoardState, plan: set[int]) -> Action | None:
        """The planner's move with the most contested planned route first: claimed if it
        can be paid for, else its colours drawn first; None when nothing is contested."""
        threat = self.threats(state.to_move, plan)
        if not threat:
            return None
        planner, seat = self.planner, state.to_move
        assert seat is not None
        length = self.variant.board.route_length
        ranked = sorted(threat, key=lambda r: (-threat[r], -length[r], r))
        if state.phase == "turn":
            for r in ranked:
                if planner.payment(state, seat, r, None) is not None:
                    spare = planner.shortfall(state, seat, plan - {r})
                    pay = planner.payment(state, seat, r, spare)
                    assert pay is not None
                    return pay
            # Nothing contested is payable: the planner's own claim, if any, still comes first.
            move = planner.move(state, plan, allow_tickets=False)
            if isinstance(move, ClaimRoute):
                return move
        want = planner.shortfall(state, seat, plan)
        for colour, short in enumerate(planner.shortfall(state, seat, [ranked[0]])):
            want[colour] += 100 * short
        return planner.draw(state, want)

    def threats(self, seat: int, plan: set[int]) -> dict[int, int]:
        """How many of ``threat_samples`` determinizations put each of ``plan``'s routes on
        another seat's plan (only the routes that are, at least once)."""
        observation = self.observation
        belief = self.ticket_belief(observation)
        counts: dict[int, int] = {}
        for _ in range(self.threat_samples):
            sample = self.sample(observation, belief)
            taken: set[int] = set()
            for other in range(sample.num_players):
                if other != seat:
                    taken |= self.planner.plan(sample, other) & plan
            for r in taken:
                counts[r] = counts.get(r, 0) + 1
        return counts

    # -- how they are judged -----------------------------------------------------------------

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
        out_of_time = False
        for _ in range(rounds):
            samples = max(1, self.rollouts // (rounds * len(alive)))
            for _ in range(samples):
                sample = self.sample(observation, belief)
                for i in alive:
                    if time.perf_counter() >= deadline:
                        out_of_time = True
                        break
                    state = sample.copy()
                    state.apply(candidates[i])
                    totals[i] += self.value(self.rollout.play(state), seat)
                    counts[i] += 1
                if out_of_time:
                    break
            if out_of_time:
                break
            if len(alive) > 2:
                alive.sort(key=lambda i: (-totals[i] / max(counts[i], 1), i))
                alive = alive[: max(2, math.ceil(len(alive) / 2))]
        # Out of time, a candidate never played loses to any that was (the first, the
        # guarded or planner's move, wins if none was).
        return max(alive, key=lambda i: (counts[i] > 0, totals[i] / max(counts[i], 1), -i))


@hookimpl
def arena_bots() -> list[BotSpec]:
    return [
        BotSpec(
            "mcts",
            "the strongest: determinized search, sequential halving, threat-aware claims "
            "(at most 0.9 s a decision)",
            SearchBot,
        ),
        BotSpec(
            "mcts-fast",
            "the same search with a tenth of the rollouts (at most 90 ms a decision)",
            functools.partial(SearchBot, rollouts=32, budget_s=0.09),
        ),
    ]
