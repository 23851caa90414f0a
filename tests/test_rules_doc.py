"""docs/RULES.md documents every option of both engines with the default the engine uses."""

import dataclasses
import inspect
import pathlib
import re

import pytest

from ghost_euchre_env import ClassicRules, GhostEuchre, GhostRules
from ghost_euchre_env.core import BatchedGame

RULES_PAGE = (pathlib.Path(__file__).resolve().parent.parent / "docs" / "RULES.md").read_text(
    encoding="utf-8"
)


def documented(heading):
    """{keyword: default as written} of the options table under ``heading``."""
    section = RULES_PAGE.split(heading, 1)[1].split("\n\n|", 1)[1].split("\n\n", 1)[0]
    return dict(re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", "|" + section, re.MULTILINE))


@pytest.mark.parametrize(
    ("heading", "rules_type"),
    [
        ("Ghost Hand Euchre (`GhostRules`):", GhostRules),
        ("Classic Euchre (`ClassicRules`):", ClassicRules),
    ],
)
def test_every_rules_option_is_documented_with_its_default(heading, rules_type):
    table = documented(heading)
    defaults = {f.name: repr(f.default) for f in dataclasses.fields(rules_type)}
    assert table == {name: value.replace("'", '"') for name, value in defaults.items()}


def test_the_engine_keywords_shared_by_both_games_are_documented_with_their_defaults():
    table = documented("Both games:")
    parameters = inspect.signature(BatchedGame.__init__).parameters
    assert table == {name: f'"{parameters[name].default}"' for name in ("episode", "reward")}
    assert inspect.signature(GhostEuchre.__init__).parameters.keys() == parameters.keys()
