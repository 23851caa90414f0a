"""Every door is generated from the variant's declaration and published where it says.

The vector, PettingZoo, Gymnasium and auction-view doors are written once
(:data:`ghost_euchre_env.variants.GENERATORS`); each variant's ``DECLARATION`` names where
they are published (:class:`ghost_euchre_env.core.Doors`). These tests check that every
declared name resolves to the door made for that variant, that Gymnasium registers every
declared id with the declared entry points, and that the PettingZoo modules' docstrings are
filled in from the declaration.
"""

import importlib

import gymnasium
import pytest

from ghost_euchre_env import variants
from ghost_euchre_env.core import DOORS

VARIANTS = variants.available()


def load(entry_point):
    module, _, name = entry_point.partition(":")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("door", DOORS)
def test_a_declared_name_is_the_door_made_for_its_variant(name, door):
    variant = variants.make(name)
    made = variant.door(door)
    assert load(getattr(variant.doors, door)) is made
    assert (made.__module__, made.__name__) == variant.doors.entry_point(door)
    assert made.__doc__


@pytest.mark.parametrize("name", VARIANTS)
def test_the_pettingzoo_modules_hold_the_variants_envs(name):
    variant = variants.make(name)
    game = importlib.import_module(variant.doors.pettingzoo)
    auction = importlib.import_module(variant.doors.auction_pettingzoo)
    assert game.raw_env is variant.door("aec") and game.raw_env.variant is variant
    assert auction.raw_env is variant.door("auction_aec")
    assert issubclass(auction.raw_env, game.raw_env)
    assert game.parallel_env is variant.door("parallel")
    assert game.score_bounds is variant.score_bounds
    doc = game.__doc__ or ""
    assert variant.layout_table() in doc and variant.action_table.strip() in doc
    assert "{" not in doc.replace('{"hands"', "")  # every placeholder filled in


def test_gymnasium_registers_every_declared_id():
    for gym_id, entry_point, vector_entry_point in variants.gym_registrations():
        spec = gymnasium.spec(gym_id)
        assert (spec.entry_point, spec.vector_entry_point) == (entry_point, vector_entry_point)
        assert callable(load(entry_point)) and callable(load(vector_entry_point))
    declared = {v.doors.gym_id for v in map(variants.make, VARIANTS)}
    declared |= {v.doors.auction_gym_id for v in map(variants.make, VARIANTS)}
    assert declared == {gym_id for gym_id, _, _ in variants.gym_registrations()}


def test_a_name_no_declaration_publishes_is_an_attribute_error():
    from ghost_euchre_env import vector

    with pytest.raises(AttributeError, match="has no attribute 'MiniEuchreVec'"):
        getattr(vector, "MiniEuchreVec")  # noqa: B009 (the lookup of a name no one declares)
    assert "GhostEuchreVec" in dir(vector)
