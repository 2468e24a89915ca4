"""Replay data for the viewer: the board projected for drawing, and the game step by step."""

from __future__ import annotations

import math
from typing import Any

from arena.engine.actions import ClaimRoute, parse_action
from arena.referee.matchlog import MatchLog
from arena.variants import get_variant

WIDTH, HEIGHT, MARGIN = 1000, 640, 40


def board_drawing(variant_name: str) -> dict[str, Any]:
    """Cities at SVG coordinates (equirectangular, scaled to fit) and routes to draw."""
    variant = get_variant(variant_name)
    board = variant.board.public_json()
    cities = board["cities"]
    if not cities:  # the Card Game has no map: the viewer shows the moves and points only
        return {
            "variant": variant_name,
            "title": variant.title,
            "width": WIDTH,
            "height": 0,
            "cities": [],
            "routes": [],
        }
    mean_lat = sum(c["lat"] for c in cities) / len(cities)
    squash = math.cos(math.radians(mean_lat))
    xs = [c["lon"] * squash for c in cities]
    ys = [-c["lat"] for c in cities]
    scale = min(
        (WIDTH - 2 * MARGIN) / (max(xs) - min(xs) or 1),
        (HEIGHT - 2 * MARGIN) / (max(ys) - min(ys) or 1),
    )
    placed = {
        c["id"]: {
            "id": c["id"],
            "name": c["name"],
            "x": round(MARGIN + (x - min(xs)) * scale, 1),
            "y": round(MARGIN + (y - min(ys)) * scale, 1),
        }
        for c, x, y in zip(cities, xs, ys, strict=True)
    }
    pairs: dict[tuple[str, str], int] = {}
    routes = []
    for route in board["routes"]:
        key = (route["a"], route["b"])
        track = pairs.get(key, 0)
        pairs[key] = track + 1
        routes.append(
            {
                "id": route["id"],
                "a": route["a"],
                "b": route["b"],
                "length": route["length"],
                "color": route["color"],
                "track": track,
            }
        )
    doubles = {key for key, count in pairs.items() if count > 1}
    for route in routes:
        route["double"] = (route["a"], route["b"]) in doubles
    return {
        "variant": variant_name,
        "title": variant.title,
        "width": WIDTH,
        "height": HEIGHT,
        "cities": list(placed.values()),
        "routes": routes,
    }


def replay_steps(log: MatchLog) -> dict[str, Any]:
    """Re-play a stored match and record, after each action, what the viewer shows."""
    header = log.header
    variant = get_variant(header["variant"])
    variant.check_rules(header.get("rules", 1))  # RulesVersionError: played under other rules
    state = variant.new_game(header["players"], header["seed"])
    steps = []
    for line in log.actions:
        action = parse_action(line["action"])
        state.apply(action)
        steps.append(
            {
                "seat": line["seat"],
                "action": line["action"],
                "by": line.get("by", "bot"),
                "claim": action.route if isinstance(action, ClaimRoute) else None,
                "points": list(state.scored_points),
            }
        )
    return {
        "game_id": header.get("game_id", ""),
        "variant": header["variant"],
        "seed": header["seed"],
        "seats": [seat["bot"] for seat in header["seats"]],
        "steps": steps,
        "result": log.result,
        "faults": log.faults,
    }
