"""Deals and decisions per second of the auction view, against full heuristic play of the same deals.

The auction view (``GhostBiddingVec``, classic: ``ClassicBiddingVec``; card play
made inside ``step`` by the heuristic) is driven by the heuristic's auction
decisions; its peer is the variant's full vector env (``GhostEuchreVec``,
``ClassicEuchreVec``) with the heuristic making every decision, on the same deals
(same seed, single-deal episodes, the same number of steps' worth of deals).
Both play the same games decision for decision (tests/test_bidding.py and
tests/test_classic_bidding.py check it), so the deals ratio is the cost of the
view itself; decisions per second count the decisions each env asks for (the
view: the auction's only). Each round times the peer
then the view for ``--seconds`` each, from a fresh reset with the round's seed;
the table gives the median rates and the median of the per-round ratios (the
machine is shared: read the ratio). Rates are per second of wall time and per
second of this process's CPU time.

Usage: ``python benchmarks/bidding_throughput.py [--variant ghost|classic] [--batch 4096] [--rounds 5] [--seconds 3]``
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

from ghost_euchre.agents import make_policy
from ghost_euchre_env import variants


def deals_per_second(env, policy, seconds, seed):
    """(deals per wall second, deals per CPU second, decisions per wall second) of ``env`` stepped
    with ``policy`` from reset(seed)."""
    obs, mask, _ = env.reset(seed=seed)
    deals, decisions, start, start_cpu = 0, 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        obs, mask, _, _, _ = env.step(policy.act(obs, mask))
        deals += len(env.last_result.deals.game)
        decisions += len(mask)
    wall, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return deals / wall, deals / cpu, decisions / wall


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--variant", choices=variants.available(), default="ghost")
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per env and round")
    args = parser.parse_args()
    variant = variants.make(args.variant)  # its engine, full vector env and auction view
    engine, full_env, view_env = variant.engine, variant.vector_env, variant.bidding_vec
    heuristic = make_policy("heuristic", engine(), seed=0)
    view = view_env(args.batch, heuristic, episode="deal")
    full = full_env(args.batch, episode="deal")
    rates = {"full": [], "view": [], "full decisions": [], "view decisions": []}
    ratios, cpu_ratios = [], []
    for round_number in range(args.rounds):
        full_wall, full_cpu, full_decisions = deals_per_second(
            full, heuristic, args.seconds, round_number
        )
        view_wall, view_cpu, view_decisions = deals_per_second(
            view, heuristic, args.seconds, round_number
        )
        rates["full"].append(full_wall)
        rates["view"].append(view_wall)
        rates["full decisions"].append(full_decisions)
        rates["view decisions"].append(view_decisions)
        ratios.append(view_wall / full_wall)
        cpu_ratios.append(view_cpu / full_cpu)
        print(
            f"round {round_number + 1}: full play {full_wall:,.0f} deals/s, auction view "
            f"{view_wall:,.0f} deals/s, ratio {ratios[-1]:.2f} (CPU time: {cpu_ratios[-1]:.2f}); "
            f"decisions/s asked: full {full_decisions:,.0f}, view {view_decisions:,.0f}",
            flush=True,
        )
    print(
        f"{args.variant}, batch {args.batch}, median of {args.rounds} rounds: full heuristic play "
        f"{statistics.median(rates['full']):,.0f} deals/s, auction view "
        f"{statistics.median(rates['view']):,.0f} deals/s; ratio {statistics.median(ratios):.2f}x "
        f"(per CPU second {statistics.median(cpu_ratios):.2f}x); decisions asked per second: full "
        f"{statistics.median(rates['full decisions']):,.0f}, auction view "
        f"{statistics.median(rates['view decisions']):,.0f}"
    )


if __name__ == "__main__":
    main()
