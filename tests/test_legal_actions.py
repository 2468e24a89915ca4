"""legal_actions() agrees exactly with apply(): what it lists is accepted, all else refused,
on every game (the base board, each edition's own actions, the Card Game)."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import ClaimRoute, DrawCard, DrawTickets, IllegalActionError, KeepTickets, Pass
from arena.variants import new_game
from arena.variants.cardgame import CompleteTicket, PlayGroup, PlayTrio
from arena.variants.europe import BuildStation, PayTunnel, Withdraw
from arena.variants.sanfrancisco import PlaceStack, TakeToken
from tests.city_fixtures import SANFRANCISCO


def base_candidates(state, offered=4):
    yield DrawCard(None)
    yield from (DrawCard(slot) for slot in range(6))
    yield DrawTickets()
    yield Pass()
    for size in range(offered + 1):
        for combo in itertools.combinations(range(offered), size):
            yield KeepTickets(combo)


def board_candidates(state):
    yield from base_candidates(state)
    board = state.board
    for r in range(board.num_routes):
        length = board.route_length[r]
        for colour in (*state.rules.colours, None):
            for wilds in range(length + 1):
                yield ClaimRoute(r + 1, colour, wilds)


def europe_candidates(state):
    yield from board_candidates(state)
    yield Withdraw()
    yield from (PayTunnel(k) for k in range(4))
    for city in state.board.cities:
        for colour in (*state.rules.colours, None):
            for wilds in range(4):
                yield BuildStation(city, colour, wilds)


def sanfrancisco_candidates(state):
    yield from board_candidates(state)
    for city in state.board.cities:
        yield TakeToken(city)
        for symbol in state.rules.tourist_symbols:
            yield PlaceStack(city, symbol)


def cardgame_candidates(state):
    yield from base_candidates(state, offered=6)
    colours = state.rules.colours
    rules = state.rules
    for colour in colours:
        for count in range(rules.cards_per_colour + 2):
            for wilds in range(rules.locomotives + 2):
                yield PlayGroup(colour, count, wilds)
    for trio in itertools.combinations(sorted(colours), 3):
        yield PlayTrio(trio)
    yield from (CompleteTicket(t) for t in range(1, 47))


# Every this many steps (the turns' claims are the bulk; other phases are checked always).
EVERY = {"usa": 37, "europe": 97, "sanfrancisco": 37, "cardgame": 53}
CANDIDATES = {
    "usa": board_candidates,
    "europe": europe_candidates,
    "sanfrancisco": sanfrancisco_candidates,
    "cardgame": cardgame_candidates,
}


def check_position(state, candidates):
    legal = state.legal_actions()
    assert len(legal) == len(set(legal)), "an action is listed twice"
    legal_set = set(legal)
    before = state.fingerprint()
    listed = set()
    for action in candidates(state):
        listed.add(action)
        if action in legal_set:
            state.copy().apply(action)  # must not raise
        else:
            try:
                state.apply(action)
            except IllegalActionError:
                continue
            raise AssertionError(f"{action} is accepted but not listed as legal")
    assert state.fingerprint() == before, "refused actions changed the state"
    assert legal_set <= listed


@pytest.mark.parametrize("name", list(CANDIDATES))
@settings(max_examples=25)
@given(st.integers(2, 5), st.integers(0, 2**32))
def test_legal_actions_match_apply(name, players, seed):
    variant = SANFRANCISCO if name == "sanfrancisco" else name
    players = min(players, 4) if name != "usa" and name != "europe" else players
    state = new_game(variant, players, seed)
    rng = random.Random(seed)
    step = 0
    while not state.is_over:
        if step % EVERY[name] == 0 or state.phase not in ("turn", "second_draw"):
            check_position(state, CANDIDATES[name])
        state.apply(rng.choice(state.legal_actions()))
        step += 1
