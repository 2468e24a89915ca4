"""The ``mcts`` search bot: it decides from its observation alone, is deterministic given
its seed, spends its rollout budget by sequential halving and only proposes legal moves."""

from __future__ import annotations

import random

from arena.engine.actions import ClaimRoute
from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, in_process_referee
from arena.variants import get_variant
from bots.ismcts import SearchBot
from bots.policy import Rollout
from tests.test_search import played

USA = get_variant("usa")
UNCAPPED = 60.0  # no time cap in tests: the rollout budget alone ends every search


def started(state, seed: int = 0, **settings) -> SearchBot:
    bot = SearchBot(seed, budget_s=UNCAPPED, **settings)
    seat = state.to_move
    bot.start_game(seed, state.observation(seat), state.variant.board.public_json())
    return bot


def test_it_decides_from_the_observation_alone():
    """Two real states that look the same to the seat get the same decision, at setup
    and in the middle of a game (where the threats are judged on samples too)."""
    for seed, steps in ((5, 0), (7, 40), (8, 70)):
        state, _ = played("usa", 4, seed, steps)
        seat = state.to_move
        other = state.resample(seat, random.Random(99))
        assert other.observation(seat) == state.observation(seat)
        assert [list(state.hand(p)) for p in range(4)] != [list(other.hand(p)) for p in range(4)]
        choices = [
            started(real, seed, rollouts=12).choose(real.observation(seat), real.legal_actions())
            for real in (state, other)
        ]
        assert choices[0] == choices[1]


def test_it_is_deterministic_given_its_seed():
    def actions(seed):
        bot = SearchBot(seed, rollouts=8, budget_s=UNCAPPED)
        referee = in_process_referee(
            USA,
            [BotEntry.parse("greedy-claims"), BotEntry.parse("planner")],
            TimeControl(),
        )
        referee.seats[0].bot = bot
        return [a["action"] for a in referee.play(seed).log.actions]

    assert actions(3) == actions(3)


class CountingRollout(Rollout):
    """Counts the rollouts a search plays, per first move."""

    def __init__(self, planner, log):
        super().__init__(planner)
        self.log = log

    def play(self, state, limit=2000):
        self.log.append(state.copy())
        return super().play(state, limit)


def test_sequential_halving_spends_the_budget_on_the_best_candidates():
    state, _ = played("usa", 4, 11, 0)  # setup: four ways to keep tickets
    bot = started(state, 11, rollouts=40)
    log: list = []
    bot.rollout = CountingRollout(bot.planner, log)
    legal = state.legal_actions()
    bot.observation = state.observation(state.to_move)
    bot.started = 0.0
    bot.budget_s = float("inf")
    best = bot.search(bot.observation, list(legal))
    assert 0 <= best < len(legal)
    assert len(legal) <= len(log) <= 40
    # Round one: 40 // (2 rounds x 4) = 5 samples of all four; round two: 10 of the best two.
    assert len(log) == 4 * 5 + 2 * 10


def test_its_candidates_are_legal_distinct_and_start_with_a_planned_move():
    checked = 0
    for seed in range(4):
        for steps in (20, 45, 70, 95):
            state, planner = played("usa", 4, seed, steps)
            if state.is_over or state.phase != "turn":
                continue
            bot = started(state, seed, rollouts=8)
            bot.observation = state.observation(state.to_move)
            legal = state.legal_actions()
            found = bot.candidates(state, legal)
            assert found and all(a in legal for a in found)
            assert len(set(found)) == len(found)
            plan = planner.plan(state, state.to_move)
            first = found[0]
            if isinstance(first, ClaimRoute) and plan:
                assert first.route - 1 in plan or min(state.trains) <= bot.endgame_trains
            checked += 1
    assert checked >= 8


def test_threats_count_only_planned_routes_and_at_most_once_a_sample():
    state, planner = played("usa", 4, 3, 50)
    seat = state.to_move
    bot = started(state, 3, threat_samples=5)
    bot.observation = state.observation(seat)
    plan = planner.plan(state, seat)
    threats = bot.threats(seat, plan)
    assert set(threats) <= plan
    assert all(1 <= n <= 5 for n in threats.values())
