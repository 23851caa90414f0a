"""sb3-contrib's MaskablePPO on the Gymnasium views as they are: the docs' example on
GhostEuchre-v0, and the auction-only GhostEuchreBidding-v0.

sb3-contrib is in the ``test`` extra (and ``interop``); skipped only when it is not
installed. Both views raise on an illegal action, and LegalityCheck counts them too.
"""

import gymnasium
import pytest
import torch
from docs_snippets import doc_snippet, run_snippet
from test_gym_env import LegalityCheck

from ghost_euchre_env import BIDDING_GYM_ENV_ID

sb3_contrib = pytest.importorskip("sb3_contrib")


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Tiny networks: extra threads only contend."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_docs_maskable_ppo_example_runs_as_written():
    example = run_snippet(doc_snippet("sb3"), "sb3_example")
    assert example["model"].num_timesteps >= 512


def test_maskable_ppo_trains_on_the_bidding_view_without_an_illegal_action():
    env = LegalityCheck(gymnasium.make(BIDDING_GYM_ENV_ID, learner=1))
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=2, seed=0, device="cpu"
    )
    model.learn(total_timesteps=192)
    assert env.actions >= 192 and env.illegal == 0
