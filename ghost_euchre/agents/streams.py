"""Random draws keyed by game, so that a policy's choices do not depend on its batch.

A match gives every row of an ``act`` call a key (uint64: its game and decision
number, :func:`ghost_euchre.arena.match.run_match`). A policy whose ``act`` takes a ``keys``
argument draws from a :class:`RowRandom` of those keys (mixed with its own key,
:func:`policy_key`): row i's numbers depend only on keys[i] and on what row i
drew before in the call, never on the other rows, so a game plays the same
whatever games share its batch (``num_envs``, the split of a match over
workers). Called without keys (the envs, the trainer, the web page) a policy
draws from its ``rng`` as before. Built in: ``random``, ``pimc`` (its worlds
and its playouts), ``ppo:...:sample=true``, ``composite[...]``.
"""

import functools
import inspect

import numpy as np

from ghost_euchre_env.dealing import mix64

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_TO_UNIT = 2.0**-53


def child_keys(keys, *salts):
    """uint64[...]: keys mixed with integer salts (arrays; everything broadcast), one hash per salt."""
    out = np.atleast_1d(np.asarray(keys, np.uint64))
    for salt in salts:
        counter = (np.atleast_1d(np.asarray(salt)).astype(np.uint64) + np.uint64(1)) * _GOLDEN
        out = mix64(out ^ mix64(counter))
    return out


def policy_key(seed):
    """uint64: a policy's own key from its seed (an int, or None for fresh entropy); draws nothing."""
    entropy = int(seed) if isinstance(seed, (int, np.integer)) else None
    return np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0]


class RowRandom:
    """Uniform draws in [0, 1), one stream per row: ``random((N, ...))`` like a numpy Generator's.

    keys: uint64[N]. Each call's first dimension must be N; row i's numbers are
    a hash of (keys[i], how many numbers row i has drawn before), so they do not
    depend on the other rows. :meth:`take` gives the streams of some rows.
    """

    def __init__(self, keys, drawn=0):
        self.keys = np.asarray(keys, np.uint64)
        self.drawn = drawn

    def random(self, size):
        """float64[size] with size[0] == N (an int size: N numbers, one per row)."""
        shape = (size,) if np.ndim(size) == 0 else tuple(size)
        if shape[0] != len(self.keys):
            raise ValueError(f"RowRandom of {len(self.keys)} rows asked for shape {shape}")
        per_row = int(np.prod(shape[1:], dtype=np.int64))
        counters = np.arange(self.drawn, self.drawn + per_row, dtype=np.uint64)
        self.drawn += per_row
        bits = mix64(self.keys[:, None] ^ mix64((counters + np.uint64(1)) * _GOLDEN)[None, :])
        return ((bits >> np.uint64(11)) * _TO_UNIT).reshape(shape)

    def take(self, rows):
        """The RowRandom of ``rows`` (indices or a bool mask): their streams, where they are now."""
        return RowRandom(self.keys[rows], self.drawn)


def takes_keys(policy):
    """Whether ``policy.act`` accepts ``keys=`` (a policy keyed by game)."""
    return _takes(policy, "keys")


def takes_games(policy):
    """Whether ``policy.act`` accepts ``games=``: int[N] the match's game ids of the rows (a bot
    that names its games, :mod:`ghost_euchre.agents.program`)."""
    return _takes(policy, "games")


def _takes(policy, name):
    act = policy.act
    function = getattr(act, "__func__", act)  # a method: its class's function, read once
    try:
        return _accepts(function, name)
    except TypeError:  # not hashable: look at this one
        return _accepts.__wrapped__(act, name)


@functools.lru_cache(maxsize=256)
def _accepts(function, name):
    """Whether the callable ``function`` has a parameter ``name`` (inspect.signature costs ~60 us a call)."""
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def act_keyed(policy, obs, mask, keys, games=None):
    """``policy.act(obs, mask)``, with ``keys=keys`` and ``games=games`` (int[N] game ids) when it
    takes them and they are not None."""
    extra = {}
    if keys is not None and takes_keys(policy):
        extra["keys"] = keys
    if games is not None and takes_games(policy):
        extra["games"] = games
    return policy.act(obs, mask, **extra)


def draws(policy, keys):
    """The source of a policy's draws in one act call: RowRandom of its keyed rows, or its rng."""
    if keys is None:
        return policy.rng
    return RowRandom(child_keys(keys, policy.stream_key))
