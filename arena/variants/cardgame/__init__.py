"""Ticket to Ride: The Card Game, and its rulebook variant where owners may look at their
own On-the-Track pile (``cardgame-peek``): a whole game of its own on the engine's contract.

``actions`` (plays into the Train Yard, completing tickets, and their verbs),
``components`` (rules, tickets, big cities), ``views`` (observation and position)
and ``game`` (the state) make it up.
"""

from __future__ import annotations

from typing import Any

from arena.engine.variant import Variant
from arena.plugins import hookimpl
from arena.variants.cardgame.actions import CardGameAction, CompleteTicket, PlayGroup, PlayTrio
from arena.variants.cardgame.components import (
    CardGameBoard,
    CardGameRules,
    CardTicket,
    best_ticket_set,
    completable_additions,
)
from arena.variants.cardgame.game import CardGameState
from arena.variants.cardgame.views import CardGameObservation, CardGamePosition
from arena.variants.mapdata import load_map

# 2: a player chooses the tickets its pile completes; the draw may stop after one card; no
# face-up card is drawn once one card is left; the 4-player round 2 discards the face-up
# cards too (docs/RULES.md, "Rules versions").
RULES_VERSION = 2


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
        game=CardGameState,
        rules=rules,
        board=None if missing else CardGameBoard(data, rules),
        data=data,
        missing=missing,
        rules_version=RULES_VERSION,
    )


@hookimpl
def arena_variants() -> list[Variant]:
    return [make_variant(), make_variant(owner_sees_track=True)]


__all__ = [
    "CardGameAction",
    "CardGameBoard",
    "CardGameObservation",
    "CardGamePosition",
    "CardGameRules",
    "CardGameState",
    "CardTicket",
    "CompleteTicket",
    "PlayGroup",
    "PlayTrio",
    "best_ticket_set",
    "completable_additions",
    "make_variant",
]
