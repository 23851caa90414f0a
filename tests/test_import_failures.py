"""Issue 54, class 5: a user's module that cannot be imported (a syntax error, a NUL byte, a missing
dependency, an exception or sys.exit at import, a package whose __init__ raises) is user code that raised:
one line naming the spec and the module first, then its traceback, exit status 1, in every command that
builds it (a match, a league, the trainer's opponents and network)."""

import pytest

from ghost_euchre.arena import cli as evaluate
from ghost_euchre.trainer import cli as train_cli

MODULES = {  # module name: (files, what the line names)
    "imp_syntax": ({"imp_syntax.py": "def broken(:\n"}, "SyntaxError"),
    "imp_nul": ({"imp_nul.py": "x = 1\n\0\n"}, "SyntaxError"),
    "imp_dep": ({"imp_dep.py": "import imp_no_such_dependency\n"}, "ModuleNotFoundError: No module named 'imp_no_such_dependency'"),
    "imp_raise": ({"imp_raise.py": "raise RuntimeError('boom at import')\n"}, "RuntimeError: boom at import"),
    "imp_exit": ({"imp_exit.py": "import sys\nsys.exit(3)\n"}, "SystemExit: 3"),
    "imp_pkg.bots": ({"imp_pkg/__init__.py": "raise ValueError('init boom')\n", "imp_pkg/bots.py": "class Bot: pass\n"}, "ValueError: init boom"),
}  # fmt: skip


@pytest.fixture
def user_modules(tmp_path, monkeypatch):
    for files, _ in MODULES.values():
        for name, text in files.items():
            path = tmp_path / name
            path.parent.mkdir(exist_ok=True)
            path.write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def check_named(err, spec, module, raised):
    first = err.splitlines()[0]
    assert f"{spec!r} raised {raised}" in first, err
    assert f"while importing module {module!r} (its traceback follows)" in first, err
    assert "Traceback" in err.splitlines()[1], err


@pytest.mark.parametrize("module", MODULES)
def test_a_module_that_fails_at_import_is_named_in_a_match_and_a_league(
    user_modules, module, capsys
):
    spec, raised = f"{module}:Bot", MODULES[module][1]
    assert evaluate.main([spec, "random", "random", "--games", "2"]) == 1
    check_named(capsys.readouterr().err, spec, module, raised)
    db = user_modules / "league.sqlite"
    argv = ["--league", "random", spec, "heuristic", "--games", "2", "--db", str(db), "--quiet"]
    assert evaluate.main(argv) == 1
    check_named(capsys.readouterr().err, spec, module, raised)
    assert not db.exists()


@pytest.mark.parametrize("module", ["imp_raise", "imp_exit", "imp_pkg.bots"])
def test_a_module_that_fails_at_import_is_named_as_an_opponent_and_a_network(
    user_modules, module, capsys
):
    raised = MODULES[module][1]
    common = ["--runs_dir", str(user_modules / "runs"), "--total_steps", "128", "--num_envs", "16",
              "--num_steps", "8", "--progress", "false"]  # fmt: skip
    opponents = ["--opponents", f"{{'{module}:Bot': 1}}", "--opponent_share", "1"]
    for argv, spec in (
        ([*common, *opponents], f"policy spec '{module}:Bot'"),
        ([*common, "--model", f"{module}:Net"], f"network class '{module}:Net'"),
    ):
        with pytest.raises(SystemExit) as stop:
            train_cli.main(argv)
        assert stop.value.code == 1
        err = capsys.readouterr().err
        assert err.startswith(f"{train_cli.program_name('train')}: error: {spec} raised {raised}")
        assert f"while importing module {module!r}" in err.splitlines()[0]
    assert not (user_modules / "runs").exists()


BUILT = {  # module name: its source; its Bot raises while it is built (in a worker only: imp_worker)
    "imp_ctor": (
        "from ghost_euchre.agents.random_policy import RandomPolicy\n\n\n"
        "class Bot(RandomPolicy):\n"
        "    def __init__(self, game, seed=None):\n"
        "        raise OSError('boom when built')\n"
    ),
    "imp_worker": (
        "import multiprocessing\n\n"
        "from ghost_euchre.agents.random_policy import RandomPolicy\n\n"
        "if multiprocessing.parent_process() is not None:\n"
        "    import imp_not_in_workers\n\n\n"
        "class Bot(RandomPolicy):\n"
        "    pass\n"
    ),
}


@pytest.fixture
def built_modules(tmp_path, monkeypatch):
    for name, text in BUILT.items():
        (tmp_path / f"{name}.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_a_class_that_raises_while_built_is_named_in_a_match_a_league_and_as_an_opponent(
    built_modules, capsys
):
    spec = "imp_ctor:Bot"
    line = f"{spec!r} raised OSError: boom when built while it was built (its traceback follows)"
    db = built_modules / "league.sqlite"
    for argv in (
        [spec, "random", "random", "--games", "2"],
        ["--league", "random", spec, "heuristic", "--games", "2", "--db", str(db), "--quiet"],
    ):
        assert evaluate.main(argv) == 1
        err = capsys.readouterr().err.splitlines()
        assert line in err[0] and "Traceback" in err[1], err
    with pytest.raises(SystemExit) as stop:
        train_cli.main(["--opponents", f"{{'{spec}': 1}}", "--opponent_share", "1",
                        "--runs_dir", str(built_modules / "runs"), "--total_steps", "128",
                        "--num_envs", "16", "--num_steps", "8", "--progress", "false"])  # fmt: skip
    assert stop.value.code == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"{train_cli.program_name('train')}: error: policy spec {line}", err
    assert "Traceback" in err[1]


def test_a_module_that_fails_only_in_a_worker_names_the_worker_and_the_spec(built_modules, capsys):
    spec = "imp_worker:Bot"
    argv = [spec, "random", "random", "--games", "12", "--workers", "2", "--quiet"]
    assert evaluate.main(argv) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"{evaluate.program_name()}: error: the worker playing games "), err
    assert f"policy spec {spec!r} raised ModuleNotFoundError: No module named " in err[0]
    assert "while importing module 'imp_worker'" in err[0] and "Traceback" in err[1]
