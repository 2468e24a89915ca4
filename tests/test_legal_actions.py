"""legal_actions() agrees exactly with apply(): what it lists is accepted, all else refused."""

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import ClaimRoute, DrawCard, DrawTickets, IllegalActionError, KeepTickets, Pass
from arena.variants import new_game


def every_candidate(state):
    board = state.board
    yield DrawCard(None)
    yield from (DrawCard(slot) for slot in range(6))
    yield DrawTickets()
    yield Pass()
    for size in range(1, 5):
        for combo in itertools.combinations(range(4), size):
            yield KeepTickets(combo)
    for r in range(board.num_routes):
        length = board.route_length[r]
        for colour in (*state.rules.colours, None):
            for wilds in range(length + 1):
                yield ClaimRoute(r + 1, colour, wilds)


def check_position(state):
    legal = state.legal_actions()
    assert len(legal) == len(set(legal)), "an action is listed twice"
    legal_set = set(legal)
    before = state.fingerprint()
    for action in every_candidate(state):
        if action in legal_set:
            state.copy().apply(action)  # must not raise
        else:
            try:
                state.apply(action)
            except IllegalActionError:
                continue
            raise AssertionError(f"{action} is accepted but not listed as legal")
    assert state.fingerprint() == before, "refused actions changed the state"
    assert legal_set <= set(every_candidate(state))


@settings(max_examples=40)
@given(st.integers(2, 5), st.integers(0, 2**32))
def test_legal_actions_match_apply(players, seed):
    state = new_game("usa", players, seed)
    rng = random.Random(seed)
    step = 0
    while not state.is_over:
        if step % 37 == 0:
            check_position(state)
        state.apply(rng.choice(state.legal_actions()))
        step += 1
