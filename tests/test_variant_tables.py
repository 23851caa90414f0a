"""Every per-variant table above the engine covers every registered variant.

docs/design.md lists the tables a new variant fills in beside its engine module; this test reads
that list from the page and checks each table's keys against ``variants.available()``, so a
variant added to the engine but forgotten in a table fails here, not at run time.
"""

import importlib
import pathlib
import re

import pytest

from ghost_euchre_env import variants

DESIGN = pathlib.Path(__file__).resolve().parent.parent / "docs" / "design.md"
TABLE_ROW = re.compile(r"^\| `([\w.]+)` \|", re.MULTILINE)


def listed_tables():
    """The dotted names of the per-variant tables in the design page's table."""
    return TABLE_ROW.findall(DESIGN.read_text(encoding="utf-8"))


def keys_of(table):
    """The variant names a table answers for (a dict's keys, or a suite's sections')."""
    return set(table.sections if hasattr(table, "sections") else table)


def test_the_page_lists_the_tables():
    assert len(listed_tables()) >= 5


@pytest.mark.parametrize("dotted", listed_tables())
def test_a_per_variant_table_covers_every_variant(dotted):
    module, _, name = dotted.rpartition(".")
    table = getattr(importlib.import_module(module), name)
    assert keys_of(table) == set(variants.available()), dotted


def test_every_engine_knows_its_descriptor():
    for name in variants.available():
        variant = variants.make(name)
        assert variant.engine().variant is variant
