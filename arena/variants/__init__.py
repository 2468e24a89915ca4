"""The variant registry: every variant installed through the ``arena.variants`` entry points."""

from __future__ import annotations

import functools

from arena.engine.game import GameState
from arena.engine.variant import Variant
from arena.plugins import collect, plugin_manager


def all_variants() -> dict[str, Variant]:
    """Every installed variant by name, playable or not, in name order."""
    plugins = plugin_manager().get_plugins()
    return dict(_installed(frozenset(map(id, plugins))))


@functools.lru_cache(maxsize=4)
def _installed(plugins: frozenset[int]) -> dict[str, Variant]:
    # Variants are immutable and building their boards costs milliseconds: build them once
    # per set of registered plugins (registering one later invalidates the cache).
    return collect(plugin_manager().hook.arena_variants(), "variant")


def get_variant(name: str | Variant) -> Variant:
    """Look a variant up by name; a clear error lists the installed ones."""
    if isinstance(name, Variant):
        return name
    variants = all_variants()
    try:
        return variants[name]
    except KeyError:
        raise KeyError(
            f"no variant named '{name}'; installed: {', '.join(variants) or 'none'}"
        ) from None


def new_game(variant: str | Variant, num_players: int, seed: int) -> GameState:
    """The initial state of a game of ``variant`` (a name or a Variant)."""
    return get_variant(variant).new_game(num_players, seed)
