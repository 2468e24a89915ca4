"""Ticket to Ride Europe: tunnels, ferries and stations on the board engine.

Differences from the base game: 2-5 players; starting hand 4; 1 of the 6 long
tickets and 3 of the 40 regular ones dealt, keep at least 2 (unkept long ones
leave the game); ferries need a locomotive per ferry space; tunnels turn 3
cards that may ask for more; 3 stations each (1, 2, 3 cards), each lending one
opponent route into its city at the end, 4 points per unbuilt station; route
points up to 8 -> 21; the European Express (+10) for the longest path.
"""

from __future__ import annotations

from typing import Any

from arena.engine.variant import Variant
from arena.plugins import hookimpl
from arena.variants.mapdata import board_variant, load_map
from arena.variants.usa import train_game_rules


def make_variant(data: dict[str, Any] | None = None) -> Variant:
    data = data or load_map("europe")
    parts = data["components"]
    rules = train_game_rules(
        data,
        initial_tickets_dealt=parts["initial_regular_tickets_dealt"],
        initial_long_tickets=parts["initial_long_tickets_dealt"],
        # Europe's rulebook: most tickets, then fewest stations used, then the Express.
        tie_breaks=("completed_tickets", "stations_left", "longest_path_bonus"),
        stations=parts["stations_per_player"],
        station_costs=tuple(parts["station_build_cost"]),
        station_points=parts["station_unused_points"],
        tunnel_reveal=parts["tunnel_extra_cards_revealed"],
    )
    return board_variant(
        "europe",
        "tunnels, ferries, 3 stations each; long tickets; 2-5 players",
        rules,
        data,
    )


@hookimpl
def arena_variants() -> list[Variant]:
    return [make_variant()]
