"""Bad input to the engines and their adapters: one clear ValueError, and nothing changed.

Each case names the value and what was expected; after the rejected call the
batch (or the AEC env's game) is bit for bit what it was.
"""

import re

import numpy as np
import pytest
from engine_helpers import step_live_games

from ghost_euchre_env import (
    ClassicEuchre,
    ClassicEuchreVec,
    GhostEuchre,
    GhostEuchreVec,
    classic,
    classic_euchre_v0,
    ghost,
    ghost_euchre_v0,
)
from ghost_euchre_env.dealing import stream_keys

HANDS = [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11], [12, 13, 14, 15, 16, 17]]
GHOST = [18, 19, 20, 21, 22, 23]


def snapshot(state):
    """Every state array, copied (field name -> array)."""
    return {name: array.copy() for name, array in state.arrays().items()}


def assert_same_state(state, before):
    for name, array in before.items():
        now = getattr(state, name)
        assert now.dtype == array.dtype and np.array_equal(now, array), name


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (5, "options must be None, a dict or a list of 3 dicts (or None), got 5"),
        ("dealer", "options must be None, a dict or a list of 3 dicts"),
        ([{}, 5, None], "options for game 1 must be a dict or None, got 5"),
        ([0, None, None], "options for game 0 must be a dict or None, got 0"),
        ({"deals": 5}, "game 0: 'deals' must be a list of deals, got 5"),
        ({"deals": {"hands": HANDS, "ghost": GHOST}}, "'deals' must be a list of deals"),
        (
            {"deals": [{"hands": 5, "ghost": GHOST}]},
            "game 0, deal 0: 'hands' must be a list of 3 lists of 6 card ids, got 5",
        ),
        (
            {"deals": [{"hands": list(range(18)), "ghost": GHOST}]},
            "'hands' must be a list of 3 lists of 6 card ids, got [0, 1, 2",
        ),
        (
            {"deals": [{"hands": HANDS, "ghost": None}]},
            "game 0, deal 0: ghost must be a list of 6 card ids, got None",
        ),
        (
            {"deals": [{"hands": [HANDS[0], HANDS[1], "9C TC"], "ghost": GHOST}]},
            "'hands' must be a list of 3 lists of 6 card ids, got [[0, 1, 2, 3, 4, 5], [6",
        ),
        ({"dealer": 3}, "game 0: dealer must be a seat 0..2, got 3"),
    ],
)
def test_vector_reset_rejects_bad_options_and_keeps_the_batch(options, message):
    venv = GhostEuchreVec(3, seed=0)
    venv.reset()
    venv.step(np.full(3, ghost.PASS))
    before = snapshot(venv.state)
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        venv.reset(options=options)
    assert "\n" not in str(error.value)
    assert_same_state(venv.state, before)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"deals": 7}, "'deals' must be a list of deals, got 7"),
        ({"deals": [{"hands": 4, "upcard": 20}]}, "'hands' must be a list of 4 lists of 5"),
        ([{"dealer": 1}], "options list has 1 entries; expected one per game (2)"),
    ],
)
def test_classic_vector_reset_rejects_bad_options_and_keeps_the_batch(options, message):
    venv = ClassicEuchreVec(2, seed=0)
    venv.reset()
    before = snapshot(venv.state)
    with pytest.raises(ValueError, match=re.escape(message)):
        venv.reset(options=options)
    assert_same_state(venv.state, before)


@pytest.mark.parametrize("module", [ghost_euchre_v0, classic_euchre_v0])
@pytest.mark.parametrize("options", [[{"dealer": 1}], 5, "dealer"])
def test_aec_reset_rejects_options_that_are_not_a_dict(module, options):
    env = module.env()
    env.reset(seed=3)
    raw = env.unwrapped
    before = snapshot(raw.game_state)
    with pytest.raises(ValueError, match="options must be None or a dict") as error:
        env.reset(options=options)
    assert repr(options) in str(error.value)
    assert_same_state(raw.game_state, before)


def _finished(game_type, **rules):
    """A batch of 4 games, each played to its end with random legal actions (no auto reset)."""
    game = game_type(episode="deal", **rules)
    state = game.init(stream_keys(5, 4))
    rng = np.random.default_rng(0)
    while (state.player >= 0).any():
        step_live_games(game, state, rng)
    return game, state


@pytest.mark.parametrize(
    ("game_type", "over"), [(GhostEuchre, ghost.OVER), (ClassicEuchre, classic.OVER)]
)
def test_stepping_a_finished_game_is_a_clear_error_for_both_variants(game_type, over):
    game, state = _finished(game_type)
    assert (state.phase == over).all() and not game.legal_mask(state).any()
    before = snapshot(state)
    for action in (0, 24):
        with pytest.raises(ValueError, match=r"game 0 is over and cannot be stepped"):
            game.step(state, np.full(4, action))
        assert_same_state(state, before)
    # One live game among finished ones is still refused, naming the first finished game.
    state.player[0] = 1
    with pytest.raises(ValueError, match="game 1 is over"):
        game.step(state, np.zeros(4, np.int64))
    # Starting the next episode makes them playable again.
    game.next_episodes(state, np.arange(4))
    assert (state.player >= 0).all()


@pytest.mark.parametrize("module", [ghost, classic])
@pytest.mark.parametrize("action", [3.0, True, np.bool_(True), "3", None, -1, 99, np.float32(2)])
def test_action_name_rejects_anything_but_an_action_id(module, action):
    with pytest.raises(ValueError, match=rf"action must be an int 0..{module.NUM_ACTIONS - 1}"):
        module.action_name(action)


@pytest.mark.parametrize("module", [ghost, classic])
def test_action_name_names_every_action_id(module):
    names = [module.action_name(a) for a in range(module.NUM_ACTIONS)]
    assert len(set(names)) == module.NUM_ACTIONS
    assert module.action_name(np.int64(8)) == "J♣" and names[24] == "pass"
