"""``random``: a uniformly random legal action, seeded."""

import numpy as np

from .base import Policy


def random_legal_actions(mask, rng):
    """int64[N]: one uniformly random legal action per row of ``mask`` (bool[N, A], no empty row).

    Draws one float per game and takes its k-th legal action, counting along the
    A actions with whole-batch rows (cheaper than a number per action, or a
    cumulative sum along the short axis).
    """
    legal = np.ascontiguousarray(mask.T)  # [A, N]
    k = (rng.random(len(mask)) * legal.sum(axis=0)).astype(np.int16)
    seen = np.zeros(len(mask), np.int16)
    action = np.zeros(len(mask), np.int64)
    for row in legal:
        seen += row
        action += seen <= k
    return action


class RandomPolicy(Policy):
    """Picks each game's action uniformly among its legal actions (any variant)."""

    name = "random"

    def act(self, obs, mask):
        return random_legal_actions(mask, self.rng)
