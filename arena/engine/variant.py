"""What a variant is to the engine: a name, its rules and map, and a state factory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.engine.errors import VariantUnavailableError


@dataclass(frozen=True, eq=False)
class Variant:
    """A playable (or, with ``missing`` set, known but unplayable) member of the family.

    ``make_state(variant, num_players, seed)`` builds the initial state; board
    variants use ``BoardState`` with their ``rules`` and ``board``, other games
    bring their own state class behind the same interface.
    """

    name: str
    title: str
    description: str
    min_players: int
    max_players: int
    make_state: Callable[[Variant, int, int], Any] | None
    rules: Any = None
    board: Any = None
    data: dict[str, Any] = field(default_factory=dict, repr=False)
    missing: tuple[str, ...] = ()

    @property
    def playable(self) -> bool:
        return not self.missing and self.make_state is not None

    @property
    def status(self) -> str:
        return "playable" if self.playable else "incomplete data"

    def new_game(self, num_players: int, seed: int) -> Any:
        """The initial state of a game for ``num_players`` seats, fixed entirely by ``seed``."""
        if not self.playable:
            raise VariantUnavailableError(
                f"variant '{self.name}' cannot be played: its map data is incomplete. "
                f"Missing: {'; '.join(self.missing)}"
            )
        if not isinstance(num_players, int) or not (
            self.min_players <= num_players <= self.max_players
        ):
            raise ValueError(
                f"variant '{self.name}' is for {self.min_players}-{self.max_players} players, "
                f"not {num_players}"
            )
        if not isinstance(seed, int):
            raise TypeError(f"the seed must be an integer, not {type(seed).__name__}")
        return self.make_state(self, num_players, seed)
