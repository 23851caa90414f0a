"""Parallel env throughput: ``parallel_env()`` against the AEC ``env()`` of the same game, same run.

Both play uniform random legal actions, episode after episode: the AEC env through the
standard ``agent_iter()`` / ``last()`` / ``step()`` loop (dead steps included, as the loop
requires), the Parallel env through ``step({agent on move: action})``, every agent's
observation returned at every step. The two take turns in short rounds so that a change of
machine load hits them alike; "decisions" counts the steps with an action (one per Parallel
step). Target: the Parallel env no slower per decision than the AEC env (ratio >= 1.0).

Run from the repository root: ``python -m benchmarks.parallel_env_throughput``.
"""

import argparse
import time

import numpy as np

from benchmarks.aec_throughput import RandomPlay
from ghost_euchre_env import classic_euchre_v0, ghost_euchre_v0


class ParallelRandomPlay:
    """Uniform random legal play of one Parallel env, resumable across rounds."""

    def __init__(self, env, seed):
        self.env = env
        self.rng = np.random.default_rng(seed)
        self.steps = self.decisions = self.episodes = 0
        self.seconds = 0.0
        self.observations, self.infos = env.reset(seed=seed)

    def run(self, seconds):
        env, rng = self.env, self.rng
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            if not env.agents:
                self.episodes += 1
                self.observations, self.infos = env.reset()
            mover = next(agent for agent in env.agents if self.infos[agent]["on_move"])
            legal = np.flatnonzero(self.observations[mover]["action_mask"])
            action = int(legal[rng.integers(len(legal))])
            self.observations, _, _, _, self.infos = env.step({mover: action})
            self.steps += 1
            self.decisions += 1
        self.seconds += time.perf_counter() - start

    def line(self, name):
        return (
            f"{name:36s} {self.steps / self.seconds:8.0f} steps/s {self.decisions / self.seconds:8.0f} "
            f"decisions/s  ({self.steps} steps, {self.episodes} episodes ended, {self.seconds:.1f} s)"
        )


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds; each env plays once a round")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per env per round")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    pairs = {}
    for module in (ghost_euchre_v0, classic_euchre_v0):
        for episode in ("game", "deal"):
            name = f"{module.__name__.rsplit('.', 1)[-1]} episode={episode!r}"
            pairs[name] = (
                RandomPlay(module.env(episode=episode), args.seed),
                ParallelRandomPlay(module.parallel_env(episode=episode), args.seed),
            )
    for _ in range(args.rounds):
        for aec, par in pairs.values():
            aec.run(args.seconds)
            par.run(args.seconds)
    for name, (aec, par) in pairs.items():
        print(aec.line(f"{name} AEC"))
        print(par.line(f"{name} Parallel"))
        ratio = (par.decisions / par.seconds) / (aec.decisions / aec.seconds)
        print(f"{name}: Parallel {ratio:.2f}x the AEC env's decisions/s; target >= 1.0x")


if __name__ == "__main__":
    main()
