"""The fixed discrete action space of a variant: every action its notation can express on its
map, indexed once.

The index is derived from the variant's data alone (its board's routes, cities, tickets and
rules), in a documented order (docs/ENVS.md), so index ``i`` means the same action in every run,
on every machine, and for every player count. The actions are the engine's own interned values
(``board.claim_table`` and its kin): looking an engine action up is a dictionary hit on its
identity, with a lookup by value for the few actions the engine builds afresh.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from arena.engine import (
    DRAW_DECK,
    DRAW_TICKETS,
    PASS,
    Action,
    Board,
    ClaimRoute,
    DrawCard,
    DrawTickets,
    KeepTickets,
    NotationError,
    Pass,
    Variant,
    keep_choices,
)

MAX_HELD = 4096  # actions of past games remembered by identity (a few per game)


class ActionSpace:
    """Every action of one variant's game, each with a stable index."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        actions = list(_catalogue(variant))
        self.actions: tuple[Action, ...] = tuple(actions)
        self.texts: tuple[str, ...] = tuple(str(a) for a in actions)
        self._by_value: dict[Action, int] = {}
        for index, action in enumerate(actions):
            if action in self._by_value:
                raise ValueError(f"action '{action}' is listed twice in {variant.name}'s space")
            self._by_value[action] = index
        # Identity first: the engine hands out these very objects (kept alive by ``actions``,
        # so an id cannot be reused while this space exists).
        self._by_id: dict[int, int] = {id(a): i for i, a in enumerate(actions)}
        self._held: list[Action] = []
        # The engine's own shared values equal to ours (held here, so their ids stay theirs).
        self._aliases = _engine_singletons(_max_offer(variant))
        for action in self._aliases:
            if action in self._by_value:
                self._by_id[id(action)] = self._by_value[action]

    def __len__(self) -> int:
        return len(self.actions)

    def index(self, action: Action) -> int:
        """The index of an engine action; ``KeyError`` if the space lacks it."""
        index = self._by_id.get(id(action))
        if index is None:
            try:
                index = self._by_value[action]
            except KeyError:
                raise KeyError(f"'{action}' is not in {self.variant.name}'s action space") from None
            # An action a game built for itself (its face-up slots): remember its identity
            # while holding it, so that its id cannot be reused; forget them all now and then.
            if len(self._held) >= MAX_HELD:
                for held in self._held:
                    del self._by_id[id(held)]
                self._held.clear()
            self._held.append(action)
            self._by_id[id(action)] = index
        return index

    def checked(self, index: Any) -> int:
        """``index`` as an int; ``IndexError`` unless it is an integer in the space."""
        if not isinstance(index, int | np.integer) or not 0 <= index < len(self.texts):
            raise IndexError(f"action index must be an integer in 0..{len(self.texts) - 1}")
        return int(index)

    def action_to_text(self, index: int) -> str:
        """The notation of action ``index`` (``claim 57 red w2``)."""
        return self.texts[self.checked(index)]

    def text_to_action(self, text: str) -> int:
        """The index of an action written in the notation; ``NotationError`` if it is not one
        of this variant's actions on this map."""
        action = self.variant.parse_action(text)
        index = self._by_value.get(action)
        if index is None:
            raise NotationError(f"'{text}' names nothing on the map of {self.variant.title}")
        return index

    def mask(self, legal: Sequence[Action], out: np.ndarray | None = None) -> np.ndarray:
        """A 0/1 int8 vector over the space, 1 where the action is in ``legal``."""
        mask = np.zeros(len(self.actions), dtype=np.int8) if out is None else out
        if out is not None:
            mask.fill(0)
        mask[self.indices(legal)] = 1
        return mask

    def indices(self, legal: Sequence[Action]) -> list[int]:
        """The indices of ``legal``, in its order."""
        found = list(map(self._by_id.get, map(id, legal)))
        if None in found:  # an action the engine built afresh (a face-up slot of this game)
            return [self.index(a) if i is None else i for a, i in zip(legal, found, strict=True)]
        return found  # type: ignore[return-value]


# ---------------------------------------------------------------------- the catalogue


def _catalogue(variant: Variant) -> Iterator[Action]:
    """Every action of the variant's game in index order: the base verbs, then the edition's."""
    board = variant.board
    kinds = set(variant.action_types)
    yield from _draws(variant.rules.face_up)
    yield DrawTickets()
    yield from _keeps(_max_offer(variant))
    yield Pass()
    known: set[type[Action]] = {DrawCard, DrawTickets, KeepTickets, Pass}
    if ClaimRoute in kinds:
        yield from _claims(board)
        known.add(ClaimRoute)
    for kind in kinds - known:
        enumerate_kind = _EDITION_ACTIONS.get(kind.__name__)
        if enumerate_kind is None:
            raise ValueError(
                f"arena.envs cannot index the actions '{kind.__name__}' of {variant.name}: "
                "add an enumerator for them to arena/envs/actions.py"
            )
        yield from enumerate_kind(board, variant.rules)


def _engine_singletons(offer: int) -> list[Action]:
    """The action values the engine shares between games: the constant actions and every
    cached ticket choice."""
    shared: list[Action] = [DRAW_DECK, DRAW_TICKETS, PASS]
    for offered in range(offer + 1):
        for minimum in range(offered + 1):
            shared.extend(keep_choices(offered, minimum))
    return shared


def _draws(face_up: int) -> Iterator[Action]:
    yield DrawCard(None)
    for slot in range(face_up):
        yield DrawCard(slot)


def _max_offer(variant: Variant) -> int:
    """The most tickets one offer can hold in this variant (its largest deal or draw)."""
    rules = variant.rules
    dealt = getattr(rules, "initial_tickets_dealt", None)
    if dealt is None:
        dealt = rules.deal_tickets  # the Card Game
    return max(dealt + getattr(rules, "initial_long_tickets", 0), rules.draw_tickets)


def _keeps(offer: int) -> Iterator[Action]:
    """Every choice among ``offer`` positions, ``keep none`` first, then by size and order."""
    for size in range(offer + 1):
        for chosen in combinations(range(offer), size):
            yield KeepTickets(chosen)


def _claims(board: Board) -> Iterator[Action]:
    """Per route (by id): its colour (every colour on a gray route) with 0..length-1 wilds,
    then the all-wild payment."""
    for r in range(board.num_routes):
        colour = board.route_colour[r]
        colours = range(len(board.rules.colours)) if colour < 0 else (colour,)
        for c in colours:
            yield from board.claim_table[r][c]
        yield board.claim_all_wild[r]


def _stations(board: Any, rules: Any) -> Iterator[Action]:
    """Europe: per city (data order), each colour with 0..costliest-1 wilds, then wilds only
    for each cost."""
    for city in range(len(board.cities)):
        for per_colour in board.station_table[city]:
            yield from per_colour
        yield from (a for a in board.station_all_wild[city] if a.wilds > 0)


def _pay(board: Any, rules: Any) -> Iterator[Action]:
    yield from board.pay_actions


def _withdraw(board: Any, rules: Any) -> Iterator[Action]:
    from arena.variants.europe import WITHDRAW

    yield WITHDRAW


def _play_groups(board: Any, rules: Any) -> Iterator[Action]:
    """Card Game: per colour, every play of 1..all its cards plus locomotives (2 cards or more)."""
    for table in board.group_actions:
        for row in table:
            yield from (a for a in row if a.count >= 1 and a.count + a.wilds >= 2)


def _play_trios(board: Any, rules: Any) -> Iterator[Action]:
    for table in board.trio_actions:
        for row in table:
            yield from (a for a in row if a is not None)


def _complete(board: Any, rules: Any) -> Iterator[Action]:
    from arena.variants.cardgame.actions import CompleteTicket

    for ticket in board.tickets:
        yield CompleteTicket(ticket.id)


# Each edition's action class (by name) -> its enumerator; a new edition adds a line here.
_EDITION_ACTIONS = {
    "BuildStation": _stations,
    "PayTunnel": _pay,
    "Withdraw": _withdraw,
    "PlayGroup": _play_groups,
    "PlayTrio": _play_trios,
    "CompleteTicket": _complete,
}
