"""train.py under torchrun: 2 ranks on CPU (gloo) against the single-process trainer.

What a K-rank run guarantees (train.py's docstring): the parameters are identical
on every rank after every update, and each update equals the single-process
update on the union of the ranks' rollouts (same minibatches of the global batch,
advantages normalised over each minibatch, the gradient of its mean loss), up
to float summation order; rank r plays games r*N/K .. (r+1)*N/K - 1 of the
seed's deal streams; a checkpoint resumes exactly under the same world size.
"""

import os
import socket
import subprocess
import sys
import types

import numpy as np
import pytest
import torch
from test_train import TINY

from ghost_euchre.trainer import cli
from ghost_euchre.trainer.config import make_config
from ghost_euchre.trainer.ranks import Ranks, backend_for, pick_device, rank_seed
from ghost_euchre.trainer.run import setup
from ghost_euchre.trainer.update import Shares, ppo_update
from ghost_euchre_env import GhostEuchreVec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER = os.path.join(ROOT, "tests", "distributed_worker.py")
RUN = ["--total_steps", "512", "--eval_every", "0", "--final_eval_games", "0", *TINY]


def torchrun(*args):
    """2 ranks on this machine (torchrun picks the port); returns the finished process."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2"]
    result = subprocess.run(
        [*command, *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result


@pytest.fixture(scope="module")
def two_rank_run(tmp_path_factory):
    """A recorded 2-rank run of 4 updates with a checkpoint after update 2, and its resumed twin."""
    base = tmp_path_factory.mktemp("ddp")
    records = base / "records"
    records.mkdir()
    options = ["--checkpoint_every", "2", "--keep_checkpoints", "0", *RUN]
    torchrun(
        WORKER, "record", str(records), "--runs_dir", str(base), "--name", "straight", *options
    )
    halfway = base / "straight" / "checkpoints" / "update_000002.pt"
    torchrun("train.py", "--resume", str(halfway), "--runs_dir", str(base / "resumed"))
    return base, records


def _load(path):
    return torch.load(path, weights_only=False)


def test_parameters_are_identical_on_both_ranks_after_every_update(two_rank_run):
    _, records = two_rank_run
    for update in range(1, 5):
        rank0, rank1 = (_load(records / f"rank{r}_update{update}.pt") for r in (0, 1))
        assert rank0["shares"].tolist() == rank1["shares"].tolist()
        assert rank0["obs"].shape[0] > 0 and rank1["obs"].shape[0] > 0
        assert not np.array_equal(rank0["action"][:20], rank1["action"][:20])  # their own games
        for key in rank0["after"]:
            assert torch.equal(rank0["after"][key], rank1["after"][key]), (update, key)
            assert torch.equal(rank0["model"][key], rank1["model"][key]), (update, key)


def test_each_update_is_the_single_process_update_on_both_ranks_decisions(
    two_rank_run, torch_globals
):
    _, records = two_rank_run
    config, _, _ = cli.parse_args(RUN)
    run = setup(config, Ranks(0, 1, torch.device("cpu"), 60.0))
    with_lessons = 0
    for update in range(1, 5):
        parts = [_load(records / f"rank{r}_update{update}.pt") for r in (0, 1)]
        merged = {k: np.concatenate([p[k] for p in parts]) for k in ("obs", "mask", "action",
                  "logprob", "value", "advantages", "returns")}  # fmt: skip
        buf = types.SimpleNamespace(count=len(merged["action"]), **merged)
        lessons = [tuple(np.concatenate(x) for x in zip(*p["lessons"], strict=True))
                   for p in parts if p["lessons"]]  # fmt: skip
        table = parts[0]["shares"].sum(axis=0, keepdims=True)  # one rank holding everything
        shares = Shares.of_table(table)
        assert shares.decisions[0] == buf.count
        assert shares.lessons[0] == sum(len(x[2]) for x in lessons)
        with_lessons += bool(shares.lessons[0])
        run.model.load_state_dict(parts[0]["model"])
        run.optimizer.load_state_dict(parts[0]["optimizer"])
        run.minibatch_rng.bit_generator.state = parts[0]["minibatch_rng"]
        ppo_update(run, buf, merged["advantages"], merged["returns"], lessons, shares)
        for key, value in run.model.state_dict().items():
            torch.testing.assert_close(value, parts[0]["after"][key], rtol=1e-4, atol=1e-6)
    assert with_lessons >= 1  # the warm-up's imitation lessons took part


def test_rank_r_plays_its_slice_of_the_single_process_games(torch_globals):
    config = make_config({"num_envs": 16, "hidden_sizes": [32], "pool_size": 2})
    single = GhostEuchreVec(16, seed=config.seed)
    obs, mask, player = single.reset()
    assert single.state is not None
    seeds = set()
    for rank in (0, 1):
        run = setup(config, Ranks(rank, 2, torch.device("cpu"), 60.0))
        games = slice(8 * rank, 8 * rank + 8)
        assert np.array_equal(run.obs, obs[games]) and np.array_equal(run.mask, mask[games])
        assert np.array_equal(run.player, player[games])
        assert run.venv.state is not None
        assert np.array_equal(run.venv.state.keys, single.state.keys[games])  # later deals too
        seeds.add(rank_seed(config.seed, run.ranks))  # roles and sampling: one stream per rank
    assert len(seeds) == 2 and config.seed not in seeds


def test_a_rank_0_checkpoint_resumes_to_the_same_final_parameters(two_rank_run):
    base, _ = two_rank_run
    straight, resumed = (_load(base / d / "final.pt") for d in ("straight", "resumed/straight"))
    assert straight["update"] == resumed["update"] == 4 and straight["world_size"] == 2
    assert straight["global_step"] == 512  # both ranks' decisions: 4 updates x 16 games x 8 steps
    written = sorted(os.listdir(base / "straight"))  # rank 0 alone writes: one events file
    assert [name for name in written if not name.startswith("events.out")] == [
        "checkpoints", "config.yaml", "final.pt", "policy.pt",
    ] and sum(name.startswith("events.out") for name in written) == 1  # fmt: skip
    for key in straight["model"]:
        assert torch.equal(straight["model"][key], resumed["model"][key]), key
    for field in straight["env_state"]:  # rank 0's games, and rank 1's
        assert torch.equal(straight["env_state"][field][2], resumed["env_state"][field][2])
        other = straight["other_ranks"][0]["env_state"][field][2]
        assert torch.equal(other, resumed["other_ranks"][0]["env_state"][field][2])
    for rng in (straight["rng"], straight["other_ranks"][0]["rng"]):
        assert rng["minibatch"] == straight["rng"]["minibatch"]  # the same order on both ranks
    for key in ("numpy", "minibatch", "heuristic"):
        assert straight["other_ranks"][0]["rng"][key] == resumed["other_ranks"][0]["rng"][key]
    assert straight["rng"]["numpy"] != straight["other_ranks"][0]["rng"]["numpy"]
    halfway = _load(base / "straight" / "checkpoints" / "update_000002.pt")
    assert not all(torch.equal(halfway["model"][k], straight["model"][k]) for k in halfway["model"])


def test_another_world_size_is_a_one_line_error(two_rank_run, monkeypatch, capsys):
    base, _ = two_rank_run
    halfway = str(base / "straight" / "checkpoints" / "update_000002.pt")
    with pytest.raises(SystemExit):
        cli.parse_args(["--resume", halfway])
    err = capsys.readouterr().err
    assert "holds the games of 2 rank(s); resume it with 2" in err and err.count("\n") == 1
    monkeypatch.setenv("WORLD_SIZE", "3")
    with pytest.raises(SystemExit):
        cli.parse_args(["--num_envs", "16"])
    assert (
        "num_envs must be a multiple of the number of ranks (3), got 16" in capsys.readouterr().err
    )


@pytest.mark.parametrize("how", ["die", "hang"])
def test_a_rank_that_dies_or_hangs_stops_the_others_with_a_message(tmp_path, how):
    with socket.socket() as probe:  # a free port for the rendezvous
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    options = ["--runs_dir", str(tmp_path), "--name", "x", "--collective_timeout", "10", *RUN]
    env = {**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "WORLD_SIZE": "2"}
    ranks = [
        subprocess.Popen(
            [sys.executable, *script, *options],
            cwd=ROOT,
            env={**env, "RANK": str(rank), "LOCAL_RANK": str(rank)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank, script in ((0, ["train.py"]), (1, [WORKER, how, str(tmp_path)]))
    ]
    _, err = ranks[0].communicate()  # returns because of the collective timeout, not a test limit
    ranks[1].kill()
    ranks[1].communicate()
    assert ranks[0].returncode == 1
    last = err.strip().splitlines()[-1]
    assert last.startswith("rank 0 of 2: stopping: sharing batch sizes with the other ranks failed")
    assert "collective_timeout=10 s" in last and "Traceback" not in err


def test_device_choice_and_backend(monkeypatch, capsys):
    cpu, cuda1 = torch.device("cpu"), torch.device("cuda", 1)
    assert pick_device("auto", 1, cuda_available=False) == cpu
    assert pick_device("auto", 1, cuda_available=True) == cuda1
    assert pick_device("cuda", 1, cuda_available=True) == cuda1
    assert pick_device("cpu", 1, cuda_available=True) == cpu
    with pytest.raises(ValueError, match="device is 'cuda', but torch sees no GPU"):
        pick_device("cuda", 0, cuda_available=False)
    assert backend_for(cuda1) == "nccl" and backend_for(cpu) == "gloo"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for value, message in (("cuda", "device is 'cuda', but torch sees no GPU"),
                           ("gpu", "device must be 'auto', 'cpu' or 'cuda', got 'gpu'")):  # fmt: skip
        with pytest.raises(SystemExit):
            cli.parse_args(["--device", value])
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1
