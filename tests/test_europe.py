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
from tests.helpers import (
    edit,
    finish,
    give,
    hold,
    owner,
    position,
    route_id,
    set_deck_top,
    total_cards,
)

EU = get_variant("europe")


def started(players=2, seed=1):
    state = new_game("europe", players, seed)
    while state.phase == "setup_tickets":
        state.apply("keep 0 1 2 3")
    return state


def claimed(state, route):
    return owner(state, route)


def held(state, seat, name):
    return position(state)["hands"][seat][name]


# -- setup and tickets ----------------------------------------------------------------------


def test_components_and_setup():
    state = new_game("europe", 5, 2)
    assert list(state.trains) == [45] * 5 and state.rules.stations == 3
    assert all(sum(state.hand(p)) == 4 for p in range(5))
    assert total_cards(state) == 110
    long = state.board.ticket_long
    assert sum(long) == 6 and len(long) == 46
    for p in range(5):
        offer = state.offered_tickets(p)
        assert len(offer) == 4 and sum(long[t] for t in offer) == 1
    assert len(state.legal_actions()) == 6 + 4 + 1  # keep 2, 3 or 4 of the 4
    assert min(len(a.indices) for a in state.legal_actions()) == 2
    with pytest.raises(ValueError, match="2-5 players"):
        new_game("europe", 6, 1)


def test_every_ticket_put_away_at_setup_leaves_the_game_long_or_regular():
    state = new_game("europe", 2, 4)
    long = state.board.ticket_long
    returned = []
    for _ in range(2):
        offer = state.offered_tickets(state.to_move)
        assert long[offer[0]]  # the long ticket is offered first
        returned.append(offer[3] + 1)
        assert state.observation(0).tickets_out is None
        state.apply("keep 1 2")
    out = position(state)["out"]
    assert sorted(out) == sorted([t + 1 for t in range(46) if long[t]] + returned)
    assert not set(returned) & set(position(state)["ticket_deck"]), "none goes under the deck"
    assert state.ticket_deck_size == 40 - 6
    view = state.observation(0)
    assert view.tickets_out == 8 and view.ticket_deck_size == 34


def test_tickets_returned_later_go_under_the_deck():
    state = started()
    state.apply("tickets")
    offer = [t + 1 for t in state.offered_tickets(state.to_move)]
    state.apply("keep 0")
    assert position(state)["ticket_deck"][:2] == [offer[2], offer[1]]
    assert state.observation(0).tickets_out == 4, "only the 4 long ones nobody was dealt"


def test_drawing_tickets_offers_three_regular_keep_at_least_one():
    state = started()
    state.apply("tickets")
    offer = state.offered_tickets(state.to_move)
    assert len(offer) == 3 and not any(state.board.ticket_long[t] for t in offer)
    assert min(len(a.indices) for a in state.legal_actions()) == 1


# -- ferries and tunnels --------------------------------------------------------------------


def test_a_ferry_without_enough_locomotives_is_illegal():
    state = started()
    seat = state.to_move
    ferry = route_id(state, "amsterdam", "london")  # gray 2, two locomotives
    state = give(state, seat, "red", 2, 1)
    assert not [a for a in state.legal_actions() if getattr(a, "route", 0) == ferry]
    with pytest.raises(IllegalActionError) as error:
        state.apply(f"claim {ferry} red w1")
    assert error.value.rule == "claim.ferry"
    state = give(state, seat, "red", 3, 2)
    legal = {str(a) for a in state.legal_actions() if getattr(a, "route", 0) == ferry}
    assert legal == {f"claim {ferry} w2"}
    one = route_id(state, "athina", "brindisi")  # gray 4, one locomotive
    state = give(state, seat, "red", 4, 1)
    legal = {str(a) for a in state.legal_actions() if getattr(a, "route", 0) == one}
    assert legal == {f"claim {one} red w1"}


TUNNEL = ("munchen", "venezia")  # blue 2, a tunnel


def test_a_tunnel_that_turns_no_match_is_claimed_at_once():
    state = started()
    seat = state.to_move
    tunnel = route_id(state, *TUNNEL)
    state = set_deck_top(give(state, seat, "blue", 2), ["red", "green", "white"])
    before = position(state)["discards"]
    state.apply(f"claim {tunnel} blue")
    assert claimed(state, tunnel) == seat and state.phase == "turn" and state.to_move != seat
    after = position(state)["discards"]
    for name, more in (("blue", 2), ("red", 1), ("green", 1), ("white", 1)):
        assert after[name] == before[name] + more
    assert total_cards(state) == 110


def test_a_tunnel_asks_one_more_card_per_match_locomotives_included():
    state = started()
    seat = state.to_move
    tunnel = route_id(state, *TUNNEL)
    state = set_deck_top(give(state, seat, "blue", 4, 1), ["blue", "wild", "red"])
    state.apply(f"claim {tunnel} blue")
    assert state.phase == "tunnel" and state.to_move == seat and claimed(state, tunnel) == -1
    view = state.observation(1 - seat)
    assert view.tunnel.to_json() == {
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
    assert claimed(state, tunnel) == seat and state.trains[seat] == 43
    assert held(state, seat, "blue") == 1 and held(state, seat, "wild") == 0
    assert state.observation(seat).tunnel is None and total_cards(state) == 110


def test_a_tunnel_paid_with_locomotives_only_counts_turned_locomotives():
    state = started()
    seat = state.to_move
    tunnel = route_id(state, *TUNNEL)
    state = set_deck_top(give(state, seat, wilds=2), ["blue", "blue", "wild"])
    state.apply(f"claim {tunnel} w2")
    assert position(state)["tunnel"]["extra"] == 1  # only the locomotive asks for more
    assert [str(a) for a in state.legal_actions()] == ["withdraw"]  # no locomotive left
    give_back = position(state)["discards"]["blue"]
    state.apply("withdraw")
    assert claimed(state, tunnel) == -1 and held(state, seat, "wild") == 2
    assert position(state)["discards"]["blue"] == give_back + 2  # the turned cards go
    assert state.to_move != seat and total_cards(state) == 110


def test_giving_a_tunnel_up_returns_the_cards_and_ends_the_turn():
    state = started()
    seat = state.to_move
    tunnel = route_id(state, *TUNNEL)
    state = set_deck_top(give(state, seat, "blue", 3), ["blue", "red", "red"])
    state.apply(f"claim {tunnel} blue")
    assert [str(a) for a in state.legal_actions()] == ["pay", "withdraw"]
    state.apply("withdraw")
    assert held(state, seat, "blue") == 3 and state.trains[seat] == 45
    assert state.phase == "turn" and state.to_move == 1 - seat


# -- stations -------------------------------------------------------------------------------


def test_stations_cost_one_two_three_cards_on_free_cities_only():
    state = started()
    seat = state.to_move
    state = give(state, seat, "red", 1)
    assert "station wien red" in {str(a) for a in state.legal_actions()}
    state.apply("station wien red")
    other = state.to_move
    state = give(state, other, "red", 3)
    with pytest.raises(IllegalActionError) as error:
        state.apply("station wien red")
    assert error.value.rule == "station.taken"
    state.apply("draw deck")
    state.apply("draw deck")
    state = give(state, seat, "red", 1, 1)
    with pytest.raises(IllegalActionError) as error:
        state.apply("station berlin red")
    assert error.value.rule == "station.payment"
    legal = {str(a) for a in state.legal_actions() if str(a).startswith("station berlin")}
    assert legal == {"station berlin red w1"}
    state.apply("station berlin red w1")
    state.apply("draw deck")
    state.apply("draw deck")
    state = give(state, seat, "green", 3)
    state.apply("station paris green")
    assert state.observation(1 - seat).public[seat].stations == ["wien", "berlin", "paris"]
    state.apply("draw deck")
    state.apply("draw deck")
    state = give(state, seat, "green", 5, 3)
    assert not any(str(a).startswith("station") for a in state.legal_actions())
    with pytest.raises(IllegalActionError) as error:
        state.apply("station roma green")
    assert error.value.rule == "station.none-left"


def test_each_unbuilt_station_is_worth_four_points():
    state = edit(started(), lambda data: data["stations"][0].append("wien"))
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
    to_budapest = route_id(state, "budapest", "wien")
    to_munchen = route_id(state, "munchen", "wien")

    def tickets_and_stations(cities, tickets_of_1):
        def change(data):
            data["routes"][1] += [to_budapest, to_munchen]
            data["stations"][0] = cities
            hold(data, 0, [1, 2])
            hold(data, 1, tickets_of_1)

        return change

    held_by_1 = position(state)["tickets"][1]
    result = finish(state, tickets_and_stations(["wien"], held_by_1))
    row = result.breakdown[0]
    assert (row["completed_tickets"], row["tickets_completed"]) == (1, 9)
    assert (row["failed_tickets"], row["tickets_failed"]) == (1, -5)
    # A second station, in Budapest, lends the other route too: both tickets complete.
    result = finish(state, tickets_and_stations(["wien", "budapest"], []))
    assert result.breakdown[0]["tickets_completed"] == 14
    assert result.breakdown[0]["longest_path"] == 0  # borrowed routes never count for it


# -- scoring and doubles --------------------------------------------------------------------


def test_an_eight_long_route_scores_21():
    state = started()
    seat = state.to_move
    eight = route_id(state, "petrograd", "stockholm")  # gray 8, a tunnel
    state = set_deck_top(give(state, seat, "red", 8), ["green", "green", "green"])
    state.apply(f"claim {eight} red")
    assert state.route_points[seat] == 21 and state.trains[seat] == 37


def test_the_european_express_and_the_tie_breaks():
    assert EU.rules.longest_path_bonus == 10
    assert EU.rules.tie_breaks == ("completed_tickets", "stations_left", "longest_path_bonus")
    state = started()
    longest = route_id(state, "budapest", "kyiv")
    result = finish(state, lambda data: data["routes"][1].append(longest))
    assert result.breakdown[1]["longest_path_bonus"] == 10
    assert result.breakdown[0]["longest_path_bonus"] == 0


@pytest.mark.parametrize(("players", "open_"), [(2, False), (3, False), (4, True), (5, True)])
def test_doubles_use_one_track_with_two_or_three_players(players, open_):
    state = started(players)
    seat = state.to_move
    first = route_id(state, "dieppe", "london") - 1  # a double ferry
    other = state.board.route_sibling[first]
    state = give(state, seat, wilds=2)
    state.apply(f"claim {first + 1} w2")
    nxt = state.to_move
    state = give(state, nxt, wilds=2)
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
