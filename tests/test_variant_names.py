"""No code outside a variant's own modules names a variant, but for the places listed here.

A variant is its own modules (its engine and kernels, its heuristic, worlds and playouts, what
the web page's table shows of it, its deal statistics for TensorBoard, its PettingZoo modules)
and its entry in the registry (``ghost_euchre_env/variants.py``); every other module asks the
descriptor. This test reads the code for the string literals ``"ghost"`` and ``"classic"``
(Python and the web page's JavaScript) outside those modules and compares what it finds, file by
file, with :data:`ALLOWED`: the defaults (``--variant ghost``), examples in docstrings, and the
benchmarks' and scripts' peers. A new one fails here: ask the descriptor instead, or add it here
(and a default to docs/design.md).
"""

import collections
import os
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
CODE = (
    "ghost_euchre",
    "ghost_euchre_env",
    "benchmarks",
    "scripts",
    "docs",
    "train.py",
    "evaluate.py",
)
NAMED = re.compile(r"""(["'])(ghost|classic)\1""")
OWN = re.compile(
    r"ghost_euchre_env/((ghost|classic)(_\w+_v0)?|variants|kernels/(ghost|classic))\.py"
    r"|ghost_euchre/(agents/(heuristic|worlds|playouts)|arena/web/shows|trainer/stats)"
    r"/(ghost|classic)\.py"
)

ALLOWED = {
    # defaults: a variant to play when none is given (--variant ghost, variant="ghost")
    "ghost_euchre/arena/analysis.py": 1,
    "ghost_euchre/arena/benchmark_cli.py": 1,
    "ghost_euchre/arena/bidding.py": 1,
    "ghost_euchre/arena/cli_args.py": 2,
    "ghost_euchre/arena/interactive.py": 1,
    "ghost_euchre/arena/league.py": 4,
    "ghost_euchre/arena/web/games.py": 1,
    "ghost_euchre/arena/web/table.py": 1,
    "ghost_euchre/arena/benchmark.py": 1,
    "ghost_euchre/trainer/exploit.py": 1,
    # a default, its documentation and an example of a config by name
    "ghost_euchre/trainer/config.py": 3,
    # defaults and examples of the JSON forms in docstrings
    "ghost_euchre/arena/match.py": 3,
    "ghost_euchre_env/records.py": 2,
    "ghost_euchre/agents/protocol.py": 1,
    "docs/observations_page.py": 1,
    # benchmarks and scripts: their defaults, and each variant measured or recorded beside its
    # peer, by name
    "benchmarks/bidding_throughput.py": 1,
    "benchmarks/call_cost.py": 2,
    "benchmarks/engine_throughput.py": 1,
    "benchmarks/heuristic_speed.py": 1,
    "benchmarks/leaderboard_scaling.py": 4,
    "benchmarks/names_vs_indices.py": 1,
    "benchmarks/network_speed.py": 1,
    "benchmarks/pimc_speed.py": 1,
    "benchmarks/proc_overhead.py": 2,
    "benchmarks/search_components.py": 1,
    "benchmarks/web_load.py": 1,
    "scripts/golden_doors.py": 5,
}


def sources():
    """The repository's code files (Python, JavaScript) outside tests/, by path from the root."""
    for top in CODE:
        path = ROOT / top
        if path.is_file():
            yield path
            continue
        for folder, dirs, files in os.walk(path):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", "_build", "api")]
            for name in files:
                if name.endswith((".py", ".js")):
                    yield pathlib.Path(folder, name)


def named_lines():
    """{path: lines that name a variant} outside the variants' own modules."""
    found = collections.Counter()
    for path in sources():
        relative = path.relative_to(ROOT).as_posix()
        if OWN.fullmatch(relative):
            continue
        text = path.read_text(encoding="utf-8")
        found[relative] += sum(1 for line in text.splitlines() if NAMED.search(line))
    return {path: count for path, count in found.items() if count}


def test_no_code_outside_a_variants_modules_names_it_but_the_listed():
    assert named_lines() == ALLOWED


def test_the_check_sees_a_variant_test():
    assert NAMED.search('if (view.variant === "ghost") {') and not NAMED.search('"ghost_hand"')
    assert OWN.fullmatch("ghost_euchre/agents/heuristic/ghost.py")
    assert OWN.fullmatch("ghost_euchre/arena/web/shows/classic.py")
    assert OWN.fullmatch("ghost_euchre/trainer/stats/ghost.py")
    assert not OWN.fullmatch("ghost_euchre/agents/heuristic/__init__.py")
    assert not OWN.fullmatch("ghost_euchre/trainer/stats/counts.py")
