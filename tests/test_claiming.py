"""Claiming routes: payment, trains, double routes by player count, points, discards."""

import pytest

from arena.engine import ClaimRoute, IllegalActionError
from tests.helpers import (
    claim_for,
    owner,
    position,
    set_hand,
    spend_trains,
    started,
    total_cards,
)

WILD = 8
# USA route ids (see arena/variants/data/usa.json).
ATLANTA_CHARLESTON = 1  # 2 gray
ATLANTA_MIAMI = 2  # 5 blue
ATLANTA_NASHVILLE = 3  # 1 gray
BOSTON_NY_RED, BOSTON_NY_YELLOW = 10, 11  # 2 red / 2 yellow, a double route
CALGARY_WINNIPEG = 15  # 6 white


def claims(state):
    return [a for a in state.legal_actions() if isinstance(a, ClaimRoute)]


def test_claim_with_the_routes_colour_pays_cards_and_places_trains():
    state = started()
    seat = state.to_move
    state = set_hand(state, seat, blue=5)
    discards = sum(position(state)["discards"].values())
    state.apply(f"claim {ATLANTA_MIAMI} blue")
    assert owner(state, ATLANTA_MIAMI) == seat
    assert state.trains[seat] == 40
    assert state.route_points[seat] == 10
    assert sum(state.hand(seat)) == 0
    after = position(state)["discards"]
    assert sum(after.values()) == discards + 5, "spent cards go to the discards"
    assert state.to_move == (seat + 1) % 4, "one route per turn ends the turn"
    assert total_cards(state) == 110


def test_locomotives_stand_in_for_any_card():
    state = started()
    seat = state.to_move
    state = set_hand(state, seat, blue=2, wild=3)
    state.apply(f"claim {ATLANTA_MIAMI} blue w3")
    assert list(state.hand(seat)) == [0] * 9


def test_all_locomotive_payment():
    state = started()
    seat = state.to_move
    state = set_hand(state, seat, wild=2)
    assert ClaimRoute(ATLANTA_CHARLESTON, None, 2) in claims(state)
    state.apply(f"claim {ATLANTA_CHARLESTON} w2")
    assert owner(state, ATLANTA_CHARLESTON) == seat


def test_gray_route_takes_any_single_colour_but_not_a_mix():
    state = started()
    seat = state.to_move
    state = set_hand(state, seat, red=1, green=1)
    assert ClaimRoute(ATLANTA_CHARLESTON, "red", 0) not in claims(state)
    with pytest.raises(IllegalActionError) as error:
        state.apply(f"claim {ATLANTA_CHARLESTON} red")
    assert error.value.rule == "claim.cards"
    state = set_hand(state, seat, green=2)
    state.apply(f"claim {ATLANTA_CHARLESTON} green")


def test_each_way_of_paying_is_listed_exactly_once():
    state = started()
    state = set_hand(state, state.to_move, red=2, blue=1, wild=1)
    options = {str(a) for a in claims(state) if a.route == ATLANTA_CHARLESTON}
    assert options == {
        f"claim {ATLANTA_CHARLESTON} red",
        f"claim {ATLANTA_CHARLESTON} red w1",
        f"claim {ATLANTA_CHARLESTON} blue w1",
    }
    all_claims = claims(state)
    assert len(all_claims) == len(set(all_claims))


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        (f"claim {ATLANTA_MIAMI} red", "claim.colour"),  # a blue route
        (f"claim {ATLANTA_MIAMI} purple", "claim.colour"),
        (f"claim {ATLANTA_MIAMI} blue", "claim.cards"),  # only 4 blue
        (f"claim {ATLANTA_MIAMI} blue w2", "claim.cards"),  # no locomotives
        (f"claim {ATLANTA_MIAMI} w5", "claim.cards"),
        (f"claim {ATLANTA_MIAMI} w3", "claim.payment"),  # all-wild must pay the full length
        (f"claim {ATLANTA_CHARLESTON} blue w2", "claim.payment"),  # that is 'claim 1 w2'
        ("claim 101", None),
        ("claim 101 blue", "claim.route"),
        ("claim 0 blue", "claim.route"),
    ],
)
def test_wrong_payments_name_the_rule(text, rule):
    state = started()
    state = set_hand(state, state.to_move, blue=4)
    before = state.fingerprint()
    if rule is None:
        with pytest.raises(ValueError):
            state.apply(text)
    else:
        with pytest.raises(IllegalActionError) as error:
            state.apply(text)
        assert error.value.rule == rule
        assert str(error.value).startswith(f"illegal action '{text}'")
    assert state.fingerprint() == before, "a refused action changes nothing"


def test_not_enough_trains():
    state = started()
    seat = state.to_move
    state = set_hand(state, seat, white=6)
    state = spend_trains(state, seat, 40, avoid=(CALGARY_WINNIPEG,))
    assert state.trains[seat] == 5
    assert not [a for a in claims(state) if a.route == CALGARY_WINNIPEG]
    with pytest.raises(IllegalActionError) as error:
        state.apply(f"claim {CALGARY_WINNIPEG} white")
    assert error.value.rule == "claim.trains"


def test_a_claimed_route_is_taken():
    state = started()
    state = claim_for(state, (state.to_move + 1) % 4, ATLANTA_MIAMI)
    state = set_hand(state, state.to_move, blue=5)
    with pytest.raises(IllegalActionError) as error:
        state.apply(f"claim {ATLANTA_MIAMI} blue")
    assert error.value.rule == "claim.route-taken"


@pytest.mark.parametrize("players", [4, 5])
def test_with_4_or_5_players_both_tracks_open_but_not_to_one_player(players):
    state = started(players)
    seat = state.to_move
    mine = claim_for(set_hand(state, seat, yellow=2), seat, BOSTON_NY_RED)
    assert not [a for a in claims(mine) if a.route == BOSTON_NY_YELLOW]
    with pytest.raises(IllegalActionError) as error:
        mine.apply(f"claim {BOSTON_NY_YELLOW} yellow")
    assert error.value.rule == "claim.double-own"
    theirs = claim_for(set_hand(state, seat, yellow=2), (seat + 1) % players, BOSTON_NY_RED)
    theirs.apply(f"claim {BOSTON_NY_YELLOW} yellow")
    assert owner(theirs, BOSTON_NY_YELLOW) == seat


@pytest.mark.parametrize("players", [2, 3])
def test_with_2_or_3_players_only_one_track_of_a_double_route(players):
    state = started(players)
    seat = state.to_move
    state = claim_for(state, (seat + 1) % players, BOSTON_NY_RED)
    state = set_hand(state, seat, yellow=2)
    assert not [a for a in claims(state) if a.route == BOSTON_NY_YELLOW]
    with pytest.raises(IllegalActionError) as error:
        state.apply(f"claim {BOSTON_NY_YELLOW} yellow")
    assert error.value.rule == "claim.double-closed"


@pytest.mark.parametrize(("length", "points"), [(1, 1), (2, 2), (3, 4), (4, 7), (5, 10), (6, 15)])
def test_route_points_by_length(length, points):
    state = started()
    seat = state.to_move
    board = state.board
    r = next(r for r in range(board.num_routes) if board.route_length[r] == length)
    colour = board.route_colour[r]
    name = "red" if colour < 0 else state.rules.colours[colour]
    state = set_hand(state, seat, **{name: length})
    state.apply(f"claim {r + 1} {name}")
    assert state.route_points[seat] == points


def test_claim_is_refused_mid_draw():
    state = started()
    state = set_hand(state, state.to_move, red=1)
    state.apply("draw deck")
    with pytest.raises(IllegalActionError) as error:
        state.apply(f"claim {ATLANTA_NASHVILLE} red")
    assert error.value.rule == "turn.phase"
