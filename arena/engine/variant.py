"""What a variant is to the engine: a name, its rules and components, and its game's state class.

Everything a tool needs to know about a variant's game is asked of the
variant, which asks its state class (the game's hooks): how to start a game,
read a position, sample a state from an observation, the observation's type,
the score categories and their labels, the actions it plays.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.engine.actions import Action, parse_action
from arena.engine.errors import NotationError, RulesVersionError, VariantUnavailableError
from arena.engine.result import ScoreLabel

if TYPE_CHECKING:
    from arena.engine.game import GameBase, GameState, TicketBelief
    from arena.engine.observation import Observation


@dataclass(frozen=True, eq=False)
class Variant:
    """A playable (or, with ``missing`` set, known but unplayable) member of the family.

    ``game`` is the state class: ``game(variant, num_players, seed)`` starts a
    game. Board variants use ``BoardState`` or an edition's subclass of it;
    other games bring their own ``GameBase`` subclass. ``rules_version`` counts
    the rule changes that make recorded games of this variant unfold
    differently: a log records it and is only re-simulated under the same.
    """

    name: str
    title: str
    description: str
    min_players: int
    max_players: int
    game: type[GameBase] | None
    rules: Any = None
    board: Any = None
    data: dict[str, Any] = field(default_factory=dict, repr=False)
    missing: tuple[str, ...] = ()
    rules_version: int = 1

    @property
    def playable(self) -> bool:
        return not self.missing and self.game is not None

    @property
    def status(self) -> str:
        return "playable" if self.playable else "incomplete data"

    def check_playable(self) -> None:
        """Raise ``VariantUnavailableError`` naming what is missing: called before anything
        is started for a game (bot processes) that could never begin."""
        self._game()

    def _game(self, playing: bool = True) -> type[GameBase]:
        """The state class; ``playing``: to play, which needs complete data."""
        if self.game is None or (playing and not self.playable):
            raise VariantUnavailableError(
                f"variant '{self.name}' cannot be played: its map data is incomplete. "
                f"Missing: {'; '.join(self.missing) or 'the game itself'}"
            )
        return self.game

    @property
    def phases(self) -> tuple[str, ...]:
        """The names ``state.phase`` takes in this variant's game, in a fixed order."""
        return tuple(self._game(playing=False).PHASES)

    @property
    def action_types(self) -> frozenset[type[Action]]:
        """The kinds of action this variant's game plays (``DrawCard``, ``ClaimRoute``, ...)."""
        return frozenset(self._game(playing=False).ACTIONS)

    def new_game(self, num_players: int, seed: int) -> GameState:
        """The initial state of a game for ``num_players`` seats, fixed entirely by ``seed``."""
        game = self._game()
        if not isinstance(num_players, int) or not (
            self.min_players <= num_players <= self.max_players
        ):
            raise ValueError(
                f"variant '{self.name}' is for {self.min_players}-{self.max_players} players, "
                f"not {num_players}"
            )
        if not isinstance(seed, int):
            raise TypeError(f"the seed must be an integer, not {type(seed).__name__}")
        return game(self, num_players, seed)

    def from_position(self, text: str | bytes) -> GameState:
        """The state a position (``state.to_position()``) describes; ``PositionError`` says
        what is wrong with text that is not one."""
        return self._game().from_position(self, text)

    def sample(
        self, observation: Observation, rng: random.Random, belief: TicketBelief | None = None
    ) -> GameState:
        """A random full state consistent with ``observation`` (what its seat cannot see is
        dealt by ``rng``); ``belief(seat, ticket)`` weights the other seats' tickets."""
        return self._game().from_observation(self, observation, rng, belief)

    @property
    def observation_type(self) -> type[Observation]:
        """The Struct ``observation()`` returns in this variant (the bots' decoding type)."""
        return self._game(playing=False).observation_type

    @property
    def score_categories(self) -> tuple[str, ...]:
        """The breakdown entries that add up to a total, in table order."""
        return self._game(playing=False).score_categories(self.rules)

    @property
    def score_labels(self) -> dict[str, ScoreLabel]:
        """How tables head and explain each score category."""
        labels = self._game(playing=False).SCORE_LABELS
        return {c: labels.get(c, ScoreLabel(c.replace("_", " "), c)) for c in self.score_categories}

    def parse_action(self, text: object) -> Action:
        """Parse one action of this variant's game; ``NotationError`` for anything else."""
        action = parse_action(text)
        if type(action) not in self._game(playing=False).ACTIONS:
            raise NotationError(f"'{text}' is not an action of {self.title}")
        return action

    def check_rules(self, version: int) -> None:
        """Refuse a recorded game played under another version of this variant's rules."""
        if version != self.rules_version:
            raise RulesVersionError(
                f"this game was recorded under version {version} of the rules of "
                f"'{self.name}'; this arena plays version {self.rules_version} "
                "(docs/RULES.md, 'Rules versions'), so it cannot be re-simulated"
            )
