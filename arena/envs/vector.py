"""N games stepped together in one process: a Gymnasium ``VectorEnv``.

One ``step(actions)`` plays one action in each of ``num_envs`` games and returns the batch:
observations ``(num_envs, size)`` float32, rewards, terminations, truncations, and
``infos["action_mask"]`` ``(num_envs, actions)`` int8 (also ``env.action_masks()``). The
observations of base board games are written change by change into one preallocated array
(``fastobs``), with one NumPy call per step for all the games, and so are the masks: the
per-game work is the engine's move and a few comparisons.

Two ways to play:

- self-play (``opponents=None``, the default): the learner holds every seat; each game's row
  is the observation of the seat to move (``infos["seat"]``), relative to it, so one policy
  plays all seats. ``rewards[i]`` is what the seat that just acted in game ``i`` earned;
  ``infos["rewards"]`` ``(num_envs, players)`` is every seat's reward of the step (so a
  terminal reward reaches the seats that did not make the last move);
- against bots (``opponents=["planner"]``, one per other seat): the learner holds ``seat``
  (None: drawn per game) and the bots move in between, exactly as in ``arena.envs.gym``.

Games reset themselves when they end, in the same step (Gymnasium's ``SAME_STEP`` autoreset):
the returned row is the new game's first observation; the finished game's last one is in
``infos["final_obs"]`` (rows where ``infos["_final_obs"]`` is true), its scores and ranks in
``infos["scores"]`` and ``infos["ranks"]``. ``reset(seed=s)`` fixes every game of the run:
the same seed and actions give the same games.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from arena.engine import GameState
from arena.envs.aec import action_space_of, incremental_writer
from arena.envs.encoding import HIGHEST, NONE, ObservationEncoder
from arena.envs.fastobs import SeatMemory, legal_indices, play_self
from arena.envs.gym import opponent, play_bots, seat_bots
from arena.envs.rewards import check, margin
from arena.variants import get_variant
from bots.sdk import Bot


class TicketToRideVectorEnv(VectorEnv):  # type: ignore[misc]
    """``num_envs`` games of one variant and player count, stepped together."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(
        self,
        variant: str = "usa",
        num_envs: int = 64,
        players: int = 2,
        opponents: Sequence[str | Bot] | None = None,
        seat: int | None = 0,
        reward: str = "score",
        dense: bool = False,
        data_dir: str | Path = "arena-data",
    ) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        if opponents is not None:
            if isinstance(opponents, str | Bot):
                opponents = [opponents]
            players = len(opponents) + 1
        self.variant = get_variant(variant)
        self.variant.new_game(players, 0)  # refuses an unplayable variant or player count
        if seat is not None and (not isinstance(seat, int) or not 0 <= seat < players):
            raise ValueError(f"seat must be an integer in 0..{players - 1} or None, not {seat!r}")
        self._terminal = check(reward, dense)
        self.reward, self.dense = reward, dense
        self.num_envs, self.players, self.fixed_seat = num_envs, players, seat
        self.space = action_space_of(self.variant)
        self.encoder = ObservationEncoder(self.variant, players)
        self.writer = incremental_writer(self.variant, self.encoder)
        self.opponents = (
            None
            if opponents is None
            else [opponent(o, self.variant.name, Path(data_dir)) for o in opponents]
        )
        self._board = self.variant.board.public_json()
        size, actions = self.encoder.size, len(self.space)
        self.single_observation_space = gymnasium.spaces.Box(
            NONE, HIGHEST, shape=(size,), dtype=np.float32
        )
        self.single_action_space = gymnasium.spaces.Discrete(actions)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        # Every seat's current vector in every game, and the batch's masks.
        self._rows = np.zeros((num_envs, players, size), dtype=np.float32)
        self._flat = self._rows.reshape(-1)
        self._masks = np.zeros((num_envs, actions), dtype=np.int8)
        self._masks_flat = self._masks.reshape(-1)
        self._states: list[GameState] = []
        self._memories: list[list[SeatMemory]] = []
        self._bots: list[dict[int, Bot]] = []
        self._learner = [0] * num_envs  # the seat whose row is returned (the mover in self-play)
        self._potential = np.zeros((num_envs, players))
        # Rewards of a new game's bot moves before the learner's first: paid with its first step.
        self._pending = np.zeros((num_envs, players))
        self._seen: list[int] = [0] * num_envs
        self._rows_index = np.arange(num_envs)
        # Self-play without dense rewards on a base board game: the batch's moves, vectors
        # and masks in one compiled loop (fastobs.play_self); else game by game here.
        self._fast = self.writer is not None and self.opponents is None and not dense

    # ------------------------------------------------------------------ the batch

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """New games everywhere; ``seed`` fixes them all (and every game after them)."""
        super().reset(seed=seed)
        n = self.num_envs
        self._states = [None] * n  # type: ignore[list-item]
        self._memories = [[] for _ in range(n)]
        self._bots = [{} for _ in range(n)]
        self._pending.fill(0.0)
        for i in range(n):
            self._new_game(i)
        changes: tuple[list[int], list[float]] = ([], [])
        legal: list[int] = []
        for i in range(n):
            self._observe(i, changes, legal)
        return self._batch(changes, legal), {
            "action_mask": self._masks.copy(),
            "seat": np.asarray(self._learner),
        }

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One action (an index) per game; games that end start again at once."""
        if not self._states:
            raise RuntimeError("call reset() before step()")
        actions = self._checked(actions)
        n, players = self.num_envs, self.players
        rewards, self._pending = self._pending, np.zeros((n, players))
        acting = list(self._learner)
        changes: tuple[list[int], list[float]] = ([], [])
        legal: list[int] = []
        ended: list[int] = []
        if self._fast:
            play_self(
                self.writer,  # type: ignore[arg-type]
                self._states,  # type: ignore[arg-type]
                actions.tolist(),
                self.space.actions,
                self._memories,
                self.space,
                self._learner,
                changes,
                legal,
                ended,
            )
        else:
            for i, index in enumerate(actions.tolist()):
                state = self._states[i]
                state.apply(self.space.actions[index])
                self._pay(i, state, rewards[i])
                if self.opponents is not None and not state.is_over:
                    for action in play_bots(state, self._learner[i], self._bots[i], self.variant):
                        state.apply(action)
                        self._pay(i, state, rewards[i])
                if state.is_over:
                    ended.append(i)
                else:
                    self._observe(i, changes, legal)
        terminated = np.zeros(n, dtype=bool)
        terminated[ended] = True
        info: dict[str, Any] = {}
        if ended:
            final_obs = np.zeros((n, self.encoder.size), dtype=np.float32)
            scores = np.zeros((n, players), dtype=np.int64)
            ranks = np.zeros((n, players), dtype=np.int64)
            for i in ended:
                state = self._states[i]
                if self._fast:
                    self._pay(i, state, rewards[i])
                final_obs[i] = self._final_row(i, state)
                result = state.result()
                scores[i], ranks[i] = result.scores, result.ranks
                self._new_game(i)
                self._observe(i, changes, legal)
            info.update(final_obs=final_obs, _final_obs=terminated.copy())
            info.update(scores=scores, ranks=ranks, _scores=terminated.copy())
            info["_ranks"] = terminated.copy()
        observations = self._batch(changes, legal)
        info.update(action_mask=self._masks.copy(), seat=np.asarray(self._learner))
        info["rewards"] = rewards
        own = rewards[self._rows_index, acting]
        return observations, own, terminated, np.zeros(n, dtype=bool), info

    def _checked(self, actions: Any) -> np.ndarray:
        """The actions as an integer array, each legal in its game (else ``ValueError``
        naming the game, the action and why; nothing is played)."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, one per game")
        if ((actions < 0) | (actions >= len(self.space))).any():
            raise IndexError(f"action indices must be in 0..{len(self.space) - 1}")
        allowed = self._masks[self._rows_index, actions]
        if not allowed.all():
            i = int(np.flatnonzero(allowed == 0)[0])
            index = int(actions[i])
            raise ValueError(
                f"game {i}: action {index} ('{self.space.texts[index]}') is not legal now "
                f"(the mask, infos['action_mask'][{i}], marks the legal ones); nothing was played"
            )
        return actions

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game's returned seat (0/1 int8, one row per game)."""
        return self._masks.copy()

    def action_to_text(self, index: int) -> str:
        return self.space.action_to_text(index)

    def text_to_action(self, text: str) -> int:
        return self.space.text_to_action(text)

    @property
    def states(self) -> list[GameState]:
        """The engine states (for tools and tests, never a policy's input)."""
        return list(self._states)

    def close_extras(self, **kwargs: Any) -> None:
        self._states = []

    # ------------------------------------------------------------------ one game

    def _new_game(self, i: int) -> None:
        """Game ``i`` starts again (its seed and seat drawn from the run's generator); what
        the bots' first moves pay the learner comes with its first step."""
        rng = self.np_random
        game_seed = int(rng.integers(2**63))
        state = self.variant.new_game(self.players, game_seed)
        self._states[i] = state
        self._rows[i].fill(0.0)
        self._potential[i].fill(0.0)
        if self.writer is not None:
            self._memories[i] = [self.writer.memory() for _ in range(self.players)]
        if self.opponents is None:
            return
        seat = int(rng.integers(self.players)) if self.fixed_seat is None else self.fixed_seat
        self._learner[i] = seat
        self._bots[i] = seat_bots(rng, state, game_seed, seat, self.opponents, self._board)
        for action in play_bots(state, seat, self._bots[i], self.variant):
            state.apply(action)
            self._pay(i, state, self._pending[i])

    def _pay(self, i: int, state: GameState, rewards: np.ndarray) -> None:
        """Add each seat's reward of the move just played (terminal, or dense margins)."""
        if state.is_over:
            result = state.result()
            for seat in range(self.players):
                value = self._terminal(result, seat)
                if self.dense:
                    value -= self._potential[i, seat]
                rewards[seat] += value
        elif self.dense:
            points = state.scored_points
            for seat in range(self.players):
                now = margin(points, seat)
                rewards[seat] += now - self._potential[i, seat]
                self._potential[i, seat] = now

    def _observe(self, i: int, changes: tuple[list[int], list[float]], legal: list[int]) -> None:
        """Queue game ``i``'s returned seat's vector changes and legal actions."""
        state = self._states[i]
        seat = self._learner[i] if self.opponents is not None else state.to_move
        assert seat is not None  # a game is reset as soon as it ends
        self._learner[i] = seat
        base = (i * self.players + seat) * self.encoder.size
        if self.writer is not None:
            memory = self._memories[i][seat]
            self.writer.update(state, seat, memory, base, *changes)  # type: ignore[arg-type]
            legal_indices(state, self.space, self.space._by_id, i * len(self.space), legal)  # type: ignore[arg-type]
        else:
            self._rows[i, seat] = self.encoder.encode(state.observation(seat))
            start = i * len(self.space)
            legal.extend(start + k for k in self.space.indices(state.legal_actions()))

    def _final_row(self, i: int, state: GameState) -> np.ndarray:
        """The last observation of game ``i``'s returned seat, as the game ended."""
        seat = self._learner[i]
        if self.writer is None:
            return self.encoder.encode(state.observation(seat))
        idx: list[int] = []
        val: list[float] = []
        base = (i * self.players + seat) * self.encoder.size
        self.writer.update(state, seat, self._memories[i][seat], base, idx, val)  # type: ignore[arg-type]
        if idx:
            self._flat[idx] = val
        return self._rows[i, seat].copy()

    def _batch(self, changes: tuple[list[int], list[float]], legal: list[int]) -> np.ndarray:
        """Write the queued changes and masks (one NumPy call each); the returned rows."""
        idx, val = changes
        if idx:
            self._flat[idx] = val
        self._masks.fill(0)
        self._masks_flat[legal] = 1
        return self._rows[self._rows_index, self._learner]
