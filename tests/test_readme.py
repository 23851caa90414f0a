"""Every code example of the README runs as written.

Each ```python block is executed in a fresh namespace, in a scratch folder that
holds the repository's top-level files (so relative paths such as
``agents/pretrained/ghost_ppo.pt`` resolve, and whatever an example writes
stays out of the repository). A block introduced by a line naming a file
(``mybots.py``) is also saved under that name, for the shell examples that use
it. Blocks marked ``<!-- snippet: NAME -->`` are run by the test that reads
them with ``readme_snippet("NAME")`` (the library examples, which need the
``interop`` extra); a block whose imports are not installed is skipped.

The shell examples ``python evaluate.py ...`` run as written when they are
cheap: no placeholder (``SPEC``, ``FILE``), no ``human`` (interactive), no
``pimc`` (search) and at most 1,000 games. New examples are picked up by
these rules without touching this file.
"""

import ast
import contextlib
import importlib.util
import io
import os
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
SNIPPET_MARK = re.compile(r"<!-- snippet: (\w+) -->\n$")
FILE_NAME = re.compile(r"`(\w+\.py)`")
MAX_GAMES = 1000


def _blocks():
    """[(language, code, text before the fence)] of every fenced block of the README."""
    return [(m.group(1), m.group(2), README[: m.start()]) for m in FENCE.finditer(README)]


def _tested_snippets():
    """Names of the marked snippets some test reads with readme_snippet("NAME")."""
    names = set()
    for path in pathlib.Path(__file__).parent.glob("test_*.py"):
        names |= set(re.findall(r"readme_snippet\(\"(\w+)\"\)", path.read_text(encoding="utf-8")))
    return names


def _python_blocks():
    blocks = []
    for language, code, before in _blocks():
        if language != "python":
            continue
        mark = SNIPPET_MARK.search(before)
        lines = before.rstrip("\n").splitlines()
        intro = FILE_NAME.findall(lines[-1]) if lines else []
        blocks.append((code, mark.group(1) if mark else None, intro[0] if intro else None))
    return blocks


def _line_number(code):
    return README[: README.index(code)].count("\n") + 1


def _shell_examples():
    """The ``python evaluate.py ...`` commands of the README's shell blocks (continuation lines joined)."""
    return [
        command.split("#")[0].strip()
        for language, code, _ in _blocks()
        if language in ("", "bash", "sh", "shell")
        for command in code.replace("\\\n", " ").splitlines()
        if command.strip().startswith("python evaluate.py")
    ]


def _cheap(command):
    words = shlex.split(command)
    games = [int(words[i + 1]) for i, word in enumerate(words[:-1]) if word == "--games"]
    return not (
        any(re.fullmatch(r"\[?[A-Z][A-Z_]*\]?", word) or word.startswith("[") for word in words)
        or "human" in words
        or any(word.startswith("pimc") for word in words)
        or any(g > MAX_GAMES for g in games)
    )


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A folder with links to the repository's top-level entries (but fresh docs/ and runs/), and the README's named files."""
    folder = tmp_path_factory.mktemp("readme")
    for entry in ROOT.iterdir():
        if entry.name not in ("docs", "runs", ".git") and not entry.name.startswith("."):
            (folder / entry.name).symlink_to(entry)
    (folder / "docs").mkdir()
    (folder / "runs").mkdir()
    for code, _, file_name in _python_blocks():
        if file_name:
            (folder / file_name).write_text(code, encoding="utf-8")
    return folder


def test_the_readme_has_examples_of_each_kind():
    assert len(_python_blocks()) >= 5
    assert any(_cheap(command) for command in _shell_examples())


def test_every_marked_snippet_is_run_by_a_test():
    marked = {name for _, name, _ in _python_blocks() if name}
    assert marked <= _tested_snippets()


def _untested_blocks():
    """The python blocks no other test runs (marked snippets are run by the tests that read them)."""
    return [code for code, name, _ in _python_blocks() if name not in _tested_snippets()]


@pytest.mark.parametrize(
    "code", _untested_blocks(), ids=[f"line{_line_number(code)}" for code in _untested_blocks()]
)
def test_python_example_runs_as_written(code, scratch, monkeypatch):
    for node in ast.walk(ast.parse(code)):
        modules = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [node.module]
        for module in modules:
            if importlib.util.find_spec(module.split(".")[0]) is None:
                pytest.skip(f"needs {module}, which is not installed")
    monkeypatch.chdir(scratch)
    monkeypatch.syspath_prepend(str(scratch))
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, f"README.md:{_line_number(code)}", "exec"), {"__name__": "__main__"})


@pytest.mark.parametrize("command", [c for c in _shell_examples() if _cheap(c)])
def test_shell_example_runs_as_written(command, scratch):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(scratch), str(ROOT)]))
    words = shlex.split(command)
    completed = subprocess.run(
        [sys.executable, *words[1:]],
        cwd=scratch,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert completed.stdout.strip()
