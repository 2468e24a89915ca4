"""``cardgame-greedy``: a heuristic for Ticket to Ride: The Card Game.

It keeps the tickets that ask for the fewest cards per point, remembers what
its own Train Yard sent On the Track (the yard is public, so this uses only
what it saw), plays the biggest group of a colour its tickets still need
(robbing an opponent when it can outnumber them), and otherwise draws the
face-up cards its tickets need. It draws more tickets while the deck is large
and its tickets are nearly covered.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from arena.engine.actions import Action, DrawCard, DrawTickets, KeepTickets
from arena.engine.observation import Observation
from arena.plugins import hookimpl
from arena.variants.cardgame import CardGameObservation, CompleteTicket, PlayGroup, PlayTrio
from arena.variants.cardgame.views import YardGroup
from bots.sdk import Bot, BotSpec

WILD = "wild"


class CardGameGreedy(Bot):
    name = "cardgame-greedy"

    def on_game_start(self, observation: Observation) -> None:
        self.on_track: Counter[str] = Counter()  # what this seat's yard has sent On the Track
        self.last_yard: dict[str, tuple[int, int]] = {}  # colour -> (cards, wilds)
        self.round = 1

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        if not isinstance(observation, CardGameObservation):
            raise TypeError(f"{self.name} plays the Card Game, not {observation.variant}")
        self._remember_track(observation)
        if observation.phase in ("setup_tickets", "keep_tickets"):
            return self._keep(observation, legal_actions)
        if observation.phase == "complete_tickets":
            return self._complete(observation, legal_actions)
        needed = self._still_needed(observation)
        if observation.phase == "turn":
            tickets = next((a for a in legal_actions if type(a) is DrawTickets), None)
            if tickets is not None and observation.deck_size > 10 and sum(needed.values()) < 4:
                return tickets
            play = self._best_play(observation, legal_actions, needed)
            if play is not None:
                self._expect_in_yard(play)
                return play
        return self._draw(observation, legal_actions, needed)

    def _remember_track(self, observation: CardGameObservation) -> None:
        """A yard group that shrank without being robbed sent a card On the Track."""
        if observation.round != self.round:
            self.on_track.clear()  # a new round: the piles were discarded
        self.round = observation.round
        yard = observation.public[observation.seat].yard
        for colour, (cards, wilds) in self.last_yard.items():
            now = yard.get(colour)
            if now is None and cards + wilds > 1:
                continue  # robbed (or emptied in one go): nothing known went On the Track
            now = now or YardGroup(cards=0, wilds=0)
            if now.cards < cards:
                self.on_track[colour] += cards - now.cards
            elif now.wilds < wilds:
                self.on_track[WILD] += wilds - now.wilds
        self.last_yard = {c: (g.cards, g.wilds) for c, g in yard.items()}

    def _expect_in_yard(self, play: PlayGroup | PlayTrio) -> None:
        """The group(s) just played are in the yard at the next look, less what moved on."""
        if type(play) is PlayGroup:
            self.last_yard[play.colour] = (play.count, play.wilds)
        else:
            assert type(play) is PlayTrio
            for colour in play.colours:
                self.last_yard[colour] = (1, 0)

    def _still_needed(self, observation: CardGameObservation) -> Counter[str]:
        """Cards the held tickets ask for beyond what is already On the Track or in the yard."""
        needed: Counter[str] = Counter()
        for ticket in observation.tickets:
            needed.update(ticket.cards)
        yard = observation.public[observation.seat].yard
        for colour, group in yard.items():
            needed[colour] -= group.cards + group.wilds
        for colour, count in self.on_track.items():
            if colour != WILD:
                needed[colour] -= count
        return Counter({c: n for c, n in needed.items() if n > 0})

    def _complete(self, observation: CardGameObservation, legal: Sequence[Action]) -> Action:
        """At a scoring: the most valuable ticket the pile can still complete, one by one."""
        points = {t.id: t.points for t in observation.tickets}
        options = [a for a in legal if isinstance(a, CompleteTicket)]
        if not options:
            return legal[-1]  # pass: nothing more to complete
        return max(options, key=lambda a: (points[a.ticket], -a.ticket))

    def _keep(self, observation: CardGameObservation, legal: Sequence[Action]) -> Action:
        offered = observation.offered_tickets
        ranked = sorted(
            range(len(offered)),
            key=lambda i: (-offered[i].points / sum(offered[i].cards.values()), i),
        )
        late = observation.phase == "keep_tickets" and observation.deck_size < 12
        want = 0 if late else 3
        chosen = tuple(sorted(ranked[:want]))
        options = [a for a in legal if type(a) is KeepTickets]
        exact = next((a for a in options if a.indices == chosen), None)
        return exact or min(options, key=lambda a: (len(a.indices), a.indices))

    def _best_play(
        self, observation: CardGameObservation, legal: Sequence[Action], needed: Counter[str]
    ) -> PlayGroup | PlayTrio | None:
        """Each colour group in the yard sends a card On the Track every turn, so more groups
        mean more cards: a trio opens three; then a group of a needed colour (big enough to
        rob, smallest otherwise, to keep cards for more groups)."""

        def value(action: PlayGroup | PlayTrio) -> tuple[int, int, int]:
            if isinstance(action, PlayTrio):
                return (3, sum(1 for c in action.colours if needed.get(c, 0)), 0)
            useful = 1 if needed.get(action.colour, 0) else 0
            return (1 + useful, -action.wilds, -(action.count + action.wilds))

        plays = [a for a in legal if isinstance(a, PlayGroup | PlayTrio)]
        return max(plays, key=value) if plays else None

    def _draw(
        self, observation: CardGameObservation, legal: Sequence[Action], needed: Counter[str]
    ) -> Action:
        """A face-up card its tickets need, else the deck; with neither, the first legal action
        (after a first card: 'pass', no second card)."""
        display = observation.display
        draws = [a for a in legal if isinstance(a, DrawCard)]
        for action in draws:
            card = None if action.slot is None else display[action.slot]
            if card is not None and needed.get(card, 0) > 0:
                return action
        deck = next((a for a in draws if a.slot is None), None)
        if deck is not None:
            return deck
        return draws[0] if draws else legal[0]


@hookimpl
def arena_bots() -> list[BotSpec]:
    return [
        BotSpec(
            "cardgame-greedy",
            "Card Game heuristic: cheap tickets, biggest needed groups, robs when it can",
            CardGameGreedy,
            ("cardgame", "cardgame-peek"),
        )
    ]
