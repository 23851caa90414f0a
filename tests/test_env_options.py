"""One contract for every env door (ghost_euchre_env.options): the same keywords, one set of
messages, Python's TypeError for a keyword a door does not take."""

import functools
import math
import re

import gymnasium
import numpy as np
import pytest
from docs_snippets import ROOT, page_text
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from ghost_euchre.agents import make_policy
from ghost_euchre_env import (
    BIDDING_GYM_ENV_ID,
    CLASSIC_BIDDING_GYM_ENV_ID,
    CLASSIC_GYM_ENV_ID,
    GYM_ENV_ID,
    ClassicEuchreVec,
    GhostEuchre,
    GhostEuchreVec,
    classic_bidding_v0,
    classic_euchre_v0,
    ghost_bidding_v0,
    ghost_euchre_v0,
    options,
)
from ghost_euchre_env.gym_vector import EuchreVectorEnv


def native(env_id, num_envs, **kwargs) -> EuchreVectorEnv:
    """``gymnasium.make_vec(env_id, num_envs, **kwargs)``: the native vector env itself."""
    env = gymnasium.make_vec(env_id, num_envs, **kwargs).unwrapped
    assert isinstance(env, EuchreVectorEnv)
    return env


GYM_IDS = [GYM_ENV_ID, BIDDING_GYM_ENV_ID, CLASSIC_GYM_ENV_ID, CLASSIC_BIDDING_GYM_ENV_ID]
BIDDING_IDS = [BIDDING_GYM_ENV_ID, CLASSIC_BIDDING_GYM_ENV_ID]
AEC_DOORS = {
    "ghost_euchre_v0.env()": ghost_euchre_v0.env,
    "classic_euchre_v0.env()": classic_euchre_v0.env,
    "ghost_bidding_v0.env()": ghost_bidding_v0.env,
    "classic_bidding_v0.env()": classic_bidding_v0.env,
    "ghost_euchre_v0.parallel_env()": ghost_euchre_v0.parallel_env,
    "classic_euchre_v0.parallel_env()": classic_euchre_v0.parallel_env,
}
LEARNER_DOORS = {
    **{
        f"gymnasium.make({env_id!r})": lambda env_id=env_id, **kw: gymnasium.make(env_id, **kw)
        for env_id in GYM_IDS
    },
    **{
        f"gymnasium.make_vec({env_id!r})": lambda env_id=env_id, **kw: gymnasium.make_vec(
            env_id, 2, **kw
        )
        for env_id in GYM_IDS
    },
}
DOORS = {**AEC_DOORS, **LEARNER_DOORS}


@pytest.mark.parametrize("door", DOORS)
def test_an_unknown_keyword_is_a_type_error_in_pythons_words(door):
    with pytest.raises(TypeError) as error:
        DOORS[door](frameskip=4)
    message = str(error.value)
    assert message.startswith(f"{door} got an unexpected keyword argument 'frameskip'; it takes")
    assert "render_mode" in message and "target_score" in message


BAD_VALUES = [
    (
        {"render_mode": "rgb_array"},
        "render_mode must be None or one of ['human', 'ansi'], got 'rgb_array'",
    ),
    ({"episode": "set"}, "episode must be one of ['deal', 'game'], got 'set'"),
    ({"reward": "tricks"}, "reward must be one of"),
    (
        {"illegal_action": "ignore"},
        "illegal_action must be one of ['raise', 'terminate'], got 'ignore'",
    ),
    (
        {"illegal_action_penalty": math.nan},
        "illegal_action_penalty must be a finite number, got nan",
    ),
    ({"illegal_action_penalty": True}, "illegal_action_penalty must be a finite number, got True"),
    ({"target_score": 0}, "target_score must be an int >= 1, got 0"),
]
LEARNER_BAD_VALUES = [
    ({"learner": 5}, "learner must be a seat 0.."),
    ({"learner": True}, "learner must be a seat 0.."),
    ({"mask_in_observation": 1}, "mask_in_observation must be a bool, got 1"),
    ({"opponents": 5}, "opponents must be None, a spec string, a policy"),
    ({"opponents": {0: "heuristic"}}, "opponents names player_0, the learner's seat"),
    ({"opponents": {9: "heuristic"}}, "opponents key must be a seat"),
    ({"opponents": {1: 3}}, "opponent for player_1 must be None, a spec string"),
    ({"opponents": "nobot"}, "unknown policy spec 'nobot'"),
    ({"policy_seed": -1}, "policy_seed must be None or an int in 0..2**64-1, got -1"),
    ({"policy_seed": 2**64}, "policy_seed must be None or an int in 0..2**64-1"),
]


@pytest.mark.parametrize(("given", "message"), BAD_VALUES + LEARNER_BAD_VALUES)
@pytest.mark.parametrize("door", DOORS)
def test_a_bad_value_is_one_line_naming_the_option(door, given, message):
    kind = "auction_aec" if "bidding" in door else "aec"
    takes = set(options.KINDS[kind][0]) | {"target_score"}
    if door in AEC_DOORS and not set(given) <= takes:
        with pytest.raises(TypeError, match="unexpected keyword argument"):  # not its option
            DOORS[door](**given)
        return
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        DOORS[door](**given)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    "spec", ["human", "human:name=me", "pimc:rollout=human", "composite[heuristic | human]"]
)
def test_human_is_refused_in_every_env(spec):
    def refused(call):
        with pytest.raises(ValueError, match=r"cannot be .*human"):
            call()

    for env_id in GYM_IDS:
        refused(lambda env_id=env_id: gymnasium.make(env_id, opponents=spec))
        refused(lambda env_id=env_id: gymnasium.make(env_id, opponents={1: spec}))
        refused(lambda env_id=env_id: gymnasium.make_vec(env_id, 2, opponents=spec))
    for env_id in BIDDING_IDS:
        refused(lambda env_id=env_id: gymnasium.make(env_id, card_play=spec))
        refused(lambda env_id=env_id: gymnasium.make_vec(env_id, 2, card_play=spec))
    for module in (ghost_bidding_v0, classic_bidding_v0):
        refused(lambda module=module: module.env(spec))
    human = make_policy("human", GhostEuchre())
    refused(lambda: gymnasium.make(GYM_ENV_ID, opponents=human))


def test_opponents_take_a_spec_a_policy_a_callable_or_a_dict_at_every_door():
    heuristic = make_policy("heuristic", GhostEuchre())

    def lowest(obs, mask):
        return int(np.flatnonzero(mask)[0])

    for opponents in ("heuristic", heuristic, lowest, {1: "heuristic", "player_2": lowest}):
        for env_id in (GYM_ENV_ID, BIDDING_GYM_ENV_ID):
            single = gymnasium.make(env_id, opponents=opponents, episode="deal")
            vector = gymnasium.make_vec(env_id, 3, opponents=opponents, episode="deal")
            obs, _ = single.reset(seed=4)
            vobs, _ = vector.reset(seed=4)
            np.testing.assert_array_equal(obs, vobs[0])  # deterministic opponents: same play


@pytest.mark.parametrize("env_id", GYM_IDS)
def test_mask_in_observation_at_the_single_env_as_in_the_vector_env(env_id):
    single = gymnasium.make(env_id, mask_in_observation=True, opponents="heuristic")
    vector = gymnasium.make_vec(env_id, 2, mask_in_observation=True, opponents="heuristic")
    assert single.observation_space == vector.single_observation_space
    obs, info = single.reset(seed=2)
    vobs, _ = vector.reset(seed=2)
    assert single.observation_space.contains(obs)
    np.testing.assert_array_equal(obs["action_mask"], info["action_mask"].astype(np.float32))
    np.testing.assert_array_equal(obs["observations"], vobs["observations"][0])


@pytest.mark.parametrize("seed", [2**64, -1, True, np.bool_(True), 1.0, "1"])
def test_seeds_outside_what_they_can_mean_are_refused_at_every_door(seed):
    expected = "seed must be None or an int in 0..2**64-1"
    aec = ghost_euchre_v0.env()
    par = classic_euchre_v0.parallel_env()
    single = gymnasium.make(GYM_ENV_ID)
    vector = gymnasium.make_vec(CLASSIC_GYM_ENV_ID, 2)
    batched = [functools.partial(vec, 2) for vec in (GhostEuchreVec, ClassicEuchreVec)]
    for reset in (aec.reset, par.reset, single.reset, vector.reset, *batched):
        with pytest.raises((ValueError, gymnasium.error.Error)) as error:
            reset(seed=seed)  # the batched API's constructor, not its first reset()
        if not isinstance(error.value, gymnasium.error.Error):  # Gymnasium's own check first
            assert re.match(r"seed must be None,? .*an int in 0\.\.2\*\*64-1", str(error.value))
    aec.reset(seed=2**64 - 1)
    vector.reset(seed=2**64 - 2)  # sub-env 1 is seeded 2**64 - 1
    with pytest.raises(ValueError, match=re.escape(expected)):
        vector.reset(seed=2**64 - 1)  # sub-env 1 would be seeded 2**64


@pytest.mark.parametrize(
    ("given", "mode"),
    [
        (AutoresetMode.SAME_STEP, AutoresetMode.SAME_STEP),
        ("SameStep", AutoresetMode.SAME_STEP),
        ("NextStep", AutoresetMode.NEXT_STEP),
    ],
)
def test_autoreset_mode_takes_the_enum_and_its_values(given, mode):
    env = native(GYM_ENV_ID, 2, autoreset_mode=given)
    assert env.autoreset_mode is mode and env.metadata["autoreset_mode"] is mode


def test_autoreset_mode_refuses_others():
    for bad in ("Disabled", AutoresetMode.DISABLED, "same_step", 1):
        with pytest.raises(
            ValueError, match=r"autoreset_mode must be one of \['NextStep', 'SameStep'\]"
        ):
            gymnasium.make_vec(GYM_ENV_ID, 2, autoreset_mode=bad)


def test_num_envs_that_cannot_fit_is_refused_before_allocating():
    with pytest.raises(
        ValueError,
        match=r"num_envs=1000000000000 needs about [\d,]+ GiB .* at most [\d,]+ games fit",
    ):
        gymnasium.make_vec(GYM_ENV_ID, num_envs=10**12)
    for bad in (0, True, 2.0):
        with pytest.raises(ValueError, match="num_envs must be an int >= 1"):
            gymnasium.make_vec(GYM_ENV_ID, num_envs=bad)  # pyright: ignore[reportArgumentType]


def test_gymnasium_vector_env_attributes_and_methods():
    env = native(CLASSIC_GYM_ENV_ID, 3, opponents="heuristic")
    env.reset(seed=0)
    assert env.num_envs == 3 and env.autoreset_mode == AutoresetMode.NEXT_STEP
    masks = env.call("action_masks")
    assert len(masks) == 3
    np.testing.assert_array_equal(np.asarray(masks), env.action_masks())
    assert env.get_attr("render_game") == (0, 0, 0)
    env.set_attr("render_game", [2, 2, 2])
    assert env.render_game == 2
    with pytest.raises(ValueError, match="3 equal ones"):
        env.set_attr("render_game", [0, 1, 2])


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP], ids=str)
@pytest.mark.parametrize("env_id", [GYM_ENV_ID, CLASSIC_BIDDING_GYM_ENV_ID])
def test_vector_illegal_action_terminate_is_the_single_envs(env_id, mode):
    """Unmasked random actions (a library's spec probe): sub-env i is the single env seeded i."""
    kwargs = {
        "opponents": "heuristic",
        "illegal_action": "terminate",
        "illegal_action_penalty": -2.5,
    }
    vector = native(env_id, 3, autoreset_mode=mode, **kwargs)
    sync = SyncVectorEnv([lambda: gymnasium.make(env_id, **kwargs)] * 3, autoreset_mode=mode)
    obs, info = vector.reset(seed=11)
    expected_obs, expected_info = sync.reset(seed=11)
    rng = np.random.default_rng(0)
    penalties = 0
    for _ in range(60):
        np.testing.assert_array_equal(obs, expected_obs)
        np.testing.assert_array_equal(info["action_mask"], expected_info["action_mask"])
        # mostly legal actions, one in five anything
        legal = np.where(info["action_mask"], rng.random(info["action_mask"].shape), -1).argmax(1)
        actions = np.where(rng.random(3) < 0.2, rng.integers(0, vector.game.num_actions, 3), legal)
        obs, reward, terminated, truncated, info = vector.step(actions)
        expected = sync.step(actions)
        expected_obs, expected_info = expected[0], expected[4]
        for got, want in zip((reward, terminated, truncated), expected[1:4], strict=True):
            np.testing.assert_array_equal(got, want)
        penalties += int((reward == -2.5).sum())
    assert penalties > 3


def test_the_docs_options_table_is_the_modules():
    assert options.options_table() in page_text(ROOT / "docs" / "options.md")
