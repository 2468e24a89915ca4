"""The four agents of de Mesentier Silva, Lee, Togelius and Nealen, "AI-based Playtesting
of Contemporary Board Games" (FDG 2017), as their authors' code plays them.

Built rule by rule from what the authors' public engine does (docs/BOTS.md), quirks
included: each quirk that changes play has a switch, and ``fdg-NAME-fixed`` plays with
every switch off. Where our engine's rules differ from the original engine's, they play
by ours; where an agent's rules give no move, they play ``common.fallback``.
"""

from __future__ import annotations

import functools

from arena.plugins import hookimpl
from bots.fdg.common import FdgAgent
from bots.fdg.destination_hungry import DestinationHungry
from bots.fdg.long_route import LongRoute
from bots.fdg.one_step import OneStep
from bots.fdg.route_focus import RouteFocus
from bots.sdk import BotSpec

AGENTS: tuple[type[FdgAgent], ...] = (DestinationHungry, RouteFocus, OneStep, LongRoute)
TITLES = {
    DestinationHungry: "Destination Hungry",
    RouteFocus: "Route Focus",
    OneStep: "One Step Thinker",
    LongRoute: "Long Route Junkie",
}
STYLES = {
    DestinationHungry: "plans one network for all its tickets, asks for tickets early",
    RouteFocus: "its tickets' fewest-route paths, never takes face-up cards",
    OneStep: "one route at a time toward its best ticket",
    LongRoute: "two cheap tickets on long routes, then the longest routes",
}


def specs() -> list[BotSpec]:
    """Each agent as published, and with every quirk fixed (``-fixed``)."""
    found = []
    for cls in AGENTS:
        title = f"{TITLES[cls]} (FDG 2017)"
        found.append(
            BotSpec(cls.name, f"{title} as its authors' code plays it: {STYLES[cls]}", cls)
        )
        found.append(
            BotSpec(
                f"{cls.name}-fixed",
                f"{title} with its quirks fixed (docs/BOTS.md says which)",
                functools.partial(cls, quirks=cls.fixed()),
            )
        )
    return found


@hookimpl
def arena_bots() -> list[BotSpec]:
    return specs()
