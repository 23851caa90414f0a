"""Search distillation (``distill_decisions``): the rollout-search oracle's best auction actions as lessons.

Each update, up to ``distill_decisions`` of the learner's auction and trump
decisions of the rollout (those with a choice) are valued by the oracle that
also measures bid regret (:func:`arena.regret.action_values`: ``distill_worlds``
hidden deals consistent with what the seat knows, each legal action played out
with ``card_play`` at every seat); the network then also minimises the
cross-entropy toward the oracle's best action (weight ``imitation_coef``),
beside PPO, as the warm-up's lessons are taught. Ghost Hand only.
"""

import numpy as np

from arena.regret import action_values, auction_rows


def search_lessons(run, buf):
    """[(obs float32[M, D], mask bool[M, A], the oracle's best action int64[M])], or [] without distillation."""
    config = run.config
    rows = np.flatnonzero(auction_rows(buf.mask[: buf.count])) if config.distill_decisions else []
    if not len(rows):
        return []
    rows = np.sort(run.np_rng.choice(rows, min(len(rows), config.distill_decisions), replace=False))
    keys = run.np_rng.integers(0, 2**64, len(rows), dtype=np.uint64, endpoint=False)
    obs, mask = buf.obs[rows], buf.mask[rows]
    values = action_values(
        run.engine, obs, mask, config.card_play, config.distill_worlds, keys=keys
    )
    return [(obs, mask, values.argmax(axis=1))]
