"""Ticket to Ride: San Francisco — the city edition with ferries and tourist tokens.

Differences from the base game: the city editions' rules (``arena.variants.city``),
20 trams each; a ferry route needs one wild card per ferry symbol; tourist
stacks (7 symbols x 3 tokens) on five printed locations and two the players
place at setup; a claim takes a token of a new symbol from one of the route's
ends; at the end 2-7 distinct symbols score 1/2/4/6/9/12.
"""

from __future__ import annotations

from typing import Any

from arena.engine.variant import Variant
from arena.plugins import hookimpl
from arena.variants.city import city_rules
from arena.variants.mapdata import board_variant, load_map

# Tokens per stack by player count: (printed stacks, player-placed stacks). 4 players: 3
# each; 2-3 players: 2 each, except that with 2 the two placed stacks hold 1 token.
STACK_TOKENS = {4: (3, 3), 3: (2, 2), 2: (2, 1)}


def make_variant(data: dict[str, Any] | None = None) -> Variant:
    """San Francisco on the packaged map (unplayable while its data lists gaps), or ``data``."""
    data = data or load_map("sanfrancisco")
    parts = data["components"]
    symbols = tuple(data.get("tourist_symbol_names", ()))
    missing = [] if symbols else ["the names of the 7 tourist symbols"]
    stacks = data.get("tourist_stacks") or {}
    if not stacks:
        missing.append("which tourist symbol each printed stack holds")
    else:
        names = {c["id"]: c["name"] for c in data.get("cities", ())}
        printed = sorted(names.get(c, c) for c in stacks)
        if printed != sorted(parts["tourist_stack_fixed_locations"]):
            raise ValueError(
                f"tourist_stacks are on {printed}, the rules print them on "
                f"{sorted(parts['tourist_stack_fixed_locations'])}"
            )
    if len(symbols) not in (0, parts["tourist_symbols"]):
        raise ValueError(f"San Francisco needs {parts['tourist_symbols']} symbol names")
    bonus = parts["unique_tourist_bonus"]
    rules = city_rules(
        data,
        "trams_per_player",
        tourist_symbols=symbols,
        tourist_bonus=tuple(bonus[str(n)] for n in range(len(bonus))),
        tourist_stack_tokens=STACK_TOKENS,
    )
    return board_variant(
        "sanfrancisco",
        "trams: 20 each, ferries need wilds, tourist tokens: 1-12 for 2-7 symbols",
        rules,
        data,
        extra_missing=missing,
    )


@hookimpl
def arena_variants() -> list[Variant]:
    return [make_variant()]
