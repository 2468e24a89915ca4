"""A board map compiled for speed, and the rule parameters of a board variant.

The map is read from the variant's JSON data file once and turned into flat
tuples indexed by integers: the engine's hot loops never touch a dict of
strings. Route ids in the notation are 1-based (as in the data file);
internally route ``r`` is ``id - 1``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.engine.actions import BuildStation, ClaimRoute, PlaceStack, TakeToken


@dataclass(frozen=True)
class BoardRules:
    """The rule parameters that distinguish one board variant from another."""

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
    # Points for each location marked "attraction" in the map data that a player's
    # routes touch (New York's tourist attractions); 0 where the variant has none.
    attraction_points: int = 0
    # Amsterdam: Merchandise Bonus cards (one per claimed cart route while the deck lasts)
    # and the end bonus by player count for the most cards, position by position.
    merchandise_cards: int = 0
    merchandise_bonus: dict[int, tuple[int, ...]] = field(default_factory=dict)
    # San Francisco: the tourist symbols, the end bonus indexed by distinct symbols held,
    # and the tokens per stack by player count: (fixed stacks, stacks the players place).
    tourist_symbols: tuple[str, ...] = ()
    tourist_bonus: tuple[int, ...] = ()
    tourist_stack_tokens: dict[int, tuple[int, int]] = field(default_factory=dict)
    # Europe: stations per player, the cost of the 1st, 2nd, 3rd, points per unbuilt
    # station; cards turned for a tunnel; long tickets dealt at setup (unkept ones leave).
    stations: int = 0
    station_costs: tuple[int, ...] = ()
    station_points: int = 0
    tunnel_reveal: int = 0
    initial_long_tickets: int = 0

    @property
    def score_categories(self) -> tuple[str, ...]:
        """The breakdown entries that add up to a total, in table order."""
        categories = ("routes", "tickets_completed", "tickets_failed")
        if self.longest_path_bonus:
            categories += ("longest_path_bonus",)
        if self.attraction_points:
            categories += ("attractions",)
        if self.merchandise_cards:
            categories += ("merchandise",)
        if self.tourist_symbols:
            categories += ("tourists",)
        if self.stations:
            categories += ("stations",)
        return categories


@dataclass(frozen=True)
class Ticket:
    id: int  # 1-based, as in the notation and the observation
    a: str
    b: str
    points: int


class Board:
    """The map of a board variant: cities, routes, tickets, plus precomputed action tables."""

    def __init__(self, data: dict[str, Any], rules: BoardRules) -> None:
        self.data = data
        self.rules = rules
        self.cities: tuple[str, ...] = tuple(c["id"] for c in data["cities"])
        self.city_names: dict[str, str] = {c["id"]: c["name"] for c in data["cities"]}
        index = {c: i for i, c in enumerate(self.cities)}
        self.city_index = index
        self.attractions = frozenset(index[c["id"]] for c in data["cities"] if c.get("attraction"))
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
        # Amsterdam's cart symbol; ferry symbols (San Francisco, Europe): wilds the route needs.
        self.route_carts = tuple(bool(r.get("carts")) for r in routes)
        self.route_ferries = tuple(int(r.get("ferries", r.get("locomotives", 0))) for r in routes)
        self.route_tunnel = tuple(bool(r.get("tunnel")) for r in routes)
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
        # Europe's long tickets (dealt one each at setup) form their own deck.
        self.ticket_long = tuple(t.get("deck") == "long" for t in data["tickets"])
        self.ticket_json = tuple(
            {"id": t.id, "a": t.a, "b": t.b, "points": t.points} | ({"long": True} if long else {})
            for t, long in zip(self.tickets, self.ticket_long, strict=True)
        )
        self.card_names = (*rules.colours, "wild")
        self.route_key = tuple(str(r["id"]) for r in routes)
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
        self.place_actions = tuple(PlaceStack(c) for c in self.cities)
        # station_table[city][colour][k]: a station paid with that colour and k wilds;
        # station_all_wild[city][n]: paid with n wilds.
        most = max(rules.station_costs, default=0)
        self.station_table = tuple(
            tuple(tuple(BuildStation(city, c, k) for k in range(most)) for c in rules.colours)
            for city in self.cities
        )
        self.station_all_wild = tuple(
            tuple(BuildStation(city, None, n) for n in range(most + 1)) for city in self.cities
        )
        self.take_actions = tuple(TakeToken(c) for c in self.cities)
        self._build_tourist_stacks(data, rules)

    def _build_tourist_stacks(self, data: dict[str, Any], rules: BoardRules) -> None:
        """San Francisco: ``tourist_fixed`` lists (city, symbol) of the stacks printed on the
        board; ``tourist_placed`` the symbols of the stacks the players place, in data order."""
        self.tourist_fixed: tuple[tuple[int, int], ...] = ()
        self.tourist_placed: tuple[int, ...] = ()
        if not rules.tourist_symbols:
            return
        symbol_index = {s: i for i, s in enumerate(rules.tourist_symbols)}
        stacks = data.get("tourist_stacks") or {}
        unknown = [c for c in stacks if c not in self.city_index]
        unknown += [s for s in stacks.values() if s not in symbol_index]
        if unknown or len(set(stacks.values())) != len(stacks):
            raise ValueError(f"tourist_stacks: unknown or repeated entries {unknown or stacks}")
        self.tourist_fixed = tuple((self.city_index[c], symbol_index[s]) for c, s in stacks.items())
        used = set(stacks.values())
        self.tourist_placed = tuple(i for i, s in enumerate(rules.tourist_symbols) if s not in used)

    def public_json(self) -> dict[str, Any]:
        """The printed board, as every player sees it: cities, routes, tickets, route points."""
        keep = ("id", "a", "b", "length", "color", "tunnel", "locomotives", "ferries", "carts")
        return {
            "cities": [dict(c) for c in self.data["cities"]],
            "routes": [{k: r[k] for k in keep if k in r} for r in self.data["routes"]],
            "tickets": [dict(t) for t in self.ticket_json],
            "route_points": {str(n): p for n, p in enumerate(self.route_points) if p},
            "rules": {
                "colours": list(self.rules.colours),
                "pieces_per_player": self.rules.pieces_per_player,
                "double_routes_min_players": self.rules.double_routes_min_players,
                "last_round_trigger": self.rules.last_round_trigger,
                "longest_path_bonus": self.rules.longest_path_bonus,
                "draw_tickets_keep": self.rules.draw_tickets_keep,
                "stations": self.rules.stations,
                "station_costs": list(self.rules.station_costs),
                "tunnel_reveal": self.rules.tunnel_reveal,
            },
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
