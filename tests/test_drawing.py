"""Drawing train cards: two per turn, face-up locomotives, refills, resets, empty decks."""

import pytest

from arena.engine import DrawCard, IllegalActionError
from tests.helpers import (
    card,
    collect_cards,
    set_deck_top,
    set_display,
    set_hand,
    started,
    total_cards,
)

WILD = 8


def test_two_blind_cards_make_a_turn():
    state = started()
    seat = state.to_move
    before = sum(state._hands[seat])
    state.apply("draw deck")
    assert state.to_move == seat and state.phase == "second_draw"
    state.apply("draw deck")
    assert sum(state._hands[seat]) == before + 2
    assert state.to_move == (seat + 1) % 4 and state.phase == "turn"


def test_face_up_locomotive_as_first_card_is_the_whole_draw():
    state = started()
    seat = state.to_move
    set_display(state, ["wild", "red", "blue", "green", "pink"])
    set_deck_top(state, ["black"])
    wilds = state._hands[seat][WILD]
    state.apply("draw 0")
    assert state._hands[seat][WILD] == wilds + 1
    assert state.to_move == (seat + 1) % 4, "the turn is over"
    assert state._display[0] == card("black"), "the taken card is replaced at once"


def test_face_up_locomotive_may_not_be_the_second_card():
    state = started()
    set_display(state, ["red", "wild", "blue", "green", "pink"])
    set_deck_top(state, ["black"])
    state.apply("draw 0")
    assert DrawCard(1) not in state.legal_actions()
    assert DrawCard(2) in state.legal_actions() and DrawCard(None) in state.legal_actions()
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw 1")
    assert error.value.rule == "draw.second-wild"


def test_locomotive_drawn_blind_counts_as_one_card():
    state = started()
    seat = state.to_move
    set_deck_top(state, ["wild", "red"])
    state.apply("draw deck")
    assert state._hands[seat][WILD] >= 1
    assert state.phase == "second_draw" and state.to_move == seat
    state.apply("draw deck")
    assert state.to_move != seat


def test_three_face_up_locomotives_after_a_refill_reset_the_display():
    state = started()
    set_display(state, ["wild", "wild", "red", "blue", "green"])
    # The red card is replaced by a locomotive: three are showing, so all five go.
    set_deck_top(state, ["wild", "pink", "pink", "white", "black", "orange"])
    discards_before = sum(state._discards)
    state.apply("draw 2")
    assert sum(state._discards) == discards_before + 5
    assert state._discards[WILD] == 3
    assert [state._display[i] for i in range(5)] == [
        card(n) for n in ["pink", "pink", "white", "black", "orange"]
    ]
    assert total_cards(state) == 110


def test_a_reset_that_shows_three_locomotives_again_is_repeated():
    state = started()
    set_display(state, ["wild", "wild", "red", "blue", "green"])
    set_deck_top(
        state,
        [
            "wild",  # the refill of slot 2: three locomotives
            *["wild", "wild", "wild", "pink", "pink"],  # first new display: three again
            *["white", "black", "orange", "yellow", "red"],  # second new display
        ],
    )
    state.apply("draw 2")
    assert sum(state._discards) == 10
    assert state._display.count(WILD) == 0
    assert total_cards(state) == 110


def test_no_reset_when_no_legal_display_can_be_made():
    """Nearly every coloured card is in hands: a reset could only show locomotives again."""
    state = started(players=2)
    collect_cards(state)
    set_hand(state, 0, pink=12, white=12, blue=12, yellow=12, orange=12, black=12)
    set_hand(state, 1, red=12, green=10)
    # Left: 14 locomotives and 2 green cards.
    assert sorted(set(state._deck)) == [card("green"), WILD]
    state._deck.sort(key=lambda c: c == WILD)  # locomotives on top
    state._refill_display()
    assert state._display.count(WILD) == 5, "no legal display exists, so it stays"
    assert total_cards(state) == 110
    state.apply("draw deck")  # still playable, and no endless reshuffling
    assert total_cards(state) == 110


def test_empty_deck_is_rebuilt_from_the_shuffled_discards():
    state = started()
    seat = state.to_move
    for c in state._deck:
        state._discards[c] += 1
    state._deck.clear()
    assert DrawCard(None) in state.legal_actions()
    in_discards = sum(state._discards)
    state.apply("draw deck")
    assert sum(state._discards) == 0
    assert len(state._deck) == in_discards - 1
    assert state.to_move == seat
    assert total_cards(state) == 110


def test_when_no_card_is_left_drawing_is_not_legal():
    state = started()
    collect_cards(state)  # the player to move holds nothing, so cannot claim either
    other = state._hands[(state.to_move + 1) % 4]
    for c in state._deck:
        other[c] += 1
    state._deck.clear()
    assert total_cards(state) == 110
    legal = [str(a) for a in state.legal_actions()]
    assert not any(a.startswith("draw") for a in legal)
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw deck")
    assert error.value.rule == "draw.empty-deck"
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw 0")
    assert error.value.rule == "draw.empty-slot"


def test_turn_ends_after_one_card_when_no_second_card_can_be_drawn():
    state = started()
    seat = state.to_move
    # Only one face-up card left anywhere.
    for c in state._deck:
        state._hands[(seat + 1) % 4][c] += 1
    state._deck.clear()
    for slot in range(1, 5):
        state._hands[(seat + 1) % 4][state._display[slot]] += 1
        state._display[slot] = -1
    state.apply("draw 0")
    assert state.to_move == (seat + 1) % 4


def test_empty_slots_refill_when_cards_reach_the_discards():
    """The display is refilled once claimed cards make the deck drawable again."""
    state = started()
    seat = state.to_move
    set_hand(state, seat, red=2)
    others = (seat + 1) % 4
    for c in state._deck:
        state._hands[others][c] += 1
    state._deck.clear()
    state._hands[others][state._display[4]] += 1
    state._display[4] = -1
    route = next(
        a for a in state.legal_actions() if str(a).startswith("claim") and str(a).endswith("red")
    )
    state.apply(route)
    assert -1 not in state._display[:4]
    assert state._display[4] >= 0, "the empty slot took a card from the rebuilt deck"
    assert total_cards(state) == 110


def test_bad_slot_numbers_are_refused():
    state = started()
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw 7")
    assert error.value.rule == "draw.slot"
