"""Fixtures shared by the test files, and the test tiers.

Tiers: a test that trains, starts processes or servers, installs, builds the docs or drives a
browser is marked ``slow`` (here for whole files, by name, or with ``@pytest.mark.slow``);
``python -m pytest -m "not slow"`` runs the rest, the fast tier. Imports are made where a
fixture needs them, so collecting the fast tier does not import torch or the league.
"""

import pytest

LEAGUE_SPECS = (
    "heuristic",
    "random",
    "agents.random_policy:RandomPolicy",
    "agents.heuristic:heuristic_policy",
)


@pytest.fixture
def torch_globals():
    """train.main sets torch's thread count and deterministic mode; put them back afterwards."""
    import torch

    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    yield
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(deterministic)


@pytest.fixture(scope="session")
def league_db(tmp_path_factory):
    """A small league store for the web page: four Ghost Hand matches, three classic ones."""
    from arena.league import run_league
    from arena.store import Store

    path = str(tmp_path_factory.mktemp("league") / "league.sqlite")
    with Store(path) as store:
        run_league(LEAGUE_SPECS, store, games=6, seed=1, rules={"target_score": 8})
        run_league(LEAGUE_SPECS, store, "classic", games=4, seed=1, rules={"target_score": 4})
    return path
