"""Distillation (``distill_decisions``): a teacher's actions at sampled decisions of the learner as lessons.

Each update, up to ``distill_decisions`` of the learner's decisions of the
rollout with a choice, of ``distill_phase``, get the teacher's action, and the
network then also minimises the cross-entropy toward it (weight
``imitation_coef``), beside PPO, as the warm-up's lessons are taught. The
teacher (``distill_teacher``) is either the oracle that also measures bid
regret (:func:`arena.regret.action_values`: ``distill_worlds`` hidden deals
consistent with what the seat knows, each legal action played out with
``card_play`` at every seat; its best action; Ghost Hand's auction), or any
policy spec, e.g. ``pimc:samples=16`` (search distillation of card play).
Rows and keys come from the run's generator, so a seeded run repeats.
"""

import numpy as np

from agents import make_policy
from agents.checked import CheckedPolicy
from agents.streams import act_keyed
from arena.regret import action_values, auction_rows


def phase_rows(variant, obs, mask, phase):
    """bool[N]: the rows of observations float32[N, D] and legal masks bool[N, A] of ``variant`` that
    distill_phase ``phase`` samples (with a choice)."""
    auction = auction_rows(variant, obs, mask)
    if phase == "auction":
        return auction
    with_choice = mask.sum(axis=1) > 1
    return with_choice & ~auction if phase == "play" else with_choice


def build_teacher(config, engine, seed):
    """The Policy of a distill_teacher spec, its actions checked (None: the oracle, or no
    distillation); ValueError naming it."""
    if not config.distill_decisions or config.distill_teacher == "oracle":
        return None
    try:
        teacher = make_policy(config.distill_teacher, engine, seed=seed)
    except ValueError as error:
        raise ValueError(f"distill_teacher: {error}") from None
    return CheckedPolicy(teacher, f"distill_teacher {config.distill_teacher!r}")


def teacher_lessons(run, buf):
    """[(obs float32[M, D], mask bool[M, A], the teacher's action int64[M])], or [] without distillation."""
    config = run.config
    if not config.distill_decisions:
        return []
    rows = np.flatnonzero(
        phase_rows(
            config.variant, buf.obs[: buf.count], buf.mask[: buf.count], config.distill_phase
        )
    )
    if not len(rows):
        return []
    rows = np.sort(run.np_rng.choice(rows, min(len(rows), config.distill_decisions), replace=False))
    keys = run.np_rng.integers(0, 2**64, len(rows), dtype=np.uint64, endpoint=False)
    obs, mask = buf.obs[rows], buf.mask[rows]
    if run.teacher is None:  # the oracle
        values = action_values(
            run.engine, obs, mask, config.card_play, config.distill_worlds, keys=keys
        )
        return [(obs, mask, values.argmax(axis=1))]
    return [(obs, mask, np.asarray(act_keyed(run.teacher, obs, mask, keys), np.int64))]
