"""Steps per second of the one-game doors: the Parallel env and the single Gymnasium env.

Random legal play, episode after episode: ``ghost_euchre_v0.parallel_env()`` (one
``step`` per decision, every agent's observation returned) and
``gymnasium.make("GhostEuchre-v0")`` (the learner's step, the random opponents'
moves inside it), and the same for classic. Issue 67's target: at least 5x the
steps/s before the compiled core; run this script on both trees, same hour
(``PYTHONPATH=<old tree> python benchmarks/door_throughput.py``).

Usage: ``python benchmarks/door_throughput.py [--seconds 3]``.
"""

import argparse
import time

import gymnasium
import numpy as np

import ghost_euchre_env  # noqa: F401 (registers the Gymnasium ids)
from ghost_euchre_env import classic_euchre_v0, ghost_euchre_v0


def parallel_rate(module, seconds, seed=0):
    env = module.parallel_env()
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if not env.agents:
            observations, _ = env.reset()
        actions = {}
        for agent, ob in observations.items():
            legal = np.flatnonzero(ob["action_mask"])
            actions[agent] = int(legal[rng.integers(len(legal))]) if len(legal) else 0
        observations, *_ = env.step(actions)
        steps += 1
    return steps / (time.perf_counter() - start)


def gym_rate(env_id, seconds, seed=0):
    env = gymnasium.make(env_id)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        masks = env.unwrapped.action_masks()  # pyright: ignore[reportAttributeAccessIssue] (our envs')
        legal = np.flatnonzero(masks)
        _, _, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()
    for name, rate in (
        ("ghost_euchre_v0.parallel_env", parallel_rate(ghost_euchre_v0, args.seconds)),
        ("classic_euchre_v0.parallel_env", parallel_rate(classic_euchre_v0, args.seconds)),
        ("GhostEuchre-v0 (single Gymnasium env)", gym_rate("GhostEuchre-v0", args.seconds)),
        ("ClassicEuchre-v0 (single Gymnasium env)", gym_rate("ClassicEuchre-v0", args.seconds)),
    ):
        print(f"{name:42s} {rate:10,.0f} steps/s")


if __name__ == "__main__":
    main()
