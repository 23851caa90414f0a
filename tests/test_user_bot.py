"""A user's rule-based bot written by names only (ghost_euchre/examples/rule_bots.py, installed as
``ghost_euchre.examples.rule_bots``) plays a match of each variant; a user's working folder that
holds its own ``agents/`` and ``arena/`` packages runs the commands as the docs say."""

import ast
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from ghost_euchre.arena.match import run_match
from ghost_euchre_env import variants

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "ghost_euchre" / "examples" / "rule_bots.py"
MODULE = (
    "ghost_euchre.examples.rule_bots"  # the installed name of ghost_euchre/examples/rule_bots.py
)


def numeric_indexes(source):
    """The int constants used as an index or slice bound (not as a call's argument, e.g. ``bid(4)``)."""
    found = []

    def visit(node):
        if isinstance(node, ast.Call):
            return  # an argument: a level, a card's name
        if isinstance(node, ast.Constant) and type(node.value) is int:
            found.append(node.value)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript):
            visit(node.slice)
    return found


def test_the_bots_index_nothing_by_number():
    source = EXAMPLE.read_text(encoding="utf-8")
    assert numeric_indexes(source) == []
    assert numeric_indexes("x = obs[:, 24] + mask[:, 3:5]") == [24, 3, 5]  # the check sees them
    assert numeric_indexes("x = mask[:, moves.bid(4)]") == []


@pytest.mark.parametrize(
    ("variant", "players"),
    [
        ("ghost", [f"{MODULE}:GhostBowers", "random", "random"]),
        ("classic", [f"{MODULE}:ClassicBowers", "random", f"{MODULE}:ClassicBowers", "random"]),
    ],
)
def test_a_bot_by_names_plays_a_match(variant, players):
    result = run_match(players, variant=variant, games=24, seed=5)
    bot, rand = result.players[0], result.players[1]
    assert bot["games"] == 24 and bot["contracts"] > 0  # it bids with both bowers
    assert bot["mean_points_per_deal"] > rand["mean_points_per_deal"]
    again = run_match(players, variant=variants.make(variant), games=24, seed=5)  # or a descriptor
    assert again.to_dict()["players"][0]["wins"] == bot["wins"]  # seeded: the same games


USERS_PACKAGES = {  # a user's working folder (RL projects often hold agents/ and arena/ packages)
    "agents/__init__.py": "",
    "agents/checked.py": "raise RuntimeError('the user\\'s agents.checked was imported')\n",
    "agents/specs.py": "raise RuntimeError('the user\\'s agents.specs was imported')\n",
    "agents/mybot.py": """\
        import os

        import numpy as np

        from ghost_euchre.agents import Policy

        with open(f"imported-{os.getpid()}.txt", "w") as mark:  # which file was imported
            mark.write(__file__)


        class MyBot(Policy):
            \"\"\"The user's own bot: passes whenever it may, else its first legal action.\"\"\"

            name = "mybot"

            def act(self, obs, mask):
                PASS = self.variant.actions.PASS
                return np.where(mask[:, PASS], PASS, mask.argmax(axis=1)).astype(np.int64)
        """,
    "arena/__init__.py": "",
    "arena/match.py": "raise RuntimeError('the user\\'s arena.match was imported')\n",
}


def run_here(folder, *argv):
    """``python -m ghost_euchre.arena ARGV`` in ``folder`` with ``PYTHONPATH=.``, as the docs say
    (this checkout after it, for a test run without an install); the completed process."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([".", str(ROOT)])}
    return subprocess.run(
        [sys.executable, "-m", "ghost_euchre.arena", *argv],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


@pytest.mark.slow
def test_a_users_own_agents_and_arena_packages_do_not_shadow_ours(tmp_path):
    """Issue 71, point 1: built-in bots play a match and a league from a folder that holds the
    user's own agents/ and arena/ packages, and ``agents.mybot:MyBot`` is the user's bot (in
    worker processes too), never a module of the project's."""
    for name, text in USERS_PACKAGES.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    quiet = ["--games", "6", "--seed", "0", "--quiet"]
    built_in = run_here(tmp_path, "heuristic", "random", "random", *quiet)
    assert built_in.returncode == 0, built_in.stderr[-2000:]
    assert "heuristic" in built_in.stdout and not list(tmp_path.glob("imported-*"))
    mine_argv = ["agents.mybot:MyBot", "heuristic", "random", "--games", "12", "--quiet"]
    mine_argv += ["--workers", "2", "--json", "mine.json"]  # 2 deal sequences: a spawned worker
    mine = run_here(tmp_path, *mine_argv)
    assert mine.returncode == 0, mine.stderr[-2000:]
    result = json.loads((tmp_path / "mine.json").read_text(encoding="utf-8"))
    assert result["players"][0]["spec"] == "agents.mybot:MyBot"
    assert result["players"][0]["contracts"] == 0  # it never bids: the user's bot played
    marks = [p.read_text(encoding="utf-8") for p in tmp_path.glob("imported-*")]
    assert len(marks) >= 3  # this process, and each spawned worker imported it by name
    assert set(marks) == {str(tmp_path / "agents" / "mybot.py")}  # the user's file, in each
    league = run_here(
        tmp_path, "--league", "agents.mybot:MyBot", "heuristic", "random", *quiet,
        "--db", "league.sqlite",
    )  # fmt: skip
    assert league.returncode == 0, league.stderr[-2000:]
    board = run_here(tmp_path, "leaderboard", "--db", "league.sqlite")
    assert board.returncode == 0, board.stderr[-2000:]
    assert "agents.mybot:MyBot" in board.stdout and "heuristic" in board.stdout
