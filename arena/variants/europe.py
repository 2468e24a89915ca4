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

from arena.engine.board import BoardRules
from arena.engine.variant import Variant
from arena.plugins import hookimpl
from arena.variants.mapdata import board_variant, load_map, route_points


def make_variant(data: dict[str, Any] | None = None) -> Variant:
    data = data or load_map("europe")
    parts = data["components"]
    rules = BoardRules(
        colours=tuple(parts["train_card_colors"]),
        cards_per_colour=parts["train_cards_per_color"],
        wild_cards=parts["locomotive_cards"],
        pieces_per_player=parts["trains_per_player"],
        starting_hand=parts["starting_hand"],
        face_up=parts["face_up_cards"],
        face_up_wild_reset=parts["face_up_locomotives_reset"],
        initial_tickets_dealt=parts["initial_regular_tickets_dealt"],
        initial_long_tickets=parts["initial_long_tickets_dealt"],
        initial_tickets_keep=parts["initial_tickets_keep_min"],
        draw_tickets=parts["draw_tickets"],
        draw_tickets_keep=parts["draw_tickets_keep_min"],
        route_points=route_points(data),
        longest_path_bonus=parts["longest_path_bonus"],
        double_routes_min_players=parts["double_routes_min_players"],
        last_round_trigger=parts["last_round_trigger_trains"],
        min_players=parts["players_min"],
        max_players=parts["players_max"],
        # Europe's rulebook: most tickets, then fewest stations used, then the Express.
        tie_breaks=("completed_tickets", "stations_left", "longest_path_bonus"),
        wild_name="locomotive",
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
