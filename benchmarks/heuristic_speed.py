"""Decisions per second of the ``heuristic`` policy, with ``random`` as the peer in the same run.

Observations and masks are recorded from real games (the vector engine played
by the heuristic, after a warm-up so that auctions, trump choices and card play
are mixed as in play), then each policy's ``act`` is timed on those batches.
Only the policy is timed, not the engine. Two rates are printed: per second of
wall time, and per second of this process's CPU time (single-threaded, so the
two agree on an idle machine; on a shared one the CPU rate is the fair figure).

``--batch`` takes several sizes (default 1 and 4096): one game a call shows the fixed cost of a
call (the heuristic is one compiled kernel call, :mod:`ghost_euchre.agents.heuristic`), 4096 the
cost of a game.

Usage: ``python benchmarks/heuristic_speed.py [--variant ghost|classic] [--batch 1 4096] [--seconds 3]``
"""

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

from ghost_euchre.agents import make_policy
from ghost_euchre.arena.match import make_game
from ghost_euchre_env import variants
from ghost_euchre_env.vector import VectorEnv


def record_batches(game, batch, count, warmup=40, seed=0):
    """``count`` (obs, mask) batches of ``batch`` games, from heuristic play after ``warmup`` steps."""
    env = VectorEnv(game, batch, seed)
    player = make_policy("heuristic", game, seed=seed)
    obs, mask, _ = env.reset()
    batches = []
    for step in range(warmup + count):
        if step >= warmup:
            batches.append((obs, mask))
        obs, mask, *_ = env.step(player.act(obs, mask))
    return batches


def decisions_per_second(policy, batches, seconds):
    """(decisions per wall-clock second, decisions per CPU second) of ``policy.act``."""
    decisions, start, start_cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        for obs, mask in batches:
            policy.act(obs, mask)
            decisions += len(obs)
    return decisions / (time.perf_counter() - start), decisions / (time.process_time() - start_cpu)


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--variant", choices=variants.available(), default="ghost")
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 4096], help="games a call")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per policy")
    args = parser.parse_args()
    game = make_game(args.variant)
    for batch in args.batch:
        batches = record_batches(game, batch, count=max(20, 4096 // batch // 8))
        for spec in ("heuristic", "random"):
            wall, cpu = decisions_per_second(make_policy(spec, game, seed=1), batches, args.seconds)
            print(
                f"{args.variant} {spec:9s} batch {batch}: {wall:12,.0f} decisions/s ({cpu:,.0f} per CPU second)"
            )


if __name__ == "__main__":
    main()
