"""Composite players: the spec grammar, nesting, errors, and who makes which decision."""

import numpy as np
import pytest

from ghost_euchre.agents import Policy, make_policy
from ghost_euchre.agents.composite import CompositePolicy, split_composite
from ghost_euchre.agents.heuristic import GhostHeuristic
from ghost_euchre.agents.specs import split_spec
from ghost_euchre.arena.match import run_match
from ghost_euchre_env import GhostEuchre, GhostEuchreVec
from ghost_euchre_env.ghost import NUM_CARDS, PASS


def test_nested_specs_split_at_the_top_level_bar():
    assert split_composite("composite[ pimc:samples=4 | heuristic ]") == (
        "pimc:samples=4",
        "heuristic",
    )
    assert split_composite("composite[composite[random | heuristic] | random]") == (
        "composite[random | heuristic]",
        "random",
    )
    assert split_spec("composite[random | heuristic]")[0] == "composite"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("composite[heuristic]", "0 top-level '|' separators"),
        ("composite[a | b | c]", "2 top-level '|' separators"),
        ("composite[[a | b]", "unbalanced brackets"),
        ("composite[heuristic | ]", "an empty part"),
        ("composite[nobot | heuristic]", "its auction part: unknown policy spec 'nobot'"),
        ("composite[heuristic | ppo:missing.pt]", "its play part: .*does not exist"),
    ],
)
def test_bad_composite_specs_are_one_line_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        make_policy(spec, GhostEuchre())


class AlwaysPass(Policy):
    name = "pass"

    def act(self, obs, mask):
        return np.full(len(obs), PASS)


def test_auction_part_bids_and_play_part_plays():
    game = GhostEuchre()
    player = make_policy("composite[random | heuristic]", game, seed=1)
    assert isinstance(player, CompositePolicy) and player.name == "composite[random | heuristic]"
    never_bids = CompositePolicy(game, AlwaysPass(game), GhostHeuristic(game))
    venv = GhostEuchreVec(64, seed=0)
    obs, mask, _ = venv.reset()
    heuristic = GhostHeuristic(game)
    for _ in range(30):
        playing = mask[:, :NUM_CARDS].any(axis=1)
        actions = player.act(obs, mask)
        np.testing.assert_array_equal(actions[playing], heuristic.act(obs[playing], mask[playing]))
        passing = never_bids.act(obs, mask)
        assert (passing[~playing & mask[:, PASS]] == PASS).all()
        obs, mask, _, _, _ = venv.step(actions)


def test_a_composite_is_usable_where_a_spec_is():
    result = run_match(
        ["composite[heuristic | random]", "heuristic", "random"], games=6, seed=0, episode="deal"
    )
    assert result.players[0]["name"] == "composite[heuristic | random]"
