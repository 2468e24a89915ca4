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


@pytest.mark.parametrize("name", ["usa", "europe"])
@pytest.mark.parametrize("players", [2, 4])
def test_the_setup_is_sampled_for_the_seat_choosing(name, players):
    """Every other seat is dealt an offer like the chooser's and chooses after it."""
    variant = get_variant(name)
    for seed in range(20):
        state = new_game(name, players, seed)
        rng = random.Random(seed)
        for _ in range(seed % players):  # some seats have chosen already
            state.apply(rng.choice(state.legal_actions()))
        seat = state.to_move
        seen = state.observation(seat)
        sampled = determinize(variant, seen, rng)
        assert sampled.observation(seat) == seen
        assert sampled._offers[seat] == state._offers[seat]
        offer = len(seen["offered_tickets"])
        assert all(len(o) == offer for o in sampled._offers)
        check_conservation(sampled)
        chooser_next = [seat]
        while sampled.phase == "setup_tickets":
            sampled.apply(rng.choice(sampled.legal_actions()))
            chooser_next.append(sampled.to_move)
        assert sorted(chooser_next[:players]) == list(range(players)), "everyone chose once"
        while not sampled.is_over:
            sampled.apply(rng.choice(sampled.legal_actions()))


def test_a_waiting_seat_cannot_sample_the_setup():
    state = new_game("usa", 2, 1)
    waiting = 1 - state.to_move
    with pytest.raises(ValueError, match="setup"):
        determinize(USA, state.observation(waiting), random.Random(0))


def test_a_ticket_belief_weights_the_other_seats_tickets():
    """Weights change how likely each deal is, never what the seat sees."""
    state = new_game("usa", 3, 4)
    rng = random.Random(4)
    while state.phase != "turn" or state.turn < 30:
        state.apply(rng.choice(state.legal_actions()))
    seat = state.to_move
    seen = state.observation(seat)
    other = (seat + 1) % 3
    favourite = state._ticket_deck[0]  # a ticket no seat holds

    def belief(p, ticket):
        return 1000.0 if (p, ticket) == (other, favourite) else 1.0

    held = {False: 0, True: 0}
    for i in range(200):
        weighted = i % 2 == 0
        sampled = determinize(USA, seen, random.Random(i), belief if weighted else None)
        assert sampled.observation(seat) == seen
        check_conservation(sampled)
        held[weighted] += favourite in sampled._tickets[other]
    assert held[True] >= 90 and held[False] <= 30
