"""Checked mode (``GHOST_EUCHRE_CHECKED=1``, on in the tests): a compiled playout refuses a
policy kernel's illegal action with a ValueError, as the doors refuse one, instead of stepping it."""

import numpy as np
import pytest
from numba import njit

from ghost_euchre_env import GhostEuchre, core
from ghost_euchre_env.kernels import ghost as ghost_kernels
from ghost_euchre_env.kernels.skeleton import play_until_deals_end


@njit
def lowest_illegal(obs, mask, out):
    """A policy kernel that chooses each game's lowest illegal action."""
    for i in range(len(out)):
        out[i] = np.flatnonzero(~mask[i])[0]


@njit
def illegal_playout(actions, state, settings, policy_args):
    """Ghost Hand games played by :func:`lowest_illegal` (a playout kernel, as the bots' are)."""
    return play_until_deals_end(actions, state, settings, ghost_kernels.step,
        ghost_kernels.legal_mask, ghost_kernels.observe, lowest_illegal, policy_args)  # fmt: skip


def test_the_tests_run_in_checked_mode():
    assert core.CHECKED and GhostEuchre().settings[0].checked


def test_a_playout_refuses_a_policy_kernels_illegal_action():
    game = GhostEuchre()
    state = game.init(np.array([3, 4], np.uint64))
    first = game.legal_mask(state).argmax(axis=1)
    with pytest.raises(
        ValueError,
        match=r"game [01]: the playout's policy chose action \d+, which is not legal; legal actions are \[\d",
    ):
        game.play_until_deal_ends(state, first, illegal_playout, ())
