"""Issue 54, class 2: bot versions of classes without a source file. A class defined in ``__main__`` and
a sourceless ``.pyc`` module are fingerprinted by what exists (the code as loaded, the module's file), so
an edited bot is a new player and never inherits the old one's results; a player with no version at all
is refused by a league rather than pooled."""

import os
import py_compile
import subprocess
import sys

import pytest

from ghost_euchre.agents.versions import code_hash, fingerprint
from ghost_euchre.arena.league import run_league
from ghost_euchre.arena.store import Store

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = """
from ghost_euchre.agents.base import Policy
from ghost_euchre.arena.league import run_league
from ghost_euchre.arena.store import Store

class Bot(Policy):
    name = "bot"
    def act(self, obs, mask):
        return mask.argmax(axis=1)

with Store("league.sqlite") as store:
    run = run_league(["__main__:Bot", "random", "heuristic"], store, games=2, rules={"target_score": 4})
    print(f"played {len(run.played)}, stored {len(run.skipped)}")
"""


def run_script(text, folder):
    return subprocess.run(
        [sys.executable, "-c", text], cwd=folder, capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONPATH": ROOT},
    ).stdout  # fmt: skip


@pytest.mark.slow
def test_an_edited_class_in_main_is_a_new_player(tmp_path):
    assert "played 1, stored 0" in run_script(SCRIPT, tmp_path)
    assert "played 0, stored 1" in run_script(SCRIPT, tmp_path)  # the same code: stored already
    edited = SCRIPT.replace("argmax(axis=1)", "argmax(axis=1).copy()")
    assert "played 1, stored 0" in run_script(edited, tmp_path)  # a new version: played


def test_code_hash_follows_the_code_not_the_object():
    def make(offset):
        namespace = {}
        exec(f"class Bot:\n    def act(self, x):\n        return x + {offset}\n", namespace)
        return namespace["Bot"]

    assert code_hash(make(1)) == code_hash(make(1))
    assert code_hash(make(1)) != code_hash(make(2))


@pytest.mark.slow
def test_an_edited_script_is_a_new_player_even_outside_the_class(tmp_path):
    """``python bot.py``: the script's source is the version (a constant or a helper the class
    uses, edited, is a new player), as a module's is."""
    script = SCRIPT.replace("return mask.argmax(axis=1)", "return pick(mask)").replace(
        "class Bot",
        "PICK = 0\n\ndef pick(mask):\n    return mask.argmax(axis=1) + PICK\n\nclass Bot",
    )
    path = tmp_path / "bot.py"

    def run(text):
        path.write_text(text)
        return subprocess.run(
            [sys.executable, str(path)], cwd=tmp_path, capture_output=True, text=True, check=True,
            env={**os.environ, "PYTHONPATH": ROOT},
        ).stdout  # fmt: skip

    assert "played 1, stored 0" in run(script)
    assert "played 0, stored 1" in run(script)
    assert "played 1, stored 0" in run(script.replace("PICK = 0", "PICK = 0  # edited"))
    (tmp_path / "helper.py").write_text("X = 1\n")  # a local import of the script counts
    imports = script.replace("PICK = 0", "from helper import X\nPICK = 0")
    assert "played 1, stored 0" in run(imports)
    (tmp_path / "helper.py").write_text("X = 2\n")
    assert "played 1, stored 0" in run(imports)


def test_code_hash_follows_the_functions_and_values_of_its_module_it_reads():
    def make(helper, constant, table):
        namespace = {"__name__": "__main__"}
        exec(
            f"LIMIT = {constant}\nTABLE = {table}\n"
            f"def helper(x):\n    return x + {helper} + LIMIT\n"
            "class Bot:\n    def act(self, x):\n        return [helper(v) for v in x] + TABLE['a']\n",
            namespace,
        )
        return namespace["Bot"]

    first = code_hash(make(1, 2, {"a": [1]}))
    assert first == code_hash(make(1, 2, {"a": [1]}))
    assert first != code_hash(make(9, 2, {"a": [1]}))  # a helper function it calls
    assert first != code_hash(make(1, 3, {"a": [1]}))  # a constant the helper reads
    assert first != code_hash(make(1, 2, {"a": [2]}))  # a table the class reads


def test_a_sourceless_module_is_versioned_by_its_file(tmp_path, monkeypatch):
    source = tmp_path / "src" / "pyc_bot.py"
    source.parent.mkdir()
    compiled = tmp_path / "pyc_bot.pyc"

    def build(body):
        source.write_text(
            f"from ghost_euchre.agents.heuristic import HeuristicPolicy as Bot\nX = {body}\n"
        )
        py_compile.compile(str(source), str(compiled))
        sys.modules.pop("pyc_bot", None)
        return fingerprint("pyc_bot:Bot")

    monkeypatch.syspath_prepend(str(tmp_path))
    first = build(1)
    assert first and first == build(1)
    assert build(2) != first


def test_a_player_without_a_version_is_refused_before_anything_is_played(tmp_path, monkeypatch):
    monkeypatch.setattr("ghost_euchre.arena.league.player_identity", lambda spec: (spec, ""))
    with Store(tmp_path / "l.sqlite") as store:
        with pytest.raises(ValueError, match="has no version to store its results under"):
            run_league(["random", "heuristic", "pimc:samples=2"], store, games=2)
        assert store.matches() == []
