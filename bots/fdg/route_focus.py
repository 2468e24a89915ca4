"""Route Focus as the FDG 2017 authors' code plays it (``pathAgent``).

It keeps its three starting tickets and never draws more. Each turn it finds, for each
open ticket, a path of the fewest routes, and ranks the routes still to claim on them by
their points plus twice the ticket's; with no such route left it ranks every free route,
shortest first. It claims the best-ranked route it can claim at all, with the colour it
holds most; if it cannot pay with that colour it has no move. Otherwise it draws blind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine.actions import Action, ClaimRoute
from arena.engine.observation import TicketView
from bots.fdg.common import (
    CLAIM_COLOURS,
    GRAY,
    INF,
    FdgAgent,
    blind,
    connected,
    face_up,
    free_tracks,
    hop,
    keep_all,
    pair_key,
    pair_of,
)
from bots.planning import View

Entry = tuple[int, str, str]  # (rank, lower first; then the two cities as found)


@dataclass(frozen=True)
class RouteFocusQuirks:
    # A case mismatch makes its face-up branch never fire: every card is drawn blind.
    blind_draws_only: bool = True
    # An off-by-one: a route as long as its remaining trains is never claimed.
    exact_trains_excluded: bool = True


class RouteFocus(FdgAgent):
    name = "fdg-route-focus"
    Quirks = RouteFocusQuirks

    def keep(
        self, view: View, legal: Sequence[Action], offered: Sequence[TicketView]
    ) -> Action | None:
        return keep_all(legal)

    def fits(self, view: View, length: int) -> bool:
        return length < view.trains if self.quirks.exact_trains_excluded else length <= view.trains

    def ranked(self, view: View) -> list[Entry]:
        """Routes to claim, best first: on open tickets' paths, else any free route."""
        entries: list[Entry] = []
        for ticket in view.obs.tickets:
            if connected(view, ticket):
                continue
            cost, needed = view.path(ticket.a, ticket.b, step=hop)
            if cost == INF:
                continue
            for route in reversed(needed):  # from the ticket's first city
                length = self.pairs[pair_of(route)][0].length
                if self.fits(view, length):
                    value = view.graph.points.get(length, 0) + 2 * ticket.points
                    entries.append((-value, route.a, route.b))
        if not entries:
            for route in free_tracks(view):
                if self.fits(view, route.length):
                    value = view.graph.points.get(route.length, 0)
                    entries += [(value, route.a, route.b), (value, route.b, route.a)]
        return sorted(entries)

    def turn(self, view: View, legal: Sequence[Action]) -> Action | None:
        claims = {a.route for a in legal if type(a) is ClaimRoute}
        first_colour = None
        for _, a, b in self.ranked(view):
            pair = pair_key(a, b)
            tracks = [t for t in self.pairs[pair] if t.id not in view.owner and view.usable(t)]
            colours = [t.colour for t in tracks]
            if not colours:
                continue
            if GRAY in colours:
                colours = list(CLAIM_COLOURS)
            colour = max(colours, key=lambda c: view.hand.get(c, 0))  # the first on a tie
            first_colour = first_colour or colour
            if any(t.id in claims for t in tracks):
                return self.pay_with(view, legal, pair, colour)  # None: no move
        if not self.quirks.blind_draws_only and first_colour is not None:
            action = face_up(view, legal, first_colour)
            if action is not None:
                return action
        return blind(legal)  # the deck empty: no move
