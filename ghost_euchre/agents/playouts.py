"""Compiled playouts and replays of the network players: the engine's own loops, one call each.

``pimc`` and ``search`` play every world of a decision to the deal's end with a
playout policy. When that policy has a compiled playout here (or the heuristic's,
:mod:`ghost_euchre.agents.heuristic`), the engine plays all the worlds until a deal
ends in one kernel call (``BatchedGame.play_until_deal_ends``), never returning to
Python:

- a greedy network of the built-in MLP (``ppo:...``): :func:`network_playout`, the
  kernel :func:`ghost_euchre.agents.forward.network_actions` at every decision;
- a greedy network's auction over the heuristic's card play
  (``composite[ppo:ghost | heuristic]``, ``search``'s default playouts):
  :func:`bid_playout`; a decision is the heuristic's when its observation's phase
  is the play (as :meth:`ghost_euchre.agents.composite.CompositePolicy.act` splits them).

``search``'s inference replays each candidate world through the deal's actions,
weighing every action of another seat by a model of that seat
(:mod:`ghost_euchre.agents.inference`). With a compiled model the replay is one kernel
call (``BatchedGame.replay_and_weigh``): the heuristic's (its ``replay``), a greedy
network's softmax probabilities (:func:`network_replay`, ``infer=network``), or their
mix (:func:`mix_replay`, ``infer=mix``).

Each kernel is one variant's and one policy's, written out (not a kernel passed as
an argument), so Numba loads it from its cache instead of compiling it in every process.
"""

import numpy as np
from numba import njit

from ghost_euchre_env.kernels import classic as classic_kernels
from ghost_euchre_env.kernels import ghost as ghost_kernels
from ghost_euchre_env.kernels.skeleton import play_until_deals_end, replay_and_weigh

from .forward import Forward, network_actions, network_logits
from .heuristic import HEURISTICS, classic_actions, ghost_actions


def network_playout(policy):
    """(playout kernel, its policy arguments) of a greedy network policy of the built-in MLP
    (``PPOPolicy``), for the engine's ``play_until_deal_ends``; None for any other."""
    if getattr(policy, "sample", True) or not isinstance(getattr(policy, "network", None), Forward):
        return None
    kernel = {"ghost": ghost_network_playout, "classic": classic_network_playout}
    return kernel[policy.variant.name], policy.network.kernel_args()


def bid_playout(auction, play):
    """(playout kernel, its policy arguments) of the composite of a greedy network's auction
    (:func:`network_playout`'s kind) and the heuristic's card play; None for other parts."""
    variant = auction.variant
    if network_playout(auction) is None or type(play) is not HEURISTICS[variant.name]:
        return None
    kernel = {"ghost": ghost_bid_playout, "classic": classic_bid_playout}[variant.name]
    return kernel, (*auction.network.kernel_args(), play_column(variant), play.kernel_args())


def network_replay(policy, floor):
    """(replay kernel, its arguments) of a network policy as a model of the other seats (its
    softmax probability of each action, with likelihood floor ``floor``), for the engine's
    ``replay_and_weigh``; None unless :func:`network_playout` compiles it."""
    if network_playout(policy) is None:
        return None
    kernel = {"ghost": ghost_network_replay, "classic": classic_network_replay}
    return kernel[policy.variant.name], (*policy.network.kernel_args(), float(floor))


def mix_replay(network, heuristic, weight, floor):
    """(replay kernel, its arguments) of ``weight`` times a network's probabilities plus ``1 -
    weight`` times the heuristic's (1 on its action), for the engine's ``replay_and_weigh``;
    None unless the network is compiled (:func:`network_playout`) and ``heuristic`` the variant's."""
    if network_playout(network) is None or type(heuristic) is not HEURISTICS[network.variant.name]:
        return None
    kernel = {"ghost": ghost_mix_replay, "classic": classic_mix_replay}[network.variant.name]
    net = network.network.kernel_args()[0]
    return kernel, (net, float(floor), float(weight), heuristic.kernel_args())


def play_column(variant):
    """The observation column (int) that is 1 when the decision is a card play (the phase field's
    "play" column)."""
    return variant.view_type.fields["phase"].start + variant.phases.index("play")


@njit(cache=True, inline="always")
def _split_actions(obs, mask, net, column, cards, cards_args, actions):
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


@njit(cache=True)
def ghost_bid_actions(obs, mask, net, column, heuristic_args, actions):
    """The Ghost Hand composite's policy kernel: :func:`_split_actions` with the heuristic's cards."""
    _split_actions(obs, mask, net, column, ghost_actions, heuristic_args, actions)


@njit(cache=True)
def classic_bid_actions(obs, mask, net, column, heuristic_args, actions):
    """:func:`ghost_bid_actions` for classic Euchre."""
    _split_actions(obs, mask, net, column, classic_actions, heuristic_args, actions)


@njit(cache=True, inline="always")
def _mixed_weights(obs, mask, taken, legal, net, floor, weight, chosen, out):
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
    _mixed_weights(obs, mask, taken, legal, net, floor, 1.0, np.full(len(obs), -1), out)


@njit(cache=True)
def ghost_mix_weigh(obs, mask, taken, legal, net, floor, weight, heuristic_args, out):
    """The network's probability mixed with the Ghost Hand heuristic's one-hot (``weight``: the
    network's share)."""
    chosen = np.empty(len(obs), np.int64)
    layout, thresholds, renege = heuristic_args
    ghost_actions(obs, mask, layout, thresholds, renege, chosen)
    _mixed_weights(obs, mask, taken, legal, net, floor, weight, chosen, out)


@njit(cache=True)
def classic_mix_weigh(obs, mask, taken, legal, net, floor, weight, heuristic_args, out):
    """:func:`ghost_mix_weigh` for classic Euchre."""
    chosen = np.empty(len(obs), np.int64)
    layout, thresholds = heuristic_args
    classic_actions(obs, mask, layout, thresholds, chosen)
    _mixed_weights(obs, mask, taken, legal, net, floor, weight, chosen, out)


# fmt: off
@njit(cache=True)
def ghost_network_playout(actions, state, settings, policy_args):
    """Ghost Hand games played by a network (:func:`network_actions`) until some deal ends, in one
    call (the engine's ``play_until_deal_ends`` passes the arguments)."""
    return play_until_deals_end(actions, state, settings, ghost_kernels.step,
        ghost_kernels.legal_mask, ghost_kernels.observe, network_actions, policy_args)


@njit(cache=True)
def classic_network_playout(actions, state, settings, policy_args):
    """:func:`ghost_network_playout` for classic Euchre."""
    return play_until_deals_end(actions, state, settings, classic_kernels.step,
        classic_kernels.legal_mask, classic_kernels.observe, network_actions, policy_args)


@njit(cache=True)
def ghost_bid_playout(actions, state, settings, policy_args):
    """Ghost Hand games played by a network's auction and the heuristic's cards
    (:func:`ghost_bid_actions`) until some deal ends, in one call."""
    return play_until_deals_end(actions, state, settings, ghost_kernels.step,
        ghost_kernels.legal_mask, ghost_kernels.observe, ghost_bid_actions, policy_args)


@njit(cache=True)
def classic_bid_playout(actions, state, settings, policy_args):
    """:func:`ghost_bid_playout` for classic Euchre."""
    return play_until_deals_end(actions, state, settings, classic_kernels.step,
        classic_kernels.legal_mask, classic_kernels.observe, classic_bid_actions, policy_args)


@njit(cache=True)
def ghost_network_replay(actions, state, settings, weigh_args):
    """Ghost Hand games replayed and weighed by a network (:func:`network_weigh`) in one call."""
    return replay_and_weigh(actions, state, settings, ghost_kernels.step,
        ghost_kernels.legal_mask, ghost_kernels.observe, network_weigh, weigh_args)


@njit(cache=True)
def classic_network_replay(actions, state, settings, weigh_args):
    """:func:`ghost_network_replay` for classic Euchre."""
    return replay_and_weigh(actions, state, settings, classic_kernels.step,
        classic_kernels.legal_mask, classic_kernels.observe, network_weigh, weigh_args)


@njit(cache=True)
def ghost_mix_replay(actions, state, settings, weigh_args):
    """Ghost Hand games replayed and weighed by the network mixed with the heuristic
    (:func:`ghost_mix_weigh`) in one call."""
    return replay_and_weigh(actions, state, settings, ghost_kernels.step,
        ghost_kernels.legal_mask, ghost_kernels.observe, ghost_mix_weigh, weigh_args)


@njit(cache=True)
def classic_mix_replay(actions, state, settings, weigh_args):
    """:func:`ghost_mix_replay` for classic Euchre."""
    return replay_and_weigh(actions, state, settings, classic_kernels.step,
        classic_kernels.legal_mask, classic_kernels.observe, classic_mix_weigh, weigh_args)
# fmt: on
