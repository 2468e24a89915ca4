"""Reading the packaged map data files and turning their facts into board variants."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from arena.engine.board import Board, BoardRules
from arena.engine.state import BoardState
from arena.engine.variant import Variant


@cache
def load_map(name: str) -> dict[str, Any]:
    """The package's own data file ``arena/variants/data/<name>.json``."""
    text = resources.files("arena.variants").joinpath("data", f"{name}.json").read_text("utf-8")
    return json.loads(text)


def route_points(data: dict[str, Any]) -> dict[int, int]:
    return {int(length): points for length, points in data["route_points"].items()}


def board_variant(name: str, description: str, rules: BoardRules, data: dict[str, Any]) -> Variant:
    """A board variant on ``data``; unplayable (with the reason) when the data lists gaps."""
    missing = tuple(data.get("missing", ()))
    if not missing and not data.get("routes"):
        missing = ("routes",)
    return Variant(
        name=name,
        title=data["title"],
        description=description,
        min_players=rules.min_players,
        max_players=rules.max_players,
        make_state=BoardState,
        rules=rules,
        board=None if missing else Board(data, rules),
        data=data,
        missing=missing,
    )
