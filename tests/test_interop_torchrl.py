"""TorchRL 0.14 on every door, unmodified: the RL-libraries page's blocks run as written, and
every action of their masked rollouts is legal."""

import pytest
import torch
from docs_snippets import ROOT, doc_snippet, page_text, run_snippet

pytest.importorskip("torchrl")

pytestmark = pytest.mark.slow  # importing TorchRL and its checks take several seconds


@pytest.fixture(autouse=True)
def one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def legal(rollout, group=()):
    """Whether every action of ``rollout`` was legal by the mask it was taken under."""
    mask = rollout[(*group, "action_mask")]
    action = rollout[(*group, "action")]
    return bool(mask.gather(-1, action.unsqueeze(-1)).all())


def test_gym_env_by_id_with_the_mask():
    example = run_snippet(doc_snippet("torchrl_gym"), "torchrl_gym_example")
    rollout = example["rollout"]
    assert rollout.shape[0] > 10 and legal(rollout)


def test_gym_wrapper_over_the_native_vector_env():
    example = run_snippet(doc_snippet("torchrl_vector"), "torchrl_vector_example")
    rollout = example["rollout"]
    assert rollout.shape == (64, 100) and legal(rollout)
    assert rollout["next", "done"].any()  # games ended and restarted within the rollout
    assert not (rollout["next", "reward"] == -1).all()


def test_the_vector_envs_one_more_option_is_what_the_page_says():
    """TorchRL probes a vector env with one unmasked random step when it wraps it (the single env
    by id, its info reader given a spec, is not probed): with the default illegal_action it is
    the ValueError the page quotes; with "terminate" the wrapper is built."""
    import gymnasium
    from torchrl.envs import GymWrapper

    import ghost_euchre_env  # noqa: F401  (registers the env ids)

    page = " ".join(page_text(ROOT / "docs" / "rl-libraries.md").split())
    assert "One option more than the single env:" in page and "rand_step" in page
    kwargs = {"num_envs": 4, "opponents": "heuristic", "autoreset_mode": "SameStep"}
    venv = gymnasium.make_vec("GhostEuchre-v0", **kwargs)
    torch.manual_seed(0)
    with pytest.raises(ValueError, match=r"^game \d+: action \d+ is not legal; legal actions are"):
        GymWrapper(venv, categorical_action_encoding=True)
    venv = gymnasium.make_vec("GhostEuchre-v0", illegal_action="terminate", **kwargs)
    assert GymWrapper(venv, categorical_action_encoding=True).batch_size == (4,)


def test_pettingzoo_wrapper_over_the_aec_and_parallel_envs():
    example = run_snippet(doc_snippet("torchrl_pettingzoo"), "torchrl_pettingzoo_example")
    env, rollout = example["env"], example["rollout"]  # the last: classic's Parallel env
    assert rollout.shape == (100,)
    for group in env.group_map:
        acting = rollout[group, "action_mask"].sum(-1) > 1  # waiting seats: PASS only
        assert legal(rollout, (group,)) and acting.any()


def test_a_keyword_torchrl_passes_is_dropped_on_the_type_error():
    from torchrl.envs import GymEnv

    env = GymEnv("GhostEuchre-v0", frame_skip=2)  # passes frameskip=2, retried without it
    assert env.wrapper_frame_skip == 2
