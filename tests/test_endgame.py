"""The end: the last round after 2 or fewer trains, and the no-legal-action rule."""

import pytest

from arena.engine import IllegalActionError, Pass
from tests.helpers import collect_cards, set_hand, started


def play_draws(state):
    state.apply("draw deck")
    if state.phase == "second_draw":
        state.apply("draw deck")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_last_round_gives_every_player_one_more_turn(players):
    state = started(players)
    trigger = state.to_move
    state._trains[trigger] = 3
    set_hand(state, trigger, red=1)
    state.apply("claim 3 red")  # Atlanta-Nashville, length 1: 2 trains left
    assert state.observation(0)["last_round"]
    order = []
    while not state.is_over:
        order.append(state.to_move)
        play_draws(state)
    expected = [(trigger + i) % players for i in range(1, players + 1)]
    assert order == expected, "each player, the trigger included, plays exactly one more turn"


def test_three_trains_left_does_not_trigger_the_last_round():
    state = started()
    seat = state.to_move
    state._trains[seat] = 4
    set_hand(state, seat, red=1)
    state.apply("claim 3 red")
    assert state._trains[seat] == 3
    assert not state.observation(seat)["last_round"]


def test_a_player_with_no_legal_action_passes_and_the_game_ends_when_all_pass():
    state = started(players=3)
    collect_cards(state)
    state._deck.clear()  # the cards are out of the game for this test
    state._ticket_deck.clear()
    assert state.legal_actions() == [Pass()]
    turn = state.turn
    for _ in range(3):
        assert not state.is_over
        state.apply("pass")
    assert state.is_over and state.turn == turn + 3
    assert state.result().scores


def test_pass_is_refused_while_another_action_is_legal():
    state = started()
    with pytest.raises(IllegalActionError) as error:
        state.apply("pass")
    assert error.value.rule == "pass.not-allowed"


def test_a_pass_streak_is_broken_by_a_real_move():
    state = started(players=2)
    collect_cards(state)
    state._ticket_deck.clear()
    seat = state.to_move
    keep = list(state._deck)
    state._deck.clear()
    state.apply("pass")
    state._deck.extend(keep)  # cards become available again to the other player
    play_draws(state)
    assert not state.is_over
    state._deck.clear()
    state._hands[seat] = [0] * 9
    state._hands[1 - seat] = [0] * 9
    state.apply("pass")
    state.apply("pass")
    assert state.is_over


def test_actions_after_the_end_are_refused():
    state = started(players=2)
    collect_cards(state)
    state._deck.clear()
    state._ticket_deck.clear()
    state.apply("pass")
    state.apply("pass")
    assert state.legal_actions() == [] and state.to_move is None
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw deck")
    assert error.value.rule == "game.over"


def test_result_before_the_end_is_an_error():
    with pytest.raises(RuntimeError):
        started().result()
