"""From a trained policy to a bot: ``policy_bot(fn)``, or a ``PolicyBot`` subclass loading a model.

The bot sees what every bot sees (its typed observation and the legal actions), encodes the
observation with the same ``ObservationEncoder`` the environments use and masks the same
``ActionSpace``, so a policy trained in ``arena.envs`` plays unchanged over the protocol, in the
sandbox, in tournaments. ``act`` must return the index of a legal action; a policy that
returns anything else is a bug the bot reports in one line (and the referee forfeits the seat).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from arena.engine import Action, Observation
from arena.envs.actions import ActionSpace
from arena.envs.aec import action_space_of
from arena.envs.encoding import ObservationEncoder
from arena.variants import get_variant
from bots.sdk import Bot

Policy = Callable[[np.ndarray, np.ndarray], int]
"""``policy(observation_vector, action_mask) -> action index`` (a legal one)."""


class PolicyBot(Bot):
    """A bot playing a policy over the encoded observation; subclasses implement ``act``."""

    name = "policy"

    def __init__(self, seed: int | str = 0) -> None:
        super().__init__(seed)
        self._encoders: dict[tuple[str, int], ObservationEncoder] = {}
        self._spaces: dict[str, ActionSpace] = {}

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The index of the action to play; ``mask`` is 1 at the legal ones."""
        raise NotImplementedError

    def on_game_start(self, observation: Observation) -> None:
        self._encoder(observation).reset()

    def _encoder(self, observation: Observation) -> ObservationEncoder:
        key = (observation.variant, observation.players)
        encoder = self._encoders.get(key)
        if encoder is None:
            encoder = ObservationEncoder(get_variant(observation.variant), observation.players)
            self._encoders[key] = encoder
        return encoder

    def space(self, observation: Observation) -> ActionSpace:
        """The action space of the observation's variant (built once per process)."""
        space = self._spaces.get(observation.variant)
        if space is None:
            space = self._spaces[observation.variant] = action_space_of(
                get_variant(observation.variant)
            )
        return space

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        space = self.space(observation)
        vector = self._encoder(observation).encode(observation)
        mask = np.zeros(len(space), dtype=np.int8)
        indices = space.indices(legal_actions)
        mask[indices] = 1
        index = self.act(vector, mask)
        if not isinstance(index, int | np.integer) or not 0 <= index < len(space):
            raise ValueError(f"the policy returned {index!r}, not an action index")
        if not mask[index]:
            raise ValueError(
                f"the policy chose action {int(index)} ('{space.action_to_text(int(index))}'), "
                "which the mask marks illegal"
            )
        return space.actions[int(index)]


def policy_bot(policy: Policy, name: str = "policy") -> type[PolicyBot]:
    """A bot class (its constructor takes the seed) playing ``policy``; a file bot can say
    ``make_bot = policy_bot(fn)`` and be submitted with ``arena submit NAME --file``."""
    if not callable(policy):
        raise TypeError(f"policy_bot needs a function (vector, mask) -> index, not {policy!r}")

    def act(self: PolicyBot, observation: np.ndarray, mask: np.ndarray) -> int:
        return policy(observation, mask)

    return type(f"PolicyBot_{name}", (PolicyBot,), {"name": name, "act": act})
