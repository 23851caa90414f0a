"""PufferLib's emulation layer and Serial vectorization over the Gymnasium and Parallel envs,
unmodified: the RL-libraries page's block runs as written."""

import gymnasium
import numpy as np
import pytest
from docs_snippets import doc_snippet, run_snippet

pytest.importorskip("pufferlib")
import pufferlib.emulation

import ghost_euchre_env  # noqa: F401  (registers the env ids)


def test_docs_pufferlib_block_runs_as_written():
    example = run_snippet(doc_snippet("pufferlib"), "pufferlib_example")
    obs, rewards = example["obs"], example["rewards"]
    assert obs.shape[0] == rewards.shape[0] == 4 * 3  # the last loop: 4 tables of 3 seats


def test_the_mask_is_the_first_columns_of_the_flat_observation():
    env = gymnasium.make("ClassicEuchre-v0", mask_in_observation=True)
    puffer = pufferlib.emulation.GymnasiumPufferEnv(env=env, seed=0)
    obs, _ = puffer.reset(seed=3)
    single = gymnasium.make("ClassicEuchre-v0", mask_in_observation=True)
    expected, info = single.reset(seed=3)
    np.testing.assert_array_equal(obs[0, :31], info["action_mask"].astype(np.float32))
    np.testing.assert_array_equal(obs[0, 31:], expected["observations"])
