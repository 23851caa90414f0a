"""Worlds weighted by what the other seats did: policy-based inference for the search bot.

A world sampled by :mod:`ghost_euchre.agents.worlds` fits the cards seen and the voids
shown, but not the bidding: in a uniform world the seat that bid five may hold
no trump. Here every world is replayed from its deal's start
(:func:`ghost_euchre.agents.worlds.deal_start_states`) through the actions taken so far
(:func:`deal_actions`, read from the observation: the auction, the naming of
trump, classic's alone choices and discard, the cards in the order they fell),
and at every decision of another seat a model of that seat (a policy) says how
likely the action taken was there. A world's log-likelihood is the sum over those
decisions of ``log((1 - floor) * p + floor / legal)``: the floor keeps a world
whose seats played off the model alive (a seat is not the model), ``legal`` the
number of legal actions. :func:`resample` then draws worlds in proportion to
their likelihood.

Models: a network (``ppo:...``, its action probabilities), any other policy
(one-hot on the action it would take: the heuristic), or a mix of the two
(:class:`MixedModel`). Forced moves and the observer's own actions are not
weighed. Ghost Hand's actions are read in the order of the single-round
auction; the open auction (whose order is not in the observation) is refused.
"""

import numpy as np
from numba import njit

from .forward import probabilities
from .playouts import mix_replay
from .worlds import NO_ACTION, deal_start_states
from .worlds.places import card_in


def deal_actions(knowledge, game, cards=True):
    """int16[N, T]: the actions taken this deal, in order, as far as each position has gone.

    knowledge: :func:`ghost_euchre.agents.worlds.read_knowledge` of N positions of ``game``;
    cards: False for the actions before the first card only (the auction, trump,
    classic's discard and alone choices); rows end in -1 padding; classic's
    dealer discard is :data:`ghost_euchre.agents.worlds.FROM_WORLD` (each world holds its own). ValueError
    for Ghost Hand's open auction.
    """
    parts = knowledge.auction_actions(game)
    if cards:
        parts.append(_card_order(knowledge))
    actions = np.concatenate(parts, axis=1)
    order = np.argsort(actions == NO_ACTION, axis=1, kind="stable")  # taken actions first, in order
    return np.take_along_axis(actions, order, axis=1)


def _card_order(kn):
    """int16[N, K * S]: the cards played, trick by trick, from each trick's leader (-1: none)."""
    n, num_seats = kn.played.shape
    order = np.full((n, kn.trick_cards.shape[1] * num_seats), NO_ACTION, np.int16)
    _order_cards(
        np.asarray(kn.played, np.int64),
        np.asarray(kn.trick_cards, np.int64),
        np.asarray(kn.trick_leaders, np.int64),
        order,
    )
    return order


@njit(cache=True)
def _order_cards(played, trick_cards, trick_leaders, order):
    """The kernel of :func:`_card_order`: fills order int16[N, K * S] (played, trick_cards: card
    masks int64[N, S] and [N, K]; trick_leaders int64[N, K], -1 for a trick not led)."""
    n, num_seats = played.shape
    for row in range(n):
        for k in range(trick_cards.shape[1]):
            leader = trick_leaders[row, k]
            if leader < 0:
                continue
            for turn in range(num_seats):
                seat = (leader + turn) % num_seats
                order[row, k * num_seats + turn] = card_in(played[row, seat] & trick_cards[row, k])


def log_likelihoods(game, knowledge, worlds, model, floor, rows, cards=True):
    """float64[M]: log-likelihood of the deal's actions so far in each of M worlds under ``model``.

    game: the engine (``episode="deal"``) that replays them; knowledge, rows:
    the positions and the position of each world (int[M]); worlds: the M
    worlds, as :func:`ghost_euchre.agents.worlds.world_states` takes them; model: an
    :func:`action_probabilities` model of every other seat; floor: in [0, 1);
    cards: False to weigh the actions before the first card only (the card play
    is then not replayed: far cheaper late in a deal). A world where an action
    taken is illegal (it contradicts the world) gets -inf.
    """
    actions = deal_actions(knowledge, game, cards)[rows]
    actions = knowledge.world_actions(actions, worlds)
    state = deal_start_states(game, knowledge, *worlds, rows=rows)
    replay = getattr(model, "replay", None)
    compiled = replay(floor) if replay is not None else None
    if compiled is not None:  # a compiled model (the heuristic, a network, their mix): one call
        return game.replay_and_weigh(state, actions, *compiled)
    total = np.zeros(len(rows))
    alive = np.arange(len(rows))
    for step in range(actions.shape[1]):
        action = actions[alive, step].astype(np.int64)
        going_on = action >= 0  # rows are prefixes: once a row ends it stays ended
        if not going_on.all():
            alive, action = alive[going_on], action[going_on]
            state = state.take(going_on)
        if len(alive) == 0:
            break
        mask = game.legal_mask(state)
        legal = mask[np.arange(len(alive)), action]
        total[alive[~legal]] = -np.inf
        action = np.where(legal, action, mask.argmax(axis=1))
        choices = mask.sum(axis=1)
        weigh = np.flatnonzero(legal & (state.player != 0) & (choices > 1))
        if len(weigh):
            obs = game.observe(state, state.player.astype(np.int64))[weigh]
            p = action_probabilities(model, obs, mask[weigh])[np.arange(len(weigh)), action[weigh]]
            total[alive[weigh]] += np.log((1 - floor) * p + floor / choices[weigh])
        game.step(state, action)
    return total


def action_probabilities(model, obs, mask):
    """float64[N, A]: the model's probability of each action (0 where illegal).

    model: a network policy (``ghost_euchre.agents.ppo.PPOPolicy``: the softmax of its legal
    logits), a :class:`MixedModel`, or any other policy (1 on the action it takes).
    """
    if isinstance(model, MixedModel):
        return model.probabilities(obs, mask)
    network = getattr(model, "network", None)
    if network is not None and hasattr(network, "logits"):
        return probabilities(network.logits(obs), mask)
    one_hot = np.zeros(mask.shape)
    one_hot[np.arange(len(mask)), model.act(obs, mask)] = 1.0
    return one_hot


class MixedModel:
    """Two models averaged: ``weight`` * first + (1 - weight) * second."""

    def __init__(self, first, second, weight=0.5):
        self.first, self.second, self.weight = first, second, weight

    def replay(self, floor):
        """(kernel, arguments) of the mix as a compiled model (a network and the heuristic:
        :func:`ghost_euchre.agents.playouts.mix_replay`), or None."""
        return mix_replay(self.first, self.second, self.weight, floor)

    def probabilities(self, obs, mask):
        """float64[N, A] (see :func:`action_probabilities`)."""
        first = action_probabilities(self.first, obs, mask)
        return self.weight * first + (1 - self.weight) * action_probabilities(
            self.second, obs, mask
        )


def resample(log_weights, count, rng):
    """(int64[N, count] indices of the chosen candidates, float64[N] effective sample size).

    log_weights: float64[N, C] of C candidate worlds per position; systematic
    resampling (one uniform draw per position from ``rng``, a numpy Generator
    or :class:`ghost_euchre.agents.streams.RowRandom`), so a candidate of weight w is chosen
    about ``count * w / sum(w)`` times. A position whose every candidate has
    weight 0 (-inf) keeps its candidates uniformly. The effective sample size
    ``sum(w)^2 / sum(w^2)`` is of the C candidates (C: uniform weights).
    """
    log_weights = np.asarray(log_weights, np.float64)
    top = log_weights.max(axis=1, keepdims=True)
    weights = np.exp(log_weights - np.where(np.isfinite(top), top, 0.0))
    weights[~np.isfinite(top[:, 0])] = 1.0
    total = weights.sum(axis=1)
    ess = total**2 / (weights**2).sum(axis=1)
    cdf = np.cumsum(weights / total[:, None], axis=1)
    points = (rng.random((len(weights), 1)) + np.arange(count)) / count  # [N, count] in [0, 1)
    chosen = np.minimum((cdf[:, None, :] <= points[:, :, None]).sum(axis=2), weights.shape[1] - 1)
    return chosen.astype(np.int64), ess
