"""Bid regret against a rollout oracle: the points a player's auction decisions leave on the table.

For a sample of a player's *auction decisions* (SWAP, PASS, bids 3-5, MOON and
the declarer's naming of trump; decisions with a single legal action are left
out), the oracle values every legal action. It samples ``worlds`` hidden deals
consistent with what the deciding seat knows (:mod:`ghost_euchre.agents.worlds`: uniform
over the deals that fit its own cards, the cards played and the shown voids),
applies the action in each world and plays the rest of the deal with the
card-play policy at every seat (the remaining auction decisions included), on
the batched engine (the playouts of :class:`ghost_euchre.agents.pimc.PIMCPolicy`). Every
action is valued on the same worlds (paired). The value of a playout is the
seat's deal points minus the mean of the other two seats' points (objective
``relative``; ``points``: its own points only).

``regret`` of a decision = the best action's value minus the chosen action's
value (>= 0), in points. Reported per player: the mean regret per decision
with a 95% interval (normal approximation over the sampled decisions: mean +-
1.96 sd / sqrt(n)) and how often the chosen action was the oracle's best.
Decisions are sampled uniformly from all of a player's auction decisions in a
match (reservoir sampling while the match runs, :class:`RecordingPolicy`).
"""

import dataclasses
import math

import numpy as np

from ghost_euchre.agents.base import Wrapped
from ghost_euchre.agents.pimc import PIMCPolicy
from ghost_euchre.agents.specs import make_policy
from ghost_euchre.agents.streams import RowRandom, act_keyed, child_keys
from ghost_euchre.agents.worlds import read_knowledge, sample_worlds
from ghost_euchre.arena.stats import Z95
from ghost_euchre_env import variants


@dataclasses.dataclass
class Regret:
    """Bid regret of one player over ``decisions`` sampled auction decisions (points per decision)."""

    decisions: int
    mean: float
    ci95: tuple
    best_rate: float
    """share of the decisions where the chosen action had the oracle's best value"""
    regrets: np.ndarray
    """float64[decisions]: each decision's regret"""

    def to_dict(self):
        return {
            "decisions": self.decisions,
            "mean_regret": self.mean,
            "mean_regret_ci95": list(self.ci95),
            "best_rate": self.best_rate,
        }


def auction_rows(variant, obs, mask):
    """bool[N]: rows of observations float32[N, D] and legal masks bool[N, A] of a variant (a name
    or :class:`~ghost_euchre_env.variants.Variant`) that are auction decisions with a choice (every
    decision before the card play: classic's dealer discard too)."""
    mask = np.asarray(mask, dtype=bool)
    return ~variants.make(variant).card_play(np.asarray(obs)) & (mask.sum(axis=1) > 1)


class RecordingPolicy(Wrapped):
    """A policy that plays as ``inner`` and keeps a uniform sample of ``size`` of its auction decisions.

    Reservoir sampling: each decision gets a uniform priority (from its key,
    :mod:`ghost_euchre.agents.streams`, in a match); the ``size`` lowest are kept, so the
    sample is uniform whatever the number of decisions, and the same however
    the match's games are split (:func:`merge_samples` joins the workers' samples).
    ``sample()`` returns (obs float32[M, D], mask bool[M, A], action int64[M],
    key uint64[M]) in priority order.
    """

    def __init__(self, inner, size, seed=None):
        super().__init__(inner, seed)
        self.size = size
        self._sample = None  # (priority, obs, mask, action, key) of the kept decisions

    def act(self, obs, mask, keys=None, games=None):
        actions = act_keyed(self.inner, obs, mask, keys, games)
        rows = np.flatnonzero(auction_rows(self.variant, obs, mask))
        if len(rows):
            if keys is None:
                row_keys = self.rng.integers(0, 2**64, len(rows), dtype=np.uint64, endpoint=False)
            else:
                row_keys = np.asarray(keys, np.uint64)[rows]
            priority = RowRandom(child_keys(row_keys, self.stream_key)).random(len(rows))
            new = (priority, np.asarray(obs)[rows], np.asarray(mask, bool)[rows])
            self._sample = merge_samples(
                [self._sample, (*new, np.asarray(actions, np.int64)[rows], row_keys)], self.size
            )
        return actions

    def reservoir(self):
        """(priority float64[M], obs, mask, action, key) of the kept decisions, or None before any."""
        return self._sample

    def sample(self):
        """(obs, mask, action int64, key uint64) of the sampled decisions, or None before any."""
        return None if self._sample is None else self._sample[1:]


def merge_samples(reservoirs, size):
    """The reservoir of the ``size`` lowest priorities of several (priority, ...) reservoirs (None: empty)."""
    given = [r for r in reservoirs if r is not None]
    if not given:
        return None
    parts = [np.concatenate(column) for column in zip(*given, strict=True)]
    keep = np.argsort(parts[0], kind="stable")[:size]
    return tuple(part[keep] for part in parts)


def action_values(
    game, obs, mask, card_play="heuristic", worlds=32, seed=0, objective="relative", keys=None
):
    """float64[N, A]: the oracle's value of every legal action of N decisions (-inf where illegal).

    game: the GhostEuchre engine of the match; obs float32[N, 390], mask bool[N, 34]
    of the deciding seats; card_play: spec or Policy that plays the rest of each deal;
    keys: uint64[N] keys of the decisions: decision i's worlds and playouts then
    depend only on keys[i] and the seed (so any split of the decisions gives the
    same values); None: drawn in one stream from the seed.
    """
    oracle = PIMCPolicy(
        game, seed=seed, samples=worlds, rollout=card_play, objective=objective, build=make_policy
    )
    knowledge = read_knowledge(np.asarray(obs), game)
    keys = None if keys is None else child_keys(keys, oracle.stream_key)
    sampled = sample_worlds(knowledge, worlds, oracle.rng if keys is None else RowRandom(keys))
    return oracle.action_values(knowledge, sampled, np.asarray(mask, bool), keys)


def bid_regret(
    game, obs, mask, actions, card_play="heuristic", worlds=32, seed=0, objective="relative",
    keys=None,
):  # fmt: skip
    """The :class:`Regret` of the chosen ``actions`` (int[N]) in N auction decisions (obs, mask).

    keys: uint64[N] keys of the decisions (see :func:`action_values`) or None.
    """
    return regret_of(
        action_values(game, obs, mask, card_play, worlds, seed, objective, keys), actions
    )


def regret_of(values, actions):
    """The :class:`Regret` of the chosen ``actions`` (int[N]) given the oracle's ``values`` float64[N, A]."""
    chosen = values[np.arange(len(values)), np.asarray(actions)]
    if not np.isfinite(chosen).all():
        raise ValueError("bid_regret: a chosen action is not legal in its decision")
    best = values.max(axis=1)
    regrets = best - chosen
    n = len(regrets)
    mean = float(regrets.mean())
    half = Z95 * float(regrets.std(ddof=1)) / math.sqrt(n) if n > 1 else float("inf")
    return Regret(n, mean, (mean - half, mean + half), float((chosen >= best).mean()), regrets)


def regret_from_sums(decisions, regret_sum, regret_squares, best):
    """A stored regret's summary from its sums over ``decisions`` decisions (the store's
    match_regrets, pooled): {"decisions", "mean_regret", "mean_regret_ci95", "best_rate"} as
    :meth:`Regret.to_dict` (the same normal interval, sd from the sum of squares)."""
    mean = regret_sum / decisions
    variance = (
        max(regret_squares - decisions * mean**2, 0.0) / (decisions - 1)
        if decisions > 1
        else math.inf
    )
    half = Z95 * math.sqrt(variance / decisions)
    return {
        "decisions": decisions,
        "mean_regret": mean,
        "mean_regret_ci95": [mean - half, mean + half],
        "best_rate": best / decisions,
    }
