"""The search bot's parts: the fast planner, its rollouts, the candidates it searches."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import BoardState
from arena.engine.actions import DRAW_DECK, DRAW_TICKETS, ClaimRoute
from arena.engine.scoring import components, connected
from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, in_process_referee
from arena.variants import get_variant, new_game
from bots.policy import NEVER, Planner, Rollout, Style
from bots.search import MonteCarloBot
from tests.test_properties import check_conservation

BOARDS = ["usa", "europe", "newyork"]


def played(name: str, players: int, seed: int, steps: int):
    """A state ``steps`` planner moves into a game (or its end)."""
    state = new_game(name, players, seed)
    assert isinstance(state, BoardState)
    planner = Planner(get_variant(name))
    for _ in range(steps):
        if state.to_move is None:
            break
        state.apply(planner.move(state, planner.plan(state, state.to_move)))
    return state, planner


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(BOARDS), st.integers(2, 4), st.integers(0, 2**32), st.integers(0, 200))
def test_the_planner_only_makes_legal_moves(name, players, seed, steps):
    state, planner = played(name, players, seed, steps)
    if not state.is_over:
        move = planner.move(state, planner.plan(state, state.to_move))
        assert move in state.legal_actions()


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(BOARDS), st.integers(2, 4), st.integers(0, 2**32), st.integers(0, 150))
def test_a_plan_joins_the_tickets_it_keeps_with_the_trains_left(name, players, seed, steps):
    """Claiming every planned route completes the tickets the plan serves, the plan fits
    the trains, and every planned route is free for this seat."""
    state, planner = played(name, players, seed, steps)
    seat = 0 if state.is_over else state.to_move
    plan = planner.plan(state, seat)
    board = state.board
    assert sum(board.route_length[r] for r in plan) <= state.trains[seat]
    costs = planner.costs(state, seat)
    assert all(state.route_owner[r] < 0 and costs[r] < NEVER for r in plan)
    own = {r for r, holder in enumerate(state.route_owner) if holder == seat} | plan
    served = planner.open_tickets(state, seat, costs)
    network = components([(board.route_a[r], board.route_b[r]) for r in own])
    joined = [t for t in served if connected(network, board.ticket_a[t], board.ticket_b[t])]
    if plan:
        assert joined, "a plan serves at least its most valuable ticket"
    # The tickets left out are the ones that would not fit.
    if len(joined) < len(served):
        cost, _ = planner.union(costs, served)
        assert cost > state.trains[seat]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(BOARDS), st.integers(2, 4), st.integers(0, 2**32), st.integers(0, 150))
def test_whole_number_paths_are_the_paths_of_cost_city_pairs(name, players, seed, steps):
    """``path`` queues one int per city for whole-number costs; it finds the same cost and
    routes as the queue of (cost, city) pairs that any costs need, ties included."""
    state, planner = played(name, players, seed, steps)
    assert planner.whole
    seat = 0 if state.is_over else state.to_move
    costs = planner.costs(state, seat)
    cities = len(planner.adjacent)
    rng = random.Random(seed)
    for _ in range(20):
        a, b = rng.randrange(cities), rng.randrange(cities)
        assert planner.path(costs, a, b) == planner.path_by_pairs(costs, a, b)


def test_a_style_with_fractional_claim_charges_plans_by_cost_city_pairs():
    planner = Planner(get_variant("usa"), Style(route_overhead=0.5))
    assert not planner.whole
    state = new_game("usa", 3, 5)
    assert isinstance(state, BoardState)
    Rollout(planner).play(state)
    assert state.is_over


@pytest.mark.parametrize("name", BOARDS)
def test_rollouts_play_every_board_to_its_end_and_conserve_everything(name):
    variant = get_variant(name)
    planner = Planner(variant)
    rollout = Rollout(planner)
    for seed in range(6):
        state = new_game(name, 2 + seed % 3, seed)
        rollout.play(state)
        assert state.is_over
        check_conservation(state)


def test_the_planner_beats_random():
    wins = 0
    for seed in range(10):
        referee = in_process_referee(
            get_variant("usa"), [BotEntry.parse("planner"), BotEntry.parse("random")], TimeControl()
        )
        wins += referee.play(seed).ranks[0] == 1
    assert wins >= 9


def state_and_bot(seed: int, steps: int):
    state, _ = played("usa", 4, seed, steps)
    bot = MonteCarloBot(seed, iterations=4)
    bot.start_game(seed, state.observation(state.to_move), state.variant.board.public_json())
    return state, bot


def test_every_keep_choice_is_a_candidate():
    state, bot = state_and_bot(1, 0)
    sample = state.resample(state.to_move, random.Random(0))
    assert bot.candidates(sample, state.legal_actions()) == state.legal_actions()


def test_the_end_game_searches_claims_and_draws():
    checked = 0
    for seed in range(10):
        state = new_game("usa", 4, seed)
        bot = MonteCarloBot(seed, iterations=4)
        bot.start_game(seed, state.observation(state.to_move), state.variant.board.public_json())
        planner = bot.planner
        while not state.is_over:
            legal = state.legal_actions()
            endgame = min(state.trains) <= bot.endgame_trains
            if endgame and state.phase == "turn" and any(type(a) is ClaimRoute for a in legal):
                found = bot.candidates(state, legal)
                assert all(action in legal for action in found)
                assert len(set(found)) == len(found)
                assert sum(type(a) is ClaimRoute for a in found) >= 1
                assert DRAW_DECK in found or DRAW_DECK not in legal
                checked += 1
            state.apply(planner.move(state, planner.plan(state, state.to_move)))
    assert checked >= 10


def test_early_turns_are_not_searched_while_a_plan_is_open():
    checked = 0
    for steps in range(8, 40):
        state, bot = state_and_bot(2, steps)
        if state.phase == "turn" and bot.planner.plan(state, state.to_move):
            found = bot.candidates(state, state.legal_actions())
            assert len(found) == 1 and found[0] is not DRAW_TICKETS
            checked += 1
    assert checked >= 10


def test_the_search_bot_decides_from_the_observation_alone():
    """Two real states that look the same to the seat get the same decision."""
    state, bot = state_and_bot(5, 0)
    seat = state.to_move
    seen = state.observation(seat)
    other = state.resample(seat, random.Random(99))  # other hidden cards and tickets
    hands = [list(s.hand(p)) for s in (state, other) for p in range(4)]
    assert other.observation(seat) == seen and hands[:4] != hands[4:]
    choices = []
    for real in (state, other):
        bot = MonteCarloBot(5, iterations=6)
        bot.start_game(5, real.observation(seat), real.variant.board.public_json())
        choices.append(bot.choose(real.observation(seat), real.legal_actions()))
    assert choices[0] == choices[1]


def test_the_search_benchmark_plays_the_same_games_every_run(tmp_path):
    """``benchmarks/search.py`` keys its referee from its seed: the same command plays the same
    games (scores and every action, through each game's digest), and only the key chooses
    the bots' seeds: another ``ARENA_SECRET`` plays the same deals with other searches."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "search.py"

    def run(name: str, secret: str | None = None) -> list[dict]:
        log = tmp_path / f"{name}.jsonl"
        env = {k: v for k, v in os.environ.items() if k != "ARENA_SECRET"}
        if secret is not None:
            env["ARENA_SECRET"] = secret
        args = ["--bot", "mcts-fast", "--opponent", "planner", "--players", "2", "--games", "2"]
        args += ["--workers", "1", "--seed", "7", "--set", "budget_s=1e9", "--log", str(log)]
        done = subprocess.run(
            [sys.executable, str(script), *args], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert "wins" in done.stdout and "mean margin" in done.stdout
        return [json.loads(line) for line in log.read_text().splitlines()]

    first, again, other = run("first"), run("again"), run("other", secret="another secret")
    assert len(first) == 2 and first == again
    assert [g["actions"] for g in other] != [g["actions"] for g in first]
