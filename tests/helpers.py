"""White-box helpers that put a game into a chosen position for rule tests."""

from __future__ import annotations

from arena.engine.state import TURN, BoardState
from arena.variants import new_game

COLOURS = ("pink", "white", "blue", "yellow", "orange", "black", "red", "green")


def card(name: str) -> int:
    """Card index by name; 'wild' is the locomotive."""
    return len(COLOURS) if name == "wild" else COLOURS.index(name)


def started(players: int = 4, seed: int = 1) -> BoardState:
    """A USA game past the initial ticket choice (every seat keeps all three)."""
    state = new_game("usa", players, seed)
    while state.phase == "setup_tickets":
        state.apply("keep 0 1 2")
    assert state._phase == TURN
    return state


def set_hand(state: BoardState, seat: int, **counts: int) -> None:
    """Give ``seat`` exactly these cards; the cards taken or returned go via the deck.

    Keeps the 110-card total intact so conservation checks still hold.
    """
    hand = state._hands[seat]
    for c in range(len(hand)):
        state._deck.extend([c] * hand[c])
        hand[c] = 0
    for name, count in counts.items():
        c = card(name)
        for _ in range(count):
            state._deck.remove(c)
        hand[c] = count


def collect_cards(state: BoardState) -> None:
    """Move every train card (hands, display, discards) into the deck."""
    for hand in state._hands:
        for c, n in enumerate(hand):
            state._deck.extend([c] * n)
            hand[c] = 0
    for slot, c in enumerate(state._display):
        if c >= 0:
            state._deck.append(c)
        state._display[slot] = -1
    for c, n in enumerate(state._discards):
        state._deck.extend([c] * n)
        state._discards[c] = 0


def set_display(state: BoardState, names: list[str | None]) -> None:
    """Put exactly these cards face up (None = empty slot), swapping with the deck."""
    for c in state._display:
        if c >= 0:
            state._deck.append(c)
    for slot, name in enumerate(names):
        if name is None:
            state._display[slot] = -1
        else:
            c = card(name)
            state._deck.remove(c)
            state._display[slot] = c


def set_deck_top(state: BoardState, names: list[str]) -> None:
    """Make ``names`` the next cards drawn from the deck, first name first."""
    wanted = [card(n) for n in names]
    for c in wanted:
        state._deck.remove(c)
    state._deck.extend(reversed(wanted))


def total_cards(state: BoardState) -> int:
    """Every train card: deck, discards, face up, hands, and a pending tunnel's cards."""
    tunnel = state._tunnel
    pending = 0 if tunnel is None else tunnel[2] + tunnel[3] + len(tunnel[4])
    return (
        pending
        + len(state._deck)
        + sum(state._discards)
        + sum(1 for c in state._display if c >= 0)
        + sum(sum(h) for h in state._hands)
    )


def claim_for(state: BoardState, seat: int, route_id: int) -> None:
    """Give ``seat`` the route directly (no cards), as if claimed earlier."""
    r = route_id - 1
    board = state.board
    state._owner[r] = seat
    state._routes[seat].append(r)
    state._trains[seat] -= board.route_length[r]
    state._route_points[seat] += board.route_points[board.route_length[r]]
    state._free[board.route_colour[r]].remove(r)
    sib = board.route_sibling[r]
    if sib >= 0 and state.num_players < state.rules.double_routes_min_players:
        state._free[board.route_colour[sib]].remove(sib)


def route_id(state: BoardState, a: str, b: str, colour: str | None = None) -> int:
    """The 1-based id of the route between cities ``a`` and ``b`` (of ``colour`` if double)."""
    for route in state.board.data["routes"]:
        if {route["a"], route["b"]} == {a, b} and colour in (None, route["color"]):
            return route["id"]
    raise KeyError((a, b, colour))


def give(state: BoardState, seat: int, colour: str | None = None, count=0, wilds=0) -> None:
    """Exactly these cards in ``seat``'s hand, every other card in the deck or face up."""
    collect_cards(state)  # every card into the deck (other hands too), so any hand can be dealt
    hand = state._hands[seat]
    wanted = {len(hand) - 1: wilds}
    if colour is not None:
        wanted[state.board.colour_index[colour]] = count
    for c, n in wanted.items():
        for _ in range(n):
            state._deck.remove(c)
        hand[c] = n
    state._display[:] = [state._deck.pop(0) for _ in state._display]


def finish(state: BoardState):
    """End the game at once: nobody holds or can draw anything, so every seat passes."""
    for p in range(state.num_players):
        state._tickets[p].clear()
    for hand in state._hands:
        hand[:] = [0] * len(hand)
    state._deck.clear()
    state._ticket_deck.clear()
    state._display[:] = [-1] * len(state._display)
    state._discards[:] = [0] * len(state._discards)
    while not state.is_over:
        state.apply("pass")
    return state.result()
