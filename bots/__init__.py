"""Bots: the player side of the arena (see bots/sdk.py)."""

from __future__ import annotations

from arena.plugins import collect, plugin_manager
from bots.sdk import Bot, BotSpec


def all_bots() -> dict[str, BotSpec]:
    """Every installed bot plugin by name."""
    return collect(plugin_manager().hook.arena_bots(), "bot")


def get_bot(name: str) -> BotSpec:
    bots = all_bots()
    try:
        return bots[name]
    except KeyError:
        raise KeyError(f"no bot named '{name}'; installed: {', '.join(bots) or 'none'}") from None


__all__ = ["Bot", "BotSpec", "all_bots", "get_bot"]
