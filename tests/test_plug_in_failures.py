"""Bad input in the trainer's plug-in paths (issue 44): a user's network or bot that breaks mid-run,
``human`` where nobody sits at a terminal, numbers that would crash torch, files and folders. Each
case: one line naming what is wrong (and, mid-run, the update and where the run resumes from), the
exit status (2 bad input, 1 a plug-in that raised, after its traceback), nothing left behind before
the run starts, and a run that resumes from its last checkpoint."""

import importlib
import os
import sys
import textwrap

import pytest
import torch
from test_train import TINY

from ghost_euchre.trainer import cli

QUIET = ["--eval_every", "0", "--final_eval_games", "0", "--keep_checkpoints", "0"]
MODULES = {
    "breaking.py": '''
        import numpy as np
        import torch
        from torch import nn

        from ghost_euchre.agents.base import Policy


        class Net(nn.Module):
            """A user's network that breaks in the way ``Net.failure`` says once it has run
            ``Net.after`` forward passes in training mode."""

            failure, after, calls = None, 0, 0

            def __init__(self, obs_size, num_actions, width=8):
                super().__init__()
                self.body = nn.Sequential(nn.Linear(obs_size, width), nn.Tanh())
                self.logits = nn.Linear(width, num_actions)
                self.value = nn.Linear(width, 1)

            def forward(self, obs):
                hidden = self.body(obs)
                logits, value = self.logits(hidden), self.value(hidden).squeeze(-1)
                if self.training:
                    Net.calls += 1
                if not self.training or Net.calls <= Net.after or Net.failure is None:
                    return logits, value
                if Net.failure == "nan":
                    return logits * float("nan"), value
                if Net.failure == "inf":
                    return logits, value + float("inf")
                if Net.failure == "shape":
                    return logits[:, :-1], value
                raise ZeroDivisionError("the network broke")


        class Bot(Policy):
            """A user's bot: the lowest legal action, then (after ``Bot.after`` calls) ``Bot.failure``."""

            name = "breaking"
            failure, after, calls = None, 0, 0

            def act(self, obs, mask):
                Bot.calls += 1
                chosen = np.argmax(mask, axis=1).astype(np.int64)
                if Bot.calls <= Bot.after or Bot.failure is None:
                    return chosen
                if Bot.failure == "illegal":
                    return (~mask).argmax(axis=1)
                if Bot.failure == "extra":
                    return np.append(chosen, chosen[:1])
                if Bot.failure == "floats":
                    return chosen + 0.5
                raise ZeroDivisionError("the bot broke")
    ''',
}


@pytest.fixture
def breaking(tmp_path, monkeypatch):
    """The module ``breaking`` (a network and a bot that break on demand), on sys.path."""
    folder = tmp_path / "user"
    folder.mkdir()
    for name, text in MODULES.items():
        (folder / name).write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(folder))
    yield importlib.import_module("breaking")
    sys.modules.pop("breaking", None)


def stopped(argv, capsys):
    """(exit status, stderr) of a train.py command line that stops."""
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    return stop.value.code, capsys.readouterr().err


def latest(run_dir):
    folder = os.path.join(run_dir, "checkpoints")
    return os.path.join(folder, sorted(os.listdir(folder))[-1])


@pytest.mark.parametrize(
    ("failure", "came_back"),
    [
        ("nan", "logits holding NaN"),
        ("inf", "value holding inf"),
        ("shape", ", 33), ("),  # for B=n it returned shapes [(n, 33), (n,)] of [...] (in training mode)
    ],
)  # fmt: skip
def test_a_network_that_breaks_mid_run_stops_with_one_line_and_resumes(
    failure, came_back, breaking, tmp_path, torch_globals, capsys
):
    breaking.Net.failure, breaking.Net.after, breaking.Net.calls = failure, 25, 0
    argv = ["--model", "breaking:Net", "--total_steps", "512", "--checkpoint_every", "1"]
    argv += ["--runs_dir", str(tmp_path), "--name", "r", *QUIET, *TINY]
    status, err = stopped(argv, capsys)
    run = tmp_path / "r"
    checkpoint = latest(str(run))
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith("train.py: error: update ")
    assert "model 'breaking:Net': forward(obs float32[B, 390]) must return" in err
    assert came_back in err and "(in training mode)" in err
    assert err.rstrip().endswith(f"resume with --resume {checkpoint}")
    assert not (run / "final.pt").exists()
    breaking.Net.failure = None  # the network mended: the run resumes from its last checkpoint
    resumed = cli.run(["--resume", checkpoint, "--runs_dir", str(tmp_path / "b")])
    assert torch.load(os.path.join(resumed, "final.pt"), weights_only=True)["update"] == 4


def test_a_network_that_raises_is_named_before_its_traceback(
    breaking, tmp_path, torch_globals, capsys
):
    breaking.Net.failure, breaking.Net.after, breaking.Net.calls = "raise", 2, 0
    argv = ["--model", "breaking:Net", "--variant", "classic", "--total_steps", "512"]
    argv += ["--runs_dir", str(tmp_path), *QUIET, *TINY]
    status, err = stopped(argv, capsys)
    first, *trace = err.splitlines()
    assert status == 1
    assert first.startswith("train.py: error: update 1: model 'breaking:Net' raised ")
    assert "ZeroDivisionError: the network broke in forward(obs float32[" in first
    assert trace[0] == "Traceback (most recent call last):" and "breaking.py" in err
    assert trace[-1] == "ZeroDivisionError: the network broke"


@pytest.mark.parametrize("width", ["-1", "1e12", "many"])
def test_model_options_the_constructor_refuses_are_one_line(width, breaking, tmp_path, capsys):
    argv = ["--model", "breaking:Net", "--model_options", f"{{width: {width}}}"]
    status, err = stopped([*argv, "--runs_dir", str(tmp_path / "runs"), *QUIET, *TINY], capsys)
    assert status == 2 and err.count("\n") == 1, err
    assert (
        "model: 'breaking:Net': cannot build it as Net(obs_size, num_actions, width=...): " in err
    )
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("variant", "failure", "message"),
    [
        ("ghost", "illegal", "returned a bad action: game "),
        ("classic", "illegal", "returned a bad action: game "),
        ("ghost", "extra", "returned a bad action: actions must have shape ("),
        ("ghost", "floats", "returned a bad action: actions must be integers, got dtype float64"),
    ],
)  # fmt: skip
def test_an_opponent_that_turns_bad_is_named(
    variant, failure, message, breaking, tmp_path, torch_globals, capsys
):
    breaking.Bot.failure, breaking.Bot.after, breaking.Bot.calls = failure, 5, 0
    argv = ["--opponents", "{breaking:Bot: 1}", "--variant", variant, "--total_steps", "512"]
    argv += ["--checkpoint_every", "1", "--runs_dir", str(tmp_path), "--name", "r", *QUIET, *TINY]
    status, err = stopped(argv, capsys)
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith("train.py: error: update ")
    assert f"opponent 'breaking:Bot' {message}" in err


def test_a_distillation_teacher_that_turns_bad_is_named(breaking, tmp_path, torch_globals, capsys):
    breaking.Bot.failure, breaking.Bot.after, breaking.Bot.calls = "illegal", 1, 0
    argv = ["--distill_decisions", "8", "--distill_teacher", "breaking:Bot"]
    argv += ["--distill_phase", "all", "--total_steps", "512", "--checkpoint_every", "1"]
    status, err = stopped(
        [*argv, "--runs_dir", str(tmp_path), "--name", "r", *QUIET, *TINY], capsys
    )
    checkpoint = latest(str(tmp_path / "r"))
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith(
        "train.py: error: update 2: distill_teacher 'breaking:Bot' returned a bad "
    )
    assert err.rstrip().endswith(f"resume with --resume {checkpoint}")


def test_an_opponent_that_raises_is_named_before_its_traceback_and_the_run_resumes(
    breaking, tmp_path, torch_globals, capsys
):
    breaking.Bot.failure, breaking.Bot.after, breaking.Bot.calls = "raise", 12, 0
    argv = ["--opponents", "{breaking:Bot: 1, pool: 1}", "--total_steps", "512"]
    argv += ["--checkpoint_every", "1", "--runs_dir", str(tmp_path), "--name", "r", *QUIET, *TINY]
    status, err = stopped(argv, capsys)
    first, *trace = err.splitlines()
    checkpoint = latest(str(tmp_path / "r"))
    assert status == 1 and first.startswith("train.py: error: update ")
    assert "opponent 'breaking:Bot' raised ZeroDivisionError: the bot broke in " in first
    assert first.endswith(f"(its traceback follows); resume with --resume {checkpoint}")
    assert trace[0] == "Traceback (most recent call last):"
    assert trace[-1] == "ZeroDivisionError: the bot broke"
    breaking.Bot.failure = None
    resumed = cli.run(["--resume", checkpoint, "--runs_dir", str(tmp_path / "b")])
    assert torch.load(os.path.join(resumed, "final.pt"), weights_only=True)["update"] == 4


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--opponents", "{human: 1, pool: 1}"], "opponents: 'human' cannot play in training: human plays only"),
        (["--opponents", "{'pimc:rollout=human': 1}"], "opponents: 'pimc:rollout=human' cannot play in training"),
        (["--distill_decisions", "4", "--distill_teacher", "human", "--distill_phase", "all"],
         "distill_teacher: 'human' cannot play in training"),
        (["--torch_threads", "100000"], "torch_threads must be at most 1024 (threads per rank), got 100000"),
        (["--rollout_threads", "100000"], "rollout_threads must be at most 1024 (threads per rank), got 100000"),
    ],
)  # fmt: skip
def test_human_and_crashing_numbers_are_refused_up_front(argv, message, tmp_path, capsys):
    status, err = stopped([*argv, "--runs_dir", str(tmp_path / "runs"), *QUIET], capsys)
    assert status == 2 and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "runs").exists()


def test_files_and_folders_are_checked_before_anything_is_made(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    for runs_dir in (afile, afile / "below"):
        status, err = stopped(["--runs_dir", str(runs_dir), *QUIET, *TINY], capsys)
        assert status == 2 and err.count("\n") == 1, err
        assert f"runs_dir {str(runs_dir)!r}: cannot write a run folder" in err
        assert f"{str(afile)!r} is not a directory" in err
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("seed: 1  # réglé\n".encode("latin-1"))
    status, err = stopped(["--config", str(latin), "--runs_dir", str(tmp_path / "r")], capsys)
    assert status == 2 and err.count("\n") == 1, err
    assert f"config file {str(latin)!r} is not UTF-8 text: invalid continuation byte" in err
    assert sorted(os.listdir(tmp_path)) == ["afile", "latin.yaml"]


# ------------------------------------------------------------------------------------ exploit
def exploited(argv, capsys):
    """(exit status, stderr) of ``evaluate.py exploit ARGV``."""
    from ghost_euchre.trainer import exploit

    status = exploit.main([*argv, "--quiet"])
    return status, capsys.readouterr().err


def test_exploit_refusals_come_before_any_file(tmp_path, monkeypatch, capsys):
    from ghost_euchre.agents import networks
    from ghost_euchre.agents.pretrained import network_path

    monkeypatch.chdir(tmp_path)  # the default --db is runs/league.sqlite: never made by a refusal
    noise = tmp_path / "noise.pt"
    noise.write_bytes(os.urandom(2000))
    payload = networks.policy_payload(networks.ActorCritic(390, 34, (8,)))
    payload["model_config"] = {"obs_size": 390, "num_actions": 34, "model": "nosuchnets:Net"}
    torch.save(payload, tmp_path / "user.pt")
    afile = tmp_path / "afile"
    afile.write_text("")
    before = sorted(os.listdir(tmp_path))
    for argv, message in (
        (["--init", network_path("classic")], "a classic Euchre network (obs_size=464, num_actions=31) cannot play"),
        (["--init", str(noise)], f"--init {str(noise)!r}: "),
        (["--init", "user.pt"], "--init 'user.pt': PPO checkpoint 'user.pt': 'nosuchnets:Net': no module named"),
        (["--runs-dir", "afile"], "--runs-dir 'afile': cannot write a run folder 'afile/RUN'"),
        (["--budget", str(10**30)], "--budget must be at most 100,000,000,000 decisions (about 15 days"),
    ):  # fmt: skip
        status, err = exploited(["heuristic", *argv], capsys)
        assert status == 2 and err.count("\n") == 1, err
        assert err.startswith("evaluate.py exploit: error: ") and message in err, err
        assert sorted(os.listdir(tmp_path)) == before


def test_exploit_refuses_a_read_only_store_before_training(tmp_path, monkeypatch, capsys):
    from ghost_euchre.arena.store import Store

    db = tmp_path / "league.sqlite"
    Store(db).close()
    before = db.read_bytes()
    access = os.access  # as a read-only file is for its user (root's writes are not stopped)
    monkeypatch.setattr(
        os, "access", lambda p, m: access(p, m) and not (p == str(db) and m & os.W_OK)
    )
    monkeypatch.setattr("ghost_euchre.trainer.loop.train", lambda *a: pytest.fail("it trained"))
    status, err = exploited(["heuristic", "--db", str(db), "--runs-dir", str(tmp_path)], capsys)
    assert status == 2 and err.count("\n") == 1
    assert f"cannot write --db {str(db)!r}: the file is read-only" in err
    assert sorted(os.listdir(tmp_path)) == ["league.sqlite"] and db.read_bytes() == before


@pytest.mark.parametrize("failure", ["illegal", "raise"])
def test_a_spec_that_turns_bad_is_named_by_exploit(
    failure, breaking, tmp_path, capsys, torch_globals
):
    breaking.Bot.failure, breaking.Bot.after, breaking.Bot.calls = failure, 10, 0
    db = tmp_path / "league.sqlite"
    argv = ["breaking:Bot", "--budget", "32768", "--db", str(db), "--runs-dir", str(tmp_path / "r")]
    status, err = exploited(argv, capsys)
    first = err.splitlines()[0]
    assert first.startswith("evaluate.py exploit: error: update 1: opponent 'breaking:Bot' ")
    if failure == "illegal":
        assert status == 2 and err.count("\n") == 1 and "returned a bad action" in first, err
    else:
        assert status == 1 and "raised ZeroDivisionError: the bot broke in " in first
        assert err.splitlines()[-1] == "ZeroDivisionError: the bot broke"
    assert not db.exists()


def test_ctrl_c_in_exploit_is_one_line_and_the_same_command_resumes(
    tmp_path, monkeypatch, capsys, torch_globals
):
    from ghost_euchre.trainer import loop

    db = tmp_path / "league.sqlite"
    argv = ["random", "--budget", str(2 * 32768), "--games", "6", "--init", "scratch"]
    argv += ["--db", str(db), "--runs-dir", str(tmp_path / "runs")]
    checkpoint = loop.periodic_checkpoint

    def interrupted_after_a_checkpoint(run, run_dir):
        checkpoint(run, run_dir)
        if run.update == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(loop, "periodic_checkpoint", interrupted_after_a_checkpoint)
    status, err = exploited(argv, capsys)
    assert status == 130 and err.strip().count("\n") == 0, err
    assert err.strip() == (
        f"evaluate.py exploit: interrupted: nothing stored in {db}; the same command resumes the "
        "training from its last checkpoint"
    )
    assert not db.exists()
    monkeypatch.setattr(loop, "periodic_checkpoint", checkpoint)
    from ghost_euchre.trainer import exploit

    assert exploit.main([*argv, "--quiet"]) == 0
    assert "resuming after update 1" in capsys.readouterr().out and db.exists()
