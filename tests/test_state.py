"""The state of a batch is one record a game: fields by name, views, copies, what a declaration adds.

A state field and a rules option are each one declaration (CONTRIBUTING.md, "Adding a rules
option", "Adding a state field"); two tests walk both recipes on a variant made here, and the
last checks that the vector step's masks and observations are the engine's under options away
from their defaults (the options reach every kernel through one settings record).
"""

import copy
import dataclasses
import pickle

import numpy as np
import pytest

from ghost_euchre_env import ClassicEuchre, ClassicEuchreVec, GhostEuchre, GhostEuchreVec
from ghost_euchre_env.cards import HAND_DTYPE
from ghost_euchre_env.core import Field, settings_dtype
from ghost_euchre_env.dealing import stream_keys
from ghost_euchre_env.ghost import GhostRules, GhostState

ENGINES = [GhostEuchre, ClassicEuchre]


def played(engine, games=5, steps=40):
    """(game, state) after ``steps`` random legal steps of ``games`` games."""
    game = engine()
    state = game.init(stream_keys(3, games))
    rng = np.random.default_rng(0)
    for _ in range(steps):
        game.step(
            state, (rng.random((games, game.num_actions)) * game.legal_mask(state)).argmax(1), True
        )
    return game, state


def assert_same(state, other, games: slice | np.ndarray = slice(None)):
    """Every field of ``state`` is that of ``other``'s ``games``."""
    assert state.arrays().keys() == other.arrays().keys()
    for name, array in state.arrays().items():
        theirs = getattr(other, name)[games]
        assert array.dtype == theirs.dtype and np.array_equal(array, theirs), name


@pytest.mark.parametrize("engine", ENGINES)
def test_fields_are_views_of_the_records_with_their_declared_dtypes_and_shapes(engine):
    game, state = played(engine)
    seats = game.num_players
    assert isinstance(state.records, np.ndarray) and state.records.dtype == type(state).dtype
    assert state.records.shape == (5,)
    for name, dtype, shape in [
        ("keys", np.uint64, (5,)),
        ("player", np.int8, (5,)),
        ("scores", np.int32, (5, type(state).score_width)),
        ("hands", HAND_DTYPE, (5, seats)),
        ("tricks_won", np.int8, (5, seats)),
    ]:
        field = getattr(state, name)
        assert (field.dtype, field.shape) == (np.dtype(dtype), shape), name
        assert np.shares_memory(field, state.records), name
    state.player[1] = 2  # a write into a field is a write into the game's record
    assert state.records[1].player == 2
    state.records[2].hands[0] = 7  # and the other way round
    assert state.hands[2, 0] == 7
    assert state.chosen.shape == (5, 0, type(state).deal_width)


def test_a_bool_field_reads_as_bool():
    _, state = played(GhostEuchre)
    assert state.acted.dtype == np.bool_ and state.acted.shape == (5, 3)
    state.acted[0] = [True, False, True]
    assert state.records[0].acted.tolist() == [1, 0, 1]


@pytest.mark.parametrize("engine", ENGINES)
def test_assigning_a_field_writes_its_values_into_the_records(engine):
    _, state = played(engine)
    view = state.scores
    state.scores = 7
    assert (state.records["scores"] == 7).all() and state.scores is view
    state.dealer = np.arange(5) % 2
    assert state.records["dealer"].tolist() == [0, 1, 0, 1, 0]


@pytest.mark.parametrize("engine", ENGINES)
def test_copy_take_put_and_pickle_keep_every_field(engine):
    game, state = played(engine)
    twin = state.copy()
    assert_same(twin, state)
    assert not np.shares_memory(twin.records, state.records)
    twin.player[:] = -1
    assert (state.player >= 0).any()  # the copy is its own
    some = state.take([4, 1])
    assert some.num_games == 2
    assert_same(some, state, np.array([4, 1]))
    fresh = game.init(stream_keys(9, 5))
    fresh.put(np.array([0, 3]), some)
    assert_same(fresh.take([0, 3]), some)
    for loaded in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert_same(loaded, state)
        loaded.player[0] = 1  # the views read the loaded records, not the pickled ones
        assert loaded.records[0].player == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_from_arrays_rebuilds_a_state_and_refuses_an_unknown_name(engine):
    _, state = played(engine)
    rebuilt = type(state).from_arrays({name: a.copy() for name, a in state.arrays().items()})
    assert_same(rebuilt, state)
    with pytest.raises(ValueError, match=r"not fields of \w+State: \['nonsense'\]"):
        type(state).from_arrays({"player": state.player, "nonsense": state.player})


class StreakState(GhostState):
    """Ghost Hand with one more field, as CONTRIBUTING's recipe adds one: its declaration only."""

    streak = Field(np.int16, "score_width", fill=-1)  # deals in a row each seat scored, -1 none


@dataclasses.dataclass(frozen=True)
class StickyRules(GhostRules):
    """Ghost Hand with one more option, as CONTRIBUTING's recipe adds one: its declaration only."""

    stick_the_dealer: bool = False
    CHOICES = {**GhostRules.CHOICES, "bonus": ("none", "double")}  # noqa: RUF012 (the base's)
    bonus: str = "none"


class StickyGhost(GhostEuchre):
    rules_type = StickyRules
    state_type = StreakState


def test_a_state_field_is_one_declaration():
    # The record, the views, copies and the fill follow from the declaration; the kernels
    # take the records whole, so the field reaches every one of them unnamed.
    assert list(StreakState.fields)[-1] == "streak"
    assert list(StreakState.fields)[:-1] == list(GhostState.fields)
    state = StreakState.empty(4)
    assert (state.streak.dtype, state.streak.shape) == (np.dtype(np.int16), (4, 3))
    assert (state.streak == -1).all()
    state.streak[2, 1] = 5
    assert state.take([2]).streak.tolist() == [[-1, 5, -1]]
    assert pickle.loads(pickle.dumps(state)).streak[2, 1] == 5


def test_a_rules_option_is_one_declaration_that_the_settings_record_carries():
    assert settings_dtype(StickyRules, 3).names == (
        *(f.name for f in dataclasses.fields(StickyRules)),
        "one_deal",
        "reward_is_win",
        "loss_reward",
        "score_column",
        "checked",
    )
    rules = StickyGhost(stick_the_dealer=True, bonus="double", auction="open").settings[0]
    assert rules.stick_the_dealer and rules.bonus == 1 and rules.auction == 1
    with pytest.raises(ValueError, match="stick_the_dealer must be a bool"):
        StickyGhost(stick_the_dealer=1)
    game = GhostEuchre(episode="deal", reward="points", max_deals=9)
    assert game.settings[0].one_deal and not game.settings[0].reward_is_win
    assert game.settings[0].max_deals == 9 and game.settings[0].score_column.tolist() == [0, 1, 2]


@pytest.mark.parametrize(
    ("vector", "rules"),
    [
        (GhostEuchreVec, {}),
        (GhostEuchreVec, {"allow_renege": True, "auction": "open", "max_deals": 3}),
        (ClassicEuchreVec, {}),
        (ClassicEuchreVec, {"stick_the_dealer": False, "allow_lone_defender": True}),
    ],
)
def test_the_vector_steps_masks_and_observations_are_the_engines(vector, rules):
    # The vector step's one kernel call (step, legal mask, observation) reads the options from
    # the same settings record as the engine's own legal_mask and observe: options away from
    # their defaults give the same masks both ways.
    venv = vector(16, seed=4, **rules)
    obs, mask, player = venv.reset()
    rng = np.random.default_rng(5)
    for _ in range(150):
        obs, mask, player, _, _ = venv.step((rng.random(mask.shape) * mask).argmax(axis=1))
        assert np.array_equal(mask, venv.game.legal_mask(venv.state))
        assert np.array_equal(obs, venv.game.observe(venv.state, player))
