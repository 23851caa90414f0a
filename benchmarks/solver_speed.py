"""Time of the exact solver (``ghost_euchre_env.solver.solve``): a whole deal, and every point of one.

Deals are dealt from fixed keys, their auction played at random (a random
contract and trump; a thrown-in deal is dealt again). For each deal the solver
values every legal card of the first lead (the whole deal solved), then the
deal is played out by the solver's own best cards and every later position is
solved too. Also timed: the value of the first lead alone (``solver.position_value``,
one alpha-beta search: what a search values an auction's world by). Usage::

    python benchmarks/solver_speed.py [--deals 200] [--variant ghost classic]
                                      [--concept relative] [--seed 0]

Prints, per variant, the median, 99th percentile and largest milliseconds of a
whole deal (CPU time of the process, which other jobs on a shared machine
inflate less than the wall clock) and the median and 99th percentile by the
number of cards left to play. The first call compiles the kernels (or loads
them from Numba's cache); it is not timed.
"""

import argparse
import time

import numpy as np

from ghost_euchre_env import solver, variants


def first_lead(engine, play_phase, key, rng):
    """A state of one game at the first lead of a deal dealt with ``key`` (random auction)."""
    while True:
        state = engine.init([key])
        while state.player[0] >= 0 and state.phase[0] != play_phase:
            engine.step(state, [rng.choice(np.flatnonzero(engine.legal_mask(state)[0]))])
        if state.player[0] >= 0:
            return state
        key += 1_000_000


def timed_solve(engine, state, concept):
    start = time.process_time()
    values = solver.solve(engine, state, concept=concept)
    return values[0], (time.process_time() - start) * 1e3


def run(variant, deals, concept, seed):
    descriptor = variants.make(variant)
    make, play_phase = descriptor.engine, descriptor.play_phase
    engine = make(episode="deal")
    rng = np.random.default_rng(seed)
    solver.solve(engine, first_lead(engine, play_phase, seed, rng), concept=concept)  # compile
    whole, by_left, position = [], {}, []
    for deal in range(deals):
        state = first_lead(engine, play_phase, seed * 100_003 + deal, rng)
        if concept != "maxn":  # position_value takes the zero-sum concepts
            start = time.process_time()
            solver.position_value(engine, state, concept=concept, seat=int(state.player[0]))
            position.append((time.process_time() - start) * 1e3)
        first = True
        while True:
            left = int(sum(bin(int(h)).count("1") for h in state.hands[0]))
            values, ms = timed_solve(engine, state, concept)
            if first:
                whole.append(ms)
                first = False
            by_left.setdefault(left, []).append(ms)
            card = int(np.argmax(np.where(values == solver.NO_VALUE, -(1 << 30), values)))
            if len(engine.step(state, [card]).deals.game):
                break
    whole = np.array(whole)
    print(
        f"{variant} ({concept}), {deals} deals, whole deal from its first lead: median "
        f"{np.median(whole):.2f} ms, p99 {np.percentile(whole, 99):.2f} ms, "
        f"max {whole.max():.2f} ms"
    )
    if position:
        print(
            f"  the first lead's value alone (position_value): median {np.median(position):.2f} ms,"
            f" p99 {np.percentile(position, 99):.2f} ms"
        )
    print("  by cards held (all seats, sitting-out partners included): median / p99 ms")
    for left in sorted(by_left, reverse=True):
        times = np.array(by_left[left])
        print(
            f"  {left:2d} cards held: {np.median(times):7.3f} / {np.percentile(times, 99):7.3f}"
            f"  ({len(times)} positions)"
        )
    return whole


def main(argv=None):
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    names = variants.available()
    parser.add_argument("--variant", nargs="+", default=list(names), choices=names)
    parser.add_argument("--concept", default="relative", choices=solver.CONCEPTS)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for variant in args.variant:
        run(variant, args.deals, args.concept, args.seed)


if __name__ == "__main__":
    main()
