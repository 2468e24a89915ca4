"""What the city editions (New York, Amsterdam, San Francisco) share: their base rules.

44 cards (6 of each of six colours + 8 wilds), 5 face up with a reset at 3
face-up wilds, 2 starting cards, tickets 2 keep >= 1 at setup and later, route
points 1/2/4/7, 2-4 players, one track of a double route with 2, the last
round at 2 or fewer pieces, ties broken by completed tickets and then shared.
Every number comes from the map's data file; only the reset threshold, which
the New York table does not state, defaults to the rulebooks' 3.
"""

from __future__ import annotations

from typing import Any, TypeVar

from arena.engine.board import BoardRules
from arena.variants.mapdata import route_points

FACE_UP_WILD_RESET = 3  # the city rulebooks; the Amsterdam table states it too
# 2: the deck is rebuilt from the discards as soon as it runs out; Amsterdam's ties and San
# Francisco's setup follow the rulebooks; 3: with no deck and no discards no card may be
# drawn, face up either (docs/RULES.md, "Rules versions").
RULES_VERSION = 3

R = TypeVar("R", bound=BoardRules)


def city_rules(data: dict[str, Any], pieces_key: str, rules: type[R], **extra: Any) -> R:
    """The base rules of a city edition from its data's ``components``, as ``rules`` (the
    edition's rules class); ``extra`` adds the edition's own components."""
    parts = data["components"]
    return rules(
        colours=tuple(parts["transport_card_colors"]),
        cards_per_colour=parts["transport_cards_per_color"],
        wild_cards=parts["wild_cards"],
        pieces_per_player=parts[pieces_key],
        starting_hand=parts["starting_hand"],
        face_up=parts["face_up_cards"],
        face_up_wild_reset=parts.get("face_up_wilds_reset", FACE_UP_WILD_RESET),
        initial_tickets_dealt=parts["initial_tickets_dealt"],
        initial_tickets_keep=parts["initial_tickets_keep_min"],
        draw_tickets=parts["draw_tickets"],
        draw_tickets_keep=parts["draw_tickets_keep_min"],
        route_points=route_points(data),
        longest_path_bonus=0,
        double_routes_min_players=parts.get("double_routes_min_players", 3),
        last_round_trigger=parts["last_round_trigger_pieces"],
        min_players=parts["players_min"],
        max_players=parts["players_max"],
        tie_breaks=("completed_tickets",),
        wild_name=parts.get("wild_card_name", "wild"),
        **extra,
    )
