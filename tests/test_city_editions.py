"""The city editions' rules: what the three share, Amsterdam's Merchandise cards and San
Francisco's ferries and tourist tokens (on fixture maps, since both editions' packaged
data is incomplete), and how an incomplete edition refuses to play."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.engine import IllegalActionError, VariantUnavailableError
from arena.referee.faults import TimeControl
from arena.referee.referee import Referee
from arena.referee.seats import InProcessSeat
from arena.variants import get_variant, new_game
from arena.variants.mapdata import load_map
from bots import get_bot
from tests.city_fixtures import AMSTERDAM, SANFRANCISCO
from tests.helpers import claim_for, edit, finish, give, position, route_id

NEWYORK = get_variant("newyork")
CITY_EDITIONS = [NEWYORK, AMSTERDAM, SANFRANCISCO]


def started(variant, players=4, seed=1):
    """Past the setup: every ticket kept; San Francisco's two stacks (fortune cookie and sea
    lion) on Fort Mason and Pier 39."""
    state = new_game(variant, players, seed)
    while state.phase == "setup_tickets":
        state.apply(state.legal_actions()[-1])
    for city, symbol in (("fort-mason", "fortune-cookie"), ("pier-39", "sea-lion")):
        if state.phase == "place_stacks":
            state.apply(f"place {city} {symbol}")
    assert state.phase == "turn"
    return state


# -- what the three editions share --------------------------------------------------------


@pytest.mark.parametrize("variant", CITY_EDITIONS, ids=lambda v: v.name)
def test_shared_components_and_setup(variant):
    state = new_game(variant, 4, 2)
    rules = state.rules
    assert rules.colours and len(rules.colours) == 6 and rules.cards_per_colour == 6
    assert rules.wild_cards == 8 and rules.face_up == 5 and rules.face_up_wild_reset == 3
    assert all(sum(state.hand(p)) == 2 for p in range(4))
    assert all(len(state.offered_tickets(p)) == 2 for p in range(4))
    assert rules.route_points == {1: 1, 2: 2, 3: 4, 4: 7} | (
        {5: 10} if 5 in rules.route_points else {}
    )
    assert rules.last_round_trigger == 2 and rules.longest_path_bonus == 0
    assert rules.tie_breaks == ("completed_tickets",)
    assert (rules.min_players, rules.max_players) == (2, 4)
    with pytest.raises(ValueError, match="2-4 players"):
        new_game(variant, 5, 1)


@pytest.mark.parametrize("variant", CITY_EDITIONS, ids=lambda v: v.name)
def test_tickets_two_keep_at_least_one_and_a_single_last_ticket(variant):
    state = started(variant, players=2)
    state.apply("tickets")
    assert [str(a) for a in state.legal_actions()] == ["keep 0", "keep 1", "keep 0 1"]
    state.apply("keep 0")

    def one_ticket_left(data):
        deck = data["ticket_deck"]
        data["tickets"][data["to_move"]] += deck[:-1]  # the other seat holds the rest
        del deck[:-1]

    state = edit(state, one_ticket_left)
    state.apply("draw deck")
    state.apply("draw deck")
    state.apply("tickets")
    assert [str(a) for a in state.legal_actions()] == ["keep 0"]


@pytest.mark.parametrize("variant", CITY_EDITIONS, ids=lambda v: v.name)
def test_two_players_use_one_track_of_a_double_route_and_nobody_both(variant):
    for players, rule in ((2, "claim.double-closed"), (3, "claim.double-own")):
        state = started(variant, players=players)
        seat = state.to_move
        board = state.board
        first = next(r for r in range(board.num_routes) if board.route_sibling[r] >= 0)
        other = board.route_sibling[first]
        owner = seat if players == 3 else (seat + 1) % players
        state = claim_for(state, owner, first + 1)  # as if claimed earlier
        colour = board.route_colour[other]
        name = state.rules.colours[colour] if colour >= 0 else state.rules.colours[0]
        state = give(state, seat, name, 6, 0)
        assert not any(a.route == other + 1 for a in state.legal_actions() if hasattr(a, "route"))
        with pytest.raises(IllegalActionError) as error:
            state.apply(f"claim {other + 1} {name}")
        assert error.value.rule == rule


# -- Amsterdam ------------------------------------------------------------------------------


def test_amsterdam_components_on_the_real_map():
    data = load_map("amsterdam")
    assert AMSTERDAM.rules.pieces_per_player == 16 and AMSTERDAM.rules.merchandise_cards == 16
    assert sum(1 for r in data["routes"] if r.get("carts")) == 16
    assert AMSTERDAM.rules.merchandise_bonus == {4: (8, 6, 4, 2), 3: (8, 5, 2), 2: (8, 4)}


def merchandise(state):
    data = position(state)
    return data["merchandise"], AMSTERDAM.rules.merchandise_cards - sum(data["merchandise"])


def test_a_cart_route_gives_a_public_merchandise_card_and_others_do_not():
    state = started(AMSTERDAM, players=3)
    board = state.board
    cart = next(r for r in range(board.num_routes) if board.route_carts[r])
    plain = next(r for r in range(board.num_routes) if not board.route_carts[r])
    seat = state.to_move
    state = give(state, seat, wilds=board.route_length[cart])
    state.apply(f"claim {cart + 1} w{board.route_length[cart]}")
    assert merchandise(state)[0][seat] == 1 and merchandise(state)[1] == 15
    view = state.observation((seat + 1) % 3)
    assert view.public[seat].merchandise == 1 and view.merchandise_left == 15
    seat = state.to_move
    state = give(state, seat, wilds=board.route_length[plain])
    state.apply(f"claim {plain + 1} w{board.route_length[plain]}")
    assert merchandise(state)[0][seat] == 0 and merchandise(state)[1] == 15


def test_no_merchandise_card_once_the_deck_is_empty():
    state = started(AMSTERDAM, players=2)
    board = state.board
    cart = next(r for r in range(board.num_routes) if board.route_carts[r])
    seat = state.to_move
    state = edit(state, lambda data: data["merchandise"].__setitem__(1 - seat, 16))
    state = give(state, seat, wilds=board.route_length[cart])
    state.apply(f"claim {cart + 1} w{board.route_length[cart]}")
    assert merchandise(state) == ([0, 16] if seat == 0 else [16, 0], 0)


@pytest.mark.parametrize(
    ("counts", "bonus"),
    [
        ((5, 3, 2, 1), (8, 6, 4, 2)),
        ((5, 5, 3, 1), (8, 8, 4, 2)),  # tied first: both 8, second place skipped
        ((3, 3, 3, 1), (8, 8, 8, 4)),  # three tied: only the next position is skipped
        ((4, 2, 2, 0), (8, 6, 6, 0)),  # tied second; no card, no bonus
        ((4, 2, 2, 1), (8, 6, 6, 2)),
        ((3, 3, 3, 3), (8, 8, 8, 8)),
        ((1, 2, 2, 2), (4, 8, 8, 8)),
        ((0, 0, 0, 0), (0, 0, 0, 0)),
        ((2, 1, 0), (8, 5, 0)),
        ((1, 1, 1), (8, 8, 8)),
        ((2, 2, 1), (8, 8, 2)),
        ((3, 1), (8, 4)),
        ((3, 3), (8, 8)),
        ((2, 0), (8, 0)),
    ],
)
def test_merchandise_end_bonus_with_ties(counts, bonus):
    state = started(AMSTERDAM, players=len(counts))
    result = finish(state, lambda data: data.update(merchandise=list(counts)))
    assert tuple(row["merchandise"] for row in result.breakdown) == bonus
    assert "merchandise" in result.categories
    assert result.scores == bonus  # nothing else was scored


# -- San Francisco --------------------------------------------------------------------------


def stacks(state):
    return {c: (s["symbol"], s["tokens"]) for c, s in position(state)["stacks"].items()}


def tokens(state, seat):
    return position(state)["tokens"][seat]


@pytest.mark.parametrize(("players", "fixed", "placed"), [(4, 3, 3), (3, 2, 2), (2, 2, 1)])
def test_tourist_stacks_are_placed_once_the_tickets_are_chosen(players, fixed, placed):
    state = new_game(SANFRANCISCO, players, 5)
    first = state.first_player
    printed = {"alcatraz", "golden-gate-bridge", "the-embarcadero", "sunset", "potrero-hill"}
    assert {c: n for c, (_, n) in stacks(state).items()} == dict.fromkeys(printed, fixed)
    assert state.phase == "setup_tickets" and state.to_move == first, "tickets come first"
    while state.phase == "setup_tickets":
        state.apply(state.legal_actions()[0])
    if players >= 3:
        placers = [(first + players - 1) % players, (first + players - 2) % players]
    else:
        placers = [(first + 1) % 2] * 2
    assert state.phase == "place_stacks"
    left = {"fortune-cookie", "sea-lion"}
    for placer, city, symbol in zip(
        placers, ("pier-39", "mission-district"), ("sea-lion", "fortune-cookie"), strict=True
    ):
        assert state.to_move == placer
        legal = {str(a) for a in state.legal_actions()}
        free = [c for c in state.board.cities if c not in stacks(state)]
        assert legal == {f"place {c} {s}" for c in free for s in left}, "any stack, anywhere"
        view = state.observation(placer)
        assert view.stacks_to_place[0].seat == placer and set(view.stack_symbols) == left
        state.apply(f"place {city} {symbol}")
        left.remove(symbol)
    assert stacks(state)["pier-39"] == ("sea-lion", placed)
    assert stacks(state)["mission-district"] == ("fortune-cookie", placed)
    assert state.phase == "turn" and state.to_move == first


def test_placing_a_stack_on_a_taken_or_unknown_location_is_illegal():
    state = new_game(SANFRANCISCO, 4, 5)
    with pytest.raises(IllegalActionError) as error:
        state.apply("place pier-39 sea-lion")
    assert error.value.rule == "place.phase", "not before the tickets are chosen"
    while state.phase == "setup_tickets":
        state.apply(state.legal_actions()[0])
    for text, rule in (
        ("place sunset sea-lion", "place.occupied"),
        ("place mars sea-lion", "place.location"),
        ("place pier-39 flower", "place.symbol"),  # the flower stack is printed on Sunset
        ("place pier-39 dragon", "place.symbol"),
    ):
        with pytest.raises(IllegalActionError) as error:
            state.apply(text)
        assert error.value.rule == rule
    with pytest.raises(IllegalActionError) as error:
        state.apply("keep 0")
    assert error.value.rule == "keep.no-offer"


def test_a_ferry_needs_one_wild_per_ferry_symbol():
    state = started(SANFRANCISCO, players=2)
    seat = state.to_move
    alcatraz = route_id(state, "alcatraz", "fort-mason")  # blue, 3, one ferry
    state = give(state, seat, "blue", 3, 0)
    assert not [a for a in state.legal_actions() if getattr(a, "route", 0) == alcatraz]
    with pytest.raises(IllegalActionError) as error:
        state.apply(f"claim {alcatraz} blue")
    assert error.value.rule == "claim.ferry" and "at least 1" in error.value.reason
    state = give(state, seat, "blue", 2, 1)
    legal = [str(a) for a in state.legal_actions() if getattr(a, "route", 0) == alcatraz]
    assert legal == [f"claim {alcatraz} blue w1"]
    state.apply(f"claim {alcatraz} blue w1")
    assert state.route_owner[alcatraz - 1] == seat


def test_an_all_ferry_route_is_paid_with_wilds_only():
    state = started(SANFRANCISCO, players=2)
    seat = state.to_move
    pier = route_id(state, "alcatraz", "pier-39")  # gray, 2, two ferries
    state = give(state, seat, "red", 5, 1)
    assert not [a for a in state.legal_actions() if getattr(a, "route", 0) == pier]
    state = give(state, seat, "red", 5, 2)
    legal = [str(a) for a in state.legal_actions() if getattr(a, "route", 0) == pier]
    assert legal == [f"claim {pier} w2"]


def take_token(state, seat, city):
    """``seat`` holds a token of the stack on ``city`` (taken from it earlier)."""

    def change(data):
        stack = data["stacks"][city]
        stack["tokens"] -= 1
        data["tokens"][seat].append(stack["symbol"])

    return edit(state, change)


def test_a_claim_takes_a_token_of_a_new_symbol_at_one_end():
    state = started(SANFRANCISCO, players=2)
    seat = state.to_move
    r = route_id(state, "mission-district", "potrero-hill")  # only potrero-hill has a stack
    state = give(state, seat, "pink", 2)
    state.apply(f"claim {r} pink")
    assert tokens(state, seat) == ["crab"] and state.phase == "turn"
    assert state.observation(1 - seat).public[seat].tourist_tokens == ["crab"]
    assert stacks(state)["potrero-hill"] == ("crab", 1)
    # The other seat takes the last token; a symbol already held is not taken twice.
    other = state.to_move
    r2 = route_id(state, "potrero-hill", "the-embarcadero")
    state = give(take_token(state, other, "the-embarcadero"), other, "red", 2)  # a tram
    state.apply(f"claim {r2} red")
    assert sorted(tokens(state, other)) == ["crab", "tram"]
    assert stacks(state)["potrero-hill"][1] == 0
    assert stacks(state)["the-embarcadero"][1] == 1


def test_an_empty_stack_gives_nothing():
    state = started(SANFRANCISCO, players=3)
    seat = state.to_move
    for other in range(3):
        if other != seat:
            state = take_token(state, other, "potrero-hill")
    assert stacks(state)["potrero-hill"][1] == 0
    state = give(state, seat, "pink", 2)
    state.apply(f"claim {route_id(state, 'mission-district', 'potrero-hill')} pink")
    assert tokens(state, seat) == []


def test_two_qualifying_ends_are_the_players_choice():
    state = started(SANFRANCISCO, players=2)
    seat = state.to_move
    r = route_id(state, "golden-gate-bridge", "sunset")  # both ends hold a stack
    state = give(state, seat, "green", 3)
    state.apply(f"claim {r} green")
    assert state.phase == "take_token" and state.to_move == seat
    assert {str(a) for a in state.legal_actions()} == {"token golden-gate-bridge", "token sunset"}
    assert state.observation(1 - seat).token_choices == ["golden-gate-bridge", "sunset"]
    with pytest.raises(IllegalActionError) as error:
        state.apply("token alcatraz")
    assert error.value.rule == "token.choice"
    with pytest.raises(IllegalActionError) as error:
        state.apply("draw deck")
    assert error.value.rule == "turn.phase"
    state.apply("token sunset")
    assert tokens(state, seat) == ["flower"]
    assert state.phase == "turn" and state.to_move == 1 - seat


def test_one_end_with_a_symbol_already_held_leaves_no_choice():
    state = started(SANFRANCISCO, players=2)
    seat = state.to_move
    state = give(take_token(state, seat, "sunset"), seat, "green", 3)  # a flower
    state.apply(f"claim {route_id(state, 'golden-gate-bridge', 'sunset')} green")
    assert state.phase == "turn"
    assert tokens(state, seat) == ["bridge", "flower"]  # in the symbols' order


@pytest.mark.parametrize(
    ("distinct", "points"), [(0, 0), (1, 0), (2, 1), (3, 2), (4, 4), (5, 6), (6, 9), (7, 12)]
)
def test_tourist_end_bonus_by_distinct_symbols(distinct, points):
    state = started(SANFRANCISCO, players=2)
    places = ["alcatraz", "potrero-hill", "the-embarcadero", "golden-gate-bridge"]
    places += ["fort-mason", "pier-39", "sunset"]  # the symbols in their data order
    for city in places[:distinct]:
        state = take_token(state, 0, city)
    result = finish(state)
    assert result.breakdown[0]["tourists"] == points
    assert result.breakdown[0]["tourist_symbols"] == distinct
    assert result.breakdown[1]["tourists"] == 0


def test_ties_share_the_victory_after_completed_tickets():
    state = started(SANFRANCISCO, players=2)
    for seat in (0, 1):
        state = take_token(take_token(state, seat, "alcatraz"), seat, "potrero-hill")
    result = finish(state)
    assert result.scores == (1, 1) and result.ranks == (1, 1)


def test_the_last_round_starts_at_two_trams():
    state = started(SANFRANCISCO, players=2)
    seat = state.to_move
    given = [("mission-district", "pier-39"), ("golden-gate-bridge", "the-embarcadero")]
    given += [("potrero-hill", "sunset"), ("mission-district", "sunset")]  # 4 + 4 + 4 + 3
    ids = [route_id(state, *ends) for ends in given]
    state = edit(state, lambda data: data["routes"][seat].extend(ids))
    assert state.trains[seat] == 5
    state = give(state, seat, "red", 2, 1)
    state.apply(f"claim {route_id(state, 'fort-mason', 'sunset')} red w1")  # red 3, a ferry
    assert state.trains[seat] == 2
    assert state.phase == "take_token"  # fortune cookie or flower: both ends qualify
    assert not state.observation(seat).last_round  # the turn ends with the choice
    state.apply("token sunset")
    assert state.observation(seat).last_round


# -- playing them ---------------------------------------------------------------------------


@pytest.mark.parametrize("variant", [AMSTERDAM, SANFRANCISCO], ids=lambda v: v.name)
def test_the_published_bots_play_the_fixture_editions_through_the_referee(variant):
    names = ("ticket-by-ticket", "greedy-claims", "ticket-collector", "random")
    seats = [InProcessSeat(get_bot(n).factory(f"7:{i}"), n) for i, n in enumerate(names)]
    outcome = Referee(variant, seats, TimeControl()).play(7)
    assert outcome.faults == []
    assert outcome.result.categories[-1] in ("merchandise", "tourists")


# -- incomplete data ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "says"),
    [("amsterdam", "20 of the 24 contract cards"), ("sanfrancisco", "all routes")],
)
def test_an_edition_with_incomplete_data_says_what_is_missing(name, says, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where a data folder would land, were a bot started
    variant = get_variant(name)
    assert not variant.playable and variant.status == "incomplete data"
    with pytest.raises(VariantUnavailableError, match=says):
        variant.new_game(2, 1)
    listing = CliRunner().invoke(app, ["variants", "--format", "json"])
    assert listing.exit_code == 0, listing.output
    assert name in listing.output and "incomplete" in listing.output
    played = CliRunner().invoke(app, ["play", "--variant", name])
    assert played.exit_code != 0 and says in " ".join(played.output.split())
    assert not (tmp_path / "arena-data").exists(), "bots were started for a game never played"


def test_completing_the_amsterdam_contracts_is_a_data_change_only():
    """The fixture is the packaged data plus contracts and an empty ``missing``: nothing else."""
    packaged = load_map("amsterdam")
    assert AMSTERDAM.data["routes"] == packaged["routes"]
    assert AMSTERDAM.data["components"] == packaged["components"]
    assert AMSTERDAM.playable
