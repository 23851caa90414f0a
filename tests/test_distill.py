"""Distillation (distill_decisions): lessons from the bid regret's rollout oracle or a teacher policy."""

import numpy as np
import pytest

from ghost_euchre.agents.checked import PlugInError, PolicyRaised
from ghost_euchre.agents.networks import mask_logits
from ghost_euchre.arena.regret import action_values, auction_rows
from ghost_euchre.trainer.config import make_config
from ghost_euchre.trainer.distill import choice_targets, phase_rows, teacher_lessons, value_targets
from ghost_euchre.trainer.ranks import start_ranks
from ghost_euchre.trainer.rollout import RolloutBuffer, collect_rollout
from ghost_euchre.trainer.run import setup


def _rollout(tmp_path, **fields):
    config = make_config(
        {"num_envs": 16, "num_steps": 24, "hidden_sizes": [32], "bidding_warmup_steps": 0,
         "runs_dir": str(tmp_path), **fields}
    )  # fmt: skip
    run = setup(config, start_ranks(config))
    game = run.game
    buf = RolloutBuffer(16 * 24, game.obs_size, game.num_actions, 16, game.num_players)
    collect_rollout(run, buf)
    return run, buf


@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_lessons_are_the_oracles_best_actions_at_sampled_auction_decisions(
    tmp_path, torch_globals, variant
):
    run, buf = _rollout(tmp_path, variant=variant, distill_decisions=6, distill_worlds=8)
    state = run.np_rng.bit_generator.state
    [(obs, mask, targets)] = teacher_lessons(run, buf)
    best = targets.argmax(axis=1)
    assert np.array_equal(targets, choice_targets(best, mask.shape[1]))  # one-hot
    assert len(best) == 6 and auction_rows(variant, obs, mask).all()
    assert mask[np.arange(6), best].all()
    # the same rows and keys again give the same lessons, and they are the oracle's argmax
    run.np_rng.bit_generator.state = state
    rows = np.flatnonzero(auction_rows(variant, buf.obs[: buf.count], buf.mask[: buf.count]))
    chosen = np.sort(run.np_rng.choice(rows, 6, replace=False))
    keys = run.np_rng.integers(0, 2**64, 6, dtype=np.uint64, endpoint=False)
    assert np.array_equal(obs, buf.obs[chosen])
    values = action_values(run.engine, obs, mask, "heuristic", 8, keys=keys)
    assert np.array_equal(best, values.argmax(axis=1))


def test_no_distillation_draws_nothing(tmp_path, torch_globals):
    run, buf = _rollout(tmp_path)
    state = run.np_rng.bit_generator.state
    assert teacher_lessons(run, buf) == []
    assert run.np_rng.bit_generator.state == state  # a run without it is the run it was


@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_a_teacher_policys_keyed_actions_at_sampled_card_play_decisions(
    tmp_path, torch_globals, variant
):
    teacher = "pimc:samples=4"
    run, buf = _rollout(
        tmp_path, variant=variant, distill_decisions=5, distill_teacher=teacher,
        distill_phase="play",
    )  # fmt: skip
    state = run.np_rng.bit_generator.state
    [(obs, mask, targets)] = teacher_lessons(run, buf)
    taught = targets.argmax(axis=1)
    assert np.array_equal(targets, choice_targets(taught, mask.shape[1]))
    assert (
        len(taught) == 5
        and phase_rows(variant, obs, mask, "play").all()
        and mask[np.arange(5), taught].all()
    )
    # the lessons are the teacher's answers keyed by what the run's generator drew (no state of its own)
    run.np_rng.bit_generator.state = state
    rows = np.flatnonzero(phase_rows(variant, buf.obs[: buf.count], buf.mask[: buf.count], "play"))
    chosen = np.sort(run.np_rng.choice(rows, 5, replace=False))
    keys = run.np_rng.integers(0, 2**64, 5, dtype=np.uint64, endpoint=False)
    assert np.array_equal(obs, buf.obs[chosen])
    assert run.teacher.samples == 4
    assert np.array_equal(taught, run.teacher.act(obs, mask, keys=keys))


@pytest.mark.parametrize(
    "teacher", ["oracle", "pimc:samples=4", "search:samples=2,infer=none,top=2"]
)
def test_a_valuing_teacher_gives_the_softmax_of_its_values(tmp_path, torch_globals, teacher):
    phase = "auction" if teacher == "oracle" else "all"
    run, buf = _rollout(
        tmp_path, distill_decisions=6, distill_teacher=teacher, distill_phase=phase,
        distill_temperature=0.5, distill_worlds=4,
    )  # fmt: skip
    state = run.np_rng.bit_generator.state
    [(obs, mask, targets)] = teacher_lessons(run, buf)
    assert targets.dtype == np.float32 and np.allclose(targets.sum(axis=1), 1.0)
    assert (targets[~mask] == 0).all()
    # the same draws again: the targets are softmax(values / 0.5) of the teacher's values
    run.np_rng.bit_generator.state = state
    rows = np.flatnonzero(phase_rows("ghost", buf.obs[: buf.count], buf.mask[: buf.count], phase))
    chosen = np.sort(run.np_rng.choice(rows, 6, replace=False))
    keys = run.np_rng.integers(0, 2**64, 6, dtype=np.uint64, endpoint=False)
    values = (
        action_values(run.engine, obs, mask, "heuristic", 4, keys=keys)
        if teacher == "oracle"
        else run.teacher.searched_values(buf.obs[chosen], buf.mask[chosen], keys)
    )
    assert np.array_equal(targets, value_targets(values, 0.5))
    assert np.array_equal(targets.argmax(axis=1), values.argmax(axis=1))


def test_value_targets_weigh_the_values_and_leave_out_the_unvalued():
    values = np.array([[1.0, 0.0, -np.inf], [0.0, 0.0, 0.0], [-np.inf, 5.0, -np.inf]])
    targets = value_targets(values, 1.0)
    assert np.allclose(targets[0], [np.e / (np.e + 1), 1 / (np.e + 1), 0.0])
    assert np.allclose(targets[1], 1 / 3) and np.array_equal(targets[2], [0.0, 1.0, 0.0])
    assert np.allclose(value_targets(values, 1e-3)[0], [1.0, 0.0, 0.0])  # cold: the choice


def test_a_temperature_needs_a_teacher_that_values_its_actions(tmp_path):
    config = make_config(
        {"distill_decisions": 8, "distill_teacher": "heuristic", "distill_phase": "all",
         "distill_temperature": 0.5, "runs_dir": str(tmp_path)}
    )  # fmt: skip
    with pytest.raises(ValueError, match=r"needs a teacher that values its actions .* 'heuristic'"):
        setup(config, start_ranks(config))


class _Valuing:
    """A teacher whose searched_values returns ``values``, whatever it is asked."""

    def __init__(self, values):
        self.values = values

    def searched_values(self, obs, mask, keys):
        if isinstance(self.values, Exception):
            raise self.values
        return self.values(mask) if callable(self.values) else self.values


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (lambda mask: np.zeros(len(mask)), "must be float"),
        (lambda mask: np.where(mask, 0.0, -np.inf)[:-1], r"got shape \(5, "),
        (lambda mask: np.zeros(mask.shape), "finite at some legal actions"),
        (lambda mask: np.full(mask.shape, -np.inf), "finite at some legal actions"),
        (lambda mask: np.where(mask, np.nan, -np.inf), "finite at some legal actions"),
        (lambda mask: np.where(mask, 0.0, np.inf), "NaN or \\+inf"),
    ],
)  # fmt: skip
def test_bad_searched_values_stop_with_the_teachers_name(tmp_path, torch_globals, values, message):
    run, buf = _rollout(
        tmp_path, distill_decisions=6, distill_teacher="pimc:samples=2", distill_phase="all",
        distill_temperature=0.5,
    )  # fmt: skip
    run.teacher = _Valuing(values)
    with pytest.raises(PlugInError, match=r"^distill_teacher 'pimc:samples=2': .*" + message):
        teacher_lessons(run, buf)


def test_a_teacher_that_raises_is_named_with_its_trace(tmp_path, torch_globals):
    run, buf = _rollout(
        tmp_path, distill_decisions=6, distill_teacher="pimc:samples=2", distill_phase="all",
        distill_temperature=0.5,
    )  # fmt: skip
    run.teacher = _Valuing(KeyError("lost"))
    with pytest.raises(PolicyRaised, match="distill_teacher 'pimc:samples=2'") as caught:
        teacher_lessons(run, buf)
    assert "KeyError" in caught.value.trace


def test_one_hot_targets_teach_as_the_actions_did(torch_globals):
    import torch

    logits = torch.randn(7, 5)
    mask = torch.rand(7, 5) > 0.3
    mask[:, 2] = True
    actions = torch.full((7,), 2)
    masked = mask_logits(logits, mask)
    one_hot = torch.from_numpy(choice_targets(actions.numpy(), 5))
    torch.testing.assert_close(
        torch.nn.functional.cross_entropy(masked, one_hot, reduction="none"),
        torch.nn.functional.cross_entropy(masked, actions, reduction="none"),
    )


def test_phases_split_the_decisions_with_a_choice(tmp_path, torch_globals):
    _, buf = _rollout(tmp_path)
    obs, mask = buf.obs[: buf.count], buf.mask[: buf.count]
    auction, play, every = (phase_rows("ghost", obs, mask, p) for p in ("auction", "play", "all"))
    assert auction.any() and play.any()
    assert not (auction & play).any() and np.array_equal(auction | play, every)
    assert np.array_equal(every, mask.sum(axis=1) > 1)
    assert np.array_equal(auction, auction_rows("ghost", obs, mask))


def test_a_teacher_that_cannot_be_built_is_named(tmp_path):
    config = make_config(
        {"distill_decisions": 8, "distill_teacher": "pimc:samples=0", "runs_dir": str(tmp_path)}
    )
    with pytest.raises(ValueError, match=r"^distill_teacher: "):
        setup(config, start_ranks(config))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"distill_decisions": 8, "learn": "play", "distill_teacher": "pimc"}, "distill_phase='auction' with learn='play'"),
        ({"distill_decisions": 8, "learn": "auction", "distill_teacher": "pimc", "distill_phase": "play"}, "distill_phase='play' with learn='auction'"),
        ({"distill_decisions": 8, "distill_phase": "all"}, "distill_teacher='oracle' values auction decisions only"),
        ({"distill_phase": "cards"}, "distill_phase must be 'auction', 'play' or 'all', got 'cards'"),
        ({"distill_teacher": " "}, "distill_teacher must be 'oracle' or a policy spec"),
        ({"distill_decisions": -1}, "distill_decisions must be at least 0, got -1"),
        ({"distill_worlds": 0}, "distill_worlds must be at least 1, got 0"),
        ({"distill_temperature": -0.1}, "distill_temperature must be a finite number >= 0"),
        ({"distill_temperature": float("nan")}, "distill_temperature must be a finite number >= 0"),
    ],
)  # fmt: skip
def test_bad_distillation_settings_are_one_line_errors(fields, message):
    with pytest.raises(ValueError, match=message):
        make_config(fields)
