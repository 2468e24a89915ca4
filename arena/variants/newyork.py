"""Ticket to Ride: New York — the city edition with taxis and tourist attractions.

Differences from the base game: the city editions' rules (``arena.variants.city``),
15 taxis each and +1 point for every tourist attraction a player's routes
touch; no longest-path bonus.
"""

from __future__ import annotations

from typing import Any

from arena.engine.variant import Variant
from arena.plugins import hookimpl
from arena.variants.city import city_rules
from arena.variants.mapdata import board_variant, load_map


def make_variant(data: dict[str, Any] | None = None) -> Variant:
    """New York on the packaged map, or on ``data`` (a map in the same format)."""
    data = data or load_map("newyork")
    rules = city_rules(
        data,
        "taxis_per_player",
        attraction_points=data["components"]["tourist_attraction_points"],
    )
    return board_variant(
        "newyork",
        "taxis: 15 each, 2 cards, tickets 2 keep 1, +1 per tourist attraction",
        rules,
        data,
    )


@hookimpl
def arena_variants() -> list[Variant]:
    return [make_variant()]
