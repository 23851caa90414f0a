"""``random``: a uniformly random legal action, seeded."""

import numpy as np

from ghost_euchre_env.cards import pack_bits

from .base import Policy
from .streams import draws


def random_set_bits(bits, rng):
    """int64[N]: the position of a uniformly random set bit of each ``bits[i]`` (unsigned int[N], none 0).

    rng: a numpy Generator or an :class:`ghost_euchre.agents.streams.RowRandom` of N rows (one draw per row).
    Draws k uniform in [0, number of set bits), clears the k lowest set bits
    (whole-batch, as many rounds as the largest k) and returns the lowest one left.
    """
    left = np.array(bits)
    if left.dtype.kind != "u":
        raise ValueError(f"bits must be unsigned integers, got dtype {left.dtype}")
    skip = (rng.random(len(left)) * np.bitwise_count(left)).astype(np.uint8)
    for round_ in range(int(skip.max(initial=0))):
        left &= left - (skip > round_)
    return np.bitwise_count((left & (~left + 1)) - 1).astype(np.int64)


def random_legal_actions(mask, rng):
    """int64[N]: one uniformly random legal action per row of ``mask`` (bool[N, A], A <= 57, no empty row)."""
    return random_set_bits(pack_bits(mask), rng)


class RandomPolicy(Policy):
    """Picks each game's action uniformly among its legal actions (any variant)."""

    name = "random"

    def act(self, obs, mask, keys=None):
        return random_legal_actions(mask, draws(self, keys))
