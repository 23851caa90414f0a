"""Issue 54, class 3: a damaged league store. A row that cannot be what the leaderboard reads is one line
naming the store, the table and the row (exit 2), the file left byte-identical; an upgrade is written only
after every row it needs has been read; a read-only store of a readable version is read as it is."""

import os
import shutil
import sqlite3

import pytest
from web_helpers import assert_error, web_client

from ghost_euchre.arena import cli as evaluate
from ghost_euchre.arena.league import leaderboard, run_league
from ghost_euchre.arena.store import SCHEMA_VERSION, Store
from ghost_euchre.arena.web import create_app

RULES = {"target_score": 8}


@pytest.fixture(scope="module")
def regret_db(tmp_path_factory):
    """A small store whose one match has a bid regret per position."""
    path = tmp_path_factory.mktemp("damage") / "league.sqlite"
    with Store(path) as store:
        run_league(
            ["heuristic", "random", "pimc:samples=2"], store, games=3, seed=1, rules=RULES,
            regret=(2, 2, "heuristic"),
        )  # fmt: skip
    return path


def damaged_copy(source, folder, *edits):
    path = folder / "damaged.sqlite"
    shutil.copy(source, path)
    db = sqlite3.connect(path)
    for edit in edits:
        db.execute(edit)
    db.commit()
    db.close()  # the last connection: the file is whole, no -wal beside it
    return path


AS_VERSION_3 = ("DROP TABLE match_regrets", "UPDATE schema_version SET version = 3")


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        (
            ["UPDATE match_totals SET games = 'abc' WHERE position = 1"],
            "table match_totals, match 1, position 1: games='abc'",
        ),
        (  # a version-3 store: nothing upgraded before the rows are read
            ["UPDATE match_totals SET games = 'abc' WHERE position = 1", *AS_VERSION_3],
            "table match_totals, match 1, position 1: games='abc'",
        ),
        (
            ["UPDATE match_totals SET sequences = 0 WHERE position = 2"],
            "table match_totals, match 1, position 2: games=",
        ),
        (
            ["UPDATE match_players SET player_id = 99 WHERE position = 0"],
            "table match_players, match 1, position 0: player_id=99 names no stored player",
        ),
        (
            ["UPDATE match_outcomes SET outcomes = 'not json'"],
            "table match_outcomes, match 1: outcomes='not json'",
        ),
        (
            ["""UPDATE match_outcomes SET outcomes = '{"12": 3}'"""],
            """table match_outcomes, match 1: outcomes='{"12": 3}'""",
        ),
        (
            ["UPDATE match_regrets SET regret_sum = 'lots' WHERE position = 0"],
            "table match_regrets, match 1, position 0: decisions=",
        ),
        (  # a negative variance: the sum of squares below the square of the sum over the count
            ["UPDATE match_regrets SET regret_sum = 10, regret_squares = 1 WHERE position = 0"],
            "a variance >= 0",
        ),
        (
            ["UPDATE match_regrets SET regret_sum = -1 WHERE position = 0"],
            "regret_sum >= 0",
        ),
    ],
)
def test_a_damaged_row_is_one_line_naming_store_table_and_row(
    regret_db, tmp_path, capsys, edits, message
):
    path = damaged_copy(regret_db, tmp_path, *edits)
    before = path.read_bytes()
    for argv in (
        ["leaderboard", "--db", str(path), "--rule", "target_score=8"],
        ["--league", "heuristic", "random", "pimc:samples=2", "--games", "3", "--seed", "1",
         "--rule", "target_score=8", "--db", str(path), "--quiet", "--workers", "1"],
    ):  # fmt: skip
        assert evaluate.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert f"league store {str(path)!r} is damaged: table " in err, err
        assert message in err, err
        assert path.read_bytes() == before, argv
        assert sorted(os.listdir(tmp_path)) == ["damaged.sqlite"]


def test_a_version_3_store_reads_read_only_and_is_left_as_it_was(
    regret_db, tmp_path, monkeypatch, capsys
):
    path = damaged_copy(regret_db, tmp_path, *AS_VERSION_3)
    before = path.read_bytes()
    access = os.access  # read-only for its user (root's writes are not stopped by the mode)
    monkeypatch.setattr(
        os, "access", lambda p, m: access(p, m) and not (p == str(path) and m & os.W_OK)
    )
    assert evaluate.main(["leaderboard", "--db", str(path), "--rule", "target_score=8"]) == 0
    assert "heuristic" in capsys.readouterr().out
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["damaged.sqlite"]
    with Store(path, read_only=True) as store:
        assert all(p["bid_regret"] is None for p in leaderboard(store, rules=RULES).players)
    assert SCHEMA_VERSION == 6


def test_the_page_answers_a_damaged_store_with_a_json_503(regret_db, tmp_path):

    path = damaged_copy(regret_db, tmp_path, "UPDATE match_totals SET games = 'abc'")
    with web_client(create_app(db=str(path))) as client:
        response = client.get("/api/leaderboard")
    assert_error(response, 503, "is damaged: table match_totals, match 1, position 0")


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_a_store_of_a_newer_version_is_refused_in_one_line_and_left_as_it_was(
    regret_db, tmp_path, capsys, journal
):
    path = damaged_copy(
        regret_db, tmp_path, f"UPDATE schema_version SET version = {SCHEMA_VERSION + 1}"
    )
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA journal_mode={journal}")  # delete: switching it to WAL would write it
    db.close()
    before = path.read_bytes()
    expected = (
        f"league store {str(path)!r} has schema version {SCHEMA_VERSION + 1}, newer than this code "
        f"knows (at most {SCHEMA_VERSION}): refused, nothing read or written"
    )
    for argv in (
        ["leaderboard", "--db", str(path)],
        ["replay", str(path)],
        ["replay", str(path), "--match", "1", "--game", "0"],
        ["--league", "heuristic", "random", "pimc:samples=2", "--games", "3", "--seed", "1",
         "--rule", "target_score=8", "--db", str(path), "--quiet", "--workers", "1"],
    ):  # fmt: skip
        assert evaluate.main(argv) == 2, argv
        captured = capsys.readouterr()
        assert captured.err.count("\n") == 1 and expected in captured.err, captured.err
        assert captured.out == "" and "Traceback" not in captured.err
        assert path.read_bytes() == before, argv
        assert sorted(os.listdir(tmp_path)) == ["damaged.sqlite"]
    for read_only in (True, False):
        with pytest.raises(ValueError, match="newer than this code knows"):
            Store(path, read_only=read_only)
    with web_client(create_app(db=str(path))) as client:
        assert_error(client.get("/api/leaderboard"), 503, expected)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ("UPDATE matches SET summary = 'nope'", "table matches, match 1: summary='nope' is not JSON"),
        ("""UPDATE matches SET summary = '{"players": 3}'""",
         "table matches, match 1: summary holds no list of the"),
        ("UPDATE matches SET rules = '{'", "table matches, match 1: rules='{' is not JSON"),
        ("UPDATE matches SET variant = 'poker'", "table matches, match 1: variant='poker' is no variant"),
        ("UPDATE games SET seats = '[0, 9, 1]' WHERE game = 2", "table games, match 1, game 2: seats="),
        ("UPDATE games SET final_scores = 'x' WHERE game = 2",
         "table games, match 1, game 2: final_scores='x' is not JSON"),
        ("UPDATE games SET stream_key = 'zz' WHERE game = 2",
         "table games, match 1, game 2: stream_key='zz' is not hexadecimal"),
    ],
)  # fmt: skip
def test_a_replay_of_a_damaged_match_names_the_store_the_table_and_the_match(
    regret_db, tmp_path, capsys, edit, message
):
    path = damaged_copy(regret_db, tmp_path, edit)
    before = path.read_bytes()
    failed = 0
    for argv in (["replay", str(path)], ["replay", str(path), "--match", "1"],
                 ["replay", str(path), "--match", "1", "--game", "2"]):  # fmt: skip
        status = evaluate.main(argv)
        err = capsys.readouterr().err
        if status == 0:  # the list of matches reads no game (nor the variant)
            assert argv == ["replay", str(path)] and "summary" not in message
            continue
        failed += 1
        assert status == 2 and err.count("\n") == 1 and "Traceback" not in err, err
        assert f"league store {str(path)!r} is damaged: {message}" in err, err
    assert failed >= 2 and path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["damaged.sqlite"]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ("UPDATE schema_version SET version = 'x'", "'x' is not one schema version"),
        ("INSERT INTO schema_version VALUES (6)", "[6, 6] is not one schema version"),
        ("UPDATE schema_version SET version = 0", "0 is not one schema version"),
        ("DELETE FROM schema_version", "none: the store has no version"),
    ],
)
def test_a_store_whose_version_is_not_one_is_refused_and_left_as_it_was(
    regret_db, tmp_path, capsys, edit, message
):
    path = damaged_copy(regret_db, tmp_path, edit)
    before = path.read_bytes()
    for argv in (
        ["leaderboard", "--db", str(path)],
        ["--league", "heuristic", "random", "pimc:samples=2", "--games", "3", "--seed", "1",
         "--rule", "target_score=8", "--db", str(path), "--quiet", "--workers", "1"],
    ):  # fmt: skip
        assert evaluate.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert f"league store {str(path)!r} is damaged: table schema_version, its rows: " in err
        assert message in err, err
        assert path.read_bytes() == before
        assert sorted(os.listdir(tmp_path)) == ["damaged.sqlite"]
