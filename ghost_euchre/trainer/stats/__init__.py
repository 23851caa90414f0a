"""What TensorBoard shows of a rollout: deal statistics of the learner's seats and the update's
scalars (losses, explained variance, bid rate), summed over the ranks.

The deal statistics are each variant's own (:mod:`ghost_euchre.trainer.stats.ghost`,
:mod:`ghost_euchre.trainer.stats.classic`, each declaring ``VARIANT`` and its ``DealStats``, a
:class:`~ghost_euchre.trainer.stats.counts.LearnerCounts`): each game's tags, kept so that logged
runs compare; the rollout asks :func:`deal_stats` by the variant's name.
"""

import numpy as np

from ghost_euchre_env import variants

from . import classic, ghost
from .counts import LearnerCounts, margins

__all__ = [
    "DEAL_STATS",
    "LearnerCounts",
    "auction_counts",
    "deal_stats",
    "margins",
    "update_scalars",
]

DEAL_STATS = variants.by_name(ghost, classic, part="DealStats")
"""Each variant's deal statistics (a :class:`LearnerCounts`), by the descriptor's name."""


def deal_stats(variant, kinds=(), kind_of_role=None):
    """New deal statistics of ``variant`` (a name or a descriptor); kinds, kind_of_role: as
    :class:`LearnerCounts`'s. ValueError for a variant that has none."""
    return variants.own(DEAL_STATS, variant, "deal statistics for TensorBoard")(kinds, kind_of_role)


def auction_counts(masks, actions, variant):
    """(auction decisions, bids) among decisions masks bool[M, A], actions int[M].

    An auction decision has PASS legal and passes or bids (Ghost Hand's SWAP is
    not one); a bid is one of the variant's ``bid_actions`` (classic: order up or
    name a suit).
    """
    variant = variants.make(variant)
    bids = np.isin(actions, variant.bid_actions)
    auction = masks[:, variant.actions.PASS] & (bids | (actions == variant.actions.PASS))
    return int(auction.sum()), int((auction & bids).sum())


SHARED_LOSSES = (
    "losses/policy_loss",
    "losses/value_loss",
    "losses/entropy",
    "losses/imitation_loss",
)
"""losses that ppo_update returns as each rank's part of the mean (summed over the ranks here)"""


def update_scalars(run, buf, returns, stats, lessons, losses):
    """TensorBoard scalars of one update, over all ranks: losses, learner share, explained variance, Euchre
    rates. The bid rate counts the learner's seats' auction decisions: the network's, and during the warm-up
    the heuristic's for it."""
    count = buf.count
    # the learner's seats' auction decisions: the network's, and the heuristic's for it during the
    # warm-up of learn='all' (with learn='auction' the lessons are choices that were not played)
    played = lessons if run.config.learn == "all" else []
    masks = np.concatenate([buf.mask[:count], *(mask for _, mask, _ in played)])
    actions = np.concatenate([buf.action[:count], *(action for _, _, action in played)])
    auction, bids = auction_counts(masks, actions, run.variant)
    returns = returns.astype(np.float64)
    residual = returns - buf.value[:count]
    sums = {
        **stats.counts,
        **{key: losses[key] for key in SHARED_LOSSES},
        "learner": count,
        "auction": auction,
        "bids": bids,
        "returns": returns.sum(),
        "returns_squared": (returns**2).sum(),
        "residual": residual.sum(),
        "residual_squared": (residual**2).sum(),
    }
    summed = dict(zip(sums, run.ranks.all_sum(list(sums.values())), strict=True))
    stats.counts = {key: summed[key] for key in stats.counts}
    n = summed["learner"]
    variance = lambda key: summed[f"{key}_squared"] / n - (summed[key] / n) ** 2  # noqa: E731
    explained_var = (
        1 - variance("residual") / variance("returns")
        if n and variance("returns") > 0
        else float("nan")
    )
    return {
        **losses,
        **{key: summed[key] for key in SHARED_LOSSES},
        "charts/learner_share": n / run.batch_size,
        "losses/explained_variance": float(explained_var),
        "euchre/bid_rate": summed["bids"] / summed["auction"]
        if summed["auction"]
        else float("nan"),
        **stats.rates(),
    }
