"""Ticket to Ride: Amsterdam — the city edition with carts and Merchandise Bonus cards.

Differences from the base game: the city editions' rules (``arena.variants.city``),
16 carts each; claiming a route that carries the cart symbol gives one public
Merchandise card from a deck of 16 (none once it is empty); at the end the
most cards score 8/6/4/2 (4 players), 8/5/2 (3) or 8/4 (2), tied players
sharing their position. The contracts are the tickets.
"""

from __future__ import annotations

from typing import Any

from arena.engine.variant import Variant
from arena.plugins import hookimpl
from arena.variants.city import city_rules
from arena.variants.mapdata import board_variant, load_map


def make_variant(data: dict[str, Any] | None = None) -> Variant:
    """Amsterdam on the packaged map (unplayable while its data lists gaps), or on ``data``."""
    data = data or load_map("amsterdam")
    parts = data["components"]
    rules = city_rules(
        data,
        "carts_per_player",
        merchandise_cards=parts["merchandise_bonus_cards"],
        merchandise_bonus={
            int(n): tuple(points) for n, points in parts["merchandise_majority_bonus"].items()
        },
    )
    return board_variant(
        "amsterdam",
        "carts: 16 each, Merchandise cards from cart routes, 8/6/4/2 for the most",
        rules,
        data,
    )


@hookimpl
def arena_variants() -> list[Variant]:
    return [make_variant()]
