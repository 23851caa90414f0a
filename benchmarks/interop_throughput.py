"""Tianshou throughput: ghost_euchre_v0 against PettingZoo's tictactoe_v3, both through Tianshou.

Each env runs as Tianshou's ``PettingZooEnv`` in a ``DummyVectorEnv`` of ``--envs``
copies, every seat played by ``MARLRandomDiscreteMaskedOffPolicyAlgorithm``, and a
``Collector`` filling a ``VectorReplayBuffer``: random collection, as a user's first
run would do it. ghost_euchre_v0 plays single deals (``episode="deal"``, the
recommended setting for learning). A step is one ``env.step`` (one decision).

Where the time goes: in the same rounds each env is also played bare, with the two
calls Tianshou's wrapper makes per step (``step(action)``, then ``last()``) and a
random legal action, so the bare loop's time per step is the env's share and the
rest of Tianshou's time per step is the library's own overhead (wrapper, Batch,
policy, buffer, collector). ``--profile`` adds a cProfile of one ghost collection:
own time by package and the functions with the most own time.

The envs take turns, tictactoe first, so that a change of machine load hits both
alike; figures are medians over ``--rounds`` of the rates and of the per-round
ratio. Run from the repository root: ``python -m benchmarks.interop_throughput``
(needs ``pip install -e .[interop]``).
"""

# The interop extra is optional (without it these tests skip): a missing import is a warning.
# pyright: reportMissingImports=warning

import argparse
import cProfile
import pstats
import time
import warnings

import numpy as np
import pettingzoo
from tianshou.algorithm.algorithm_base import OffPolicyAlgorithm
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.data.stats import log as stats_log
from tianshou.env import DummyVectorEnv, PettingZooEnv

from ghost_euchre_env import ghost_euchre_v0

ENVS = {
    "tictactoe_v3": lambda: pettingzoo.make("aec", "classic/tictactoe-v3"),
    "ghost_euchre_v0": lambda: ghost_euchre_v0.env(episode="deal"),
}
PACKAGES = ("tianshou", "ghost_euchre_env", "pettingzoo", "numpy", "torch")


class TianshouRandomCollection:
    """Random masked play of every seat of one env through Tianshou's Collector."""

    def __init__(self, make_env, num_envs, seed):
        env = PettingZooEnv(make_env())
        seats: list[OffPolicyAlgorithm] = [
            MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
            for _ in env.agents
        ]
        algorithm = MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)
        envs = DummyVectorEnv([lambda: PettingZooEnv(make_env()) for _ in range(num_envs)])
        envs.seed(seed)
        self.collector = Collector[CollectStats](
            algorithm, envs, VectorReplayBuffer(100_000, num_envs), exploration_noise=True
        )
        self.collector.reset()

    def run(self, steps):
        """Collect ``steps`` steps; (steps collected, seconds)."""
        start = time.perf_counter()
        stats = self.collector.collect(n_step=steps)
        return stats.n_collected_steps, time.perf_counter() - start


class BareRandomPlay:
    """The env alone: ``step`` then ``last`` per decision, as Tianshou's wrapper calls them."""

    def __init__(self, make_env, seed):
        self.env = make_env()
        self.rng = np.random.default_rng(seed)
        self.env.reset(seed=seed)
        self.obs = self.env.last()[0]

    def run(self, steps):
        """Play ``steps`` decisions; (steps, seconds)."""
        env, rng, obs = self.env, self.rng, self.obs
        start = time.perf_counter()
        for _ in range(steps):
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.reset()
                obs = env.last()[0]
        self.obs = obs
        return steps, time.perf_counter() - start


def measure(rounds, steps, num_envs):
    """{env name: {"tianshou": [steps/s per round], "bare": [...]}}, envs taking turns."""
    runners = {
        name: {
            "tianshou": TianshouRandomCollection(make_env, num_envs, seed=0),
            "bare": BareRandomPlay(make_env, seed=0),
        }
        for name, make_env in ENVS.items()
    }
    for pair in runners.values():  # warm-up: first calls, caches
        for runner in pair.values():
            runner.run(steps // 10)
    rates = {name: {"tianshou": [], "bare": []} for name in ENVS}
    for _ in range(rounds):
        for name, pair in runners.items():
            for kind, runner in pair.items():
                done, seconds = runner.run(steps)
                rates[name][kind].append(done / seconds)
    return rates


def report(rates):
    """Print the table: rates, time per step split into env and library, and the ratio."""
    print(
        f"{'env':<16} {'Tianshou steps/s':>16} {'bare env steps/s':>16} "
        f"{'us/step: all':>13} {'env':>6} {'Tianshou':>9}"
    )
    for name, kinds in rates.items():
        tianshou, bare = np.median(kinds["tianshou"]), np.median(kinds["bare"])
        total_us, env_us = 1e6 / tianshou, 1e6 / bare
        print(
            f"{name:<16} {tianshou:>16,.0f} {bare:>16,.0f} {total_us:>13,.0f} "
            f"{env_us:>6,.0f} {total_us - env_us:>9,.0f}"
        )
    ratio = np.median(
        np.asarray(rates["ghost_euchre_v0"]["tianshou"])
        / np.asarray(rates["tictactoe_v3"]["tianshou"])
    )
    print(
        f"ghost_euchre_v0 / tictactoe_v3 through Tianshou: {ratio:.2f}x (median of per-round ratios)"
    )


def profile(steps, num_envs):
    """cProfile of one ghost collection: own time by package, then the top functions."""
    runner = TianshouRandomCollection(ENVS["ghost_euchre_v0"], num_envs, seed=1)
    runner.run(steps // 10)
    profiler = cProfile.Profile()
    profiler.enable()
    runner.run(steps)
    profiler.disable()
    stats = pstats.Stats(profiler)
    own = {}
    for (path, _line, _name), (_calls, _prim, tottime, _cum, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        package = next((p for p in PACKAGES if f"/{p}/" in path), "python and other")
        own[package] = own.get(package, 0.0) + tottime
    total = sum(own.values())
    print(f"\nown time by package, ghost_euchre_v0 collection of {steps} steps (under cProfile):")
    for package, seconds in sorted(own.items(), key=lambda item: -item[1]):
        print(f"  {package:<18} {seconds / total:6.1%}  {1e6 * seconds / steps:7,.0f} us/step")
    stats.sort_stats("tottime").print_stats(15)


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--steps", type=int, default=2000, help="steps per env per round")
    parser.add_argument("--envs", type=int, default=4, help="envs in each DummyVectorEnv")
    parser.add_argument("--profile", action="store_true", help="add a cProfile of ghost")
    args = parser.parse_args()
    for name, value in (("rounds", args.rounds), ("steps", args.steps), ("envs", args.envs)):
        if value < 1:
            parser.error(f"--{name} must be at least 1, got {value}")
    stats_log.setLevel("ERROR")  # Tianshou warns that per-seat returns are 2-D
    warnings.simplefilter("ignore", DeprecationWarning)
    report(measure(args.rounds, args.steps, args.envs))
    if args.profile:
        profile(args.steps, args.envs)


if __name__ == "__main__":
    main()
