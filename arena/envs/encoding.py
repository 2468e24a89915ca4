"""A seat's typed observation as a fixed-size numeric vector, and the layout that documents it.

The encoder reads nothing but ``state.observation(seat)`` (plus the printed map, which every
player sees), so it cannot leak what the seat may not know. Seats are written relative to the
observing seat (0 = itself, 1 = the next to play after it, ...), so one policy can play any seat.

It is incremental: the vector is kept per seat, and the large blocks (route owners, tickets,
stations) are rewritten only when the part of the observation they come from changed; the
small fields are written every time. ``encode`` returns a fresh array each call.
docs/ENVS.md lists every field; ``ObservationEncoder.layout`` is the same list in code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.engine import Observation, Variant

NONE = -1.0  # a number the seat cannot know (another seat's tickets during the initial choice)
HIGHEST = 1000.0  # no number of any field reaches it (the observation space's bound)
UNREACHABLE = 99.0  # pieces still needed between cities the printed map does not connect


@dataclass(frozen=True)
class Field:
    """One named run of numbers in the vector."""

    name: str
    start: int
    size: int
    meaning: str

    @property
    def stop(self) -> int:
        return self.start + self.size


class _Layout:
    def __init__(self) -> None:
        self.fields: list[Field] = []
        self.size = 0

    def add(self, name: str, size: int, meaning: str) -> slice:
        self.fields.append(Field(name, self.size, size, meaning))
        self.size += size
        return slice(self.size - size, self.size)


class ObservationEncoder:
    """Encodes one variant's observations for one player count (``encode(observation)``)."""

    def __init__(self, variant: Variant, players: int) -> None:
        self.variant, self.players = variant, players
        board, rules = variant.board, variant.rules
        self.board = board
        self.phases: tuple[str, ...] = variant.phases
        self.phase_index = {phase: i for i, phase in enumerate(self.phases)}
        self.cards: tuple[str, ...] = (*rules.colours, "wild")
        width = len(self.cards) + 1  # a display slot: one-hot over the cards, then empty
        self.display_index = {
            (slot, card): slot * width + i
            for slot in range(rules.face_up)
            for i, card in enumerate((*self.cards, None))
        }
        self.colours: tuple[str, ...] = tuple(rules.colours)
        self.face_up: int = rules.face_up
        self.is_board = hasattr(board, "route_key")
        self.is_europe = hasattr(board, "station_table")
        self.is_cardgame = hasattr(board, "group_actions")
        self.tickets = board.tickets
        self.ticket_index = {t.id: i for i, t in enumerate(board.tickets)}
        self.offer_size = max(
            getattr(rules, "initial_tickets_dealt", 0) + getattr(rules, "initial_long_tickets", 0),
            getattr(rules, "deal_tickets", 0),
            rules.draw_tickets,
        )
        if self.is_board:
            self.route_index = {key: r for r, key in enumerate(board.route_key)}
            self.distance = _distances(board)
        if self.is_europe:
            self.city_index = dict(board.city_index)
        self._build_layout()
        self._buffers: dict[int, np.ndarray] = {}
        self._seen: dict[int, dict[str, Any]] = {}

    # ------------------------------------------------------------------ layout

    def _build_layout(self) -> None:
        n, cards = self.players, len(self.cards)
        layout = _Layout()
        add = layout.add
        add("phase", len(self.phases), f"one-hot over the phases {', '.join(self.phases)}")
        add("to_move", n + 1, "one-hot: the relative seat to move, last entry: nobody (over)")
        add("hand", cards, f"own train cards per card ({', '.join(self.cards)})")
        add("display", self.face_up * (cards + 1), "per face-up slot, one-hot card, last: empty")
        add("deck_size", 1, "train cards in the deck")
        add("ticket_deck_size", 1, "tickets in the ticket deck")
        add("discards", cards, "train cards in the discard pile, per card")
        per_seat = ["hand_size", "tickets (-1: unknown)", "offered (-1: unknown)"]
        if self.is_board:
            per_seat += ["trains left", "route points"]
        if self.is_europe:
            per_seat += ["stations built"]
        if self.is_cardgame:
            per_seat += ["On-the-Track pile size", "tickets completed"]
            per_seat += [f"yard {c} cards" for c in self.colours]
            per_seat += [f"yard {c} locomotives" for c in self.colours]
        self.per_seat = len(per_seat)
        add("seats", n * len(per_seat), "per relative seat: " + ", ".join(per_seat))
        add("passes", 1, "players who passed in a row")
        add("last_round", 1, "1 once the last round has begun")
        add("turns_left", 1, "turns left in the last round (-1 before it)")
        if self.is_europe:
            add("tickets_out", 1, "tickets out of the game (-1 until every seat has chosen)")
            add(
                "tunnel",
                4 + 2 * cards,
                "pending tunnel: active, cards, wilds, extra asked, "
                "one-hot colour paid (wild: wilds only), cards turned per card",
            )
        if self.is_cardgame:
            add("round", 1, "the round (2 in a 4-player game's second)")
            add("track_visible", 1, "1 when the own On-the-Track pile is shown")
            add("track", cards, "own On-the-Track pile per card (0 while hidden)")
            add("chosen", n, "at a scoring: relative seats done choosing")
        self.dynamic = layout.size
        ticket_cols = ["held", "offered position + 1 (0: not offered)"]
        if self.is_board:
            ticket_cols += ["completed by own routes", "pieces still needed (own routes free)"]
        if self.is_cardgame:
            ticket_cols += ["in own choice at a scoring", "completed by this seat"]
        self.ticket_cols = len(ticket_cols)
        self.tickets_slice = add(
            "tickets",
            len(self.tickets) * len(ticket_cols),
            "per ticket id: " + ", ".join(ticket_cols),
        )
        if self.is_board:
            routes = self.board.num_routes
            cols = n + (1 if self.is_europe else 0)
            what = "one-hot relative owner seat" + (", pending tunnel" if self.is_europe else "")
            self.route_cols = cols
            self.routes_slice = add("routes", routes * cols, f"per route id: {what}")
        if self.is_europe:
            self.stations_slice = add(
                "stations", len(self.board.cities) * n, "per city: one-hot relative seat"
            )
        self.fields = tuple(layout.fields)
        self.size = layout.size

    @property
    def layout(self) -> tuple[Field, ...]:
        return self.fields

    # ------------------------------------------------------------------ encoding

    def reset(self) -> None:
        """Forget the cached blocks (a new game); ``encode`` also notices a new game itself."""
        self._buffers.clear()
        self._seen.clear()

    def encode(self, observation: Observation) -> np.ndarray:
        """The vector of ``observation`` (float32, ``self.size`` long, a new array)."""
        seat = observation.seat
        buffer = self._buffers.get(seat)
        if buffer is None:
            buffer = self._buffers[seat] = np.zeros(self.size, dtype=np.float32)
            self._seen[seat] = {}
        seen = self._seen[seat]
        buffer[: self.dynamic] = self._dynamic(observation)
        self._tickets(observation, buffer, seen)
        if self.is_board:
            self._routes(observation, buffer, seen)
        if self.is_europe:
            self._stations(observation, buffer, seen)
        return buffer.copy()

    def _rel(self, seat: int, other: int) -> int:
        return (other - seat) % self.players

    def _dynamic(self, obs: Any) -> list[float]:
        n, seat, cards = self.players, obs.seat, self.cards
        out: list[float] = [0.0] * (len(self.phases) + n + 1)
        out[self.phase_index[obs.phase]] = 1.0
        to_move = obs.to_move
        out[len(self.phases) + (n if to_move is None else self._rel(seat, to_move))] = 1.0
        out += self._per_card(obs.hand)
        display = [0.0] * (self.face_up * (len(cards) + 1))
        slot_of = self.display_index
        for slot, card in enumerate(obs.display):
            display[slot_of[slot, card]] = 1.0
        out += display
        out.append(obs.deck_size)
        out.append(obs.ticket_deck_size)
        out += self._per_card(obs.discards)
        public = obs.public
        for rel in range(n):
            view = public[(seat + rel) % n]
            out.append(view.hand_size)
            out.append(NONE if view.tickets is None else view.tickets)
            out.append(NONE if view.offered is None else view.offered)
            if self.is_board:
                out.append(view.trains)
                out.append(view.route_points)
            if self.is_europe:
                out.append(len(view.stations))
            if self.is_cardgame:
                out.append(view.track_size)
                out.append(len(view.completed))
                yard = view.yard
                groups = [yard.get(c) for c in self.colours]
                out += [0 if g is None else g.cards for g in groups]
                out += [0 if g is None else g.wilds for g in groups]
        out.append(obs.passes)
        out.append(1.0 if obs.last_round else 0.0)
        out.append(NONE if obs.turns_left is None else obs.turns_left)
        if self.is_europe:
            out.append(NONE if obs.tickets_out is None else obs.tickets_out)
            out += self._tunnel(obs.tunnel)
        if self.is_cardgame:
            out.append(obs.round)
            track = obs.track
            out.append(0.0 if track is None else 1.0)
            out += [0 if track is None else track.get(c, 0) for c in cards]
            chosen = [0.0] * n
            for other in obs.chosen:
                chosen[self._rel(seat, other)] = 1.0
            out += chosen
        return out

    def _per_card(self, counts: dict[str, int]) -> list[int]:
        """Counts by card name, in card order (the engine writes them in that order)."""
        if tuple(counts) == self.cards:
            return list(counts.values())
        return [counts.get(c, 0) for c in self.cards]

    def _tunnel(self, tunnel: Any) -> list[float]:
        cards = self.cards
        if tunnel is None:
            return [0.0] * (4 + 2 * len(cards))
        colour = [0.0] * len(cards)
        colour[cards.index(tunnel.colour)] = 1.0
        turned = [float(tunnel.turned.count(c)) for c in cards]
        return [1.0, tunnel.cards, tunnel.wilds, tunnel.extra, *colour, *turned]

    def _tickets(self, obs: Any, buffer: np.ndarray, seen: dict[str, Any]) -> None:
        own = obs.public[obs.seat]
        held = tuple(t.id for t in obs.tickets)
        offered = tuple(t.id for t in obs.offered_tickets)
        extra: tuple[Any, ...] = ()
        if self.is_board:
            extra = tuple(own.routes)
        if self.is_cardgame:
            choice = obs.own_choice
            extra = (
                None if choice is None else tuple(t.id for t in choice),
                tuple(t.id for t in own.completed),
            )
        key = (held, offered, extra)
        if seen.get("tickets") == key:
            return
        seen["tickets"] = key
        cols = self.ticket_cols
        block = np.zeros((len(self.tickets), cols), dtype=np.float32)
        index = self.ticket_index
        for i in held:
            block[index[i], 0] = 1.0
        for position, i in enumerate(offered):
            block[index[i], 1] = position + 1
        if self.is_board and held:
            self._progress(own.routes, held, block, seen)
        if self.is_cardgame:
            choice, completed = extra
            for i in choice or ():
                block[index[i], 2] = 1.0
            for i in completed:
                block[index[i], 3] = 1.0
        buffer[self.tickets_slice] = block.ravel()

    def _progress(
        self, routes: Sequence[int], held: Sequence[int], block: np.ndarray, seen: dict[str, Any]
    ) -> None:
        """Completed (own routes connect the ends) and pieces still needed, the shortest way
        on the printed map where the own routes cost nothing (others' routes are not avoided).
        Kept until the seat's tickets or routes change (not when only an offer does)."""
        key = (tuple(held), tuple(routes))
        known = seen.get("progress")
        if known is not None and known[0] == key:
            block[:, 2:4] = known[1]
            return
        networks = seen.get("networks")
        if networks is None or not networks.follows(routes):
            networks = seen["networks"] = Networks(self.board, self.distance)
            seen["ticket_progress"] = {}
        networks.extend(routes)
        changed = networks.take_changed()
        # Per ticket: its ends' networks and its two numbers, kept while neither network
        # changed (a claim changes one network; most tickets touch others).
        memo: dict[int, tuple[int, int, float, float]] = seen["ticket_progress"]
        index, ticket_a, ticket_b = self.ticket_index, self.board.ticket_a, self.board.ticket_b
        for ticket_id in held:
            t = index[ticket_id]
            a, b = networks.find(ticket_a[t]), networks.find(ticket_b[t])
            known = memo.get(t)
            if known is None or known[:2] != (a, b) or a in changed or b in changed:
                if a == b:
                    known = (a, b, 1.0, 0.0)
                else:  # from any city of a's network to the nearest city of b's
                    known = (a, b, 0.0, float(networks.reach[a][networks.members[b]].min()))
                memo[t] = known
            block[t, 2], block[t, 3] = known[2], known[3]
        seen["progress"] = (key, block[:, 2:4].copy())

    def _routes(self, obs: Any, buffer: np.ndarray, seen: dict[str, Any]) -> None:
        claimed = obs.claimed
        tunnel = obs.tunnel.route if self.is_europe and obs.tunnel is not None else None
        before: dict[int, int] = seen.get("claimed", {})
        block = seen.get("routes")
        if block is not None and before == claimed and seen.get("tunnel") == tunnel:
            return
        cols, seat, index = self.route_cols, obs.seat, self.route_index
        if block is None or not claimed.items() >= before.items():  # another game: start over
            block = seen["routes"] = np.zeros((self.board.num_routes, cols), dtype=np.float32)
            before = {}
        for key in claimed.keys() - before.keys():  # claims are only ever added
            block[index[key], self._rel(seat, claimed[key])] = 1.0
        if self.is_europe:
            block[:, cols - 1] = 0.0
            if tunnel is not None:
                block[tunnel - 1, cols - 1] = 1.0
        seen["claimed"], seen["tunnel"] = dict(claimed), tunnel
        buffer[self.routes_slice] = block.ravel()

    def _stations(self, obs: Any, buffer: np.ndarray, seen: dict[str, Any]) -> None:
        stations = tuple(tuple(view.stations) for view in obs.public)
        if seen.get("stations") == stations:
            return
        seen["stations"] = stations
        block = np.zeros((len(self.board.cities), self.players), dtype=np.float32)
        for owner, cities in enumerate(stations):
            for city in cities:
                block[self.city_index[city], self._rel(obs.seat, owner)] = 1.0
        buffer[self.stations_slice] = block.ravel()


class Networks:
    """A seat's networks of own routes, grown route by route (routes are only ever added):
    union-find over the cities, each network's cities, and for each network the fewest
    pieces from any of its cities to every city of the map (the rows of ``distance``
    merged with ``minimum`` as networks join)."""

    def __init__(self, board: Any, distance: np.ndarray) -> None:
        self.board = board
        self.routes: list[int] = []
        self.parent = list(range(len(board.cities)))
        self.members: dict[int, list[int]] = {c: [c] for c in self.parent}
        self.reach = distance.copy()
        self.changed: set[int] = set()  # networks grown since ``take_changed``

    def follows(self, routes: Sequence[int]) -> bool:
        """Whether ``routes`` extends the routes seen so far (else: another game)."""
        return list(routes[: len(self.routes)]) == self.routes

    def find(self, city: int) -> int:
        parent = self.parent
        while parent[city] != city:
            parent[city] = parent[parent[city]]
            city = parent[city]
        return city

    def extend(self, routes: Sequence[int]) -> None:
        board = self.board
        for route_id in routes[len(self.routes) :]:
            a = self.find(board.route_a[route_id - 1])
            b = self.find(board.route_b[route_id - 1])
            if a != b:
                self.parent[a] = b
                self.members[b] += self.members.pop(a)
                np.minimum(self.reach[a], self.reach[b], out=self.reach[b])
                self.changed.add(b)
            self.routes.append(route_id)

    def take_changed(self) -> set[int]:
        """The networks (by root) whose cities or reach changed since the last call."""
        changed, self.changed = self.changed, set()
        return changed


def _distances(board: Any) -> np.ndarray:
    """Fewest train pieces between every two cities of the printed map (Floyd-Warshall)."""
    cities = len(board.cities)
    distance = np.full((cities, cities), np.inf, dtype=np.float32)
    np.fill_diagonal(distance, 0.0)
    for r in range(board.num_routes):
        a, b, length = board.route_a[r], board.route_b[r], board.route_length[r]
        distance[a, b] = distance[b, a] = min(distance[a, b], length)
    for k in range(cities):
        distance = np.minimum(distance, distance[:, k : k + 1] + distance[k : k + 1, :])
    distance[np.isinf(distance)] = UNREACHABLE
    return distance
