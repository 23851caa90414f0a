"""Issue 54, class 1: Ctrl-C and kills during training. Ctrl-C ends the update being played, writes its
checkpoint, says the --resume command and exits 130 without a traceback; a write killed midway leaves a
temporary file that no reader lists and that the next start of the run removes."""

import os
import signal
import subprocess
import sys

import pytest
from terminal_helpers import script_at_a_terminal

from ghost_euchre.trainer import cli, interrupt
from ghost_euchre.trainer.failures import last_checkpoint, remove_temporary, saved_checkpoints
from ghost_euchre.trainer.interrupt import CtrlC, Interrupted

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMALL = [  # a long run of small updates, an evaluation line after each (the test's cue)
    "--total_steps", "1000000", "--num_envs", "16", "--num_steps", "8", "--minibatch_size", "32",
    "--update_epochs", "1", "--hidden_sizes", "[16]", "--pool_size", "2", "--progress", "false",
    "--eval_every", "1", "--eval_games", "2", "--torch_threads", "1", "--checkpoint_every", "50",
    "--final_eval_games", "0", "--bidding_warmup_steps", "0",
]  # fmt: skip


def start_training(tmp_path, *extra):
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            script_at_a_terminal(os.path.join(ROOT, "train.py")),
            "--runs_dir",
            str(tmp_path),
            *SMALL,
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": ROOT},
    )


def wait_for_update(process, update):
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith(f"update {update}/"):
            return
    raise AssertionError(f"the run ended before update {update}: {process.communicate()[1]}")


@pytest.mark.slow
def test_ctrl_c_writes_a_checkpoint_says_how_to_resume_and_exits_130(tmp_path):
    process = start_training(tmp_path, "--name", "stopped")
    wait_for_update(process, 1)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "stopped by Ctrl-C after update" in lines[0] and "--resume" in lines[0]
    checkpoint = lines[0].rsplit("--resume ", 1)[1]
    assert os.path.isfile(checkpoint)
    assert os.path.dirname(checkpoint) == str(tmp_path / "stopped" / "checkpoints")
    # a write killed midway left its temporary file: no reader lists it, the resumed run removes it
    left = tmp_path / "stopped" / "checkpoints" / ".tmp-abc123-update_000099.pt"
    left.write_bytes(b"half a checkpoint")
    assert last_checkpoint(str(tmp_path / "stopped")) == checkpoint
    updates = int(os.path.basename(checkpoint)[len("update_") : -len(".pt")])
    cli.main(["--resume", checkpoint, "--total_steps", str(128 * (updates + 1))])
    assert not left.exists()
    assert (tmp_path / "stopped" / "final.pt").is_file()


def test_a_second_ctrl_c_or_one_before_the_run_names_the_last_checkpoint(tmp_path):
    assert str(Interrupted("during update 3", None, saved=False)) == (
        "stopped by Ctrl-C during update 3; no checkpoint yet, nothing to resume"
    )
    assert str(Interrupted("during update 3", "c/update_000002.pt", saved=False)) == (
        "stopped by Ctrl-C during update 3; the last checkpoint is c/update_000002.pt: "
        "resume with --resume c/update_000002.pt"
    )


def test_temporary_files_are_never_listed_and_are_removed_when_the_run_starts(tmp_path):
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    (folder / ".tmp-x1-update_000002.pt").write_bytes(b"")
    assert saved_checkpoints(str(folder)) == []
    assert last_checkpoint(str(tmp_path)) is None  # not the temporary file
    (folder / "update_000001.pt").write_bytes(b"")
    (tmp_path / ".tmp-y-config.yaml").write_text("")
    assert saved_checkpoints(str(folder)) == ["update_000001.pt"]
    remove_temporary(str(tmp_path))
    assert sorted(os.listdir(folder)) == ["update_000001.pt"]
    assert not (tmp_path / ".tmp-y-config.yaml").exists()


def test_ctrl_c_while_reading_the_command_line_is_one_line_and_130(monkeypatch, capsys):
    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "parse_args", interrupted)
    with pytest.raises(SystemExit) as stop:
        cli.main([])
    assert stop.value.code == 130
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("stopped by Ctrl-C before the first update; nothing was saved")
    )


@pytest.fixture
def default_sigint():
    """Python's own SIGINT handler for the test (a job started in the background by a shell
    inherits SIGINT ignored, which CtrlC leaves as it finds it), the process's afterwards."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_the_first_ctrl_c_asks_a_second_one_a_second_later_stops_at_once(
    monkeypatch, default_sigint
):
    said = []
    ctrl_c = CtrlC(said.append)
    now = [100.0]
    monkeypatch.setattr(interrupt.time, "monotonic", lambda: now[0])
    with ctrl_c:
        assert signal.getsignal(signal.SIGINT) == ctrl_c._handle
        ctrl_c._handle(signal.SIGINT, None)
        assert ctrl_c.requested and len(said) == 1 and "Ctrl-C again" in said[0]
        now[0] += 0.5  # the same Ctrl-C, forwarded (torchrun's workers get it twice)
        ctrl_c._handle(signal.SIGINT, None)
        now[0] += 1.0
        with pytest.raises(KeyboardInterrupt):
            ctrl_c._handle(signal.SIGINT, None)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


class _CtrlCWhileImporting:
    """A meta path finder: importing ``name`` is interrupted, as by a Ctrl-C while it loads."""

    def __init__(self, name):
        self.name = name

    def find_spec(self, name, path=None, target=None):
        if name == self.name:
            raise KeyboardInterrupt


@pytest.mark.parametrize(
    ("argv", "module"),
    [
        (["exploit", "heuristic"], "ghost_euchre.trainer.exploit"),
        (["heuristic", "random", "random"], "ghost_euchre.arena.cli"),
        (None, "ghost_euchre.trainer.cli"),
    ],
)
def test_ctrl_c_while_a_command_loads_is_one_line_and_130(argv, module, monkeypatch, capsys):
    """Ctrl-C before a command's own handler, while its modules load, is one line and status 130,
    not a death by the signal (exploit's window: about half a second)."""
    from ghost_euchre import commands

    monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.setattr(sys, "meta_path", [_CtrlCWhileImporting(module), *sys.meta_path])
    main, name = (commands.train_main, "train") if argv is None else (commands.evaluate_main, None)
    assert main(argv or []) == 130
    err = capsys.readouterr().err.strip()
    assert err == f"{commands.program_name(name or 'evaluate')}: stopped by Ctrl-C"


def test_the_commands_module_loads_nothing_heavy():
    """The console commands' module imports neither the engine nor Numba: their loading, and a
    Ctrl-C during it, happen inside the entry point's handler."""
    code = "import sys, ghost_euchre.commands; print(*sorted(set(sys.modules) & set(sys.argv[1:])))"
    heavy = ["numba", "numpy", "torch", "ghost_euchre_env", "ghost_euchre.agents"]
    loaded = subprocess.run(
        [sys.executable, "-c", code, *heavy], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split()
    assert loaded == []
