"""A small multilayer perceptron in plain numpy: the policy that examples/rl/train.py trains.

logits = W2 · relu(W1 · (x - mean) / scale + b1) + b2, one logit per action of the variant's
action space; illegal actions are masked out before the argmax (or the softmax, in training).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


class MLP:
    def __init__(self, params: dict[str, np.ndarray]) -> None:
        self.params = params

    @classmethod
    def new(cls, inputs: int, hidden: int, actions: int, rng: np.random.Generator) -> MLP:
        return cls(
            {
                "mean": np.zeros(inputs, np.float32),
                "scale": np.ones(inputs, np.float32),
                "W1": (rng.standard_normal((inputs, hidden)) * np.sqrt(2 / inputs)).astype(
                    np.float32
                ),
                "b1": np.zeros(hidden, np.float32),
                "W2": (rng.standard_normal((hidden, actions)) * 0.01).astype(np.float32),
                "b2": np.zeros(actions, np.float32),
            }
        )

    @classmethod
    def load(cls, path: Path) -> MLP:
        with np.load(path) as data:
            return cls({name: data[name] for name in data.files})

    def save(self, path: Path) -> None:
        np.savez_compressed(path, **self.params)

    @property
    def inputs(self) -> int:
        return int(self.params["W1"].shape[0])

    @property
    def actions(self) -> int:
        return int(self.params["W2"].shape[1])

    def hidden(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        return np.maximum(((x - p["mean"]) / p["scale"]) @ p["W1"] + p["b1"], 0.0)

    def logits(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        return self.hidden(x) @ p["W2"] + p["b2"]

    def best(self, x: np.ndarray, mask: np.ndarray) -> int:
        """The legal action with the highest logit."""
        logits = self.logits(x)
        return int(np.argmax(np.where(mask > 0, logits, -np.inf)))
