"""The policy kernels that every variant's playouts share: a network's auction split from another
kernel's card play, and a network (or its mix with another model) weighing the actions of a replay."""

import typing

import numpy as np
from numba import njit

from ..forward import network_actions, network_logits


class Playouts(typing.NamedTuple):
    """One variant's compiled loops of the network players (:mod:`ghost_euchre.agents.playouts`).

    network: a greedy network's playout; bid: its auction over the heuristic's cards;
    network_replay: a network weighing a replay; mix_replay: the network mixed with the heuristic.
    """

    network: typing.Any
    bid: typing.Any
    network_replay: typing.Any
    mix_replay: typing.Any


@njit(cache=True, inline="always")
def split_actions(obs, mask, net, column, cards, cards_args, actions):
    """actions int64[N] = the network's (``net``) action of each row before the cards, ``cards``'
    (a policy kernel, called with ``cards_args``) of each row whose ``obs[:, column]`` is set."""
    playing = np.empty(len(obs), np.int64)
    bidding = np.empty(len(obs), np.int64)
    played, bid = 0, 0
    for g in range(len(obs)):
        if obs[g, column] > 0.5:
            playing[played] = g
            played += 1
        else:
            bidding[bid] = g
            bid += 1
    for rows, count, is_play in ((playing, played, True), (bidding, bid, False)):
        if count == len(obs):
            if is_play:
                cards(obs, mask, *cards_args, actions)
            else:
                network_actions(obs, mask, net, actions)
        elif count:
            part = rows[:count]
            chosen = np.empty(count, np.int64)
            if is_play:
                cards(obs[part], mask[part], *cards_args, chosen)
            else:
                network_actions(obs[part], mask[part], net, chosen)
            for i in range(count):
                actions[part[i]] = chosen[i]


@njit(cache=True, inline="always")
def mixed_weights(obs, mask, taken, legal, net, floor, weight, chosen, out):
    """out[i] = log((1 - floor) * p + floor / legal[i]), p the probability of ``taken[i]``:
    ``weight`` times the network's softmax over the legal logits (float64) plus ``1 - weight``
    if ``chosen[i]`` (another model's action) is ``taken[i]``."""
    logits = np.empty(mask.shape, np.float32)
    network_logits(obs, net, logits)
    for i in range(len(obs)):
        top = -np.inf
        for a in range(mask.shape[1]):
            if mask[i, a]:
                top = max(top, np.float64(logits[i, a]))
        total = 0.0
        for a in range(mask.shape[1]):
            if mask[i, a]:
                total += np.exp(np.float64(logits[i, a]) - top)
        p = weight * (np.exp(np.float64(logits[i, taken[i]]) - top) / total)
        if chosen[i] == taken[i]:
            p += 1 - weight
        out[i] = np.log((1 - floor) * p + floor / legal[i])


@njit(cache=True)
def network_weigh(obs, mask, taken, legal, net, floor, out):
    """A network as a model of a seat (a replay's ``weigh`` kernel): its softmax probability."""
    mixed_weights(obs, mask, taken, legal, net, floor, 1.0, np.full(len(obs), -1), out)
