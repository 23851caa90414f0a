"""Issue 54, class 8: an empty ``--config`` is refused (not the default config, silently), and a game
record whose variant does not match its games is refused for its variant."""

import pytest

from ghost_euchre.trainer import cli
from ghost_euchre_env.records import GameRecord, RecordError, records_from_dict, records_to_dict


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_config_is_refused(value, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.parse_args(["--config", value])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--config {value!r}: expected a config name (default, " in err


def test_a_record_given_another_variant_is_refused_for_its_variant():
    record = GameRecord(
        variant="classic", episode="game", rules={}, key=7, actions=b"",
        names=("a", "b", "c", "d"), final_scores=(10, 4),
    )  # fmt: skip
    data = records_to_dict([record])
    data["variant"] = "ghost"
    with pytest.raises(RecordError) as error:
        records_from_dict(data)
    assert str(error.value) == (
        "game record 0: the file's variant is 'ghost' (3 seats), but the game has 4 names and 2 "
        "final scores, as a 'classic' game does; is its variant 'classic'?"
    )
