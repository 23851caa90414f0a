"""The outcome every deal summary shares (maker, contract, made, alone), checked against the points."""

import numpy as np
import pytest

from ghost_euchre_env import variants


def _deals(variant, games=48, steps=1200, seed=0):
    """Every deal summary row of random play: a list of summaries with at least one row."""
    game = variant.make_game(episode="game")
    rng = np.random.default_rng(seed)
    state = game.init(np.arange(games, dtype=np.uint64) + 1000 * seed)
    summaries = []
    for _ in range(steps):
        mask = game.legal_mask(state)
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        result = game.step(state, actions, auto_reset=True)
        if len(result.deals.game):
            summaries.append(result.deals)
    return summaries


@pytest.mark.parametrize("name", ["ghost", "classic"])
def test_the_outcome_fields_agree_with_the_points(name):
    variant = variants.make(name)
    kinds_seen = set()
    for deals in _deals(variant):
        rows = np.arange(len(deals.game))
        played = ~deals.thrown_in
        assert (deals.maker[~played] == -1).all() and (deals.contract[~played] == -1).all()
        assert not (deals.made[~played] | deals.alone[~played]).any()
        assert (deals.maker[played] >= 0).all()
        kinds_seen.update(deals.contract[played].tolist())
        maker = np.maximum(deals.maker, 0)
        if name == "ghost":
            level = np.array([3, 4, 5, 6])[np.maximum(deals.contract, 0)]
            assert (level[played] == deals.bid[played]).all()
            taken = deals.tricks[rows, maker]
            assert (deals.made[played] == (taken >= deals.bid)[played]).all()
            assert not deals.alone.any()
        else:
            team = maker & 1
            team_points = deals.points[rows, team]
            assert (deals.made[played] == (team_points > 0)[played]).all()
            assert ((deals.contract == 2) == deals.alone).all()
    assert kinds_seen <= set(range(len(variant.contract_kinds)))
    assert len(kinds_seen) >= 2
