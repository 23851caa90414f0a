"""The Gymnasium single-agent view GhostEuchre-v0: API checks, opponents, rewards, MaskablePPO."""

import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from ghost_euchre_env import ghost_euchre_v0
from ghost_euchre_env.ghost import PHASE_NAMES
from ghost_euchre_env.gym_env import ENV_ID, EuchreGymEnv, GhostEuchreGymEnv


def masked_random(env, rng):
    legal = np.flatnonzero(env.action_masks())
    return int(legal[rng.integers(len(legal))])


def test_import_of_the_package_registers_the_env():
    code = "import gymnasium, ghost_euchre_env; gymnasium.make('GhostEuchre-v0').reset(seed=0)"
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("kwargs", [{}, {"episode": "deal"}, {"learner": 2, "auction": "open"}])
def test_gymnasium_check_env(kwargs):
    # check_env steps with unmasked random actions, so it runs with illegal_action="terminate":
    # an illegal action then ends the episode with the penalty instead of raising.
    env = gymnasium.make(ENV_ID, illegal_action="terminate", render_mode="ansi", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning fails the test
        check_env(env.unwrapped)


def test_masks_infos_and_learner_turns():
    env = GhostEuchreGymEnv(learner="player_1", episode="game", target_score=10)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    assert env.observation_space.contains(obs)
    terminated = truncated = False
    while not (terminated or truncated):
        assert env.aec.agent_selection == "player_1"
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        np.testing.assert_array_equal(info["action_mask"], mask)
        obs, _reward, terminated, truncated, info = env.step(masked_random(env, rng))
        assert env.observation_space.contains(obs)
    assert not env.action_masks().any() and info["phase"] == PHASE_NAMES.index("over")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(24)


def test_learner_rewards_add_up_to_its_final_score():
    env = GhostEuchreGymEnv(learner=2, target_score=10)
    rng = np.random.default_rng(1)
    for seed in range(3):
        _, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            _, reward, terminated, truncated, info = env.step(masked_random(env, rng))
            total += reward
            done = terminated or truncated
        assert total == info["last_deal_scores"][2]


def test_opponents_are_called_for_their_seats_only_with_their_obs_and_mask():
    calls = []

    def lowest_legal(obs, mask):
        assert obs.shape == (390,) and obs.dtype == np.float32
        assert mask.dtype == bool and mask.any()
        calls.append((env.aec.agent_selection, np.flatnonzero(mask).tolist()))
        return int(np.flatnonzero(mask)[0])

    env = GhostEuchreGymEnv(learner=0, opponents={"player_2": lowest_legal}, episode="deal")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(masked_random(env, rng))
        done = terminated or truncated
    assert calls and {agent for agent, _ in calls} == {"player_2"}

    env = GhostEuchreGymEnv(learner=0, opponents=lowest_legal, episode="deal")
    calls.clear()
    env.reset(seed=3)
    while not env.step(masked_random(env, rng))[2]:
        pass
    assert {agent for agent, _ in calls} == {"player_1", "player_2"}


def test_seeded_reset_is_deterministic_and_deals_like_the_aec_env():
    def trajectory(seed):
        env = GhostEuchreGymEnv(learner=1, episode="deal")
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = [obs]
        done = False
        while not done:
            obs, reward, terminated, truncated, _ = env.step(masked_random(env, rng))
            out += [obs, reward]
            done = terminated or truncated
        return out

    first, second = trajectory(8), trajectory(8)
    assert len(first) == len(second)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)

    aec = ghost_euchre_v0.env(episode="deal")
    aec.reset(seed=8)
    gym_env = GhostEuchreGymEnv(learner=aec.agent_selection, episode="deal")
    obs, _ = gym_env.reset(seed=8)
    aec_obs = aec.observe(aec.agent_selection)
    assert aec_obs is not None
    np.testing.assert_array_equal(obs, aec_obs["observation"])


def test_bad_arguments_and_actions():
    with pytest.raises(ValueError, match="learner"):
        GhostEuchreGymEnv(learner=3)
    with pytest.raises(ValueError, match="learner's seat"):
        GhostEuchreGymEnv(learner=0, opponents={0: lambda obs, mask: 24})
    with pytest.raises(ValueError, match="callable"):
        GhostEuchreGymEnv(opponents={"player_1": 5})
    env = GhostEuchreGymEnv()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(24)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"int in 0\.\.33"):
        env.step(40)
    with pytest.raises(ValueError, match="legal actions are"):
        env.step(int(np.flatnonzero(~env.action_masks())[0]))

    env = GhostEuchreGymEnv(illegal_action="terminate", illegal_action_penalty=-3)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-3.0, True, False)
    assert info["illegal_action"] == illegal


def test_render_modes(capsys):
    env = GhostEuchreGymEnv(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text is not None and "to act: player_0" in text
    env = GhostEuchreGymEnv(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "Ghost Hand Euchre" in capsys.readouterr().out


class LegalityCheck(gymnasium.Wrapper):
    """Counts the actions the learner sends and how many of them were illegal."""

    def __init__(self, env):
        super().__init__(env)
        learner_env = env.unwrapped
        assert isinstance(learner_env, GhostEuchreGymEnv)
        self.learner_env = learner_env
        self.actions = self.illegal = 0

    def step(self, action):
        self.actions += 1
        self.illegal += not self.learner_env.action_masks()[int(action)]
        return self.env.step(action)

    def action_masks(self):
        return self.learner_env.action_masks()


def test_maskable_ppo_trains_without_an_illegal_action():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    env = LegalityCheck(gymnasium.make(ENV_ID, episode="deal"))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny network: extra threads only contend
    try:
        model = sb3_contrib.MaskablePPO(
            "MlpPolicy",
            env,
            n_steps=128,
            batch_size=64,
            n_epochs=2,
            seed=0,
            device="cpu",
            verbose=0,
        )
        model.learn(total_timesteps=384)
    finally:
        torch.set_num_threads(threads)
    assert env.actions >= 384 and env.illegal == 0


@pytest.mark.parametrize("env_id", ["GhostEuchre-v0", "ClassicEuchre-v0"])
def test_action_masks_before_reset_is_refused_as_step_is(env_id):
    env = gymnasium.make(env_id).unwrapped
    assert isinstance(env, EuchreGymEnv)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before action_masks\(\)"):
        env.action_masks()
    env.reset(seed=0)
    assert env.action_masks().any()
