"""What the four FDG 2017 agents share: phase dispatch, quirk switches, the original
engine's claim moves, card draws, and the fallback when an agent's rules give no move.

The authors' agents see the board as a graph of the routes still free (with 2 or 3
players a double route with one track taken is gone) plus their own routes; these read the
same from the board sent at game start and the seat's own typed observation
(``bots.planning.View``), and nothing hidden.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from typing import Any, ClassVar

from arena.engine.actions import Action, ClaimRoute, DrawCard, DrawTickets, KeepTickets
from arena.engine.observation import Observation, TicketView
from bots.planning import WILD, BoardGraph, Route, View, board_observation, tourist_choice
from bots.sdk import Bot

INF = float("inf")
# The original engine lists the claims of a route colour by colour in this order; an agent
# that takes "the first claim" of a route pays with the first of these its hand allows.
CLAIM_COLOURS = ("red", "orange", "blue", "pink", "white", "yellow", "black", "green")
GRAY = "gray"


def hop(route: Route) -> float:
    """Every usable route, own ones included, is one step: the authors' fewest-routes
    (breadth-first) paths."""
    return 1


def fallback(legal: Sequence[Action]) -> Action:
    """Where an agent's rules give no move (the original engine then aborts the game): its
    first legal claim, else its first legal action — the referee's policy for a forfeited
    seat (docs/BOTS.md)."""
    return next((a for a in legal if type(a) is ClaimRoute), legal[0])


class FdgAgent(Bot):
    """Dispatches each decision by phase; a rule that gives no legal move falls back.

    ``quirks`` is the agent's dataclass of quirk switches (all on by default: as the
    authors' code plays; ``fixed()``: all off). Subclasses set ``Quirks`` and implement
    ``keep`` and ``turn``; a second card is drawn by ``turn`` too, as in the original,
    where the same decision function is asked again.
    """

    Quirks: ClassVar[type]

    def __init__(self, seed: int | str = 0, quirks: Any = None) -> None:
        super().__init__(seed)
        self.quirks = quirks if quirks is not None else self.Quirks()

    @classmethod
    def fixed(cls) -> Any:
        """The quirk switches all off."""
        return cls.Quirks(**{f.name: False for f in dataclasses.fields(cls.Quirks)})

    def on_game_start(self, observation: Observation) -> None:
        self.graph = BoardGraph(self.board)
        pairs: dict[tuple[str, str], list[Route]] = {}
        for route in sorted(self.graph.routes.values(), key=lambda r: r.id):
            pairs.setdefault(pair_of(route), []).append(route)
        self.pairs = pairs  # city pair -> its tracks, pairs in board order
        colours = self.graph.colours
        self.claim_colours = [c for c in CLAIM_COLOURS if c in colours] + [
            c for c in colours if c not in CLAIM_COLOURS
        ]

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        board = board_observation(observation)
        view = View(self.graph, board)
        phase = board.phase
        move: Action | None
        if phase in ("setup_tickets", "keep_tickets"):
            move = self.keep(view, legal_actions, board.offered_tickets)
        elif phase in ("turn", "second_draw"):
            move = self.turn(view, legal_actions)
        elif phase in ("place_stacks", "take_token"):
            move = tourist_choice(view, legal_actions)
        else:  # a tunnel: pay with the fewest locomotives, or withdraw when it cannot
            move = legal_actions[0]
        return move if move is not None and move in legal_actions else fallback(legal_actions)

    def keep(
        self, view: View, legal: Sequence[Action], offered: Sequence[TicketView]
    ) -> Action | None:
        raise NotImplementedError

    def turn(self, view: View, legal: Sequence[Action]) -> Action | None:
        raise NotImplementedError

    # -- claims as the original engine lists them ---------------------------------------------

    def pay_with(
        self, view: View, legal: Collection[Action], pair: tuple[str, str], colour: str
    ) -> ClaimRoute | None:
        """The original claim "this pair with ``colour``": the free track of that colour (or
        gray), paid with the colour's cards first and wilds for the rest; None if illegal."""
        for track in self.pairs.get(pair, ()):
            if track.id in view.owner or track.colour not in (colour, GRAY):
                continue
            held = view.hand.get(colour, 0)
            if held:
                action = ClaimRoute(track.id, colour, max(0, track.length - held))
            else:
                action = ClaimRoute(track.id, None, track.length)
            return action if action in legal else None
        return None

    def claim_moves(
        self, view: View, legal: Sequence[Action]
    ) -> list[tuple[tuple[str, str], str, ClaimRoute]]:
        """Every (pair, colour, action) claim in the original engine's order: pairs in board
        order, colours in ``CLAIM_COLOURS`` order."""
        claimable = {a.route for a in legal if type(a) is ClaimRoute}
        if not claimable:
            return []
        legal_set = set(legal)
        found = []
        for pair, tracks in self.pairs.items():
            if not any(t.id in claimable for t in tracks):
                continue
            for colour in self.claim_colours:
                action = self.pay_with(view, legal_set, pair, colour)
                if action is not None:
                    found.append((pair, colour, action))
        return found


def pair_key(a: str, b: str) -> tuple[str, str]:
    """A city pair, in name order: how the agents name a route whatever its track."""
    return (a, b) if a < b else (b, a)


def pair_of(route: Route) -> tuple[str, str]:
    return pair_key(route.a, route.b)


def total_points(view: View) -> int:
    """Every seat's score so far (route points): what the agents watch to know when to
    replan."""
    return sum(p.route_points for p in view.obs.public)


def connected(view: View, ticket: TicketView) -> bool:
    """The seat's own routes already join the ticket's cities."""
    cost, _ = view.path(ticket.a, ticket.b, step=lambda r: 0 if r.id in view.mine else INF)
    return cost == 0


def free_tracks(view: View) -> list[Route]:
    """The routes free for this seat to claim, in board order."""
    return [
        r
        for r in sorted(view.graph.routes.values(), key=lambda r: r.id)
        if r.id not in view.owner and view.usable(r)
    ]


# -- tickets ---------------------------------------------------------------------------------


def keep_all(legal: Sequence[Action]) -> KeepTickets:
    return max((a for a in legal if type(a) is KeepTickets), key=lambda a: len(a.indices))


def fewest_points(legal: Sequence[Action], offered: Sequence[TicketView]) -> KeepTickets:
    """The first keep choice worth the fewest points."""
    options = [a for a in legal if type(a) is KeepTickets]
    return min(options, key=lambda a: sum(offered[i].points for i in a.indices))


def ticket_draw(legal: Sequence[Action]) -> DrawTickets | None:
    return next((a for a in legal if type(a) is DrawTickets), None)


# -- cards -------------------------------------------------------------------------------------


def face_up(view: View, legal: Sequence[Action], colour: str) -> DrawCard | None:
    """The first face-up slot showing ``colour`` that may be taken now."""
    display = view.obs.display
    for action in legal:
        if type(action) is DrawCard and action.slot is not None and display[action.slot] == colour:
            return action
    return None


def blind(legal: Sequence[Action]) -> DrawCard | None:
    return next((a for a in legal if type(a) is DrawCard and a.slot is None), None)


def card_draws(legal: Sequence[Action]) -> list[DrawCard]:
    return [a for a in legal if type(a) is DrawCard]


def hand_colours(view: View) -> list[str]:
    """The hand's card colours, wild last (the original hand's order)."""
    return [*view.graph.colours, WILD]
