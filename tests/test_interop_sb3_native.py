"""sb3-contrib's MaskablePPO on SB3VecEnv, the native vector env (the docs' example, run as written)."""

import gymnasium
import numpy as np
import pytest
import torch
from docs_snippets import doc_snippet, run_snippet
from gymnasium.vector import AutoresetMode

pytest.importorskip("sb3_contrib")
from sb3_contrib.common.maskable.utils import get_action_masks

from ghost_euchre_env.interop.sb3 import SB3VecEnv


@pytest.fixture(autouse=True)
def one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_docs_maskable_ppo_on_the_native_vec_env_runs_as_written():
    example = run_snippet(doc_snippet("sb3_native"), "sb3_native_example")
    model = example["model"]
    assert model.num_timesteps >= 2048
    # SB3's episode statistics (what it logs as rollout/ep_rew_mean and ep_len_mean)
    assert len(model.ep_info_buffer) > 0
    assert all(set(info) == {"r", "l", "t"} and info["l"] >= 1 for info in model.ep_info_buffer)


def test_masks_seeds_and_terminal_observations():
    env = SB3VecEnv("ClassicEuchre-v0", num_envs=8, episode="deal")
    env.seed(4)
    obs = env.reset()
    twin = SB3VecEnv("ClassicEuchre-v0", num_envs=8, episode="deal")
    twin.seed(4)
    np.testing.assert_array_equal(obs, twin.reset())
    rng = np.random.default_rng(0)
    ended = 0
    returns, lengths = np.zeros(8), np.zeros(8, int)
    for _ in range(60):
        masks = get_action_masks(env)
        assert masks.shape == (8, 31) and masks.any(axis=1).all()
        actions = np.where(masks, rng.random(masks.shape), -1).argmax(axis=1)
        env.step_async(actions)
        _obs, rewards, dones, infos = env.step_wait()
        returns += rewards
        lengths += 1
        for game in np.flatnonzero(dones):
            assert env.observation_space.contains(infos[game]["terminal_observation"])
            episode = infos[game]["episode"]
            assert (episode["r"], episode["l"]) == (returns[game], lengths[game])
            returns[game], lengths[game] = 0.0, 0
            ended += 1
    assert ended > 0


def test_only_a_same_step_env_is_taken():
    env = gymnasium.make_vec("GhostEuchre-v0", 2, autoreset_mode=AutoresetMode.NEXT_STEP)
    with pytest.raises(ValueError, match="SAME_STEP"):
        SB3VecEnv(env.unwrapped)


def test_masks_before_reset_and_indices_out_of_range_are_refused():
    env = SB3VecEnv("GhostEuchre-v0", num_envs=2)
    for call in (
        env.action_masks,
        lambda: env.env_method("action_masks"),
        lambda: get_action_masks(env),
    ):
        with pytest.raises(RuntimeError, match=r"^call reset\(\) before action_masks\(\)$"):
            call()
    env.reset()
    assert env.action_masks().shape == (2, 34) and env.action_masks().any(axis=1).all()
    for indices in ([9], 2, -1, [0, 5], [True], [0.5], "0", 1.5):
        expected = (
            r"^indices must name envs 0\.\.1 \(an int, a list of them or None for all\), got "
        )
        calls = (
            lambda rows: env.get_attr("num_envs", indices=rows),
            lambda rows: env.set_attr("render_mode", None, indices=rows),
            lambda rows: env.env_method("action_masks", indices=rows),
            lambda rows: env.env_is_wrapped(gymnasium.Wrapper, indices=rows),
        )
        for call in calls:
            with pytest.raises(ValueError, match=expected):
                call(indices)
    assert env.get_attr("num_envs", indices=[1]) == [2]
    assert len(env.env_method("action_masks", indices=[1, 0])) == 2
    env.close()
