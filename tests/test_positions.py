"""Positions: the documented JSON of a whole state, read back exactly, and every malformed or
impossible position refused with a message that names the field (docs/NOTATION.md).

The round trip over every reachable state of every variant is a property test in
tests/test_properties.py; here are the format and the hostile inputs."""

from __future__ import annotations

import random

import pytest

from arena.engine import PositionError
from arena.variants import get_variant, new_game
from tests.helpers import position, started

USA = get_variant("usa")


def test_a_position_is_the_documented_json():
    state = started(3, 7)
    data = position(state)
    assert list(data) == [
        "variant",
        "players",
        "seed",
        "rng",
        "first_player",
        "turn",
        "phase",
        "to_move",
        "passes",
        "turns_left",
        "deck",
        "discards",
        "display",
        "hands",
        "ticket_deck",
        "tickets",
        "offers",
        "setup_returns",
        "routes",
    ]
    assert (data["variant"], data["players"], data["seed"], data["phase"]) == ("usa", 3, 7, "turn")
    assert all(isinstance(card, str) for card in data["deck"])
    assert set(data["hands"][0]) == {*USA.rules.colours, "wild"}
    assert USA.from_position(state.to_position()).fingerprint() == state.fingerprint()
    assert USA.from_position(state.to_position().encode()).fingerprint() == state.fingerprint()


def test_the_shuffles_travel_with_the_position():
    """Two states read from one position go on identically, reshuffles included."""
    state = started(2, 4)
    text = state.to_position()
    twins = [USA.from_position(text) for _ in range(2)]
    rng = random.Random(0)
    while not twins[0].is_over:
        action = rng.choice(twins[0].legal_actions())
        for twin in twins:
            twin.apply(action)
    assert twins[0].fingerprint() == twins[1].fingerprint()


def bad(change):
    """A valid position, changed by ``change``, as JSON text."""
    import msgspec

    data = position(started(2, 3))
    change(data)
    return msgspec.json.encode(data)


def take_card(data):
    data["deck"].pop()


def duplicate_ticket(data):
    data["tickets"][0].append(data["ticket_deck"][0])


def offer_in_turn(data):
    data["offers"][0].append(data["ticket_deck"].pop())


def return_in_turn(data):
    data["setup_returns"].append(data["ticket_deck"].pop())


def in_setup(change):
    """A new game's position (seats still choosing), changed by ``change``, as JSON text."""
    import msgspec

    data = position(new_game("usa", 2, 3))
    change(data)
    return msgspec.json.encode(data)


def own_twice(data):
    data["routes"][0].append(5)
    data["routes"][1].append(5)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (b"", "not a position of 'usa'"),
        (b"[1, 2]", "not a position"),
        (b'{"variant": "usa"}', "missing required field"),
        (bad(lambda d: d.update(players="two")), "Expected `int`"),
        (bad(lambda d: d.update(colour="red")), "unknown field"),
        (bad(lambda d: d.update(variant="europe")), "of variant 'europe', not 'usa'"),
        (bad(lambda d: d.update(players=7)), "players: 'usa' is for 2-5 players, not 7"),
        (bad(lambda d: d.update(players=3)), "one entry per seat (3)"),
        (bad(lambda d: d.update(phase="lunch")), "phase: 'lunch' is not one of"),
        (bad(lambda d: d.update(to_move=4)), "to_move: no seat 4"),
        (bad(lambda d: d.update(turn=-1)), "turn: -1 is negative"),
        (bad(lambda d: d.update(rng=[3, [1, 2], None])), "rng: not a generator state"),
        (bad(lambda d: d["deck"].append("purple")), "deck: 'purple' is not a card"),
        (bad(lambda d: d["discards"].pop("red")), "discards: a count for each of"),
        (bad(lambda d: d.update(display=d["display"][:4])), "display: 5 face-up slots"),
        (bad(take_card), "train cards do not add up"),
        (bad(lambda d: d["routes"][0].append(101)), "routes[0]: no route 101"),
        (bad(own_twice), "route 5 is claimed twice"),
        (bad(lambda d: d["routes"][0].extend([10, 11])), "both tracks of route"),
        (bad(lambda d: d["tickets"][0].append(99)), "tickets[0]: no ticket 99"),
        (bad(duplicate_ticket), "tickets do not add up"),
        (bad(lambda d: d["routes"][0].extend(range(36, 48))), "more pieces than the player has"),
        # Counters and pending choices that play cannot reach from the phase.
        (bad(offer_in_turn), "offers[0]: only the seat choosing drawn tickets"),
        (bad(lambda d: d.update(phase="setup_tickets")), "has not chosen its tickets yet"),
        (bad(return_in_turn), "setup_returns: only while seats choose"),
        (bad(lambda d: d.update(passes=2)), "passes: 2 in a row end a 2-player game"),
        (bad(lambda d: d.update(turns_left=0)), "turns_left: 1 to 2 while the game goes on"),
        (bad(lambda d: d.update(turns_left=3)), "turns_left: 1 to 2 while the game goes on"),
        (in_setup(lambda d: d.update(phase="turn")), "offers[0]: only the seat choosing"),
        (in_setup(lambda d: d.update(turn=4)), "phase 'setup_tickets': turn and passes 0"),
        (in_setup(lambda d: d.update(turns_left=1)), "phase 'setup_tickets': turn and passes 0"),
    ],
)
def test_a_bad_position_is_refused_saying_what_is_wrong(text, says):
    with pytest.raises(PositionError) as error:
        USA.from_position(text)
    assert says in str(error.value)


def test_edition_fields_are_checked_too():
    import msgspec

    europe = get_variant("europe")
    data = position(started(2, 1, "europe"))
    data["stations"][0] = ["wien", "wien"]
    with pytest.raises(PositionError, match="two stations in wien"):
        europe.from_position(msgspec.json.encode(data))
    data = position(started(2, 1, "europe"))
    data["phase"] = "tunnel"
    with pytest.raises(PositionError, match="a pending tunnel exactly when"):
        europe.from_position(msgspec.json.encode(data))
    data = position(new_game("cardgame", 2, 1))
    data["round"] = 3
    with pytest.raises(PositionError, match="round: 3 is not a round"):
        get_variant("cardgame").from_position(msgspec.json.encode(data))
    data = position(new_game("cardgame", 2, 1))
    data["deck_out"] = True
    with pytest.raises(PositionError, match="deck_out: the deck's last card was drawn"):
        get_variant("cardgame").from_position(msgspec.json.encode(data))


def test_an_unplayable_variant_reads_no_position():
    from arena.engine import VariantUnavailableError

    with pytest.raises(VariantUnavailableError, match="incomplete"):
        get_variant("amsterdam").from_position(b"{}")
