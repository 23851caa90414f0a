"""How a permutation of the four suits acts on a Ghost Hand observation and on the action ids.

Renaming the suits (a permutation ``perm``: suit ``s`` becomes suit ``perm[s]``,
card ``rank * 4 + s`` becomes ``rank * 4 + perm[s]``) maps a game to an
equally good game as long as same-colour suits stay together, because the left
bower is the jack of trump's same-colour suit (:data:`COLOUR_KEEPING`).
Policies use the tables here to look at every position in one canonical
suit order (``agents/ppo.py``); the engine's own observation is unchanged.

The tables are built from :data:`ghost.OBS_LAYOUT` and the fields declared
there as card-indexed or suit-indexed, so a new field is covered once it is
declared.
"""

import itertools

import numpy as np

from .cards import CARD_RANK, CARD_SUIT, NUM_CARDS, NUM_SUITS, PARTNER_SUIT
from .ghost import (
    NUM_ACTIONS,
    OBS_CARD_FIELDS,
    OBS_OFFSETS,
    OBS_SIZE,
    OBS_SUIT_FIELDS,
    TRUMP_CLUBS,
)


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


def permutation_tables(perms):
    """Index tables of suit permutations ``perms`` (int[K, 4], suit s becomes perms[k, s]).

    Returns (obs_index int64[K, OBS_SIZE], action_index int64[K, NUM_ACTIONS]):
    ``obs[:, obs_index[k]]`` is the observation of the renamed game, and
    ``action_index[k, a]`` is the id that action ``a`` of the original game has
    in the renamed one (so ``logits_renamed[:, action_index[k]]`` are the
    original game's logits).
    """
    perms = np.asarray(perms, dtype=np.int64)
    obs_index = np.tile(np.arange(OBS_SIZE), (len(perms), 1))
    action_index = np.tile(np.arange(NUM_ACTIONS), (len(perms), 1))
    for k, perm in enumerate(perms):
        cards = card_permutation(perm)
        for name in OBS_CARD_FIELDS:
            start, stop = OBS_OFFSETS[name]
            for block in range(start, stop, NUM_CARDS):
                obs_index[k, block + cards] = block + np.arange(NUM_CARDS)
        for name in OBS_SUIT_FIELDS:
            start, _ = OBS_OFFSETS[name]
            obs_index[k, start + perm] = start + np.arange(NUM_SUITS)
        action_index[k, :NUM_CARDS] = cards  # action c plays card c
        action_index[k, TRUMP_CLUBS + np.arange(NUM_SUITS)] = TRUMP_CLUBS + perm
    return obs_index, action_index
