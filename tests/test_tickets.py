"""Drawing destination tickets: 3 (or what is left), keep at least 1, returns go under."""

import pytest

from arena.engine import DrawTickets, IllegalActionError
from tests.helpers import edit, position, started


def test_draw_three_keep_at_least_one():
    state = started()
    seat = state.to_move
    top = position(state)["ticket_deck"][-3:]
    state.apply("tickets")
    assert state.phase == "keep_tickets" and state.to_move == seat
    offered = [t + 1 for t in state.offered_tickets(seat)]
    assert offered == list(reversed(top))
    assert len(state.legal_actions()) == 7
    obs = state.observation(seat)
    assert [t.id for t in obs.offered_tickets] == offered
    held = len(state.held_tickets(seat))
    state.apply("keep 1")
    assert len(state.held_tickets(seat)) == held + 1
    # Returned one after the other under the deck: the last returned is at the very bottom.
    assert position(state)["ticket_deck"][:2] == [offered[2], offered[0]]
    assert state.to_move == (seat + 1) % 4


def test_keep_must_name_offered_tickets():
    state = started()
    state.apply("tickets")
    for text in ("keep 3", "keep 0 1 2 3"):
        with pytest.raises(IllegalActionError) as error:
            state.apply(text)
        assert error.value.rule == "keep.choice"


@pytest.mark.parametrize(("left", "offered", "options"), [(2, 2, 3), (1, 1, 1)])
def test_fewer_tickets_left_than_three(left, offered, options):
    def change(data):
        data["out"] += data["ticket_deck"][:-left]
        del data["ticket_deck"][:-left]

    state = edit(started(variant="europe"), change)  # Europe: tickets can leave the game
    state.apply("tickets")
    assert len(state.offered_tickets(state.to_move)) == offered
    assert len(state.legal_actions()) == options
    state.apply(str(state.legal_actions()[0]))


def test_empty_ticket_deck_means_no_ticket_draw():

    def change(data):
        data["out"] += data["ticket_deck"]
        data["ticket_deck"] = []

    state = edit(started(variant="europe"), change)
    assert DrawTickets() not in state.legal_actions()
    with pytest.raises(IllegalActionError) as error:
        state.apply("tickets")
    assert error.value.rule == "tickets.empty"


def test_a_player_may_hold_any_number_of_tickets():
    state = started(players=2)
    seat = state.to_move
    while state.ticket_deck_size:
        if state.to_move == seat:
            state.apply("tickets")
            state.apply(str(state.legal_actions()[-1]))  # keep all
        else:
            state.apply("draw deck")
            state.apply("draw deck")
    assert len(state.held_tickets(seat)) + len(state.held_tickets(1 - seat)) == 30


def test_keep_outside_a_ticket_choice_is_refused():
    state = started()
    with pytest.raises(IllegalActionError) as error:
        state.apply("keep 0")
    assert error.value.rule == "keep.no-offer"
