"""The PettingZoo Parallel envs (``parallel_env()``): PettingZoo's checker, and the same games
as the AEC env for the same seed and actions."""

import warnings

import numpy as np
import pytest
from aec_helpers import random_action
from pettingzoo.test import parallel_api_test

from ghost_euchre_env import classic_euchre_v0, ghost_euchre_v0
from ghost_euchre_env.parallel import WAIT

MODULES = [ghost_euchre_v0, classic_euchre_v0]
CONFIGS = [{}, {"episode": "deal"}, {"illegal_action": "terminate"}]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_parallel_api_test_passes(module, config):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker resets with a dummy option; the env warns
        parallel_api_test(module.parallel_env(**config), num_cycles=1000)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
@pytest.mark.parametrize("episode", ["deal", "game"])
def test_same_games_as_the_aec_env_for_the_same_seed_and_actions(module, episode):
    rules = {"target_score": 6} if episode == "game" else {}
    aec = module.env(episode=episode, **rules)
    par = module.parallel_env(episode=episode, **rules)
    rng = np.random.default_rng(3)
    for seed in (5, 6):
        aec.reset(seed=seed)
        observations, infos = par.reset(seed=seed)
        aec_returns = dict.fromkeys(aec.possible_agents, 0.0)
        par_returns = dict.fromkeys(aec.possible_agents, 0.0)
        decisions = 0
        terms = truncs = {}
        for agent in aec.agent_iter():
            obs, reward, terminated, truncated, _ = aec.last()
            aec_returns[agent] += reward
            if terminated or truncated:
                aec.step(None)
                continue
            # the Parallel env sees the same game from every seat, and the same infos
            assert par.agents == aec.agents
            for seat in aec.agents:
                expected = aec.observe(seat)
                np.testing.assert_array_equal(
                    observations[seat]["observation"], expected["observation"]
                )
                mask = observations[seat]["action_mask"]
                if seat == agent:
                    np.testing.assert_array_equal(mask, expected["action_mask"])
                else:  # waiting: PASS only
                    assert np.flatnonzero(mask).tolist() == [WAIT]
                assert infos[seat] == {**aec.infos[seat], "on_move": seat == agent}
            action = random_action(obs, rng)
            others = {seat: 0 for seat in par.agents if seat != agent}  # ignored
            observations, rewards, terms, truncs, infos = par.step({agent: action, **others})
            for seat, value in rewards.items():
                par_returns[seat] += value
            aec.step(action)
            decisions += 1
        assert par.agents == [] and (all(terms.values()) or all(truncs.values()))
        assert par_returns == aec_returns and decisions > 10
        assert par.last_deal == aec.unwrapped.last_deal
        assert not any(o["action_mask"].any() for o in observations.values())


def test_bad_actions_change_nothing_and_terminate_ends_the_episode():
    par = ghost_euchre_v0.parallel_env()
    observations, _ = par.reset(seed=1)
    mover = par.aec.agent_selection
    state = par.aec.game_state
    assert state is not None
    before = state.copy()
    illegal = int(np.flatnonzero(observations[mover]["action_mask"] == 0)[0])
    for actions, match in [
        ({}, f"the action of {mover}, the agent on move"),
        ({mover: 99}, "action must be an int in 0..33"),
        ({mover: illegal}, "is not legal"),
    ]:
        with pytest.raises(ValueError, match=match):
            par.step(actions)
        for name, value in vars(before).items():
            np.testing.assert_array_equal(value, getattr(par.aec.game_state, name))
    par = ghost_euchre_v0.parallel_env(illegal_action="terminate", illegal_action_penalty=-4)
    par.reset(seed=1)
    _, rewards, terms, _, infos = par.step({mover: illegal})
    assert rewards[mover] == -4 and all(terms.values()) and par.agents == []
    assert infos[mover]["illegal_action"] == illegal
    with pytest.raises(RuntimeError, match="reset"):
        par.step({mover: 24})
