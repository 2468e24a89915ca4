"""The PettingZoo AEC environment: one game of any playable variant, on the real engine.

Agents are ``player_0`` .. ``player_{n-1}`` (the seats). Whoever the engine says is to move
is the selected agent (the first player is dealt by the seed, as in every arena game). Each
agent observes ``{"observation": float32 vector, "action_mask": int8 vector}``: the vector
encodes that seat's own typed observation (``ObservationEncoder``), the mask marks its legal
actions in the variant's fixed ``ActionSpace`` (all zeros when it is not to move).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from arena.engine import GameState, IllegalActionError, Observation, Variant
from arena.envs.actions import ActionSpace
from arena.envs.encoding import HIGHEST, NONE, ObservationEncoder
from arena.envs.fastobs import BoardWriter, SeatMemory, legal_indices
from arena.envs.rewards import check, margin
from arena.variants import get_variant

_SPACES: dict[str, ActionSpace] = {}


def action_space_of(variant: Variant) -> ActionSpace:
    """The variant's action space, built once per process (it depends on the map alone)."""
    space = _SPACES.get(variant.name)
    if space is None or space.variant is not variant:
        space = _SPACES[variant.name] = ActionSpace(variant)
    return space


def seed_from(seed: int | None) -> int:
    """The engine seed of a reset: the one given, else a fresh random one."""
    if seed is None:
        return random.SystemRandom().randrange(2**63)
    if not isinstance(seed, int | np.integer) or isinstance(seed, bool):
        raise TypeError(f"the seed must be an integer, not {type(seed).__name__}")
    return int(seed)


def mover(state: GameState) -> int:
    """The seat to move in a game that is not over."""
    seat = state.to_move
    if seat is None:
        raise RuntimeError("the game is over: nobody is to move")
    return seat


def incremental_writer(variant: Variant, encoder: ObservationEncoder) -> BoardWriter | None:
    """The fast writer of the variant's vectors, when its games show the base board game's
    observation (``BoardWriter.handles``); None: encode typed observations."""
    state_type = type(variant.new_game(encoder.players, 0))
    return BoardWriter(encoder) if BoardWriter.handles(state_type) else None


class TicketToRideEnv(AECEnv):  # type: ignore[misc]
    """A PettingZoo AEC environment over one variant and player count."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "ticket_to_ride_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        variant: str | Variant = "usa",
        players: int = 2,
        seed: int | None = None,
        reward: str = "score",
        dense: bool = False,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.variant = get_variant(variant)
        self.variant.new_game(players, 0)  # refuses an unplayable variant or player count
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of ansi, human or None, not {render_mode!r}")
        self._terminal = check(reward, dense)
        self.reward, self.dense, self.render_mode = reward, dense, render_mode
        self.players = players
        self.space = action_space_of(self.variant)
        self.encoder = ObservationEncoder(self.variant, players)
        # The step path: base board games are written from the engine's state, change by
        # change, into one preallocated row per seat (fastobs); other editions are encoded
        # from their typed observations.
        self.writer = incremental_writer(self.variant, self.encoder)
        self._rows = np.zeros((players, self.encoder.size), dtype=np.float32)
        self._flat = self._rows.reshape(-1)
        self._memories: list[SeatMemory] = []
        self._written: GameState | None = None  # the game the rows and memories are of
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self.agent_name_mapping = {name: seat for seat, name in enumerate(self.possible_agents)}
        vector = spaces.Box(NONE, HIGHEST, shape=(self.encoder.size,), dtype=np.float32)
        mask = spaces.Box(0, 1, shape=(len(self.space),), dtype=np.int8)
        self.vector_space = vector
        self._observation_space = spaces.Dict({"observation": vector, "action_mask": mask})
        self._action_space = spaces.Discrete(len(self.space))
        self._seed = seed
        self.state: GameState | None = None

    # ------------------------------------------------------------------ spaces and names

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    def action_to_text(self, index: int) -> str:
        """The notation of action ``index`` (``claim 57 red w2``)."""
        return self.space.action_to_text(index)

    def text_to_action(self, text: str) -> int:
        """The index of the action ``text`` names; ``NotationError`` if none."""
        return self.space.text_to_action(text)

    # ------------------------------------------------------------------ the game

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: ``seed`` fixes it entirely (else the constructor's, else a random one)."""
        if seed is None and self._seed is not None:
            seed, self._seed = self._seed, None  # the constructor's seed plays the first game
        self.game_seed = seed_from(seed)
        self.state = self.variant.new_game(self.players, self.game_seed)
        self.encoder.reset()
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._potential = [0.0] * self.players
        self.last_action: int | None = None
        self.agent_selection = self.possible_agents[mover(self.state)]

    def step(self, action: int) -> None:
        """Play action ``action`` (an index) for the selected agent."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._live()
        index = self.space.checked(action)
        try:
            state.apply(self.space.actions[index])
        except IllegalActionError as error:
            text = self.space.texts[index]
            raise ValueError(f"action {index} ('{text}') is not legal now: {error}") from None
        self.last_action = index
        self._cumulative_rewards[agent] = 0.0
        self._pay_rewards(state)
        if state.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
            result = state.result()
            for name in self.agents:
                self.infos[name] = {"scores": list(result.scores), "ranks": list(result.ranks)}
        else:
            self.agent_selection = self.possible_agents[mover(state)]
        self._accumulate_rewards()

    def _pay_rewards(self, state: GameState) -> None:
        if state.is_over:
            result = state.result()
            for seat, name in enumerate(self.possible_agents):
                value = self._terminal(result, seat)
                if self.dense:
                    value -= self._potential[seat]
                self.rewards[name] = value
        elif self.dense:
            points = state.scored_points
            for seat, name in enumerate(self.possible_agents):
                now = margin(points, seat)
                self.rewards[name] = now - self._potential[seat]
                self._potential[seat] = now
        else:
            for name in self.possible_agents:
                self.rewards[name] = 0.0

    def _live(self) -> GameState:
        if self.state is None:
            raise RuntimeError("call reset() before step() or observe()")
        return self.state

    # ------------------------------------------------------------------ what agents see

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        state = self._live()
        return {"observation": self.vector(state, seat), "action_mask": self._mask(state, seat)}

    def vector(self, state: GameState, seat: int) -> np.ndarray:
        """The seat's encoded observation (a new array: safe to keep)."""
        writer = self.writer
        if writer is None:
            return self.encoder.encode(state.observation(seat))
        if state is not self._written:  # a new game, or a state set from outside
            self._written = state
            self._rows.fill(0.0)
            self._memories = [writer.memory() for _ in range(self.players)]
        idx: list[int] = []
        val: list[float] = []
        writer.update(state, seat, self._memories[seat], seat * writer.size, idx, val)  # type: ignore[arg-type]
        if idx:
            self._flat[idx] = val
        return self._rows[seat].copy()

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The legal actions of ``agent`` (the selected one by default), without encoding."""
        return self._mask(self._live(), self.agent_name_mapping[agent or self.agent_selection])

    def _mask(self, state: GameState, seat: int) -> np.ndarray:
        mask = np.zeros(len(self.space), dtype=np.int8)
        if state.to_move == seat:
            if self.writer is not None:  # compiled with the engine: its actions natively
                legal: list[int] = []
                legal_indices(state, self.space, self.space._by_id, 0, legal)  # type: ignore[arg-type]
                mask[legal] = 1
            else:
                mask[self.space.indices(state.legal_actions())] = 1
        return mask

    def raw_observation(self, agent: str) -> Observation:
        """The seat's typed observation (``state.observation(seat)``), as bots receive it."""
        return self._live().observation(self.agent_name_mapping[agent])

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        state = self._live()
        points = ", ".join(f"player_{s}: {p}" for s, p in enumerate(state.scored_points))
        who = "over" if state.is_over else f"player_{state.to_move} to move ({state.phase})"
        last = "-" if self.last_action is None else self.space.texts[self.last_action]
        text = f"{self.variant.name} turn {state.turn}: {who}; points {points}; last action: {last}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.state = None
