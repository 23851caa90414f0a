"""Helpers shared by the AEC env tests of both variants."""

import warnings

import numpy as np
from pettingzoo.test import api_test, render_test, seed_test


def config_id(config):
    return ",".join(f"{k}={v}" for k, v in config.items())


def random_action(obs, rng):
    """A uniformly random legal action from an AEC observation dict."""
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.integers(len(legal))])


def play_episode(env, rng, seed=None, options=None):
    """Random legal play through agent_iter until every agent is done; returns the per-agent return."""
    env.reset(seed=seed, options=options)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        returns[agent] += reward
        env.step(None if terminated or truncated else random_action(obs, rng))
    return returns


def check_pettingzoo_api(env_module, config):
    """PettingZoo's api_test, seed_test and render_test on ``env_module.env(**config)``."""
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore"
        )  # api_test resets with a dummy option; the env warns it ignores it
        api_test(env_module.env(**config), num_cycles=200)
    seed_test(lambda **kw: env_module.env(**config, **kw), num_cycles=100)
    # render_test calls env_fn(render_mode=...), though PettingZoo types env_fn as () -> Env.
    render_test(lambda render_mode: env_module.env(render_mode=render_mode, **config))  # pyright: ignore[reportArgumentType]


def check_plays_like_game_0(env, venv, seed, asked):
    """The AEC env seeded with ``seed`` plays like game 0 of ``venv`` (2 games, seeded the same):
    the same agent on move and observation at every decision, random legal actions for game 0
    and the first legal action for game 1. ``asked(obs)``: what every decision asked must hold."""
    vobs, vmask, vplayer = venv.reset()
    env.reset(seed=seed)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        assert isinstance(obs, dict) and asked(obs)
        assert agent == f"player_{vplayer[0]}"
        np.testing.assert_array_equal(obs["observation"], vobs[0])
        action = random_action(obs, rng)
        vobs, vmask, vplayer, _, _ = venv.step([action, int(np.flatnonzero(vmask[1])[0])])
        env.step(action)


def card_play_renders(env):
    """The ``render()`` texts of an auction-view AEC env (render_mode "ansi") played to the end by
    random legal actions from seed 1 that show card play since the last decision (at least one)."""
    env.reset(seed=1)
    texts = []
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else random_action(obs, np.random.default_rng(0)))
        texts.append(env.render())
    played = [t for t in texts if "card play since the last decision" in t]
    assert played
    return texts, played
