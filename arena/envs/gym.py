"""The Gymnasium single-agent environment: one seat learns, bots play the other seats.

The opponents are bots run in this process, called exactly as the referee calls a trusted
in-process bot (``start_game`` with a keyed seed and the printed board, then ``choose``):
installed bot plugins by name (``"random"``, ``"planner"``, ...), bots registered with
``arena submit`` (``"my-bot"``, ``"my-bot@2"``, from the store in ``data_dir``; a file bot's
stored code is loaded into this process, outside the sandbox), or ``Bot`` instances.

Observations are the encoded vector; the legal actions are ``info["action_mask"]`` and
``env.action_masks()`` (the method sb3-contrib's ``MaskablePPO`` calls). An illegal action
is not played: by default it costs a penalty of -1 and the learner moves again
(``illegal="raise"`` raises instead), so algorithms that ignore masks still run; so that
such a learner cannot loop for ever, an episode is truncated after ``max_steps`` steps
(illegal tries included; ``None``: never), far beyond any real game's decisions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from arena.engine import Action
from arena.envs.aec import TicketToRideEnv
from arena.referee.keys import MatchKey
from arena.tournament.lookup import registered_bot
from bots import get_bot
from bots.filebot import load_factory
from bots.sdk import Bot

MAX_STEPS = 5000  # a learner's steps in one episode; a whole 5-player game takes far fewer


class TicketToRideGym(gymnasium.Env[np.ndarray, int]):
    """A Gymnasium environment: the learner holds ``seat`` (None: a random seat per game)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"]}  # noqa: RUF012 - as gymnasium declares it

    def __init__(
        self,
        variant: str = "usa",
        opponents: Sequence[str | Bot] = ("random",),
        seat: int | None = 0,
        reward: str = "score",
        dense: bool = False,
        illegal: str | float = -1.0,
        render_mode: str | None = None,
        data_dir: str | Path = "arena-data",
        max_steps: int | None = MAX_STEPS,
    ) -> None:
        if isinstance(opponents, str | Bot):
            opponents = [opponents]
        players = len(opponents) + 1
        self.game = TicketToRideEnv(
            variant,
            players,
            reward=reward,
            dense=dense,
            render_mode="ansi" if render_mode else None,
        )
        if seat is not None and (not isinstance(seat, int) or not 0 <= seat < players):
            raise ValueError(f"seat must be an integer in 0..{players - 1} or None, not {seat!r}")
        if illegal != "raise" and not isinstance(illegal, int | float):
            raise ValueError(f"illegal must be 'raise' or a penalty (a number), not {illegal!r}")
        self.illegal = illegal
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"max_steps must be a positive integer or None, not {max_steps!r}")
        self.max_steps = max_steps
        self.steps = 0
        self.render_mode = render_mode
        self.fixed_seat = seat
        self.opponents = [opponent(o, self.game.variant.name, Path(data_dir)) for o in opponents]
        self.observation_space = self.game.vector_space
        self.action_space = self.game.action_space("player_0")
        self.seat = 0 if seat is None else seat
        self._bots: dict[int, Bot] = {}
        self._board = self.game.variant.board.public_json()

    def action_to_text(self, index: int) -> str:
        return self.game.action_to_text(index)

    def text_to_action(self, text: str) -> int:
        return self.game.text_to_action(text)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (0/1 int8), for maskable algorithms."""
        return self.game.action_mask(self.game.possible_agents[self.seat])

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**63))
        players = self.game.players
        self.seat = (
            int(self.np_random.integers(players)) if self.fixed_seat is None else self.fixed_seat
        )
        self.game.reset(seed=game_seed)
        self.steps = 0
        self._bots = seat_bots(
            self.np_random, self.game._live(), game_seed, self.seat, self.opponents, self._board
        )
        reward = self._play_opponents()
        self._pending = reward
        return self._observe()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.game.state is None or self.game.state.is_over:
            raise RuntimeError("the game is over: call reset() to start a new one")
        agent = self.game.possible_agents[self.seat]
        self.steps += 1
        truncated = self.max_steps is not None and self.steps >= self.max_steps
        if self.illegal != "raise" and not self.action_masks()[int(action)]:
            observation, info = self._observe()  # not played: the learner tries again
            return observation, float(self.illegal), False, truncated, {**info, "illegal": True}
        self.game.step(action)
        reward = self._pending + self.game.rewards[agent] + self._play_opponents()
        self._pending = 0.0
        observation, info = self._observe()
        over = self.game.state.is_over
        return observation, float(reward), over, truncated and not over, info

    def _play_opponents(self) -> float:
        """Let the bots move until the learner must decide; its rewards meanwhile."""
        game, agent = self.game, self.game.possible_agents[self.seat]
        state = game._live()
        reward = 0.0
        for action in play_bots(state, self.seat, self._bots, game.variant):
            game.step(game.space.index(action))
            reward += game.rewards[agent]
        return reward

    def _observe(self) -> tuple[np.ndarray, dict[str, Any]]:
        observed = self.game.observe(self.game.possible_agents[self.seat])
        info: dict[str, Any] = {"action_mask": observed["action_mask"], "seat": self.seat}
        info.update(self.game.infos[self.game.possible_agents[self.seat]])
        return observed["observation"], info

    def render(self) -> str | None:
        return self.game.render() if self.render_mode else None

    def close(self) -> None:
        self.game.close()


def seat_bots(
    rng: np.random.Generator,
    state: Any,
    game_seed: int,
    learner: int,
    opponents: Sequence[tuple[str, Any]],
    board: Any,
) -> dict[int, Bot]:
    """The opponents' bots of a new game, seated around ``learner`` and started as the
    referee starts them: their seeds are keyed (``MatchKey``), so that none can rebuild the
    deal."""
    others = [s for s in range(state.num_players) if s != learner]
    key = MatchKey(rng.bytes(32))
    game_id = key.game_id(game_seed, 0)
    bots: dict[int, Bot] = {}
    for seat, (name, make) in zip(others, opponents, strict=True):
        bot_seed = key.bot_seed(game_seed, seat, game_id)
        bot = make(bot_seed) if name else make
        bot.start_game(bot_seed, state.observation(seat), board)
        bots[seat] = bot
    return bots


def play_bots(state: Any, learner: int, bots: dict[int, Bot], variant: Any) -> Iterator[Action]:
    """Let the bots move until ``learner`` must decide (or the game ends), yielding each
    engine action they choose, for the caller to play."""
    while not state.is_over and state.to_move != learner:
        seat = state.to_move
        choice: Action | str = bots[seat].choose(state.observation(seat), state.legal_actions())
        yield variant.parse_action(choice) if isinstance(choice, str) else choice


def opponent(opponent: str | Bot, variant: str, data_dir: Path) -> tuple[str, Any]:
    """(name, factory) for an installed or registered bot's name, ("", instance) for a Bot."""
    if isinstance(opponent, Bot):
        return "", opponent
    if not isinstance(opponent, str):
        raise TypeError(f"an opponent is a bot's name or a Bot, not {opponent!r}")
    record = registered_bot(opponent, data_dir)
    if record is not None:
        return opponent, _registered(record, Path(data_dir), variant)
    spec = get_bot(opponent)  # KeyError lists the installed bots
    if not spec.supports(variant):
        raise ValueError(f"bot '{opponent}' does not play {variant}")
    return opponent, spec.factory


def _registered(record: dict[str, Any], data_dir: Path, variant: str) -> Any:
    """The factory of a bot registered with ``arena submit``, loaded into this process."""
    label = f"{record['name']}@{record['version']}"
    if variant not in record["variants"]:
        raise ValueError(f"bot '{label}' was validated for {', '.join(record['variants'])}")
    if record["kind"] == "plugin":
        return get_bot(record["target"]).factory
    if record["kind"] == "file":
        return load_factory((Path(data_dir) / record["target"]).resolve())
    raise ValueError(
        f"bot '{label}' is a command line: it plays only as a process (arena play, tournaments)"
    )
