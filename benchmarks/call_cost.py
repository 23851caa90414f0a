"""Microseconds a call of the engine's kernels, at one game and at 16,384, against another checkout.

Measures, per variant and batch size, calls that are each one compiled call over the batch
(``legal_bits``, ``legal_mask``, ``observe`` by the player to act), the engine's step with its
legal mask (``step(state, legal_mask(state).argmax(1), auto_reset=True)``: the lowest legal
action) and the vector API's step with observations (``GhostEuchreVec.step``, the same actions).
At one game a call's time is its fixed cost: the arguments unboxed and the Python around it.

With ``--against PATH`` (another checkout of the project, e.g. the commit before the state
became one record: ``git worktree add /tmp/wt-head <commit>``) every round runs one process on
each tree (``PYTHONPATH``), this one and the other alternately, and the table gives both medians
and the median of the rounds' ratios (this tree's time / the other's: below 1 is faster), so a
change of machine load hits both sides of a ratio alike. Without it, this tree's times only.

Usage: ``python benchmarks/call_cost.py [--against /tmp/wt-head] [--rounds 7] [--seconds 0.3]
[--batches 1 16384]``. Prints a Markdown table.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve()
TREE = HERE.parent.parent


def _per_call(call, seconds):
    """Microseconds a call of ``call()``: the best of five windows of ``seconds / 5``."""
    best = np.inf
    for _ in range(5):
        calls, start = 0, time.perf_counter()
        deadline = start + seconds / 5
        while time.perf_counter() < deadline:
            call()
            calls += 1
        best = min(best, (time.perf_counter() - start) / calls)
    return best * 1e6


def measure(batches, seconds):
    """{"variant/batch/call": microseconds} of this process's ``ghost_euchre_env``."""
    from ghost_euchre_env import ClassicEuchre, ClassicEuchreVec, GhostEuchre, GhostEuchreVec
    from ghost_euchre_env.dealing import stream_keys

    times = {}
    for name, engine, vector in (
        ("ghost", GhostEuchre, GhostEuchreVec),
        ("classic", ClassicEuchre, ClassicEuchreVec),
    ):
        for batch in batches:
            game = engine()
            state = game.init(stream_keys(0, batch))
            seats = state.player.astype(np.int64)
            venv = vector(batch)
            mask = [venv.reset(seed=0)[1]]  # the mask of the latest step

            def engine_step(game=game, state=state):
                game.step(state, game.legal_mask(state).argmax(axis=1), auto_reset=True)

            def vector_step(venv=venv, mask=mask):
                mask[0] = venv.step(mask[0].argmax(axis=1))[1]

            calls = {
                "legal_bits": lambda game=game, state=state: game.legal_bits(state),
                "legal_mask": lambda game=game, state=state: game.legal_mask(state),
                "observe": lambda game=game, state=state, seats=seats: game.observe(state, seats),
                "engine step": engine_step,
                "vector step": vector_step,
            }
            for call_name, call in calls.items():
                call()  # compiled (or loaded from the cache) before the clock starts
                times[f"{name}/{batch}/{call_name}"] = _per_call(call, seconds)
    return times


def _run(tree, batches, seconds):
    """:func:`measure` in a process that imports the project from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1"}
    command = [sys.executable, str(HERE), "--worker", "--seconds", str(seconds), "--batches"]
    out = subprocess.run(
        [*command, *map(str, batches)], env=env, check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout)


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--against", type=pathlib.Path, help="another checkout to compare with")
    parser.add_argument("--rounds", type=int, default=7, help="processes per tree")
    parser.add_argument("--seconds", type=float, default=0.3, help="time per call measured")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16384])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(measure(args.batches, args.seconds)))
        return

    trees = [TREE] if args.against is None else [TREE, args.against.resolve()]
    rounds = [
        [_run(tree, args.batches, args.seconds) for tree in trees] for _ in range(args.rounds)
    ]
    keys = list(rounds[0][0])
    mine = {key: float(np.median([r[0][key] for r in rounds])) for key in keys}
    print(f"this tree: {TREE}" + (f"; against: {trees[1]}" if len(trees) > 1 else ""))
    print(f"median of {args.rounds} rounds, microseconds a call\n")
    if len(trees) == 1:
        print("| variant | batch | call | us |\n|---|---:|---|---:|")
        for key in keys:
            print("| " + " | ".join(key.split("/")) + f" | {mine[key]:,.2f} |")
        return
    theirs = {key: float(np.median([r[1][key] for r in rounds])) for key in keys}
    ratio = {key: float(np.median([r[0][key] / r[1][key] for r in rounds])) for key in keys}
    print(
        "| variant | batch | call | us, this tree | us, against | ratio |\n"
        "|---|---:|---|---:|---:|---:|"
    )
    for key in keys:
        print(
            "| " + " | ".join(key.split("/")) + f" | {mine[key]:,.2f} | {theirs[key]:,.2f} |"
            f" {ratio[key]:.2f} |"
        )


if __name__ == "__main__":
    main()
