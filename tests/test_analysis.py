"""``analyse``: recorded games against double-dummy play (ghost_euchre.arena.analysis, cli).

Small recorded matches of both variants are made once; the figures are checked
against themselves (values, best cards, losses and their sums), a line that
plays every decision's best card loses nothing, the JSON holds the text's
figures, and bad input is one line with exit status 2.
"""

import json
import pathlib
import re

import numpy as np
import pytest

from ghost_euchre.arena.analysis import analyse, analysis_to_dict
from ghost_euchre.arena.cli import main
from ghost_euchre_env import solver
from ghost_euchre_env.cards import card_name
from ghost_euchre_env.records import GameRecord, make_game, records_from_dict

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _record(tmp_path_factory, players, variant):
    path = tmp_path_factory.mktemp("analysis") / f"{variant}.json"
    argv = [*players, "--variant", variant, "--games", "3", "--seed", "1"]
    assert main([*argv, "--record", str(path), "--workers", "1", "--quiet"]) == 0
    return path


@pytest.fixture(scope="module")
def ghost_file(tmp_path_factory):
    return _record(tmp_path_factory, ["heuristic", "heuristic", "random"], "ghost")


@pytest.fixture(scope="module")
def classic_file(tmp_path_factory):
    return _record(tmp_path_factory, ["heuristic", "heuristic", "random", "random"], "classic")


def _records(path, games=2):
    return records_from_dict(json.loads(path.read_text(encoding="utf-8")))[:games]


def _decisions(analysis):
    return [d for game in analysis.games for deal in game.deals for d in deal.decisions]


@pytest.mark.parametrize("which", ["ghost_file", "classic_file"])
def test_values_best_cards_and_losses_agree(which, request):
    analysis = analyse(_records(request.getfixturevalue(which)))
    decisions = _decisions(analysis)
    assert decisions
    for d in decisions:
        values = dict(d.values)
        assert d.card in values  # the played card is legal, so it has a value
        top = max(values.values())
        assert d.best and all(values[c] == top for c in d.best)
        assert {c for c, v in values.items() if v == top} == set(d.best)
        assert d.loss == top - values[d.card] >= 0
    for game in analysis.games:
        for deal in game.deals:
            lost = dict(deal.lost)
            for name, points in lost.items():
                assert points == sum(d.loss for d in deal.decisions if d.player == name)
            assert set(lost) == {d.player for d in deal.decisions}
    for p in analysis.players:
        mine = [d for d in decisions if d.player == p.player]
        assert p.decisions == len(mine)
        assert p.off_line == sum(d.loss > 0 for d in mine)
        assert p.lost == pytest.approx(sum(d.loss for d in mine))
        assert p.lost_per_deal == pytest.approx(p.lost / p.deals)
    assert sum(p.off_line for p in analysis.players) > 0  # random play leaves the line


def _best_line_record(variant, key):
    """One deal played with a random auction and every card the solver's first best card."""
    game = make_game(variant, "deal", {})
    state = game.init(np.array([key], np.uint64))
    rng = np.random.default_rng(key)
    actions = []
    while True:
        if solver.in_play(game, state)[0]:
            action = int(np.flatnonzero(solver.best_cards(solver.solve(game, state))[0])[0])
        else:
            action = int(rng.choice(np.flatnonzero(game.legal_mask(state)[0])))
        actions.append(action)
        result = game.step(state, np.array([action], np.int64))
        if result.terminated[0] or result.truncated[0]:
            break
    return GameRecord(
        variant=variant,
        episode="deal",
        rules={},
        key=key,
        actions=bytes(actions),
        names=(),
        final_scores=tuple(int(s) for s in state.scores[0]),
    )


@pytest.mark.parametrize("variant", ["ghost", "classic"])
def test_the_double_dummy_line_loses_nothing(variant):
    records = [_best_line_record(variant, key) for key in (3, 4, 5, 6)]
    analysis = analyse(records)
    assert _decisions(analysis)
    assert all(d.loss == 0 and d.card in d.best for d in _decisions(analysis))
    assert all(p.lost == 0 and p.off_line == 0 for p in analysis.players)


def test_json_holds_the_texts_figures(ghost_file, tmp_path, capsys):
    out = tmp_path / "a.json"
    assert main(["analyse", str(ghost_file), "--game", "1", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    data = json.loads(out.read_text(encoding="utf-8"))
    assert "no legal player reaches" in text and "no legal player reaches" in data["note"]
    assert [g["game"] for g in data["games"]] == [1]
    assert data == json.loads(json.dumps(analysis_to_dict(analyse(_records(ghost_file)[1:], [1]))))
    lines = [line for line in text.splitlines() if line.startswith("  trick ")]
    decisions = [d for deal in data["games"][0]["deals"] for d in deal["decisions"]]
    assert len(lines) == len(decisions)
    for line, d in zip(lines, decisions, strict=True):
        assert f">{d['played']} " in line
        for card in d["cards"]:
            assert re.search(
                rf"{card['card']} [-+]?{card['value']:g}{'[*]' if card['best'] else ''}", line
            )
        assert (f"lost {d['loss']:g}" in line) == (d["loss"] > 0)
    table = text[text.index("points lost against double-dummy play") :].splitlines()
    assert table[len(data["players"]) + 2] == f"wrote {out}"
    for row, p in zip(table[2 : len(data["players"]) + 2], data["players"], strict=True):
        name, decisions, off, lost, deals, per_deal = row.rsplit(maxsplit=5)
        assert (name, int(decisions), int(off), int(deals)) == (
            p["player"],
            p["decisions"],
            p["off_line"],
            p["deals"],
        )
        assert float(lost) == pytest.approx(p["lost"], abs=0.05)
        assert float(per_deal) == pytest.approx(p["lost_per_deal"], abs=5e-4)


def test_ascii_and_a_league_store(capsys):
    store = ROOT / "docs" / "league.sqlite"
    assert main(["analyse", str(store), "--match", "3", "--game", "0", "--ascii"]) == 0
    text = capsys.readouterr().out
    assert "=== game 0," in text and "♥" not in text and ">" in text
    assert re.search(r"^heuristic +\d+ +\d+ ", text, re.MULTILINE)


def test_a_card_name_per_value_in_json(classic_file):
    data = analysis_to_dict(analyse(_records(classic_file, 1)))
    d = data["games"][0]["deals"][0]["decisions"][0]
    assert d["played"] == card_name(d["played_id"])
    assert data["concept"] == "team points"


def _refused(capsys, argv, expected):
    assert main(argv) == 2
    captured = capsys.readouterr()
    error = captured.err.strip()
    assert ": error: " in error, error
    assert "\n" not in error and expected in error, error
    assert captured.out == ""


def test_bad_input_is_one_line(ghost_file, tmp_path, capsys):
    _refused(capsys, ["analyse", str(tmp_path / "none.json")], "is no file")
    _refused(capsys, ["analyse", str(tmp_path)], "is a folder")
    other = tmp_path / "other.json"
    other.write_text('{"schema": "something-else"}', encoding="utf-8")
    _refused(capsys, ["analyse", str(other)], "not a game records file")
    text = tmp_path / "text.json"
    text.write_text("not json", encoding="utf-8")
    _refused(capsys, ["analyse", str(text)], "not a game records file (JSON text)")
    store = str(ROOT / "docs" / "league.sqlite")
    _refused(capsys, ["analyse", store], "--match M is needed with a league store")
    _refused(
        capsys,
        ["analyse", store, "--match", "3", "--game", "60"],
        "match 3 has no game 60 (games 0..59)",
    )
    _refused(capsys, ["analyse", store, "--match", "999"], "no match 999")
    _refused(capsys, ["analyse", str(ghost_file), "--game", "6"], "the file has games 0..5")
    _refused(capsys, ["analyse", str(ghost_file), "--match", "1"], "--match is for a league store")
    with pytest.raises(SystemExit) as stop:  # argparse's own: one line too
        main(["analyse", str(ghost_file), "--game", "x"])
    assert stop.value.code == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "invalid int value" in error
