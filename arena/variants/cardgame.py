"""Ticket to Ride: The Card Game, and its rulebook variant where owners may look at their
own On-the-Track pile (``cardgame-peek``)."""

from __future__ import annotations

from typing import Any

from arena.engine.cardgame import CardGameBoard, CardGameRules, CardGameState
from arena.engine.variant import Variant
from arena.plugins import hookimpl
from arena.variants.mapdata import load_map


def make_variant(data: dict[str, Any] | None = None, owner_sees_track: bool = False) -> Variant:
    data = data or load_map("cardgame")
    parts = data["components"]
    cards = parts["train_cards"]
    colours = tuple(parts["train_card_colors"])
    per_colour = {cards[c] for c in colours}
    if len(per_colour) != 1:
        raise ValueError(f"the Card Game expects equal colour counts, got {per_colour}")
    rules = CardGameRules(
        colours=colours,
        cards_per_colour=per_colour.pop(),
        locomotives=cards["locomotive"],
        starting_locomotives=parts["starting_locomotives"],
        starting_hand=parts["starting_hand"],
        face_up=parts["face_up_cards"],
        deal_tickets=parts["deal_tickets"],
        keep_min=parts["keep_min"],
        draw_tickets=parts["draw_tickets"],
        rounds={int(n): r for n, r in parts["train_deck_passes"].items()},
        owner_sees_track=owner_sees_track,
        min_players=parts["players_min"],
        max_players=parts["players_max"],
    )
    missing = tuple(data.get("missing", ()))
    name = "cardgame-peek" if owner_sees_track else "cardgame"
    description = (
        "the Card Game: train yards, robbing, on-the-track piles, big-city bonuses"
        if not owner_sees_track
        else "the Card Game, rulebook variant: owners may look at their On-the-Track pile"
    )
    return Variant(
        name=name,
        title=data["title"] + (" (open track)" if owner_sees_track else ""),
        description=description,
        min_players=rules.min_players,
        max_players=rules.max_players,
        make_state=CardGameState,
        rules=rules,
        board=None if missing else CardGameBoard(data, rules),
        data=data,
        missing=missing,
    )


@hookimpl
def arena_variants() -> list[Variant]:
    return [make_variant(), make_variant(owner_sees_track=True)]
