"""Search distillation (distill_decisions): lessons from the bid regret's rollout oracle."""

import numpy as np
import pytest

from arena.regret import action_values, auction_rows
from euchre_trainer.config import make_config
from euchre_trainer.distill import search_lessons
from euchre_trainer.ranks import start_ranks
from euchre_trainer.rollout import RolloutBuffer, collect_rollout
from euchre_trainer.run import setup


def _rollout(tmp_path, **fields):
    config = make_config(
        {"num_envs": 16, "num_steps": 24, "hidden_sizes": [32], "bidding_warmup_steps": 0,
         "runs_dir": str(tmp_path), **fields}
    )  # fmt: skip
    run = setup(config, start_ranks(config))
    buf = RolloutBuffer(16 * 24, run.game.obs_size, run.game.num_actions, 16)
    collect_rollout(run, buf)
    return run, buf


def test_lessons_are_the_oracles_best_actions_at_sampled_auction_decisions(tmp_path, torch_globals):
    run, buf = _rollout(tmp_path, distill_decisions=6, distill_worlds=8)
    state = run.np_rng.bit_generator.state
    [(obs, mask, best)] = search_lessons(run, buf)
    assert len(best) == 6 and auction_rows(mask).all()
    assert mask[np.arange(6), best].all()
    # the same rows and keys again give the same lessons, and they are the oracle's argmax
    run.np_rng.bit_generator.state = state
    rows = np.flatnonzero(auction_rows(buf.mask[: buf.count]))
    chosen = np.sort(run.np_rng.choice(rows, 6, replace=False))
    keys = run.np_rng.integers(0, 2**64, 6, dtype=np.uint64, endpoint=False)
    assert np.array_equal(obs, buf.obs[chosen])
    values = action_values(run.engine, obs, mask, "heuristic", 8, keys=keys)
    assert np.array_equal(best, values.argmax(axis=1))


def test_no_distillation_draws_nothing(tmp_path, torch_globals):
    run, buf = _rollout(tmp_path)
    state = run.np_rng.bit_generator.state
    assert search_lessons(run, buf) == []
    assert run.np_rng.bit_generator.state == state  # a run without it is the run it was


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"distill_decisions": 8, "variant": "classic"}, "distill_decisions needs variant='ghost'"),
        ({"distill_decisions": 8, "learn": "play"}, "distill_decisions needs variant='ghost'"),
        ({"distill_decisions": -1}, "distill_decisions must be at least 0, got -1"),
        ({"distill_worlds": 0}, "distill_worlds must be at least 1, got 0"),
    ],
)
def test_bad_distillation_settings_are_one_line_errors(fields, message):
    with pytest.raises(ValueError, match=message):
        make_config(fields)
