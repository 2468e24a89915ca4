"""Ticket to Ride Europe: long tickets, ferries, tunnels, stations, 8-long routes, the
European Express, doubles by player count and tie-breaks; bots through the referee."""

from __future__ import annotations

import json

import pytest

from arena.engine import IllegalActionError
from arena.referee.faults import TimeControl
from arena.referee.launch import BotEntry, ProcessMatch
from arena.referee.matchlog import MatchLog, verify
from arena.variants import europe, get_variant, new_game
from arena.variants.mapdata import load_map
from tests.helpers import card, finish, give, route_id, set_deck_top, total_cards

EU = get_variant("europe")


def started(players=2, seed=1):
    state = new_game("europe", players, seed)
    while state.phase == "setup_tickets":
        state.apply("keep 0 1 2 3")
    return state


def claimed(state, route):
    return state._owner[route - 1]


# -- setup and tickets ----------------------------------------------------------------------


def test_components_and_setup():
    state = new_game("europe", 5, 2)
    assert state._trains == [45] * 5 and state.rules.stations == 3
    assert all(sum(h) == 4 for h in state._hands)
    assert total_cards(state) == 110
    long = state.board.ticket_long
    assert sum(long) == 6 and len(long) == 46
    for offer in state._offers:
        assert len(offer) == 4 and sum(long[t] for t in offer) == 1
    assert len(state.legal_actions()) == 6 + 4 + 1  # keep 2, 3 or 4 of the 4
    assert min(len(a.indices) for a in state.legal_actions()) == 2
    with pytest.raises(ValueError, match="2-5 players"):
        new_game("europe", 6, 1)


def test_unkept_long_tickets_leave_the_game_and_regular_ones_go_under_the_deck():
    state = new_game("europe", 2, 4)
    long = state.board.ticket_long
    returned = []
    for _ in range(2):
        offer = state._offers[state.to_move]
        assert long[offer[0]]  # the long ticket is offered first
        returned.append(offer[3])
        assert state.observation(0)["tickets_out"] is None
        state.apply("keep 1 2")
    assert sorted(state._out) == [t for t in range(46) if long[t]]
    assert sorted(state._ticket_deck[:2]) == sorted(returned)
    assert len(state._ticket_deck) == 40 - 6 + 2
    view = state.observation(0)
    assert view["tickets_out"] == 6 and view["ticket_deck_size"] == 36


def test_drawing_tickets_offers_three_regular_keep_at_least_one():
    state = started()
    state.apply("tickets")
    offer = state._offers[state.to_move]
    assert len(offer) == 3 and not any(state.board.ticket_long[t] for t in offer)
    assert min(len(a.indices) for a in state.legal_actions()) == 1


# -- ferries and tunnels --------------------------------------------------------------------


def test_a_ferry_without_enough_locomotives_is_illegal():
    state = started()
    seat = state.to_move
    ferry = route_id(state, "amsterdam", "london")  # gray 2, two locomotives
    give(state, seat, "red", 2, 1)
    assert not [a for a in state.legal_actions() if getattr(a, "route", 0) == ferry]
    with pytest.raises(IllegalActionError) as error:
        state.apply(f"claim {ferry} red w1")
    assert error.value.rule == "claim.ferry"
    give(state, seat, "red", 3, 2)
    legal = {str(a) for a in state.legal_actions() if getattr(a, "route", 0) == ferry}
    assert legal == {f"claim {ferry} w2"}
    one = route_id(state, "athina", "brindisi")  # gray 4, one locomotive
    give(state, seat, "red", 4, 1)
    legal = {str(a) for a in state.legal_actions() if getattr(a, "route", 0) == one}
    assert legal == {f"claim {one} red w1"}


TUNNEL = ("munchen", "venezia")  # blue 2, a tunnel


def test_a_tunnel_that_turns_no_match_is_claimed_at_once():
    state = started()
    seat = state.to_move
    tunnel = route_id(state, *TUNNEL)
    give(state, seat, "blue", 2)
    set_deck_top(state, ["red", "green", "white"])
    before = list(state._discards)
    state.apply(f"claim {tunnel} blue")
    assert claimed(state, tunnel) == seat and state.phase == "turn" and state.to_move != seat
    for name, more in (("blue", 2), ("red", 1), ("green", 1), ("white", 1)):
        assert state._discards[card(name)] == before[card(name)] + more
    assert total_cards(state) == 110


def test_a_tunnel_asks_one_more_card_per_match_locomotives_included():
    state = started()
    seat = state.to_move
    tunnel = route_id(state, *TUNNEL)
    give(state, seat, "blue", 4, 1)
    set_deck_top(state, ["blue", "wild", "red"])
    state.apply(f"claim {tunnel} blue")
    assert state.phase == "tunnel" and state.to_move == seat and claimed(state, tunnel) == -1
    view = state.observation(1 - seat)
    assert view["tunnel"] == {
        "route": tunnel,
        "colour": "blue",
        "cards": 2,
        "wilds": 0,
        "turned": ["blue", "wild", "red"],
        "extra": 2,
    }
    assert total_cards(state) == 110
    assert [str(a) for a in state.legal_actions()] == ["pay", "pay w1", "withdraw"]
    with pytest.raises(IllegalActionError) as error:
        state.apply("pay w2")
    assert error.value.rule == "tunnel.cards"
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw deck")
    assert error.value.rule == "turn.phase"
    state.apply("pay w1")
    assert claimed(state, tunnel) == seat and state._trains[seat] == 43
    assert state._hands[seat][card("blue")] == 1 and state._hands[seat][card("wild")] == 0
    assert state.observation(seat)["tunnel"] is None and total_cards(state) == 110


def test_a_tunnel_paid_with_locomotives_only_counts_turned_locomotives():
    state = started()
    seat = state.to_move
    tunnel = route_id(state, *TUNNEL)
    give(state, seat, wilds=2)
    set_deck_top(state, ["blue", "blue", "wild"])
    state.apply(f"claim {tunnel} w2")
    assert state._tunnel[5] == 1  # only the locomotive asks for more
    assert [str(a) for a in state.legal_actions()] == ["withdraw"]  # no locomotive left
    give_back = state._discards[card("blue")]
    state.apply("withdraw")
    assert claimed(state, tunnel) == -1 and state._hands[seat][card("wild")] == 2
    assert state._discards[card("blue")] == give_back + 2  # the turned cards are discarded
    assert state.to_move != seat and total_cards(state) == 110


def test_giving_a_tunnel_up_returns_the_cards_and_ends_the_turn():
    state = started()
    seat = state.to_move
    tunnel = route_id(state, *TUNNEL)
    give(state, seat, "blue", 3)
    set_deck_top(state, ["blue", "red", "red"])
    state.apply(f"claim {tunnel} blue")
    assert [str(a) for a in state.legal_actions()] == ["pay", "withdraw"]
    state.apply("withdraw")
    assert state._hands[seat][card("blue")] == 3 and state._trains[seat] == 45
    assert state.phase == "turn" and state.to_move == 1 - seat


# -- stations -------------------------------------------------------------------------------


def test_stations_cost_one_two_three_cards_on_free_cities_only():
    state = started()
    seat = state.to_move
    give(state, seat, "red", 1)
    assert "station wien red" in {str(a) for a in state.legal_actions()}
    state.apply("station wien red")
    other = state.to_move
    give(state, other, "red", 3)
    with pytest.raises(IllegalActionError) as error:
        state.apply("station wien red")
    assert error.value.rule == "station.taken"
    state.apply("draw deck")
    state.apply("draw deck")
    give(state, seat, "red", 1, 1)
    with pytest.raises(IllegalActionError) as error:
        state.apply("station berlin red")
    assert error.value.rule == "station.payment"
    legal = {str(a) for a in state.legal_actions() if str(a).startswith("station berlin")}
    assert legal == {"station berlin red w1"}
    state.apply("station berlin red w1")
    state.apply("draw deck")
    state.apply("draw deck")
    give(state, seat, "green", 3)
    state.apply("station paris green")
    assert state.observation(1 - seat)["public"][seat]["stations"] == ["wien", "berlin", "paris"]
    state.apply("draw deck")
    state.apply("draw deck")
    give(state, seat, "green", 5, 3)
    assert not any(str(a).startswith("station") for a in state.legal_actions())
    with pytest.raises(IllegalActionError) as error:
        state.apply("station roma green")
    assert error.value.rule == "station.none-left"


def test_each_unbuilt_station_is_worth_four_points():
    state = started()
    state._stations[0] = [state.board.city_index["wien"]]
    state._station_at = {state.board.city_index["wien"]: 0}
    result = finish(state)
    assert result.breakdown[0]["stations"] == 8 and result.breakdown[1]["stations"] == 12
    assert "stations" in result.categories


def station_board():
    """The real map with two tickets from Wien to two of its neighbours."""
    data = json.loads(json.dumps(load_map("europe")))
    data["tickets"] = [
        {"a": "budapest", "b": "wien", "points": 5},
        {"a": "munchen", "b": "wien", "points": 9},
        *data["tickets"][2:],
    ]
    return europe.make_variant(data)


def test_a_station_uses_the_opponent_route_worth_most():
    variant = station_board()
    state = variant.new_game(2, 1)
    while state.phase == "setup_tickets":
        state.apply("keep 0 1 2 3")
    board = state.board
    to_budapest = route_id(state, "budapest", "wien") - 1
    to_munchen = route_id(state, "munchen", "wien") - 1
    for r in (to_budapest, to_munchen):
        state._owner[r] = 1
        state._routes[1].append(r)
    wien = board.city_index["wien"]
    state._stations[0], state._station_at = [wien], {wien: 0}
    state._tickets[0][:] = [0, 1]
    held = list(state._tickets[1])
    result = finish_keeping(state, {0: [0, 1], 1: held})
    row = result.breakdown[0]
    assert (row["completed_tickets"], row["tickets_completed"]) == (1, 9)
    assert (row["failed_tickets"], row["tickets_failed"]) == (1, -5)
    # A second station, in Budapest, lends the other route too: both tickets complete.
    state = variant.new_game(2, 1)
    while state.phase == "setup_tickets":
        state.apply("keep 0 1 2 3")
    for r in (to_budapest, to_munchen):
        state._owner[r] = 1
        state._routes[1].append(r)
    budapest = board.city_index["budapest"]
    state._stations[0], state._station_at = [wien, budapest], {wien: 0, budapest: 0}
    result = finish_keeping(state, {0: [0, 1], 1: []})
    assert result.breakdown[0]["tickets_completed"] == 14
    assert result.breakdown[0]["longest_path"] == 0  # borrowed routes never count for it


def finish_keeping(state, tickets):
    """``finish``, with these tickets left in the seats' hands for scoring."""
    for hand in state._hands:
        hand[:] = [0] * len(hand)
    state._deck.clear()
    state._ticket_deck.clear()
    state._display[:] = [-1] * 5
    state._discards[:] = [0] * 9
    for seat, held in tickets.items():
        state._tickets[seat][:] = held
    while not state.is_over:
        state.apply("pass")
    return state.result()


# -- scoring and doubles --------------------------------------------------------------------


def test_an_eight_long_route_scores_21():
    state = started()
    seat = state.to_move
    eight = route_id(state, "petrograd", "stockholm")  # gray 8, a tunnel
    give(state, seat, "red", 8)
    set_deck_top(state, ["green", "green", "green"])
    state.apply(f"claim {eight} red")
    assert state.route_points[seat] == 21 and state._trains[seat] == 37


def test_the_european_express_and_the_tie_breaks():
    assert EU.rules.longest_path_bonus == 10
    assert EU.rules.tie_breaks == ("completed_tickets", "stations_left", "longest_path_bonus")
    state = started()
    longest = route_id(state, "budapest", "kyiv") - 1
    state._owner[longest] = 1
    state._routes[1].append(longest)
    result = finish(state)
    assert result.breakdown[1]["longest_path_bonus"] == 10
    assert result.breakdown[0]["longest_path_bonus"] == 0


@pytest.mark.parametrize(("players", "open_"), [(2, False), (3, False), (4, True), (5, True)])
def test_doubles_use_one_track_with_two_or_three_players(players, open_):
    state = started(players)
    seat = state.to_move
    first = route_id(state, "dieppe", "london") - 1  # a double ferry
    other = state.board.route_sibling[first]
    give(state, seat, wilds=2)
    state.apply(f"claim {first + 1} w2")
    nxt = state.to_move
    give(state, nxt, wilds=2)
    legal = {str(a) for a in state.legal_actions()}
    assert (f"claim {other + 1} w2" in legal) == open_


# -- bots ----------------------------------------------------------------------------------


def test_random_and_heuristic_bots_play_europe_through_the_referee(tmp_path):
    names = ("ticket-by-ticket", "ticket-collector", "greedy-claims", "long-claims", "random")
    entries = [BotEntry.parse(n) for n in names]
    with ProcessMatch(EU, entries, TimeControl(move_ms=3000), log_dir=tmp_path) as referee:
        outcome = referee.play(11)
    assert outcome.faults == []
    assert verify(MatchLog.from_jsonl(outcome.log.to_jsonl())).is_over
    assert "stations" in outcome.result.categories
