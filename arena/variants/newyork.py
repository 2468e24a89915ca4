"""Ticket to Ride: New York — the city edition with taxis and tourist attractions.

Differences from the base game: 44 cards (6 of each of six colours + 8 wild
taxis), 15 taxis each, 2 starting cards, tickets 2 keep >= 1 (at setup and
later), route points 1/2/4/7, 2-4 players (one track of a double route with 2),
+1 point per tourist attraction a player's routes touch, no longest-path bonus,
ties broken by completed tickets and then shared.
"""

from __future__ import annotations

from arena.engine.board import BoardRules
from arena.engine.variant import Variant
from arena.plugins import hookimpl
from arena.variants.mapdata import board_variant, load_map, route_points

# Not in the fact table, taken from the city editions' rulebooks (docs/RULES.md).
FACE_UP_WILD_RESET = 3


def make_variant() -> Variant:
    data = load_map("newyork")
    parts = data["components"]
    rules = BoardRules(
        colours=tuple(parts["transport_card_colors"]),
        cards_per_colour=parts["transport_cards_per_color"],
        wild_cards=parts["wild_cards"],
        pieces_per_player=parts["taxis_per_player"],
        starting_hand=parts["starting_hand"],
        face_up=parts["face_up_cards"],
        face_up_wild_reset=FACE_UP_WILD_RESET,
        initial_tickets_dealt=parts["initial_tickets_dealt"],
        initial_tickets_keep=parts["initial_tickets_keep_min"],
        draw_tickets=parts["draw_tickets"],
        draw_tickets_keep=parts["draw_tickets_keep_min"],
        route_points=route_points(data),
        longest_path_bonus=0,
        double_routes_min_players=parts["double_routes_min_players"],
        last_round_trigger=parts["last_round_trigger_pieces"],
        min_players=parts["players_min"],
        max_players=parts["players_max"],
        tie_breaks=("completed_tickets",),
        wild_name=parts["wild_card_name"],
        attraction_points=parts["tourist_attraction_points"],
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
