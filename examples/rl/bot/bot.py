"""The bot examples/rl/train.py trained: its saved model (model.npz, next to this file) played
greedily over the encoded observation. Submit the folder like any file bot:

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
        return self.model.best(observation, mask)
