"""The native Gymnasium vector env: sub-env i is the single env seeded i, action for action."""

import re
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from ghost_euchre.agents import make_policy
from ghost_euchre_env import (
    BIDDING_GYM_ENV_ID,
    CLASSIC_GYM_ENV_ID,
    GYM_ENV_ID,
    ClassicEuchre,
    GhostEuchre,
)
from ghost_euchre_env.gym_bidding import as_callable
from ghost_euchre_env.gym_vector import EuchreVectorEnv

NUM_ENVS = 4
MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
# (env id, env kwargs, engine of its policies): both variants, both episode modes, the auction view
CASES = [
    (GYM_ENV_ID, {"episode": "game", "target_score": 12}, GhostEuchre),
    (GYM_ENV_ID, {"episode": "deal", "learner": 1}, GhostEuchre),
    (BIDDING_GYM_ENV_ID, {"episode": "deal", "learner": 2}, GhostEuchre),
    (BIDDING_GYM_ENV_ID, {"episode": "game", "target_score": 10}, GhostEuchre),
    (CLASSIC_GYM_ENV_ID, {"episode": "game", "target_score": 5}, ClassicEuchre),
    (CLASSIC_GYM_ENV_ID, {"episode": "deal", "learner": 3}, ClassicEuchre),
]


def native(*args, **kwargs) -> EuchreVectorEnv:
    """``gymnasium.make_vec(*args, **kwargs)``, unwrapped: the native env itself."""
    env = gymnasium.make_vec(*args, **kwargs).unwrapped
    assert isinstance(env, EuchreVectorEnv)
    return env


def masked_random(mask, rng):
    """int64[N]: a uniformly random legal action per row (rows with no legal action: 0)."""
    return np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)


def single_envs(env_id, kwargs, engine, mode):
    """The SyncVectorEnv of NUM_ENVS single envs, opponents: the heuristic one game at a time."""
    heuristic = make_policy("heuristic", engine(**_rules(kwargs)))
    opponents = "heuristic" if env_id == BIDDING_GYM_ENV_ID else as_callable(heuristic)
    return SyncVectorEnv(
        [lambda: gymnasium.make(env_id, opponents=opponents, **kwargs)] * NUM_ENVS,
        autoreset_mode=mode,
    )


def _rules(kwargs):
    return {key: value for key, value in kwargs.items() if key not in ("episode", "learner")}


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize(("env_id", "kwargs", "engine"), CASES)
def test_sub_env_i_is_the_single_env_seeded_seed_plus_i(env_id, kwargs, engine, mode):
    native = gymnasium.make_vec(
        env_id, NUM_ENVS, opponents="heuristic", autoreset_mode=mode, **kwargs
    )
    assert isinstance(native.unwrapped, EuchreVectorEnv)
    assert native.metadata["autoreset_mode"] == mode
    sync = single_envs(env_id, kwargs, engine, mode)
    assert native.single_observation_space == sync.single_observation_space
    assert native.single_action_space == sync.single_action_space
    obs, info = native.reset(seed=40)
    expected_obs, expected_info = sync.reset(seed=40)
    rng = np.random.default_rng(5)
    episodes = 0
    for _ in range(400):  # x NUM_ENVS learner decisions
        np.testing.assert_array_equal(obs, expected_obs)
        for key in ("action_mask", "phase"):
            np.testing.assert_array_equal(info[key], expected_info[key])
        np.testing.assert_array_equal(native.unwrapped.action_masks(), info["action_mask"])
        actions = masked_random(info["action_mask"], rng)
        obs, reward, terminated, truncated, info = native.step(actions)
        expected = sync.step(actions)
        expected_obs, expected_info = expected[0], expected[4]
        for got, want in zip((reward, terminated, truncated), expected[1:4], strict=True):
            np.testing.assert_array_equal(got, want)
        if mode == AutoresetMode.SAME_STEP:
            ended = terminated | truncated
            np.testing.assert_array_equal(info.get("_final_obs", np.zeros(NUM_ENVS, bool)), ended)
            for i in np.flatnonzero(ended):
                np.testing.assert_array_equal(info["final_obs"][i], expected_info["final_obs"][i])
        episodes += int((terminated | truncated).sum())
    assert episodes >= 2


def test_random_opponents_same_seed_same_games_and_spaces():
    runs = []
    for _ in range(2):
        env = gymnasium.make_vec(GYM_ENV_ID, 16, episode="deal")
        obs, info = env.reset(seed=3)
        rng = np.random.default_rng(0)
        trace = [obs]
        for _ in range(60):
            assert env.observation_space.contains(obs)
            obs, reward, *_ = env.step(masked_random(info["action_mask"], rng))
            info = _[-1]
            trace += [obs, reward]
        runs.append(trace)
    assert data_equivalence(runs[0], runs[1])


def test_mask_in_observation_and_render_of_a_chosen_game():
    heuristic = make_policy("heuristic", ClassicEuchre())
    env = native(
        CLASSIC_GYM_ENV_ID, 3, opponents=heuristic, mask_in_observation=True, render_mode="ansi"
    )
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
    texts = []
    for game in range(3):
        env.render_game = game
        texts.append(env.render())
    single = gymnasium.make(
        CLASSIC_GYM_ENV_ID, opponents=as_callable(heuristic), render_mode="ansi"
    )
    single.reset(seed=3)
    assert texts[2] == single.render()
    env.render_game = 3
    with pytest.raises(ValueError, match="render_game must be below num_envs"):
        env.render()


class Failing:
    """A policy that returns a bad action (or raises) once it has been asked ``after`` times."""

    name = "failing"

    def __init__(self, after, kind):
        self.calls, self.after, self.kind = 0, after, kind

    def act(self, obs, mask):
        self.calls += 1
        actions = masked_random(mask, np.random.default_rng(0))
        if self.calls > self.after:
            if self.kind == "raise":
                raise RuntimeError("policy failed")
            actions[-1] = np.flatnonzero(~mask[-1])[0]
        return actions


@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        (lambda mask: masked_random(mask, np.random.default_rng(0))[:-1], ValueError, "shape"),
        (lambda mask: np.full(len(mask), 99), ValueError, "game 0: action 99 is not legal"),
        (  # named as given, not as the int64 it wraps to
            lambda mask: np.full(len(mask), 2**64 - 1, np.uint64),
            ValueError,
            "game 0: action 18446744073709551615 is not legal",
        ),
        (lambda mask: (~mask).argmax(1), ValueError, "legal"),
        ("raise", RuntimeError, "policy failed"),
        ("bad", ValueError, "opponent 'failing' at player_1 returned a bad action"),
    ],
)
def test_a_bad_step_changes_nothing(bad, error, match):
    kind = bad if isinstance(bad, str) else "none"  # the opponent's failure, or none
    env = native(GYM_ENV_ID, 8, episode="deal", opponents={1: Failing(30, kind)})
    env.reset(seed=9)  # seat 2 plays randomly: the generator must be put back too
    rng = np.random.default_rng(1)
    failed = None
    state, mask, draws = env.state.copy(), env.action_masks(), env.np_random.bit_generator.state
    for _ in range(200):
        state, mask, draws = env.state.copy(), env.action_masks(), env.np_random.bit_generator.state
        actions = bad(mask) if callable(bad) else masked_random(mask, rng)
        try:
            env.step(actions)
        except (ValueError, RuntimeError) as raised:
            failed = raised
            break
    assert isinstance(failed, error) and re.search(match, str(failed)), failed
    for name, value in vars(state).items():
        np.testing.assert_array_equal(value, getattr(env.state, name), err_msg=name)
    np.testing.assert_array_equal(env.action_masks(), mask)
    assert env.np_random.bit_generator.state == draws


def test_constructor_errors_are_one_clear_line():
    with pytest.raises(ValueError, match="opponents must be None, a spec string, a policy"):
        gymnasium.make_vec(GYM_ENV_ID, 2, opponents=5)
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        gymnasium.make_vec(GYM_ENV_ID, 2, illegal_action="ignore")
    with pytest.raises(ValueError, match="autoreset_mode must be one of"):
        gymnasium.make_vec(GYM_ENV_ID, 2, autoreset_mode="Disabled")
    with pytest.raises(ValueError, match="the learner's seat"):
        gymnasium.make_vec(CLASSIC_GYM_ENV_ID, 2, learner=2, opponents={"player_2": None})
    env = native(GYM_ENV_ID, 2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, int))
    for masks in (env.action_masks, lambda: env.call("action_masks")):  # refused as step is
        with pytest.raises(RuntimeError, match=re.escape("call reset() before action_masks()")):
            masks()
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)
    with pytest.raises(ValueError, match="a list of 2 such ints"):
        env.reset(seed=[1, None])


@pytest.mark.parametrize("kwargs", [{}, {"episode": "deal", "learner": 1}])
def test_the_classic_single_env_passes_gymnasiums_checker(kwargs):
    env = gymnasium.make(
        CLASSIC_GYM_ENV_ID, illegal_action="terminate", render_mode="ansi", **kwargs
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
