"""Plugin hooks (pluggy): how variants and bots join the arena.

A third-party package adds a map or a bot exactly as the built-ins do: a
module with ``@hookimpl`` functions, named in an entry point of the group
``arena.variants`` or ``arena.bots``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pluggy

PROJECT = "arena"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)
ENTRY_POINT_GROUPS = ("arena.variants", "arena.bots")


class ArenaSpec:
    """The hook specifications."""

    @hookspec
    def arena_variants(self) -> list[Any]:
        """Return the ``arena.engine.Variant`` objects this plugin provides."""

    @hookspec
    def arena_bots(self) -> list[Any]:
        """Return the ``bots.sdk.BotSpec`` objects this plugin provides."""


@cache
def plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager, with every installed entry point loaded."""
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(ArenaSpec)
    for group in ENTRY_POINT_GROUPS:
        manager.load_setuptools_entrypoints(group)
    return manager
