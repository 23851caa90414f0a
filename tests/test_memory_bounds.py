"""Issue 54, class 4: sizes that cannot fit in memory are refused before anything is allocated: one
line with the estimate, the machine's memory and the bound, exit 2, and a league leaves no new store."""

import pytest

from ghost_euchre.agents import make_policy
from ghost_euchre.agents.pimc import WORLD_BYTES, check_fits, physical_memory
from ghost_euchre.arena import cli as evaluate
from ghost_euchre_env import GhostEuchre

HUGE = 10**9  # worlds per decision: 30 TiB at WORLD_BYTES each


def test_the_bound_is_the_machines_memory_over_the_bytes_per_world():
    check_fits("pimc: samples=4", 4, memory=4 * WORLD_BYTES)  # fits exactly
    with pytest.raises(ValueError, match=r"at most 3 worlds per decision$") as error:
        check_fits("pimc: samples=4", 4, memory=3 * WORLD_BYTES + 1)
    assert str(error.value).startswith("pimc: samples=4 cannot fit in memory: one decision needs")
    with pytest.raises(ValueError, match="pool=1000 does not fit even one world"):
        check_fits("search: samples=1, pool=1000", 1, pool=1000, memory=WORLD_BYTES * 10)
    memory = physical_memory()
    assert memory is None or memory < HUGE * WORLD_BYTES


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (f"pimc:samples={HUGE}", f"pimc: samples={HUGE} cannot fit in memory"),
        ("search:pool=100000000", "search: samples=64, pool=100000000 cannot fit in memory"),
        ("search:samples=100000000,pool=1", "search: samples=100000000, pool=1 cannot fit"),
    ],
)
def test_a_search_too_large_for_memory_is_refused_when_built(spec, message, capsys):
    with pytest.raises(ValueError, match=message):
        make_policy(spec, GhostEuchre())
    assert evaluate.main([spec, "random", "random", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "this machine has" in err, err


def test_regret_worlds_too_large_are_refused_before_a_match_or_a_store(tmp_path, capsys):
    db = tmp_path / "league.sqlite"
    regret = ["--bid-regret", "2", "--regret-worlds", str(HUGE)]
    for argv in (
        ["--league", "random", "heuristic", "random", "--db", str(db), *regret],
        ["random", "heuristic", "random", "--games", "2", *regret],
    ):
        assert evaluate.main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"--regret-worlds {HUGE} cannot fit in memory" in err, err
    assert not db.exists()
