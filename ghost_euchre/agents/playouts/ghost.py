"""Ghost Hand's compiled playouts and replays of the network players (:mod:`ghost_euchre.agents.playouts`)."""

import numpy as np
from numba import njit

from ghost_euchre_env.kernels import ghost as ghost_kernels
from ghost_euchre_env.kernels.skeleton import play_until_deals_end, replay_and_weigh

from ..forward import network_actions
from ..heuristic.ghost import VARIANT, ghost_actions
from .policies import Playouts, mixed_weights, network_weigh, split_actions

__all__ = ["PLAYOUTS", "VARIANT"]


# fmt: off
@njit(cache=True)
def ghost_bid_actions(obs, mask, net, column, heuristic_args, actions):
    """The Ghost Hand composite's policy kernel: :func:`split_actions` with the heuristic's cards."""
    split_actions(obs, mask, net, column, ghost_actions, heuristic_args, actions)


@njit(cache=True)
def ghost_mix_weigh(obs, mask, taken, legal, net, floor, weight, heuristic_args, out):
    """The network's probability mixed with the Ghost Hand heuristic's one-hot (``weight``: the
    network's share)."""
    chosen = np.empty(len(obs), np.int64)
    layout, thresholds, renege = heuristic_args
    ghost_actions(obs, mask, layout, thresholds, renege, chosen)
    mixed_weights(obs, mask, taken, legal, net, floor, weight, chosen, out)


@njit(cache=True)
def ghost_network_playout(actions, state, settings, policy_args):
    """Ghost Hand games played by a network (:func:`network_actions`) until some deal ends, in one
    call (the engine's ``play_until_deal_ends`` passes the arguments)."""
    return play_until_deals_end(actions, state, settings, ghost_kernels.step,
        ghost_kernels.legal_mask, ghost_kernels.observe, network_actions, policy_args)


@njit(cache=True)
def ghost_bid_playout(actions, state, settings, policy_args):
    """Ghost Hand games played by a network's auction and the heuristic's cards
    (:func:`ghost_bid_actions`) until some deal ends, in one call."""
    return play_until_deals_end(actions, state, settings, ghost_kernels.step,
        ghost_kernels.legal_mask, ghost_kernels.observe, ghost_bid_actions, policy_args)


@njit(cache=True)
def ghost_network_replay(actions, state, settings, weigh_args):
    """Ghost Hand games replayed and weighed by a network (:func:`network_weigh`) in one call."""
    return replay_and_weigh(actions, state, settings, ghost_kernels.step,
        ghost_kernels.legal_mask, ghost_kernels.observe, network_weigh, weigh_args)


@njit(cache=True)
def ghost_mix_replay(actions, state, settings, weigh_args):
    """Ghost Hand games replayed and weighed by the network mixed with the heuristic
    (:func:`ghost_mix_weigh`) in one call."""
    return replay_and_weigh(actions, state, settings, ghost_kernels.step,
        ghost_kernels.legal_mask, ghost_kernels.observe, ghost_mix_weigh, weigh_args)
# fmt: on

PLAYOUTS = Playouts(
    network=ghost_network_playout,
    bid=ghost_bid_playout,
    network_replay=ghost_network_replay,
    mix_replay=ghost_mix_replay,
)
