"""Decisions per second of the batched engine against OpenSpiel's euchre, in one run.

Random legal play of full games (auction, swaps, trump, play) at batch sizes 1 to
16384, measured two ways, each against OpenSpiel's ``euchre`` driven by a Python
random loop in the same process:

* engine: legal masks + steps, against OpenSpiel with ``legal_actions()`` only;
* vector: ``GhostEuchreVec.step`` with observations and masks, against OpenSpiel
  also computing ``information_state_tensor()`` at each decision.

Usage: ``python benchmarks/engine_throughput.py [--seconds 2] [--batches 1 64 1024 4096 16384]``
(needs ``pip install open_spiel``). Prints a Markdown table; ratios are what to
compare across machines, since both sides run on the same core at the same time.
"""

import argparse
import os
import random
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from agents.random_policy import random_legal_actions, random_set_bits  # noqa: E402
from ghost_euchre_env import ClassicEuchre, ClassicEuchreVec, GhostEuchre, GhostEuchreVec  # noqa: E402
from ghost_euchre_env.dealing import stream_keys  # noqa: E402


def openspiel_rate(seconds, with_tensor):
    """Decisions/s of OpenSpiel's euchre played by uniformly random legal actions."""
    import pyspiel

    game = pyspiel.load_game("euchre")
    rng = random.Random(0)
    decisions, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            legal = state.legal_actions()
            if with_tensor:
                state.information_state_tensor()
            state.apply_action(rng.choice(legal))
            decisions += 1
    return decisions / (time.perf_counter() - start)


def engine_rate(game, batch, seconds):
    """Decisions/s of the bare engine: legal_bits (the packed legal mask) + step, finished games restarted."""
    state = game.init(stream_keys(0, batch))
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        result = game.step(state, random_set_bits(game.legal_bits(state), rng))
        done = result.terminated | result.truncated
        if done.any():
            game.next_episodes(state, np.flatnonzero(done))
        steps += 1
    return steps * batch / (time.perf_counter() - start)


def vector_rate(vector_class, batch, seconds):
    """Decisions/s of the vector API (observations, masks, rewards, auto-reset)."""
    venv = vector_class(batch)
    _, mask, _ = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, mask, _, _, _ = venv.step(random_legal_actions(mask, rng))
        steps += 1
    return steps * batch / (time.perf_counter() - start)


VARIANTS = (("ghost", GhostEuchre, GhostEuchreVec), ("classic", ClassicEuchre, ClassicEuchreVec))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024, 4096, 16384])
    args = parser.parse_args()

    plain = openspiel_rate(args.seconds, with_tensor=False)
    tensor = openspiel_rate(args.seconds, with_tensor=True)
    print(f"OpenSpiel euchre, Python random loop: {plain:,.0f} decisions/s (legal_actions), "
          f"{tensor:,.0f} decisions/s (+ information_state_tensor)\n")
    print("| variant | batch | engine dec/s | x OpenSpiel | vector+obs dec/s | x OpenSpiel+tensor |")
    print("|---|---:|---:|---:|---:|---:|")
    best = {}
    for name, engine_class, vector_class in VARIANTS:
        for batch in args.batches:
            engine = engine_rate(engine_class(), batch, args.seconds)
            vector = vector_rate(vector_class, batch, args.seconds)
            print(f"| {name} | {batch} | {engine:,.0f} | {engine / plain:.1f} | {vector:,.0f} | {vector / tensor:.1f} |",
                  flush=True)
            old = best.get(name, (0, 0))
            best[name] = (max(old[0], engine / plain), max(old[1], vector / tensor))
    for name, (engine_x, vector_x) in best.items():
        print(f"\nbest {name}: engine {engine_x:.1f}x OpenSpiel, vector+obs {vector_x:.1f}x OpenSpiel+tensor "
              f"(target 30x)")


if __name__ == "__main__":
    main()
