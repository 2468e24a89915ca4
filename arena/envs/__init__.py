"""Reinforcement-learning environments over the engine (the ``rl`` extra: ``make rl`` in a
clone, else ``pip install 'ttr-arena[rl]'``).

    env = arena.envs.aec("usa", players=4, seed=7)        # PettingZoo AEC, every seat an agent
    env = arena.envs.gym("usa", opponents=["random"])      # Gymnasium, bots on the other seats
    env = arena.envs.parallel("usa", players=2)            # PettingZoo parallel, self-play
    envs = arena.envs.vector("usa", num_envs=64)           # 64 games stepped together
    env = gymnasium.make("arena.envs:ttr-arena/TicketToRide-v0", variant="europe")  # the same
    Bot = arena.envs.policy_bot(fn)                        # a trained policy as an arena bot

The action space (``ActionSpace``) and the observation vector (``ObservationEncoder``) are
documented field by field in docs/ENVS.md.
"""

from __future__ import annotations

from typing import Any

from arena.extras import install_advice

try:
    import gymnasium
    import numpy  # noqa: F401
    import pettingzoo  # type: ignore[import-untyped]  # noqa: F401
except ImportError as missing:  # pragma: no cover - depends on the install
    raise ImportError(
        f"arena.envs needs the rl extra ({missing.name} is not installed): {install_advice('rl')}"
    ) from None

from arena.envs.actions import ActionSpace
from arena.envs.aec import TicketToRideEnv, action_space_of
from arena.envs.encoding import Field, ObservationEncoder
from arena.envs.gym import TicketToRideGym
from arena.envs.parallel import TicketToRideParallelEnv
from arena.envs.policy import Policy, PolicyBot, policy_bot
from arena.envs.rewards import SCHEMES
from arena.envs.vector import TicketToRideVectorEnv


def aec(
    variant: str = "usa", players: int = 2, seed: int | None = None, **options: Any
) -> TicketToRideEnv:
    """A PettingZoo AEC environment (call ``reset()`` before playing; ``seed`` fixes the first
    game). Options: ``reward`` ('score', 'rank', 'win'), ``dense``, ``render_mode``."""
    return TicketToRideEnv(variant, players, seed=seed, **options)


def gym(variant: str = "usa", opponents: Any = ("random",), **options: Any) -> TicketToRideGym:
    """A Gymnasium environment: the learner's seat against ``opponents`` (bot names or Bots).
    Options: ``seat`` (None: random per game), ``reward``, ``dense``, ``illegal`` (a penalty,
    default -1, or 'raise'), ``max_steps`` (truncation), ``render_mode``."""
    return TicketToRideGym(variant, opponents, **options)


def parallel(
    variant: str = "usa", players: int = 2, seed: int | None = None, **options: Any
) -> TicketToRideParallelEnv:
    """A PettingZoo parallel environment for self-play (only the mover's action is played).
    Options as for ``aec``."""
    return TicketToRideParallelEnv(variant, players, seed=seed, **options)


def vector(variant: str = "usa", num_envs: int = 64, **options: Any) -> TicketToRideVectorEnv:
    """A Gymnasium ``VectorEnv``: ``num_envs`` games stepped together in this process,
    reset as soon as they end. Options: ``players`` (self-play, the default) or
    ``opponents`` (bots on the other seats) with ``seat``; ``reward``, ``dense``."""
    return TicketToRideVectorEnv(variant, num_envs, **options)


# gymnasium.make(GYM_ID) once arena.envs is imported; gymnasium.make(f"arena.envs:{GYM_ID}")
# imports it first. Keyword arguments are TicketToRideGym's (variant, opponents, seat, ...).
GYM_ID = "ttr-arena/TicketToRide-v0"
if GYM_ID not in gymnasium.registry:
    gymnasium.register(GYM_ID, entry_point="arena.envs.gym:TicketToRideGym")

__all__ = [
    "GYM_ID",
    "SCHEMES",
    "ActionSpace",
    "Field",
    "ObservationEncoder",
    "Policy",
    "PolicyBot",
    "TicketToRideEnv",
    "TicketToRideGym",
    "TicketToRideParallelEnv",
    "TicketToRideVectorEnv",
    "action_space_of",
    "aec",
    "gym",
    "parallel",
    "policy_bot",
    "vector",
]
