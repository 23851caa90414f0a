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

Each measurement runs in ``--rounds`` windows, each right after a window of its
OpenSpiel peer; the table gives median rates and the median of the per-round
ratios, so a change of machine load (these machines are shared and noisy) hits
both sides of a ratio alike. Ratios are what to compare across machines.

Usage: ``python benchmarks/engine_throughput.py [--seconds 2] [--rounds 4]
[--batches 1 64 1024 4096 16384]`` (needs ``pip install open_spiel``). Prints a
Markdown table.
"""

import argparse
import os
import random
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

from ghost_euchre.agents.random_policy import random_legal_actions, random_set_bits
from ghost_euchre_env import ClassicEuchre, ClassicEuchreVec, GhostEuchre, GhostEuchreVec
from ghost_euchre_env.dealing import stream_keys


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
    """The bare engine: legal_bits + uniform draw + step, finished games restarted in the step."""

    def __init__(self, game, batch):
        self.game, self.batch = game, batch
        self.state = game.init(stream_keys(0, batch))
        self.rng = np.random.default_rng(0)

    def run(self, seconds):
        game, state, steps = self.game, self.state, 0
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            game.step(state, random_set_bits(game.legal_bits(state), self.rng), auto_reset=True)
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


def paired_rates(loop, reference, seconds, rounds):
    """(median decisions/s of ``loop``, of ``reference``, median of their ratios).

    Each round times a window of ``reference`` and then one of ``loop``, so the
    ratio of a round compares the two under the same machine load.
    """
    rates, reference_rates = [], []
    for _ in range(rounds):
        for runner, out in ((reference, reference_rates), (loop, rates)):
            start = time.perf_counter()
            decisions = runner.run(seconds / rounds)
            out.append(decisions / (time.perf_counter() - start))
    ratios = np.array(rates) / np.array(reference_rates)
    return float(np.median(rates)), float(np.median(reference_rates)), float(np.median(ratios))


VARIANTS = (("ghost", GhostEuchre, GhostEuchreVec), ("classic", ClassicEuchre, ClassicEuchreVec))


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument(
        "--seconds", type=float, default=2.0, help="time per measurement, split into the rounds"
    )
    parser.add_argument(
        "--rounds", type=int, default=5, help="windows per measurement, each after a peer window"
    )
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024, 4096, 16384])
    args = parser.parse_args()

    plain, tensor = OpenSpielLoop(with_tensor=False), OpenSpielLoop(with_tensor=True)
    rows, reference_rates, best = [], {"plain": [], "tensor": []}, {}
    for name, engine_class, vector_class in VARIANTS:
        for batch in args.batches:
            timing = args.seconds, args.rounds
            engine, plain_rate, engine_x = paired_rates(
                EngineLoop(engine_class(), batch), plain, *timing
            )
            vector, tensor_rate, vector_x = paired_rates(
                VectorLoop(vector_class, batch), tensor, *timing
            )
            reference_rates["plain"].append(plain_rate)
            reference_rates["tensor"].append(tensor_rate)
            rows.append(
                f"| {name} | {batch} | {engine:,.0f} | {engine_x:.2f} | {vector:,.0f} | {vector_x:.2f} |"
            )
            old = best.get(name, (0.0, 0.0))
            best[name] = (max(old[0], engine_x), max(old[1], vector_x))
    print(
        f"OpenSpiel euchre, Python random loop: {np.median(reference_rates['plain']):,.0f} decisions/s "
        f"(legal_actions), {np.median(reference_rates['tensor']):,.0f} decisions/s (+ information_state_tensor); "
        f"medians over all windows\n"
    )
    print(
        "| variant | batch | engine dec/s | x OpenSpiel | vector+obs dec/s | x OpenSpiel+tensor |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    for name, (engine_x, vector_x) in best.items():
        print(
            f"\nbest {name}: engine {engine_x:.1f}x OpenSpiel, vector+obs {vector_x:.1f}x OpenSpiel+tensor "
            "(issue 67's targets at 16,384 games: engine 100x, vector+obs 150x; issue 77's at one "
            "game: vector+obs 1.5x)"
        )


if __name__ == "__main__":
    main()
