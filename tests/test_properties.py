"""Property tests over thousands of random games, 2-5 players, on every playable variant.

Invariants: every game ends; every card is always somewhere (110 in USA); trains
are conserved, and so are Merchandise cards and tourist tokens; every total is
the sum of its breakdown; an observation depends only on what its seat may
know; a sampled state shows its seat exactly what it saw; a game's log
replays to the same result.
"""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine.board import BoardRules
from arena.engine.sampling import SAMPLEABLE, determinize
from arena.referee.gamelog import GameLog, replay
from arena.variants import all_variants, new_game
from tests.city_fixtures import AMSTERDAM, SANFRANCISCO
from tests.helpers import total_cards

MAX_DECISIONS = 5000  # a bound far above any real game: hitting it means a game that hangs

games = st.tuples(st.integers(2, 5), st.integers(0, 2**63))


def random_game(players, seed, on_step=None, variant="usa"):
    state = new_game(variant, players, seed)
    rng = random.Random(seed)
    actions = []
    while not state.is_over:
        assert len(actions) < MAX_DECISIONS, "the game does not end"
        action = rng.choice(state.legal_actions())
        state.apply(action)
        actions.append(str(action))
        if on_step:
            on_step(state)
    return state, actions


def check_conservation(state, cards=None, pieces=None, tickets=None):
    """Every card, piece and ticket is somewhere (the variant's totals unless told otherwise),
    and so is every Merchandise card and tourist token."""
    rules = state.rules
    if cards is None:
        cards = len(rules.colours) * rules.cards_per_colour + rules.wild_cards
        pieces, tickets = rules.pieces_per_player, len(state.board.tickets)
    assert total_cards(state) == cards
    board = state.board
    for seat in range(state.num_players):
        used = sum(board.route_length[r] for r in state._routes[seat])
        assert state._trains[seat] + used == pieces
        assert state._trains[seat] >= 0
    held = (
        len(state._ticket_deck)
        + sum(map(len, state._tickets))
        + sum(map(len, state._offers))
        + len(state._setup_returns)
        + len(state._out)
    )
    assert held == tickets
    if rules.merchandise_cards:
        assert state._merch_left + sum(state._merch) == rules.merchandise_cards
        carts = sum(state.board.route_carts[r] for routes in state._routes for r in routes)
        assert sum(state._merch) == min(carts, rules.merchandise_cards)
    if rules.tourist_symbols:
        taken = sum(mask.bit_count() for mask in state._tokens)
        fixed, placed = rules.tourist_stack_tokens[state.num_players]
        stacks = len(state.board.tourist_fixed) * fixed
        stacks += (len(state.board.tourist_placed) - len(state._placements)) * placed
        assert taken + sum(n for _, n in state._stacks.values()) == stacks
    if rules.stations:
        assert all(len(built) <= rules.stations for built in state._stations)
        assert len(state._station_at) == sum(map(len, state._stations))


@settings(max_examples=2000)
@given(games)
def test_random_games_end_and_conserve_everything(game):
    players, seed = game
    state, _ = random_game(players, seed, on_step=check_conservation)
    result = state.result()
    for row, score in zip(result.breakdown, result.scores, strict=True):
        assert score == row["total"] == sum(row[c] for c in result.categories)
    assert sorted(result.ranks)[0] == 1


def hide_what_seat_cannot_see(state, seat, rng):
    """A copy with everything hidden from ``seat`` shuffled among the hidden places."""
    other = state.copy()
    others = [p for p in range(other.num_players) if p != seat]
    cards = list(other._deck)
    for p in others:
        for c, n in enumerate(other._hands[p]):
            cards += [c] * n
    rng.shuffle(cards)
    for p in others:
        size = sum(other._hands[p])
        hand = [0] * len(other._hands[p])
        for _ in range(size):
            hand[cards.pop()] += 1
        other._hands[p] = hand
    other._deck = cards
    tickets = list(other._ticket_deck) + list(other._setup_returns) + list(other._out)
    for p in others:
        tickets += other._tickets[p] + other._offers[p]
    rng.shuffle(tickets)
    for p in others:
        for pile in (other._tickets, other._offers):
            pile[p] = [tickets.pop() for _ in pile[p]]
    other._setup_returns = [tickets.pop() for _ in other._setup_returns]
    other._out = [tickets.pop() for _ in other._out]
    other._ticket_deck = tickets
    return other


@settings(max_examples=300)
@given(games)
def test_observations_show_nothing_a_seat_may_not_know(game):
    players, seed = game
    rng = random.Random(seed)

    def check(state):
        if state.is_over:
            return
        for seat in range(players):
            view = state.observation(seat)
            json.dumps(view)  # JSON-ready
            assert view == hide_what_seat_cannot_see(state, seat, rng).observation(seat)

    random_game(players, seed, on_step=check)


@settings(max_examples=300)
@given(games)
def test_replaying_a_games_log_reproduces_it(game):
    players, seed = game
    state, actions = random_game(players, seed)
    log = GameLog("usa", players, seed, ["random"] * players, actions)
    log.record_result(state.result())
    again = replay(GameLog.from_text(log.to_text()))
    assert again.fingerprint() == state.fingerprint()
    assert again.result() == state.result()


OTHER_VARIANTS = [
    *(
        v
        for name, v in all_variants().items()
        if v.playable and name != "usa" and isinstance(v.rules, BoardRules)
    ),  # the Card Game has its own property tests (tests/test_cardgame.py)
    AMSTERDAM,  # fixture contracts on the real Amsterdam map
    SANFRANCISCO,  # an invented little San Francisco
]


@pytest.mark.parametrize("variant", OTHER_VARIANTS, ids=lambda v: f"{v.name}-{id(v) % 997}")
@settings(max_examples=300, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**63))
def test_every_playable_variant_keeps_the_invariants(variant, players, seed):
    players = min(max(players, variant.min_players), variant.max_players)
    rng = random.Random(seed)

    def check(state):
        check_conservation(state)
        if state.is_over:
            return
        for seat in range(players):
            view = state.observation(seat)
            json.dumps(view)
            assert view == hide_what_seat_cannot_see(state, seat, rng).observation(seat)
        seat = state.to_move
        view = state.observation(seat)
        if view["phase"] in SAMPLEABLE and rng.random() < 0.1:
            assert determinize(variant, view, rng).observation(seat) == view

    state, actions = random_game(players, seed, on_step=check, variant=variant)
    result = state.result()
    for row, score in zip(result.breakdown, result.scores, strict=True):
        assert score == row["total"] == sum(row[c] for c in result.categories)
    again = new_game(variant, players, seed)
    for action in actions:
        again.apply(action)
    assert again.fingerprint() == state.fingerprint()
