"""Start-up time: import the package, the engine's first reset and step, the bots' first decisions.

Usage::

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/startup.py   # cold: every kernel compiles
    NUMBA_CACHE_DIR=<the same folder> python benchmarks/startup.py   # warm: loaded from the cache

Prints the CPU and wall seconds of each part, in one process: importing ``ghost_euchre_env``;
the vector API's first reset and step of one game of each variant (the engine's kernels); then
the first decisions of ``heuristic``, ``pimc:samples=4`` and ``search:samples=4`` in both variants
(their kernels; ``search`` also reads the shipped network). A part that follows another only
compiles what the earlier ones did not.
"""

import time


def _now():
    return time.process_time(), time.perf_counter()


def _since(begin):
    cpu, wall = _now()
    return f"{cpu - begin[0]:.2f} s CPU ({wall - begin[1]:.2f} s wall)"


def main():
    begin = _now()
    from ghost_euchre_env import variants

    print("import ghost_euchre_env:", _since(begin))
    begin = _now()
    for name in ("ghost", "classic"):
        venv = variants.make(name).vector_env(1, seed=0)
        _, mask, _ = venv.reset()
        venv.step(mask.argmax(axis=1))
    print("the engine's first reset and step, both variants:", _since(begin))
    from ghost_euchre.agents.specs import make_policy

    for spec in ("heuristic", "pimc:samples=4", "search:samples=4"):
        begin = _now()
        for name in ("ghost", "classic"):
            venv = variants.make(name).vector_env(4, seed=0)
            obs, mask, _ = venv.reset()
            for _ in range(8):  # into the auction's second round and beyond
                obs, mask, *_ = venv.step(mask.argmax(axis=1))
            make_policy(spec, venv.game, seed=0).act(obs, mask)
        print(f"{spec}'s first decisions, both variants:", _since(begin))


if __name__ == "__main__":
    main()
