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
    data: dict[str, Any] = json.loads(text)
    return data


def route_points(data: dict[str, Any]) -> dict[int, int]:
    return {int(length): points for length, points in data["route_points"].items()}


def board_variant(
    name: str,
    description: str,
    rules: BoardRules,
    data: dict[str, Any],
    extra_missing: list[str] | tuple[str, ...] = (),
    game: type[BoardState] = BoardState,
    board: type[Board] = Board,
    rules_version: int = 1,
) -> Variant:
    """A board variant on ``data``, played by ``game`` (an edition's state class) on a
    ``board`` (its map class); unplayable (with the reason) when the data lists gaps.

    ``extra_missing`` names facts the variant needs that the data lacks without
    saying so in its ``missing`` list."""
    missing = tuple(data.get("missing", ()))
    missing += tuple(m for m in extra_missing if m not in missing)
    if not missing:
        missing = tuple(key for key in ("cities", "routes", "tickets") if not data.get(key))
    return Variant(
        name=name,
        title=data["title"],
        description=description,
        min_players=rules.min_players,
        max_players=rules.max_players,
        game=game,
        rules=rules,
        board=None if missing else board(data, rules),
        data=data,
        missing=missing,
        rules_version=rules_version,
    )
