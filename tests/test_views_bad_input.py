"""Issue 54, class 7: named views and actions check their arguments at the boundary (names and ranges in
the message, the valid names listed for an unknown field), and a damaged observation is read as the views'
docstring says: a field whose columns decode to no value is a ValueError naming the row and the field."""

import re

import numpy as np
import pytest

from ghost_euchre_env import variants


@pytest.fixture(scope="module")
def ghost_obs():
    venv = variants.make("ghost").vector_env(4, seed=1)
    obs, _, _ = venv.reset()
    return obs


@pytest.mark.parametrize("variant", ["ghost", "classic"])
@pytest.mark.parametrize("card", [99, -1, 24, None, 3.0, [3], True])
def test_a_card_that_is_not_one_is_refused(variant, card):
    with pytest.raises(ValueError, match=r"not a card: .*; expected a card id 0\.\.23 or a name"):
        variants.make(variant).actions.card(card)


@pytest.mark.parametrize("level", [[3], {3}, None, 2, 7, True, 4.5])
def test_a_bid_that_is_not_one_is_refused(level):
    with pytest.raises(ValueError, match=r"not a bid: .*; expected 3, 4, 5, 6 or 'moon'"):
        variants.make("ghost").actions.bid(level)


def test_an_unknown_field_lists_the_fields(ghost_obs):
    view = variants.make("ghost").view(ghost_obs)
    for name in ("nope", 3, None):
        with pytest.raises(ValueError, match=r"observations have no field .*; fields: hand, "):
            view.columns(name)
    with pytest.raises(ValueError, match="no field 'nope'"):
        view.card_flags("nope")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("trump", 9, "field 'trump' row 0: 9 is out of range; expected one of [0, 1, 2, 3] or -1"),
        ("contract", 7, "field 'contract' row 0: 7 is out of range; expected one of"),
        ("tricks_won", 300, "field 'tricks_won' row 0: 300 is out of range; expected integers 0..127"),
        ("dealer", 7, "field 'dealer' row 0: 7 is out of range; expected integers -1..2 (-1: none)"),
        ("hand", 2, "field 'hand' row 0: 2 is out of range; expected False/True (0/1)"),
        ("scores", np.nan, "field 'scores' row 0: nan is out of range; expected finite numbers"),
    ],
)  # fmt: skip
def test_encode_refuses_a_value_no_observation_holds(ghost_obs, field, value, message):
    variant = variants.make("ghost")
    values = {
        name: getattr(variant.view(ghost_obs), name).copy() for name in variant.view_type.fields
    }
    values[field] = np.full(values[field].shape, value)
    with pytest.raises(ValueError, match=re.escape(message)):
        variant.encode(values)


def test_encode_refuses_a_shape_other_than_the_fields(ghost_obs):
    variant = variants.make("ghost")
    values = {name: getattr(variant.view(ghost_obs), name) for name in variant.view_type.fields}
    values["dealer"] = values["dealer"][:, None]
    with pytest.raises(ValueError, match=r"field 'dealer' is int8\[N\], got an array of shape"):
        variant.encode(values)


@pytest.mark.parametrize(
    ("columns", "shown"), [([np.nan, 0, 0], "[nan, 0.0, 0.0]"), ([1, 1, 0], "[1.0, 1.0, 0.0]")]
)
def test_a_damaged_one_hot_field_names_its_row_when_read(ghost_obs, columns, shown):
    variant = variants.make("ghost")
    damaged = ghost_obs.copy()
    field = variant.view(ghost_obs).fields["dealer"]
    damaged[2, field.start : field.stop] = columns
    view = variant.view(damaged)
    assert view.hand.shape == (4, 24)  # the other fields read as they are
    with pytest.raises(ValueError, match="observation row 2 is damaged: field 'dealer'") as error:
        _ = view.dealer
    assert shown in str(error.value)


def test_a_damaged_count_names_its_row_when_read(ghost_obs):
    variant = variants.make("ghost")
    damaged = ghost_obs.copy()
    field = variant.view(ghost_obs).fields["tricks_won"]
    damaged[1, field.start] = np.nan
    with pytest.raises(ValueError, match="observation row 1 is damaged: field 'tricks_won'"):
        _ = variant.view(damaged).tricks_won


@pytest.mark.parametrize("name", [["ghost"], {"ghost"}, None, 3, "Ghost", b"ghost"])
def test_a_variant_name_that_is_not_one_is_refused(name):
    with pytest.raises(ValueError, match=r"^variant must be one of \['classic', 'ghost'\], got "):
        variants.make(name)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("dealer", "got 'dealer' ('dealer' is a seat field)"),
        ("scores", "got 'scores' ('scores' is a fraction field)"),
        ("nope", "got 'nope'"),
        (3, "got 3"),
        (None, "got None"),
    ],
)
def test_mask_reads_only_a_cards_field(ghost_obs, name, message):
    view = variants.make("ghost").view(ghost_obs)
    with pytest.raises(
        ValueError, match=r"^mask reads a cards field: one of hand, dead_hand, "
    ) as raised:
        view.mask(name)
    assert str(raised.value).endswith(message)
    assert view.mask("played_by").shape == (len(ghost_obs), 3)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (None, "{field name: decoded value} of every field, got NoneType None"),
        (3, "got int 3"),
        ([1, 2], "got list [1, 2]"),
        ({}, "encode: the mapping has no field 'hand'; it needs every field"),
    ],
)  # fmt: skip
def test_encode_names_what_it_takes(ghost_obs, values, message):
    variant = variants.make("ghost")
    with pytest.raises(ValueError, match=re.escape(message)):
        variant.encode(values)
    view = variant.view(ghost_obs)
    assert (variant.encode(view) == ghost_obs).all()
    assert (
        variant.encode({f.name: getattr(view, f.name) for f in variant.fields}) == ghost_obs
    ).all()
