"""Matches, leagues and bidding matches split over worker processes or Ray: same results as one process."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest
from terminal_helpers import module_at_a_terminal

from ghost_euchre.arena.bidding import run_bidding_match
from ghost_euchre.arena.league import leaderboard, run_league
from ghost_euchre.arena.match import run_match
from ghost_euchre.arena.store import Store

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PPO = "ppo:ghost_euchre/agents/pretrained/ghost_ppo.pt"
RULES = {"target_score": 16}  # short games
USER_BOTS = '''
import os
import time
import multiprocessing

import numpy as np

from ghost_euchre.agents.base import Policy
from ghost_euchre.agents.random_policy import random_legal_actions
from ghost_euchre.agents.streams import draws


class Coin(Policy):
    """The highest legal action, or with probability 1/2 a random one (keyed by game)."""

    name = "coin"

    def act(self, obs, mask, keys=None):
        rng = draws(self, keys)
        highest = mask.shape[1] - 1 - np.asarray(mask)[:, ::-1].argmax(axis=1)
        return np.where(rng.random(len(obs)) < 0.5, highest, random_legal_actions(mask, rng))


class Doomed(Coin):
    """Kills its own process when it plays in a worker process."""

    def act(self, obs, mask, keys=None):
        if multiprocessing.parent_process() is not None:
            os.kill(os.getpid(), 9)
        return super().act(obs, mask, keys)


class Slow(Coin):
    """Coin, 50 ms per call."""

    def act(self, obs, mask, keys=None):
        time.sleep(0.05)
        return super().act(obs, mask, keys)
'''


@pytest.fixture(autouse=True)
def user_bots(tmp_path, monkeypatch):
    """A module of user classes the test writes (workers must import it too), and league_bots."""
    (tmp_path / "userbots27.py").write_text(USER_BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(HERE)
    monkeypatch.chdir(ROOT)  # the ppo: path is relative to the repository


def summary(result):
    data = result.to_dict()
    data.pop("wall_time_s")
    return data


def same_match(a, b):
    assert summary(a) == summary(b)
    for field in ("final_scores", "winner_seat", "game_points", "game_deals", "truncated"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert a.actions == b.actions


def test_a_match_gives_the_same_results_on_one_and_two_workers():
    players = ["pimc:samples=2", PPO, "userbots27:Coin"]
    options = {"games": 18, "seed": 4, "episode": "deal", "record": True}
    serial = run_match(players, **options)
    assert serial.players[2]["spec"] == "userbots27:Coin" and serial.decisions > 0
    same_match(serial, run_match(players, **options, workers=2))
    same_match(serial, run_match(players, **options, num_envs=5))  # batches of one sequence
    other_seed = run_match(players, **{**options, "seed": 5}, workers=2)
    assert not np.array_equal(serial.final_scores, other_seed.final_scores)
    classic = ["pimc:samples=2", "random", "heuristic", "userbots27:Coin"]
    options = {"variant": "classic", "games": 8, "seed": 1, "episode": "deal"}
    same_match(run_match(classic, **options), run_match(classic, **options, workers=2))


def test_sampling_random_playouts_composites_and_bid_regret_do_not_depend_on_the_split():
    players = [
        f"{PPO}:sample=true",
        "pimc:samples=2,rollout=random",
        "composite[random | pimc:samples=2]",
    ]
    options = {"games": 12, "seed": 2, "episode": "deal"}
    same_match(run_match(players, **options), run_match(players, **options, workers=2))
    bidding = {"card_play": "heuristic", "regret_decisions": 6, "regret_worlds": 2, **options}
    serial, serial_regrets = run_bidding_match(["heuristic", "random", "pimc:samples=2"], **bidding)
    split, split_regrets = run_bidding_match(
        ["heuristic", "random", "pimc:samples=2"], **bidding, workers=2
    )
    same_match(serial, split)
    assert serial_regrets is not None and split_regrets is not None
    assert [r.to_dict() for r in serial_regrets] == [r.to_dict() for r in split_regrets]
    assert [len(r.regrets) for r in split_regrets] == [6, 6, 6]


LEAGUE = ["heuristic", "random", "league_bots:Blend:random_share=0.5", "userbots27:Coin"]


def stored(path):
    """{match_key: [game rows]} of a store, every match complete ({} while its tables are not yet
    committed: the file exists from the moment the store opens it)."""
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        if "games" not in tables:
            return {}
        rows = db.execute(
            "SELECT m.match_key, m.games, g.game, g.seats, g.final_scores, g.points, g.actions"
            " FROM games g JOIN matches m ON m.id = g.match_id ORDER BY m.match_key, g.game"
        ).fetchall()
    matches = {}
    for key, games, *game in rows:
        matches.setdefault(key, []).append(tuple(game))
        assert len(matches[key]) <= games
    return matches


def board(path):
    with Store(path) as store:
        return leaderboard(store, rules=RULES).to_dict()


def test_a_league_gives_the_same_store_and_leaderboard_on_one_and_two_workers(tmp_path):
    runs = {}
    for workers in (1, 2):
        path = tmp_path / f"w{workers}.sqlite"
        lines = []
        with Store(path) as store:
            run = run_league(
                LEAGUE, store, games=6, seed=1, rules=RULES, workers=workers, out=lines.append
            )
        assert len(run.played) == 4 and not run.failed
        assert [line.split(" ")[0] for line in lines] == [f"[{n}/4]" for n in range(1, 5)]
        runs[workers] = (stored(path), board(path), [m["match_id"] for m in run.played])
    assert runs[1] == runs[2]  # same games, same leaderboard, same match ids in league order
    assert len(runs[1][0]) == 4 and all(len(games) == 6 for games in runs[1][0].values())


def test_a_dead_worker_fails_its_match_only(tmp_path):
    path = tmp_path / "league.sqlite"
    lines = []
    specs = ["heuristic", "random", "league_bots:Blend", "userbots27:Doomed"]
    with Store(path) as store:
        run = run_league(specs, store, games=6, seed=1, rules=RULES, workers=2, out=lines.append)
    assert [m["players"] for m in run.played] == [["heuristic", "league_bots:Blend", "random"]]
    assert len(run.failed) == 3 and all("userbots27:Doomed" in f["players"] for f in run.failed)
    failed_lines = [line for line in lines if "not played" in line]
    assert len(failed_lines) == 3
    for line in failed_lines:
        assert "userbots27:Doomed" in line and "worker process died (exit code -9)" in line
        assert line.endswith("rerun to retry") and "\n" not in line
    assert list(map(len, stored(path).values())) == [6]  # the match that was played, whole
    with pytest.raises(
        ValueError, match=r"games \d+\.\.\d+ of the match failed: its worker process"
    ):
        run_match(specs[1:], games=12, seed=1, rules=RULES, workers=2)


def test_ctrl_c_of_a_parallel_league_keeps_finished_matches_and_the_command_resumes(tmp_path):
    path = tmp_path / "league.sqlite"
    specs = ["heuristic", "random", "league_bots:Blend", "userbots27:Slow"]
    argv = [
        sys.executable,
        "-m",
        "ghost_euchre.arena",
        "--league",
        *specs,
        "--games",
        "6",
        "--seed",
        "1",
    ]
    argv += ["--rule", "target_score=16", "--db", str(path), "--workers", "2", "--quiet"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, HERE, str(tmp_path)]))
    interrupted = [sys.executable, "-c", module_at_a_terminal("ghost_euchre.arena"), *argv[3:]]
    league = subprocess.Popen(interrupted, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not (path.exists() and stored(path)) and league.poll() is None:
        assert time.monotonic() < deadline, "no match was stored"
        time.sleep(0.05)
    league.send_signal(signal.SIGINT)  # the fast first match is stored, the slow ones are playing
    printed, _ = league.communicate(timeout=120)
    assert league.returncode == 130, printed
    assert "interrupted: finished matches are stored" in printed
    kept = stored(path)
    assert 1 <= len(kept) < 4 and all(len(games) == 6 for games in kept.values())
    resumed = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(kept)} already stored" in resumed.stdout
    with Store(tmp_path / "serial.sqlite") as store:
        run_league(specs, store, games=6, seed=1, rules=RULES)
    assert stored(path) == stored(tmp_path / "serial.sqlite")


def test_a_local_ray_gives_the_serial_results(tmp_path):
    ray = pytest.importorskip("ray")
    players = ["pimc:samples=2", PPO, "userbots27:Coin"]
    options = {"games": 12, "seed": 3, "episode": "deal", "record": True}
    serial = run_match(players, **options)
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        same_match(serial, run_match(players, **options, ray="auto"))
        with Store(tmp_path / "ray.sqlite") as store:
            run = run_league(LEAGUE, store, games=6, seed=1, rules=RULES, ray="auto")
    finally:
        ray.shutdown()
    assert len(run.played) == 4
    with Store(tmp_path / "serial.sqlite") as store:
        run_league(LEAGUE, store, games=6, seed=1, rules=RULES)
    assert stored(tmp_path / "ray.sqlite") == stored(tmp_path / "serial.sqlite")
    assert board(tmp_path / "ray.sqlite") == board(tmp_path / "serial.sqlite")


def test_workers_must_be_a_positive_int(capsys):
    from ghost_euchre.arena import cli as evaluate

    assert evaluate.main(["random", "random", "random", "--workers", "0", "--quiet"]) == 2
    assert "--workers must be an int >= 1, got 0" in capsys.readouterr().err


def test_the_default_workers_are_every_core_unless_only_fast_bots_play(monkeypatch, capsys):
    from ghost_euchre.arena import cli as evaluate
    from ghost_euchre.plumbing.workers import usable_cores

    given = []

    def recorded(players, **options):
        given.append(options["workers"])
        raise ValueError("stop here")

    monkeypatch.setattr(evaluate, "run_match", recorded)
    for players, workers in (
        (["heuristic", "random", "composite[random | heuristic]"], 1),
        (["heuristic", "random", "pimc:samples=2"], usable_cores()),
        (["heuristic", "random", PPO], 1),  # batched networks too (benchmarks/load_defaults.py)
        (["heuristic", "random", "composite[random | userbots27:Coin]"], usable_cores()),
    ):
        assert evaluate.main([*players, "--quiet"]) == 2
        assert given.pop() == workers
    assert evaluate.main(["random", "random", "random", "--workers", "3", "--quiet"]) == 2
    assert given == [3]
    capsys.readouterr()
