"""Ticket to Ride (USA), the base game, per the 10th-anniversary rulebook."""

from __future__ import annotations

from typing import Any, TypeVar

from arena.engine.board import BoardRules
from arena.engine.variant import Variant
from arena.plugins import hookimpl
from arena.variants.mapdata import board_variant, load_map, route_points

# 2: the deck is rebuilt from the discards as soon as it runs out; 3: with no deck and no
# discards no card may be drawn, face up either (docs/RULES.md, "Rules versions"); logs
# recorded under an earlier version are refused, not re-simulated.
RULES_VERSION = 3

R = TypeVar("R", bound=BoardRules)


def train_game_rules(data: dict[str, Any], rules: type[R], **extra: Any) -> R:
    """The rules of a train-game board (USA, Europe) from its data's ``components``, as
    ``rules`` (BoardRules or an edition's subclass); ``extra`` overrides or adds fields."""
    parts = data["components"]
    fields: dict[str, Any] = dict(
        colours=tuple(parts["train_card_colors"]),
        cards_per_colour=parts["train_cards_per_color"],
        wild_cards=parts["locomotive_cards"],
        pieces_per_player=parts["trains_per_player"],
        starting_hand=parts["starting_hand"],
        face_up=parts["face_up_cards"],
        face_up_wild_reset=parts["face_up_locomotives_reset"],
        initial_tickets_keep=parts["initial_tickets_keep_min"],
        draw_tickets=parts["draw_tickets"],
        draw_tickets_keep=parts["draw_tickets_keep_min"],
        route_points=route_points(data),
        longest_path_bonus=parts["longest_path_bonus"],
        double_routes_min_players=parts["double_routes_min_players"],
        last_round_trigger=parts["last_round_trigger_trains"],
        min_players=parts["players_min"],
        max_players=parts["players_max"],
        tie_breaks=("completed_tickets", "longest_path"),
        wild_name="locomotive",
    )
    if "initial_tickets_dealt" not in extra:  # Europe deals long and regular ones
        fields["initial_tickets_dealt"] = parts["initial_tickets_dealt"]
    return rules(**{**fields, **extra})


def make_variant() -> Variant:
    data = load_map("usa")
    return board_variant(
        "usa",
        "the base game: 45 trains, tickets 3 keep 2 / 3 keep 1, longest path +10",
        train_game_rules(data, BoardRules),
        data,
        rules_version=RULES_VERSION,
    )


@hookimpl
def arena_variants() -> list[Variant]:
    return [make_variant()]
