"""One Step Thinker as the FDG 2017 authors' code plays it (``oneStepThinkerAgent``).

It keeps its three starting tickets and works one route at a time toward its most
valuable open ticket (``objective.py``). With no open ticket it asks for three more
tickets while every seat has 8 trains or more, keeping the single lowest-value one; later
it goes for the longest free routes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.engine.actions import Action
from arena.engine.observation import TicketView
from bots.fdg.common import hop, keep_all
from bots.fdg.objective import DRAW_TICKETS, Objective, ObjectiveAgent
from bots.planning import Route, View

TICKET_DRAW_TRAINS = 8  # it asks for tickets only while every seat has at least this many


@dataclass(frozen=True)
class OneStepQuirks:
    # Its reachability test calls a method the board's graph does not have, and the error
    # is swallowed: every drawn ticket looks unreachable, so it keeps the lowest-value one.
    keeps_lowest_ticket: bool = True
    # For a gray objective it compares a card with a (colour, count) pair: it never takes
    # the colour it holds most face up, only a face-up wild or a blind card.
    gray_colour_never_drawn: bool = True


class OneStep(ObjectiveAgent):
    name = "fdg-one-step"
    Quirks = OneStepQuirks

    def keep(
        self, view: View, legal: Sequence[Action], offered: Sequence[TicketView]
    ) -> Action | None:
        if view.obs.phase == "setup_tickets":
            return keep_all(legal)
        return self.choose_tickets(view, legal, offered, self.quirks.keeps_lowest_ticket)

    def step(self, view: View) -> Callable[[Route], float]:
        return hop

    def no_ticket_objective(self, view: View) -> Objective:
        every_seat = all(p.trains >= TICKET_DRAW_TRAINS for p in view.obs.public)
        if every_seat and view.obs.ticket_deck_size > 0:
            return DRAW_TICKETS
        return self.longest_route(view)
