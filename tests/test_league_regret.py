"""The bid regret in a league: ``--league ... --bid-regret N`` stores it per match and position, the
leaderboard (table, JSON, ``leaderboard`` command) shows it, an older store upgrades."""

import json
import os
import sqlite3

import numpy as np
import pytest

from ghost_euchre.arena import cli as evaluate
from ghost_euchre.arena.bidding import run_bidding_match
from ghost_euchre.arena.league import leaderboard, run_league
from ghost_euchre.arena.regret import regret_from_sums, regret_of
from ghost_euchre.arena.report import leaderboard_table
from ghost_euchre.arena.store import SCHEMA_VERSION, Store

HERE = os.path.dirname(os.path.abspath(__file__))
STRONG, MIDDLE, WEAK = "heuristic", "league_bots:Blend:random_share=0.5", "random"
FOURTH = "league_bots:Blend:random_share=0.8"
RULE = ["--rule", "target_score=16"]
REGRET = ["--bid-regret", "3", "--regret-worlds", "2"]


@pytest.fixture(autouse=True)
def bots_importable(monkeypatch):
    monkeypatch.syspath_prepend(HERE)  # league_bots, for class specs


def league_argv(db, *more, players=(STRONG, MIDDLE, WEAK)):
    return ["--league", *players, "--games", "6", *RULE, "--quiet", "--workers", "1",
            "--db", str(db), *more]  # fmt: skip


def table_of(printed):
    """The leaderboard printed (from its first line to the head-to-head table's last)."""
    start = printed.rfind("\n", 0, printed.index(" league, episode=")) + 1
    return printed[start:].split("\nwrote ")[0].rstrip("\n")


def test_a_league_stores_each_players_regret_and_the_leaderboard_shows_it(tmp_path, capsys):
    db = tmp_path / "l.sqlite"
    assert evaluate.main(league_argv(db, *REGRET, "--json", str(tmp_path / "lb.json"))) == 0
    printed = table_of(capsys.readouterr().out)
    assert "bid regret [95% CI] (decisions)" in printed
    data = json.loads((tmp_path / "lb.json").read_text())
    # the one match's regrets, as run_bidding_match measures them (the same oracle and sample)
    _, regrets = run_bidding_match(
        [STRONG, MIDDLE, WEAK], None, 3, 2, games=6, seed=0, rules={"target_score": 16}
    )
    assert regrets is not None
    shown = {p["name"]: p["bid_regret"] for p in data["players"]}
    for name, regret in zip([STRONG, MIDDLE, WEAK], regrets, strict=True):
        assert shown[name]["decisions"] == regret.decisions == 3
        assert shown[name]["mean_regret"] == pytest.approx(regret.mean)
        assert shown[name]["mean_regret_ci95"] == pytest.approx(list(regret.ci95))
        assert shown[name]["best_rate"] == pytest.approx(regret.best_rate)
    # reopened: the same table, by the league (nothing to play) and by the leaderboard command
    assert evaluate.main(league_argv(db, *REGRET)) == 0
    again = capsys.readouterr().out
    assert "played 0 matches, 1 already stored" in again and table_of(again) == printed
    assert evaluate.main(["leaderboard", "--db", str(db), *RULE]) == 0
    assert table_of(capsys.readouterr().out) == printed


def test_the_regret_pools_its_sums_over_matches():
    matches = [np.array([0.5, 0.5, 0.0]), np.array([1.0, 3.0])]  # each match's sampled regrets
    sums = [(len(r), r.sum(), (r**2).sum(), int((r == 0).sum())) for r in matches]
    pooled = regret_from_sums(*np.sum(sums, axis=0).tolist())
    regret = regret_of(np.stack([-np.concatenate(matches), np.zeros(5)], axis=1), np.zeros(5, int))
    expected = regret.to_dict()  # as if measured at once; approx takes no list inside a dict
    assert pooled.keys() == expected.keys()
    for key, value in expected.items():
        assert pooled[key] == pytest.approx(value), key


def test_a_match_stored_without_regret_is_played_again_for_it_and_the_same_options_only(
    tmp_path, capsys
):
    plain, fresh = tmp_path / "plain.sqlite", tmp_path / "fresh.sqlite"
    assert evaluate.main(league_argv(plain)) == 0
    without = table_of(capsys.readouterr().out)
    assert "bid regret" not in without
    with Store(plain) as store:
        assert leaderboard(store, rules={"target_score": 16}).players[0]["bid_regret"] is None
    assert evaluate.main(league_argv(plain, *REGRET)) == 0
    completed = table_of(capsys.readouterr().out)
    assert evaluate.main(league_argv(fresh, *REGRET)) == 0
    assert table_of(capsys.readouterr().out) == completed  # the same games, the same regrets
    assert completed.splitlines()[3].startswith(without.splitlines()[3])
    with sqlite3.connect(plain) as db:
        assert db.execute("SELECT COUNT(*) FROM matches").fetchone() == (1,)
        assert db.execute("SELECT COUNT(*) FROM match_regrets").fetchone() == (3,)
    assert evaluate.main(league_argv(plain, "--bid-regret", "4", "--regret-worlds", "2")) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1
    assert "has its bid regret stored with --bid-regret 3 --regret-worlds 2" in error
    assert evaluate.main(league_argv(plain)) == 0  # a league without regret: shown as stored
    assert table_of(capsys.readouterr().out) == completed


def test_a_classic_bidding_league_stores_and_shows_the_regret(tmp_path, capsys):
    db = tmp_path / "c.sqlite"
    argv = league_argv(db, *REGRET, "--variant", "classic", "--card-play", "heuristic",
                       players=(STRONG, MIDDLE, WEAK, FOURTH))  # fmt: skip
    argv[argv.index("6")] = "4"
    assert evaluate.main(argv) == 0
    printed = table_of(capsys.readouterr().out)
    assert printed.startswith("classic league") and "bid regret [95% CI] (decisions)" in printed
    with Store(db) as store:
        board = leaderboard(store, "classic", rules={"target_score": 16})
        assert [p["bid_regret"]["decisions"] for p in board.players] == [9, 9, 9, 9]  # 3 matches
        with sqlite3.connect(db) as plain:
            oracles = {o for (o,) in plain.execute("SELECT DISTINCT oracle FROM match_regrets")}
        assert oracles == {"heuristic"}
    assert leaderboard_table(board) in printed


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--bid-regret", "-1"], "--bid-regret must be"),
        (["--bid-regret", "2", "--regret-worlds", "0"], "--regret-worlds must be"),
        (["--regret-worlds", "4"], "--regret-worlds is the worlds of each --bid-regret decision"),
    ],
)
def test_bad_regret_values_in_a_league_are_one_line(tmp_path, capsys, flags, message):
    db = tmp_path / "l.sqlite"
    assert evaluate.main(league_argv(db, *flags)) == 2
    error = capsys.readouterr().err.strip()
    assert message in error and len(error.splitlines()) == 1 and "Traceback" not in error
    assert not db.exists()


def test_a_version_3_store_upgrades_and_reads_as_without_regret(tmp_path, capsys):
    db = tmp_path / "l.sqlite"
    assert evaluate.main(league_argv(db)) == 0
    table = table_of(capsys.readouterr().out)
    with sqlite3.connect(db) as plain:  # what schema 3 wrote: no match_regrets
        plain.execute("DROP TABLE match_regrets")
        plain.execute("UPDATE schema_version SET version = 3")
    with Store(db, read_only=True) as store:  # read only: as stored, no regret
        board = leaderboard(store, rules={"target_score": 16})
        assert all(p["bid_regret"] is None for p in board.players)
    assert leaderboard_table(board) in table
    assert evaluate.main(league_argv(db, *REGRET)) == 0  # upgraded on opening, then completed
    assert "bid regret" in capsys.readouterr().out
    with sqlite3.connect(db) as plain:
        assert plain.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        assert plain.execute("SELECT COUNT(*) FROM match_regrets").fetchone() == (3,)


def test_run_league_stores_the_regret_with_the_match(tmp_path):
    with Store(tmp_path / "l.sqlite") as store:
        run = run_league(
            [STRONG, MIDDLE, WEAK], store, games=6, rules={"target_score": 16},
            regret=(2, 2, "heuristic"),
        )  # fmt: skip
        assert len(run.played) == 1
        assert store.match_regret(store.matches()[0]["match_key"]) == (2, 2, "heuristic")
