"""Setup: cards, display, hands, trains, player counts, first player, initial tickets."""

from collections import Counter

import pytest

from arena.engine import IllegalActionError
from arena.variants import get_variant, new_game
from tests.helpers import COLOURS, position, total_cards


def all_cards(state):
    data = position(state)
    counts = Counter(data["deck"])
    counts.update(data["discards"])
    counts.update(name for name in data["display"] if name is not None)
    for hand in data["hands"]:
        counts.update(hand)
    return counts


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_components(players):
    state = new_game("usa", players, seed=3)
    assert total_cards(state) == 110
    counts = all_cards(state)
    assert [counts[c] for c in COLOURS] == [12] * 8
    assert counts["wild"] == 14
    assert len(state.display) == 5 and all(c >= 0 for c in state.display)
    assert all(sum(state.hand(p)) == 4 for p in range(players))
    assert list(state.trains) == [45] * players
    assert all(len(state.offered_tickets(p)) == 3 for p in range(players))
    assert state.ticket_deck_size == 30 - 3 * players


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
    offered = list(state.offered_tickets(first))
    state.apply("keep 0 2")
    assert list(state.held_tickets(first)) == [offered[0], offered[2]]
    for i in range(1, 4):
        assert state.to_move == (first + i) % 4
        state.apply("keep 0 1 2")
    assert state.phase == "turn" and state.to_move == first
    bottom = position(state)["ticket_deck"][0]
    assert bottom == offered[1] + 1, "a returned ticket goes under the deck"
    assert state.ticket_deck_size == 30 - 12 + 1


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
        assert list(state.display).count(8) < 3
        resets += sum(position(state)["discards"].values()) > 0
    assert resets, "some deal among 400 must have needed a display reset"


def test_card_colours_are_the_eight_of_the_base_game():
    assert get_variant("usa").rules.colours == COLOURS
