"""The state of one board game (USA and every other board map).

OpenSpiel-style split: the variant (rules + map, shared and immutable) and
the state (everything that changes, cheap to copy). All randomness comes
from one ``random.Random`` seeded at creation, so the same seed and the same
actions give the same game bit for bit.

Cards are integers: colour ``i`` is ``rules.colours[i]`` and the wild card
is ``W = len(rules.colours)``. A hand is a list of ``W + 1`` counts. The
hot paths (``legal_actions`` and ``apply``) work only on such lists and on
the board's precomputed tables.
"""

from __future__ import annotations

import itertools
import random
from typing import TYPE_CHECKING, Any

from arena.engine.actions import (
    DRAW_DECK,
    DRAW_TICKETS,
    PASS,
    WITHDRAW,
    Action,
    BuildStation,
    ClaimRoute,
    DrawCard,
    DrawTickets,
    KeepTickets,
    Pass,
    PayTunnel,
    PlaceStack,
    TakeToken,
    Withdraw,
    parse_action,
)
from arena.engine.errors import IllegalActionError
from arena.engine.result import GameResult
from arena.engine.scoring import components, connected, longest_trail

if TYPE_CHECKING:
    from arena.engine.board import Board, BoardRules
    from arena.engine.variant import Variant

SETUP, TURN, SECOND_DRAW, KEEP, OVER, PLACE, TOKEN, TUNNEL = range(8)
PHASE_NAMES = (
    "setup_tickets",
    "turn",
    "second_draw",
    "keep_tickets",
    "over",
    "place_stacks",  # San Francisco setup: a seat places a tourist stack
    "take_token",  # San Francisco: after a claim, a seat picks one of two tourist tokens
    "tunnel",  # Europe: a tunnel asks for extra cards; the seat pays them or withdraws
)


def _keep_choices(offered: int, minimum: int) -> tuple[KeepTickets, ...]:
    """Every subset of ``offered`` positions with at least ``minimum`` members."""
    choices = [
        KeepTickets(tuple(i for i in range(offered) if mask >> i & 1))
        for mask in range(1, 1 << offered)
        if bin(mask).count("1") >= minimum
    ]
    choices.sort(key=lambda k: (len(k.indices), k.indices))
    return tuple(choices)


class BoardState:
    """One board game in progress. Create it with ``arena.new_game``."""

    __slots__ = (
        "_deck",
        "_discards",
        "_display",
        "_draw_slots",
        "_free",
        "_hands",
        "_keep_cache",
        "_last_round",
        "_merch",
        "_merch_left",
        "_offers",
        "_out",
        "_owner",
        "_passes",
        "_phase",
        "_placements",
        "_result",
        "_rng",
        "_route_points",
        "_routes",
        "_setup_left",
        "_setup_returns",
        "_stacks",
        "_station_at",
        "_stations",
        "_ticket_deck",
        "_tickets",
        "_to_move",
        "_token_offer",
        "_tokens",
        "_trains",
        "_tunnel",
        "board",
        "first_player",
        "num_players",
        "rules",
        "seed",
        "turn",
        "variant",
    )

    def __init__(self, variant: Variant, num_players: int, seed: int) -> None:
        rules: BoardRules = variant.rules
        board: Board = variant.board
        self.variant = variant
        self.rules = rules
        self.board = board
        self.num_players = num_players
        self.seed = seed
        rng = self._rng = random.Random(seed)
        wild = len(rules.colours)
        self.first_player = rng.randrange(num_players)
        deck = [c for c in range(wild) for _ in range(rules.cards_per_colour)]
        deck += [wild] * rules.wild_cards
        rng.shuffle(deck)
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
        self._routes: list[list[int]] = [[] for _ in range(num_players)]
        self._route_points = [0] * num_players
        long = board.ticket_long
        ticket_deck = [t for t in range(len(board.tickets)) if not long[t]]
        rng.shuffle(ticket_deck)
        self._ticket_deck = ticket_deck  # the top is the end of the list
        long_deck = [t for t in range(len(board.tickets)) if long[t]]
        rng.shuffle(long_deck)
        self._tickets: list[list[int]] = [[] for _ in range(num_players)]
        self._offers: list[list[int]] = [[] for _ in range(num_players)]
        for seat in self._seat_order():
            for _ in range(min(rules.initial_long_tickets, len(long_deck))):
                self._offers[seat].append(long_deck.pop())
            for _ in range(min(rules.initial_tickets_dealt, len(ticket_deck))):
                self._offers[seat].append(ticket_deck.pop())
        self._out = long_deck  # tickets out of the game: long ones not dealt or not kept
        self._free = [list(group) for group in board.routes_by_colour]
        self._keep_cache: dict[tuple[int, int], tuple[KeepTickets, ...]] = {}
        self._phase = SETUP
        self._setup_left = num_players
        self._setup_returns: list[int] = []
        self._to_move = self.first_player
        self._last_round = -1  # turns left once the last round has begun
        self._passes = 0
        self._result: GameResult | None = None
        self.turn = 0
        # Amsterdam: Merchandise cards held and left; San Francisco: tourist symbols held
        # (a bit mask per seat), stacks on the board (city -> [symbol, tokens left]), stacks
        # still to be placed (seat, symbol, tokens) and the locations of a pending choice.
        self._merch = [0] * num_players
        self._merch_left = rules.merchandise_cards
        self._tokens = [0] * num_players
        self._stacks: dict[int, list[int]] = {}
        self._placements: list[tuple[int, int, int]] = []
        self._token_offer: list[int] = []
        # Europe: stations built (cities, per seat; and city -> seat), a pending tunnel:
        # (route, colour paid, cards of that colour, wilds, cards turned, extra cards asked).
        self._stations: list[list[int]] = [[] for _ in range(num_players)]
        self._station_at: dict[int, int] = {}
        self._tunnel: tuple[int, int, int, int, list[int], int] | None = None
        if rules.tourist_symbols:
            self._set_out_tourist_stacks()

    def _set_out_tourist_stacks(self) -> None:
        """The printed stacks go on their locations; with 3-4 players the last seat and then
        the second-to-last place one of the other two stacks each, with 2 the second seat
        places both (docs/RULES.md). Their choices come before the initial tickets."""
        n, first = self.num_players, self.first_player
        fixed, placed = self.rules.tourist_stack_tokens[n]
        for city, symbol in self.board.tourist_fixed:
            self._stacks[city] = [symbol, fixed]
        last, second_to_last = (first + n - 1) % n, (first + n - 2) % n
        placers = [last, second_to_last] if n >= 3 else [(first + 1) % n] * 2
        self._placements = [
            (seat, symbol, placed)
            for seat, symbol in zip(placers, self.board.tourist_placed, strict=False)
        ]
        if self._placements:
            self._phase = PLACE
            self._to_move = self._placements[0][0]

    # ------------------------------------------------------------------ queries

    @property
    def to_move(self) -> int | None:
        """The seat that must decide next, or None when the game is over."""
        return None if self._phase == OVER else self._to_move

    @property
    def is_over(self) -> bool:
        return self._phase == OVER

    @property
    def phase(self) -> str:
        return PHASE_NAMES[self._phase]

    @property
    def route_points(self) -> tuple[int, ...]:
        """Points scored so far by claiming routes (public during the game)."""
        return tuple(self._route_points)

    @property
    def scored_points(self) -> tuple[int, ...]:
        """Points each seat has scored so far, as every player sees them (viewers use it)."""
        return tuple(self._route_points)

    def _seat_order(self) -> list[int]:
        first, n = self.first_player, self.num_players
        return [(first + i) % n for i in range(n)]

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to move; each way of paying appears once."""
        phase = self._phase
        if phase == TURN:
            return self._turn_actions()
        if phase == SECOND_DRAW:
            return self._second_draw_actions()
        if phase in (SETUP, KEEP):
            return list(self._keep_options())
        if phase == PLACE:
            stacks, place = self._stacks, self.board.place_actions
            return [place[c] for c in range(len(place)) if c not in stacks]
        if phase == TOKEN:
            take = self.board.take_actions
            return [take[c] for c in self._token_offer]
        if phase == TUNNEL:
            return self._tunnel_actions()
        return []

    def _keep_options(self) -> tuple[KeepTickets, ...]:
        offered = len(self._offers[self._to_move])
        rules = self.rules
        minimum = rules.initial_tickets_keep if self._phase == SETUP else rules.draw_tickets_keep
        key = (offered, min(minimum, offered))
        options = self._keep_cache.get(key)
        if options is None:
            options = self._keep_cache[key] = _keep_choices(*key)
        return options

    def _turn_actions(self) -> list[Action]:
        actions: list[Action] = []
        if self._deck or any(self._discards):
            actions.append(DRAW_DECK)
        slots = self._draw_slots
        for slot, card in enumerate(self._display):
            if card >= 0:
                actions.append(slots[slot])
        if self._ticket_deck:
            actions.append(DRAW_TICKETS)
        self._claim_actions(actions)
        if self.rules.stations and len(self._stations[self._to_move]) < self.rules.stations:
            self._station_actions(actions)
        if not actions:
            actions.append(PASS)
        return actions

    def _second_draw_actions(self) -> list[Action]:
        actions: list[Action] = []
        if self._deck or any(self._discards):
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

    def _station_actions(self, actions: list[Action]) -> None:
        """Europe: every way to pay for a station on every city without one."""
        seat = self._to_move
        hand = self._hands[seat]
        wild = len(hand) - 1
        wilds = hand[wild]
        cost = self.rules.station_costs[len(self._stations[seat])]
        board = self.board
        taken = self._station_at
        held = [c for c in range(wild) if hand[c] and hand[c] + wilds >= cost]
        high = wilds if wilds < cost else cost - 1
        for city in range(len(board.cities)):
            if city in taken:
                continue
            table = board.station_table[city]
            for c in held:
                low = cost - hand[c] if cost > hand[c] else 0
                for k in range(low, high + 1):
                    actions.append(table[c][k])
            if wilds >= cost:
                actions.append(board.station_all_wild[city][cost])

    def _tunnel_actions(self) -> list[Action]:
        """Pay the extra cards (each of the claim's colour or wild), or withdraw."""
        _, colour, _, _, _, extra = self._tunnel
        hand = self._hands[self._to_move]
        wild = len(hand) - 1
        if colour == wild:
            options = [PayTunnel(extra)] if hand[wild] >= extra else []
        else:
            low = extra - hand[colour] if extra > hand[colour] else 0
            options = [PayTunnel(k) for k in range(low, min(extra, hand[wild]) + 1)]
        return [*options, WITHDRAW]

    # ------------------------------------------------------------------ moves

    def apply(self, action: Action | str) -> None:
        """Play ``action`` (an Action or its notation) for the seat to move.

        Raises ``IllegalActionError`` naming the rule broken; the state is
        unchanged when it raises.
        """
        if type(action) is str:
            action = parse_action(action)
        if self._phase == OVER:
            raise IllegalActionError(action, "game.over", "the game is over")
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise IllegalActionError(action, "action.unknown", "not an action of this game")
        handler(self, action)

    def _require_turn(self, action: Action) -> None:
        if self._phase != TURN:
            expected = {
                SETUP: "choose which initial tickets to keep ('keep ...')",
                SECOND_DRAW: "draw a second train card",
                KEEP: "choose which drawn tickets to keep ('keep ...')",
                PLACE: "place a tourist stack ('place LOCATION')",
                TOKEN: "choose a tourist token ('token LOCATION')",
                TUNNEL: "pay the tunnel's extra cards ('pay [wN]') or 'withdraw'",
            }[self._phase]
            raise IllegalActionError(action, "turn.phase", f"the player must {expected} first")

    def _draw_card(self, action: DrawCard) -> None:
        phase = self._phase
        if phase != TURN and phase != SECOND_DRAW:
            self._require_turn(action)
        hand = self._hands[self._to_move]
        wild = len(hand) - 1
        slot = action.slot
        if slot is None:
            if not self._deck and not any(self._discards):
                raise IllegalActionError(
                    action, "draw.empty-deck", "the train deck and the discards are empty"
                )
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
            if self._second_draw_actions():
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
        # Valid: lay the cards down; a tunnel may ask for more before the route is taken.
        coloured = size - wilds if colour != wild else 0
        if coloured:
            hand[colour] -= coloured
        hand[wild] -= wilds
        if board.route_tunnel[r] and self.rules.tunnel_reveal:
            self._dig_tunnel(r, colour, coloured, wilds)
            return
        discards = self._discards
        discards[colour] += coloured
        discards[wild] += wilds
        self._complete_claim(seat, r)

    def _dig_tunnel(self, r: int, colour: int, coloured: int, wilds: int) -> None:
        """Turn cards from the deck; each of the colour paid (or wild; only wilds when the
        claim was paid with wilds alone) asks for one more card."""
        turned = []
        for _ in range(self.rules.tunnel_reveal):
            card = self._pop_card()
            if card >= 0:
                turned.append(card)
        wild = len(self.rules.colours)
        extra = sum(1 for c in turned if c in (wild, colour))
        if extra == 0:
            discards = self._discards
            discards[colour] += coloured
            discards[wild] += wilds
            for c in turned:
                discards[c] += 1
            self._complete_claim(self._to_move, r)
            return
        self._tunnel = (r, colour, coloured, wilds, turned, extra)
        self._phase = TUNNEL

    def _pay_tunnel(self, action: PayTunnel) -> None:
        if self._phase != TUNNEL:
            raise IllegalActionError(action, "tunnel.phase", "no tunnel is waiting for cards")
        if action not in self._tunnel_actions():
            r, colour, _, _, _, extra = self._tunnel
            what = self.board.card_names[colour]
            raise IllegalActionError(
                action,
                "tunnel.cards",
                f"the tunnel asks for {extra} more {what} or wild cards; "
                f"the player cannot pay them with {action.wilds} wilds",
            )
        r, colour, coloured, wilds, turned, extra = self._tunnel
        hand, discards = self._hands[self._to_move], self._discards
        wild = len(hand) - 1
        more_colour = extra - action.wilds if colour != wild else 0
        hand[colour] -= more_colour
        hand[wild] -= action.wilds
        discards[colour] += coloured + more_colour
        discards[wild] += wilds + action.wilds
        for c in turned:
            discards[c] += 1
        self._tunnel = None
        self._complete_claim(self._to_move, r)

    def _withdraw(self, action: Withdraw) -> None:
        if self._phase != TUNNEL:
            raise IllegalActionError(action, "tunnel.phase", "no tunnel is waiting for cards")
        _, colour, coloured, wilds, turned, _ = self._tunnel
        hand = self._hands[self._to_move]
        hand[colour] += coloured
        hand[len(hand) - 1] += wilds
        for c in turned:
            self._discards[c] += 1
        self._tunnel = None
        self._end_turn()

    def _build_station(self, action: BuildStation) -> None:
        self._require_turn(action)
        rules, board = self.rules, self.board
        seat = self._to_move
        built = len(self._stations[seat])
        if built >= rules.stations:
            raise IllegalActionError(
                action, "station.none-left", f"the player has built all {rules.stations} stations"
            )
        city = board.city_index.get(action.city)
        if city is None:
            raise IllegalActionError(action, "station.city", f"no city '{action.city}'")
        if city in self._station_at:
            raise IllegalActionError(
                action,
                "station.taken",
                f"{board.city_names[action.city]} already has a station "
                f"(seat {self._station_at[city]})",
            )
        cost = rules.station_costs[built]
        hand = self._hands[seat]
        wild = len(hand) - 1
        if action.colour is None:
            colour, coloured = wild, 0
            valid = action.wilds == cost
        else:
            colour = board.colour_index.get(action.colour, -1)
            coloured = cost - action.wilds
            valid = colour >= 0 and 0 < coloured <= hand[colour]
        if not valid or hand[wild] < action.wilds:
            raise IllegalActionError(
                action,
                "station.payment",
                f"station {built + 1} costs {cost} cards of one colour (wilds may stand in); "
                "the player does not hold this payment",
            )
        hand[colour] -= coloured
        hand[wild] -= action.wilds
        self._discards[colour] += coloured
        self._discards[wild] += action.wilds
        self._stations[seat].append(city)
        self._station_at[city] = seat
        self._end_turn()

    def _complete_claim(self, seat: int, r: int) -> None:
        """The route is paid for: place the pieces, score, hand out the edition's extras."""
        board = self.board
        size = board.route_length[r]
        sibling = board.route_sibling[r]
        owner = self._owner
        owner[r] = seat
        self._routes[seat].append(r)
        self._trains[seat] -= size
        self._route_points[seat] += board.route_points[size]
        if self._merch_left and board.route_carts[r]:
            self._merch_left -= 1
            self._merch[seat] += 1
        free = self._free
        free[board.route_colour[r]].remove(r)
        if sibling >= 0 and self.num_players < self.rules.double_routes_min_players:
            free[board.route_colour[sibling]].remove(sibling)
        if -1 in self._display:
            self._refill_display()
        if self._stacks and self._offer_tokens(seat, r):
            return  # the player chooses between two tokens first
        self._end_turn()

    def _offer_tokens(self, seat: int, r: int) -> bool:
        """Give ``seat`` a tourist token at an end of route ``r`` of a symbol it lacks; with
        two such ends, wait for its choice (True)."""
        stacks, held = self._stacks, self._tokens[seat]
        board = self.board
        ends = [
            c
            for c in (board.route_a[r], board.route_b[r])
            if c in stacks and stacks[c][1] and not held >> stacks[c][0] & 1
        ]
        if len(ends) == 2:
            self._token_offer = ends
            self._phase = TOKEN
            return True
        if ends:
            self._give_token(seat, ends[0])
        return False

    def _give_token(self, seat: int, city: int) -> None:
        stack = self._stacks[city]
        stack[1] -= 1
        self._tokens[seat] |= 1 << stack[0]

    def _city(self, action: PlaceStack | TakeToken, rule: str) -> int:
        city = self.board.city_index.get(action.city)
        if city is None:
            raise IllegalActionError(action, rule, f"no location '{action.city}' on this map")
        return city

    def _place_stack(self, action: PlaceStack) -> None:
        if self._phase != PLACE:
            raise IllegalActionError(action, "place.phase", "no tourist stack is waiting")
        city = self._city(action, "place.location")
        if city in self._stacks:
            raise IllegalActionError(
                action, "place.occupied", f"location '{action.city}' already holds a stack"
            )
        _, symbol, tokens = self._placements.pop(0)
        self._stacks[city] = [symbol, tokens]
        if self._placements:
            self._to_move = self._placements[0][0]
        else:
            self._phase = SETUP
            self._to_move = self.first_player

    def _take_token(self, action: TakeToken) -> None:
        if self._phase != TOKEN:
            raise IllegalActionError(action, "token.phase", "no tourist token choice is pending")
        city = self._city(action, "token.location")
        if city not in self._token_offer:
            names = " or ".join(self.board.cities[c] for c in self._token_offer)
            raise IllegalActionError(action, "token.choice", f"the token is taken at {names}")
        self._give_token(self._to_move, city)
        self._token_offer = []
        self._end_turn()

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
        if action not in self._keep_options():
            offer = self._offers[self._to_move]
            minimum = (
                self.rules.initial_tickets_keep if phase == SETUP else self.rules.draw_tickets_keep
            )
            raise IllegalActionError(
                action,
                "keep.choice",
                f"keep at least {min(minimum, len(offer))} of the {len(offer)} offered tickets, "
                f"by distinct positions 0 to {len(offer) - 1}",
            )
        seat = self._to_move
        offer = self._offers[seat]
        kept = set(action.indices)
        self._tickets[seat].extend(offer[i] for i in action.indices)
        returned = [ticket for i, ticket in enumerate(offer) if i not in kept]
        offer.clear()
        if phase == SETUP:
            # Initial returns wait until every seat has chosen, so that no seat
            # learns another's choice from the size of the ticket deck.
            self._setup_returns.extend(returned)
            self._setup_left -= 1
            if self._setup_left:
                self._to_move = (seat + 1) % self.num_players
            else:
                long = self.board.ticket_long
                self._out.extend(t for t in self._setup_returns if long[t])
                self._return_tickets([t for t in self._setup_returns if not long[t]])
                self._setup_returns = []
                self._phase = TURN
                self._to_move = self.first_player
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
            self._finish()
            return
        if self._last_round >= 0:
            self._last_round -= 1
            if self._last_round == 0:
                self._finish()
                return
        elif self._trains[seat] <= self.rules.last_round_trigger:
            self._last_round = self.num_players
        self._phase = TURN
        self._to_move = (seat + 1) % self.num_players

    def _finish(self) -> None:
        self._phase = OVER

    # ------------------------------------------------------------------ cards

    def _pop_card(self) -> int:
        """Top card of the deck, rebuilding the deck from the discards; -1 if none is left."""
        deck = self._deck
        if not deck:
            discards = self._discards
            if not any(discards):
                return -1
            for colour, count in enumerate(discards):
                deck.extend([colour] * count)
                discards[colour] = 0
            self._rng.shuffle(deck)
        return deck.pop()

    def _refill_display(self) -> None:
        display = self._display
        for slot, card in enumerate(display):
            if card < 0:
                display[slot] = self._pop_card()
        self._check_display()

    def _check_display(self) -> None:
        """Three face-up wilds: discard all five and turn five new ones, again if needed.

        When the cards left (deck, discards, display) cannot make a display
        with fewer wilds than the reset threshold, the display stays as it is
        (docs/RULES.md), so the reset can never loop for ever.
        """
        display = self._display
        rules = self.rules
        wild = len(rules.colours)
        threshold = rules.face_up_wild_reset
        while display.count(wild) >= threshold:
            deck, discards = self._deck, self._discards
            shown = [c for c in display if c >= 0]
            available = len(deck) + sum(discards) + len(shown)
            wilds = deck.count(wild) + discards[wild] + shown.count(wild)
            if available - wilds < min(rules.face_up, available) - (threshold - 1):
                return
            for card in shown:
                discards[card] += 1
            for slot in range(len(display)):
                display[slot] = -1
            for slot in range(len(display)):
                display[slot] = self._pop_card()

    # ------------------------------------------------------------------ views

    def observation(self, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know, as JSON-ready data, and nothing more.

        Never included: other seats' hands, tickets and ticket offers, and the
        order of the train and ticket decks. During setup the number of
        tickets another seat kept is hidden too, until every seat has chosen.
        """
        if not 0 <= seat < self.num_players:
            raise ValueError(f"no seat {seat} in a {self.num_players}-player game")
        board = self.board
        names = board.card_names
        ticket = board.ticket_json
        route_key = board.route_key
        in_setup = self._phase == SETUP
        players = [
            {
                "seat": p,
                "trains": self._trains[p],
                "hand_size": sum(self._hands[p]),
                "tickets": None if in_setup and p != seat else len(self._tickets[p]),
                # Tickets drawn and not yet kept or returned: everyone sees them taken.
                "offered": None if in_setup and p != seat else len(self._offers[p]),
                "route_points": self._route_points[p],
                "routes": [r + 1 for r in self._routes[p]],
            }
            for p in range(self.num_players)
        ]
        self._extras_public(players)
        own_offer = (
            self._offers[seat] if self._to_move == seat and self._phase in (SETUP, KEEP) else []
        )
        observation = {
            "variant": self.variant.name,
            "seat": seat,
            "players": self.num_players,
            "first_player": self.first_player,
            "turn": self.turn,
            "phase": self.phase,
            "to_move": self.to_move,
            "hand": dict(zip(names, self._hands[seat], strict=True)),
            "tickets": [dict(ticket[t]) for t in self._tickets[seat]],
            "offered_tickets": [dict(ticket[t]) for t in own_offer],
            "display": [names[c] if c >= 0 else None for c in self._display],
            "deck_size": len(self._deck),
            "discards": dict(zip(names, self._discards, strict=True)),
            "ticket_deck_size": len(self._ticket_deck),
            "claimed": {route_key[r]: p for p, routes in enumerate(self._routes) for r in routes},
            "public": players,
            "passes": self._passes,
            "last_round": self._last_round >= 0,
            "turns_left": self._last_round if self._last_round >= 0 else None,
        }
        self._extras_shared(observation)
        return observation

    def _extras_public(self, players: list[dict[str, Any]]) -> None:
        """Per-seat public facts of the city editions' extra components."""
        rules = self.rules
        if rules.merchandise_cards:
            for p, row in enumerate(players):
                row["merchandise"] = self._merch[p]
        if rules.stations:
            cities = self.board.cities
            for p, row in enumerate(players):
                row["stations"] = [cities[c] for c in self._stations[p]]
        if rules.tourist_symbols:
            symbols = rules.tourist_symbols
            for p, row in enumerate(players):
                held = self._tokens[p]
                row["tourist_tokens"] = [s for i, s in enumerate(symbols) if held >> i & 1]

    def _extras_shared(self, observation: dict[str, Any]) -> None:
        """Board-wide public facts of the city editions' extra components."""
        rules = self.rules
        if rules.merchandise_cards:
            observation["merchandise_left"] = self._merch_left
        if rules.initial_long_tickets:
            # How many tickets left the game is known once every seat has chosen.
            observation["tickets_out"] = None if self._phase == SETUP else len(self._out)
        if rules.tunnel_reveal:
            tunnel = None
            if self._tunnel is not None:
                r, colour, coloured, wilds, turned, extra = self._tunnel
                names = self.board.card_names
                tunnel = {
                    "route": r + 1,
                    "colour": names[colour],
                    "cards": coloured,
                    "wilds": wilds,
                    "turned": [names[c] for c in turned],
                    "extra": extra,
                }
            observation["tunnel"] = tunnel
        if rules.tourist_symbols:
            symbols, cities = rules.tourist_symbols, self.board.cities
            observation["tourist_stacks"] = {
                cities[c]: {"symbol": symbols[sym], "tokens": n}
                for c, (sym, n) in sorted(self._stacks.items())
            }
            observation["stacks_to_place"] = [
                {"seat": seat, "symbol": symbols[sym], "tokens": n}
                for seat, sym, n in self._placements
            ]
            observation["token_choices"] = [cities[c] for c in self._token_offer]

    def copy(self) -> BoardState:
        """An independent copy (for search): same future under the same actions."""
        new = BoardState.__new__(BoardState)
        new.variant, new.rules, new.board = self.variant, self.rules, self.board
        new.num_players, new.seed, new.first_player = self.num_players, self.seed, self.first_player
        new._rng = random.Random()
        new._rng.setstate(self._rng.getstate())
        new._deck = self._deck[:]
        new._discards = self._discards[:]
        new._display = self._display[:]
        new._draw_slots = self._draw_slots
        new._hands = [h[:] for h in self._hands]
        new._trains = self._trains[:]
        new._owner = self._owner[:]
        new._routes = [r[:] for r in self._routes]
        new._route_points = self._route_points[:]
        new._ticket_deck = self._ticket_deck[:]
        new._tickets = [t[:] for t in self._tickets]
        new._offers = [o[:] for o in self._offers]
        new._free = [f[:] for f in self._free]
        new._keep_cache = self._keep_cache
        new._phase, new._setup_left, new._to_move = self._phase, self._setup_left, self._to_move
        new._setup_returns = self._setup_returns[:]
        new._last_round, new._passes, new.turn = self._last_round, self._passes, self.turn
        new._result = self._result
        new._merch, new._merch_left = self._merch[:], self._merch_left
        new._tokens = self._tokens[:]
        new._stacks = {c: stack[:] for c, stack in self._stacks.items()}
        new._placements = self._placements[:]
        new._token_offer = self._token_offer[:]
        new._out = self._out[:]
        new._stations = [s[:] for s in self._stations]
        new._station_at = dict(self._station_at)
        new._tunnel = (
            None
            if self._tunnel is None
            else (*self._tunnel[:4], self._tunnel[4][:], self._tunnel[5])
        )
        return new

    def fingerprint(self) -> tuple:
        """The complete state as a hashable value, hidden parts included (for tests)."""
        return (
            self._rng.getstate(),
            tuple(self._deck),
            tuple(self._discards),
            tuple(self._display),
            tuple(map(tuple, self._hands)),
            tuple(self._trains),
            tuple(self._owner),
            tuple(map(tuple, self._routes)),
            tuple(self._route_points),
            tuple(self._ticket_deck),
            tuple(map(tuple, self._tickets)),
            tuple(map(tuple, self._offers)),
            tuple(self._setup_returns),
            self._phase,
            self._to_move,
            self._last_round,
            self._passes,
            self.turn,
            tuple(self._merch),
            self._merch_left,
            tuple(self._tokens),
            tuple(sorted((c, *stack) for c, stack in self._stacks.items())),
            tuple(self._placements),
            tuple(self._token_offer),
            tuple(self._out),
            tuple(map(tuple, self._stations)),
            None
            if self._tunnel is None
            else (*self._tunnel[:4], tuple(self._tunnel[4]), self._tunnel[5]),
        )

    # ------------------------------------------------------------------ result

    def result(self) -> GameResult:
        """Final scores with their breakdown and ranks (after the variant's tie-breaks)."""
        if self._phase != OVER:
            raise RuntimeError("the game is not over yet")
        if self._result is None:
            self._result = self._score()
        return self._result

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
        if rules.attraction_points:
            for seat, row in enumerate(rows):
                touched = {c for r in self._routes[seat] for c in (a[r], b[r])}
                row["attractions"] = rules.attraction_points * len(touched & board.attractions)
        if rules.merchandise_cards:
            self._score_merchandise(rows)
        if rules.stations:
            for seat, row in enumerate(rows):
                left = rules.stations - len(self._stations[seat])
                row["stations_left"] = left
                row["stations"] = rules.station_points * left
        if rules.tourist_symbols:
            bonus = rules.tourist_bonus
            for seat, row in enumerate(rows):
                distinct = self._tokens[seat].bit_count()
                row["tourist_symbols"] = distinct
                row["tourists"] = bonus[min(distinct, len(bonus) - 1)]
        return GameResult.from_breakdown(rows, rules.score_categories, rules.tie_breaks)

    def _ticket_outcome(self, seat: int, borrowed: tuple[int, ...]) -> tuple[int, int, int, int]:
        """(completed, failed, their points) of ``seat``'s tickets with its own routes plus
        the ``borrowed`` opponent routes."""
        board = self.board
        a, b = board.route_a, board.route_b
        comp = components([(a[r], b[r]) for r in (*self._routes[seat], *borrowed)])
        done = failed = done_points = failed_points = 0
        for t in self._tickets[seat]:
            if connected(comp, board.ticket_a[t], board.ticket_b[t]):
                done += 1
                done_points += board.ticket_points[t]
            else:
                failed += 1
                failed_points -= board.ticket_points[t]
        return done, failed, done_points, failed_points

    def _best_tickets(self, seat: int) -> tuple[int, int, int, int]:
        """Europe: each station may use one opponent route into its city. Every combination
        is tried (at most (routes into a city + 1) ** 3) and the one giving the most ticket
        points kept; ties go to more completed tickets, then to the first found."""
        best = self._ticket_outcome(seat, ())
        if not self._stations[seat] or not best[1]:
            return best
        board, owner = self.board, self._owner
        choices = []
        for city in self._stations[seat]:
            into = [r for r in board.city_routes[city] if owner[r] >= 0 and owner[r] != seat]
            choices.append([-1, *into])
        for combo in itertools.product(*choices):
            outcome = self._ticket_outcome(seat, tuple(r for r in combo if r >= 0))
            if (outcome[2] + outcome[3], outcome[0]) > (best[2] + best[3], best[0]):
                best = outcome
        return best

    def _score_merchandise(self, rows: list[dict[str, int]]) -> None:
        """Most Merchandise cards: position k (0-based) scores the table's k-th bonus; tied
        players all score their shared position and the next positions are skipped; a
        player without a card scores nothing."""
        table = self.rules.merchandise_bonus[self.num_players]
        counts = self._merch
        for seat, row in enumerate(rows):
            position = sum(other > counts[seat] for other in counts)
            row["merchandise_cards"] = counts[seat]
            row["merchandise"] = table[position] if counts[seat] and position < len(table) else 0


# The method that plays each kind of action (one lookup instead of a chain of type tests).
_HANDLERS = {
    DrawCard: BoardState._draw_card,
    ClaimRoute: BoardState._claim,
    KeepTickets: BoardState._keep,
    DrawTickets: BoardState._draw_tickets,
    Pass: BoardState._pass,
    PlaceStack: BoardState._place_stack,
    TakeToken: BoardState._take_token,
    BuildStation: BoardState._build_station,
    PayTunnel: BoardState._pay_tunnel,
    Withdraw: BoardState._withdraw,
}
