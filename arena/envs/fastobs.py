"""The observation vector of a base board game, kept up to date from the engine's own state.

``ObservationEncoder`` builds a seat's vector from its typed observation (a msgspec Struct the
engine assembles on request): simple, and the reference. On the step path that costs more
than the move itself, so the environments of board games whose observation is the base
game's (USA, New York: ``BoardWriter.handles``) use this module instead: it reads the very
numbers the observation would hold (``state._hands[seat]``, the display, the piles, each
seat's public counts, the routes claimed...) and compares each with the number it last wrote
for that seat (``SeatMemory.prev``), so a step records only what changed since the seat's
last step, as (flat index, value) pairs that the caller writes into its preallocated NumPy
arrays with one call for any number of seats and games. Routes are only ever added and the
ticket block changes only with the seat's tickets, offer or routes, so those blocks are
visited only then.

It reads nothing the seat may not know: the same fields ``BoardState.observation(seat)``
reads, with the same hiding (another seat's ticket counts during the initial choice, the
offer only while choosing). ``tests/test_envs.py`` checks, over thousands of random steps,
that the vector equals the reference encoder's from scratch. mypyc compiles this module with
the engine (``arena/native.py``); the Python source gives identical numbers.
"""

from __future__ import annotations

from typing import Any

from arena.engine.game import KEEP, OVER, SETUP
from arena.engine.state import BoardState


def _start_of(fields: Any, name: str) -> int:
    for field in fields:
        if field.name == name:
            start: int = field.start
            return start
    raise KeyError(name)


class SeatMemory:
    """What one seat's vector holds now, number by number for the small fields (all zeros
    at first, as the row is allocated), and where the route and ticket blocks stand."""

    def __init__(
        self,
        players: int,
        cards: int,
        face_up: int,
        cities: int,
        reach: list[list[float]],
        tickets: int,
        ticket_cols: int,
    ) -> None:
        self.phase = -1  # the hot entry of each one-hot (-1: none written yet)
        self.mover = -1
        self.display: list[int] = [-1] * face_up
        self.hand: list[int] = [0] * cards
        self.discards: list[int] = [0] * cards
        self.seats: list[int] = [0] * (players * 5)  # per relative seat, its five numbers
        self.deck = 0
        self.ticket_deck = 0
        self.passes = 0
        self.last_round = 0
        self.turns_left = 0
        self.routes_seen: list[int] = [0] * players  # per absolute seat: its routes written
        self.held_seen = 0  # the tickets held and own routes the ticket block was written for
        self.offer_seen: list[int] = []
        self.own_routes_seen = 0
        self.tickets: list[float] = [0.0] * (tickets * ticket_cols)  # the block as written
        self.networks = Networks(cities, reach)
        # Per ticket index: the networks of its two ends when its progress was last computed
        # (-1: never), kept while neither network changed (a claim changes one network).
        self.end_a: list[int] = [-1] * tickets
        self.end_b: list[int] = [-1] * tickets


class Networks:
    """A seat's networks of own routes, grown route by route: union-find over the cities,
    each network's cities, and per network the fewest pieces from any of its cities to every
    city: the printed map's distances (``base``, shared by every seat and game, never
    changed), a row of its own only for a network of more than one city (merged with ``min``
    as networks join)."""

    def __init__(self, cities: int, base: list[list[float]]) -> None:
        self.parent: list[int] = list(range(cities))
        self.base = base
        self.grown: dict[int, list[int]] = {}  # root -> its cities, for networks of 2 or more
        self.reach: dict[int, list[float]] = {}  # root -> its own row, for the same
        self.changed: set[int] = set()

    def find(self, city: int) -> int:
        parent = self.parent
        while parent[city] != city:
            parent[city] = parent[parent[city]]
            city = parent[city]
        return city

    def members(self, root: int) -> list[int]:
        grown = self.grown.get(root)
        return [root] if grown is None else grown

    def row(self, root: int) -> list[float]:
        own = self.reach.get(root)
        return self.base[root] if own is None else own

    def join(self, a_city: int, b_city: int) -> None:
        a, b = self.find(a_city), self.find(b_city)
        if a == b:
            return
        self.parent[a] = b
        self.grown[b] = self.members(b) + self.members(a)
        self.grown.pop(a, None)
        into = self.reach.get(b)
        if into is None:
            into = self.reach[b] = self.base[b][:]
        other = self.row(a)
        for c in range(len(into)):
            if other[c] < into[c]:
                into[c] = other[c]
        self.reach.pop(a, None)
        self.changed.add(b)

    def nearest(self, a: int, b: int) -> float:
        """Fewest pieces from any city of network ``a`` to the nearest city of network ``b``."""
        row, cities = self.row(a), self.members(b)
        best = row[cities[0]]
        for city in cities:
            if row[city] < best:
                best = row[city]
        return best


class BoardWriter:
    """Writes one variant's vectors (one player count) for base board games; the layout is
    ``ObservationEncoder``'s, read from its fields."""

    def __init__(self, encoder: Any) -> None:
        fields = encoder.fields
        self.players: int = encoder.players
        self.size: int = encoder.size
        self.phase = _start_of(fields, "phase")
        self.to_move = _start_of(fields, "to_move")
        self.hand = _start_of(fields, "hand")
        self.display = _start_of(fields, "display")
        self.cards: int = len(encoder.cards)
        self.face_up: int = encoder.face_up
        self.deck = _start_of(fields, "deck_size")
        self.ticket_deck = _start_of(fields, "ticket_deck_size")
        self.discards = _start_of(fields, "discards")
        self.seats = _start_of(fields, "seats")
        self.per_seat: int = encoder.per_seat
        self.passes = _start_of(fields, "passes")
        self.last_round = _start_of(fields, "last_round")
        self.turns_left = _start_of(fields, "turns_left")
        self.tickets = _start_of(fields, "tickets")
        self.ticket_cols: int = encoder.ticket_cols
        self.routes = _start_of(fields, "routes")
        self.route_cols: int = encoder.route_cols
        board = encoder.board
        self.num_tickets: int = len(board.tickets)
        self.ticket_a: list[int] = list(board.ticket_a)
        self.ticket_b: list[int] = list(board.ticket_b)
        self.route_a: list[int] = list(board.route_a)
        self.route_b: list[int] = list(board.route_b)
        self.cities: int = len(board.cities)
        self.reach: list[list[float]] = [[float(x) for x in row] for row in encoder.distance]

    @staticmethod
    def handles(state_type: type) -> bool:
        """Whether games of ``state_type`` show exactly the base board game's observation
        (no edition adds fields to it): then this writer encodes them."""
        if not issubclass(state_type, BoardState):
            return False
        for klass in state_type.__mro__:
            if klass is BoardState:
                return True
            names = vars(klass)
            if "_observation_fields" in names or "_seat_fields" in names:
                return False
        return False

    def memory(self) -> SeatMemory:
        """A seat's memory at the start of a game (its vector all zeros, as allocated)."""
        return SeatMemory(
            self.players,
            self.cards,
            self.face_up,
            self.cities,
            self.reach,
            self.num_tickets,
            self.ticket_cols,
        )

    def update(
        self,
        state: BoardState,
        seat: int,
        memory: SeatMemory,
        base: int,
        idx: list[int],
        val: list[float],
    ) -> None:
        """Append to ``idx``/``val`` (each index plus ``base``) the numbers of ``seat``'s
        vector that changed since ``memory`` last saw it, and remember the new ones."""
        n = self.players
        phase = state._phase
        if phase != memory.phase:
            _move_hot(self.phase, memory.phase, phase, base, idx, val)
            memory.phase = phase
        mover = n if phase == OVER else (state._to_move - seat) % n
        if mover != memory.mover:
            _move_hot(self.to_move, memory.mover, mover, base, idx, val)
            memory.mover = mover
        _counts(self.hand, state._hands[seat], memory.hand, base, idx, val)
        display, shown = state._display, memory.display
        width = self.cards + 1
        for slot in range(len(display)):
            card = display[slot]
            hot = card if card >= 0 else self.cards
            if hot != shown[slot]:
                _move_hot(self.display + slot * width, shown[slot], hot, base, idx, val)
                shown[slot] = hot
        deck = len(state._deck)
        if deck != memory.deck:
            memory.deck = deck
            _one(self.deck, float(deck), base, idx, val)
        ticket_deck = len(state._ticket_deck)
        if ticket_deck != memory.ticket_deck:
            memory.ticket_deck = ticket_deck
            _one(self.ticket_deck, float(ticket_deck), base, idx, val)
        _counts(self.discards, state._discards, memory.discards, base, idx, val)
        self._seats(state, seat, memory, base, idx, val)
        if state._passes != memory.passes:
            memory.passes = state._passes
            _one(self.passes, float(state._passes), base, idx, val)
        last = state._last_round
        flag, left = (1, last) if last >= 0 else (0, -1)
        if flag != memory.last_round:
            memory.last_round = flag
            _one(self.last_round, float(flag), base, idx, val)
        if left != memory.turns_left:
            memory.turns_left = left
            _one(self.turns_left, float(left), base, idx, val)
        self._routes(state, seat, memory, base, idx, val)
        self._tickets(state, seat, memory, base, idx, val)

    def _seats(
        self,
        state: BoardState,
        seat: int,
        memory: SeatMemory,
        base: int,
        idx: list[int],
        val: list[float],
    ) -> None:
        """Per relative seat: hand size, tickets, offered (-1: hidden), trains, points."""
        n, setup = self.players, state._phase == SETUP
        hands, tickets, offers = state._hands, state._tickets, state._offers
        trains, points = state._trains, state._route_points
        known, start = memory.seats, self.seats
        for rel in range(n):
            p = seat + rel
            if p >= n:
                p -= n
            hidden = setup and p != seat
            at = rel * 5
            cards = 0
            for count in hands[p]:
                cards += count
            _count(start + at, cards, known, at, base, idx, val)
            _count(start + at + 1, -1 if hidden else len(tickets[p]), known, at + 1, base, idx, val)
            _count(start + at + 2, -1 if hidden else len(offers[p]), known, at + 2, base, idx, val)
            _count(start + at + 3, trains[p], known, at + 3, base, idx, val)
            _count(start + at + 4, points[p], known, at + 4, base, idx, val)

    def _routes(
        self,
        state: BoardState,
        seat: int,
        memory: SeatMemory,
        base: int,
        idx: list[int],
        val: list[float],
    ) -> None:
        """Claims are only ever added: write the ones this seat has not seen yet."""
        n, cols, seen = self.players, self.route_cols, memory.routes_seen
        for p in range(n):
            routes = state._routes[p]
            if len(routes) == seen[p]:
                continue
            rel = (p - seat) % n
            for k in range(seen[p], len(routes)):
                _one(self.routes + routes[k] * cols + rel, 1.0, base, idx, val)
            seen[p] = len(routes)

    def _tickets(
        self,
        state: BoardState,
        seat: int,
        memory: SeatMemory,
        base: int,
        idx: list[int],
        val: list[float],
    ) -> None:
        """The ticket block, visited when the seat's tickets, offer or routes changed; only
        the numbers of tickets newly held, offered then or now, or whose networks changed
        are compared with what the block holds. A game only ever adds to a seat's tickets
        and routes (a kept ticket is never returned), so the ones past ``held_seen`` and
        ``own_routes_seen`` are the new ones."""
        held = state._tickets[seat]
        phase = state._phase
        choosing = state._to_move == seat and phase in (SETUP, KEEP)
        offer: list[int] = state._offers[seat] if choosing else []
        own = state._routes[seat]
        before = memory.offer_seen
        grown = len(own) != memory.own_routes_seen
        if len(held) == memory.held_seen and not grown and offer == before:
            return
        cols, at, block = self.ticket_cols, base + self.tickets, memory.tickets
        if offer != before:
            positions: dict[int, float] = {}
            for t in before:
                positions[t] = 0.0
            for position in range(len(offer)):
                positions[offer[position]] = float(position + 1)
            for t, position_value in positions.items():
                _set(block, t * cols + 1, position_value, at, idx, val)
            memory.offer_seen = list(offer)
        first_new = memory.held_seen
        for k in range(first_new, len(held)):
            _set(block, held[k] * cols, 1.0, at, idx, val)
        networks = memory.networks
        for k in range(memory.own_routes_seen, len(own)):
            networks.join(self.route_a[own[k]], self.route_b[own[k]])
        changed = networks.changed
        end_a, end_b = memory.end_a, memory.end_b
        for k in range(0 if grown else first_new, len(held)):
            t = held[k]
            a, b = networks.find(self.ticket_a[t]), networks.find(self.ticket_b[t])
            if end_a[t] == a and end_b[t] == b and a not in changed and b not in changed:
                continue
            end_a[t], end_b[t] = a, b
            row = t * cols
            if a == b:
                _set(block, row + 2, 1.0, at, idx, val)
                _set(block, row + 3, 0.0, at, idx, val)
            else:
                _set(block, row + 2, 0.0, at, idx, val)
                _set(block, row + 3, networks.nearest(a, b), at, idx, val)
        changed.clear()
        memory.held_seen, memory.own_routes_seen = len(held), len(own)


def _set(
    block: list[float], k: int, value: float, at: int, idx: list[int], val: list[float]
) -> None:
    """Number ``k`` of a block (at ``at`` in the flat array) becomes ``value``, if it differs."""
    if block[k] != value:
        block[k] = value
        idx.append(at + k)
        val.append(value)


def _one(at: int, value: float, base: int, idx: list[int], val: list[float]) -> None:
    idx.append(base + at)
    val.append(value)


def _move_hot(at: int, old: int, new: int, base: int, idx: list[int], val: list[float]) -> None:
    """A one-hot whose hot entry moves from ``old`` (-1: none) to ``new``."""
    if old >= 0:
        idx.append(base + at + old)
        val.append(0.0)
    idx.append(base + at + new)
    val.append(1.0)


def _count(
    at: int, value: int, known: list[int], k: int, base: int, idx: list[int], val: list[float]
) -> None:
    if known[k] != value:
        known[k] = value
        idx.append(base + at)
        val.append(float(value))


def _counts(
    at: int, counts: list[int], known: list[int], base: int, idx: list[int], val: list[float]
) -> None:
    """Counts per card, compared one by one with the ones the row holds."""
    for i in range(len(known)):
        value = counts[i]
        if known[i] != value:
            known[i] = value
            idx.append(base + at + i)
            val.append(float(value))


def legal_indices(
    state: BoardState, space: Any, by_id: dict[int, int], base: int, flat: list[int]
) -> None:
    """Append ``base`` plus the action-space index of each legal action to ``flat``: a
    dictionary hit on each action's identity, the space's lookup by value for the few
    actions a game built for itself."""
    for action in state.legal_actions():
        index = by_id.get(id(action), -1)
        if index < 0:
            index = space.index(action)
        flat.append(base + index)


def play_self(
    writer: BoardWriter,
    states: list[BoardState],
    actions: list[int],
    table: tuple[Any, ...],
    memories: list[list[SeatMemory]],
    space: Any,
    seats: list[int],
    changes: tuple[list[int], list[float]],
    legal: list[int],
    ended: list[int],
) -> None:
    """One step of a batch of self-play games: play ``actions[i]`` (already checked legal) in
    game ``i``, then queue the vector changes of the seat now to move (``seats[i]``) and its
    legal actions (flat indices into the batch's masks); games that ended are listed in
    ``ended`` for the caller, unobserved."""
    size, players, width = writer.size, writer.players, len(table)
    by_id: dict[int, int] = space._by_id
    idx, val = changes
    for i in range(len(states)):
        state = states[i]
        state.apply(table[actions[i]])
        if state._phase == OVER:
            ended.append(i)
            continue
        seat = state._to_move
        seats[i] = seat
        writer.update(state, seat, memories[i][seat], (i * players + seat) * size, idx, val)
        legal_indices(state, space, by_id, i * width, legal)
