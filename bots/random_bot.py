"""The ``random`` bot: uniform over the legal actions."""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine.actions import Action
from arena.engine.observation import Observation
from arena.plugins import hookimpl
from bots.sdk import Bot, BotSpec


class RandomBot(Bot):
    name = "random"
    observes = False  # uniform over the legal actions: what the seat sees changes nothing

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        return legal_actions[self.rng.randrange(len(legal_actions))]


@hookimpl
def arena_bots() -> list[BotSpec]:
    return [BotSpec("random", "uniform over the legal actions (a baseline)", RandomBot, ("any",))]
