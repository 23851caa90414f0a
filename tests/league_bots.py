"""A bot of adjustable strength for league tests: the heuristic, with a share of random moves."""

import numpy as np

from ghost_euchre.agents.base import Policy
from ghost_euchre.agents.heuristic import heuristic_policy
from ghost_euchre.agents.random_policy import random_legal_actions
from ghost_euchre.agents.streams import draws


class Blend(Policy):
    """Plays the heuristic's move, or with probability ``random_share`` a random legal one."""

    name = "blend"

    def __init__(self, game, seed=None, random_share=0.5):
        super().__init__(game, seed)
        self.heuristic = heuristic_policy(game, seed)
        self.random_share = float(random_share)

    def act(self, obs, mask, keys=None):
        """keys: the match's decision keys: draws per game (ghost_euchre.agents.streams), else from self.rng."""
        rng = draws(self, keys)
        chosen = np.asarray(self.heuristic.act(obs, mask), np.int64)
        noisy = rng.random(len(obs)) < self.random_share
        chosen[noisy] = random_legal_actions(mask, rng)[noisy]
        return chosen
