"""A user's rule-based bot written by names only (ghost_euchre/examples/rule_bots.py, installed as
``ghost_euchre.examples.rule_bots``) plays a match of each variant."""

import ast
import pathlib

import pytest

from ghost_euchre.arena.match import run_match
from ghost_euchre_env import variants

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "rule_bots.py"
MODULE = (
    "ghost_euchre.examples.rule_bots"  # the installed name of ghost_euchre/examples/rule_bots.py
)


def numeric_indexes(source):
    """The int constants used as an index or slice bound (not as a call's argument, e.g. ``bid(4)``)."""
    found = []

    def visit(node):
        if isinstance(node, ast.Call):
            return  # an argument: a level, a card's name
        if isinstance(node, ast.Constant) and type(node.value) is int:
            found.append(node.value)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript):
            visit(node.slice)
    return found


def test_the_bots_index_nothing_by_number():
    source = EXAMPLE.read_text(encoding="utf-8")
    assert numeric_indexes(source) == []
    assert numeric_indexes("x = obs[:, 24] + mask[:, 3:5]") == [24, 3, 5]  # the check sees them
    assert numeric_indexes("x = mask[:, moves.bid(4)]") == []


@pytest.mark.parametrize(
    ("variant", "players"),
    [
        ("ghost", [f"{MODULE}:GhostBowers", "random", "random"]),
        ("classic", [f"{MODULE}:ClassicBowers", "random", f"{MODULE}:ClassicBowers", "random"]),
    ],
)
def test_a_bot_by_names_plays_a_match(variant, players):
    result = run_match(players, variant=variant, games=24, seed=5)
    bot, rand = result.players[0], result.players[1]
    assert bot["games"] == 24 and bot["contracts"] > 0  # it bids with both bowers
    assert bot["mean_points_per_deal"] > rand["mean_points_per_deal"]
    again = run_match(players, variant=variants.make(variant), games=24, seed=5)  # or a descriptor
    assert again.to_dict()["players"][0]["wins"] == bot["wins"]  # seeded: the same games
