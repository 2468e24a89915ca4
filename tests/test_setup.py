"""Setup: cards, display, hands, trains, player counts, first player, initial tickets."""

from collections import Counter

import pytest

from arena.engine import IllegalActionError
from arena.variants import get_variant, new_game
from tests.helpers import COLOURS, total_cards


def all_cards(state):
    counts = Counter(state._deck)
    for c, n in enumerate(state._discards):
        counts[c] += n
    counts.update(c for c in state._display if c >= 0)
    for hand in state._hands:
        for c, n in enumerate(hand):
            counts[c] += n
    return counts


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_components(players):
    state = new_game("usa", players, seed=3)
    assert total_cards(state) == 110
    counts = all_cards(state)
    assert [counts[c] for c in range(8)] == [12] * 8
    assert counts[8] == 14
    assert len(state._display) == 5 and all(c >= 0 for c in state._display)
    assert all(sum(h) == 4 for h in state._hands)
    assert state._trains == [45] * players
    assert all(len(offer) == 3 for offer in state._offers)
    assert len(state._ticket_deck) == 30 - 3 * players


@pytest.mark.parametrize("players", [0, 1, 6])
def test_player_count_outside_2_to_5_is_refused(players):
    with pytest.raises(ValueError, match="2-5 players"):
        new_game("usa", players, seed=1)


def test_first_player_is_fixed_by_the_seed():
    firsts = [new_game("usa", 4, seed).first_player for seed in range(60)]
    assert firsts == [new_game("usa", 4, seed).first_player for seed in range(60)]
    assert set(firsts) == {0, 1, 2, 3}


def test_same_seed_same_deal_different_seed_different_deal():
    assert new_game("usa", 4, 9).fingerprint() == new_game("usa", 4, 9).fingerprint()
    assert new_game("usa", 4, 9).fingerprint() != new_game("usa", 4, 10).fingerprint()


def test_initial_tickets_keep_at_least_two_in_seat_order():
    state = new_game("usa", 4, seed=5)
    first = state.first_player
    assert state.phase == "setup_tickets" and state.to_move == first
    options = [str(a) for a in state.legal_actions()]
    assert options == ["keep 0 1", "keep 0 2", "keep 1 2", "keep 0 1 2"]
    with pytest.raises(IllegalActionError) as error:
        state.apply("keep 1")
    assert error.value.rule == "keep.choice"
    offered = list(state._offers[first])
    state.apply("keep 0 2")
    assert state._tickets[first] == [offered[0], offered[2]]
    for i in range(1, 4):
        assert state.to_move == (first + i) % 4
        state.apply("keep 0 1 2")
    assert state.phase == "turn" and state.to_move == first
    assert state._ticket_deck[0] == offered[1], "a returned ticket goes under the deck"
    assert len(state._ticket_deck) == 30 - 12 + 1


def test_no_seat_learns_another_seats_initial_choice():
    state = new_game("usa", 3, seed=2)
    first = state.first_player
    second = (first + 1) % 3
    before = state.observation(second)
    state.apply("keep 0 1")
    after = state.observation(second)
    assert before["public"] == after["public"], "the first seat's choice must not show"
    assert after["ticket_deck_size"] == before["ticket_deck_size"], "returns wait for all"
    assert after["public"][first]["tickets"] is None
    state.apply("keep 0 1 2")
    state.apply("keep 0 1")
    counts = [p["tickets"] for p in state.observation(second)["public"]]
    assert counts[first] == 2 and counts[second] == 3, "after setup the counts are public"


def test_the_initial_display_never_shows_three_locomotives():
    resets = 0
    for seed in range(400):
        state = new_game("usa", 4, seed)
        assert state._display.count(8) < 3
        resets += sum(state._discards) > 0
    assert resets, "some deal among 400 must have needed a display reset"


def test_card_colours_are_the_eight_of_the_base_game():
    assert get_variant("usa").rules.colours == COLOURS
