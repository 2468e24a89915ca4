"""Resampling: a state sampled for a seat is indistinguishable to that seat from the real one.

``state.resample(seat, rng)`` (and ``Variant.sample(observation, rng)`` for a bot that
only has its observation) deal what the seat cannot see at random, consistently with
every public count.
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.variants import get_variant, new_game
from tests.helpers import position
from tests.test_properties import check_conservation

USA = get_variant("usa")


@settings(max_examples=150)
@given(st.integers(2, 5), st.integers(0, 2**32))
def test_a_resampled_state_shows_its_seat_exactly_what_it_saw(players, seed):
    state = new_game("usa", players, seed)
    rng = random.Random(seed)
    step = 0
    while not state.is_over:
        if step % 23 == 0 and state.phase in ("turn", "second_draw", "keep_tickets"):
            for seat in range(players):
                seen = state.observation(seat)
                sampled = state.resample(seat, rng)
                assert sampled.observation(seat) == seen
                check_conservation(sampled)
                # The sample is a real state: it plays on to the end.
                if seat == state.to_move and step % 69 == 0:
                    while not sampled.is_over:
                        sampled.apply(rng.choice(sampled.legal_actions()))
                    assert len(sampled.result().scores) == players
        state.apply(rng.choice(state.legal_actions()))
        step += 1


def test_a_bot_samples_from_its_observation_alone():
    """``Variant.sample`` needs nothing but the observation."""
    state = new_game("usa", 3, 8)
    rng = random.Random(8)
    for _ in range(30):
        state.apply(rng.choice(state.legal_actions()))
    seen = state.observation(state.to_move)
    sampled = USA.sample(seen, random.Random(1))
    assert sampled.observation(seen.seat) == seen
    assert sampled.seed is None, "a sample is not the game of any seed"


def test_samples_differ_in_what_is_hidden_only():
    state = new_game("usa", 4, 3)
    rng = random.Random(0)
    for _ in range(40):
        state.apply(rng.choice(state.legal_actions()))
    seat = state.to_move
    samples = [state.resample(seat, random.Random(i)) for i in range(5)]
    other = (seat + 1) % 4
    assert len({tuple(s.hand(other)) for s in samples}) > 1, "other hands are sampled"
    assert all(list(s.hand(seat)) == list(state.hand(seat)) for s in samples)
    decks = {tuple(position(s)["deck"]) for s in samples}
    assert len(decks) > 1, "so is the order of the deck"


@pytest.mark.parametrize("name", ["usa", "europe"])
@pytest.mark.parametrize("players", [2, 4])
def test_the_setup_is_sampled_for_the_seat_choosing(name, players):
    """The seats that chose before it kept some of an offer like its own; the others are
    offered as many tickets and choose after it."""
    for seed in range(20):
        state = new_game(name, players, seed)
        rng = random.Random(seed)
        for _ in range(seed % players):  # some seats have chosen already
            state.apply(rng.choice(state.legal_actions()))
        seat = state.to_move
        seen = state.observation(seat)
        sampled = state.resample(seat, rng)
        assert sampled.observation(seat) == seen
        assert list(sampled.offered_tickets(seat)) == list(state.offered_tickets(seat))
        offer = len(seen.offered_tickets)
        waiting = [p for p in range(players) if len(sampled.offered_tickets(p))]
        assert all(len(sampled.offered_tickets(p)) == offer for p in waiting)
        assert len(waiting) == players - seed % players
        check_conservation(sampled)
        chooser_next = [seat]
        while sampled.phase == "setup_tickets":
            sampled.apply(rng.choice(sampled.legal_actions()))
            chooser_next.append(sampled.to_move)
        assert len(chooser_next) == len(waiting) + 1, "every seat still to choose chose once"
        while not sampled.is_over:
            sampled.apply(rng.choice(sampled.legal_actions()))


def test_a_waiting_seat_cannot_sample_the_setup():
    state = new_game("usa", 2, 1)
    waiting = 1 - state.to_move
    with pytest.raises(ValueError, match="setup"):
        state.resample(waiting, random.Random(0))


def test_a_finished_game_cannot_be_sampled():
    state = new_game("newyork", 2, 1)
    rng = random.Random(1)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    with pytest.raises(ValueError, match="over"):
        state.resample(0, rng)


def test_a_ticket_belief_weights_the_other_seats_tickets():
    """Weights change how likely each deal is, never what the seat sees."""
    state = new_game("usa", 3, 4)
    rng = random.Random(4)
    while state.phase != "turn" or state.turn < 30:
        state.apply(rng.choice(state.legal_actions()))
    seat = state.to_move
    seen = state.observation(seat)
    other = (seat + 1) % 3
    favourite = position(state)["ticket_deck"][0] - 1  # a ticket no seat holds

    def belief(p, ticket):
        return 1000.0 if (p, ticket) == (other, favourite) else 1.0

    held = {False: 0, True: 0}
    for i in range(200):
        weighted = i % 2 == 0
        sampled = state.resample(seat, random.Random(i), belief if weighted else None)
        assert sampled.observation(seat) == seen
        check_conservation(sampled)
        held[weighted] += favourite in sampled.held_tickets(other)
    assert held[True] >= 90 and held[False] <= 30
