"""The bot examples/rl/train.py trained: its saved model (model.npz, next to this file) played
greedily over the encoded observation, in the game it was trained for (2-player USA).
Submit the folder like any file bot:

    arena submit rl-mlp --file examples/rl/bot
"""

from pathlib import Path

from mlp import MLP

from arena.envs import PolicyBot

MODEL = Path(__file__).with_name("model.npz")


class TrainedMLP(PolicyBot):
    name = "rl-mlp"

    def __init__(self, seed=0):
        super().__init__(seed)
        self.model = MLP.load(MODEL)

    def act(self, observation, mask):
        if observation.shape[0] != self.model.inputs or mask.shape[0] != self.model.actions:
            raise ValueError(
                f"this model reads {self.model.inputs} numbers and {self.model.actions} actions "
                "(2-player USA, as examples/rl/train.py trains it), not "
                f"{observation.shape[0]} and {mask.shape[0]}: train one for this game"
            )
        return self.model.best(observation, mask)
