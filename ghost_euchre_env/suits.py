"""How a permutation of the four suits acts on an observation and on the action ids of a variant.

Renaming the suits (a permutation ``perm``: suit ``s`` becomes suit ``perm[s]``,
card ``rank * 4 + s`` becomes ``rank * 4 + perm[s]``) maps a game to an
equally good game as long as same-colour suits stay together, because the left
bower is the jack of trump's same-colour suit (:data:`COLOUR_KEEPING`).
Policies use the tables here to look at every position in one canonical
suit order (``agents/ppo.py``); the engine's own observation is unchanged.

The tables of a variant (the module :mod:`ghost_euchre_env.ghost` or :mod:`ghost_euchre_env.classic`) are built
from its ``OBS_LAYOUT`` and what it declares beside it: the card-indexed fields
(``OBS_CARD_FIELDS``), the suit-indexed ones (``OBS_SUIT_FIELDS``) and the
action ids that name cards and suits (``CARD_ACTIONS``, ``SUIT_ACTIONS``), so a
new field is covered once it is declared.
"""

import itertools

import numpy as np

from . import ghost
from .cards import CARD_RANK, CARD_SUIT, NUM_CARDS, NUM_SUITS, PARTNER_SUIT


def _colour_keeping():
    """int8[8, 4]: the permutations of C, D, H, S that map same-colour suits to same-colour suits."""
    keep = [
        perm
        for perm in itertools.permutations(range(NUM_SUITS))
        if all(PARTNER_SUIT[perm[s]] == perm[PARTNER_SUIT[s]] for s in range(NUM_SUITS))
    ]
    return np.array(keep, dtype=np.int8)


COLOUR_KEEPING = _colour_keeping()


def card_permutation(perm):
    """int64[24]: the card each card becomes when suit s becomes ``perm[s]``."""
    return CARD_RANK * NUM_SUITS + np.asarray(perm)[CARD_SUIT]


def permutation_tables(perms, variant=ghost):
    """Index tables of suit permutations ``perms`` (int[K, 4], suit s becomes perms[k, s]).

    variant: the engine module whose observations and actions are renamed
    (:mod:`ghost_euchre_env.ghost` or :mod:`~ghost_euchre_env.classic`). Returns (obs_index int64[K, OBS_SIZE],
    action_index int64[K, NUM_ACTIONS]): ``obs[:, obs_index[k]]`` is the
    observation of the renamed game, and ``action_index[k, a]`` is the id that
    action ``a`` of the original game has in the renamed one (so
    ``logits_renamed[:, action_index[k]]`` are the original game's logits).
    """
    perms = np.asarray(perms, dtype=np.int64)
    card_actions, suit_actions = np.asarray(variant.CARD_ACTIONS), np.asarray(variant.SUIT_ACTIONS)
    obs_index = np.tile(np.arange(variant.OBS_SIZE), (len(perms), 1))
    action_index = np.tile(np.arange(variant.NUM_ACTIONS), (len(perms), 1))
    for k, perm in enumerate(perms):
        cards = card_permutation(perm)
        for name in variant.OBS_CARD_FIELDS:
            start, stop = variant.OBS_OFFSETS[name]
            for block in range(start, stop, NUM_CARDS):
                obs_index[k, block + cards] = block + np.arange(NUM_CARDS)
        for name, (width, first) in variant.OBS_SUIT_FIELDS.items():
            start, stop = variant.OBS_OFFSETS[name]
            for block in range(start + first, stop, width):
                obs_index[k, block + perm] = block + np.arange(NUM_SUITS)
        action_index[k, card_actions] = card_actions[cards]
        action_index[k, suit_actions] = suit_actions[perm]
    return obs_index, action_index
