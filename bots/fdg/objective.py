"""One route at a time: what One Step Thinker and Long Route Junkie share.

Both hold one objective — a city pair and the card colour they collect for it — chosen
when some seat's score has changed since they last chose (and after every ticket
decision): the first route still to claim, from the first city, on a fewest-routes path of
their most valuable open ticket, else (for One Step, after asking for tickets while every
seat has 8 trains or more) the longest free route they have the trains for, the one their
hand suits best. They claim the objective as soon as the original engine's first claim of
it is legal; else they draw its colour face up, else a face-up wild, else blind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.engine.actions import Action, ClaimRoute, KeepTickets
from arena.engine.observation import Observation, TicketView
from bots.fdg.common import (
    CLAIM_COLOURS,
    GRAY,
    INF,
    FdgAgent,
    blind,
    card_draws,
    connected,
    face_up,
    fewest_points,
    free_tracks,
    pair_of,
    ticket_draw,
    total_points,
)
from bots.planning import WILD, Route, View

DRAW_TICKETS = "tickets"  # the objective of asking for more tickets
Objective = tuple[tuple[str, str], str] | str | None


class ObjectiveAgent(FdgAgent):
    """Subclasses give the path step, the gray rank and the no-ticket objective."""

    gray_rank = 10  # how well a hand that can pay a gray route in one colour suits it

    def on_game_start(self, observation: Observation) -> None:
        super().on_game_start(observation)
        self.objective: Objective = None
        self.previous = -1  # the total score it last chose for; -1: choose again

    def step(self, view: View) -> Callable[[Route], float]:
        raise NotImplementedError

    def no_ticket_objective(self, view: View) -> Objective:
        return self.longest_route(view)

    # -- tickets -------------------------------------------------------------------------------

    def choose_tickets(
        self, view: View, legal: Sequence[Action], offered: Sequence[TicketView], reach_broken: bool
    ) -> KeepTickets | None:
        """The best points per train still to claim among the choices that fit its trains,
        else the fewest points. Broken (the authors' reachability call raises, swallowed):
        every ticket counts as unreachable, so the fewest points always."""
        self.previous = -1
        if reach_broken:
            return fewest_points(legal, offered)
        best: tuple[float, KeepTickets | None] = (0.0, None)
        worst: tuple[float, KeepTickets | None] = (INF, None)
        for option in (a for a in legal if type(a) is KeepTickets):
            value = trains = points = 0.0
            for ticket in (offered[i] for i in option.indices):
                cost, needed = view.path(ticket.a, ticket.b, step=self.step(view))
                if cost < INF:
                    value += ticket.points
                    trains += sum(r.length for r in needed)
                else:
                    value -= ticket.points
                    trains += 50
                points += ticket.points
            if trains <= view.trains:
                ratio = value / trains if trains else INF
                if ratio > best[0]:
                    best = (ratio, option)
            elif points < worst[0]:
                worst = (points, option)
        return best[1] or worst[1]

    # -- the objective ------------------------------------------------------------------------

    def choose_objective(self, view: View) -> Objective:
        step = self.step(view)
        best = None
        for ticket in view.obs.tickets:
            if connected(view, ticket):
                continue
            cost, needed = view.path(ticket.a, ticket.b, step=step)
            if cost < INF and (best is None or ticket.points > best[0].points):
                best = (ticket, needed)
        if best is not None:
            route = best[1][-1]  # the first still to claim from the ticket's first city
            tracks = [
                t
                for t in self.pairs[pair_of(route)]
                if t.id not in view.owner and view.usable(t) and step(t) < INF
            ]
            colours = [t.colour for t in tracks]
            if GRAY in colours:
                colours = [*CLAIM_COLOURS, WILD]
            colour = max(colours, key=lambda c: view.hand.get(c, 0))
            return pair_of(route), colour
        return self.no_ticket_objective(view)

    def longest_route(self, view: View) -> Objective:
        """The longest free route it has the trains for, the one its hand suits best."""
        tracks = [t for t in free_tracks(view) if t.length <= view.trains]
        if not tracks:
            return None
        longest = max(t.length for t in tracks)
        best = max((t for t in tracks if t.length == longest), key=lambda t: self.rank(view, t))
        return pair_of(best), best.colour

    def rank(self, view: View, track: Route) -> int:
        most = max(view.hand.get(c, 0) for c in self.graph.colours)
        wilds = view.hand.get(WILD, 0)
        if track.colour == GRAY:
            if most >= track.length:
                return self.gray_rank
            return 9 if most + wilds >= track.length else 10 - track.length + most
        held = view.hand.get(track.colour, 0)
        if held >= track.length:
            return 10
        return 9 if held + wilds >= track.length else 9 - track.length + most

    # -- a turn -------------------------------------------------------------------------------

    def turn(self, view: View, legal: Sequence[Action]) -> Action | None:
        total = total_points(view)
        if self.previous < total:
            self.objective = self.choose_objective(view)
            self.previous = total
        if self.objective == DRAW_TICKETS:
            self.previous = -1
            return ticket_draw(legal)
        if isinstance(self.objective, tuple):  # a city pair and its colour
            pair, colour = self.objective
            for claim_colour in self.claim_colours:
                action = self.pay_with(view, legal, pair, claim_colour)
                if action is not None:
                    return action
            draw = self.draw_for(view, legal, colour)
            if draw is not None:
                return draw
        draws = card_draws(legal)
        claims = [a for a in legal if type(a) is ClaimRoute]
        return self.rng.choice(draws or claims or list(legal))

    def draw_for(self, view: View, legal: Sequence[Action], colour: str) -> Action | None:
        if colour != GRAY:
            action = face_up(view, legal, colour)
            if action is not None:
                return action
        elif not self.gray_colour_never_drawn():
            held = max(self.graph.colours, key=lambda c: view.hand.get(c, 0))
            action = face_up(view, legal, held)
            if action is not None:
                return action
        return face_up(view, legal, WILD) or blind(legal)

    def gray_colour_never_drawn(self) -> bool:
        """Quirk: for a gray objective it compares a card with a (colour, count) pair, so it
        never takes the colour it holds most face up."""
        return self.quirks.gray_colour_never_drawn
