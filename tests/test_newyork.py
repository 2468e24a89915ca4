"""Ticket to Ride: New York on the real map: components, tickets, attractions, ties, doubles,
the last round, property tests over random games, and bots through the referee."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import IllegalActionError
from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, ProcessMatch
from arena.referee.matchlog import MatchLog, verify
from arena.variants import get_variant, new_game
from tests.helpers import claim_for, deal, finish, set_hand, spend_trains, total_cards
from tests.test_properties import check_conservation

NY = get_variant("newyork")
COLOURS = ("blue", "green", "black", "pink", "red", "orange")


def started(players=3, seed=1):
    from tests.helpers import started as past_setup

    return past_setup(players, seed, "newyork")


def route(state, a, b):
    for r in state.board.data["routes"]:
        if {r["a"], r["b"]} == {a, b}:
            return r["id"]
    raise KeyError((a, b))


def test_components_and_setup():
    state = new_game("newyork", 4, 3)
    assert total_cards(state) == 44 and len(state.display) == 5
    assert state.rules.colours == COLOURS and state.rules.wild_name == "taxi"
    assert all(sum(state.hand(p)) == 2 for p in range(4)) and list(state.trains) == [15] * 4
    assert all(len(state.offered_tickets(p)) == 2 for p in range(4))
    assert [str(a) for a in state.legal_actions()] == ["keep 0", "keep 1", "keep 0 1"]
    with pytest.raises(ValueError, match="2-4 players"):
        new_game("newyork", 5, 1)


def test_drawing_tickets_offers_two_keep_one():
    state = started()
    state.apply("tickets")
    assert len(state.offered_tickets(state.to_move)) == 2
    assert [str(a) for a in state.legal_actions()] == ["keep 0", "keep 1", "keep 0 1"]


def test_tourist_attractions_score_one_each_and_no_longest_path_bonus():
    state = started(players=2)
    seat = state.to_move
    # Times Square and Empire State Building are both attractions.
    r = route(state, "empire-state-building", "times-square")
    result = finish(claim_for(state, seat, r))
    assert result.categories == ("routes", "tickets_completed", "tickets_failed", "attractions")
    assert result.breakdown[seat]["attractions"] == 2
    assert "longest_path_bonus" not in result.breakdown[seat] or (
        result.breakdown[seat]["longest_path_bonus"] == 0
    )


def test_ties_are_broken_by_completed_tickets_then_shared():
    assert NY.rules.tie_breaks == ("completed_tickets",)
    from arena.engine.result import GameResult

    rows = [
        {"routes": 5, "completed_tickets": 1, "longest_path": 9},
        {"routes": 5, "completed_tickets": 1, "longest_path": 2},
    ]
    assert GameResult.from_breakdown(rows, ("routes",), NY.rules.tie_breaks).ranks == (1, 1)


@pytest.mark.parametrize(("players", "closed"), [(2, True), (3, False), (4, False)])
def test_double_routes_by_player_count(players, closed):
    state = started(players)
    seat = state.to_move
    doubles = [r for r in range(state.board.num_routes) if state.board.route_sibling[r] >= 0]
    first = doubles[0]
    other = state.board.route_sibling[first]
    state = claim_for(state, (seat + 1) % players, first + 1)
    state = deal(state, seat, **dict.fromkeys(COLOURS, 6))
    colour = state.board.route_colour[other]
    name = COLOURS[colour] if colour >= 0 else "blue"
    if closed:
        with pytest.raises(IllegalActionError) as error:
            state.apply(f"claim {other + 1} {name}")
        assert error.value.rule == "claim.double-closed"
    else:
        state.apply(f"claim {other + 1} {name}")
        assert state.route_owner[other] == seat


def test_the_last_round_starts_at_two_taxis():
    state = started(players=2)
    seat = state.to_move
    one = next(r for r in range(state.board.num_routes) if state.board.route_length[r] == 1)
    state = spend_trains(state, seat, 12, avoid=(one + 1,))
    colour = state.board.route_colour[one]
    state = set_hand(state, seat, **dict.fromkeys(COLOURS, 1))
    state.apply(f"claim {one + 1} {COLOURS[colour] if colour >= 0 else 'blue'}")
    assert state.observation(seat)["last_round"]


@settings(max_examples=300)
@given(st.integers(2, 4), st.integers(0, 2**32))
def test_random_new_york_games(players, seed):
    state = new_game("newyork", players, seed)
    rng = random.Random(seed)
    actions = []
    while not state.is_over:
        assert len(actions) < 2000
        if state.phase != "setup_tickets" and len(actions) % 17 == 0:
            seat = state.to_move
            sampled = state.resample(seat, rng)
            assert sampled.observation(seat) == state.observation(seat)
        action = rng.choice(state.legal_actions())
        state.apply(action)
        actions.append(str(action))
        if len(actions) % 5 == 0:
            check_conservation(state)
    result = state.result()
    for row in result.breakdown:
        assert row["total"] == sum(row[c] for c in result.categories)
    again = new_game("newyork", players, seed)
    for action in actions:
        again.apply(action)
    assert again.fingerprint() == state.fingerprint()


def test_bots_play_new_york_through_the_referee(tmp_path):
    entries = [BotEntry.parse(b) for b in ("ticket-by-ticket", "greedy-claims", "random")]
    with ProcessMatch(NY, entries, TimeControl(move_ms=3000), log_dir=tmp_path) as referee:
        outcome = referee.play(4)
    assert outcome.faults == []
    assert verify(MatchLog.from_jsonl(outcome.log.to_jsonl())).is_over
    assert "attractions" in outcome.result.categories
