"""``random``: a uniformly random legal action, seeded."""

import numpy as np

from .base import Policy


def random_legal_actions(mask, rng):
    """int64[N]: one uniformly random legal action per row of ``mask`` (bool[N, A], no empty row).

    Draws one float per game and picks the k-th legal action (cumulative count),
    which is cheaper than drawing one number per action.
    """
    counts = mask.cumsum(axis=1, dtype=np.int16)
    k = (rng.random(len(mask)) * counts[:, -1]).astype(np.int16)
    return (counts > k[:, None]).argmax(axis=1).astype(np.int64)


class RandomPolicy(Policy):
    """Picks each game's action uniformly among its legal actions (any variant)."""

    name = "random"

    def act(self, obs, mask):
        return random_legal_actions(mask, self.rng)
