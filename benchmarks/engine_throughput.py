"""Decisions per second of the batched engine against OpenSpiel's euchre, in one run.

Random legal play of full games (auction, swaps, trump, play) at batch sizes 1 to
16384, measured two ways, each against OpenSpiel's ``euchre`` driven by a Python
random loop in the same process:

* engine: ``legal_bits`` (the packed legal mask, bit a = action a) + a uniform
  draw over its set bits + ``step``, finished games restarted; against OpenSpiel
  with ``legal_actions()`` and ``random.choice`` only;
* vector: ``GhostEuchreVec.step`` (action check, step, auto-reset, observations,
  bool masks) with a uniform draw from the bool mask, against OpenSpiel also
  computing ``information_state_tensor()`` at each decision.

Every measurement runs in ``--rounds`` short windows, all of them taking turns,
so a change of machine load (these machines are shared and noisy) hits every
measurement alike; each reports its best window. Ratios are what to compare
across machines.

Usage: ``python benchmarks/engine_throughput.py [--seconds 2] [--rounds 4]
[--batches 1 64 1024 4096 16384]`` (needs ``pip install open_spiel``). Prints a
Markdown table.
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


class OpenSpielLoop:
    """OpenSpiel's euchre played by uniformly random legal actions from Python."""

    def __init__(self, with_tensor):
        import pyspiel

        self.game = pyspiel.load_game("euchre")
        self.with_tensor = with_tensor
        self.rng = random.Random(0)
        self.state = self.game.new_initial_state()

    def run(self, seconds):
        """Play for ``seconds``; returns the decisions made."""
        rng, state, decisions = self.rng, self.state, 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            if state.is_terminal():
                state = self.game.new_initial_state()
            elif state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                legal = state.legal_actions()
                if self.with_tensor:
                    state.information_state_tensor()
                state.apply_action(rng.choice(legal))
                decisions += 1
        self.state = state
        return decisions


class EngineLoop:
    """The bare engine: legal_bits + uniform draw + step, finished games restarted."""

    def __init__(self, game, batch):
        self.game, self.batch = game, batch
        self.state = game.init(stream_keys(0, batch))
        self.rng = np.random.default_rng(0)

    def run(self, seconds):
        game, state, steps = self.game, self.state, 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            result = game.step(state, random_set_bits(game.legal_bits(state), self.rng))
            done = result.terminated | result.truncated
            if done.any():
                game.next_episodes(state, np.flatnonzero(done))
            steps += 1
        return steps * self.batch


class VectorLoop:
    """The vector API (observations, bool masks, rewards, auto-reset) with a uniform draw from the mask."""

    def __init__(self, vector_class, batch):
        self.venv, self.batch = vector_class(batch), batch
        _, self.mask, _ = self.venv.reset(seed=0)
        self.rng = np.random.default_rng(0)

    def run(self, seconds):
        steps = 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            _, self.mask, _, _, _ = self.venv.step(random_legal_actions(self.mask, self.rng))
            steps += 1
        return steps * self.batch


def best_rates(loops, seconds, rounds):
    """{name: best decisions/s over ``rounds`` windows}, every loop taking one window per round."""
    best = dict.fromkeys(loops, 0.0)
    for _ in range(rounds):
        for name, loop in loops.items():
            start = time.perf_counter()
            decisions = loop.run(seconds / rounds)
            best[name] = max(best[name], decisions / (time.perf_counter() - start))
    return best


VARIANTS = (("ghost", GhostEuchre, GhostEuchreVec), ("classic", ClassicEuchre, ClassicEuchreVec))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement, split into the rounds")
    parser.add_argument("--rounds", type=int, default=4, help="windows per measurement, taken in turns")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024, 4096, 16384])
    args = parser.parse_args()

    loops = {"openspiel": OpenSpielLoop(with_tensor=False), "openspiel+tensor": OpenSpielLoop(with_tensor=True)}
    for name, engine_class, vector_class in VARIANTS:
        for batch in args.batches:
            loops[name, "engine", batch] = EngineLoop(engine_class(), batch)
            loops[name, "vector", batch] = VectorLoop(vector_class, batch)
    rate = best_rates(loops, args.seconds, args.rounds)
    plain, tensor = rate["openspiel"], rate["openspiel+tensor"]
    print(f"OpenSpiel euchre, Python random loop: {plain:,.0f} decisions/s (legal_actions), "
          f"{tensor:,.0f} decisions/s (+ information_state_tensor); best of {args.rounds} windows each\n")
    print("| variant | batch | engine dec/s | x OpenSpiel | vector+obs dec/s | x OpenSpiel+tensor |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, _, _ in VARIANTS:
        for batch in args.batches:
            engine, vector = rate[name, "engine", batch], rate[name, "vector", batch]
            print(f"| {name} | {batch} | {engine:,.0f} | {engine / plain:.1f} | {vector:,.0f} | {vector / tensor:.1f} |")
    for name, _, _ in VARIANTS:
        engine_x = max(rate[name, "engine", b] for b in args.batches) / plain
        vector_x = max(rate[name, "vector", b] for b in args.batches) / tensor
        print(f"\nbest {name}: engine {engine_x:.1f}x OpenSpiel, vector+obs {vector_x:.1f}x OpenSpiel+tensor "
              f"(target 30x)")


if __name__ == "__main__":
    main()
