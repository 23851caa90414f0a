"""ghost_euchre.arena.match/stats/report and evaluate.py: duplicate seating, intervals, ratings, outputs, determinism and the CLI."""

import csv
import itertools
import json
import os
import stat

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from ghost_euchre.agents.base import Policy
from ghost_euchre.arena import cli as evaluate
from ghost_euchre.arena import report
from ghost_euchre.arena.match import run_match
from ghost_euchre.arena.seatings import seatings
from ghost_euchre.arena.stats import clustered_win_ci, wilson_interval
from ghost_euchre_env import GhostEuchre

PLAYER_KEYS = {
    "name": str,
    "spec": str,
    "games": int,
    "wins": int,
    "win_rate": float,
    "win_rate_ci95": list,
    "mean_points_per_deal": float,
    "deals": int,
    "contracts": int,
    "contracts_made": int,
    "contract_success_rate": (float, type(None)),
    "moons": int,
    "moons_made": int,
    "swaps": int,
    "mean_final_score": float,
    "rating": (dict, type(None)),
}
MATCH_KEYS = {
    "schema": str,
    "variant": str,
    "episode": str,
    "rules": dict,
    "seed": int,
    "games": int,
    "sequences": int,
    "seatings": int,
    "deals": int,
    "redeals": int,
    "truncated": int,
    "decisions": int,
    "wall_time_s": float,
    "rating_model": (str, type(None)),
    "players": list,
}


# -------------------------------------------------------------- intervals
def test_wilson_interval_matches_published_values():
    # Wilson (1927) / Newcombe (1998) 95% intervals.
    assert wilson_interval(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    with pytest.raises(ValueError, match="trials must be > 0"):
        wilson_interval(0, 0)


def test_clustered_interval_widens_for_correlated_games():
    # 10 sequences of 6 games: 5 sequences all won, 5 all lost -> p = 0.5.
    wins = np.repeat([1, 0] * 5, 6)
    clusters = np.repeat(np.arange(10), 6)
    # Per-sequence means 1,0,...: variance (ddof 1) 0.2778 / 10 = 0.02778; binomial 0.25/60 = 0.004167;
    # design effect 6.667 -> 9 effective games.
    assert clustered_win_ci(wins, clusters) == pytest.approx(wilson_interval(4.5, 9.0))
    independent = wilson_interval(30, 60)
    lo, hi = clustered_win_ci(wins, clusters)
    assert lo < independent[0] and hi > independent[1]


def test_clustered_interval_is_never_narrower_than_independent_games():
    # Every sequence won exactly 2 of 6 (the duplicate ideal): the spread is zero, deff clamps to 1.
    wins = np.tile([1, 1, 0, 0, 0, 0], 50)
    clusters = np.repeat(np.arange(50), 6)
    assert clustered_win_ci(wins, clusters) == pytest.approx(wilson_interval(100, 300))
    # One cluster, or p = 0: plain Wilson.
    assert clustered_win_ci([1, 0, 1], [0, 0, 0]) == pytest.approx(wilson_interval(2, 3))
    assert clustered_win_ci(np.zeros(12), np.repeat(np.arange(2), 6)) == pytest.approx(
        wilson_interval(0, 12)
    )


# --------------------------------------------------------------- seating
def test_ghost_seating_plays_every_permutation_once_per_sequence():
    sequence, seat_player = seatings("ghost", 100)
    assert len(sequence) == 102  # rounded up to whole sequences of 6
    for s in range(17):
        block = seat_player[sequence == s]
        assert sorted(map(tuple, block)) == sorted(itertools.permutations(range(3)))
    for player, seat in itertools.product(range(3), range(3)):
        assert (
            seat_player[:, seat] == player
        ).sum() == 34  # every player in every seat equally often


def test_classic_seating_rotates_the_table_and_keeps_partners():
    sequence, seat_player = seatings("classic", 7)
    assert len(sequence) == 8
    for row in seat_player:
        assert {row[0], row[2]} in ({0, 2}, {1, 3})
    for player, seat in itertools.product(range(4), range(4)):
        assert (seat_player[:, seat] == player).sum() == 2


def test_games_of_a_sequence_deal_the_same_cards():
    result = run_match(["random", "heuristic", "random"], games=24, seed=5)
    keys = result.keys.reshape(4, 6)
    assert (keys == keys[:, :1]).all() and len(np.unique(keys[:, 0])) == 4
    first = GhostEuchre().init(result.keys)
    hands = np.column_stack([first.hands, first.ghost]).reshape(4, 6, 4)
    assert (hands == hands[:, :1]).all()
    assert (first.dealer.reshape(4, 6) == first.dealer.reshape(4, 6)[:, :1]).all()


def test_identical_players_win_exactly_equally_often():
    # Deterministic identical policies on duplicate deals: each sequence is the same game with the
    # players relabelled, so every player wins the same number of games.
    result = run_match(["heuristic"] * 3, games=60, seed=2)
    wins = [p["wins"] for p in result.players]
    assert wins[0] == wins[1] == wins[2]
    assert sum(wins) == 60 - result.truncated.sum()
    assert result.rating_model is None and all(p["rating"] is None for p in result.players)


# ------------------------------------------------------------ match stats
def test_heuristic_beats_two_random_players():
    result = run_match(["heuristic", "random", "random"], games=120, seed=1)
    heuristic, random_1, random_2 = result.players
    assert heuristic["win_rate"] >= 0.85
    assert heuristic["win_rate_ci95"][0] > 1 / 3
    assert [p["name"] for p in result.players] == ["heuristic", "random", "random#2"]
    assert heuristic["rating"]["mu"] > max(random_1["rating"]["mu"], random_2["rating"]["mu"])
    assert heuristic["mean_points_per_deal"] > 0 > random_1["mean_points_per_deal"]
    assert sum(p["wins"] for p in result.players) + result.truncated.sum() == 120
    for p in result.players:
        assert p["deals"] == result.deals
        assert 0 <= p["contracts_made"] <= p["contracts"] and 0 <= p["moons_made"] <= p["moons"]


def test_points_add_up_to_the_final_scores():
    result = run_match(["heuristic", "random", "heuristic"], games=12, seed=4)
    points_per_player = [p["mean_points_per_deal"] * p["deals"] for p in result.players]
    final_per_player = [p["mean_final_score"] * p["games"] for p in result.players]
    assert points_per_player == pytest.approx(final_per_player)


def test_deal_episodes_and_classic_matches():
    single = run_match(["heuristic", "random", "random"], games=60, seed=3, episode="deal")
    assert single.deals == 60 and single.episode == "deal"
    classic = run_match(
        ["heuristic", "random", "heuristic", "random"], variant="classic", games=40, seed=3
    )
    assert classic.players[0]["win_rate"] >= 0.85
    # Wins recounted from the final team scores (seat s holds its team's score): the team at 10 wins.
    games = np.arange(len(classic.final_scores))
    for index, player in enumerate(classic.players):
        seat = (classic.seat_player == index).argmax(axis=1)
        own, other = (classic.final_scores[games, (seat + k) % 4] for k in (0, 1))
        assert player["wins"] == int(((own >= 10) & (own > other)).sum())


def test_num_envs_splits_the_batch_without_changing_deterministic_play():
    whole = run_match(["heuristic", "heuristic", "heuristic"], games=12, seed=9, episode="deal")
    split = run_match(
        ["heuristic", "heuristic", "heuristic"], games=12, seed=9, episode="deal", num_envs=5
    )
    assert np.array_equal(whole.final_scores, split.final_scores)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="needs 3 players"):
        run_match(["random", "random"])
    with pytest.raises(ValueError, match="variant"):
        run_match(["random"] * 3, variant="poker")
    with pytest.raises(ValueError, match="games"):
        run_match(["random"] * 3, games=0)
    with pytest.raises(ValueError, match="target_score"):
        run_match(["random"] * 3, games=6, rules={"target_score": 0})

    class Illegal(Policy):
        name = "illegal"

        def act(self, obs, mask):
            return np.full(len(obs), 99, np.int64)

    with pytest.raises(ValueError, match="player 'illegal' returned a bad action"):
        run_match([Illegal(GhostEuchre()), "random", "random"], games=6)


# ------------------------------------------------------- determinism, JSON
def test_same_seed_same_results_and_a_new_seed_differs():
    def summary(seed):
        result = run_match(["heuristic", "random", "random"], games=18, seed=seed)
        data = result.to_dict()
        data.pop("wall_time_s")
        return data, result.final_scores

    first, scores = summary(7)
    again, scores_again = summary(7)
    _other, scores_other = summary(8)
    assert first == again and np.array_equal(scores, scores_again)
    assert not np.array_equal(scores, scores_other)


def test_json_schema_csv_and_plot(tmp_path):
    result = run_match(["heuristic", "random", "random"], games=12, seed=0)
    json_path, csv_path, png_path = (
        tmp_path / "out" / "r.json",
        tmp_path / "r.csv",
        tmp_path / "r.png",
    )
    report.write_json(result, json_path)
    report.write_csv(result, csv_path)
    report.write_plot(result, png_path)
    data = json.loads(json_path.read_text())
    assert set(data) == set(MATCH_KEYS)
    for key, kind in MATCH_KEYS.items():
        assert isinstance(data[key], kind), key
    assert data["schema"] == "ghost-euchre-match-v1"
    assert (data["games"], data["sequences"], data["seatings"]) == (12, 2, 6)
    assert data["rating_model"] == "openskill-plackett-luce"
    for player in data["players"]:
        assert set(player) == set(PLAYER_KEYS)
        for key, kind in PLAYER_KEYS.items():
            assert isinstance(player[key], kind), key
        lo, hi = player["win_rate_ci95"]
        assert 0 <= lo <= player["win_rate"] <= hi <= 1
        assert set(player["rating"]) == {"mu", "sigma", "ordinal"}
    rows = list(csv.DictReader(csv_path.open()))
    assert [r["name"] for r in rows] == ["heuristic", "random", "random#2"]
    assert tuple(rows[0]) == report.CSV_COLUMNS
    assert float(rows[0]["win_rate"]) == pytest.approx(data["players"][0]["win_rate"])
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(tmp_path.glob("**/.tmp-*"))  # temporary files renamed away


# ---------------------------------------------------------------------- CLI
def test_cli_writes_outputs_and_reports_errors_in_one_line(tmp_path, capsys):
    out = tmp_path / "m.json"
    assert (
        evaluate.main(
            [
                "heuristic",
                "random",
                "random",
                "--games",
                "6",
                "--quiet",
                "--json",
                str(out),
                "--rule",
                "target_score=16",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "heuristic" in printed and "random#2" in printed and f"wrote {out}" in printed
    assert json.loads(out.read_text())["rules"]["target_score"] == 16
    assert evaluate.main(["heuristic", "nonsense", "random", "--quiet"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("evaluate.py: error:") and "nonsense" in error and "\n" not in error
    assert evaluate.main(["random", "random", "random", "--rule", "oops"]) == 2


def test_human_game_at_the_terminal_survives_garbage_and_end_of_input(monkeypatch, capsys):
    replies = iter(["what?", "", "99", "1"] + ["1"] * 200)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(replies))
    # seed 0: the deal is played (a fresh seed can deal one that everybody passes: no 'deal over')
    argv = ["human", "heuristic", "heuristic", "--episode", "deal", "--seed", "0"]
    assert evaluate.main(argv) == 0
    printed = capsys.readouterr().out
    assert (
        "Not a legal move: 'what?'" in printed and "deal over" in printed and "game over" in printed
    )


@pytest.mark.parametrize(("error", "status"), [(EOFError, 1), (KeyboardInterrupt, 130)])
def test_an_abandoned_game_exits_nonzero_telling_end_of_input_from_ctrl_c(
    monkeypatch, capsys, error, status
):
    def stop(prompt=""):
        raise error

    monkeypatch.setattr("builtins.input", stop)
    assert evaluate.main(["heuristic", "human", "heuristic"]) == status
    assert capsys.readouterr().out.endswith("\nGame abandoned.\n")


def test_ctrl_c_while_a_bot_thinks_abandons_the_game_too(monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluate, "play_interactive", interrupted)
    assert evaluate.main(["heuristic", "human", "heuristic"]) == 130
    assert "Game abandoned." in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message", "command"),
    [
        (
            ["heuristic", "--variant", "ghosthand"],
            "argument --variant: invalid choice: 'ghosthand' (choose from 'ghost', 'classic')",
            "evaluate.py",
        ),
        (["--games", "3"], "the following arguments are required: SPEC", "evaluate.py"),
        (["replay"], "the following arguments are required: FILE", "evaluate.py replay"),
        (
            ["replay", "f", "--game", "x"],
            "argument --game: invalid int value: 'x'",
            "evaluate.py replay",
        ),
        (["serve", "--port", "x"], "argument --port: invalid int value: 'x'", "evaluate.py serve"),
    ],
)
def test_command_line_errors_are_one_line_with_a_hint_to_help(capsys, argv, message, command):
    with pytest.raises(SystemExit) as stopped:
        evaluate.main(argv)
    assert stopped.value.code == 2
    assert capsys.readouterr().err == f"evaluate.py: error: {message} (see {command} --help)\n"


def test_games_below_one_is_an_error_in_both_modes(monkeypatch, capsys):
    def no_input(prompt=""):
        raise AssertionError("a game was started")

    monkeypatch.setattr("builtins.input", no_input)
    for argv in (["random"] * 3, ["human", "heuristic", "heuristic"]):
        for games in ("0", "-6"):
            assert evaluate.main([*argv, "--games", games, "--quiet"]) == 2
            error = capsys.readouterr().err.strip()
            assert error.startswith("evaluate.py: error:") and "games" in error
            assert games in error and "\n" not in error


def test_unwritable_output_paths_fail_before_the_match(tmp_path, monkeypatch, capsys):
    def no_match(*args, **kwargs):
        raise AssertionError("the match was played")

    monkeypatch.setattr(evaluate, "run_match", no_match)
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    for flag, path in (
        ("--json", a_file / "out.json"),  # below a regular file
        ("--csv", tmp_path),  # a directory
        ("--plot", a_file / "deeper" / "out.png"),
    ):
        assert evaluate.main(["random"] * 3 + ["--quiet", flag, str(path)]) == 2
        error = capsys.readouterr().err.strip()
        assert (
            error.startswith(f"evaluate.py: error: cannot write {flag} {str(path)!r}")
            and "\n" not in error
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]  # nothing created


def test_each_output_file_is_named_by_its_absolute_path_and_new_folders_are_said(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old").mkdir()
    argv = ["heuristic", "random", "random", "--games", "6", "--quiet", "--json", "new/a/m.json"]
    argv += ["--csv", "old/m.csv", "--plot", "m.png", "--record", "new/games.json"]
    assert evaluate.main(argv) == 0
    wrote = [line for line in capsys.readouterr().out.splitlines() if line.startswith("wrote")]
    assert wrote == [
        f"wrote {tmp_path / 'new' / 'a' / 'm.json'} (new folder {os.path.join('new', 'a')} in {tmp_path})",
        f"wrote {tmp_path / 'old' / 'm.csv'}",
        f"wrote {tmp_path / 'm.png'}",
        f"wrote {tmp_path / 'new' / 'games.json'} (6 game records; new folder new in {tmp_path})",
    ]
    assert all((tmp_path / name).is_file() for name in ("new/a/m.json", "old/m.csv", "m.png"))


def test_output_files_have_the_usual_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        paths = [tmp_path / name for name in ("m.json", "m.csv", "m.png")]
        argv = ["heuristic", "random", "random", "--games", "6", "--quiet"]
        for flag, path in zip(("--json", "--csv", "--plot"), paths, strict=True):
            argv += [flag, str(path)]
        assert evaluate.main(argv) == 0
    finally:
        os.umask(old)
    assert [stat.S_IMODE(p.stat().st_mode) for p in paths] == [0o644] * 3


def test_plot_names_long_specs_without_overlap(tmp_path):
    result = run_match(["heuristic", "random", "random"], games=6, seed=0)
    long_names = ["ppo:runs/a_long_experiment_name__1__20260101/checkpoints/best.pt", "p", "x" * 90]
    for player, name in zip(result.players, long_names, strict=True):
        player["name"] = name
    figure = report.write_plot(result, tmp_path / "long.png")
    renderer = FigureCanvasAgg(figure).get_renderer()
    page = figure.bbox
    labels = [t for t in figure.axes[0].get_yticklabels() if t.get_text()]
    assert [t.get_text() for t in labels][1] == "p" and len(labels[2].get_text()) == 40
    boxes = [t.get_window_extent(renderer) for t in labels]
    for i, box in enumerate(boxes):
        assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1
        assert not any(box.overlaps(other) for other in boxes[i + 1 :])


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("3", "3")])
def test_network_policies_get_one_torch_thread_unless_the_user_says(
    monkeypatch, capsys, given, expected
):
    """evaluate.py sets OMP_NUM_THREADS=1 for torch (read at its import) only when it is not set."""
    if given is None:
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OMP_NUM_THREADS", given)
    assert evaluate.main(["random", "random", "random", "--games", "6", "--quiet"]) == 0
    assert os.environ["OMP_NUM_THREADS"] == expected
    capsys.readouterr()


@pytest.mark.parametrize(
    ("variant", "players", "games", "sequences"),
    [
        ("ghost", ["heuristic", "random", "random"], 6, "1 deal sequence x 6 seatings"),
        ("classic", ["heuristic", "random", "heuristic", "random"], 8, "2 deal sequences x 4"),
    ],
)
def test_the_match_table_has_only_the_variants_columns_and_counts_in_words(
    variant, players, games, sequences
):
    """Moons and swaps are Ghost Hand's (a classic table would read 0 in them); counts of one are
    singular ("1 deal sequence")."""
    result = run_match(players, variant=variant, games=games, seed=0, progress=False)
    info, header = report.match_table(result).splitlines()[:2]
    assert sequences in info
    assert ("moons (made)" in header) == ("swaps" in header) == (variant == "ghost")
    assert "pts/deal" in header and "contracts (made)" in header
