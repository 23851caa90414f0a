"""ghost_euchre/examples/cleanrl_ppo.py (installed as ``ghost_euchre.examples.cleanrl_ppo``), the single-file
PPO over make_vec, at a tiny budget."""

import importlib.util
import pathlib

import torch

EXAMPLE = (
    pathlib.Path(__file__).resolve().parent.parent / "ghost_euchre" / "examples" / "cleanrl_ppo.py"
)


def load_example():
    spec = importlib.util.spec_from_file_location("cleanrl_ppo", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cleanrl_ppo_runs_on_both_variants(capsys):
    example = load_example()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for env_id in ("GhostEuchre-v0", "ClassicEuchre-v0"):
            argv = ["--env-id", env_id, "--num-envs", "16", "--num-steps", "16"]
            _agent, returns = example.main(
                [*argv, "--total-timesteps", "512", "--update-epochs", "1"]
            )
            assert returns, "no episode (a deal) ended in 512 steps"
    finally:
        torch.set_num_threads(threads)
    assert "iteration 2/2: 512 steps" in capsys.readouterr().out
