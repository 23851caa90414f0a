"""``random``: a uniformly random legal action, seeded."""

import numpy as np

from .base import Policy


def random_legal_actions(mask, rng):
    """int64[N]: one uniformly random legal action per row of ``mask`` (bool[N, A], no empty row).

    Draws one float per game and takes its k-th legal action, counting along the
    A actions with whole-batch rows (cheaper than a number per action, or a
    cumulative sum along the short axis).
    """
    legal = np.ascontiguousarray(mask.T).view(np.uint8)  # [A, N]; at most 255 actions
    k = (rng.random(len(mask)) * legal.sum(axis=0, dtype=np.uint8)).astype(np.uint8)
    seen = np.zeros(len(mask), np.uint8)
    passed = np.empty(len(mask), bool)
    action = np.zeros(len(mask), np.uint8)
    for row in legal:  # in place: a loop over actions, each step over the whole batch
        np.add(seen, row, out=seen)
        np.less_equal(seen, k, out=passed)
        np.add(action, passed, out=action)
    return action.astype(np.int64)


class RandomPolicy(Policy):
    """Picks each game's action uniformly among its legal actions (any variant)."""

    name = "random"

    def act(self, obs, mask):
        return random_legal_actions(mask, self.rng)
