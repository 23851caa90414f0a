"""ghost_euchre.arena.league and ghost_euchre.arena.store: incremental leagues, ratings, interruption, concurrent writers, CLI."""

import contextlib
import csv
import json
import multiprocessing
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ghost_euchre.agents.specs import written
from ghost_euchre.arena import cli as evaluate
from ghost_euchre.arena import league as league_module
from ghost_euchre.arena import store as store_module
from ghost_euchre.arena.league import leaderboard, league_matches, run_league
from ghost_euchre.arena.match import run_match
from ghost_euchre.arena.seatings import match_teams
from ghost_euchre.arena.stats import plackett_luce_ratings
from ghost_euchre.arena.store import SCHEMA_VERSION, Store, match_key, player_identity

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
README_DB = os.path.join(ROOT, "docs", "league.sqlite")
# the README league's leaderboard by the code before schema 2 (OpenSkill over every game,
# averaged over 8 orders), from docs/league.sqlite at 67ce4ea
OPENSKILL_BOARD = os.path.join(HERE, "golden", "league_readme_openskill.json")
STRONG, MIDDLE, WEAK = "heuristic", "league_bots:Blend:random_share=0.5", "random"
FOURTH = "league_bots:Blend:random_share=0.8"
RULES = {"target_score": 16}  # shorter games keep the tests fast
GAMES = 12  # per match (2 deal sequences); the ranking test plays more


@pytest.fixture(autouse=True)
def bots_importable(monkeypatch):
    monkeypatch.syspath_prepend(HERE)  # league_bots, for class specs


def league(store, specs, games=GAMES):
    return run_league(specs, store, games=games, seed=3, rules=RULES)


def stored_games(path):
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        matches = db.execute("SELECT id, games FROM matches").fetchall()
        per_match = dict(db.execute("SELECT match_id, count(*) FROM games GROUP BY match_id"))
        keys = [k for (k,) in db.execute("SELECT match_key FROM matches")]
    assert len(set(keys)) == len(keys)
    assert dict(matches) == per_match  # every match complete, no stray games
    return len(matches), sum(per_match.values())


def test_league_plan_is_every_subset_in_canonical_order():
    ghost = league_matches(["e", "d", "c", "b", "a"])
    assert len(ghost) == 10 and ghost[0] == ["a", "b", "c"]
    assert ghost == league_matches(["a", "b", "c", "d", "e"])
    classic = league_matches(["d", "c", "b", "a"], "classic")
    assert classic == [["a", "c", "b", "d"], ["a", "b", "c", "d"], ["a", "b", "d", "c"]]
    assert len(league_matches(list("abcdef"), "classic")) == 15 * 3
    with pytest.raises(ValueError, match="given more than once: \\['a'\\]"):
        league_matches(["a", "b", "a", "c"])
    with pytest.raises(ValueError, match="needs at least 4 players, got 3"):
        league_matches(["a", "b", "c"], "classic")


def test_a_classic_league_of_four_plays_each_team_split_once(tmp_path):
    """Four players split into two teams in three ways: three matches, each stored under its
    own key (none skipped as stored already), each with other partners; a rerun plays none."""
    specs = [
        "heuristic",
        "random",
        "ghost_euchre.agents.random_policy:RandomPolicy",
        "ghost_euchre.agents.heuristic:heuristic_policy",
    ]
    options = {"games": 4, "seed": 0, "rules": {"target_score": 4}}
    with Store(tmp_path / "classic.sqlite") as store:
        run = run_league(specs, store, "classic", **options)
        again = run_league(specs, store, "classic", **options)
        matches = store.matches("classic")
    assert len(run.played) == 3 and run.skipped == []
    assert len(again.skipped) == 3 and again.played == []
    assert len({m["match_key"] for m in matches}) == 3
    splits = {
        frozenset(frozenset(m["player_ids"][seat] for seat in team) for team in ((0, 2), (1, 3)))
        for m in matches
    }
    assert len(splits) == 3  # every pairing of the four into two teams


def test_incremental_league_ranks_by_strength(tmp_path):
    path, games = tmp_path / "league.sqlite", 24
    with Store(path) as store:
        first = league(store, [WEAK, STRONG, MIDDLE], games)
        assert len(first.played) == 1 and not first.skipped
        second = league(store, [FOURTH, MIDDLE, STRONG, WEAK], games)
        assert len(second.played) == 3 and len(second.skipped) == 1  # only the new matches
        assert second.skipped[0]["players"] == sorted([WEAK, STRONG, MIDDLE])
        assert not league(store, [STRONG, MIDDLE, WEAK, FOURTH], games).played  # nothing left
        board = leaderboard(store, rules=RULES)
    assert stored_games(path) == (4, 4 * games)
    assert [p["name"] for p in board.players[:2]] == [STRONG, MIDDLE]
    ordinals = [p["ordinal"] for p in board.players]
    assert ordinals == sorted(ordinals, reverse=True) and ordinals[1] > ordinals[2] + 3
    assert all(p["games"] == 3 * games for p in board.players)
    strong = board.players[0]
    assert strong["win_rate_ci95"][0] > 0.5 and strong["points_per_deal"] > 0
    assert board.head_to_head[0][1] > 0.5 and board.head_to_head[1][0] < 0.5
    assert board.head_to_head[0][0] is None and board.head_to_head_games[0][1] == 2 * games
    for i in range(4):
        for j in range(4):
            if i != j:
                assert board.head_to_head[i][j] + board.head_to_head[j][i] == pytest.approx(1)
    with Store(path) as store, pytest.raises(ValueError, match="no ghost matches"):
        leaderboard(store)  # other rules: nothing stored


def test_ratings_depend_on_the_stored_games_not_on_when_they_were_played(tmp_path):
    boards = []
    for name, steps in (
        ("a", [[STRONG, MIDDLE, WEAK], [STRONG, MIDDLE, WEAK, FOURTH]]),
        ("b", [[FOURTH, WEAK, MIDDLE, STRONG]]),
    ):
        with Store(tmp_path / f"{name}.sqlite") as store:
            for specs in steps:
                league(store, specs)
            boards.append(leaderboard(store, rules=RULES))
    first, second = ([(p["name"], p["mu"], p["sigma"]) for p in b.players] for b in boards)
    assert first == second


def test_interrupted_league_resumes_and_loses_only_the_match_in_progress(tmp_path, monkeypatch):
    path = tmp_path / "league.sqlite"
    calls = []
    real = league_module.run_match

    def interrupted_on_third(*args, **kwargs):
        calls.append([written(player) for player in args[0]])  # the specs it is handed, read
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(league_module, "run_match", interrupted_on_third)
    with Store(path) as store, pytest.raises(KeyboardInterrupt):
        league(store, [STRONG, MIDDLE, WEAK, FOURTH])
    assert stored_games(path) == (2, 2 * GAMES)
    monkeypatch.setattr(league_module, "run_match", real)
    with Store(path) as store:
        resumed = league(store, [STRONG, MIDDLE, WEAK, FOURTH])
    assert [m["players"] for m in resumed.played] == [*calls[2:], sorted([MIDDLE, WEAK, FOURTH])]
    assert stored_games(path) == (4, 4 * GAMES)


KILLED_WRITER = """
import os, signal, sys
import ghost_euchre.arena.store
from ghost_euchre.arena.league import run_league

real = ghost_euchre.arena.store.Store.add_match
def add_match(self, *args, **kwargs):
    if self.has_match_count == 1:  # the second match: killed after its games are inserted
        db = self.db
        class Killer:
            def __getattr__(self, name):
                return getattr(db, name)
            def executemany(self, sql, rows):
                db.executemany(sql, rows)
                if "INSERT INTO games" in sql:
                    os.kill(os.getpid(), signal.SIGKILL)
        self.db = Killer()
    self.has_match_count += 1
    return real(self, *args, **kwargs)
ghost_euchre.arena.store.Store.add_match = add_match
ghost_euchre.arena.store.Store.has_match_count = 0
with ghost_euchre.arena.store.Store(sys.argv[1]) as store:
    run_league(sys.argv[2:], store, games={games}, seed=3, rules={rules})
"""


def run_python(code, *args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, HERE]))
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_killed_writer_leaves_no_partial_match(tmp_path):
    path = str(tmp_path / "league.sqlite")
    code = KILLED_WRITER.format(games=GAMES, rules=RULES)
    killed = run_python(code, path, STRONG, MIDDLE, WEAK, FOURTH)
    assert killed.returncode == -9, killed.stderr
    assert stored_games(path) == (1, GAMES)  # the match being written is gone, whole
    with Store(path) as store:
        assert len(league(store, [STRONG, MIDDLE, WEAK, FOURTH]).played) == 3
    assert stored_games(path) == (4, 4 * GAMES)


def test_two_leagues_writing_one_store_at_once(tmp_path):
    path = str(tmp_path / "league.sqlite")
    code = f"""
    import sys
    from ghost_euchre.arena.league import run_league
    from ghost_euchre.arena.store import Store
    with Store(sys.argv[1]) as store:
        run = run_league(sys.argv[2:], store, games={GAMES}, seed=3, rules={RULES})
    print(len(run.played), len(run.skipped))
    """
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, HERE]))
    specs = [STRONG, MIDDLE, WEAK, FOURTH]
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(code), path, *order],
            env=env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for order in (specs, specs[::-1])
    ]
    outputs = [w.communicate() for w in writers]
    assert [w.returncode for w in writers] == [0, 0], [err for _, err in outputs]
    assert stored_games(path) == (4, 4 * GAMES)  # every match once, whole
    with Store(path) as store:
        assert len(store.players()) == 4
        records = store.game_records(store.matches()[0]["id"])
    assert len(records) == GAMES


def test_reading_a_store_never_waits_for_a_writer(tmp_path, monkeypatch):
    path = tmp_path / "league.sqlite"
    with Store(path) as store:
        first = store.player_id(("heuristic", ""))
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.01)  # a wait for the lock fails at once
    with Store(path) as writer, writer.transaction():
        writer.db.execute("INSERT INTO players (spec, content_hash) VALUES ('random', '')")
        with Store(path) as reader:  # opened and read while the writer holds its transaction
            assert [p["id"] for p in reader.players()] == [first]
            assert reader.matches() == []
    with Store(path) as reader:
        assert len(reader.players()) == 2


def test_a_bad_spec_stops_the_league_before_any_match(tmp_path):
    path = tmp_path / "league.sqlite"
    with Store(path) as store, pytest.raises(ValueError, match="unknown policy spec 'nonsense'"):
        league(store, [STRONG, MIDDLE, WEAK, "nonsense"])
    assert stored_games(path) == (0, 0)


def test_players_are_specs_plus_checkpoint_contents(tmp_path):
    checkpoint = tmp_path / "bot.pt"
    checkpoint.write_bytes(b"first training run")
    spec = f"ppo:{checkpoint}"
    first = player_identity(spec)
    checkpoint.write_bytes(b"retrained")
    second = player_identity(spec)
    assert first[0] == second[0] == spec and first[1] != second[1] and len(first[1]) == 64
    spec, version = player_identity(" heuristic ")
    assert (
        spec == "heuristic" and len(version) == 64
    )  # the source of agents/heuristic/ and its imports
    with Store(tmp_path / "s.sqlite") as store:
        ids = [store.player_id(first), store.player_id(second), store.player_id(first)]
    assert ids[0] != ids[1] and ids[0] == ids[2]


def test_store_rejects_other_files_and_schema_versions(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a database, just some text that is long enough to read" * 20)
    with pytest.raises(ValueError, match="is not a league store"):
        Store(text)
    path = tmp_path / "old.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    newer = f"schema version {SCHEMA_VERSION + 1}, newer than this code knows \\(at most {SCHEMA_VERSION}\\)"
    with pytest.raises(ValueError, match=newer):
        Store(path)


def test_league_command_writes_the_leaderboard_and_replays_stored_games(tmp_path, capsys):
    db, out = tmp_path / "l.sqlite", tmp_path / "out"
    argv = ["--league", STRONG, MIDDLE, WEAK, "--games", "12", "--rule", "target_score=16"]
    argv += ["--quiet", "--db", str(db), "--json", str(out / "lb.json")]
    argv += ["--csv", str(out / "lb.csv"), "--plot", str(out / "lb.png")]
    assert evaluate.main(argv) == 0
    printed = capsys.readouterr().out
    assert "played 1 matches" in printed and "head to head" in printed
    assert f"wrote {out / 'lb.json'} (new folder out in {tmp_path})" in printed
    data = json.loads((out / "lb.json").read_text())
    assert data["schema"] == "ghost-euchre-leaderboard-v1" and data["games"] == 12
    assert [p["rank"] for p in data["players"]] == [1, 2, 3]
    rows = list(csv.DictReader((out / "lb.csv").open()))
    assert rows[0]["name"] == data["players"][0]["name"] and f"vs {rows[1]['name']}" in rows[0]
    assert (out / "lb.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert evaluate.main(argv) == 0
    assert "played 0 matches, 1 already stored" in capsys.readouterr().out
    assert evaluate.main(["replay", str(db)]) == 0
    assert capsys.readouterr().out.startswith("match 1: ghost, 12 games, seed 0: ")
    assert evaluate.main(["replay", str(db), "--match", "1"]) == 0
    assert capsys.readouterr().out.count("(replayed)") == 12
    assert evaluate.main(["replay", str(db), "--match", "1", "--game", "11"]) == 0
    assert "game over: final scores" in capsys.readouterr().out
    assert evaluate.main(["replay", str(db), "--match", "1", "--game", "12"]) == 2
    assert "match 1 has no game 12" in capsys.readouterr().err
    assert evaluate.main(["--league", STRONG, STRONG, WEAK, "--db", str(db)]) == 2
    assert "given more than once" in capsys.readouterr().err
    assert evaluate.main(["--league", STRONG, MIDDLE, WEAK, "--db", str(out / "lb.png")]) == 2
    assert "is not a league store" in capsys.readouterr().err


def test_the_leaderboard_command_prints_a_stored_table_and_plays_nothing(tmp_path, capsys):
    db = tmp_path / "l.sqlite"
    argv = ["--league", STRONG, MIDDLE, WEAK, "--games", "6", "--quiet", "--db", str(db)]
    assert evaluate.main(argv) == 0
    played = capsys.readouterr().out
    table = played[played.index("ghost league") :]
    before = db.read_bytes()
    assert evaluate.main(["leaderboard", "--db", str(db), "--json", str(tmp_path / "b.json")]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(table) and "played" not in printed  # the same table, no match
    assert json.loads((tmp_path / "b.json").read_text())["games"] == 6
    assert db.read_bytes() == before
    assert evaluate.main(["leaderboard", "--db", str(db), STRONG]) == 0  # one player's row
    only = capsys.readouterr().out
    assert STRONG in only and MIDDLE not in only
    for argv, message in (
        (["--db", str(tmp_path / "none.sqlite")], "no league store at"),
        (["--db", str(tmp_path / "b.json")], "is not a league store"),
        (["--db", str(db), "--variant", "classic"], "no classic matches"),
    ):
        assert evaluate.main(["leaderboard", *argv]) == 2
        error = capsys.readouterr().err
        assert message in error and error.count("\n") == 1, error
    assert not (tmp_path / "none.sqlite").exists()


def _open_store_at_once(path, start, failures):
    """A process of the test below: wait for the others, open the store, report a failure."""
    start.wait()
    try:
        Store(path).close()
    except ValueError as error:
        failures.put(str(error))


def test_processes_opening_a_new_store_at_the_same_instant_all_get_it(tmp_path):
    """SQLite does not wait on other connections when it switches a new file to WAL mode; the store
    retries, so processes that open one new store at once all succeed (15 of 60 failed before)."""
    context = multiprocessing.get_context("fork")
    failures = context.Queue()
    for round_number in range(20):
        path, start = str(tmp_path / f"new{round_number}.sqlite"), context.Barrier(2)
        openers = [
            context.Process(target=_open_store_at_once, args=(path, start, failures))
            for _ in range(2)
        ]
        for opener in openers:
            opener.start()
        for opener in openers:
            opener.join()
        assert [opener.exitcode for opener in openers] == [0, 0]
    assert failures.empty(), failures.get()


# ------------------------------------------------------------ ratings from summaries
@contextlib.contextmanager
def sql(path):
    """A plain sqlite3 connection to ``path``: committed, then closed (a copy of the file is then whole)."""
    db = sqlite3.connect(path)
    try:
        with db:
            yield db
    finally:
        db.close()


def downgrade_to_version_1(path):
    """Make ``path`` what schema 1 wrote: the same tables, no per-match summaries."""
    with sql(path) as db:
        db.execute("DROP TABLE match_outcomes")
        db.execute("DROP TABLE match_totals")
        db.execute("UPDATE schema_version SET version = 1")


def summaries(path):
    with sql(path) as db:
        return [
            db.execute(f"SELECT * FROM {table} ORDER BY match_id, 2").fetchall()
            for table in ("match_outcomes", "match_totals")
        ]


def test_the_fit_ranks_the_readme_league_as_openskill_over_every_game_did(tmp_path):
    path = tmp_path / "league.sqlite"
    shutil.copy(README_DB, path)
    with Store(path) as store:
        board = leaderboard(store)
    with open(OPENSKILL_BOARD) as handle:
        old = json.load(handle)
    assert (board.matches, board.games) == (old["matches"], old["games"]) == (22, 1320)
    identity = [
        [(p["spec"], p["content_hash"]) for p in b] for b in (board.players, old["players"])
    ]
    assert identity[0] == identity[1]  # the same order of all 7 players
    for new, before in zip(board.players, old["players"], strict=True):
        for field in ("games", "wins", "win_rate", "points_per_deal", "deals"):
            assert new[field] == before[field]
        assert new["win_rate_ci95"] == pytest.approx(before["win_rate_ci95"], abs=1e-12)
        if new["spec"] != "random":
            assert abs(new["mu"] - before["mu"]) < 1.0  # 0.28 .. 0.93 apart
            assert new["sigma"] < before["sigma"] / 2  # see the README: a narrower spread
    assert board.head_to_head == old["head_to_head"]
    assert board.head_to_head_games == old["head_to_head_games"]
    random_row = board.players[-1]  # never ahead: the prior decides how far below (-5.6, -14.1)
    assert random_row["spec"] == "random" and random_row["sigma"] == max(
        p["sigma"] for p in board.players
    )
    readme = ["pimc", "ppo:agents/pretrained/ghost_ppo.pt", "pimc:samples=8", "heuristic", "random"]
    with Store(path) as store:
        shown = leaderboard(store, players=readme)
    # every stored version of the named players: the three networks ppo:ghost has been, the
    # one run last (the shipped file) current
    assert sorted({p["spec"] for p in shown.players}) == sorted(readme)
    assert [p["mu"] for p in shown.players] == [
        p["mu"] for p in board.players if p["spec"] in readme
    ]
    networks = [p for p in shown.players if p["spec"] == readme[1]]
    assert len(networks) == 3 and [p["current"] for p in networks].count(True) == 1
    current = next(p for p in networks if p["current"])
    assert current["name"] == f"{readme[1]}@30c6a9e9" and current["content_hash"].startswith("30c6")
    assert all(p["current"] for p in shown.players if p["spec"] != readme[1])


def test_a_migrated_version_1_store_gives_the_same_tables(tmp_path, league_db):
    for number, source in enumerate((README_DB, league_db)):
        fresh, old = tmp_path / f"fresh{number}.sqlite", tmp_path / f"old{number}.sqlite"
        shutil.copy(source, fresh)
        with Store(fresh) as store:
            groups = {(m["variant"], m["episode"], json.dumps(m["rules"])) for m in store.matches()}
            boards = [leaderboard(store, v, e, json.loads(r)).to_dict() for v, e, r in groups]
        shutil.copy(fresh, old)
        downgrade_to_version_1(old)
        with Store(old) as store:  # upgraded on opening
            assert [
                leaderboard(store, v, e, json.loads(r)).to_dict() for v, e, r in groups
            ] == boards
        assert summaries(old) == summaries(fresh)
        with sql(old) as db:
            assert db.execute("SELECT version FROM schema_version").fetchall() == [
                (SCHEMA_VERSION,)
            ]
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    with sql(README_DB) as db:  # the committed store is upgraded already
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]


def test_an_upgrade_that_fails_says_so_and_changes_nothing(tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copy(README_DB, path)
    downgrade_to_version_1(path)
    with sql(path) as db:  # a match whose games cannot be summarised
        db.execute("UPDATE games SET seats = 'not json' WHERE match_id = 5 AND game = 3")
    before = path.read_bytes()
    with pytest.raises(ValueError, match=f"upgrading it to {SCHEMA_VERSION} failed"):
        Store(path)
    with sql(path) as db:
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(1,)]
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert "match_outcomes" not in tables and path.read_bytes() == before


def test_the_leaderboard_reads_summaries_never_games(tmp_path):
    path = tmp_path / "league.sqlite"
    shutil.copy(README_DB, path)
    with Store(path) as store:
        before = leaderboard(store).to_dict()
    with sql(path) as db:
        db.execute("DELETE FROM games")
    with Store(path) as store:
        assert leaderboard(store).to_dict() == before


def test_adding_a_match_changes_only_what_it_should(tmp_path):
    path, specs = tmp_path / "league.sqlite", [STRONG, MIDDLE, WEAK, FOURTH]
    *first, new = league_matches(specs)
    with Store(path) as store:
        for players in first:
            add(store, players)
        before, stored = leaderboard(store, rules=RULES), summaries(path)
        result = add(store, new)
        after = leaderboard(store, rules=RULES)
    outcomes, totals = summaries(path)
    assert [outcomes[: len(stored[0])], totals[: len(stored[1])]] == stored  # kept as they were
    games = len(result.sequence)
    assert (after.matches, after.games) == (before.matches + 1, before.games + games)
    rows = [{p["spec"]: p for p in board.players} for board in (before, after)]
    counted = ("games", "wins", "deals", "win_rate", "win_rate_ci95", "points_per_deal")
    for spec in specs:
        gained = {k: rows[1][spec][k] - rows[0][spec][k] for k in ("games", "wins", "deals")}
        if spec in new:
            played = result.players[new.index(spec)]
            assert gained == {"games": games, "wins": played["wins"], "deals": played["deals"]}
        else:
            assert {k: rows[1][spec][k] for k in counted} == {k: rows[0][spec][k] for k in counted}
    # head to head: the new match's pairs gain its games and who finished ahead; others are unchanged
    scores = np.take_along_axis(result.final_scores, np.argsort(result.seat_player, axis=1), 1)
    old_pairs, new_pairs = head_to_head_cells(before), head_to_head_cells(after)
    for (a, b), (share, met) in new_pairs.items():
        old_share, old_met = old_pairs[a, b]
        if a in new and b in new:
            mine, theirs = scores[:, new.index(a)], scores[:, new.index(b)]
            ahead = (mine > theirs).sum() + 0.5 * (mine == theirs).sum()
            assert met == old_met + games
            assert share * met == pytest.approx((old_share or 0) * old_met + ahead)
        else:
            assert (share, met) == (old_share, old_met)


def head_to_head_cells(board):
    """{(spec, spec): (share, games)} of a leaderboard's head-to-head table, pairs of distinct players."""
    specs = [p["spec"] for p in board.players]
    return {
        (a, b): (board.head_to_head[i][j], board.head_to_head_games[i][j])
        for i, a in enumerate(specs)
        for j, b in enumerate(specs)
        if i != j
    }


def add(store, players):
    """Play one match of ``players`` (ghost, RULES) and add it to the store; returns its result."""
    result = run_match(players, games=GAMES, seed=3, rules=RULES)
    ids = [player_identity(p) for p in players]
    key = match_key("ghost", "game", result.rules, 3, len(result.sequence), ids)
    store.add_match(result, key, [store.player_id(i) for i in ids])
    return result


def test_plackett_luce_fit_recovers_skills_and_counts_are_games():
    rng = np.random.default_rng(0)
    skill = np.array([30.0, 25.0, 22.0, 15.0])
    scale = 25 / 6 * np.sqrt(3)
    lineups = np.array([trio for trio in np.ndindex(4, 4, 4) if len(set(trio)) == 3])
    games = 4000
    members = np.repeat(lineups, games, axis=0)
    # a Plackett-Luce draw: Gumbel noise on skill / scale, sorted
    noisy = skill[members] / scale + rng.gumbel(size=members.shape)
    scores = noisy.argsort(axis=1).argsort(axis=1)
    ratings = plackett_luce_ratings(4, members[:, :, None], scores, np.ones(len(members)))
    mu = np.array([r["mu"] for r in ratings])
    assert np.abs((mu - mu.mean()) - (skill - skill.mean())).max() < 0.3
    assert all(r["sigma"] < 0.15 for r in ratings)
    # the same games as counts of distinct (line-up, order) rows: the same fit
    rows, counts = np.unique(np.concatenate([members, scores], axis=1), axis=0, return_counts=True)
    counted = plackett_luce_ratings(4, rows[:, :3, None], rows[:, 3:], counts)
    for a, b in zip(ratings, counted, strict=True):
        assert a == pytest.approx(b, rel=1e-9)
    # classic: teams of two; ties share a rank; unplayed players keep the prior
    teams = np.array([[[0, 1], [2, 3]], [[0, 2], [1, 3]], [[0, 3], [1, 2]]])
    classic = plackett_luce_ratings(5, teams, np.array([[1, 0], [1, 1], [1, 0]]), [30, 10, 30])
    assert classic[0]["mu"] > 25 > classic[2]["mu"] and classic[4] == pytest.approx(
        {"mu": 25, "sigma": 25 / 3, "ordinal": 0}
    )
    assert match_teams  # the leaderboard builds its teams with it (see ghost_euchre.arena.league)


# ------------------------------------------------------------------- bot versions
EDITED_BOT = """
import numpy as np

from edited_helpers import share
from league_bots import Blend


class LowCard(Blend):
    def __init__(self, game, seed=None):
        super().__init__(game, seed, random_share=share({value}))
"""


@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_a_class_edited_between_two_league_commands_is_a_second_version(
    tmp_path, capsys, monkeypatch, variant
):
    """The class's file, then a module it imports, edited: each time its matches are played again
    and the table lists the versions apart, the one run last current; nothing is pooled."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    bot, helpers = tmp_path / "edited_bot.py", tmp_path / "edited_helpers.py"
    helpers.write_text("def share(value):\n    return value\n")
    others = ["heuristic", "random"] + (
        ["ghost_euchre.agents.random_policy:RandomPolicy"] if variant == "classic" else []
    )
    spec, matches = "edited_bot:LowCard", 1 if variant == "ghost" else 3
    argv = ["--league", spec, *others, "--variant", variant, "--games", "4", "--quiet"]
    argv += ["--rule", "target_score=4", "--db", str(tmp_path / "l.sqlite"), "--workers", "1"]

    def league_command(value=None, helper=None):
        if value is not None:
            bot.write_text(EDITED_BOT.format(value=value))
        if helper is not None:
            helpers.write_text(helper)
        for name in ("edited_bot", "edited_helpers"):  # a fresh process would import them anew
            monkeypatch.delitem(sys.modules, name, raising=False)
        assert evaluate.main(argv) == 0
        return capsys.readouterr().out

    first = league_command(0.2)
    assert f"played {matches} matches" in first and "@" not in first
    assert f"played 0 matches, {matches} already stored" in league_command()
    second = league_command(0.9)  # the class edited
    assert f"played {matches} matches" in second
    third = league_command(helper="def share(value):\n    return 1 - value\n")  # its import edited
    assert f"played {matches} matches" in third
    with Store(tmp_path / "l.sqlite") as store:
        versions = [p for p in store.players() if p["spec"] == spec]
        board = leaderboard(store, variant, rules={"target_score": 4})
        records = store.game_records(store.matches()[-1]["id"], [0])
    assert len({p["content_hash"] for p in versions}) == 3
    assert [p["current"] for p in versions] == [False, False, True]
    rows = [p for p in board.players if p["spec"] == spec]
    games = matches * (6 if variant == "ghost" else 4)  # whole deal sequences
    assert len(rows) == 3 and all(p["games"] == games for p in rows)  # each its own games
    assert len(board.players) == len(others) + 3
    current = versions[-1]["content_hash"][:8]
    assert f"{spec}@{current} (current)" in third
    assert all(f"{spec}@{p['content_hash'][:8]}" in third for p in versions)
    assert f"{spec}@{current}" in records[0].names


def downgrade_to_version_2(path):
    """Make ``path`` what schema 2 wrote: the same tables, players without ``used``."""
    with sql(path) as db:
        db.execute("ALTER TABLE players DROP COLUMN used")
        db.execute("UPDATE schema_version SET version = 2")


def table_rows(path):
    with sql(path) as db:
        names = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            name: db.execute(f"SELECT * FROM {name} ORDER BY 1, 2").fetchall()
            for name in names
            if name != "schema_version"
        }


def test_a_version_2_store_migrates_and_keeps_its_tables(tmp_path):
    """Its players keep their ids and hashes ('' = a version not recorded: a new run of the same
    class is another player), every other table is kept as it was, the leaderboard is the same."""
    old = tmp_path / "old.sqlite"
    shutil.copy(README_DB, old)
    with Store(old) as store:
        before = leaderboard(store).to_dict()
    downgrade_to_version_2(old)
    kept = table_rows(old)
    with Store(old) as store:  # upgraded on opening
        assert leaderboard(store).to_dict() == before
        players = store.players()
        assert store.player_id(player_identity("heuristic")) == len(players) + 1  # a new version
        assert [p["current"] for p in store.players() if p["spec"] == "heuristic"] == [False, True]
    after = table_rows(old)
    assert after.pop("players")[: len(players)] == [
        (*row, row[0]) for row in kept.pop("players")
    ]  # used: the order of registration
    assert after == kept
    with sql(old) as db:
        assert db.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
