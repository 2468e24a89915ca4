"""Playable Amsterdam and San Francisco variants on test fixtures.

The packaged data of both editions is incomplete, so their rules are tested on
fixture maps: Amsterdam's real routes and cart symbols with invented contracts,
and an invented little San Francisco. The components (card counts, bonus
tables, stack locations) are the packaged data's own. Nothing here ships.
"""

from __future__ import annotations

import json
from pathlib import Path

from arena.variants import amsterdam, sanfrancisco
from arena.variants.mapdata import load_map

FIXTURES = Path(__file__).parent / "fixtures"

# Invented contracts (the real 24 are not known); the 4 known ones come first.
EXTRA_CONTRACTS = [
    ("begijnhof", "noordermarkt", 7),
    ("blauwbrug", "jordaan", 9),
    ("dam", "montelbaanstoren", 5),
    ("jan-roodenpoortstoren", "oude-waal", 6),
    ("munttoren", "westermarkt", 4),
    ("nieuwe-waal", "waag", 5),
    ("haringpakkerstoren", "oude-kerk", 4),
    ("de-drie-hendricken", "blauwbrug", 10),
]


def amsterdam_data() -> dict:
    data = json.loads(json.dumps(load_map("amsterdam")))
    cities = {c["id"] for c in data["cities"]}
    extra = [{"a": a, "b": b, "points": p} for a, b, p in EXTRA_CONTRACTS]
    assert all(t["a"] in cities and t["b"] in cities for t in extra)
    data["tickets"] = data["tickets"] + extra
    data["missing"] = []
    return data


def sanfrancisco_data() -> dict:
    data = json.loads((FIXTURES / "sanfrancisco-mini.json").read_text())
    real = load_map("sanfrancisco")
    data["components"] = real["components"]
    data["route_points"] = dict(real["route_points"])
    return data


AMSTERDAM = amsterdam.make_variant(amsterdam_data())
SANFRANCISCO = sanfrancisco.make_variant(sanfrancisco_data())


def every_playable_variant() -> list:
    """Every playable registered variant, then the two fixture editions above."""
    from arena.variants import all_variants

    return [v for v in all_variants().values() if v.playable] + [AMSTERDAM, SANFRANCISCO]


def variant_id(variant) -> str:
    """A test id that is the same in every process (pytest-xdist compares them): the
    fixture editions share their names with the real ones."""
    return variant.name + ("-fixture" if variant in (AMSTERDAM, SANFRANCISCO) else "")
