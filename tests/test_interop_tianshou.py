"""Tianshou on the AEC envs as they are: its PettingZooEnv, DummyVectorEnv, Collector,
multi-agent off-policy algorithm and off-policy trainer, with no wrapper of ours.

Needs the ``interop`` extra (``pip install -e .[interop]``); skipped only when Tianshou
is not installed. Every env raises on an illegal action (``illegal_action="raise"``),
so a run that finishes played legal actions only; the tests check the stored ones too.
"""

# The interop extra is optional (without it these tests skip): a missing import is a warning.
# pyright: reportMissingImports=warning

import numpy as np
import pytest

pytest.importorskip("tianshou")
import torch
from docs_snippets import doc_snippet, run_snippet
from tianshou.algorithm.algorithm_base import OffPolicyAlgorithm
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.utils.net.common import Net

from ghost_euchre_env import classic_euchre_v0, ghost_euchre_v0

# Small target scores so that a few hundred random steps hold whole games.
CONFIGS = [
    pytest.param(ghost_euchre_v0, {"episode": "deal"}, id="ghost-deal"),
    pytest.param(ghost_euchre_v0, {"episode": "game", "target_score": 6}, id="ghost-game"),
    pytest.param(classic_euchre_v0, {"episode": "deal"}, id="classic-deal"),
    pytest.param(classic_euchre_v0, {"episode": "game", "target_score": 3}, id="classic-game"),
]


def make_envs(module, config, n, seed):
    """n Tianshou-wrapped AEC envs in a DummyVectorEnv, seeded seed, seed + 1, ..."""
    envs = DummyVectorEnv([lambda: PettingZooEnv(module.env(**config)) for _ in range(n)])
    envs.seed(list(range(seed, seed + n)))
    return envs


def random_seats(env) -> list[OffPolicyAlgorithm]:
    """Uniform random masked play, one algorithm per seat."""
    return [
        MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
        for _ in env.agents
    ]


def seat_scores(module, scores):
    """float[n_seats, ...]: each seat's game score from last_deal scores (by seat, or by team)."""
    scores = np.asarray(scores)
    return scores if module is ghost_euchre_v0 else scores[..., [0, 1, 0, 1]]


def playing_seats(module, info, row, num_seats):
    """The seats that played the deal in the info of ``row``: all but the partner of a lone maker."""
    seats = set(range(num_seats))
    if module is classic_euchre_v0 and info.last_deal_maker_alone[row]:
        seats.discard((int(info.last_deal_maker[row]) + 2) % num_seats)
    return sorted(seats)


def check_stored_transitions(module, buffer, num_seats, min_episodes):
    """Every stored action was legal, every seat acted, each finished episode's reward
    vectors add up to every seat's score in the final transition's info, and every seat
    that played the last deal acted within num_seats transitions of the episode's end
    (so n-step returns over num_seats transitions carry the deal's points to it)."""
    episodes = 0
    for sub in buffer.buffers:
        batch = sub[np.arange(len(sub))]
        rows = np.arange(len(sub))
        assert batch.obs.mask[rows, batch.act].all()
        assert set(batch.obs.agent_id) == {f"player_{s}" for s in range(num_seats)}
        assert batch.info.phase.dtype.kind == "i" and (batch.info.illegal_action == -1).all()
        done = np.flatnonzero(batch.terminated | batch.truncated)
        starts = np.concatenate([[0], done + 1])[: len(done)]
        for start, end in zip(starts, done, strict=True):
            returns = batch.rew[start : end + 1].sum(axis=0)
            final = seat_scores(module, batch.info.last_deal_scores[end])
            np.testing.assert_array_equal(returns, final)
            movers = batch.obs.agent_id[start : end + 1]
            for seat in playing_seats(module, batch.info, end, num_seats):
                last = np.flatnonzero(movers == f"player_{seat}")[-1]
                assert end - start - last < num_seats
            episodes += 1
    assert episodes >= min_episodes


@pytest.mark.parametrize(("module", "config"), CONFIGS)
def test_random_masked_play_on_every_seat(module, config):
    env = PettingZooEnv(module.env(**config))
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=random_seats(env), env=env)
    envs = make_envs(module, config, 2, seed=0)
    buffer = VectorReplayBuffer(2000, len(envs))
    collector = Collector[CollectStats](algorithm, envs, buffer, exploration_noise=True)
    collector.reset()
    np.random.seed(0)  # noqa: NPY002  (Tianshou's random seats draw from it)
    stats = collector.collect(n_step=600)
    assert stats.n_collected_steps >= 600
    check_stored_transitions(module, buffer, len(env.agents), min_episodes=4)


@pytest.mark.parametrize(("module", "config"), CONFIGS)
def test_docs_dqn_example_trains_one_seat_against_random_seats(module, config):
    code = doc_snippet("tianshou")
    for line, replacement in (
        (
            "from ghost_euchre_env import ghost_euchre_v0 as euchre\n",
            f"from ghost_euchre_env import {module.__name__.split('.')[-1]} as euchre\n",
        ),
        ('ENV_KWARGS = {"episode": "deal"}\n', f"ENV_KWARGS = {config!r}\n"),
    ):
        assert code.count(line) == 1
        code = code.replace(line, replacement)
    torch.manual_seed(0)
    np.random.seed(0)  # noqa: NPY002  (Tianshou's random seats and exploration draw from it)
    example = run_snippet(code, "tianshou_example")
    torch.manual_seed(0)  # the example's first draw from torch is its network's initial weights
    initial = Net(
        state_shape=example["env"].observation_space["observation"].shape,
        action_shape=example["env"].action_space.n,
        hidden_sizes=[128, 128],
    )
    trained = example["net"]
    assert any(
        not torch.equal(a, b)
        for a, b in zip(initial.parameters(), trained.parameters(), strict=True)
    )
    result = example["result"]
    assert result.update_step >= 10 and np.isfinite(result.best_reward)
    check_stored_transitions(module, example["buffer"], example["seats"], min_episodes=1)
