"""Native make_vec against a SyncVectorEnv of single envs: learner steps per second, same run.

Both vector envs play ``GhostEuchre-v0`` (``episode="deal"`` by default) with
the heuristic at both other seats: the native env asks one batched heuristic
per seat and round (``gymnasium.make_vec(..., opponents="heuristic")``), the
``SyncVectorEnv`` (``vectorization_mode="sync"``) asks the same heuristic one
game at a time (``as_callable``). The learner's actions are uniform random
legal ones drawn from the mask (``infos["action_mask"]``), the same draw for
both. The two envs take turns in rounds of ``--seconds`` each, so that a
change of machine load hits them alike; the ratio is of the summed rates.
Target: >= 100x at N = 1024.

Run from the repository root: ``python -m benchmarks.vector_throughput``.
"""

import argparse
import time

import gymnasium
import numpy as np

import ghost_euchre_env  # noqa: F401  (registers the env ids)
from ghost_euchre.agents import make_policy
from ghost_euchre_env import GhostEuchre
from ghost_euchre_env.gym_bidding import as_callable


class Play:
    """Random masked learner steps on one vector env, resumable across rounds."""

    def __init__(self, env, seed):
        self.env = env
        self.rng = np.random.default_rng(seed)
        _, self.info = env.reset(seed=seed)
        self.steps = 0
        self.seconds = 0.0

    def run(self, seconds):
        env, rng = self.env, self.rng
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            mask = self.info["action_mask"]
            actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
            *_, self.info = env.step(actions)
            self.steps += env.num_envs
        self.seconds += time.perf_counter() - start

    def rate(self):
        return self.steps / self.seconds


def measure(num_envs, rounds, seconds, seed, episode):
    """(native steps/s, sync steps/s) at ``num_envs``."""
    native = gymnasium.make_vec("GhostEuchre-v0", num_envs, opponents="heuristic", episode=episode)
    heuristic = as_callable(make_policy("heuristic", GhostEuchre()))
    sync = gymnasium.make_vec(
        "GhostEuchre-v0",
        num_envs,
        vectorization_mode="sync",
        opponents=heuristic,
        episode=episode,
    )
    plays = Play(native, seed), Play(sync, seed)
    for _ in range(rounds):
        for play in plays:
            play.run(seconds)
    return plays[0].rate(), plays[1].rate()


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--num-envs", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0, help="per env per round")
    parser.add_argument("--episode", default="deal", choices=("deal", "game"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"GhostEuchre-v0 episode={args.episode!r}, heuristic opponents, random masked learner")
    print("| N | native make_vec steps/s | SyncVectorEnv steps/s | ratio |")
    print("|---:|---:|---:|---:|")
    for n in args.num_envs:
        native, sync = measure(n, args.rounds, args.seconds, args.seed, args.episode)
        print(f"| {n} | {native:,.0f} | {sync:,.0f} | {native / sync:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
