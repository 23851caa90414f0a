"""Distillation (``distill_decisions``): a teacher's actions at sampled decisions of the learner as lessons.

Each update, up to ``distill_decisions`` of the learner's decisions of the
rollout with a choice, of ``distill_phase``, get the teacher's target, and the
network then also minimises the cross-entropy toward it (weight
``imitation_coef``), beside PPO, as the warm-up's lessons are taught. The
target is the teacher's action, or with ``distill_temperature`` T > 0 the
distribution softmax(values / T) of the values the teacher gave its actions
(expert iteration: a search's value-weighted choice, not only its pick). The
teacher (``distill_teacher``) is either the oracle that also measures bid
regret (:func:`ghost_euchre.arena.regret.action_values`: ``distill_worlds`` hidden deals
consistent with what the seat knows, each legal action played out with
``card_play`` at every seat; its best action; Ghost Hand's auction), or any
policy spec, e.g. ``pimc:samples=16`` (search distillation of card play).
Rows and keys come from the run's generator, so a seeded run repeats.
"""

import numpy as np

from ghost_euchre.agents import make_policy
from ghost_euchre.agents.checked import CheckedPolicy, PlugInError, raised
from ghost_euchre.agents.streams import act_keyed
from ghost_euchre.arena.regret import action_values, auction_rows
from ghost_euchre.trainer.config import read_spec


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
    distillation); with distill_temperature the policy itself, which must value its actions
    (``searched_values``, as pimc and search do); ValueError naming it."""
    if not config.distill_decisions or config.distill_teacher == "oracle":
        return None
    try:
        teacher = make_policy(read_spec(config.distill_teacher), engine, seed=seed)
    except ValueError as error:
        raise ValueError(f"distill_teacher: {error}") from None
    if not config.distill_temperature:
        return CheckedPolicy(teacher, f"distill_teacher {config.distill_teacher!r}")
    if not callable(getattr(teacher, "searched_values", None)):
        raise ValueError(
            f"distill_temperature={config.distill_temperature:g} needs a teacher that values its "
            f"actions (the oracle, pimc, search); distill_teacher {config.distill_teacher!r} only "
            "chooses them (use distill_temperature: 0 to imitate its choices)"
        )
    return teacher


def searched_values(run, obs, mask, keys):
    """float64[M, A]: the teacher's values of M decisions, checked: :class:`PolicyRaised` when it
    raises, :class:`PlugInError` unless each row is finite at some legal actions and -inf elsewhere."""
    what = f"distill_teacher {run.config.distill_teacher!r}"
    try:
        values = np.asarray(run.teacher.searched_values(obs, mask, keys), np.float64)
    except Exception as error:  # its own code: named, its traceback kept
        raise raised(what, error, f"in {len(mask)} decisions") from error
    valued = np.isfinite(values) if values.shape == mask.shape else None
    if valued is None or (valued & ~mask).any() or not valued.any(axis=1).all():
        raise PlugInError(
            f"{what}: searched_values must be float[{len(mask)}, {mask.shape[1]}], finite at "
            f"some legal actions of each decision and -inf elsewhere; got shape {values.shape}"
        )
    if (values[~valued] != -np.inf).any():
        raise PlugInError(f"{what}: searched_values holds NaN or +inf")
    return values


def value_targets(values, temperature):
    """float32[M, A]: softmax(values / temperature) of values float64[M, A] (-inf: not valued,
    probability 0), row by row."""
    scaled = values / temperature
    scaled = scaled - scaled.max(axis=1, keepdims=True)
    weights = np.exp(scaled)
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


def choice_targets(actions, num_actions):
    """float32[M, A]: one-hot rows of the actions int64[M]."""
    targets = np.zeros((len(actions), num_actions), np.float32)
    targets[np.arange(len(actions)), actions] = 1.0
    return targets


def teacher_lessons(run, buf):
    """[(obs float32[M, D], mask bool[M, A], the teacher's target float32[M, A])], or [] without
    distillation: one-hot on its action, or its values' softmax (``distill_temperature``)."""
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
    temperature = config.distill_temperature
    if run.teacher is not None and not temperature:  # a policy's picks
        actions = np.asarray(act_keyed(run.teacher, obs, mask, keys), np.int64)
        return [(obs, mask, choice_targets(actions, mask.shape[1]))]
    if run.teacher is None:  # the oracle
        values = action_values(
            run.engine, obs, mask, config.card_play, config.distill_worlds, keys=keys
        )
    else:
        values = searched_values(run, obs, mask, keys)
    if temperature:
        return [(obs, mask, value_targets(values, temperature))]
    return [(obs, mask, choice_targets(values.argmax(axis=1), mask.shape[1]))]
