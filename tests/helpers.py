"""Helpers that put a game into a chosen position for rule tests, through positions only.

A test reads a state's position (``position(state)``, the JSON of
``state.to_position()`` as a dict), changes it, and loads it back
(``load(state, data)``): the engine checks every loaded position (every card
and ticket accounted for once), so a scenario can never be built on an
impossible state. Each helper returns the new state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from arena.engine import BoardState, GameBase
from arena.variants import new_game

COLOURS = ("pink", "white", "blue", "yellow", "orange", "black", "red", "green")

Position = dict[str, Any]


def position(state: GameBase) -> Position:
    """The state's position as plain data."""
    data: Position = msgspec.json.decode(state.to_position())
    return data


def load(state: GameBase, data: Position) -> Any:
    """A new state of ``state``'s variant from the position ``data``."""
    return state.variant.from_position(msgspec.json.encode(data))


def edit(state: GameBase, change: Callable[[Position], None]) -> Any:
    """``state`` with its position changed by ``change`` (which edits the dict in place)."""
    data = position(state)
    change(data)
    return load(state, data)


def started(players: int = 4, seed: int = 1, variant: str = "usa") -> Any:
    """A game past the initial ticket choice (every seat keeps every ticket offered)."""
    state = new_game(variant, players, seed)
    while state.phase == "setup_tickets":
        state.apply(state.legal_actions()[-1])
    assert state.phase == "turn"
    return state


def _take(deck: list[str], name: str, count: int = 1) -> None:
    """Remove ``count`` cards ``name`` from a pile (the deck)."""
    for _ in range(count):
        deck.remove(name)


def collect(data: Position) -> None:
    """Every train card of the position (hands, display, discards) into the deck."""
    deck = data["deck"]
    for hand in data["hands"]:
        for name, n in hand.items():
            deck.extend([name] * n)
            hand[name] = 0
    deck.extend(name for name in data["display"] if name is not None)
    data["display"] = [None] * len(data["display"])
    for name, n in data["discards"].items():
        deck.extend([name] * n)
        data["discards"][name] = 0


def set_hand(state: GameBase, seat: int, **counts: int) -> Any:
    """``seat`` holds exactly these cards; the cards it gave back and those it took go
    through the deck (every other hand and the display stay as they are)."""

    def change(data: Position) -> None:
        hand = data["hands"][seat]
        for name, n in hand.items():
            data["deck"].extend([name] * n)
            hand[name] = 0
        for name, n in counts.items():
            _take(data["deck"], name, n)
            hand[name] = n

    return edit(state, change)


def deal(state: GameBase, seat: int, **counts: int) -> Any:
    """Exactly these cards in ``seat``'s hand, no card in any other hand or the discards,
    the display dealt from the bottom of the deck."""

    def change(data: Position) -> None:
        collect(data)
        deck = data["deck"]
        hand = data["hands"][seat]
        for name, n in counts.items():
            _take(deck, name, n)
            hand[name] = n
        data["display"] = [deck.pop(0) for _ in data["display"]]

    return edit(state, change)


def give(state: GameBase, seat: int, colour: str | None = None, count: int = 0, wilds: int = 0):
    """``deal``: ``count`` cards of ``colour`` and ``wilds`` wilds."""
    return deal(state, seat, **({colour: count} if colour else {}), wild=wilds)


def set_display(state: GameBase, names: list[str | None]) -> Any:
    """Exactly these cards face up (None: an empty slot), swapped with the deck."""

    def change(data: Position) -> None:
        deck = data["deck"]
        deck.extend(name for name in data["display"] if name is not None)
        for name in names:
            if name is not None:
                _take(deck, name)
        data["display"] = list(names)

    return edit(state, change)


def set_deck_top(state: GameBase, names: list[str]) -> Any:
    """``names`` are the next cards drawn from the deck, first name first."""

    def change(data: Position) -> None:
        deck = data["deck"]
        for name in names:
            _take(deck, name)
        deck.extend(reversed(names))

    return edit(state, change)


def total_cards(state: GameBase) -> int:
    """Every train card of the position: deck, discards, face up, hands, and the variant's
    own piles (a pending tunnel, Train Yards, On-the-Track piles)."""
    return cards_in(position(state))


def cards_in(data: Position) -> int:
    """``total_cards`` of a position already read (``position(state)``)."""
    total = len(data["deck"]) + sum(data["discards"].values())
    total += sum(1 for name in data["display"] if name is not None)
    total += sum(sum(hand.values()) for hand in data["hands"])
    tunnel = data.get("tunnel")
    if tunnel:
        total += tunnel["cards"] + tunnel["wilds"] + len(tunnel["turned"])
    for yard in data.get("yards", ()):
        total += sum(group["cards"] + group["wilds"] for group in yard.values())
    for track in data.get("tracks", ()):
        total += sum(track.values())
    return total


def claim_for(state: BoardState, seat: int, route_id: int) -> Any:
    """``seat`` owns the route (as if claimed earlier; no cards change hands)."""
    return edit(state, lambda data: data["routes"][seat].append(route_id))


def route_id(state: BoardState, a: str, b: str, colour: str | None = None) -> int:
    """The 1-based id of the route between cities ``a`` and ``b`` (of ``colour`` if double)."""
    for route in state.board.data["routes"]:
        if {route["a"], route["b"]} == {a, b} and colour in (None, route["color"]):
            return int(route["id"])
    raise KeyError((a, b, colour))


def owner(state: BoardState, route: int) -> int:
    """The seat owning route ``route`` (its id), -1 when free."""
    return int(state.route_owner[route - 1])


def finish(state: GameBase, change: Callable[[Position], None] | None = None):
    """End the game at once and return its result: every seat's tickets go back to the
    ticket deck (so only what the test set up scores), then ``change`` edits the rest."""

    def over(data: Position) -> None:
        for held in data["tickets"]:
            data["ticket_deck"] += held
            held.clear()
        if change is not None:
            change(data)
        data["phase"] = "over"

    return edit(state, over).result()


def spend_trains(state: BoardState, seat: int, trains: int, avoid: tuple[int, ...] = ()) -> Any:
    """``seat`` owns free routes (never ``avoid``, never both tracks of a double) whose
    lengths add up to exactly ``trains``: it has that many pieces fewer."""
    board = state.board
    taken = {r for r in range(board.num_routes) if state.route_owner[r] >= 0}
    taken |= {board.route_sibling[r] for r in taken} | {r - 1 for r in avoid}
    chosen: list[int] = []
    left = trains
    for r in sorted(range(board.num_routes), key=lambda r: -board.route_length[r]):
        if r in taken or board.route_length[r] > left:
            continue
        chosen.append(r + 1)
        taken |= {r, board.route_sibling[r]}
        left -= board.route_length[r]
    assert left == 0, f"no free routes add up to {trains} trains"
    return edit(state, lambda data: data["routes"][seat].extend(chosen))


def hold(data: Position, seat: int, tickets: list[int], pile: str = "tickets") -> None:
    """In the position ``data``: ``seat`` holds exactly these tickets (ids) in ``pile``
    (``"tickets"``, or ``"offers"``: drawn, to keep or return), taken from wherever they
    were; the tickets it had there go to the ticket deck."""
    piles = [data["ticket_deck"], data.get("out", []), *data["tickets"], *data["offers"]]
    for found in piles:
        found[:] = [t for t in found if t not in tickets]
    data["ticket_deck"] += data[pile][seat]
    data[pile][seat] = list(tickets)
