"""The player side: what a bot is.

A bot implements one method, ``choose``: given what its seat may know and
the legal actions, return one of them. ``on_game_start`` and
``on_game_over`` are optional hooks; ``note(text)`` inside ``choose`` attaches a
short note to the action (the replay viewer shows it at that step).
docs/FIRST-BOT.md walks through all of it. Bots are plugins: a module provides
``BotSpec`` objects through the ``arena_bots`` hook and names itself in the
``arena.bots`` entry-point group.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from arena.engine.actions import Action
from arena.engine.observation import Observation
from protocols.messages import MAX_NOTE


@dataclass(frozen=True, slots=True)
class UnknownAction(Action):
    """A legal action whose verb no variant installed in the bot's process reads (its game
    is a variant installed only where the referee runs): its notation, unread. ``str()``
    gives the text back, so a bot may still choose it."""

    text: str

    def __str__(self) -> str:
        return self.text


class Bot:
    """Base class for Python bots. Subclass it and implement ``choose``.

    ``seed`` makes the bot deterministic: the arena passes each game a seed
    derived from the game's seed and the seat under the organiser's secret
    key (so it reveals nothing about the deal), and a game replays exactly.
    """

    name: ClassVar[str] = "bot"
    # False: ``choose`` never reads its observation (it gets ``None``), so a referee that
    # calls this bot in its own process does not build one: an observation costs more than
    # the engine's own work for a move (benchmarks/referee_inprocess.py).
    observes: ClassVar[bool] = True

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(seed)
        self.board: dict[str, Any] = {}  # set at each game start: cities, routes, tickets
        self.seat = 0  # this bot's seat in the current game (set at each game start)
        self.variant_name = ""  # the current game's variant (usa, ...), set at each game start
        self._note: str | None = None

    def start_game(
        self, seed: int | str, observation: Observation, board: dict[str, Any] | None = None
    ) -> None:
        """Reseed for a new game (so every game replays exactly), keep the board as
        ``self.board`` and the seat and variant, then call ``on_game_start``."""
        self.rng = random.Random(seed)
        self.board = board or {}
        self.seat = observation["seat"]
        self.variant_name = observation["variant"]
        self._note = None
        self.on_game_start(observation)

    def note(self, text: str) -> None:
        """Attach ``text`` to the action ``choose`` is about to return (the last call wins):
        the match log keeps it and the replay viewer shows it at that step. Cut to
        ``MAX_NOTE`` characters (the protocol's limit); its bytes count in the bot's
        per-decision message budget."""
        self._note = str(text)[:MAX_NOTE]

    def take_note(self) -> str | None:
        """The note of the action just chosen, once (the runner sends it with the action)."""
        note, self._note = getattr(self, "_note", None), None
        return note or None

    def on_game_start(self, observation: Observation) -> None:
        """Called once before the seat's first decision of a game."""

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Return one of ``legal_actions`` (an Action, or its notation as text). The
        observation is the variant's typed Struct (``variant.observation_type``): read it by
        attribute, ``observation.public[2].trains`` (``observation["phase"]`` works too)."""
        raise NotImplementedError

    def on_game_over(self, observation: Observation, result: dict[str, Any]) -> None:
        """Called once when the game has ended, with the result as JSON-ready data."""


@dataclass(frozen=True)
class BotSpec:
    """How the arena knows an installed bot: its name, a one-line description, a factory."""

    name: str
    description: str
    factory: Callable[[int | str], Bot]
    # Variant names; "*" stands for every board variant, "any" for every game of the family.
    variants: tuple[str, ...] = ("*",)
    version: str = "1"
    # A new process for every match (never a warm one that played earlier matches).
    fresh_process: bool = False

    def supports(self, variant: str) -> bool:
        return plays(self.variants, variant)


def plays(declared: Sequence[str], variant: str) -> bool:
    """Whether variant names ``declared`` cover ``variant``: ``*`` is every board variant,
    ``any`` every game of the family (the Card Game too)."""
    if "any" in declared or variant in declared:
        return True
    return "*" in declared and not variant.startswith("cardgame")
