"""RLlib on the AEC envs as they are: Ray's PettingZooEnv wrapper, the new API stack,
multi-agent PPO with an action-masking module (the docs' example, run as written).

Needs the ``interop`` extra; skipped only when Ray RLlib is not installed. The env
raises on an illegal action (``illegal_action="raise"``), so a training run that
finishes sampled legal actions only.
"""

# The interop extra is optional (without it these tests skip): a missing import is a warning.
# pyright: reportMissingImports=warning

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
from docs_snippets import doc_snippet, run_snippet
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

from ghost_euchre_env import classic_euchre_v0, ghost_euchre_v0


@pytest.mark.parametrize(
    ("module", "config"),
    [
        pytest.param(ghost_euchre_v0, {"episode": "deal"}, id="ghost-deal"),
        pytest.param(ghost_euchre_v0, {"episode": "game", "target_score": 6}, id="ghost-game"),
        pytest.param(classic_euchre_v0, {"episode": "deal"}, id="classic-deal"),
        pytest.param(classic_euchre_v0, {"episode": "game", "target_score": 3}, id="classic-game"),
    ],
)
def test_wrapper_hands_every_seat_exactly_its_points(module, config):
    env = PettingZooEnv(module.env(**config))
    rng = np.random.default_rng(0)
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        infos, done = {}, False
        while not done:
            (agent,) = obs  # one seat on move at a time
            legal = np.flatnonzero(obs[agent]["action_mask"])
            obs, rewards, terminateds, truncateds, infos = env.step({agent: int(rng.choice(legal))})
            for seat, reward in rewards.items():
                returns[seat] += reward
            done = terminateds["__all__"] or truncateds["__all__"]
        assert set(infos) == set(env.possible_agents)  # every seat hears the end
        scores = np.asarray(infos["player_0"]["last_deal_scores"])
        if module is classic_euchre_v0:
            scores = scores[[0, 1, 0, 1]]
        assert [returns[f"player_{s}"] for s in range(len(scores))] == scores.tolist()


def test_docs_ppo_example_trains_a_shared_masked_module_on_all_seats():
    example = run_snippet(doc_snippet("rllib"), "rllib_example")
    results = example["results"]
    assert len(results) == 3
    runners, learner = results[-1]["env_runners"], results[-1]["learners"]["shared"]
    assert runners["num_env_steps_sampled_lifetime"] >= 3 * 400
    assert set(runners["agent_episode_returns_mean"]) == {"player_0", "player_1", "player_2"}
    assert np.isfinite(learner["policy_loss"]) and np.isfinite(learner["vf_loss"])
