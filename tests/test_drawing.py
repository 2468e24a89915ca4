"""Drawing train cards: two per turn, face-up locomotives, refills, resets, empty decks."""

import pytest

from arena.engine import DrawCard, IllegalActionError
from tests.helpers import (
    COLOURS,
    collect,
    edit,
    position,
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
    before = sum(state.hand(seat))
    state.apply("draw deck")
    assert state.to_move == seat and state.phase == "second_draw"
    state.apply("draw deck")
    assert sum(state.hand(seat)) == before + 2
    assert state.to_move == (seat + 1) % 4 and state.phase == "turn"


def test_face_up_locomotive_as_first_card_is_the_whole_draw():
    state = started()
    seat = state.to_move
    state = set_display(state, ["wild", "red", "blue", "green", "pink"])
    state = set_deck_top(state, ["black"])
    wilds = state.hand(seat)[WILD]
    state.apply("draw 0")
    assert state.hand(seat)[WILD] == wilds + 1
    assert state.to_move == (seat + 1) % 4, "the turn is over"
    assert position(state)["display"][0] == "black", "the taken card is replaced at once"


def test_face_up_locomotive_may_not_be_the_second_card():
    state = started()
    state = set_display(state, ["red", "wild", "blue", "green", "pink"])
    state = set_deck_top(state, ["black"])
    state.apply("draw 0")
    assert DrawCard(1) not in state.legal_actions()
    assert DrawCard(2) in state.legal_actions() and DrawCard(None) in state.legal_actions()
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw 1")
    assert error.value.rule == "draw.second-wild"


def test_locomotive_drawn_blind_counts_as_one_card():
    state = started()
    seat = state.to_move
    state = set_deck_top(state, ["wild", "red"])
    state.apply("draw deck")
    assert state.hand(seat)[WILD] >= 1
    assert state.phase == "second_draw" and state.to_move == seat
    state.apply("draw deck")
    assert state.to_move != seat


def test_three_face_up_locomotives_after_a_refill_reset_the_display():
    state = started()
    state = set_display(state, ["wild", "wild", "red", "blue", "green"])
    # The red card is replaced by a locomotive: three are showing, so all five go.
    state = set_deck_top(state, ["wild", "pink", "pink", "white", "black", "orange"])
    discards_before = sum(position(state)["discards"].values())
    state.apply("draw 2")
    after = position(state)
    assert sum(after["discards"].values()) == discards_before + 5
    assert after["discards"]["wild"] == 3
    assert after["display"] == ["pink", "pink", "white", "black", "orange"]
    assert total_cards(state) == 110


def test_a_reset_that_shows_three_locomotives_again_is_repeated():
    state = started()
    state = set_display(state, ["wild", "wild", "red", "blue", "green"])
    state = set_deck_top(
        state,
        [
            "wild",  # the refill of slot 2: three locomotives
            *["wild", "wild", "wild", "pink", "pink"],  # first new display: three again
            *["white", "black", "orange", "yellow", "red"],  # second new display
        ],
    )
    state.apply("draw 2")
    after = position(state)
    assert sum(after["discards"].values()) == 10
    assert "wild" not in after["display"]
    assert total_cards(state) == 110


def test_no_reset_when_no_legal_display_can_be_made():
    """Nearly every coloured card is in hands: a reset could only show locomotives again."""
    state = started(players=2)

    def change(data):
        collect(data)
        data["hands"][0] |= dict.fromkeys(COLOURS[:6], 12)
        data["hands"][1] |= {"red": 12, "green": 10}
        data["hands"][0]["wild"] = data["hands"][1]["wild"] = 0
        # Left: 14 locomotives and 2 green cards; the locomotives on top.
        data["deck"] = ["green"] + ["wild"] * 10
        data["display"] = ["green"] + ["wild"] * 4

    state = edit(state, change)
    seat = state.to_move
    state.apply("draw 0")  # the green card: the refill shows five locomotives
    assert position(state)["display"] == ["wild"] * 5, "no legal display exists, so it stays"
    assert total_cards(state) == 110
    state.apply("draw deck")  # still playable, and no endless reshuffling
    assert state.to_move != seat and total_cards(state) == 110


def test_a_reset_stops_once_deck_and_discards_only_swap_places():
    """After the refill, the deck holds five cards, three of them locomotives, like the
    display: each reset shows the other five again. The resets stop once as many cards as
    there were to turn have been turned, and the display stays."""
    state = started(players=2)
    display = ["wild", "wild", "red", "blue", "green"]
    deck = ["red", "blue", "wild", "wild", "wild", "wild"]  # the top is last

    def change(data):
        collect(data)
        rest = data["deck"]
        for name in display + deck:
            rest.remove(name)
        data["hands"][0] = {name: rest.count(name) for name in data["hands"][0]}
        data["deck"], data["display"] = deck, display

    state = edit(state, change)
    state.apply("draw 4")  # the green card; a locomotive replaces it: three are showing
    data = position(state)
    assert data["display"].count("wild") == 3, "the display stays"
    assert len(data["deck"]) + sum(data["discards"].values()) == 5
    assert total_cards(state) == 110


def test_when_the_deck_runs_out_the_discards_become_the_deck_at_once():
    """Cards discarded after the deck ran out wait in the discards for the next rebuild."""
    state = started(players=2)
    seat = state.to_move

    def change(data):
        collect(data)
        deck = data["deck"]
        data["deck"] = ["pink", "white"]  # the next two cards
        deck.remove("pink")
        deck.remove("white")
        for name in ("red", "red", "blue"):
            deck.remove(name)
        data["hands"][seat] = dict.fromkeys(data["hands"][seat], 0) | {"red": 2, "blue": 1}
        display = data["display"] = [deck.pop() for _ in range(5)]
        assert None not in display
        data["discards"] = {name: deck.count(name) for name in data["discards"]}
        data["hands"][1 - seat] = dict.fromkeys(data["hands"][1 - seat], 0)

    state = edit(state, change)
    discarded = sum(position(state)["discards"].values())
    state.apply("draw deck")
    state.apply("draw deck")  # the deck's last card: the discards are shuffled in at once
    data = position(state)
    assert len(data["deck"]) == discarded and sum(data["discards"].values()) == 0
    state.apply("draw deck")
    state.apply("draw deck")
    atlanta_charleston = 1  # 2 gray
    state.apply(f"claim {atlanta_charleston} red")  # two red cards to the discards
    data = position(state)
    assert data["discards"]["red"] == 2, "spent after the rebuild: they wait in the discards"
    assert len(data["deck"]) == discarded - 2
    assert total_cards(state) == 110


def test_empty_deck_is_rebuilt_from_the_shuffled_discards():
    state = started()
    seat = state.to_move

    def change(data):
        for name in data["deck"]:
            data["discards"][name] += 1
        data["deck"] = []

    state = edit(state, change)
    assert DrawCard(None) in state.legal_actions()
    in_discards = sum(position(state)["discards"].values())
    state.apply("draw deck")
    data = position(state)
    assert sum(data["discards"].values()) == 0
    assert len(data["deck"]) == in_discards - 1
    assert state.to_move == seat
    assert total_cards(state) == 110


def no_deck_and_no_discards(state, tickets=True, **held):
    """The position with five cards face up (no wild: no reset), the player to move holding
    ``held`` and nothing else, every other train card in the next seat's hand: no deck, no
    discards. Without ``tickets`` the ticket deck is empty too (its tickets held by that
    seat, or out of the game where the edition has such a pile)."""

    def change(data):
        collect(data)
        deck = data["deck"]
        data["display"] = [name for name in deck if name != "wild"][:5]
        for name in [*data["display"], *(n for n, count in held.items() for _ in range(count))]:
            deck.remove(name)
        data["hands"][data["to_move"]].update(held)
        other = data["hands"][(data["to_move"] + 1) % data["players"]]
        for name in deck:
            other[name] += 1
        data["deck"] = []
        if not tickets:
            pile = data["out"] if "out" in data else data["tickets"][data["to_move"] - 1]
            pile += data["ticket_deck"]
            data["ticket_deck"] = []

    return edit(state, change)


BASE_DRAW = ["usa", "europe", "newyork"]  # the editions drawing by the base game's rules


@pytest.mark.parametrize("variant", BASE_DRAW)
def test_with_no_deck_and_no_discards_no_card_may_be_drawn_not_even_face_up(variant):
    """The rulebook: with no card left in the deck and no discards to shuffle, a player
    cannot draw Train cards and must claim a route or draw tickets; cards face up change
    nothing. With neither possible, the player passes."""
    state = no_deck_and_no_discards(started(variant=variant), red=3)
    assert total_cards(state) == total_cards(started(variant=variant))
    assert None not in position(state)["display"]
    legal = [str(a) for a in state.legal_actions()]
    assert not [a for a in legal if a.startswith("draw")], legal
    assert "tickets" in legal and any(a.startswith("claim") for a in legal), legal
    for refused in ("draw deck", "draw 0", "draw 4"):
        with pytest.raises(IllegalActionError) as error:
            state.apply(refused)
        assert error.value.rule == "draw.empty-deck"
    assert [str(a) for a in no_deck_and_no_discards(state).legal_actions()] == ["tickets"]
    stuck = no_deck_and_no_discards(state, tickets=False)
    assert [str(a) for a in stuck.legal_actions()] == ["pass"]


@pytest.mark.parametrize("variant", BASE_DRAW)
def test_a_first_card_that_empties_deck_and_discards_is_the_whole_draw(variant):
    """The deck's last card drawn, with no discards to shuffle: no second card may be
    drawn (the face-up cards neither), so the turn is over."""

    def one_card_left(data):
        holder = data["hands"][(data["to_move"] + 1) % data["players"]]
        holder["red"] -= 1
        data["deck"].append("red")

    state = edit(no_deck_and_no_discards(started(variant=variant)), one_card_left)
    seat = state.to_move
    assert "draw 0" in [str(a) for a in state.legal_actions()]
    state.apply("draw deck")
    assert state.to_move != seat and state.phase == "turn", "the turn is over"
    assert state.hand(seat)[state.rules.colours.index("red")] == 1


def test_empty_slots_refill_when_cards_reach_the_discards():
    """The display is refilled once claimed cards make the deck drawable again."""
    state = started()
    seat = state.to_move
    others = (seat + 1) % 4
    state = set_hand(state, seat, red=2)

    def change(data):
        hand = data["hands"][others]
        for name in data["deck"]:
            hand[name] += 1
        data["deck"] = []
        hand[data["display"][4]] += 1
        data["display"][4] = None

    state = edit(state, change)
    route = next(
        a for a in state.legal_actions() if str(a).startswith("claim") and str(a).endswith("red")
    )
    state.apply(route)
    display = position(state)["display"]
    assert None not in display[:4]
    assert display[4] is not None, "the empty slot took a card from the rebuilt deck"
    assert total_cards(state) == 110


def test_bad_slot_numbers_are_refused():
    state = started()
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw 7")
    assert error.value.rule == "draw.slot"
