"""What the all-or-nothing step costs the Gymnasium views: ``step`` against the same step unguarded.

``GhostEuchre-v0`` and ``GhostEuchreBidding-v0`` snapshot the AEC env before
each step and reset (:meth:`GhostEuchreGymEnv.all_or_nothing`), so that an
opponent or card-play policy failing after the learner's action leaves the env
as it was. The peer, in the same run and on the same episodes: the same env
stepped through its unguarded ``_step`` (what ``step`` was before). Random
legal learner actions, the default opponents; rates per CPU second of this
process, alternating the two ways in rounds so that a loaded machine slows both.

Usage: ``python benchmarks/gym_rollback_overhead.py [--steps 3000] [--rounds 3] [--quick]``
"""

import argparse
import time

import numpy as np

from ghost_euchre_env.gym_bidding import GhostEuchreBiddingGymEnv
from ghost_euchre_env.gym_env import GhostEuchreGymEnv


def steps_per_cpu_second(env, step, steps):
    """Learner steps per CPU second over ``steps`` steps (resets not counted), seed 0."""
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    start = time.process_time()
    for _ in range(steps):
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, truncated, _ = step(int(legal[rng.integers(len(legal))]))
        if terminated or truncated:
            env.reset()
    return steps / (time.process_time() - start)


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--steps", type=int, default=3000, help="learner steps per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (median shown)")
    parser.add_argument("--quick", action="store_true", help="300 steps, 1 round")
    args = parser.parse_args()
    steps, rounds = (300, 1) if args.quick else (args.steps, args.rounds)
    for name, make in (
        ("GhostEuchre-v0", GhostEuchreGymEnv),
        ("GhostEuchreBidding-v0", GhostEuchreBiddingGymEnv),
    ):
        guarded, bare = [], []
        for _ in range(rounds):
            env = make()
            guarded.append(steps_per_cpu_second(env, env.step, steps))
            env = make()
            bare.append(steps_per_cpu_second(env, env._step, steps))  # the peer
        g, b = float(np.median(guarded)), float(np.median(bare))
        print(f"{name:22s} step {g:8,.0f}/CPU s, unguarded {b:8,.0f}/CPU s: ratio {g / b:.3f}")


if __name__ == "__main__":
    main()
