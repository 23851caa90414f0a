"""The PettingZoo AEC adapter ghost_euchre_v0: API conformance, seeding, infos, bad input, a hand-traced deal."""

# PettingZoo types observe() and last()'s observation as Optional; these envs always return one.
# pyright: reportOptionalSubscript=false

from typing import Any

import numpy as np
import pytest
from aec_helpers import check_pettingzoo_api, config_id, play_episode, random_action
from gymnasium import spaces

from ghost_euchre_env import ghost_euchre_v0
from ghost_euchre_env.aec import flat_deal
from ghost_euchre_env.ghost import OBS_OFFSETS
from ghost_euchre_env.vector import GhostEuchreVec

AGENTS = ["player_0", "player_1", "player_2"]

# Every rules option away from its default at least once, in both episode modes.
RULES = [
    {},
    {"auction": "open"},
    {"allow_renege": True, "renege_penalty": 3},
    {"moon_points": 12, "moon_set_penalty": 9},
    {"target_score": 8},
    {"max_deals": 2},
]
CONFIGS: list[dict[str, Any]] = [
    dict(episode=episode, **rules) for episode in ("game", "deal") for rules in RULES
]
CONFIGS.append({"episode": "game", "reward": "win", "target_score": 10})


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_pettingzoo_api_seed_and_render(config):
    check_pettingzoo_api(ghost_euchre_v0, config)


def test_spaces_are_built_once_and_observations_fit_them():
    env = ghost_euchre_v0.env()
    env.reset(seed=3)
    space = env.observation_space("player_0")
    assert isinstance(space, spaces.Dict)
    assert space is env.observation_space("player_0")
    assert space is not env.observation_space("player_1")  # each agent's space seeds on its own
    assert space["observation"].shape == (390,) and space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (34,) and space["action_mask"].dtype == np.int8
    assert env.action_space("player_2") == spaces.Discrete(34)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter(300):
        obs, _, terminated, truncated, info = env.last()
        for other in AGENTS:
            other_obs = env.observe(other)
            assert space.contains(other_obs)
            if other != agent:
                assert not other_obs[
                    "action_mask"
                ].any()  # only the agent on move has legal actions
        if terminated or truncated:
            env.step(None)
            continue
        assert obs["action_mask"].any() and info["illegal_action"] == -1
        env.step(random_action(obs, rng))


def test_observations_are_new_arrays_on_every_call():
    env = ghost_euchre_v0.env()
    env.reset(seed=0)
    first, second = env.observe("player_0"), env.observe("player_0")
    assert not np.shares_memory(first["observation"], second["observation"])
    assert not np.shares_memory(first["action_mask"], second["action_mask"])
    first["observation"][:] = 7
    assert np.array_equal(env.observe("player_0")["observation"], second["observation"])


@pytest.mark.parametrize("episode", ["game", "deal"])
def test_deals_like_game_0_of_the_vector_env_across_episodes(episode):
    """AEC seeded with s == game 0 of GhostEuchreVec(3, seed=s), also after reset() without a seed."""
    seed = 11
    env = ghost_euchre_v0.env(episode=episode, max_deals=3)
    venv = GhostEuchreVec(3, seed=seed, episode=episode, max_deals=3)
    vobs, vmask, vplayer = venv.reset()
    env.reset(seed=seed)
    rng = np.random.default_rng(1)
    episodes = 0
    while episodes < 3:
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            assert agent == AGENTS[vplayer[0]]
            np.testing.assert_array_equal(obs["observation"], vobs[0])
            np.testing.assert_array_equal(obs["action_mask"].astype(bool), vmask[0])
            action = random_action(obs, rng)
            actions = [action] + [int(np.flatnonzero(m)[0]) for m in vmask[1:]]
            vobs, vmask, vplayer, _, done = venv.step(actions)
            env.step(action)
            if env.agents and (env.terminations[AGENTS[0]] or env.truncations[AGENTS[0]]):
                assert done[0]
        episodes += 1
        env.reset()  # the next episode of the same stream, as the vector env's auto-reset


def test_seeded_reset_repeats_and_unseeded_reset_moves_on():
    env = ghost_euchre_v0.env()
    hands = []
    for seed in (5, 5, None):
        env.reset(seed=seed)
        hands.append(env.observe(env.agent_selection)["observation"])
    np.testing.assert_array_equal(hands[0], hands[1])
    assert not np.array_equal(hands[0], hands[2])


def test_reset_options_choose_dealer_and_deal_and_unknown_options_warn():
    deal = {
        "hands": [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11], [12, 13, 14, 15, 16, 17]],
        "ghost": [18, 19, 20, 21, 22, 23],
    }
    env = ghost_euchre_v0.env()
    env.reset(seed=0, options={"dealer": 1, "deals": [deal]})
    assert env.agent_selection == "player_2"  # left of the dealer
    start, stop = OBS_OFFSETS["hand"]
    for seat, agent in enumerate(AGENTS):
        hand = np.flatnonzero(env.observe(agent)["observation"][start:stop]).tolist()
        assert hand == deal["hands"][seat]
    with pytest.warns(UserWarning, match="ignores option"):
        env.reset(seed=0, options={"dealer": 1, "speed": "fast"})
    assert env.agent_selection == "player_2"
    with pytest.raises(ValueError, match="dealer"):
        env.reset(seed=0, options={"dealer": 3})


def test_points_returns_equal_scores_and_win_rewards_are_plus_one_minus_half():
    rng = np.random.default_rng(4)
    env = ghost_euchre_v0.env(target_score=12)
    env.reset(seed=9)
    returns = dict.fromkeys(AGENTS, 0.0)
    last_scores = None
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        returns[agent] += reward
        last_scores = info["last_deal_scores"]
        env.step(None if terminated or truncated else random_action(obs, rng))
    assert tuple(returns[a] for a in AGENTS) == last_scores

    env = ghost_euchre_v0.env(reward="win", target_score=12)
    returns = play_episode(env, np.random.default_rng(4), seed=9)
    assert sorted(returns.values()) == [-0.5, -0.5, 1.0]


def test_infos_are_fixed_shape_numbers_with_phase_and_deal_summary():
    env = ghost_euchre_v0.env(episode="game", target_score=10)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    seen_phases, summaries = set(), []
    no_deal = ghost_euchre_v0.raw_env.no_deal
    flat = flat_deal(no_deal)
    raw = env.unwrapped
    assert isinstance(raw, ghost_euchre_v0.raw_env)
    for _ in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        seen_phases.add(info["phase"])
        for other in env.agents:
            other_info = env.infos[other]
            assert set(other_info) == {"phase", "illegal_action", *flat}
            assert other_info["illegal_action"] == -1
            for key, value in other_info.items():  # numbers and tuples of numbers: they stack
                assert np.shape(value) == np.shape(flat.get(key, 0))
                assert np.asarray(value).dtype.kind in "biu", key
        summary = raw.last_deal
        assert flat_deal(summary) == {key: info[key] for key in flat}
        if summary["deal"] == 0:
            assert summary == no_deal
        elif not summaries or summaries[-1] != summary:
            summaries.append(summary)
        env.step(None if terminated or truncated else random_action(obs, rng))
    assert seen_phases == {0, 1, 2, 3}  # auction, trump, play, over
    assert [s["deal"] for s in summaries] == list(range(1, len(summaries) + 1))
    running = np.zeros(3, int)
    for summary in summaries:
        if summary["thrown_in"]:
            assert (summary["maker"], summary["bid"], summary["trump"]) == (-1, 0, -1)
            assert summary["points"] == (0, 0, 0)
        else:
            assert summary["maker"] in (0, 1, 2) and summary["bid"] in (3, 4, 5, 6)
            assert summary["trump"] in (0, 1, 2, 3) and sum(summary["tricks"]) == 6
        running += summary["points"]
        assert tuple(running) == summary["scores"]


def test_truncation_at_max_deals():
    env = ghost_euchre_v0.env(max_deals=1)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not env.truncations["player_0"]:
        assert not env.terminations["player_0"]
        env.step(random_action(env.observe(env.agent_selection), rng))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    for _ in range(3):
        env.step(None)
    assert env.agents == []


@pytest.mark.parametrize("action", [34, -1, 3.0, "24", None, True, np.array([24])])
def test_malformed_action_raises_saying_what_was_expected(action):
    env = ghost_euchre_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"int in 0\.\.33"):
        env.step(action)


def test_illegal_action_raises_listing_legal_ones_and_changes_nothing():
    env = ghost_euchre_v0.env()
    env.reset(seed=0)
    before = env.observe(env.agent_selection)["observation"]
    with pytest.raises(
        ValueError,
        match=r"action 0 \(9♣\) is not legal in the auction phase; legal actions are "
        r"24 \(pass\), 29 \(bid 3\), 30 \(bid 4\), 31 \(bid 5\), 32 \(moon\), 33 \(swap\)",
    ):
        env.step(0)
    np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"], before)
    env.step(np.int32(24))  # numpy integers are fine


def test_terminate_on_illegal_penalises_the_offender_and_ends_the_episode():
    env = ghost_euchre_v0.env(illegal_action="terminate", illegal_action_penalty=-5)
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(0)
    assert all(env.terminations.values())
    assert env.rewards == {a: (-5.0 if a == offender else 0.0) for a in AGENTS}
    assert {a: env.infos[a]["illegal_action"] for a in AGENTS} == {
        a: (0 if a == offender else -1) for a in AGENTS
    }
    assert not any(env.observe(a)["action_mask"].any() for a in AGENTS)
    returns = {}
    for agent in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        assert terminated
        returns[agent] = reward
        with pytest.raises(ValueError, match="only valid action is None"):
            env.step(24)
        env.step(None)
    assert returns == {a: (-5.0 if a == offender else 0.0) for a in AGENTS}
    with pytest.raises(ValueError, match="illegal_action"):
        ghost_euchre_v0.env(illegal_action="ignore")


def test_dead_steps_after_the_game_ends():
    env = ghost_euchre_v0.env(episode="deal")
    rng = np.random.default_rng(3)
    env.reset(seed=4)
    while not env.terminations["player_0"]:
        env.step(random_action(env.observe(env.agent_selection), rng))
    removed = []
    while env.agents:
        with pytest.raises(ValueError, match="only valid action is None"):
            env.step(0)
        removed.append(env.agent_selection)
        env.step(None)
    assert sorted(removed) == AGENTS


def test_render_ansi_shows_the_table_and_human_prints_it(capsys):
    deal = {
        "hands": [[10, 9, 22, 18, 0, 7], [20, 16, 12, 21, 17, 2], [23, 19, 15, 11, 4, 14]],
        "ghost": [8, 1, 5, 13, 3, 6],
    }
    env = ghost_euchre_v0.env(render_mode="ansi")
    env.reset(seed=0, options={"dealer": 2, "deals": [deal]})
    env.step(30)  # player_0 bids 4
    text = env.render()
    assert isinstance(text, str)
    assert "player_0" in text and "bid 4" in text and "dealer" in text
    assert "to act: player_1, holding A♣ K♣ Q♣  A♦ K♦  9♥" in text
    assert "J♥" not in text  # player_0's hand is not shown while player_1 acts
    env = ghost_euchre_v0.env(render_mode="human")
    env.reset(seed=0, options={"dealer": 2, "deals": [deal]})
    assert env.render() is None
    assert "to act: player_0, holding" in capsys.readouterr().out
    with pytest.raises(ValueError, match="render_mode"):
        ghost_euchre_v0.env(render_mode="rgb_array")


# A deal traced by hand. Card ids: rank*4+suit, ranks 9,T,J,Q,K,A = 0..5, suits C,D,H,S = 0..3.
#   player_0: J♥ 10, J♦ 9, A♥ 22, K♥ 18, 9♣ 0, T♠ 7
#   player_1: A♣ 20, K♣ 16, Q♣ 12, A♦ 21, K♦ 17, 9♥ 2
#   player_2: A♠ 23, K♠ 19, Q♠ 15, J♠ 11, T♣ 4, Q♥ 14
#   ghost:    J♣ 8, 9♦ 1, T♦ 5, Q♦ 13, 9♠ 3, T♥ 6
# Dealer player_2, so player_0 opens the auction.
#   p0: nothing bid, may swap -> pass, bids 3/4/5, moon, swap legal. Bids 4.
#   p1: over 4 -> pass, bid 5, moon, swap. Swaps: now holds J♣ 9♦ T♦ Q♦ 9♠ T♥; its old
#       hand (A♣ K♣ Q♣ A♦ K♦ 9♥) is dead.
#   p1 again: no second swap -> pass, bid 5, moon. Passes.
#   p2: somebody swapped -> pass, bid 5, moon. Passes. p0 declares at 4 and names hearts.
#   With hearts trump, J♥ is the right bower and J♦ the left bower (a heart).
# Trick 1, p0 leads anything: J♥. p1 must follow hearts: only T♥. p2: only Q♥. Right bower wins: p0.
# Trick 2, p0 leads J♦ = trump led. p1 has no heart (its diamonds do not follow a left bower):
#   any card. p1 9♠. p2 has no heart: any; T♣. Only trump: p0.
# Trick 3, p0 leads 9♣. p1 must play its club J♣ (J♣ is no bower under hearts). p2 has no club:
#   any; A♠. J♣ is the highest club: p1.
# Trick 4, p1 leads Q♦ (any of its diamonds). p2 has none: any; J♠. p0 has none: any; K♥
#   trumps it: p0.
# Trick 5, p0 leads T♠ (T♠ or A♥). p1 has no spade: 9♦ or T♦; 9♦. p2 must follow: K♠ or Q♠;
#   Q♠ beats T♠: p2.
# Trick 6, p2 leads K♠ (its last card). p0 A♥ (last card, trump) wins; p1 T♦.
# Tricks: p0 4, p1 1, p2 1. p0 bid 4 and took 4: +4; the others +1 per trick: points (4, 1, 1).
TRACED_DEAL = {
    "hands": [[10, 9, 22, 18, 0, 7], [20, 16, 12, 21, 17, 2], [23, 19, 15, 11, 4, 14]],
    "ghost": [8, 1, 5, 13, 3, 6],
}
TRACE = [  # (agent on move, its legal actions, the action taken)
    ("player_0", [24, 29, 30, 31, 32, 33], 30),
    ("player_1", [24, 31, 32, 33], 33),
    ("player_1", [24, 31, 32], 24),
    ("player_2", [24, 31, 32], 24),
    ("player_0", [25, 26, 27, 28], 27),
    ("player_0", [0, 7, 9, 10, 18, 22], 10),
    ("player_1", [6], 6),
    ("player_2", [14], 14),
    ("player_0", [0, 7, 9, 18, 22], 9),
    ("player_1", [1, 3, 5, 8, 13], 3),
    ("player_2", [4, 11, 15, 19, 23], 4),
    ("player_0", [0, 7, 18, 22], 0),
    ("player_1", [8], 8),
    ("player_2", [11, 15, 19, 23], 23),
    ("player_1", [1, 5, 13], 13),
    ("player_2", [11, 15, 19], 11),
    ("player_0", [7, 18, 22], 18),
    ("player_0", [7, 22], 7),
    ("player_1", [1, 5], 1),
    ("player_2", [15, 19], 15),
    ("player_2", [19], 19),
    ("player_0", [22], 22),
    ("player_1", [5], 5),
]


@pytest.mark.parametrize("episode", ["deal", "game"])
def test_hand_traced_deal(episode):
    env = ghost_euchre_v0.env(episode=episode)
    env.reset(seed=123, options={"dealer": 2, "deals": [TRACED_DEAL]})
    dead_start, dead_stop = OBS_OFFSETS["dead_hand"]
    for step, (agent, legal, action) in enumerate(TRACE):
        obs, reward, terminated, truncated, _ = env.last()
        assert env.agent_selection == agent, f"decision {step}"
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal, f"decision {step}"
        assert not terminated and not truncated and reward == 0
        env.step(action)
        if step == 1:  # the swap: player_1 sees its dead hand, nobody else does
            dead = env.observe("player_1")["observation"][dead_start:dead_stop]
            assert np.flatnonzero(dead).tolist() == [2, 12, 16, 17, 20, 21]
            assert not env.observe("player_0")["observation"][dead_start:dead_stop].any()
    assert env.rewards == {"player_0": 4.0, "player_1": 1.0, "player_2": 1.0}
    raw = env.unwrapped
    assert isinstance(raw, ghost_euchre_v0.raw_env)
    summary = raw.last_deal
    assert summary == {
        "deal": 1,
        "thrown_in": False,
        "dealer": 2,
        "maker": 0,
        "swapper": 1,
        "bid": 4,
        "trump": 2,  # hearts
        "tricks": (4, 1, 1),
        "reneges": (0, 0, 0),
        "points": (4, 1, 1),
        "scores": (4, 1, 1),
    }
    if episode == "deal":
        assert all(env.terminations.values())
    else:  # play goes on: a random second deal, dealt by the next seat clockwise
        assert not any(env.terminations.values())
        assert env.infos["player_1"]["phase"] == 0 and env.agent_selection == "player_1"  # auction
