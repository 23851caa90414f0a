"""Files written by ghost-euchre 0.1 (module names ``agents.*``, ``arena.*``) still load.

tests/data/v0_1 holds files made by 0.1 (commit a99c2b2): a PPO policy file of the card-set
network (``model: agents.cardset:CardSetNet``), the run's config, a league store whose players
include ``agents.random_policy:RandomPolicy`` and a match record. They load through the one
table of old names (ghost_euchre.agents.renamed), with a one-line note.
"""

import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

from ghost_euchre.agents import make_policy
from ghost_euchre.agents.renamed import OLD_PACKAGES, current_module
from ghost_euchre.trainer.config import make_config, read_yaml
from ghost_euchre.trainer.run import build_model
from ghost_euchre_env import GhostEuchre, GhostEuchreVec

DATA = pathlib.Path(__file__).resolve().parent / "data" / "v0_1"
ROOT = DATA.parent.parent.parent


def test_old_names_read_as_today_s_and_others_as_written(capsys):
    assert current_module("agents.cardset") == "ghost_euchre.agents.cardset"
    assert current_module("euchre_trainer.config") == "ghost_euchre.trainer.config"
    assert current_module("arena.match") == "ghost_euchre.arena.match"
    assert current_module("ghost_euchre_examples.rule_bots") == "ghost_euchre.examples.rule_bots"
    assert capsys.readouterr().err.count("note:") <= 4  # once per name, whatever came before
    current_module("agents.cardset")
    assert capsys.readouterr().err == ""  # noted once
    # a module the project never had under that name is the user's own: left as written
    assert current_module("agents.my_own_bot") == "agents.my_own_bot"
    assert current_module("numpy.linalg") == "numpy.linalg"
    assert set(OLD_PACKAGES) == {"agents", "arena", "euchre_trainer", "ghost_euchre_examples"}


def test_an_old_policy_file_naming_agents_cardset_plays():
    policy = make_policy(f"ppo:{DATA / 'policy.pt'}", GhostEuchre(), seed=0)
    obs, mask, _ = GhostEuchreVec(4, seed=1).reset()
    actions = policy.act(obs, mask)
    assert mask[np.arange(4), actions].all()


def test_an_old_config_naming_agents_cardset_builds_its_network():
    config = make_config(read_yaml(str(DATA / "config.yaml")), "config")
    assert config.model == "agents.cardset:CardSetNet"  # kept as written, read as today's
    model = build_model(config, GhostEuchre())  # a PluggedNetwork around the named class
    assert any(type(m).__module__ == "ghost_euchre.agents.cardset" for m in model.modules())


def test_an_old_spec_string_plays_in_a_match():
    policy = make_policy("agents.random_policy:RandomPolicy", GhostEuchre(), seed=0)
    assert type(policy).__module__ == "ghost_euchre.agents.random_policy"


def _evaluate(*args, cwd):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "ghost_euchre.arena", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_an_old_league_store_and_record_load(tmp_path):
    store = tmp_path / "league.sqlite"
    shutil.copy(DATA / "league_v0_1.sqlite", store)
    board = _evaluate("leaderboard", "--db", str(store), cwd=tmp_path)
    assert board.returncode == 0, board.stderr
    assert "agents.random_policy:RandomPolicy" in board.stdout  # the name it was stored under
    replay = _evaluate("replay", str(DATA / "record_v0_1.json"), cwd=tmp_path)
    assert replay.returncode == 0, replay.stderr
    assert "Traceback" not in replay.stderr


@pytest.mark.slow
def test_an_old_league_goes_on_with_its_old_spec(tmp_path):
    store = tmp_path / "league.sqlite"
    shutil.copy(DATA / "league_v0_1.sqlite", store)
    specs = ["heuristic", "random", "agents.random_policy:RandomPolicy"]
    more = _evaluate(
        "--league",
        *specs,
        "--games",
        "2",
        "--seed",
        "3",
        "--db",
        str(store),
        "--workers",
        "1",
        "--quiet",
        cwd=tmp_path,
    )
    assert more.returncode == 0, more.stderr
    assert "note: 'agents.random_policy'" in more.stderr
    assert more.stderr.count("note:") == 1
