"""ghost_euchre_env.records: recorded games replay exactly, bad records are clear errors; --record and replay."""

import dataclasses
import json

import numpy as np
import pytest

from ghost_euchre.arena import cli as evaluate
from ghost_euchre.arena.match import run_match
from ghost_euchre_env.records import (
    RecordError,
    check_records,
    format_replay,
    records_from_dict,
    records_to_dict,
    replay,
)

MATCHES = (  # (players, variant, games, episode, rules)
    (["heuristic", "random", "random"], "ghost", 90, "game", None),
    (
        ["random", "heuristic", "random"],
        "ghost",
        30,
        "game",
        {"auction": "open", "allow_renege": True},
    ),
    (["heuristic", "random", "random"], "ghost", 30, "deal", None),
    (["heuristic", "random", "heuristic", "random"], "classic", 60, "game", None),
    (
        ["random", "random", "heuristic", "random"],
        "classic",
        20,
        "game",
        {"stick_the_dealer": False},
    ),
)


@pytest.fixture(scope="module")
def recorded():
    return [
        run_match(players, variant, games, seed=11, episode=episode, rules=rules, record=True)
        for players, variant, games, episode, rules in MATCHES
    ]


def engine_scores(result):
    return result.final_scores if result.variant == "ghost" else result.final_scores[:, :2]


def test_replays_reproduce_every_final_score_in_both_variants(recorded):
    for result in recorded:
        records = result.game_records()
        assert len(records) == len(result.sequence)
        np.testing.assert_array_equal(check_records(records), engine_scores(result))
        assert sum(len(r.actions) for r in records) == result.decisions
    # One game at a time (the printing path) agrees with the batched check.
    for result in (recorded[0], recorded[3]):
        for record in result.game_records()[:3]:
            steps = list(replay(record))
            assert len(steps) == len(record.actions)
            assert steps[-1].result.terminated[0] or steps[-1].result.truncated[0]
            assert tuple(steps[-1].after.scores[0].tolist()) == record.final_scores


def test_records_survive_json(recorded):
    for result in recorded:
        records = result.game_records()
        data = json.loads(json.dumps(records_to_dict(records)))
        assert records_from_dict(data) == records
    assert len(records_to_dict(recorded[0].game_records())["games"][0]["key"]) == 16


def test_printed_replay_shows_every_deal_and_trick(recorded):
    for result in (recorded[0], recorded[3]):
        record = result.game_records()[0]
        text = format_replay(record)
        steps = list(replay(record))
        deals = [s.result.deals for s in steps if len(s.result.deals.game)]
        played = sum(int(d.tricks[0].sum()) for d in deals if not d.thrown_in[0])
        assert text.count("\ntrick: ") == played
        assert text.count("=== deal ") == len(deals)
        scores = ", ".join(str(s) for s in record.final_scores)
        assert text.rstrip().endswith(scores.split(", ")[-1])
        assert "game over: final scores" in text and "to act:" in text  # the renderer's table


def test_bad_records_name_the_first_bad_action(recorded):
    record = recorded[0].game_records()[0]
    actions = bytearray(record.actions)

    def edited(**changes):
        return dataclasses.replace(record, **changes)

    first_card = next(i for i, a in enumerate(actions) if a < 24)
    lead = list(replay(record))[first_card]
    hand = int(lead.before.hands[0, lead.seat])
    wrong = bytearray(actions)
    wrong[first_card] = next(c for c in range(24) if not hand >> c & 1)  # a card not held
    cases = [
        (edited(actions=bytes([0]) + bytes(actions[1:])), "action 0 "),  # a card in the auction
        (edited(actions=bytes(wrong)), f"action {first_card} "),
        (edited(actions=bytes([255]) + bytes(actions[1:])), "255, not an action id"),
        (edited(actions=bytes(actions[:-1])), "the game is not over"),
        (edited(actions=bytes(actions) + b"\x18"), "comes after the game ended"),
        (edited(final_scores=(1, 2, 3)), "the replay ends with scores"),
        (edited(rules=dict(record.rules, target_score=8)), "game record"),  # other rules
    ]
    for bad, message in cases:
        for run in (
            lambda r: check_records([recorded[3].game_records()[0], r]),
            lambda r: list(replay(r)),
        ):
            with pytest.raises(RecordError, match=message) as error:
                run(bad)
            assert "\n" not in str(error.value)
    with pytest.raises(RecordError, match="not a game records file"):
        records_from_dict({"schema": "something else"})
    data = records_to_dict([record])
    data["games"][0]["actions"] = "***"
    with pytest.raises(RecordError, match="game record 0: actions must be base64 text"):
        records_from_dict(data)


def test_record_flag_and_replay_command(tmp_path, capsys):
    path = tmp_path / "games.json"
    argv = ["heuristic", "random", "random", "--games", "6", "--quiet", "--record", str(path)]
    assert evaluate.main(argv) == 0
    assert f"wrote {path} (6 game records)" in capsys.readouterr().out
    assert evaluate.main(["replay", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 6 and all("(replayed)" in line for line in lines)
    assert evaluate.main(["replay", str(path), "--game", "4", "--ascii"]) == 0
    printed = capsys.readouterr().out
    assert "=== deal 1" in printed and "game over: final scores" in printed and "♥" not in printed
    data = json.loads(path.read_text())
    raw = bytearray(records_from_dict(data)[2].actions)
    raw[0] = 0  # a card in the auction
    data["games"][2]["actions"] = records_to_dict(
        [dataclasses.replace(records_from_dict(data)[2], actions=bytes(raw))]
    )["games"][0]["actions"]
    path.write_text(json.dumps(data))
    assert evaluate.main(["replay", str(path)]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith(f"evaluate.py: error: {str(path)!r}: game record 2: action 0 (0 = 9♣)")
    assert "\n" not in error
    assert evaluate.main(["replay", str(path), "--game", "9"]) == 2
    assert "the file has games 0..5" in capsys.readouterr().err
    assert evaluate.main(["replay", str(tmp_path / "missing.json")]) == 2
