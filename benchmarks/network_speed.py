"""Decisions per CPU second of a network bot (``ppo:ghost`` by default) at one game and batched.

Positions are the decisions met in heuristic self-play deals (every phase). Usage::

    python benchmarks/network_speed.py [--spec ppo:ghost] [--variant ghost] [--batches 1 4096]
                                       [--seconds 2] [--rounds 3]

For each batch size, ``act`` is called on consecutive slices of the positions
for about ``--seconds`` of CPU time, ``--rounds`` times; prints the best round's
decisions per CPU second (process time: other jobs on a shared machine do not
inflate it). Compare two trees by running it in each with ``PYTHONPATH`` at the
tree, in turn, in one session (docs/speed.md).
"""

import argparse
import time

from pimc_speed import collect_positions  # a script beside this one: its positions

from ghost_euchre.agents.specs import make_policy
from ghost_euchre_env import variants


def decisions_per_second(policy, obs, mask, batch, seconds):
    """Decisions per CPU second of ``policy.act`` on slices of ``batch`` positions."""
    done, start, row = 0, time.process_time(), 0
    while time.process_time() - start < seconds:
        if row + batch > len(obs):
            row = 0
        policy.act(obs[row : row + batch], mask[row : row + batch])
        row += batch
        done += batch
    return done / (time.process_time() - start)


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--spec", default="ppo:ghost")
    parser.add_argument("--variant", default="ghost", choices=variants.available())
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 4096])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    game = variants.make(args.variant).make_game()
    policy = make_policy(args.spec, game, seed=0)
    obs, mask = collect_positions(args.variant, max(8192, 2 * max(args.batches)), seed=0)
    policy.act(obs[:2], mask[:2])  # the first call's compile or load, not timed
    for batch in args.batches:
        best = max(
            decisions_per_second(policy, obs, mask, batch, args.seconds) for _ in range(args.rounds)
        )
        print(f"{args.spec} batch {batch}: {best:,.0f} decisions per CPU second")


if __name__ == "__main__":
    main()
