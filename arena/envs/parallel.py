"""The PettingZoo parallel API over one game, for self-play: every seat is an agent.

Ticket to Ride is played one seat at a time, so of the actions ``step(actions)`` receives only
the one of the seat to move is played; the others' masks are all zeros and their actions are
ignored (any value will do). An illegal action of the mover is, by default, not played: it
costs the penalty ``illegal`` (-1) and the same seat moves again (``info["illegal"]``), as in
``arena.envs.gym``, so that learners (and PettingZoo's own seed test) that ignore the masks
still run; ``illegal="raise"`` raises ``ValueError`` instead. Every agent gets its
observation, mask, reward and info each step, as in the AEC environment this wraps
(``TicketToRideEnv``: the same seeds give the same games); once the game ends, ``agents`` is
empty.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.env import ParallelEnv  # type: ignore[import-untyped]

from arena.engine import Variant
from arena.envs.aec import TicketToRideEnv


class TicketToRideParallelEnv(ParallelEnv):  # type: ignore[misc]
    """A ``pettingzoo.ParallelEnv`` over one variant and player count."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "ticket_to_ride_parallel_v0",
    }

    def __init__(
        self,
        variant: str | Variant = "usa",
        players: int = 2,
        seed: int | None = None,
        reward: str = "score",
        dense: bool = False,
        render_mode: str | None = None,
        illegal: str | float = -1.0,
    ) -> None:
        if illegal != "raise" and not isinstance(illegal, int | float):
            raise ValueError(f"illegal must be 'raise' or a penalty (a number), not {illegal!r}")
        self.illegal = illegal
        self.game = TicketToRideEnv(variant, players, seed, reward, dense, render_mode)
        self.render_mode = render_mode
        self.possible_agents = list(self.game.possible_agents)
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.game.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.game.action_space(agent)

    def action_to_text(self, index: int) -> str:
        return self.game.action_to_text(index)

    def text_to_action(self, text: str) -> int:
        return self.game.text_to_action(text)

    @property
    def state(self) -> Any:
        """The engine state (for tools and debugging, never a policy's input)."""
        return self.game.state

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        self.game.reset(seed=seed, options=options)
        self.agents = list(self.game.agents)
        return self._observations(), {agent: {} for agent in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], ...]:
        """Play the action of the agent to move (``actions[agent]``); the others' are ignored."""
        game = self.game
        mover = game.agent_selection
        if mover not in actions:
            raise KeyError(f"no action for {mover}, the agent to move")
        action = game.space.checked(actions[mover])
        if self.illegal != "raise" and not game.action_mask(mover)[action]:
            observations = self._observations()  # not played: the mover tries again
            rewards = {agent: 0.0 for agent in self.agents}
            rewards[mover] = float(self.illegal)
            false = dict.fromkeys(self.agents, False)
            infos = {agent: {"illegal": agent == mover} for agent in self.agents}
            return observations, rewards, false, dict(false), infos
        game.step(action)
        observations = self._observations()
        rewards = {agent: float(game.rewards[agent]) for agent in self.agents}
        terminations = {agent: bool(game.terminations[agent]) for agent in self.agents}
        truncations = {agent: bool(game.truncations[agent]) for agent in self.agents}
        infos = {agent: dict(game.infos[agent]) for agent in self.agents}
        if game.state is not None and game.state.is_over:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {agent: self.game.observe(agent) for agent in self.agents}

    def render(self) -> str | None:
        return self.game.render()

    def close(self) -> None:
        self.game.close()
