"""A board map compiled for speed, and the rule parameters of the base board game.

The map is read from the variant's JSON data file once and turned into flat
tuples indexed by integers: the engine's hot loops never touch a dict of
strings. Route ids in the notation are 1-based (as in the data file);
internally route ``r`` is ``id - 1``. An edition whose map carries more
(symbols on routes, special locations) subclasses ``Board`` in its own module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.engine.actions import ClaimRoute
from arena.engine.observation import TicketView


@dataclass(frozen=True)
class BoardRules:
    """The rule parameters of the base board game; an edition subclasses it for its own."""

    colours: tuple[str, ...]
    cards_per_colour: int
    wild_cards: int
    pieces_per_player: int
    starting_hand: int
    face_up: int = 5
    face_up_wild_reset: int = 3
    initial_tickets_dealt: int = 3
    initial_tickets_keep: int = 2
    draw_tickets: int = 3
    draw_tickets_keep: int = 1
    route_points: dict[int, int] = field(default_factory=dict)
    longest_path_bonus: int = 10
    double_routes_min_players: int = 4
    last_round_trigger: int = 2
    min_players: int = 2
    max_players: int = 5
    # Keys of the result compared, in order, after the total (higher is better).
    tie_breaks: tuple[str, ...] = ("completed_tickets", "longest_path")
    wild_name: str = "locomotive"

    @property
    def card_supply(self) -> list[int]:
        """How many train cards of each colour, then wilds."""
        return [self.cards_per_colour] * len(self.colours) + [self.wild_cards]


@dataclass(frozen=True)
class Ticket:
    id: int  # 1-based, as in the notation and the observation
    a: str
    b: str
    points: int


class Board:
    """The map of a board variant: cities, routes, tickets, plus precomputed action tables.

    The action tables are public: every claim action of the map is built once, here, and
    ``legal_actions`` hands out these very objects, so a tool that indexes actions (the
    fixed action space of ``arena.envs``) can enumerate them and look the engine's up by
    identity. ``claim_table[r][c][k]`` is route index ``r`` (id ``r + 1``) paid with colour
    index ``c`` (``rules.colours``) and ``k`` wilds, ``k`` below the route's length (a
    coloured route's other colours are there too; only its own is ever legal);
    ``claim_all_wild[r]`` is the route paid with wilds only.
    """

    claim_table: tuple[tuple[tuple[ClaimRoute, ...], ...], ...]
    claim_all_wild: tuple[ClaimRoute, ...]

    def __init__(self, data: dict[str, Any], rules: BoardRules) -> None:
        self.data = data
        self.rules = rules
        self.cities: tuple[str, ...] = tuple(c["id"] for c in data["cities"])
        self.city_names: dict[str, str] = {c["id"]: c["name"] for c in data["cities"]}
        index = {c: i for i, c in enumerate(self.cities)}
        self.city_index = index
        routes = data["routes"]
        colour_index = {c: i for i, c in enumerate(rules.colours)}
        self.colour_index = colour_index
        self.num_routes = len(routes)
        self.route_a = tuple(index[r["a"]] for r in routes)
        self.route_b = tuple(index[r["b"]] for r in routes)
        self.route_length = tuple(int(r["length"]) for r in routes)
        # -1 is gray: any single colour may pay for it.
        self.route_colour = tuple(
            -1 if r["color"] == "gray" else colour_index[r["color"]] for r in routes
        )
        # Ferry symbols: the wild cards a route needs at least ("ferries", or "locomotives").
        self.route_ferries = tuple(int(r.get("ferries", r.get("locomotives", 0))) for r in routes)
        self.route_label = tuple(
            f"{r['id']} ({self.city_names[r['a']]}–{self.city_names[r['b']]}, "
            f"{r['length']} {r['color']})"
            for r in routes
        )
        by_pair: dict[tuple[int, int], list[int]] = {}
        for r in range(self.num_routes):
            by_pair.setdefault((self.route_a[r], self.route_b[r]), []).append(r)
        sibling = [-1] * self.num_routes
        for group in by_pair.values():
            if len(group) == 2:
                sibling[group[0]], sibling[group[1]] = group[1], group[0]
            elif len(group) > 2:
                raise ValueError(f"more than two tracks between one pair of cities: {group}")
        self.route_sibling = tuple(sibling)
        self.city_routes = tuple(
            tuple(r for r in range(self.num_routes) if i in (self.route_a[r], self.route_b[r]))
            for i in range(len(self.cities))
        )
        self.tickets = tuple(
            Ticket(i + 1, t["a"], t["b"], int(t["points"])) for i, t in enumerate(data["tickets"])
        )
        self.ticket_views: tuple[TicketView, ...] = tuple(
            self.ticket_view(t, raw) for t, raw in zip(self.tickets, data["tickets"], strict=True)
        )
        self.card_names = (*rules.colours, "wild")
        self.route_key = tuple(int(r["id"]) for r in routes)  # the observations' claimed keys
        self.ticket_a = tuple(index[t.a] for t in self.tickets)
        self.ticket_b = tuple(index[t.b] for t in self.tickets)
        self.ticket_points = tuple(t.points for t in self.tickets)
        self.route_points = tuple(
            rules.route_points.get(length, 0) for length in range(max(self.route_length) + 1)
        )
        missing_points = {n for n in self.route_length if n not in rules.route_points}
        if missing_points:
            raise ValueError(f"no route points for lengths {sorted(missing_points)}")
        self._build_claim_tables(rules)

    def ticket_view(self, ticket: Ticket, raw: dict[str, Any]) -> TicketView:
        """How observations show ``ticket`` (``raw`` is its data entry); editions extend it."""
        return TicketView(id=ticket.id, a=ticket.a, b=ticket.b, points=ticket.points)

    def public_json(self) -> dict[str, Any]:
        """The printed board, as every player sees it: cities, routes, tickets, route points."""
        return {
            "cities": [dict(c) for c in self.data["cities"]],
            "routes": [dict(r) for r in self.data["routes"]],
            "tickets": [view.to_json() for view in self.ticket_views],
            "route_points": {str(n): p for n, p in enumerate(self.route_points) if p},
            "rules": self.public_rules(),
        }

    def public_rules(self) -> dict[str, Any]:
        """The rule numbers bots are told at game start; editions add their own."""
        rules = self.rules
        return {
            "colours": list(rules.colours),
            "pieces_per_player": rules.pieces_per_player,
            "double_routes_min_players": rules.double_routes_min_players,
            "last_round_trigger": rules.last_round_trigger,
            "longest_path_bonus": rules.longest_path_bonus,
            "draw_tickets_keep": rules.draw_tickets_keep,
        }

    def _build_claim_tables(self, rules: BoardRules) -> None:
        """Intern every claim action once, so legal-action generation only indexes tables.

        ``claim_table[r][c][k]`` is route r paid with colour c and k wilds
        (k < length); ``claim_all_wild[r]`` is the all-wild payment.
        """
        colours = rules.colours
        self.claim_table = tuple(
            tuple(
                tuple(ClaimRoute(r + 1, colour, k) for k in range(self.route_length[r]))
                for colour in colours
            )
            for r in range(self.num_routes)
        )
        self.claim_all_wild = tuple(
            ClaimRoute(r + 1, None, self.route_length[r]) for r in range(self.num_routes)
        )
        # Free routes grouped by colour (gray last), each sorted by length, so that
        # generation can stop at the first route longer than the player can pay.
        groups: list[list[int]] = [[] for _ in range(len(colours) + 1)]
        for r in range(self.num_routes):
            groups[self.route_colour[r]].append(r)
        self.routes_by_colour = tuple(
            tuple(sorted(g, key=lambda r: (self.route_length[r], r))) for g in groups
        )
