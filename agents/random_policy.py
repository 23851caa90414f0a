"""``random``: a uniformly random legal action, seeded."""

import numpy as np

from .base import Policy


class RandomPolicy(Policy):
    """Picks each game's action uniformly among its legal actions (any variant)."""

    name = "random"

    def act(self, obs, mask):
        noise = self.rng.random(mask.shape, dtype=np.float32)
        return np.where(mask, noise, -1.0).argmax(axis=1).astype(np.int64)
