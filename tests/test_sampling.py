"""Determinization: sampled states are indistinguishable to the seat they were sampled for."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine.sampling import determinize
from arena.variants import get_variant, new_game
from tests.test_properties import check_conservation

USA = get_variant("usa")


@settings(max_examples=150)
@given(st.integers(2, 5), st.integers(0, 2**32))
def test_a_sampled_state_shows_its_seat_exactly_what_it_saw(players, seed):
    state = new_game("usa", players, seed)
    rng = random.Random(seed)
    step = 0
    while not state.is_over:
        if step % 23 == 0 and state.phase in ("turn", "second_draw", "keep_tickets"):
            for seat in range(players):
                seen = state.observation(seat)
                sampled = determinize(USA, seen, rng)
                assert sampled.observation(seat) == seen
                check_conservation(sampled)
                # The sample is a real state: it plays on to the end.
                if seat == state.to_move and step % 69 == 0:
                    while not sampled.is_over:
                        sampled.apply(rng.choice(sampled.legal_actions()))
                    assert len(sampled.result().scores) == players
        state.apply(rng.choice(state.legal_actions()))
        step += 1


def test_samples_differ_in_what_is_hidden_only():
    state = new_game("usa", 4, 3)
    rng = random.Random(0)
    for _ in range(40):
        state.apply(rng.choice(state.legal_actions()))
    seen = state.observation(state.to_move)
    samples = [determinize(USA, seen, random.Random(i)) for i in range(5)]
    other = (state.to_move + 1) % 4
    assert len({tuple(s._hands[other]) for s in samples}) > 1, "other hands are sampled"
    assert all(s._hands[state.to_move] == state._hands[state.to_move] for s in samples)


def test_setup_cannot_be_sampled():
    state = new_game("usa", 2, 1)
    with pytest.raises(ValueError, match="setup_tickets"):
        determinize(USA, state.observation(0), random.Random(0))
