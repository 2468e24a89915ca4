"""Ticket to Ride: The Card Game — a different game behind the same state interface.

No map: players play groups of train cards into their public Train Yard; each
turn one card of every colour group moves on to the player's face-down
On-the-Track pile; when the train deck runs out the piles complete tickets
(each card serves one ticket, locomotives stand in for any colour). Train
robbing, big-city bonuses, and with 4 players a second round. docs/RULES.md
lists every rule and every decision; tests/test_cardgame.py tests them.

Cards are integers as on the boards: colour ``i`` is ``rules.colours[i]``,
the locomotive is ``W = len(rules.colours)``; a hand is a list of counts.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.engine.actions import (
    DRAW_DECK,
    DRAW_TICKETS,
    PASS,
    Action,
    DrawCard,
    DrawTickets,
    KeepTickets,
    Pass,
    PlayGroup,
    PlayTrio,
    parse_action,
)
from arena.engine.errors import IllegalActionError
from arena.engine.result import GameResult

if TYPE_CHECKING:
    from arena.engine.variant import Variant

SETUP, TURN, SECOND_DRAW, KEEP, OVER = range(5)
PHASE_NAMES = ("setup_tickets", "turn", "second_draw", "keep_tickets", "over")
CATEGORIES = ("tickets_completed", "tickets_failed", "big_cities")
TIE_BREAKS = ("completed_tickets", "big_city_cards")


@dataclass(frozen=True)
class CardGameRules:
    colours: tuple[str, ...]
    cards_per_colour: int
    locomotives: int
    starting_locomotives: int
    starting_hand: int
    face_up: int
    deal_tickets: int
    keep_min: int
    draw_tickets: int
    rounds: dict[int, int]  # player count -> times the train deck is played through
    second_round_hand: int = 4
    owner_sees_track: bool = False  # the rulebook's variant: a player may look at their pile
    min_players: int = 2
    max_players: int = 4
    wild_name: str = "locomotive"


@dataclass(frozen=True)
class CardTicket:
    id: int
    a: str
    b: str
    points: int
    cards: tuple[int, ...]  # count per colour


class CardGameBoard:
    """The printed components: tickets (with the cards each asks for) and big cities."""

    def __init__(self, data: dict[str, Any], rules: CardGameRules) -> None:
        index = {c: i for i, c in enumerate(rules.colours)}
        self.tickets = tuple(
            CardTicket(
                i + 1,
                t["a"],
                t["b"],
                int(t["points"]),
                tuple(t["cards"].get(c, 0) for c in rules.colours),
            )
            for i, t in enumerate(data["tickets"])
        )
        for t, raw in zip(self.tickets, data["tickets"], strict=True):
            unknown = set(raw["cards"]) - set(index)
            if unknown:
                raise ValueError(f"ticket {t.id} asks for unknown colours {sorted(unknown)}")
        self.ticket_json = tuple(
            {
                "id": t.id,
                "a": t.a,
                "b": t.b,
                "points": t.points,
                "cards": {c: n for c, n in zip(rules.colours, t.cards, strict=True) if n},
            }
            for t in self.tickets
        )
        self.big_cities = tuple((c["id"], int(c["bonus"])) for c in data["big_cities"])
        # Every play, interned: group_actions[colour][count][locomotives], and
        # trio_actions[a][b][c] for colour indices a < b < c (named in alphabetical order).
        colours = rules.colours
        most = rules.cards_per_colour
        self.group_actions = tuple(
            tuple(
                tuple(PlayGroup(name, count, w) for w in range(rules.locomotives + 1))
                for count in range(most + 1)
            )
            for name in colours
        )
        n = len(colours)
        self.trio_actions = tuple(
            tuple(
                tuple(
                    PlayTrio(tuple(sorted((colours[a], colours[b], colours[c]))))
                    if a < b < c
                    else None
                    for c in range(n)
                )
                for b in range(n)
            )
            for a in range(n)
        )
        self.card_names = (*rules.colours, "wild")
        self.colour_index = index
        self.rules = rules
        self.data = data

    def public_json(self) -> dict[str, Any]:
        """What every player sees before the game: tickets, big cities, rule numbers."""
        rules = self.rules
        return {
            "cities": [],
            "routes": [],
            "tickets": [dict(t) for t in self.ticket_json],
            "big_cities": [{"id": c, "bonus": b} for c, b in self.big_cities],
            "rules": {
                "colours": list(rules.colours),
                "face_up": rules.face_up,
                "draw_tickets": rules.draw_tickets,
                "owner_sees_track": rules.owner_sees_track,
                "rounds": {str(n): r for n, r in rules.rounds.items()},
            },
        }


def best_ticket_set(
    tickets: list[CardTicket], track: list[int], wild: int
) -> tuple[list[CardTicket], int]:
    """The tickets to complete with the cards of ``track`` for the most points.

    Each card serves one ticket and locomotives stand in for any colour, so a
    set of tickets can be completed exactly when the locomotives cover every
    colour's shortfall. Exact: a depth-first search over the tickets (most
    valuable first), pruned when the points still available cannot beat the
    best set found. Among sets of equal points the one with more tickets wins.
    """
    order = sorted(tickets, key=lambda t: (-t.points, t.id))
    have = track[:wild]
    locos = track[wild]
    best: list[CardTicket] = []
    best_key = (0, 0)
    suffix = [0] * (len(order) + 1)
    for i in range(len(order) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + order[i].points
    need = [0] * wild
    chosen: list[CardTicket] = []

    def shortfall() -> int:
        return sum(n - h for n, h in zip(need, have, strict=True) if n > h)

    def search(i: int, points: int) -> None:
        nonlocal best, best_key
        key = (points, len(chosen))
        if key > best_key:
            best, best_key = chosen[:], key
        if i == len(order) or points + suffix[i] < best_key[0]:
            return
        ticket = order[i]
        for c, n in enumerate(ticket.cards):
            need[c] += n
        if shortfall() <= locos:
            chosen.append(ticket)
            search(i + 1, points + ticket.points)
            chosen.pop()
        for c, n in enumerate(ticket.cards):
            need[c] -= n
        search(i + 1, points)

    search(0, 0)
    return best, best_key[0]


class CardGameState:
    """One Card Game in progress. Create it with ``arena.new_game``."""

    def __init__(self, variant: Variant, num_players: int, seed: int) -> None:
        rules: CardGameRules = variant.rules
        self.variant, self.rules, self.board = variant, rules, variant.board
        self.num_players, self.seed = num_players, seed
        rng = self._rng = random.Random(seed)
        wild = self._wild = len(rules.colours)
        self.first_player = rng.randrange(num_players)
        self._hands = [[0] * (wild + 1) for _ in range(num_players)]
        for hand in self._hands:
            hand[wild] = rules.starting_locomotives
        deck = [c for c in range(wild) for _ in range(rules.cards_per_colour)]
        deck += [wild] * (rules.locomotives - rules.starting_locomotives * num_players)
        rng.shuffle(deck)
        self._deck = deck
        for seat in self._seat_order():
            for _ in range(rules.starting_hand):
                self._hands[seat][deck.pop()] += 1
        self._display = [deck.pop() for _ in range(rules.face_up)]
        self._draw_slots = tuple(DrawCard(i) for i in range(rules.face_up))
        self._discards = [0] * (wild + 1)
        # Train Yard: per seat and colour, [cards of that colour, locomotives in the group].
        self._yard = [[[0, 0] for _ in range(wild)] for _ in range(num_players)]
        self._track = [[0] * (wild + 1) for _ in range(num_players)]
        ticket_deck = list(range(len(self.board.tickets)))
        rng.shuffle(ticket_deck)
        self._ticket_deck = ticket_deck  # top = end of the list
        self._tickets: list[list[int]] = [[] for _ in range(num_players)]
        self._completed: list[list[int]] = [[] for _ in range(num_players)]
        self._offers: list[list[int]] = [[] for _ in range(num_players)]
        for seat in self._seat_order():
            for _ in range(min(rules.deal_tickets, len(ticket_deck))):
                self._offers[seat].append(ticket_deck.pop())
        self._setup_left = num_players
        self._setup_returns: list[int] = []
        self._played = [False] * num_players  # has the seat had a turn yet (phase 1)
        self._phase = SETUP
        self._to_move = self.first_player
        self._round = 1
        self._deck_out = False
        self._last_round = -1
        self._passes = 0
        self._result: GameResult | None = None
        self.turn = 0

    # ------------------------------------------------------------------ queries

    @property
    def to_move(self) -> int | None:
        return None if self._phase == OVER else self._to_move

    @property
    def is_over(self) -> bool:
        return self._phase == OVER

    @property
    def phase(self) -> str:
        return PHASE_NAMES[self._phase]

    @property
    def scored_points(self) -> tuple[int, ...]:
        """Points of the tickets each seat has completed so far (public once scored)."""
        tickets = self.board.tickets
        return tuple(sum(tickets[t].points for t in done) for done in self._completed)

    def _seat_order(self) -> list[int]:
        return [(self.first_player + i) % self.num_players for i in range(self.num_players)]

    def legal_actions(self) -> list[Action]:
        phase = self._phase
        if phase == TURN:
            return self._turn_actions()
        if phase == SECOND_DRAW:
            return self._draws(second=True)
        if phase in (SETUP, KEEP):
            return self._keep_options()
        return []

    def _keep_options(self) -> list[Action]:
        offered = len(self._offers[self._to_move])
        minimum = min(self.rules.keep_min, offered) if self._phase == SETUP else 0
        choices = [
            KeepTickets(tuple(i for i in range(offered) if mask >> i & 1))
            for mask in range(1 << offered)
            if bin(mask).count("1") >= minimum
        ]
        choices.sort(key=lambda k: (len(k.indices), k.indices))
        return choices

    def _draws(self, second: bool) -> list[Action]:
        actions: list[Action] = [DRAW_DECK] if self._deck else []
        for slot, card in enumerate(self._display):
            if card >= 0 and not (second and card == self._wild):
                actions.append(self._draw_slots[slot])
        return actions

    def _turn_actions(self) -> list[Action]:
        actions = self._draws(second=False)
        actions += self._plays()
        if self._ticket_deck:
            actions.append(DRAW_TICKETS)
        return actions or [PASS]

    def _thresholds(self, seat: int) -> list[int]:
        """Per colour, the fewest cards ``seat`` must play to put it in its yard: more than any
        opponent holds there (robbing), or never (a very large number) while its own yard
        holds the colour."""
        yards = self._yard
        never = 1 << 30
        needed = []
        for colour in range(self._wild):
            if sum(yards[seat][colour]):
                needed.append(never)
                continue
            most = 0
            for p in range(self.num_players):
                if p != seat:
                    size = yards[p][colour][0] + yards[p][colour][1]
                    if size > most:
                        most = size
            needed.append(most + 1)
        return needed

    def _plays(self) -> list[Action]:
        seat = self._to_move
        hand, wild = self._hands[seat], self._wild
        group, trio = self.board.group_actions, self.board.trio_actions
        locos = hand[wild]
        needed = self._thresholds(seat)
        actions: list[Action] = []
        for c in range(wild):
            table = group[c]
            least = max(2, needed[c])
            for count in range(1, hand[c] + 1):
                for w in range(max(0, least - count), locos + 1):
                    actions.append(table[count][w])
        held = [c for c in range(wild) if hand[c] and needed[c] <= 1]
        for i in range(len(held)):
            for j in range(i + 1, len(held)):
                for k in range(j + 1, len(held)):
                    actions.append(trio[held[i]][held[j]][held[k]])
        return actions

    # ------------------------------------------------------------------ moves

    def apply(self, action: Action | str) -> None:
        """Play ``action`` for the seat to move; ``IllegalActionError`` leaves the state as is."""
        if type(action) is str:
            action = parse_action(action)
        if self._phase == OVER:
            raise IllegalActionError(action, "game.over", "the game is over")
        kind = type(action)
        if kind is DrawCard:
            self._draw_card(action)
        elif kind is PlayGroup or kind is PlayTrio:
            self._play(action)
        elif kind is DrawTickets:
            self._draw_tickets(action)
        elif kind is KeepTickets:
            self._keep(action)
        elif kind is Pass:
            if self._phase != TURN or self._turn_actions() != [PASS]:
                raise IllegalActionError(
                    action, "pass.not-allowed", "passing is allowed only when nothing else is"
                )
            self._end_turn(passed=True)
        else:
            raise IllegalActionError(action, "action.unknown", "not an action of the Card Game")

    def _require_turn(self, action: Action) -> None:
        if self._phase != TURN:
            expected = {
                SETUP: "choose which initial tickets to keep ('keep ...')",
                SECOND_DRAW: "draw a second train card",
                KEEP: "choose which drawn tickets to keep ('keep ...' or 'keep none')",
            }[self._phase]
            raise IllegalActionError(action, "turn.phase", f"the player must {expected} first")

    def _take_from_deck(self) -> int:
        card = self._deck.pop()
        if not self._deck:
            self._deck_out = True  # the last card: the last turns follow this one
        return card

    def _draw_card(self, action: DrawCard) -> None:
        phase = self._phase
        if phase not in (TURN, SECOND_DRAW):
            self._require_turn(action)
        hand = self._hands[self._to_move]
        if action.slot is None:
            if not self._deck:
                raise IllegalActionError(action, "draw.empty-deck", "the train deck is empty")
            hand[self._take_from_deck()] += 1
            face_up_loco = False
        else:
            display = self._display
            slot = action.slot
            if not 0 <= slot < len(display) or display[slot] < 0:
                raise IllegalActionError(action, "draw.slot", f"no face-up card in slot {slot}")
            card = display[slot]
            face_up_loco = card == self._wild
            if face_up_loco and phase == SECOND_DRAW:
                raise IllegalActionError(
                    action,
                    "draw.second-wild",
                    "a face-up locomotive counts as two cards: not as the second",
                )
            hand[card] += 1
            display[slot] = self._take_from_deck() if self._deck else -1
        # Drawing the deck's last card ends the draw (docs/RULES.md): the last turns follow.
        last_card = action.slot is None and not self._deck
        if phase == TURN and not face_up_loco and not last_card and self._draws(second=True):
            self._phase = SECOND_DRAW
            return
        self._end_turn()

    def _play(self, action: PlayGroup | PlayTrio) -> None:
        self._require_turn(action)
        if not self._playable(action):
            raise IllegalActionError(action, "play.cards", self._why_not(action))
        seat = self._to_move
        hand, wild, index = self._hands[seat], self._wild, self.board.colour_index
        if type(action) is PlayGroup:
            groups = [(index[action.colour], action.count, action.wilds)]
        else:
            groups = [(index[c], 1, 0) for c in action.colours]
        for colour, count, wilds in groups:
            for p in range(self.num_players):  # train robbing
                if p != seat and sum(self._yard[p][colour]):
                    robbed = self._yard[p][colour]
                    self._discards[colour] += robbed[0]
                    self._discards[wild] += robbed[1]
                    self._yard[p][colour] = [0, 0]
            hand[colour] -= count
            hand[wild] -= wilds
            self._yard[seat][colour] = [count, wilds]
        self._end_turn()

    def _playable(self, action: PlayGroup | PlayTrio) -> bool:
        """The same test as ``_plays`` for one play, without listing them all."""
        seat, index = self._to_move, self.board.colour_index
        hand, wild = self._hands[seat], self._wild
        needed = self._thresholds(seat)
        if type(action) is PlayGroup:
            c = index.get(action.colour)
            count, w = action.count, action.wilds
            return (
                c is not None
                and 1 <= count <= hand[c]
                and 0 <= w <= hand[wild]
                and count + w >= max(2, needed[c])
            )
        colours = [index.get(name) for name in action.colours]
        return (
            None not in colours
            and len(set(colours)) == 3
            and list(action.colours) == sorted(action.colours)
            and all(hand[c] and needed[c] <= 1 for c in colours)
        )

    def _why_not(self, action: PlayGroup | PlayTrio) -> str:
        """The rule a play breaks, in words."""
        seat, index = self._to_move, self.board.colour_index
        hand, wild = self._hands[seat], self._wild
        if type(action) is PlayGroup:
            groups = [(action.colour, action.count, action.wilds)]
            if action.count + action.wilds < 2 or action.count < 1:
                return "a group is 2 or more cards of one colour (at least one not a locomotive)"
        else:
            groups = [(c, 1, 0) for c in action.colours]
        for name, count, wilds in groups:
            c = index.get(name)
            if c is None:
                return f"'{name}' is not a card colour"
            if hand[c] < count or hand[wild] < wilds:
                return f"the player does not hold {count} {name} and {wilds} locomotives"
            if sum(self._yard[seat][c]):
                return f"{name} is already in the player's Train Yard"
            for p in range(self.num_players):
                if p != seat and sum(self._yard[p][c]) >= count + wilds:
                    return (
                        f"seat {p} has {sum(self._yard[p][c])} {name} in its Train Yard: "
                        f"play more than that to rob it"
                    )
        return "not a legal play"

    def _draw_tickets(self, action: DrawTickets) -> None:
        self._require_turn(action)
        if not self._ticket_deck:
            raise IllegalActionError(action, "tickets.empty", "the ticket deck is empty")
        offer = self._offers[self._to_move]
        for _ in range(min(self.rules.draw_tickets, len(self._ticket_deck))):
            offer.append(self._ticket_deck.pop())
        self._phase = KEEP

    def _keep(self, action: KeepTickets) -> None:
        phase = self._phase
        if phase not in (SETUP, KEEP):
            raise IllegalActionError(action, "keep.no-offer", "there are no offered tickets")
        if action not in self._keep_options():
            offered = len(self._offers[self._to_move])
            raise IllegalActionError(
                action,
                "keep.choice",
                f"keep distinct positions 0 to {offered - 1}"
                + (f", at least {self.rules.keep_min}" if phase == SETUP else ""),
            )
        seat = self._to_move
        offer = self._offers[seat]
        kept = set(action.indices)
        self._tickets[seat].extend(offer[i] for i in action.indices)
        returned = [t for i, t in enumerate(offer) if i not in kept]
        offer.clear()
        if phase == KEEP:
            self._ticket_deck[:0] = reversed(returned)  # to the bottom
            self._end_turn()
            return
        # Initial returns are shuffled back once every seat has chosen (counts stay hidden).
        self._setup_returns += returned
        self._setup_left -= 1
        if self._setup_left:
            self._to_move = (seat + 1) % self.num_players
            return
        self._ticket_deck += self._setup_returns
        self._setup_returns = []
        self._rng.shuffle(self._ticket_deck)
        self._phase = TURN
        self._to_move = self.first_player
        self._begin_turn()

    def _end_turn(self, passed: bool = False) -> None:
        seat = self._to_move
        self.turn += 1
        self._played[seat] = True
        self._passes = self._passes + 1 if passed else 0
        if self._passes >= self.num_players:
            self._end_round(seat)
            return
        if self._last_round >= 0:
            self._last_round -= 1
            if self._last_round == 0:
                self._end_round(seat)
                return
        elif self._deck_out:
            self._last_round = self.num_players  # everyone, the drawer included
        self._phase = TURN
        self._to_move = (seat + 1) % self.num_players
        self._begin_turn()

    def _begin_turn(self) -> None:
        """Phase 1: one card of every colour group in the Train Yard goes On the Track (a
        card of the colour while the group has one, then its locomotives); skipped on a
        player's first turn."""
        seat = self._to_move
        if not self._played[seat]:
            return
        track = self._track[seat]
        for colour, group in enumerate(self._yard[seat]):
            if group[0]:
                group[0] -= 1
                track[colour] += 1
            elif group[1]:
                group[1] -= 1
                track[self._wild] += 1

    # ------------------------------------------------------------------ rounds

    def _end_round(self, last: int) -> None:
        """Score the On-the-Track piles; with a second round to play, clear the table,
        deal 4 cards each and go on with the player after ``last``."""
        wild = self._wild
        tickets = self.board.tickets
        for seat in range(self.num_players):
            held = [tickets[t] for t in self._tickets[seat]]
            done, _ = best_ticket_set(held, self._track[seat], wild)
            done_ids = {t.id - 1 for t in done}
            self._completed[seat] += sorted(done_ids)
            self._tickets[seat] = [t for t in self._tickets[seat] if t not in done_ids]
        if self._round >= self.rules.rounds[self.num_players]:
            self._phase = OVER
            return
        self._round += 1
        for seat in range(self.num_players):
            for c in range(wild + 1):
                self._discards[c] += self._track[seat][c]
                self._track[seat][c] = 0
            for c, group in enumerate(self._yard[seat]):
                self._discards[c] += group[0]
                self._discards[wild] += group[1]
                self._yard[seat][c] = [0, 0]
        deck = [c for c, n in enumerate(self._discards) for _ in range(n)]
        self._discards = [0] * (wild + 1)
        self._rng.shuffle(deck)
        self._deck += deck
        self._deck_out = False
        self._last_round = -1
        self._passes = 0
        first = (last + 1) % self.num_players
        for i in range(self.num_players):
            hand = self._hands[(first + i) % self.num_players]
            for _ in range(min(self.rules.second_round_hand, len(self._deck))):
                hand[self._take_from_deck()] += 1
        for slot, card in enumerate(self._display):
            if card < 0 and self._deck:
                self._display[slot] = self._take_from_deck()
        if not self._deck:
            self._deck_out = True
        self._phase = TURN
        self._to_move = first

    # ------------------------------------------------------------------ views

    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know: its hand and tickets, every Train Yard, the sizes of the
        On-the-Track piles (their cards are hidden, the owner's too unless the variant lets
        owners look), completed tickets once scored."""
        if not 0 <= seat < self.num_players:
            raise ValueError(f"no seat {seat} in a {self.num_players}-player game")
        names, colours = self.board.card_names, self.rules.colours
        ticket = self.board.ticket_json
        in_setup = self._phase == SETUP
        public = [
            {
                "seat": p,
                "hand_size": sum(self._hands[p]),
                "tickets": None if in_setup and p != seat else len(self._tickets[p]),
                "offered": None if in_setup and p != seat else len(self._offers[p]),
                "yard": {
                    colours[c]: {"cards": g[0], "wilds": g[1]}
                    for c, g in enumerate(self._yard[p])
                    if g[0] or g[1]
                },
                "track_size": sum(self._track[p]),
                "completed": [dict(ticket[t]) for t in self._completed[p]],
            }
            for p in range(self.num_players)
        ]
        own_offer = (
            self._offers[seat] if self._to_move == seat and self._phase in (SETUP, KEEP) else []
        )
        track = (
            dict(zip(names, self._track[seat], strict=True))
            if self.rules.owner_sees_track
            else None
        )
        return {
            "variant": self.variant.name,
            "seat": seat,
            "players": self.num_players,
            "first_player": self.first_player,
            "turn": self.turn,
            "round": self._round,
            "phase": self.phase,
            "to_move": self.to_move,
            "hand": dict(zip(names, self._hands[seat], strict=True)),
            "tickets": [dict(ticket[t]) for t in self._tickets[seat]],
            "offered_tickets": [dict(ticket[t]) for t in own_offer],
            "track": track,
            "display": [names[c] if c >= 0 else None for c in self._display],
            "deck_size": len(self._deck),
            "discards": dict(zip(names, self._discards, strict=True)),
            "ticket_deck_size": len(self._ticket_deck),
            "public": public,
            "passes": self._passes,
            "last_round": self._last_round >= 0,
            "turns_left": self._last_round if self._last_round >= 0 else None,
        }

    def copy(self) -> CardGameState:
        new = CardGameState.__new__(CardGameState)
        new.__dict__.update(self.__dict__)
        new._rng = random.Random()
        new._rng.setstate(self._rng.getstate())
        for name in ("_deck", "_display", "_discards", "_ticket_deck", "_setup_returns"):
            setattr(new, name, getattr(self, name)[:])
        for name in ("_hands", "_track", "_tickets", "_completed", "_offers"):
            setattr(new, name, [x[:] for x in getattr(self, name)])
        new._played = self._played[:]
        new._yard = [[g[:] for g in yard] for yard in self._yard]
        return new

    def fingerprint(self) -> tuple:
        """The complete state as a hashable value, hidden parts included (for tests)."""
        return (
            self._rng.getstate(),
            tuple(self._deck),
            tuple(self._display),
            tuple(self._discards),
            tuple(map(tuple, self._hands)),
            tuple(tuple(map(tuple, yard)) for yard in self._yard),
            tuple(map(tuple, self._track)),
            tuple(self._ticket_deck),
            tuple(map(tuple, self._tickets)),
            tuple(map(tuple, self._completed)),
            tuple(map(tuple, self._offers)),
            tuple(self._setup_returns),
            tuple(self._played),
            self._phase,
            self._to_move,
            self._round,
            self._deck_out,
            self._last_round,
            self._passes,
            self.turn,
        )

    # ------------------------------------------------------------------ result

    def result(self) -> GameResult:
        if self._phase != OVER:
            raise RuntimeError("the game is not over yet")
        if self._result is None:
            self._result = self._score()
        return self._result

    def _score(self) -> GameResult:
        tickets = self.board.tickets
        rows = []
        for seat in range(self.num_players):
            done = [tickets[t] for t in self._completed[seat]]
            failed = [tickets[t] for t in self._tickets[seat]]
            rows.append(
                {
                    "tickets_completed": sum(t.points for t in done),
                    "tickets_failed": -sum(t.points for t in failed),
                    "big_cities": 0,
                    "completed_tickets": len(done),
                    "failed_tickets": len(failed),
                    "big_city_cards": 0,
                }
            )
        # Each Big City bonus goes to the most completed tickets touching the city; tied
        # players all receive it (docs/RULES.md); nobody with none.
        for city, bonus in self.board.big_cities:
            counts = [
                sum(1 for t in self._completed[seat] if city in (tickets[t].a, tickets[t].b))
                for seat in range(self.num_players)
            ]
            most = max(counts)
            for seat, count in enumerate(counts):
                if most and count == most:
                    rows[seat]["big_cities"] += bonus
                    rows[seat]["big_city_cards"] += 1
        return GameResult.from_breakdown(rows, CATEGORIES, TIE_BREAKS)
