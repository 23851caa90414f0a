"""Time per decision of a search bot (``pimc``, or ``--bot SPEC``), one decision at a time and batched.

Positions are the decisions met in heuristic self-play deals (every phase, in
the proportions a game produces them, forced moves included: the bot answers
those without search). Usage::

    python benchmarks/pimc_speed.py [--variant ghost|classic] [--samples 64] [--positions 200]
                                    [--batch 64] [--seed 0] [--rollout SPEC] [--compare SPEC]
                                    [--bot SPEC]

Prints the mean, median and 95th percentile milliseconds per decision when each
decision is its own ``act`` call (wall clock, and the process's CPU time, which
other jobs on a shared machine do not inflate), the mean by phase, and the mean
per decision when ``--batch`` decisions share one call (as in a vector
evaluation). Run ``--variant ghost`` in the same session as the peer.
``--rollout SPEC`` is pimc's playout policy (default heuristic, e.g. ppo:PATH);
``--compare SPEC`` also times that policy on the same positions and prints how
many times faster than pimc it decides (CPU time per decision, one per call).
``--bot SPEC`` times that spec instead of pimc (e.g. ``search:samples=64,infer=network``;
``--samples`` and ``--rollout`` are then ignored).
"""

import argparse
import time

import numpy as np

from ghost_euchre.agents.pimc import PIMCPolicy
from ghost_euchre.agents.specs import make_policy
from ghost_euchre_env import variants


def collect_positions(variant, count, seed):
    """(obs float32[count, D], mask bool[count, A]) from heuristic self-play deals."""
    venv = variants.make(variant).vector_env(16, seed=seed, episode="deal")
    heuristic = make_policy("heuristic", venv.game, seed=seed)
    obs, mask, _ = venv.reset()
    seen_obs, seen_mask = [], []
    while sum(len(o) for o in seen_obs) < count:
        seen_obs.append(obs)
        seen_mask.append(mask)
        obs, mask, _, _, _ = venv.step(heuristic.act(obs, mask))
    return np.concatenate(seen_obs)[:count], np.concatenate(seen_mask)[:count]


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--variant", choices=sorted(variants.available()), default="ghost")
    parser.add_argument("--samples", type=int, default=64, help="worlds per decision")
    parser.add_argument("--positions", type=int, default=200, help="decisions timed")
    parser.add_argument(
        "--batch", type=int, default=64, help="decisions per act() call in the batched timing"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rollout", default="heuristic", help="pimc's playout policy spec")
    parser.add_argument("--compare", help="a policy spec timed on the same positions")
    parser.add_argument(
        "--bot", help="the searcher's spec, instead of pimc:samples=...,rollout=..."
    )
    args = parser.parse_args()

    variant = variants.make(args.variant)
    obs, mask = collect_positions(args.variant, args.positions, args.seed)
    phase = variant.view(obs).phase
    game = variant.make_game("deal")
    if args.bot:
        policy = make_policy(args.bot, game, seed=args.seed)
    else:
        policy = PIMCPolicy(
            game, seed=args.seed, samples=args.samples, rollout=args.rollout, build=make_policy
        )
    single, cpu, batched = time_policy(policy, obs, mask, args.batch)
    print(f"{policy.name} {args.variant}, {len(obs)} decisions from heuristic self-play")
    print(
        f"one decision per call: mean {single.mean():.1f} ms, median {np.median(single):.1f} ms, "
        f"95th percentile {np.percentile(single, 95):.1f} ms; CPU time {cpu:.1f} ms per decision"
    )
    for code, name in enumerate(variant.phases):
        rows = phase == code
        if rows.any():
            print(f"  {name:8s} {rows.sum():4d} decisions, mean {single[rows].mean():.1f} ms")

    print(f"{args.batch} decisions per call: mean {batched:.1f} ms per decision")
    if args.compare:
        other = make_policy(args.compare, game, seed=args.seed)
        other_single, other_cpu, other_batched = time_policy(other, obs, mask, args.batch)
        print(
            f"{other.name}: one decision per call mean {other_single.mean():.3f} ms, CPU time "
            f"{other_cpu:.3f} ms per decision ({cpu / other_cpu:.0f}x less than {policy.name}); "
            f"{args.batch} per call {other_batched:.4f} ms per decision"
        )


def time_policy(policy, obs, mask, batch):
    """(float64[N] wall ms of each decision as its own act call, CPU ms per decision of those calls,
    mean wall ms per decision with ``batch`` decisions per call)."""
    policy.act(obs[:1], mask[:1])  # warm-up
    single = np.empty(len(obs))
    cpu_begin = time.process_time()
    for i in range(len(obs)):
        begin = time.perf_counter()
        policy.act(obs[i : i + 1], mask[i : i + 1])
        single[i] = time.perf_counter() - begin
    cpu = (time.process_time() - cpu_begin) * 1e3 / len(obs)
    begin = time.perf_counter()
    for first in range(0, len(obs), batch):
        policy.act(obs[first : first + batch], mask[first : first + batch])
    return single * 1e3, cpu, (time.perf_counter() - begin) * 1e3 / len(obs)


if __name__ == "__main__":
    main()
