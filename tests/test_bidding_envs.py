"""The auction view's PettingZoo (ghost_bidding_v0) and Gymnasium (GhostEuchreBidding-v0) faces."""

import re
import warnings

import gymnasium
import numpy as np
import pytest
from aec_helpers import (
    card_play_renders,
    check_pettingzoo_api,
    check_plays_like_game_0,
    config_id,
)
from gymnasium.utils.env_checker import check_env

from ghost_euchre.agents.heuristic import GhostHeuristic
from ghost_euchre_env import BIDDING_GYM_ENV_ID, GhostBiddingVec, ghost_bidding_v0
from ghost_euchre_env.ghost import NUM_CARDS, GhostEuchre
from ghost_euchre_env.gym_bidding import GhostEuchreBiddingGymEnv

HEURISTIC = GhostHeuristic(GhostEuchre())
CONFIGS = [{}, {"episode": "game", "target_score": 10}, {"auction": "open", "reward": "margin"}]


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_pettingzoo_api_seed_and_render(config):
    check_pettingzoo_api(ghost_bidding_v0, {"card_play": HEURISTIC, **config})


def test_agents_act_only_in_the_auction_like_the_vector_view():
    """The AEC env seeded with s plays like game 0 of GhostBiddingVec(2, seed=s)."""
    env = ghost_bidding_v0.env(HEURISTIC, episode="game", target_score=10)
    venv = GhostBiddingVec(2, HEURISTIC, seed=4, episode="game", target_score=10)
    check_plays_like_game_0(env, venv, 4, lambda obs: not obs["action_mask"][:NUM_CARDS].any())


def test_render_shows_the_card_play_between_decisions():
    env = ghost_bidding_v0.env(HEURISTIC, render_mode="ansi", episode="game", target_score=10)
    texts, played = card_play_renders(env)
    for text in played:
        assert "trick 6: " in text and "scored: points" in text
    assert "card play" not in texts[0]  # a bid or pass with no play after it


@pytest.mark.parametrize("kwargs", [{}, {"learner": 1, "episode": "game", "target_score": 8}])
def test_gymnasium_check_env_and_masks(kwargs):
    env = gymnasium.make(
        BIDDING_GYM_ENV_ID, illegal_action="terminate", render_mode="ansi", **kwargs
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env = GhostEuchreBiddingGymEnv(
        card_play=HEURISTIC,
        opponents={2: lambda obs, mask: int(np.flatnonzero(mask)[-1])},
        **kwargs,
    )
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    terminated = truncated = False
    while not (terminated or truncated):
        mask = env.action_masks()
        assert mask.any() and not mask[:NUM_CARDS].any()
        np.testing.assert_array_equal(info["action_mask"], mask)
        legal = np.flatnonzero(mask)
        _, _, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]))


def test_gymnasium_bad_policies_are_named():
    with pytest.raises(ValueError, match="unknown policy spec 'nobot'"):
        GhostEuchreBiddingGymEnv(card_play="nobot")
    with pytest.raises(
        ValueError, match="opponent for player_1 must be None, a spec string, a policy"
    ):
        GhostEuchreBiddingGymEnv(opponents={1: 3})


class IllegalPlay:
    """A card-play policy that always returns PASS (never a legal card play)."""

    name = "always-pass"

    def act(self, obs, mask):
        return np.full(len(mask), 24)


def _gym_state(env):
    return env.aec.game_state.copy(), dict(env.aec._cumulative_rewards), env.action_masks()


def _assert_same_gym_state(env, before):
    state, rewards, mask = before
    for name, array in state.arrays().items():
        assert np.array_equal(getattr(env.aec.game_state, name), array)
    assert env.aec._cumulative_rewards == rewards
    np.testing.assert_array_equal(env.action_masks(), mask)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"card_play": IllegalPlay()}, "card-play policy 'always-pass' returned a bad action"),
        ({"opponents": {0: lambda obs, mask: 0}}, "player_0: action 0 (9♣) is not legal"),
    ],
)
def test_gymnasium_step_is_all_or_nothing_when_a_policy_fails(kwargs, message):
    """The learner (seat 1) passes; an opponent's reply (or the card play it starts) fails:
    the learner's pass is undone with it, and the same step fails again the same way."""
    env = GhostEuchreBiddingGymEnv(learner=1, **{"opponents": "heuristic", **kwargs})
    seed = next(seed for seed in range(20) if _pass_fails(env, seed))  # seat 0 then names trump
    env.reset(seed=seed)
    before = _gym_state(env)
    for _ in range(2):
        with pytest.raises(ValueError, match=re.escape(message)) as error:
            env.step(24)
        assert "\n" not in str(error.value)
        _assert_same_gym_state(env, before)


def _pass_fails(env, seed):
    """Whether the learner's pass fails in the first position of episode ``seed``."""
    env.reset(seed=seed)
    try:
        env.step(24)
    except ValueError:
        return True
    return False
