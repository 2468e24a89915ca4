"""The end: the last round after 2 or fewer trains, and the no-legal-action rule."""

import pytest

from arena.engine import IllegalActionError, Pass
from tests.helpers import collect, edit, position, set_hand, spend_trains, started


def play_draws(state):
    state.apply("draw deck")
    if state.phase == "second_draw":
        state.apply("draw deck")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_last_round_gives_every_player_one_more_turn(players):
    state = started(players)
    trigger = state.to_move
    state = spend_trains(set_hand(state, trigger, red=1), trigger, 42, avoid=(3,))
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
    state = spend_trains(set_hand(state, seat, red=1), seat, 41, avoid=(3,))
    state.apply("claim 3 red")
    assert state.trains[seat] == 3
    assert not state.observation(seat)["last_round"]


def nothing_to_do(state):
    """Every train card in the hand of the seat before the one to move (nobody else can draw
    or claim), and no ticket left to draw (they leave the game: a Europe pile)."""

    def change(data):
        collect(data)
        hand = data["hands"][(data["to_move"] - 1) % data["players"]]
        for name in data["deck"]:
            hand[name] += 1
        data["deck"] = []
        data["out"] += data["ticket_deck"]
        data["ticket_deck"] = []

    return edit(state, change)


def test_a_player_with_no_legal_action_passes_and_the_game_ends_when_all_pass():
    state = started(players=3, variant="europe")
    turn = state.turn
    for _ in range(3):
        assert not state.is_over
        state = nothing_to_do(state)
        assert state.legal_actions() == [Pass()]
        state.apply("pass")
    assert state.is_over and state.turn == turn + 3
    assert state.result().scores


def test_pass_is_refused_while_another_action_is_legal():
    state = started()
    with pytest.raises(IllegalActionError) as error:
        state.apply("pass")
    assert error.value.rule == "pass.not-allowed"


def test_a_pass_streak_is_broken_by_a_real_move():
    state = nothing_to_do(started(players=2, variant="europe"))
    state.apply("pass")

    def two_cards_back(data):
        holder = next(hand for hand in data["hands"] if sum(hand.values()))
        for name in ("red", "blue"):
            holder[name] -= 1
            data["deck"].append(name)

    state = edit(state, two_cards_back)
    play_draws(state)  # the other seat draws: the streak of passes is broken
    assert not state.is_over and position(state)["passes"] == 0
    for _ in range(2):
        state = nothing_to_do(state)
        state.apply("pass")
    assert state.is_over


def test_actions_after_the_end_are_refused():
    state = started(players=2, variant="europe")
    for _ in range(2):
        state = nothing_to_do(state)
        state.apply("pass")
    assert state.legal_actions() == [] and state.to_move is None
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw deck")
    assert error.value.rule == "game.over"


def test_result_before_the_end_is_an_error():
    with pytest.raises(RuntimeError):
        started().result()
