"""The state of one board game: the base game, and the hooks every edition plugs into.

OpenSpiel-style split: the variant (rules + map, shared and immutable) and
the state (everything that changes, cheap to copy). All randomness comes
from one ``random.Random`` seeded at creation, so the same seed and the same
actions give the same game bit for bit.

Cards are integers: colour ``i`` is ``rules.colours[i]`` and the wild card
is ``W = len(rules.colours)``. A hand is a list of ``W + 1`` counts. The
hot paths (``legal_actions`` and ``apply``) work only on such lists and on
the board's precomputed tables.

``BoardState`` plays the base game (the original rulebook's rules, on any map). An edition is a
subclass in its own module under ``arena/variants/`` that owns its extra state
and overrides the named hooks below (python-chess's variant classes are the
model); each hook's docstring says when it runs:

- setup: ``_deal_initial_tickets``, ``_return_setup_tickets``, ``_begin_play``
- a turn: ``_extra_turn_actions``, ``_phase_actions`` (the edition's own phases),
  ``ACTIONS`` (the methods that play its own actions)
- a claim: ``_pay_claim`` (the cards are laid down), ``_after_claim`` (it is made)
- the end: ``_best_tickets``, ``_score_extras``, ``EXTRA_SCORE`` and ``SCORE_LABELS``
- views and copies: ``_observation_fields``, ``_seat_fields``, ``_copy_into``,
  ``_position_fields``, ``_load_position``, ``_check_position``, ``_sample_extras``;
  ``MOVES_CHANGE_ONLY_THE_MOVER`` (not inherited: an edition whose moves never change
  another seat's seat data sets it True, and its observations then rebuild one seat's
  view per move instead of every seat's)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Self

from mypy_extensions import mypyc_attr

from arena.engine.actions import (
    DRAW_DECK,
    DRAW_TICKETS,
    PASS,
    Action,
    ClaimRoute,
    DrawCard,
    DrawTickets,
    KeepTickets,
    Pass,
)
from arena.engine.errors import IllegalActionError, PositionError
from arena.engine.game import (
    KEEP,
    OVER,
    SECOND_DRAW,
    SETUP,
    TURN,
    GameBase,
    TicketBelief,
    keep_choices,
    shuffle,
)
from arena.engine.observation import BoardObservation, BoardSeatView, Observation
from arena.engine.position import BoardPosition, Position
from arena.engine.result import GameResult, ScoreLabel
from arena.engine.scoring import component_labels, longest_trail

if TYPE_CHECKING:
    from arena.engine.board import Board, BoardRules
    from arena.engine.variant import Variant

# Phases a seat's observation can be sampled in, on every board.
SAMPLEABLE = frozenset({"setup_tickets", "turn", "second_draw", "keep_tickets"})

BASE_SCORE_LABELS = {
    "routes": ScoreLabel("routes", "points for routes claimed"),
    "tickets_completed": ScoreLabel("tix+", "tickets completed"),
    "tickets_failed": ScoreLabel("tix-", "tickets failed"),
    "longest_path_bonus": ScoreLabel("path+", "longest-path bonus"),
}


@mypyc_attr(allow_interpreted_subclasses=True)
class BoardState(GameBase):
    """One board game in progress. Create it with ``arena.new_game``."""

    __slots__ = (
        "_claimed",
        "_draw_slots",
        "_free",
        "_owner",
        "_route_points",
        "_routes",
        "_trains",
    )

    ACTIONS: ClassVar[dict[type[Action], str]] = {
        DrawCard: "_draw_card",
        ClaimRoute: "_claim",
        KeepTickets: "_keep",
        DrawTickets: "_draw_tickets",
        Pass: "_pass",
    }
    # Score categories an edition adds after the base game's, in table order, and how
    # tables label every category.
    EXTRA_SCORE: ClassVar[tuple[str, ...]] = ()
    SCORE_LABELS: ClassVar[dict[str, ScoreLabel]] = BASE_SCORE_LABELS
    position_type: ClassVar[type[Position]] = BoardPosition
    observation_type: ClassVar[type[Observation]] = BoardObservation
    seat_view_type: ClassVar[type[BoardSeatView]] = BoardSeatView
    # A move changes the public data of the seat that makes it, no other's (an edition that
    # changes another seat's says False).
    MOVES_CHANGE_ONLY_THE_MOVER: ClassVar[bool] = True

    rules: BoardRules
    board: Board
    _owner: list[int]  # seat per route, -1 while free
    _routes: list[list[int]]  # routes per seat, in the order claimed
    _trains: list[int]
    _route_points: list[int]
    _free: list[list[int]]  # free routes by colour (gray last), each sorted by length
    _draw_slots: tuple[DrawCard, ...]
    # The observations' ``claimed`` (route key -> seat), kept up to date once an observation
    # has built it; None until then (a new state, a copy: most copies are never observed).
    _claimed: dict[int, int] | None

    def __init__(self, variant: Variant, num_players: int, seed: int) -> None:
        self._start(variant, num_players, seed)
        self._claimed = None
        rules, board, rng = self.rules, self.board, self._rng
        wild = len(rules.colours)
        self.first_player = rng.randrange(num_players)
        deck = [c for c in range(wild) for _ in range(rules.cards_per_colour)]
        deck += [wild] * rules.wild_cards
        shuffle(rng, deck)
        self._deck = deck
        self._discards = [0] * (wild + 1)
        self._hands = [[0] * (wild + 1) for _ in range(num_players)]
        for seat in self._seat_order():
            hand = self._hands[seat]
            for _ in range(rules.starting_hand):
                hand[deck.pop()] += 1
        self._display = [deck.pop() for _ in range(rules.face_up)]
        self._draw_slots = tuple(DrawCard(i) for i in range(rules.face_up))
        self._check_display()
        self._trains = [rules.pieces_per_player] * num_players
        self._owner = [-1] * board.num_routes
        self._routes = [[] for _ in range(num_players)]
        self._route_points = [0] * num_players
        self._tickets = [[] for _ in range(num_players)]
        self._offers = [[] for _ in range(num_players)]
        self._deal_initial_tickets()
        self._free = [list(group) for group in board.routes_by_colour]
        self._to_move = self.first_player

    # ------------------------------------------------------------------ setup hooks

    def _deal_initial_tickets(self) -> None:
        """Hook, at creation: shuffle the ticket deck and deal each seat its initial offer."""
        ticket_deck = list(range(len(self.board.tickets)))
        shuffle(self._rng, ticket_deck)
        self._ticket_deck = ticket_deck  # the top is the end of the list
        for seat in self._seat_order():
            for _ in range(min(self.rules.initial_tickets_dealt, len(ticket_deck))):
                self._offers[seat].append(ticket_deck.pop())

    def _return_setup_tickets(self, returned: list[int]) -> None:
        """Hook, once every seat has made its initial choice: what happens to the tickets
        put back (here: under the ticket deck, in seat order)."""
        self._return_tickets(returned)

    def _begin_play(self) -> None:
        """Hook, after the initial ticket choice: the first player's first turn."""
        self._phase = TURN
        self._to_move = self.first_player

    # ------------------------------------------------------------------ queries

    @property
    def route_points(self) -> tuple[int, ...]:
        """Points scored so far by claiming routes (public during the game)."""
        return tuple(self._route_points)

    @property
    def scored_points(self) -> tuple[int, ...]:
        """Points each seat has scored so far, as every player sees them (viewers use it)."""
        return tuple(self._route_points)

    # Read access to the full state for search and learning code (sampled states, rollouts):
    # the engine's own lists, not copies, so never change them. The int lists are typed as
    # lists so that compiled code (bots/policy.py) indexes them natively.

    @property
    def route_owner(self) -> list[int]:
        """The seat owning each route (index = route id - 1), -1 for a free route."""
        return self._owner

    @property
    def trains(self) -> list[int]:
        """Pieces left per seat."""
        return self._trains

    def hand(self, seat: int) -> list[int]:
        """``seat``'s train cards: a count per colour (``rules.colours`` order), then wilds."""
        return self._hands[seat]

    def held_tickets(self, seat: int) -> Sequence[int]:
        """``seat``'s tickets, as indices into ``board.tickets`` (ticket id - 1)."""
        return self._tickets[seat]

    def offered_tickets(self, seat: int) -> Sequence[int]:
        """The tickets ``seat`` drew and has not kept or returned yet (indices)."""
        return self._offers[seat]

    @property
    def display(self) -> list[int]:
        """The face-up cards (card indices), -1 for an empty slot."""
        return self._display

    @property
    def deck_size(self) -> int:
        return len(self._deck)

    @property
    def ticket_deck_size(self) -> int:
        return len(self._ticket_deck)

    def can_draw_blind(self) -> bool:
        """A card can be drawn from the deck (rebuilt from the discards when it is empty).
        When not, no Train card may be drawn at all, face up either (the rulebook)."""
        return bool(self._deck) or any(self._discards)

    def route_blocked(self, seat: int, r: int) -> bool:
        """Route index ``r`` can never be claimed by ``seat``: taken by another seat, or a
        double route's track that the other track closes to it."""
        owner = self._owner[r]
        if owner >= 0:
            return owner != seat
        sibling = self.board.route_sibling[r]
        if sibling >= 0 and self._owner[sibling] >= 0:
            return (
                self._owner[sibling] == seat
                or self.num_players < self.rules.double_routes_min_players
            )
        return False

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to move; each way of paying appears once."""
        phase = self._phase
        if phase == TURN:
            return self._turn_actions()
        if phase == SECOND_DRAW:
            return self._second_draw_actions()
        if phase in (SETUP, KEEP):
            return list(self._keep_options())
        if phase == OVER:
            return []
        return self._phase_actions(phase)

    def _phase_actions(self, phase: int) -> list[Action]:
        """Hook: the legal actions in one of the edition's own phases."""
        raise NotImplementedError(f"no actions for phase {self.PHASES[phase]}")

    def _keep_options(self) -> tuple[KeepTickets, ...]:
        offered = len(self._offers[self._to_move])
        rules = self.rules
        minimum = rules.initial_tickets_keep if self._phase == SETUP else rules.draw_tickets_keep
        return keep_choices(offered, min(minimum, offered))

    def _turn_actions(self) -> list[Action]:
        actions: list[Action] = []
        if self.can_draw_blind():  # else no card may be drawn, face up either
            actions.append(DRAW_DECK)
            slots = self._draw_slots
            for slot, card in enumerate(self._display):
                if card >= 0:
                    actions.append(slots[slot])
        if self._ticket_deck:
            actions.append(DRAW_TICKETS)
        self._claim_actions(actions)
        self._extra_turn_actions(actions)
        if not actions:
            actions.append(PASS)
        return actions

    def _extra_turn_actions(self, actions: list[Action]) -> None:
        """Hook: append the edition's own ways to spend a turn."""

    def _second_draw_actions(self) -> list[Action]:
        actions: list[Action] = []
        if self.can_draw_blind():
            actions.append(DRAW_DECK)
            wild = len(self.rules.colours)
            slots = self._draw_slots
            for slot, card in enumerate(self._display):
                if card >= 0 and card != wild:
                    actions.append(slots[slot])
        return actions

    def _claim_actions(self, actions: list[Action]) -> None:
        """Append every (route, colour, wilds) payment the player can make."""
        board = self.board
        seat = self._to_move
        hand = self._hands[seat]
        wild = len(hand) - 1
        wilds = hand[wild]
        trains = self._trains[seat]
        length = board.route_length
        table = board.claim_table
        all_wild = board.claim_all_wild
        ferries = board.route_ferries  # wilds a ferry route needs at least
        # With enough players both tracks of a double route are open, but never to one player.
        check_sibling = self.num_players >= self.rules.double_routes_min_players
        sibling = board.route_sibling
        owner = self._owner
        free = self._free
        held = [c for c in range(wild) if hand[c]]
        for c in held:
            have = hand[c]
            limit = min(trains, have + wilds)
            for r in free[c]:
                size = length[r]
                if size > limit:
                    break
                if check_sibling and sibling[r] >= 0 and owner[sibling[r]] == seat:
                    continue
                payments = table[r][c]
                low = size - have if size > have else 0
                if ferries[r] > low:
                    low = ferries[r]
                high = wilds if wilds < size else size - 1
                for k in range(low, high + 1):
                    actions.append(payments[k])
                if wilds >= size:
                    actions.append(all_wild[r])
        if wilds:  # coloured routes payable by wilds alone, in colours the player does not hold
            limit = min(trains, wilds)
            for c in range(wild):
                if hand[c]:
                    continue
                for r in free[c]:
                    if length[r] > limit:
                        break
                    if check_sibling and sibling[r] >= 0 and owner[sibling[r]] == seat:
                        continue
                    actions.append(all_wild[r])
        best = max(hand[c] for c in held) if held else 0
        limit = min(trains, best + wilds)
        for r in free[wild]:  # gray routes
            size = length[r]
            if size > limit:
                break
            if check_sibling and sibling[r] >= 0 and owner[sibling[r]] == seat:
                continue
            options = table[r]
            for c in held:
                have = hand[c]
                if have + wilds < size:
                    continue
                payments = options[c]
                low = size - have if size > have else 0
                if ferries[r] > low:
                    low = ferries[r]
                high = wilds if wilds < size else size - 1
                for k in range(low, high + 1):
                    actions.append(payments[k])
            if wilds >= size:
                actions.append(all_wild[r])

    # ------------------------------------------------------------------ moves

    def _draw_card(self, action: DrawCard) -> None:
        phase = self._phase
        if phase != TURN and phase != SECOND_DRAW:
            self._require_turn(action)
        hand = self._hands[self._to_move]
        wild = len(hand) - 1
        slot = action.slot
        if not self.can_draw_blind():
            raise IllegalActionError(
                action,
                "draw.empty-deck",
                "the train deck and the discards are empty: no card may be drawn, face up "
                "or not (claim a route or draw tickets)",
            )
        if slot is None:
            hand[self._pop_card()] += 1
            taken_wild_face_up = False
        else:
            display = self._display
            if not 0 <= slot < len(display):
                raise IllegalActionError(
                    action, "draw.slot", f"face-up slots are 0 to {len(display) - 1}"
                )
            card = display[slot]
            if card < 0:
                raise IllegalActionError(action, "draw.empty-slot", f"face-up slot {slot} is empty")
            taken_wild_face_up = card == wild
            if taken_wild_face_up and phase == SECOND_DRAW:
                raise IllegalActionError(
                    action,
                    "draw.second-wild",
                    f"a face-up {self.rules.wild_name} may not be taken as the second card",
                )
            hand[card] += 1
            display[slot] = self._pop_card()
            self._check_display()
        if phase == TURN and not taken_wild_face_up:
            self._phase = SECOND_DRAW
            if self.can_draw_blind():  # a second card can be drawn
                return
        self._end_turn()

    def _claim(self, action: ClaimRoute) -> None:
        self._require_turn(action)
        board = self.board
        seat = self._to_move
        r = action.route - 1
        if not 0 <= r < board.num_routes:
            raise IllegalActionError(
                action,
                "claim.route",
                f"no route {action.route} (routes are 1 to {board.num_routes})",
            )
        label = board.route_label[r]
        owner = self._owner
        if owner[r] >= 0:
            raise IllegalActionError(
                action, "claim.route-taken", f"route {label} is already claimed by seat {owner[r]}"
            )
        sibling = board.route_sibling[r]
        if sibling >= 0 and owner[sibling] >= 0:
            if owner[sibling] == seat:
                raise IllegalActionError(
                    action,
                    "claim.double-own",
                    f"no player may claim both tracks of a double route ({label})",
                )
            if self.num_players < self.rules.double_routes_min_players:
                raise IllegalActionError(
                    action,
                    "claim.double-closed",
                    f"with fewer than {self.rules.double_routes_min_players} players only one "
                    f"track of a double route can be used ({label})",
                )
        size = board.route_length[r]
        if self._trains[seat] < size:
            raise IllegalActionError(
                action,
                "claim.trains",
                f"route {label} needs {size} trains, the player has {self._trains[seat]}",
            )
        hand = self._hands[seat]
        wild = len(hand) - 1
        wilds = action.wilds
        if action.colour is None:
            if wilds != size:
                raise IllegalActionError(
                    action,
                    "claim.payment",
                    f"route {label} has length {size}: an all-wild payment is 'claim "
                    f"{action.route} w{size}'",
                )
            colour = wild
        else:
            colour = board.colour_index.get(action.colour, -2)
            if colour == -2:
                raise IllegalActionError(
                    action,
                    "claim.colour",
                    f"'{action.colour}' is not a card colour of this game "
                    f"({', '.join(self.rules.colours)})",
                )
            if wilds >= size:
                raise IllegalActionError(
                    action,
                    "claim.payment",
                    f"route {label} has length {size}: with {wilds} wilds no {action.colour} card "
                    f"is used; write 'claim {action.route} w{size}'",
                )
            route_colour = board.route_colour[r]
            if route_colour >= 0 and route_colour != colour:
                raise IllegalActionError(
                    action,
                    "claim.colour",
                    f"route {label} must be paid with {self.rules.colours[route_colour]} cards",
                )
            if hand[colour] < size - wilds:
                raise IllegalActionError(
                    action,
                    "claim.cards",
                    f"paying needs {size - wilds} {action.colour} cards, the player has "
                    f"{hand[colour]}",
                )
        ferries = board.route_ferries[r]
        if wilds < ferries:
            raise IllegalActionError(
                action,
                "claim.ferry",
                f"route {label} is a ferry: it needs at least {ferries} "
                f"{self.rules.wild_name}s, the payment has {wilds}",
            )
        if hand[wild] < wilds:
            raise IllegalActionError(
                action,
                "claim.cards",
                f"paying needs {wilds} {self.rules.wild_name}s, the player has {hand[wild]}",
            )
        # Valid: lay the cards down; the edition may ask for more before the route is taken.
        coloured = size - wilds if colour != wild else 0
        if coloured:
            hand[colour] -= coloured
        hand[wild] -= wilds
        self._pay_claim(r, colour, coloured, wilds)

    def _pay_claim(self, r: int, colour: int, coloured: int, wilds: int) -> None:
        """Hook: the seat to move has laid down ``coloured`` cards of ``colour`` and ``wilds``
        wilds for route ``r``; here they are discarded and the route is claimed."""
        discards = self._discards
        discards[colour] += coloured
        discards[len(discards) - 1] += wilds
        self._complete_claim(self._to_move, r)

    def _complete_claim(self, seat: int, r: int) -> None:
        """The route is paid for: place the pieces, score, then the edition's after-claim."""
        board = self.board
        size = board.route_length[r]
        sibling = board.route_sibling[r]
        self._owner[r] = seat
        self._routes[seat].append(r)
        if self._claimed is not None:
            self._claimed[board.route_key[r]] = seat
        self._trains[seat] -= size
        self._route_points[seat] += board.route_points[size]
        free = self._free
        free[board.route_colour[r]].remove(r)
        if sibling >= 0 and self.num_players < self.rules.double_routes_min_players:
            free[board.route_colour[sibling]].remove(sibling)
        if -1 in self._display:
            self._refill_display()
        if self._after_claim(seat, r):
            return  # the seat has a decision to make before the turn ends
        self._end_turn()

    def _after_claim(self, seat: int, r: int) -> bool:
        """Hook: ``seat`` has just claimed route ``r``. Return True when the edition asks the
        seat a question first (its phase); the turn then ends when that is answered."""
        return False

    def _draw_tickets(self, action: DrawTickets) -> None:
        self._require_turn(action)
        deck = self._ticket_deck
        if not deck:
            raise IllegalActionError(action, "tickets.empty", "the ticket deck is empty")
        offer = self._offers[self._to_move]
        for _ in range(min(self.rules.draw_tickets, len(deck))):
            offer.append(deck.pop())
        self._phase = KEEP

    def _keep(self, action: KeepTickets) -> None:
        phase = self._phase
        if phase != SETUP and phase != KEEP:
            raise IllegalActionError(
                action, "keep.no-offer", "there are no offered tickets to keep"
            )
        options = self._keep_options()
        self._check_keep(action, options, len(options[0].indices))
        returned = self._keep_tickets(action)
        if phase == SETUP:
            # Initial returns wait until every seat has chosen, so that no seat
            # learns another's choice from the size of the ticket deck.
            self._setup_returns.extend(returned)
            self._setup_left -= 1
            if self._setup_left:
                self._to_move = (self._to_move + 1) % self.num_players
            else:
                returns, self._setup_returns = self._setup_returns, []
                self._return_setup_tickets(returns)
                self._begin_play()
            return
        self._return_tickets(returned)
        self._end_turn()

    def _return_tickets(self, tickets: list[int]) -> None:
        """Returned tickets go under the ticket deck (the bottom is the list's start)."""
        self._ticket_deck[:0] = reversed(tickets)

    def _pass(self, action: Pass) -> None:
        self._require_turn(action)
        if self._turn_actions() != [PASS]:
            raise IllegalActionError(
                action, "pass.not-allowed", "passing is allowed only when no other action is legal"
            )
        self._end_turn(passed=True)

    def _end_turn(self, passed: bool = False) -> None:
        seat = self._to_move
        self.turn += 1
        self._passes = self._passes + 1 if passed else 0
        if self._passes >= self.num_players:
            self._phase = OVER
            return
        if self._last_round >= 0:
            self._last_round -= 1
            if self._last_round == 0:
                self._phase = OVER
                return
        elif self._trains[seat] <= self.rules.last_round_trigger:
            self._last_round = self.num_players
        self._phase = TURN
        self._to_move = (seat + 1) % self.num_players

    # ------------------------------------------------------------------ cards

    def _pop_card(self) -> int:
        """Top card of the deck, -1 if there is none. When the deck runs out the discards are
        shuffled into a new one at once (docs/RULES.md)."""
        deck = self._deck
        if not deck and not self._rebuild_deck():
            return -1
        card = deck.pop()
        if not deck:
            self._rebuild_deck()
        return card

    def _rebuild_deck(self) -> bool:
        """Shuffle the discards into the (empty) deck; False when there are none."""
        discards = self._discards
        if not any(discards):
            return False
        deck = self._deck
        for colour, count in enumerate(discards):
            deck.extend([colour] * count)
            discards[colour] = 0
        shuffle(self._rng, deck)
        return True

    def _refill_display(self) -> None:
        display = self._display
        for slot, card in enumerate(display):
            if card < 0:
                display[slot] = self._pop_card()
        self._check_display()

    def _check_display(self) -> None:
        """Three face-up wilds: discard all five and turn five new ones, again if needed.

        When the cards left (deck, discards, display) cannot make a display
        with fewer wilds than the reset threshold, the display stays as it is;
        and once the resets have turned as many cards as there were to turn
        (a pool so small that deck and discards only swap places), it stays too
        (docs/RULES.md). So a reset can never loop for ever.
        """
        display = self._display
        rules = self.rules
        wild = len(rules.colours)
        threshold = rules.face_up_wild_reset
        turned, pool = 0, -1
        while display.count(wild) >= threshold:
            deck, discards = self._deck, self._discards
            shown = [c for c in display if c >= 0]
            available = len(deck) + sum(discards) + len(shown)
            wilds = deck.count(wild) + discards[wild] + shown.count(wild)
            if available - wilds < min(rules.face_up, available) - (threshold - 1):
                return
            if pool < 0:
                pool = available
            elif turned >= pool:
                return
            turned += len(display)
            for card in shown:
                discards[card] += 1
            for slot in range(len(display)):
                display[slot] = -1
            for slot in range(len(display)):
                display[slot] = self._pop_card()

    # ------------------------------------------------------------------ views

    def _observation_fields(self, seat: int) -> dict[str, Any]:
        fields = super()._observation_fields(seat)
        claimed = self._claimed
        if claimed is None:
            route_key = self.board.route_key
            claimed = self._claimed = {
                route_key[r]: p for p, routes in enumerate(self._routes) for r in routes
            }
        fields["claimed"] = dict(claimed)  # the observation's own (a bot may change it)
        return fields

    def _seat_fields(self, seat: int, p: int) -> dict[str, Any]:
        fields = super()._seat_fields(seat, p)
        fields["trains"] = self._trains[p]
        fields["route_points"] = self._route_points[p]
        fields["routes"] = [r + 1 for r in self._routes[p]]
        return fields

    def _copy_into(self, new: Self) -> None:
        super()._copy_into(new)
        new._claimed = None
        new._draw_slots = self._draw_slots
        new._trains = self._trains[:]
        new._owner = self._owner[:]
        new._routes = [r[:] for r in self._routes]
        new._route_points = self._route_points[:]
        new._free = [f[:] for f in self._free]

    # ------------------------------------------------------------------ positions

    def _position_fields(self) -> dict[str, Any]:
        fields = super()._position_fields()
        fields["routes"] = [[r + 1 for r in routes] for routes in self._routes]
        return fields

    def _load_position(self, variant: Variant, position: Any) -> None:
        super()._load_position(variant, position)
        board, rules = self.board, self.rules
        self._draw_slots = tuple(DrawCard(i) for i in range(rules.face_up))
        self._claimed = None
        self._owner = [-1] * board.num_routes
        self._routes = self._per_seat(position.routes, "routes", self._route_ids)
        self._trains = [rules.pieces_per_player] * self.num_players
        self._route_points = [0] * self.num_players
        for seat, routes in enumerate(self._routes):
            for r in routes:
                if self._owner[r] >= 0:
                    raise PositionError(f"routes: route {r + 1} is claimed twice")
                self._owner[r] = seat
                self._trains[seat] -= board.route_length[r]
                self._route_points[seat] += board.route_points[board.route_length[r]]
            if self._trains[seat] < 0:
                raise PositionError(f"routes[{seat}]: more pieces than the player has")
        closed = set()
        for r, seat in enumerate(self._owner):
            sibling = board.route_sibling[r]
            if seat >= 0 and sibling >= 0:
                if self._owner[sibling] == seat:
                    raise PositionError(f"routes[{seat}]: both tracks of route {r + 1}")
                if self.num_players < rules.double_routes_min_players:
                    if self._owner[sibling] >= 0:
                        raise PositionError(f"routes: both tracks of route {r + 1} are claimed")
                    closed.add(sibling)
        self._free = [
            [r for r in group if self._owner[r] < 0 and r not in closed]
            for group in board.routes_by_colour
        ]

    def _route_ids(self, ids: list[int], what: str) -> list[int]:
        total = self.board.num_routes
        for route in ids:
            if not 1 <= route <= total:
                raise PositionError(f"{what}: no route {route} (routes are 1 to {total})")
        return [r - 1 for r in ids]

    def _card_supply(self) -> list[int]:
        return self.rules.card_supply

    # ------------------------------------------------------------------ sampling

    @classmethod
    def from_observation(
        cls,
        variant: Variant,
        observation: Observation,
        rng: random.Random,
        belief: TicketBelief | None = None,
    ) -> Self:
        """A random full state that ``observation``'s seat cannot tell from the real one.

        The cards and tickets it cannot see are dealt at random among the
        places it cannot see into, consistently with every public count.
        ``belief(seat, ticket)`` (optional) weights how likely another seat
        holds an unseen ticket: the tickets each seat holds are then drawn
        with those weights instead of uniformly. Any weights give a state
        consistent with the observation; they only change how likely each is.
        """
        if not isinstance(observation, BoardObservation):
            raise TypeError(f"a board is sampled from a BoardObservation, not {observation!r}")
        if observation.phase not in cls.sampleable_phases():
            raise ValueError(f"cannot sample a state in phase '{observation.phase}'")
        if observation.phase == "setup_tickets" and observation.to_move != observation.seat:
            raise ValueError("a setup state is sampled only for the seat choosing its tickets")
        fields = cls._sample_public(observation, rng)
        cls._sample_cards(variant, observation, rng, fields)
        cls._sample_tickets(variant, observation, rng, belief, fields)
        cls._sample_extras(observation, fields)
        return cls.from_position_data(variant, cls.position_type(**fields))

    @classmethod
    def sampleable_phases(cls) -> frozenset[str]:
        """The phases ``from_observation`` can sample (editions may add theirs)."""
        return SAMPLEABLE

    @classmethod
    def _sample_public(cls, observation: BoardObservation, rng: random.Random) -> dict[str, Any]:
        version, words, gauss = random.Random(rng.getrandbits(64)).getstate()
        return {
            "variant": observation.variant,
            "players": observation.players,
            "seed": None,
            "rng": (version, words, gauss),
            "first_player": observation.first_player,
            "turn": observation.turn,
            "phase": observation.phase,
            "to_move": observation.seat if observation.to_move is None else observation.to_move,
            "passes": observation.passes,
            "turns_left": observation.turns_left,
            "discards": dict(observation.discards),
            "display": list(observation.display),
            "routes": [list(seat.routes) for seat in observation.public],
        }

    @classmethod
    def _seen_elsewhere(cls, observation: BoardObservation) -> list[str]:
        """Hook: train cards the seat sees outside hand, discards and display (by name)."""
        return []

    @classmethod
    def _sample_cards(
        cls,
        variant: Variant,
        observation: BoardObservation,
        rng: random.Random,
        fields: dict[str, Any],
    ) -> None:
        """The deck and the other hands share, at random, the cards this seat cannot see."""
        names = variant.board.card_names
        unseen = dict(zip(names, variant.rules.card_supply, strict=True))
        for counts in (observation.hand, observation.discards):
            for name, n in counts.items():
                unseen[name] -= n
        for shown in (*observation.display, *cls._seen_elsewhere(observation)):
            if shown is not None:
                unseen[shown] -= 1
        pool = [name for name in names for _ in range(unseen[name])]
        shuffle(rng, pool)
        hands = []
        for p, public in enumerate(observation.public):
            if p == observation.seat:
                hands.append(dict(observation.hand))
                continue
            hand = dict.fromkeys(names, 0)
            for _ in range(public.hand_size):
                hand[pool.pop()] += 1
            hands.append(hand)
        if len(pool) != observation.deck_size:
            raise ValueError("the observation's card counts do not add up")
        fields["deck"], fields["hands"] = pool, hands

    @classmethod
    def _sample_tickets(
        cls,
        variant: Variant,
        observation: BoardObservation,
        rng: random.Random,
        belief: TicketBelief | None,
        fields: dict[str, Any],
    ) -> None:
        """Own tickets are known; the rest are dealt among the other seats and the deck."""
        own = [t.id for t in observation.tickets]
        offered = [t.id for t in observation.offered_tickets]
        known = {*own, *offered}
        hidden = [i for i in range(1, len(variant.board.tickets) + 1) if i not in known]
        shuffle(rng, hidden)
        if observation.phase == "setup_tickets":
            cls._sample_setup(variant, observation, rng, hidden, [], fields)
        else:
            tickets, offers = cls._deal_held(observation, hidden, rng, belief)
            fields.update(tickets=tickets, offers=offers, setup_returns=[])
        if len(hidden) != observation.ticket_deck_size:
            raise ValueError("the observation's ticket counts do not add up")
        fields["ticket_deck"] = hidden

    @staticmethod
    def _deal_held(
        observation: BoardObservation,
        hidden: list[int],
        rng: random.Random,
        belief: TicketBelief | None,
        dealt: dict[int, list[int]] | None = None,
    ) -> tuple[list[list[int]], list[list[int]]]:
        """Each seat's held and offered tickets (ids): its own for the observation's seat,
        for the others ``dealt`` (an edition's special tickets) plus as many as their public
        counts say, drawn from ``hidden`` (by ``belief`` where given)."""
        tickets, offers = [], []
        for p, public in enumerate(observation.public):
            if p == observation.seat:
                tickets.append([t.id for t in observation.tickets])
                offers.append([t.id for t in observation.offered_tickets])
                continue
            held = list((dealt or {}).get(p, ()))
            count = (public.tickets or 0) - len(held)
            if belief is None:
                held += [hidden.pop() for _ in range(count)]
            else:
                held += weighted_draw(hidden, count, seat_belief(belief, p), rng)
            tickets.append(held)
            offers.append([hidden.pop() for _ in range(public.offered or 0)])
        return tickets, offers

    @classmethod
    def _sample_setup(
        cls,
        variant: Variant,
        observation: BoardObservation,
        rng: random.Random,
        hidden: list[int],
        hidden_extra: list[int],
        fields: dict[str, Any],
    ) -> None:
        """The initial choice, sampled for the seat choosing: each seat was dealt an offer like
        its own (as many tickets, ``hidden_extra`` first: an edition's special tickets); the
        seats that chose before it kept a random number of theirs, at least the minimum, and
        their returns wait; the seats after it have yet to choose."""
        rules: Any = variant.rules
        seat, n = observation.seat, observation.players
        offered = [t.id for t in observation.offered_tickets]
        extra = len(offered) - min(rules.initial_tickets_dealt, len(offered))
        chose = [(observation.first_player + i) % n for i in range(n)]
        chose = chose[: chose.index(seat)]
        tickets: list[list[int]] = [[] for _ in range(n)]
        offers: list[list[int]] = [[] for _ in range(n)]
        returns: list[int] = []
        for p in range(n):
            if p == seat:
                offers[p] = offered
                continue
            deal = [hidden_extra.pop() for _ in range(extra)]
            deal += [hidden.pop() for _ in range(len(offered) - extra)]
            if p in chose:
                shuffle(rng, deal)
                least = min(rules.initial_tickets_keep, len(deal))
                kept = rng.randint(least, len(deal))
                tickets[p], deal = deal[:kept], deal[kept:]
                returns += deal
            else:
                offers[p] = deal
        fields.update(tickets=tickets, offers=offers, setup_returns=returns)

    @classmethod
    def _sample_extras(cls, observation: BoardObservation, fields: dict[str, Any]) -> None:
        """Hook: the edition's own position fields, from the observation (all public)."""

    # ------------------------------------------------------------------ result

    @classmethod
    def score_categories(cls, rules: BoardRules) -> tuple[str, ...]:
        """The breakdown entries that add up to a total, in table order."""
        base: tuple[str, ...] = ("routes", "tickets_completed", "tickets_failed")
        if rules.longest_path_bonus:
            base += ("longest_path_bonus",)
        return base + cls.EXTRA_SCORE

    def _score(self) -> GameResult:
        board, rules = self.board, self.rules
        a, b, length = board.route_a, board.route_b, board.route_length
        rows: list[dict[str, int]] = []
        for seat in range(self.num_players):
            routes = self._routes[seat]
            done, failed, done_points, failed_points = self._best_tickets(seat)
            rows.append(
                {
                    "routes": self._route_points[seat],
                    "tickets_completed": done_points,
                    "tickets_failed": failed_points,
                    "longest_path_bonus": 0,
                    "completed_tickets": done,
                    "failed_tickets": failed,
                    "longest_path": longest_trail([(a[r], b[r], length[r]) for r in routes]),
                }
            )
        if rules.longest_path_bonus:
            longest = max(row["longest_path"] for row in rows)
            for row in rows:
                if longest and row["longest_path"] == longest:
                    row["longest_path_bonus"] = rules.longest_path_bonus
        self._score_extras(rows)
        return GameResult.from_breakdown(rows, self.score_categories(rules), rules.tie_breaks)

    def _score_extras(self, rows: list[dict[str, int]]) -> None:
        """Hook: add the edition's categories (and statistics) to each seat's row."""

    def _ticket_outcome(self, seat: int, borrowed: Sequence[int]) -> tuple[int, int, int, int]:
        """(completed, failed, their points) of ``seat``'s tickets with its own routes plus
        the ``borrowed`` routes."""
        board = self.board
        a, b = board.route_a, board.route_b
        edges = [(a[r], b[r]) for r in (*self._routes[seat], *borrowed)]
        label = component_labels(len(board.cities), edges)
        done = failed = done_points = failed_points = 0
        for t in self._tickets[seat]:
            joined = label[board.ticket_a[t]]
            if joined >= 0 and joined == label[board.ticket_b[t]]:
                done += 1
                done_points += board.ticket_points[t]
            else:
                failed += 1
                failed_points -= board.ticket_points[t]
        return done, failed, done_points, failed_points

    def _best_tickets(self, seat: int) -> tuple[int, int, int, int]:
        """Hook: ``seat``'s ticket outcome at the end (here: with its own routes)."""
        return self._ticket_outcome(seat, ())


def seat_belief(belief: TicketBelief, seat: int) -> Callable[[int], float]:
    """``belief`` for one seat, on ticket ids (the sampler's lists hold ids)."""

    def weight(ticket_id: int) -> float:
        return belief(seat, ticket_id - 1)

    return weight


def weighted_draw(
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
