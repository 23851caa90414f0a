"""``random``: a uniformly random legal action, seeded."""

import numpy as np

from ghost_euchre_env.kernels.skeleton import draw_legal, draw_set_bits

from .base import Policy
from .streams import draws


def random_set_bits(bits, rng):
    """int64[N]: the position of a uniformly random set bit of each ``bits[i]`` (unsigned int[N], none 0).

    rng: a numpy Generator or an :class:`ghost_euchre.agents.streams.RowRandom` of N rows (one draw per row).
    Draws u uniform in [0, 1) per row and takes set bit number floor(u * set bits), counted
    from the lowest (one compiled loop: ``kernels.skeleton.draw_set_bits``); a row of no
    set bit gets the width of the dtype in bits.
    """
    left = np.asarray(bits)
    if left.dtype.kind != "u":
        raise ValueError(f"bits must be unsigned integers, got dtype {left.dtype}")
    return draw_set_bits(
        left.astype(np.uint64, copy=False), rng.random(len(left)), 8 * left.dtype.itemsize
    )


def random_legal_actions(mask, rng):
    """int64[N]: one uniformly random legal action per row of ``mask`` (bool[N, A], A <= 57, no empty row).

    The same draws and actions as ``random_set_bits(pack_bits(mask), rng)``, in one compiled loop.
    """
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim != 2 or mask.shape[1] > 57:
        raise ValueError(f"mask must be bool[N, A] with A <= 57, got shape {mask.shape}")
    return draw_legal(mask, rng.random(len(mask)))


class RandomPolicy(Policy):
    """Picks each game's action uniformly among its legal actions (any variant)."""

    name = "random"

    def act(self, obs, mask, keys=None):
        return random_legal_actions(mask, draws(self, keys))
