"""Ticket to Ride: The Card Game — a different game on the same state contract.

No map: players play groups of train cards into their public Train Yard; each
turn one card of every colour group moves on to the player's face-down
On-the-Track pile; when the train deck runs out each player completes tickets
with its pile (each card serves one ticket, locomotives stand in for any
colour), choosing which. Train robbing, big-city bonuses, and with 4 players
a second round. docs/RULES.md lists every rule and every decision;
tests/test_cardgame.py tests them.

Cards are integers as on the boards: colour ``i`` is ``rules.colours[i]``,
the locomotive is ``W = len(rules.colours)``; a hand is a list of counts.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, ClassVar, Self

from mypy_extensions import mypyc_attr

from arena.engine.actions import (
    DRAW_DECK,
    DRAW_TICKETS,
    PASS,
    Action,
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
)
from arena.engine.observation import Observation, SeatView
from arena.engine.position import Position
from arena.engine.result import GameResult, ScoreLabel
from arena.variants.cardgame.actions import CompleteTicket, PlayGroup, PlayTrio
from arena.variants.cardgame.components import (
    CardGameBoard,
    CardGameRules,
    best_ticket_set,
    completable,
    completable_additions,
)
from arena.variants.cardgame.views import (
    CardGameObservation,
    CardGamePosition,
    CardSeatView,
    Group,
    YardGroup,
)

if TYPE_CHECKING:
    from arena.engine.variant import Variant

COMPLETE = 5  # a round is scored: each seat chooses the tickets its pile completes
CATEGORIES = ("tickets_completed", "tickets_failed", "big_cities")
TIE_BREAKS = ("completed_tickets", "big_city_cards")
NEVER = 1 << 30


@mypyc_attr(allow_interpreted_subclasses=True)
class CardGameState(GameBase):
    """One Card Game in progress. Create it with ``arena.new_game``."""

    __slots__ = (
        "_chosen",
        "_completed",
        "_deck_out",
        "_draw_slots",
        "_played",
        "_round",
        "_track",
        "_wild",
        "_yard",
    )

    PHASES: ClassVar[tuple[str, ...]] = (*GameBase.PHASES, "complete_tickets")
    PHASE_HINTS: ClassVar[dict[int, str]] = {
        **GameBase.PHASE_HINTS,
        SECOND_DRAW: "draw a second train card or stop ('pass')",
        KEEP: "choose which drawn tickets to keep ('keep ...' or 'keep none')",
        COMPLETE: "choose the tickets its pile completes ('complete TICKET', then 'pass')",
    }
    ACTIONS: ClassVar[dict[type[Action], str]] = {
        DrawCard: "_draw_card",
        PlayGroup: "_play",
        PlayTrio: "_play",
        DrawTickets: "_draw_tickets",
        KeepTickets: "_keep",
        Pass: "_pass",
        CompleteTicket: "_complete",
    }
    SCORE_LABELS: ClassVar[dict[str, ScoreLabel]] = {
        "tickets_completed": ScoreLabel("tix+", "tickets completed"),
        "tickets_failed": ScoreLabel("tix-", "tickets failed"),
        "big_cities": ScoreLabel("cities", "Big City bonuses"),
    }
    position_type: ClassVar[type[Position]] = CardGamePosition
    observation_type: ClassVar[type[Observation]] = CardGameObservation
    seat_view_type: ClassVar[type[SeatView]] = CardSeatView

    rules: CardGameRules
    board: CardGameBoard
    _wild: int
    _draw_slots: tuple[DrawCard, ...]
    _yard: list[list[list[int]]]  # per seat and colour: [cards of the colour, locomotives]
    _track: list[list[int]]  # per seat: its On-the-Track pile, a count per card
    _completed: list[list[int]]  # per seat: tickets completed at a scoring
    # At a scoring: the tickets each seat chose to complete (None: its turn to choose has not
    # come; the seat to move is choosing, the seats before it in this scoring are done).
    _chosen: list[list[int] | None]
    _played: list[bool]  # has the seat had a turn yet (phase 1 skips the first)
    _round: int
    _deck_out: bool

    def __init__(self, variant: Variant, num_players: int, seed: int) -> None:
        self._start(variant, num_players, seed)
        rules, rng = self.rules, self._rng
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
        self._yard = [[[0, 0] for _ in range(wild)] for _ in range(num_players)]
        self._track = [[0] * (wild + 1) for _ in range(num_players)]
        ticket_deck = list(range(len(self.board.tickets)))
        rng.shuffle(ticket_deck)
        self._ticket_deck = ticket_deck  # top = end of the list
        self._tickets = [[] for _ in range(num_players)]
        self._completed = [[] for _ in range(num_players)]
        self._chosen = [None] * num_players
        self._offers = [[] for _ in range(num_players)]
        for seat in self._seat_order():
            for _ in range(min(rules.deal_tickets, len(ticket_deck))):
                self._offers[seat].append(ticket_deck.pop())
        self._played = [False] * num_players
        self._to_move = self.first_player
        self._round = 1
        self._deck_out = False

    # ------------------------------------------------------------------ queries

    @property
    def scored_points(self) -> tuple[int, ...]:
        """Points of the tickets each seat has completed so far (public once scored)."""
        tickets = self.board.tickets
        return tuple(sum(tickets[t].points for t in done) for done in self._completed)

    @classmethod
    def score_categories(cls, rules: Any) -> tuple[str, ...]:
        return CATEGORIES

    def legal_actions(self) -> list[Action]:
        phase = self._phase
        if phase == TURN:
            return self._turn_actions()
        if phase == SECOND_DRAW:
            return [*self._draws(second=True), PASS]
        if phase in (SETUP, KEEP):
            return list(self._keep_options())
        if phase == COMPLETE:
            return [*self._completion_options(), PASS]
        return []

    def _keep_options(self) -> tuple[KeepTickets, ...]:
        offered = len(self._offers[self._to_move])
        minimum = min(self.rules.keep_min, offered) if self._phase == SETUP else 0
        return keep_choices(offered, minimum)

    def _completion_options(self) -> list[Action]:
        """The held tickets the seat's pile can complete besides those it chose already."""
        seat = self._to_move
        tickets = self.board.tickets
        held = [tickets[t] for t in self._tickets[seat]]
        chosen = [tickets[t] for t in self._chosen[seat] or ()]
        additions = completable_additions(held, chosen, self._track[seat], self._wild)
        return [CompleteTicket(t.id) for t in additions]

    def _draws(self, second: bool) -> list[Action]:
        """Cards the seat may take: with one card left in the deck only that one (the
        face-up cards stay), with none left nothing (docs/RULES.md)."""
        deck = self._deck
        if len(deck) <= 1:
            return [DRAW_DECK] if deck else []
        actions: list[Action] = [DRAW_DECK]
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
        needed = []
        for colour in range(self._wild):
            if sum(yards[seat][colour]):
                needed.append(NEVER)
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
                    play = trio[held[i]][held[j]][held[k]]
                    if play is not None:
                        actions.append(play)
        return actions

    # ------------------------------------------------------------------ moves

    def _pass(self, action: Pass) -> None:
        """Nothing else to do in a turn; after a first card, no second card; at a scoring,
        no more tickets to complete."""
        if self._phase == SECOND_DRAW:
            self._end_turn()
            return
        if self._phase == COMPLETE:
            self._next_chooser()
            return
        if self._phase != TURN or self._turn_actions() != [PASS]:
            raise IllegalActionError(
                action, "pass.not-allowed", "passing is allowed only when nothing else is"
            )
        self._end_turn(passed=True)

    def _take_from_deck(self) -> int:
        card = self._deck.pop()
        if not self._deck:
            self._deck_out = True  # the last card: the last turns follow this one
        return card

    def _draw_card(self, action: DrawCard) -> None:
        phase = self._phase
        if phase != TURN and phase != SECOND_DRAW:
            self._require_turn(action)
        hand = self._hands[self._to_move]
        deck = self._deck
        if action.slot is None:
            if not deck:
                raise IllegalActionError(action, "draw.empty-deck", "the train deck is empty")
            hand[self._take_from_deck()] += 1
            face_up_loco = False
        else:
            display = self._display
            slot = action.slot
            if not 0 <= slot < len(display) or display[slot] < 0:
                raise IllegalActionError(action, "draw.slot", f"no face-up card in slot {slot}")
            if len(deck) <= 1:
                raise IllegalActionError(
                    action,
                    "draw.last-card",
                    "with one train card left only that card may be drawn, with none no card"
                    if deck
                    else "the train deck is empty: no card may be drawn",
                )
            card = display[slot]
            face_up_loco = card == self._wild
            if face_up_loco and phase == SECOND_DRAW:
                raise IllegalActionError(
                    action,
                    "draw.second-wild",
                    "a face-up locomotive counts as two cards: not as the second",
                )
            hand[card] += 1
            display[slot] = self._take_from_deck()
        # Drawing the deck's last card ends the draw (docs/RULES.md): the last turns follow.
        last_card = action.slot is None and not deck
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
        if isinstance(action, PlayGroup):
            groups = [(index[action.colour], action.count, action.wilds)]
        else:
            groups = [(index[c], 1, 0) for c in action.colours]
        for colour, count, wilds in groups:
            for p in range(self.num_players):  # train robbing
                robbed = self._yard[p][colour]
                if p != seat and (robbed[0] or robbed[1]):
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
        if isinstance(action, PlayGroup):
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
            len(set(colours)) == 3
            and list(action.colours) == sorted(action.colours)
            and all(c is not None and hand[c] > 0 and needed[c] <= 1 for c in colours)
        )

    def _why_not(self, action: PlayGroup | PlayTrio) -> str:
        """The rule a play breaks, in words."""
        seat, index = self._to_move, self.board.colour_index
        hand, wild = self._hands[seat], self._wild
        if isinstance(action, PlayGroup):
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
        if phase != SETUP and phase != KEEP:
            raise IllegalActionError(action, "keep.no-offer", "there are no offered tickets")
        options = self._keep_options()
        self._check_keep(action, options, len(options[0].indices))
        returned = self._keep_tickets(action)
        if phase == KEEP:
            self._ticket_deck[:0] = reversed(returned)  # to the bottom
            self._end_turn()
            return
        # Initial returns are shuffled back once every seat has chosen (counts stay hidden).
        self._setup_returns += returned
        self._setup_left -= 1
        if self._setup_left:
            self._to_move = (self._to_move + 1) % self.num_players
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
            self._begin_scoring(seat)
            return
        if self._last_round >= 0:
            self._last_round -= 1
            if self._last_round == 0:
                self._begin_scoring(seat)
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

    def _begin_scoring(self, last: int) -> None:
        """The round is over: each seat in turn, from the one after ``last``, chooses the
        tickets its On-the-Track pile completes, one by one; the choices show once all have
        chosen. A seat whose pile completes nothing more is done at once."""
        self._phase = COMPLETE
        self._chosen = [None] * self.num_players
        seat = self._to_move = (last + 1) % self.num_players
        self._chosen[seat] = []
        self._skip_done_choosers()

    def _skip_done_choosers(self) -> None:
        """Move on while the seat to move has nothing it could add to its choice."""
        while self._phase == COMPLETE and not self._completion_options():
            self._next_chooser()

    def _next_chooser(self) -> None:
        """The seat to move is done choosing: the next seat chooses, or the round ends."""
        seat = (self._to_move + 1) % self.num_players
        if self._chosen[seat] is not None:  # back at the first chooser: all have chosen
            self._to_move = seat  # who plays first if a round follows
            self._end_round()
            return
        self._chosen[seat] = []
        self._to_move = seat
        self._skip_done_choosers()

    def _complete(self, action: CompleteTicket) -> None:
        if self._phase != COMPLETE:
            raise IllegalActionError(
                action, "complete.phase", "tickets are completed only when a round is scored"
            )
        seat = self._to_move
        chosen = self._chosen[seat]
        assert chosen is not None
        tickets = self.board.tickets
        t = action.ticket - 1
        if t not in self._tickets[seat] or t in chosen:
            raise IllegalActionError(
                action,
                "complete.ticket",
                f"ticket {action.ticket} is not one of the player's tickets still to complete",
            )
        if not completable([tickets[c] for c in (*chosen, t)], self._track[seat], self._wild):
            raise IllegalActionError(
                action,
                "complete.cards",
                f"the player's On-the-Track pile cannot complete ticket {action.ticket} too "
                "(each card serves one ticket; locomotives stand in for any colour)",
            )
        chosen.append(t)
        self._skip_done_choosers()

    def _end_round(self) -> None:
        """Score the choices; with a second round to play, discard every train card but the
        hands, deal 4 cards each and go on with the seat to move (the one after the last)."""
        for seat, choice in enumerate(self._chosen):
            done = set(choice or ())
            self._completed[seat] += sorted(done)
            self._tickets[seat] = [t for t in self._tickets[seat] if t not in done]
        self._chosen = [None] * self.num_players
        if self._round >= self.rules.rounds[self.num_players]:
            self._phase = OVER
            return
        self._round += 1
        wild = self._wild
        discards = self._discards
        for seat in range(self.num_players):
            for c in range(wild + 1):
                discards[c] += self._track[seat][c]
                self._track[seat][c] = 0
            for c, group in enumerate(self._yard[seat]):
                discards[c] += group[0]
                discards[wild] += group[1]
                self._yard[seat][c] = [0, 0]
        for slot, card in enumerate(self._display):
            if card >= 0:
                discards[card] += 1
            self._display[slot] = -1
        deck = [c for c, n in enumerate(discards) for _ in range(n)]
        self._discards = [0] * (wild + 1)
        self._rng.shuffle(deck)
        self._deck += deck
        self._deck_out = False
        self._last_round = -1
        self._passes = 0
        first = self._to_move
        for i in range(self.num_players):
            hand = self._hands[(first + i) % self.num_players]
            for _ in range(min(self.rules.second_round_hand, len(self._deck))):
                hand[self._take_from_deck()] += 1
        for slot in range(len(self._display)):
            if self._deck:
                self._display[slot] = self._take_from_deck()
        if not self._deck:
            self._deck_out = True
        self._phase = TURN

    # ------------------------------------------------------------------ views

    def _track_visible(self, seat: int) -> bool:
        return self.rules.owner_sees_track or self._phase == COMPLETE

    def _observation_fields(self, seat: int) -> dict[str, Any]:
        """Its hand and tickets, every Train Yard, the sizes of the On-the-Track piles (their
        cards are hidden, the owner's too unless the variant lets owners look or the pile is
        being scored), completed tickets once scored."""
        fields = super()._observation_fields(seat)
        names = self.board.card_names
        fields["round"] = self._round
        fields["chosen"] = [
            p
            for p, choice in enumerate(self._chosen)
            if choice is not None and (p != self._to_move or self._phase != COMPLETE)
        ]
        own = self._chosen[seat]
        views = self.board.ticket_views
        fields["own_choice"] = None if own is None else [views[t] for t in own]
        fields["track"] = (
            dict(zip(names, self._track[seat], strict=True)) if self._track_visible(seat) else None
        )
        return fields

    def _seat_fields(self, seat: int, p: int) -> dict[str, Any]:
        fields = super()._seat_fields(seat, p)
        colours, views = self.rules.colours, self.board.ticket_views
        fields["yard"] = {
            colours[c]: YardGroup(cards=g[0], wilds=g[1])
            for c, g in enumerate(self._yard[p])
            if g[0] or g[1]
        }
        fields["track_size"] = sum(self._track[p])
        fields["completed"] = [views[t] for t in self._completed[p]]
        return fields

    def _copy_into(self, new: Self) -> None:
        super()._copy_into(new)
        new._wild, new._draw_slots = self._wild, self._draw_slots
        new._yard = [[g[:] for g in yard] for yard in self._yard]
        new._track = [t[:] for t in self._track]
        new._completed = [c[:] for c in self._completed]
        new._chosen = [None if c is None else c[:] for c in self._chosen]
        new._played = self._played[:]
        new._round, new._deck_out = self._round, self._deck_out

    # ------------------------------------------------------------------ positions

    def _position_fields(self) -> dict[str, Any]:
        names, colours = self.board.card_names, self.rules.colours
        return super()._position_fields() | {
            "yards": [
                {colours[c]: Group(g[0], g[1]) for c, g in enumerate(yard) if g[0] or g[1]}
                for yard in self._yard
            ],
            "tracks": [dict(zip(names, track, strict=True)) for track in self._track],
            "completed": [[t + 1 for t in done] for done in self._completed],
            "chosen": [None if c is None else [t + 1 for t in c] for c in self._chosen],
            "played": list(self._played),
            "round": self._round,
            "deck_out": self._deck_out,
        }

    def _load_position(self, variant: Variant, position: Any) -> None:
        super()._load_position(variant, position)
        rules = self.rules
        wild = self._wild = len(rules.colours)
        self._draw_slots = tuple(DrawCard(i) for i in range(rules.face_up))
        index = self.board.colour_index
        self._yard = []
        if len(position.yards) != self.num_players:
            raise PositionError(f"yards: one entry per seat ({self.num_players})")
        for p, groups in enumerate(position.yards):
            yard = [[0, 0] for _ in range(wild)]
            for name, group in groups.items():
                if name not in index or group.cards < 0 or group.wilds < 0:
                    raise PositionError(f"yards[{p}]: not a group of a colour: '{name}'")
                yard[index[name]] = [group.cards, group.wilds]
            self._yard.append(yard)
        self._track = self._per_seat(position.tracks, "tracks", self._card_counts)
        self._completed = self._per_seat(position.completed, "completed", self._ticket_ids)
        if len(position.chosen) != self.num_players:
            raise PositionError(f"chosen: one entry per seat ({self.num_players})")
        self._chosen = [
            None if c is None else self._ticket_ids(c, f"chosen[{p}]")
            for p, c in enumerate(position.chosen)
        ]
        if len(position.played) != self.num_players:
            raise PositionError(f"played: one entry per seat ({self.num_players})")
        self._played = list(position.played)
        if not 1 <= position.round <= rules.rounds[self.num_players]:
            raise PositionError(f"round: {position.round} is not a round of this game")
        self._round = position.round
        self._deck_out = position.deck_out
        if self._deck_out and self._deck:
            raise PositionError("deck_out: the deck's last card was drawn, yet the deck has some")
        tickets = self.board.tickets
        for p, choice in enumerate(self._chosen):
            if choice is not None and (
                self._phase != COMPLETE
                or len(set(choice)) != len(choice)
                or not set(choice) <= set(self._tickets[p])
                or not completable([tickets[t] for t in choice], self._track[p], wild)
            ):
                raise PositionError(
                    f"chosen[{p}]: held tickets its pile completes together, only at a scoring"
                )
        if self._phase == COMPLETE and self._chosen[self._to_move] is None:
            raise PositionError("chosen: the seat to move is choosing at this scoring")

    def _card_supply(self) -> list[int]:
        return self.rules.card_supply

    def _cards_elsewhere(self) -> list[list[int]]:
        yards = []
        for yard in self._yard:
            counts = [g[0] for g in yard] + [sum(g[1] for g in yard)]
            yards.append(counts)
        return [*yards, *self._track]

    def _tickets_elsewhere(self) -> list[list[int]]:
        return self._completed

    # ------------------------------------------------------------------ sampling

    @classmethod
    def from_observation(
        cls,
        variant: Variant,
        observation: Observation,
        rng: random.Random,
        belief: TicketBelief | None = None,
    ) -> Self:
        """A random full state ``observation``'s seat cannot tell from the real one: the other
        hands, the piles it cannot see into, the deck order and the other seats' tickets are
        dealt at random, consistently with every public count. Seats that already chose at
        a scoring are taken to have chosen the most points their sampled pile allows."""
        if not isinstance(observation, CardGameObservation):
            raise TypeError(
                f"the Card Game is sampled from its own observation, not {observation!r}"
            )
        if observation.phase == "over":
            raise ValueError("cannot sample a state in phase 'over'")
        seat, n = observation.seat, observation.players
        if observation.phase == "setup_tickets" and observation.to_move != seat:
            raise ValueError("a setup state is sampled only for the seat choosing its tickets")
        rules: CardGameRules = variant.rules
        board: CardGameBoard = variant.board
        names = board.card_names
        unseen = dict(zip(names, rules.card_supply, strict=True))
        seen: list[dict[str, int]] = [observation.hand, observation.discards]
        if observation.track is not None:
            seen.append(observation.track)
        for counts in seen:
            for name, count in counts.items():
                unseen[name] -= count
        for shown in observation.display:
            if shown is not None:
                unseen[shown] -= 1
        for public in observation.public:
            for colour, group in public.yard.items():
                unseen[colour] -= group.cards
                unseen["wild"] -= group.wilds
        pool = [name for name in names for _ in range(unseen[name])]
        rng.shuffle(pool)

        def deal(size: int) -> dict[str, int]:
            counts = dict.fromkeys(names, 0)
            for _ in range(size):
                counts[pool.pop()] += 1
            return counts

        hands, tracks = [], []
        for p, public in enumerate(observation.public):
            hands.append(dict(observation.hand) if p == seat else deal(public.hand_size))
            own = p == seat and observation.track is not None
            tracks.append(dict(observation.track or {}) if own else deal(public.track_size))
        if len(pool) != observation.deck_size:
            raise ValueError("the observation's card counts do not add up")
        version, words, gauss = random.Random(rng.getrandbits(64)).getstate()
        fields: dict[str, Any] = {
            "variant": observation.variant,
            "players": n,
            "seed": None,
            "rng": (version, words, gauss),
            "first_player": observation.first_player,
            "turn": observation.turn,
            "phase": observation.phase,
            "to_move": seat if observation.to_move is None else observation.to_move,
            "passes": observation.passes,
            "turns_left": observation.turns_left,
            "deck": pool,
            "discards": dict(observation.discards),
            "display": list(observation.display),
            "hands": hands,
            "yards": [
                {c: Group(g.cards, g.wilds) for c, g in public.yard.items()}
                for public in observation.public
            ],
            "tracks": tracks,
            "completed": [[t.id for t in public.completed] for public in observation.public],
            "played": cls._sample_played(observation),
            "round": observation.round,
            "deck_out": observation.deck_size == 0 and observation.phase != "setup_tickets",
        }
        cls._sample_tickets(board, rules, observation, rng, fields)
        return cls.from_position_data(variant, cls.position_type(**fields))

    @staticmethod
    def _sample_played(observation: CardGameObservation) -> list[bool]:
        """Whether each seat has had a turn (public: the turns so far, in seat order)."""
        n, first = observation.players, observation.first_player
        if observation.round > 1 or observation.turn >= n:
            return [True] * n
        done = {(first + i) % n for i in range(observation.turn)}
        return [p in done for p in range(n)]

    @classmethod
    def _sample_tickets(
        cls,
        board: CardGameBoard,
        rules: CardGameRules,
        observation: CardGameObservation,
        rng: random.Random,
        fields: dict[str, Any],
    ) -> None:
        seat, n = observation.seat, observation.players
        own = [t.id for t in observation.tickets]
        offered = [t.id for t in observation.offered_tickets]
        known = {*own, *offered}
        for public in observation.public:
            known.update(t.id for t in public.completed)
        hidden = [i for i in range(1, len(board.tickets) + 1) if i not in known]
        rng.shuffle(hidden)
        tickets: list[list[int]] = [[] for _ in range(n)]
        offers: list[list[int]] = [[] for _ in range(n)]
        returns: list[int] = []
        if observation.phase == "setup_tickets":
            order = [(observation.first_player + i) % n for i in range(n)]
            chose = order[: order.index(seat)]
            for p in range(n):
                if p == seat:
                    offers[p] = offered
                    continue
                deal = [hidden.pop() for _ in range(len(offered))]
                if p in chose:
                    kept = rng.randint(min(rules.keep_min, len(deal)), len(deal))
                    tickets[p], returns_p = deal[:kept], deal[kept:]
                    returns += returns_p
                else:
                    offers[p] = deal
        else:
            for p, public in enumerate(observation.public):
                if p == seat:
                    tickets[p], offers[p] = own, offered
                    continue
                tickets[p] = [hidden.pop() for _ in range(public.tickets or 0)]
                offers[p] = [hidden.pop() for _ in range(public.offered or 0)]
        if len(hidden) != observation.ticket_deck_size:
            raise ValueError("the observation's ticket counts do not add up")
        chosen: list[list[int] | None] = [None] * n
        for p in observation.chosen:
            held = [board.tickets[t - 1] for t in tickets[p]]
            track = [fields["tracks"][p][name] for name in board.card_names]
            best, _ = best_ticket_set(held, track, len(rules.colours))
            chosen[p] = [t.id for t in best]
        if observation.phase == "complete_tickets" and observation.to_move is not None:
            chosen[observation.to_move] = []  # choosing now (hidden unless it is this seat)
        if observation.own_choice is not None:
            chosen[seat] = [t.id for t in observation.own_choice]
        fields.update(
            ticket_deck=hidden,
            tickets=tickets,
            offers=offers,
            setup_returns=returns,
            chosen=chosen,
        )

    # ------------------------------------------------------------------ result

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
