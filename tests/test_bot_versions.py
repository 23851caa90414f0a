"""A bot's version follows the modules it runs, not every module of its package."""

import shutil

import pytest

from ghost_euchre.agents import versions
from ghost_euchre.agents.versions import fingerprint, local_sources

HEURISTIC = "ghost_euchre.agents.heuristic"


@pytest.fixture
def edited_heuristic(monkeypatch, tmp_path):
    """The heuristic's module edited (a copy with one more line, read where its file would be)."""
    locate = versions._locate
    edited = tmp_path / "heuristic.py"
    shutil.copy(local_sources(HEURISTIC)[HEURISTIC], edited)
    with edited.open("a") as handle:
        handle.write("\nEDITED = True\n")

    def located(root, name):
        return str(edited) if name == HEURISTIC else locate(root, name)

    monkeypatch.setattr(versions, "_locate", located)


def test_random_runs_three_modules():
    assert sorted(local_sources("ghost_euchre.agents.random_policy")) == [
        "ghost_euchre.agents.base",
        "ghost_euchre.agents.random_policy",
        "ghost_euchre.agents.streams",
    ]
    assert HEURISTIC in local_sources("ghost_euchre.agents.search")


def test_an_edit_changes_the_versions_of_the_bots_that_run_it_only(edited_heuristic, monkeypatch):
    edited = {spec: fingerprint(spec) for spec in ("random", "search", "pimc", "human")}
    monkeypatch.undo()
    before = {spec: fingerprint(spec) for spec in edited}
    assert edited["random"] == before["random"] and edited["human"] == before["human"]
    assert edited["search"] != before["search"] and edited["pimc"] != before["pimc"]
