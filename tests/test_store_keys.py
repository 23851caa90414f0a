"""A store keys its results by the rules away from the variant's defaults: a rules option added at
its default leaves every stored result where it is, and a store keyed the old way (schema 5, the
whole rules dict) reads as it is and is keyed again when opened to write."""

import dataclasses
import json
import sqlite3

import pytest

from ghost_euchre.arena.league import leaderboard, run_league
from ghost_euchre.arena.store import Store, match_key
from ghost_euchre.arena.store.identity import key_of
from ghost_euchre_env.ghost import GhostEuchre, GhostRules

SPECS = ["heuristic", "random", "composite[random | heuristic]"]
RULES = {"target_score": 16}


def league(store):
    return run_league(SPECS, store, games=6, seed=3, rules=RULES)


def keys(path):
    """[(match_key, schema 5's key of its columns, this code's key of them)] of every match."""
    with sqlite3.connect(path) as db:
        identity = {
            pid: [spec, version]
            for pid, spec, version in db.execute("SELECT id, spec, content_hash FROM players")
        }
        rows = db.execute(
            "SELECT id, match_key, variant, episode, rules, seed, games FROM matches"
        ).fetchall()
        found = []
        for match_id, key, variant, episode, rules, seed, games in rows:
            players = db.execute(
                "SELECT player_id FROM match_players WHERE match_id = ? ORDER BY position",
                (match_id,),
            )
            ids = [identity[pid] for (pid,) in players]
            old = key_of([variant, episode, rules, seed, games, ids])  # the whole rules dict's
            new = match_key(variant, episode, json.loads(rules), seed, games, ids)
            found.append((key, old, new))
    return found


@pytest.fixture
def played(tmp_path):
    """(store path, its leaderboard as a dict) of a league of one match."""
    path = tmp_path / "league.sqlite"
    with Store(path) as store:
        assert len(league(store).played) == 1
        board = leaderboard(store, rules=RULES).to_dict()
    [(key, old, new)] = keys(path)
    assert key == new != old
    return path, board


def test_a_store_keyed_by_the_whole_rules_dict_reads_and_is_keyed_again(played):
    path, board = played
    with sqlite3.connect(path) as db:  # what schema 5 wrote
        for key, old, _ in keys(path):
            db.execute("UPDATE matches SET match_key = ? WHERE match_key = ?", (old, key))
        db.execute("UPDATE schema_version SET version = 5")
    with Store(path, read_only=True) as store:  # read as it is
        assert leaderboard(store, rules=RULES).to_dict() == board
    assert [key == old for key, old, _ in keys(path)] == [True]
    with Store(path) as store:  # upgraded: the same matches, under this code's keys
        rerun = league(store)
        assert (len(rerun.played), len(rerun.skipped)) == (0, 1)
        assert leaderboard(store, rules=RULES).to_dict() == board
    assert [key == new for key, _, new in keys(path)] == [True]


@dataclasses.dataclass(frozen=True)
class RulesWithAnOption(GhostRules):
    """Ghost Hand's rules with one option more, at a default that changes nothing."""

    stick_the_dealer: bool = False


def test_an_option_added_at_its_default_leaves_the_stored_results_where_they_are(
    played, monkeypatch
):
    path, board = played
    monkeypatch.setattr(GhostEuchre, "rules_type", RulesWithAnOption)
    with Store(path) as store:
        rerun = league(store)
        assert (len(rerun.played), len(rerun.skipped)) == (0, 1)
        now = leaderboard(store, rules=RULES).to_dict()
        assert now["rules"] == {**board["rules"], "stick_the_dealer": False}
        assert {**now, "rules": board["rules"]} == board
        with pytest.raises(ValueError, match="no ghost matches"):  # away from its default
            leaderboard(store, rules={**RULES, "stick_the_dealer": True})
