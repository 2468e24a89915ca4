"""Plugin hooks (pluggy): how variants and bots join the arena.

A third-party package adds a map or a bot exactly as the built-ins do: a
module with ``@hookimpl`` functions, named in an entry point of the group
``arena.variants`` or ``arena.bots``.

Finding the entry points reads the metadata of every installed distribution, a good
part of a bot process's start-up; the referee has found them already, so it names their
modules to every bot process it starts (``ARENA_PLUGINS``), which loads exactly those.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from functools import cache
from types import ModuleType
from typing import Any

import pluggy

PROJECT = "arena"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)
ENTRY_POINT_GROUPS = ("arena.variants", "arena.bots")
# Comma-separated modules to load as the plugins instead of finding the entry points.
PLUGINS_ENV = "ARENA_PLUGINS"


class ArenaSpec:
    """The hook specifications."""

    @hookspec
    def arena_variants(self) -> list[Any]:
        """Return the ``arena.engine.Variant`` objects this plugin provides."""
        return []  # a specification: pluggy never runs its body

    @hookspec
    def arena_bots(self) -> list[Any]:
        """Return the ``bots.sdk.BotSpec`` objects this plugin provides."""
        return []  # a specification: pluggy never runs its body


def collect(provided: list[list[Any]], kind: str) -> dict[str, Any]:
    """Merge what every plugin returned from a hook into one dict by ``name``, in name order.

    Two plugins providing the same name is an installation error, said plainly.
    """
    found: dict[str, Any] = {}
    for items in provided:
        for item in items:
            if item.name in found:
                raise RuntimeError(f"two plugins provide a {kind} named '{item.name}'")
            found[item.name] = item
    return dict(sorted(found.items()))


@cache
def plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager, with every installed entry point loaded (or, in a
    bot process, the modules its referee named in ``ARENA_PLUGINS``)."""
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(ArenaSpec)
    named = os.environ.get(PLUGINS_ENV, "")
    if named:
        for module in named.split(","):
            if importable(module):  # else not installed where this process looks
                manager.register(importlib.import_module(module), name=module)
    else:
        for group in ENTRY_POINT_GROUPS:
            manager.load_setuptools_entrypoints(group)
    return manager


def importable(module: str) -> bool:
    """Whether ``module`` can be found on this process's path (a bot's path may lack a
    plugin the referee's has: one on the organiser's ``PYTHONPATH`` that the tournament
    does not pass on), as the entry points this process would find itself."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its package is not there either
        return False


def plugin_modules() -> str:
    """What a bot process is told in ``ARENA_PLUGINS``: the modules of the plugins loaded
    from entry points, comma-separated (a bot process loads every installed plugin, as
    this one did); empty if one is not a module (an entry point may name any object) or
    none was loaded that way: the process then finds them itself."""
    found = [plugin for plugin, _ in plugin_manager().list_plugin_distinfo()]
    modules = [plugin for plugin in found if isinstance(plugin, ModuleType)]
    if not found or len(modules) < len(found):
        return ""
    return ",".join(sorted(module.__name__ for module in modules))


@cache
def plugin_files() -> tuple[str, ...]:
    """Where every installed plugin's code and metadata live: the folder of its top package
    (or its module's file) and its distribution's ``.dist-info`` folder.

    A bot process loads every installed plugin, so a sandboxed bot must be able to read
    them, also when a plugin lives outside the Python installation (a third party's variant
    installed in development mode, or on ``PYTHONPATH``); nothing around them is granted.
    """
    from importlib.metadata import entry_points  # (costs a bot process; only referees ask)

    found: list[str] = []
    for group in ENTRY_POINT_GROUPS:
        for entry in entry_points(group=group):
            spec = importlib.util.find_spec(entry.module.split(".")[0])
            if spec is not None:
                folders = list(spec.submodule_search_locations or ())
                found += folders or ([spec.origin] if spec.origin else [])
            found.append(str(getattr(entry.dist, "_path", "")))  # no public name in importlib
    absolute = [os.path.abspath(path) for path in found if os.path.isabs(path)]
    return tuple(dict.fromkeys(absolute))
