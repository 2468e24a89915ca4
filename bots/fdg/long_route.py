"""Long Route Junkie as the FDG 2017 authors' code plays it (``longRouteJunkieAgent``).

It keeps two starting tickets and never draws more. It completes them one route at a time
(``objective.py``) on paths of the fewest routes that use, besides its own routes, only
routes of 3 or more trains; then it goes for the longest free routes, preferring one it can
pay for with a single colour.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.engine.actions import Action
from arena.engine.observation import TicketView
from bots.fdg.common import INF
from bots.fdg.objective import ObjectiveAgent
from bots.planning import Route, View

LONG = 3  # the shortest free route it builds tickets with (fewer when it has fewer trains)


@dataclass(frozen=True)
class LongRouteQuirks:
    # The same swallowed reachability error as One Step's: every ticket looks unreachable,
    # so it keeps the two lowest-value ones, whatever they ask for.
    keeps_lowest_tickets: bool = True
    # The same gray-objective comparison as One Step's.
    gray_colour_never_drawn: bool = True


class LongRoute(ObjectiveAgent):
    name = "fdg-long-route"
    Quirks = LongRouteQuirks
    gray_rank = 15  # it likes a gray route it can pay in one colour even more

    def keep(
        self, view: View, legal: Sequence[Action], offered: Sequence[TicketView]
    ) -> Action | None:
        return self.choose_tickets(view, legal, offered, self.quirks.keeps_lowest_tickets)

    def step(self, view: View) -> Callable[[Route], float]:
        shortest = min(LONG, view.trains)
        return lambda r: 1 if r.id in view.mine or r.length >= shortest else INF
