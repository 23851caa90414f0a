"""classic Euchre's compiled playouts and replays of the network players (:mod:`ghost_euchre.agents.playouts`)."""

import numpy as np
from numba import njit

from ghost_euchre_env.kernels import classic as classic_kernels
from ghost_euchre_env.kernels.skeleton import play_until_deals_end, replay_and_weigh

from ..forward import network_actions
from ..heuristic.classic import VARIANT, classic_actions
from .policies import Playouts, mixed_weights, network_weigh, split_actions

__all__ = ["PLAYOUTS", "VARIANT"]


# fmt: off
@njit(cache=True)
def classic_bid_actions(obs, mask, net, column, heuristic_args, actions):
    """:func:`ghost_bid_actions` for classic Euchre."""
    split_actions(obs, mask, net, column, classic_actions, heuristic_args, actions)


@njit(cache=True)
def classic_mix_weigh(obs, mask, taken, legal, net, floor, weight, heuristic_args, out):
    """:func:`ghost_mix_weigh` for classic Euchre."""
    chosen = np.empty(len(obs), np.int64)
    layout, thresholds = heuristic_args
    classic_actions(obs, mask, layout, thresholds, chosen)
    mixed_weights(obs, mask, taken, legal, net, floor, weight, chosen, out)


@njit(cache=True)
def classic_network_playout(actions, state, settings, policy_args):
    """:func:`ghost_network_playout` for classic Euchre."""
    return play_until_deals_end(actions, state, settings, classic_kernels.step,
        classic_kernels.legal_mask, classic_kernels.observe, network_actions, policy_args)


@njit(cache=True)
def classic_bid_playout(actions, state, settings, policy_args):
    """:func:`ghost_bid_playout` for classic Euchre."""
    return play_until_deals_end(actions, state, settings, classic_kernels.step,
        classic_kernels.legal_mask, classic_kernels.observe, classic_bid_actions, policy_args)


@njit(cache=True)
def classic_network_replay(actions, state, settings, weigh_args):
    """:func:`ghost_network_replay` for classic Euchre."""
    return replay_and_weigh(actions, state, settings, classic_kernels.step,
        classic_kernels.legal_mask, classic_kernels.observe, network_weigh, weigh_args)


@njit(cache=True)
def classic_mix_replay(actions, state, settings, weigh_args):
    """:func:`ghost_mix_replay` for classic Euchre."""
    return replay_and_weigh(actions, state, settings, classic_kernels.step,
        classic_kernels.legal_mask, classic_kernels.observe, classic_mix_weigh, weigh_args)
# fmt: on

PLAYOUTS = Playouts(
    network=classic_network_playout,
    bid=classic_bid_playout,
    network_replay=classic_network_replay,
    mix_replay=classic_mix_replay,
)
