"""The PettingZoo AEC adapter classic_euchre_v0: API conformance, seeding, infos, bad input, a hand-traced deal."""

# PettingZoo types observe() and last()'s observation as Optional; these envs always return one.
# pyright: reportOptionalSubscript=false

import numpy as np
import pytest
from aec_helpers import check_pettingzoo_api, config_id, play_episode, random_action
from gymnasium import spaces
from test_classic import LONE_MARCH  # a deal where seat 2 holds the five best hearts

from ghost_euchre_env import classic_euchre_v0
from ghost_euchre_env.cards import parse_card
from ghost_euchre_env.classic import GO_ALONE, OBS_OFFSETS, PASS, SUIT_CLUBS
from ghost_euchre_env.vector import ClassicEuchreVec

CLUBS, DIAMONDS, HEARTS, SPADES = (SUIT_CLUBS + s for s in range(4))

AGENTS = ["player_0", "player_1", "player_2", "player_3"]
AEC_CONFIGS = [
    {"episode": "game"},
    {"episode": "deal"},
    {"episode": "game", "stick_the_dealer": False, "allow_lone_defender": True},
    {"episode": "deal", "stick_the_dealer": False, "allow_lone_defender": True},
    {"episode": "game", "target_score": 3, "max_deals": 2},
    {"episode": "game", "reward": "win", "target_score": 5},
]


@pytest.mark.parametrize("config", AEC_CONFIGS, ids=config_id)
def test_aec_pettingzoo_api_seed_and_render(config):
    check_pettingzoo_api(classic_euchre_v0, config)


def test_aec_spaces_and_masks():
    env = classic_euchre_v0.env()
    env.reset(seed=3)
    space = env.observation_space("player_0")
    assert isinstance(space, spaces.Dict)
    assert space is env.observation_space("player_0")
    assert space["observation"].shape == (464,) and space["action_mask"].shape == (31,)
    assert env.action_space("player_3") == spaces.Discrete(31)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter(400):
        obs, _, terminated, truncated, info = env.last()
        for other in AGENTS:
            other_obs = env.observe(other)
            assert env.observation_space(other).contains(other_obs)
            if other != agent:
                assert not other_obs["action_mask"].any()
        if terminated or truncated:
            env.step(None)
            continue
        assert obs["action_mask"].any() and info["illegal_action"] == -1
        env.step(random_action(obs, rng))


@pytest.mark.parametrize("episode", ["game", "deal"])
def test_aec_deals_like_game_0_of_the_vector_env(episode):
    env = classic_euchre_v0.env(episode=episode, target_score=3)
    venv = ClassicEuchreVec(3, seed=11, episode=episode, target_score=3)
    vobs, vmask, vplayer = venv.reset()
    env.reset(seed=11)
    rng = np.random.default_rng(1)
    for _ in range(3):
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            assert agent == AGENTS[vplayer[0]]
            np.testing.assert_array_equal(obs["observation"], vobs[0])
            np.testing.assert_array_equal(obs["action_mask"].astype(bool), vmask[0])
            action = random_action(obs, rng)
            vobs, vmask, vplayer, _, done = venv.step(
                [action] + [int(np.flatnonzero(m)[0]) for m in vmask[1:]]
            )
            env.step(action)
            if env.agents and env.terminations["player_0"]:
                assert done[0]
        env.reset()  # the next episode of the same stream, as the vector env's auto-reset


def test_aec_reset_options_returns_and_infos():
    env = classic_euchre_v0.env()
    env.reset(seed=0, options={"dealer": 3, "deals": [LONE_MARCH]})
    assert env.agent_selection == "player_0"
    start, stop = OBS_OFFSETS["hand"]
    for seat, agent in enumerate(AGENTS):
        held = np.flatnonzero(env.observe(agent)["observation"][start:stop]).tolist()
        assert held == sorted(LONE_MARCH["hands"][seat])
    with pytest.warns(UserWarning, match="ignores option"):
        env.reset(seed=0, options={"dealer": 1, "speed": "fast"})
    assert env.agent_selection == "player_2"
    with pytest.raises(ValueError, match=r"dealer must be a seat 0\.\.3"):
        env.reset(seed=0, options={"dealer": 4})

    env = classic_euchre_v0.env(target_score=6)
    env.reset(seed=9)
    rng = np.random.default_rng(4)
    returns = dict.fromkeys(AGENTS, 0.0)
    summaries = []
    raw = env.unwrapped
    assert isinstance(raw, classic_euchre_v0.raw_env)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        summary = raw.last_deal
        if summary["deal"] == 0:
            assert summary == classic_euchre_v0.raw_env.no_deal
        elif not summaries or summaries[-1] != summary:
            summaries.append(summary)
        env.step(None if terminated or truncated else random_action(obs, rng))
    assert [s["deal"] for s in summaries] == list(range(1, len(summaries) + 1))
    scores = summaries[-1]["scores"]
    assert tuple(returns[a] for a in AGENTS) == (scores[0], scores[1], scores[0], scores[1])
    assert max(scores) >= 6
    for summary in summaries:
        assert set(summary) == set(classic_euchre_v0.raw_env.no_deal)
        assert summary["maker"] in (0, 1, 2, 3) and summary["trump"] in (0, 1, 2, 3)
        assert sum(summary["tricks"]) == 5

    returns = play_episode(
        classic_euchre_v0.env(reward="win", target_score=6), np.random.default_rng(4), seed=9
    )
    assert (
        sorted(returns.values()) == [-1.0, -1.0, 1.0, 1.0]
        and returns["player_0"] == returns["player_2"]
    )


def test_aec_hand_traced_lone_deal():
    env = classic_euchre_v0.env(episode="deal")
    env.reset(seed=1, options={"dealer": 3, "deals": [LONE_MARCH]})
    for agent in (AGENTS * 2)[:6]:  # six passes
        assert env.agent_selection == agent and env.infos[agent]["phase"] == 0  # bidding
        env.step(PASS)
    assert env.agent_selection == "player_2"
    legal = np.flatnonzero(env.observe("player_2")["action_mask"]).tolist()
    assert legal == [PASS, CLUBS, DIAMONDS, HEARTS]
    env.step(HEARTS)
    assert env.agent_selection == "player_2" and env.infos["player_2"]["phase"] == 2  # alone
    env.step(GO_ALONE)
    movers = []
    while not env.terminations["player_0"]:
        movers.append(env.agent_selection)
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[-1]))
    assert "player_0" not in movers and len(movers) == 15  # player_0 sits out; three cards a trick
    assert env.rewards == {"player_0": 4.0, "player_1": 0.0, "player_2": 4.0, "player_3": 0.0}
    raw = env.unwrapped
    assert isinstance(raw, classic_euchre_v0.raw_env)
    assert raw.last_deal == {
        "deal": 1,
        "thrown_in": False,
        "dealer": 3,
        "maker": 2,
        "trump": 2,  # hearts
        "upcard": parse_card("9S"),
        "maker_alone": True,
        "lone_defender": -1,
        "tricks": (0, 0, 5, 0),
        "points": (4, 0),
        "scores": (4, 0),
    }


def test_aec_truncation_and_dead_steps():
    env = classic_euchre_v0.env(max_deals=1)
    env.reset(seed=0, options={"dealer": 3, "deals": [LONE_MARCH]})
    rng = np.random.default_rng(0)
    while not env.truncations["player_0"]:
        assert not env.terminations["player_0"]
        env.step(random_action(env.observe(env.agent_selection), rng))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    removed = []
    while env.agents:
        with pytest.raises(ValueError, match="only valid action is None"):
            env.step(0)
        removed.append(env.agent_selection)
        env.step(None)
    assert sorted(removed) == AGENTS


@pytest.mark.parametrize("action", [31, -1, 3.0, "24", None, True, np.array([24])])
def test_aec_malformed_action_raises(action):
    env = classic_euchre_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"int in 0\.\.30"):
        env.step(action)


def test_aec_illegal_action_raises_or_terminates():
    env = classic_euchre_v0.env()
    env.reset(seed=0, options={"dealer": 3, "deals": [LONE_MARCH]})
    before = env.observe("player_0")["observation"]
    with pytest.raises(
        ValueError,
        match=r"action 27 \(suit ♥\) is not legal in the bidding phase; "
        r"legal actions are 24 \(pass\), 28 \(suit ♠\)",
    ):
        env.step(HEARTS)
    np.testing.assert_array_equal(env.observe("player_0")["observation"], before)
    env.step(np.int32(PASS))

    env = classic_euchre_v0.env(illegal_action="terminate", illegal_action_penalty=-5)
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(GO_ALONE)
    assert all(env.terminations.values())
    assert env.rewards == {a: (-5.0 if a == offender else 0.0) for a in AGENTS}
    assert {a: env.infos[a]["illegal_action"] for a in AGENTS} == {
        a: (GO_ALONE if a == offender else -1) for a in AGENTS
    }
    with pytest.raises(ValueError, match="illegal_action"):
        classic_euchre_v0.env(illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode"):
        classic_euchre_v0.env(render_mode="rgb_array")


def test_aec_render_ansi_and_human(capsys):
    env = classic_euchre_v0.env(render_mode="ansi")
    env.reset(seed=0, options={"dealer": 3, "deals": [LONE_MARCH]})
    env.step(PASS)
    env.step(SPADES)  # player_1 orders the dealer up
    text = env.render()
    assert isinstance(text, str)
    assert "discard" in text and "order up ♠" in text and "picked up by player_3" in text
    assert "to act: player_3, holding A♦  T♥ 9♥  J♠ T♠ 9♠" in text  # the dealer holds the upcard
    assert "J♥" not in text  # only the hand of the seat to act is shown
    env = classic_euchre_v0.env(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "to act: player_" in capsys.readouterr().out
