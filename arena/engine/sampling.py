"""Determinization: a complete game state consistent with one seat's observation.

Search bots must not read hidden information. They may instead *sample* it:
deal the cards the seat cannot see (the deck and the other hands) and the
tickets it cannot see (the ticket deck and the other seats' tickets) at
random, consistently with every public count. The sampled state's
observation for that seat equals the observation it was built from (a
property test checks it), so a bot that searches sampled states uses
exactly what it may know.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from arena.engine.actions import DrawCard
from arena.engine.state import KEEP, PHASE_NAMES, SECOND_DRAW, SETUP, TURN, BoardState
from arena.engine.variant import Variant

SAMPLEABLE = {
    PHASE_NAMES[SETUP]: SETUP,
    PHASE_NAMES[TURN]: TURN,
    PHASE_NAMES[SECOND_DRAW]: SECOND_DRAW,
    PHASE_NAMES[KEEP]: KEEP,
}


TicketBelief = Callable[[int, int], float]


def determinize(
    variant: Variant,
    observation: dict[str, Any],
    rng: random.Random,
    belief: TicketBelief | None = None,
) -> BoardState:
    """A random full state that ``observation``'s seat cannot tell from the real one.

    ``belief(seat, ticket)`` (optional) weights how likely another seat holds an
    unseen ticket, e.g. by how its claimed routes serve it: the tickets each seat
    kept are then drawn with those weights instead of uniformly. Any weights give
    a state consistent with the observation; they only change how likely each is.
    """
    phase = SAMPLEABLE.get(observation["phase"])
    if phase is None:
        raise ValueError(f"cannot sample a state in phase '{observation['phase']}'")
    rules, board = variant.rules, variant.board
    seat, players = observation["seat"], observation["players"]
    if phase == SETUP and observation["to_move"] != seat:
        raise ValueError("a setup state is sampled only for the seat choosing its tickets")
    names = board.card_names
    index = {name: i for i, name in enumerate(names)}
    wild = len(rules.colours)

    state = BoardState.__new__(BoardState)
    state.variant, state.rules, state.board = variant, rules, board
    state.num_players, state.seed = players, None
    state.first_player = observation["first_player"]
    state._rng = random.Random(rng.getrandbits(64))

    # Train cards: the deck and the other hands share what this seat cannot see.
    unseen = [rules.cards_per_colour] * wild + [rules.wild_cards]
    own = [observation["hand"][name] for name in names]
    discards = [observation["discards"][name] for name in names]
    display = [-1 if name is None else index[name] for name in observation["display"]]
    for c in range(wild + 1):
        unseen[c] -= own[c] + discards[c]
    for c in display:
        if c >= 0:
            unseen[c] -= 1
    pool = [c for c in range(wild + 1) for _ in range(unseen[c])]
    rng.shuffle(pool)
    hands = []
    for p, public in enumerate(observation["public"]):
        if p == seat:
            hands.append(own)
            continue
        hand = [0] * (wild + 1)
        for _ in range(public["hand_size"]):
            hand[pool.pop()] += 1
        hands.append(hand)
    if len(pool) != observation["deck_size"]:
        raise ValueError("the observation's card counts do not add up")
    state._deck, state._discards, state._display, state._hands = pool, discards, display, hands
    state._draw_slots = tuple(DrawCard(i) for i in range(rules.face_up))

    # Routes: all public.
    state._owner = [-1] * board.num_routes
    state._routes = []
    for p, public in enumerate(observation["public"]):
        state._routes.append([rid - 1 for rid in public["routes"]])
        for rid in public["routes"]:
            state._owner[rid - 1] = p
    state._trains = [public["trains"] for public in observation["public"]]
    state._route_points = [public["route_points"] for public in observation["public"]]
    closed = set()
    if players < rules.double_routes_min_players:
        closed = {board.route_sibling[r] for r, p in enumerate(state._owner) if p >= 0}
    state._free = [
        [r for r in group if state._owner[r] < 0 and r not in closed]
        for group in board.routes_by_colour
    ]

    # Tickets: own ones known; the rest dealt among the other seats and the ticket deck.
    own_tickets = [t["id"] - 1 for t in observation["tickets"]]
    offered = [t["id"] - 1 for t in observation["offered_tickets"]]
    known = set(own_tickets) | set(offered)
    long = board.ticket_long
    hidden = [t for t in range(len(board.tickets)) if t not in known and not long[t]]
    rng.shuffle(hidden)
    # Europe: the unseen long tickets are held by some other seats (one each at most) or
    # out of the game; which seats kept theirs is sampled, consistent with the counts.
    hidden_long = [t for t in range(len(board.tickets)) if t not in known and long[t]]
    rng.shuffle(hidden_long)
    state._tickets, state._offers = [], []
    if phase == SETUP:
        _deal_setup_offers(state, seat, offered, hidden, hidden_long, long)
    else:
        others = [p for p in range(players) if p != seat and observation["public"][p]["tickets"]]
        keepers = set(rng.sample(others, len(hidden_long) - (observation.get("tickets_out") or 0)))
        for p, public in enumerate(observation["public"]):
            if p == seat:
                state._tickets.append(own_tickets)
                state._offers.append(offered)
            else:
                held = [hidden_long.pop()] if p in keepers else []
                count = public["tickets"] - len(held)
                if belief is None:
                    held += [hidden.pop() for _ in range(count)]
                else:
                    held += _weighted_draw(hidden, count, lambda t, p=p: belief(p, t), rng)
                state._tickets.append(held)
                state._offers.append([hidden.pop() for _ in range(public["offered"])])
    if len(hidden) != observation["ticket_deck_size"]:
        raise ValueError("the observation's ticket counts do not add up")
    state._ticket_deck = hidden
    state._out = hidden_long

    _restore_extras(state, observation)
    state._keep_cache = {}
    state._phase = phase
    # In a sampled setup every seat still has its choice to make, this seat first.
    state._setup_left, state._setup_returns = (players if phase == SETUP else 0), []
    state._to_move = observation["to_move"]
    turns_left = observation["turns_left"]
    state._last_round = -1 if turns_left is None else turns_left
    state._passes = observation["passes"]
    state._result = None
    state.turn = observation["turn"]
    return state


def _restore_extras(state: BoardState, observation: dict[str, Any]) -> None:
    """The city editions' extra components: all public, copied from the observation."""
    rules, board = state.rules, state.board
    public = observation["public"]
    state._merch = [p.get("merchandise", 0) for p in public]
    state._merch_left = observation.get("merchandise_left", 0)
    symbol = {s: i for i, s in enumerate(rules.tourist_symbols)}
    state._tokens = [sum(1 << symbol[s] for s in p.get("tourist_tokens", ())) for p in public]
    state._stacks = {
        board.city_index[c]: [symbol[v["symbol"]], v["tokens"]]
        for c, v in observation.get("tourist_stacks", {}).items()
    }
    state._placements = [
        (p["seat"], symbol[p["symbol"]], p["tokens"])
        for p in observation.get("stacks_to_place", ())
    ]
    state._token_offer = [board.city_index[c] for c in observation.get("token_choices", ())]
    state._stations = [[board.city_index[c] for c in p.get("stations", ())] for p in public]
    state._station_at = {c: p for p, cities in enumerate(state._stations) for c in cities}
    state._tunnel = None


def _deal_setup_offers(
    state: BoardState,
    seat: int,
    offered: list[int],
    hidden: list[int],
    hidden_long: list[int],
    long: tuple[bool, ...],
) -> None:
    """Setup: whether or not the other seats have chosen yet, what they were offered is
    unseen and their choices are hidden, so each is dealt an offer like this seat's
    (as many long and regular tickets) and chooses after it. Their returns were not yet
    back in the deck, so the rest of ``hidden`` is exactly the ticket deck."""
    longs = sum(long[t] for t in offered)
    for p in range(state.num_players):
        state._tickets.append([])
        if p == seat:
            state._offers.append(offered)
        else:
            deal = [hidden_long.pop() for _ in range(longs)]
            deal += [hidden.pop() for _ in range(len(offered) - longs)]
            state._offers.append(deal)


def _weighted_draw(
    pool: list[int], count: int, weight: Callable[[int], float], rng: random.Random
) -> list[int]:
    """Remove and return ``count`` members of ``pool`` drawn without replacement with
    probability proportional to ``weight`` (Efraimidis–Spirakis keys); the rest of
    ``pool`` keeps its random order."""
    if count <= 0:
        return []
    keyed = sorted(
        ((rng.random() ** (1.0 / weight(t)), i) for i, t in enumerate(pool)), reverse=True
    )
    chosen = sorted(i for _, i in keyed[:count])
    drawn = [pool[i] for i in chosen]
    for i in reversed(chosen):
        pool.pop(i)
    return drawn
