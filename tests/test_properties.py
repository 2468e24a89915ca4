"""Property tests over thousands of random games, 2-5 players, on every playable variant.

Invariants: every game ends; every card and ticket is always somewhere exactly once
(110 cards in USA); pieces are conserved, and so are Merchandise cards and tourist
tokens; every total is the sum of its breakdown; an observation depends only on what its
seat may know; a resampled state shows its seat exactly what it saw; a game's log
replays to the same result; every reachable state's position reads back into the same
state, which goes on exactly like it.
"""

import random
from collections import Counter

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import BoardState
from arena.referee.gamelog import GameLog, replay
from arena.variants import all_variants, new_game
from tests.city_fixtures import AMSTERDAM, SANFRANCISCO, every_playable_variant, variant_id
from tests.helpers import cards_in, load

MAX_DECISIONS = 5000  # a bound far above any real game: hitting it means a game that hangs

games = st.tuples(st.integers(2, 5), st.integers(0, 2**63))


def random_game(players, seed, on_step=None, variant="usa", every=1):
    """A random game to its end; ``on_step(state)`` after every ``every``-th action and
    after the last."""
    state = new_game(variant, players, seed)
    rng = random.Random(seed)
    actions = []
    while not state.is_over:
        assert len(actions) < MAX_DECISIONS, "the game does not end"
        action = rng.choice(state.legal_actions())
        state.apply(action)
        actions.append(str(action))
        if on_step and (len(actions) % every == 0 or state.is_over):
            on_step(state)
    return state, actions


def check_conservation(state, text=None):
    """Every card, piece and ticket is somewhere, counted from the position's own data (and
    so is every Merchandise card and tourist token); ``text``: the state's position, when
    the caller has already written it."""
    rules, board = state.rules, state.board
    data = msgspec.json.decode(text or state.to_position())
    assert cards_in(data) == len(rules.colours) * rules.cards_per_colour + rules.wild_cards
    for seat, routes in enumerate(data["routes"]):
        used = sum(board.route_length[r - 1] for r in routes)
        assert state.trains[seat] + used == rules.pieces_per_player
        assert state.trains[seat] >= 0
    tickets = [*data["ticket_deck"], *data["setup_returns"], *data.get("out", ())]
    for pile in (*data["tickets"], *data["offers"]):
        tickets += pile
    assert sorted(tickets) == list(range(1, len(board.tickets) + 1))
    if "merchandise" in data:
        carts = sum(board.route_carts[r - 1] for routes in data["routes"] for r in routes)
        assert sum(data["merchandise"]) == min(carts, rules.merchandise_cards)
    if "stacks" in data:
        fixed, placed = rules.tourist_stack_tokens[state.num_players]
        supply = len(board.tourist_fixed) * fixed
        supply += (len(board.tourist_placed) - len(data["unplaced"])) * placed
        held = sum(len(symbols) for symbols in data["tokens"])
        assert held + sum(stack["tokens"] for stack in data["stacks"].values()) == supply
    if "stations" in data:
        cities = [city for built in data["stations"] for city in built]
        assert all(len(built) <= rules.stations for built in data["stations"])
        assert len(cities) == len(set(cities))


@settings(max_examples=2000)
@given(games)
def test_random_games_end_and_conserve_everything(game):
    players, seed = game
    state, _ = random_game(players, seed, on_step=check_conservation, every=6)
    result = state.result()
    for row, score in zip(result.breakdown, result.scores, strict=True):
        assert score == row["total"] == sum(row[c] for c in result.categories)
    assert sorted(result.ranks)[0] == 1


def shuffle(items, rng):
    """``items`` in a uniformly random order drawn from ``rng``: sorting by random keys is
    a uniform permutation as ``rng.shuffle`` is, at about half its cost (the hidden cards
    and tickets are shuffled once per seat at every checked step)."""
    items.sort(key=lambda _: rng.random())


def hide_what_seat_cannot_see(state, seat, rng, text=None):
    """A state with everything hidden from ``seat`` shuffled among the hidden places: the
    cards of the other hands and the deck, the tickets of the other seats (held and
    offered), the ticket deck, the setup returns and the tickets out of the game.
    ``text``: the state's position, when the caller has already written it (it is read
    afresh for each seat, as each seat's shuffle changes it)."""
    data = msgspec.json.decode(text or state.to_position())
    others = [p for p in range(state.num_players) if p != seat]
    cards = list(data["deck"])
    for p in others:
        cards += Counter(data["hands"][p]).elements()
    shuffle(cards, rng)
    for p in others:
        size = sum(data["hands"][p].values())
        hand = dict.fromkeys(data["hands"][p], 0)
        for _ in range(size):
            hand[cards.pop()] += 1
        data["hands"][p] = hand
    data["deck"] = cards
    piles = [data["setup_returns"], *(data[k][p] for k in ("tickets", "offers") for p in others)]
    if "out" in data:
        piles.append(data["out"])
    tickets = list(data["ticket_deck"])
    for pile in piles:
        tickets += pile
    shuffle(tickets, rng)
    for pile in piles:
        pile[:] = [tickets.pop() for _ in pile]
    data["ticket_deck"] = tickets
    return load(state, data)


@settings(max_examples=300)
@given(games)
def test_observations_show_nothing_a_seat_may_not_know(game):
    players, seed = game
    rng = random.Random(seed)

    def check(state):
        if state.is_over:
            return
        text = state.to_position()
        for seat in range(players):
            view = state.observation(seat)
            msgspec.json.encode(view)  # JSON-ready
            assert view == hide_what_seat_cannot_see(state, seat, rng, text).observation(seat)

    random_game(players, seed, on_step=check, every=2)


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


BOARD_VARIANTS = [
    *(
        v
        for name, v in all_variants().items()
        if v.playable and name != "usa" and isinstance(v.game, type)
        if issubclass(v.game, BoardState)
    ),  # the Card Game has its own property tests (tests/test_cardgame.py)
    AMSTERDAM,  # fixture contracts on the real Amsterdam map
    SANFRANCISCO,  # an invented little San Francisco
]


@pytest.mark.parametrize("variant", BOARD_VARIANTS, ids=variant_id)
@settings(max_examples=300, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**63))
def test_every_playable_variant_keeps_the_invariants(variant, players, seed):
    players = min(max(players, variant.min_players), variant.max_players)
    rng = random.Random(seed)

    def check(state):
        text = state.to_position()
        check_conservation(state, text)
        if state.is_over:
            return
        for seat in range(players):
            view = state.observation(seat)
            msgspec.json.encode(view)
            assert view == hide_what_seat_cannot_see(state, seat, rng, text).observation(seat)
        seat = state.to_move
        if rng.random() < 0.1 and (state.phase != "setup_tickets" or seat == state.to_move):
            assert state.resample(seat, rng).observation(seat) == state.observation(seat)

    state, actions = random_game(players, seed, on_step=check, variant=variant, every=3)
    result = state.result()
    for row, score in zip(result.breakdown, result.scores, strict=True):
        assert score == row["total"] == sum(row[c] for c in result.categories)
    again = new_game(variant, players, seed)
    for action in actions:
        again.apply(action)
    assert again.fingerprint() == state.fingerprint()


ALL_VARIANTS = every_playable_variant()


def unset_fields(state):
    """The state's fields (``__slots__`` of its classes) that hold no value: one a game's
    ``_copy_into`` or ``_load_position`` forgot."""
    slots = [s for cls in type(state).__mro__ for s in vars(cls).get("__slots__", ())]
    return [name for name in slots if not hasattr(state, name)]


@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=variant_id)
@settings(max_examples=15, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**63), every=st.integers(1, 9))
def test_every_reachable_position_reads_back_into_the_same_state(variant, players, seed, every):
    """Every ``every``-th state of a random game is written and read back: the copy has the
    same position, the same legal actions and the same future under the same actions (the
    generator's state travels in the position)."""
    players = min(max(players, variant.min_players), variant.max_players)
    state = new_game(variant, players, seed)
    rng = random.Random(seed)
    step = 0
    while True:
        if step % every == 0 or state.is_over:
            text = state.to_position()
            twin = variant.from_position(text)
            assert twin.to_position() == text
            assert twin.legal_actions() == state.legal_actions()
            for seat in range(players):
                assert twin.observation(seat) == state.observation(seat)
            assert unset_fields(twin) == unset_fields(state.copy()) == []
            if state.is_over:
                assert twin.result() == state.result()
                break
            future = random.Random(step)
            probe, copy = twin.copy(), state.copy()
            for _ in range(10):
                if copy.is_over:
                    break
                action = future.choice(copy.legal_actions())
                copy.apply(action)
                probe.apply(action)
                assert probe.fingerprint() == copy.fingerprint()
        state.apply(rng.choice(state.legal_actions()))
        step += 1
