"""Bad input in the arena's plug-in paths (issue 44): bots that raise (in this process and in a
worker), policies a worker cannot load or that cannot be copied to one, Ray addresses with no
cluster, version-1 stores with bad rows, read-only stores, and the older battery's leftovers
(a negative seed, a negative regret_decisions, replay names). Each case: one line naming what is
wrong (which player, match and game), the exit status, and no file created or changed."""

import dataclasses
import os
import shutil
import socket
import sqlite3
import sys
import textwrap
import threading

import numpy as np
import pytest
from test_league import README_DB, downgrade_to_version_1, sql

from ghost_euchre.agents import make_policy
from ghost_euchre.agents.base import Policy
from ghost_euchre.arena import cli as evaluate
from ghost_euchre.arena.bidding import run_bidding_match
from ghost_euchre.arena.match import run_match
from ghost_euchre.arena.store import SCHEMA_VERSION, Store
from ghost_euchre_env import GhostEuchre
from ghost_euchre_env.records import format_replay

RULES = {"target_score": 8}
RAISER = '''
    import numpy as np

    from ghost_euchre.agents.base import Policy


    class Raiser(Policy):
        """Plays the lowest legal action, and raises on its fourth call of a process."""

        name = "raiser"
        calls = 0

        def act(self, obs, mask):
            Raiser.calls += 1
            if Raiser.calls > 3:
                raise ZeroDivisionError("the bot broke")
            return np.argmax(mask, axis=1).astype(np.int64)
'''


class Lowest(Policy):
    """The lowest legal action (a top-level class: it can be copied to a worker)."""

    name = "lowest"

    def act(self, obs, mask):
        return np.argmax(mask, axis=1).astype(np.int64)


@pytest.fixture
def raiser(tmp_path, monkeypatch):
    """The spec of a bot that raises, its module on sys.path (and PYTHONPATH, for workers)."""
    folder = tmp_path / "user"
    folder.mkdir()
    (folder / "raising44.py").write_text(textwrap.dedent(RAISER))
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(folder), *sys.path]))
    yield "raising44:Raiser"
    sys.modules.pop("raising44", None)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_bot_that_raises_is_named_with_its_game_before_its_traceback(
    workers, raiser, tmp_path, capsys
):
    argv = [raiser, "random", "heuristic", "--games", "12", "--rule", "target_score=8", "--quiet"]
    assert evaluate.main([*argv, "--workers", workers]) == 1
    first, *trace = capsys.readouterr().err.splitlines()
    assert first.startswith(f"evaluate.py: error: player {raiser!r} raised ZeroDivisionError: ")
    assert "the bot broke in game" in first and first.endswith("(its traceback follows)")
    assert trace[0] == "Traceback (most recent call last):" and "raising44.py" in "".join(trace)
    assert trace[-1] == "ZeroDivisionError: the bot broke"


def test_a_league_names_the_match_of_a_bot_that_raises(raiser, tmp_path, capsys):
    db = tmp_path / "league.sqlite"
    argv = ["--league", "random", "heuristic", raiser, "--games", "6", "--rule", "target_score=8"]
    assert evaluate.main([*argv, "--db", str(db), "--quiet", "--workers", "1"]) == 1
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith(f"evaluate.py: error: match heuristic vs {raiser} vs random: player ")
    assert "raised ZeroDivisionError: the bot broke in game" in first


def test_a_policy_a_worker_cannot_load_names_the_match_and_the_player(monkeypatch):
    module = type(sys)("made_at_run_time44")  # imports here (in sys.modules), not in a worker
    made = type("Made", (Lowest,), {"__module__": module.__name__, "name": "made"})
    module.Made = made
    monkeypatch.setitem(sys.modules, module.__name__, module)
    with pytest.raises(ValueError, match="cannot load it") as error:
        run_match([made(GhostEuchre()), "random", "heuristic"], games=12, rules=RULES, workers=2)
    message = str(error.value)
    assert (
        message.startswith("games ")
        and " of the match: a worker process cannot load it (" in message
    )
    assert "No module named 'made_at_run_time44'" in message and "\n" not in message
    assert (
        "; player 'made' does not load in a worker process: define its class at the top" in message
    )


def test_a_policy_that_cannot_be_copied_names_the_player_and_the_fix():
    class Local(Lowest):  # a class defined in a function
        name = "local"

    locked = Lowest(GhostEuchre())
    locked.name = "locked"
    setattr(locked, "lock", threading.Lock())  # noqa: B010 (an attribute its class does not declare)
    for player, why in (
        (Local(GhostEuchre()), "Can't pickle local object"),
        (locked, "_thread.lock"),
    ):
        with pytest.raises(ValueError, match="cannot be copied") as error:
            run_match([player, "random", "heuristic"], games=12, rules=RULES, workers=2)
        message = str(error.value)
        assert message.startswith(
            f"player {player.name!r} cannot be copied to the worker processes"
        )
        assert why in message and message.endswith("or play with workers=1")
    assert run_match([locked, "random", "heuristic"], games=6, rules=RULES).players  # workers=1


def test_ray_without_a_cluster_is_one_line_and_leaves_no_store(tmp_path, capsys, monkeypatch):
    pytest.importorskip("ray")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    argv = ["random", "random", "heuristic", "--games", "6", "--quiet", "--ray", "127.0.0.1:1"]
    assert evaluate.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        "evaluate.py: error: --ray '127.0.0.1:1': no Ray cluster there (127.0.0.1:1 does not answer: "
    )
    with socket.create_server(("127.0.0.1", 0)) as server:  # a port that answers, not as Ray
        port = server.getsockname()[1]

        def answer_http():
            connection, _ = server.accept()
            with connection:
                connection.recv(64)
                connection.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

        threading.Thread(target=answer_http, daemon=True).start()
        argv = ["random", "random", "heuristic", "--quiet", "--ray", f"127.0.0.1:{port}"]
        assert evaluate.main(argv) == 2
    err = capsys.readouterr().err
    assert err == (
        f"evaluate.py: error: --ray '127.0.0.1:{port}': no Ray cluster there (127.0.0.1:{port} "
        "answers, but not as a gRPC server (Ray's GCS is one))\n"
    )
    db = tmp_path / "league.sqlite"
    argv = ["--league", "random", "heuristic", "pimc", "--db", str(db), "--ray", "auto"]
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path / "no-cluster"))  # no cluster started here
    assert evaluate.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--ray 'auto': no Ray cluster there (" in err, err
    assert not db.exists()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ("final_scores = '[3, 1]'", "match 5, game 3: final_scores must be 3 integers (one per seat), got [3, 1]"),
        ("winner_seat = 7", "match 5, game 3: winner_seat must be -1 (none) or a seat 0..2, got 7"),
    ],
)  # fmt: skip
def test_a_version_1_store_with_a_bad_game_row_is_named_and_left_as_it_was(edit, message, tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copy(README_DB, path)
    downgrade_to_version_1(path)
    with sql(path) as db:
        db.execute(f"UPDATE games SET {edit} WHERE match_id = 5 AND game = 3")
    before = path.read_bytes()
    with pytest.raises(ValueError, match=f"upgrading it to {SCHEMA_VERSION} failed") as error:
        Store(path)
    assert str(error.value) == (
        f"store {str(path)!r} has schema version 1; upgrading it to {SCHEMA_VERSION} failed: {message}"
    )
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["old.sqlite"]
    assert evaluate.main(["--league", "random", "heuristic", "pimc", "--db", str(path)]) == 2


def test_a_league_refuses_a_read_only_store_before_opening_it(tmp_path, monkeypatch, capsys):
    db = tmp_path / "league.sqlite"
    Store(db).close()
    before = db.read_bytes()
    access = os.access  # as a read-only file is for its user (root's writes are not stopped)
    monkeypatch.setattr(
        os, "access", lambda p, m: access(p, m) and not (p == str(db) and m & os.W_OK)
    )
    argv = ["--league", "random", "heuristic", "pimc", "--db", str(db), "--quiet"]
    assert evaluate.main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"evaluate.py: error: cannot write --db {str(db)!r}: the file is read-only\n"
    assert os.listdir(tmp_path) == ["league.sqlite"] and db.read_bytes() == before


def test_the_older_batterys_leftovers_are_one_line():
    with pytest.raises(ValueError, match=r"^seed must be an int >= 0, got -1$"):
        make_policy("random", GhostEuchre(), seed=-1)
    with pytest.raises(ValueError, match=r"^regret_decisions must be an int >= 0, got -1$"):
        run_bidding_match(["heuristic"] * 3, "random", regret_decisions=-1, games=6)
    record = run_match(["random"] * 3, games=6, rules=RULES, record=True).game_records()[0]
    for names in (("one",), (1, 2, 3)):
        with pytest.raises(ValueError, match=r"^names must be 3 strings \(one per seat\) or none"):
            format_replay(dataclasses.replace(record, names=names))


def test_replaying_a_read_only_store_leaves_nothing_beside_it(
    tmp_path, league_db, monkeypatch, capsys
):
    db = tmp_path / "league.sqlite"
    shutil.copy(league_db, db)
    before = db.read_bytes()
    access = os.access  # as a read-only file is for its user (root's writes are not stopped)
    monkeypatch.setattr(
        os, "access", lambda p, m: access(p, m) and not (p == str(db) and m & os.W_OK)
    )
    connect = sqlite3.connect  # and SQLite cannot write it either

    def read_only(database, *args, **kwargs):
        return connect(
            database if "mode=ro" in database else f"{database}?mode=ro", *args, **kwargs
        )

    monkeypatch.setattr(sqlite3, "connect", read_only)
    assert evaluate.main(["replay", str(db)]) == 0
    assert capsys.readouterr().out.startswith("match 1: ghost, 6 games")
    assert evaluate.main(["replay", str(db), "--match", "1"]) == 0
    assert os.listdir(tmp_path) == ["league.sqlite"] and db.read_bytes() == before
