"""Start-up time: import the package, then, per variant, the engine's and the bots' first use.

Usage::

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/startup.py   # cold: every kernel compiles
    NUMBA_CACHE_DIR=<the same folder> python benchmarks/startup.py   # warm: loaded from the cache

Prints the CPU and wall seconds of each part, in one process: importing ``ghost_euchre_env``;
then Ghost Hand's parts, then classic's: the vector API's first reset and step of one game (the
engine's kernels), the first decisions of ``heuristic``, ``pimc:samples=4`` and
``search:samples=4`` (their kernels; ``search`` also reads the shipped network) and the exact
solver's first call (its kernels). A part only compiles what the parts before it did not (classic's
parts: what Ghost Hand's left, the card primitives being shared).
"""

import time

import numpy as np

BOTS = ("heuristic", "pimc:samples=4", "search:samples=4")


def _now():
    return time.process_time(), time.perf_counter()


def _since(begin):
    cpu, wall = _now()
    return f"{cpu - begin[0]:.2f} s CPU ({wall - begin[1]:.2f} s wall)"


def _first_solve(variant):
    """The solver's values of one position at the first lead, after a random auction."""
    from ghost_euchre_env import solver

    game = variant.make_game(episode="deal")
    rng = np.random.default_rng(0)
    state = game.init([7])
    while not solver.in_play(game, state)[0]:
        if state.player[0] < 0:  # everybody passed: another deal
            state = game.init([int(rng.integers(1 << 30))])
        game.step(state, [rng.choice(np.flatnonzero(game.legal_mask(state)[0]))])
    solver.solve(game, state)


def main():
    begin = _now()
    from ghost_euchre_env import variants

    print("import ghost_euchre_env:", _since(begin))
    from ghost_euchre.agents.specs import make_policy

    for name in variants.NAMES:
        variant = variants.make(name)
        begin = _now()
        venv = variant.vector_env(1, seed=0)
        _, mask, _ = venv.reset()
        venv.step(mask.argmax(axis=1))
        print(f"{name}: the engine's first reset and step:", _since(begin))
        for spec in BOTS:
            begin = _now()
            venv = variant.vector_env(4, seed=0)
            obs, mask, _ = venv.reset()
            for _ in range(8):  # into the auction's second round and beyond
                obs, mask, *_ = venv.step(mask.argmax(axis=1))
            make_policy(spec, venv.game, seed=0).act(obs, mask)
            print(f"{name}: {spec}'s first decisions:", _since(begin))
        begin = _now()
        _first_solve(variant)
        print(f"{name}: the solver's first call:", _since(begin))


if __name__ == "__main__":
    main()
