"""RLlib's new API stack PPO on the native vector env (gym_env_vectorize_mode="vector_entry_point"),
the docs' example run as written at a tiny budget (one Ray start: Ray is slow to start)."""

# The interop extra is optional (without it these tests skip): a missing import is a warning.
# pyright: reportMissingImports=warning

import pytest
import torch

pytest.importorskip("ray.rllib")
from docs_snippets import doc_snippet, run_snippet

from ghost_euchre_env.gym_vector import EuchreVectorEnv


def test_docs_rllib_ppo_on_the_native_vector_env_runs_as_written():
    threads = torch.get_num_threads()
    try:
        example = run_snippet(doc_snippet("rllib_native"), "rllib_native_example")
    finally:
        torch.set_num_threads(threads)
    assert example["result"]["env_runners"]["num_env_steps_sampled_lifetime"] >= 512
    assert isinstance(example["algo"].env_runner.env.unwrapped, EuchreVectorEnv)
