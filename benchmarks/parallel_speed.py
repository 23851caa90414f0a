"""Games per second of a pimc match and of a league on 1 worker against N workers, same run.

Each round plays the same pimc match (``run_match``) and the same league
(``run_league`` into a fresh store) once on one worker (this process) and once
on ``--workers`` processes (:mod:`arena.parallel`; their start-up counted), in
alternating order, and checks that both give the same results. Printed per
round: wall seconds and games per second of each, and the speed-up; then the
median speed-ups and the machine's load (``os.getloadavg``) at the start and
the end, since a loaded machine gives the workers less than a core each.

Usage: ``python benchmarks/parallel_speed.py [--quick] [--workers 2] [--rounds 3]``
(``--quick``: fewer games, about a third of the time; the speed-up shrinks as
worker start-up weighs more).
"""

import argparse
import os
import statistics
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

from arena.league import league_matches, run_league
from arena.match import run_match
from arena.parallel import usable_cores
from arena.store import Store

MATCH = ("pimc:samples=16", "heuristic", "heuristic")
LEAGUE = ("random", "heuristic", "pimc:samples=4", "pimc:samples=8", "pimc:samples=16")
RULES = {"target_score": 16}  # the league: shorter games, more matches in the time


def timed_match(games, workers):
    """(wall s, MatchResult summary without its time) of the pimc match."""
    start = time.perf_counter()
    result = run_match(list(MATCH), games=games, seed=0, workers=workers)
    data = result.to_dict()
    data.pop("wall_time_s")
    return time.perf_counter() - start, data


def timed_league(games, workers):
    """(wall s, stored games by match) of the league into a fresh store."""
    with tempfile.TemporaryDirectory() as directory:
        start = time.perf_counter()
        with Store(os.path.join(directory, "league.sqlite")) as store:
            run_league(list(LEAGUE), store, games=games, seed=0, rules=RULES, workers=workers)
            wall = time.perf_counter() - start
            games_by_match = {
                m["match_key"]: store.games([m["id"]])["final_scores"].tolist()
                for m in store.matches()
            }
    return wall, games_by_match


def main():
    parser = argparse.ArgumentParser(description=str(__doc__).split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="fewer games (see above)")
    args = parser.parse_args()
    match_games, league_games = (24, 12) if args.quick else (72, 36)
    matches = len(league_matches(LEAGUE))
    print(
        f"{usable_cores()} usable cores; load {os.getloadavg()}; match {MATCH} x {match_games} "
        f"games; league {LEAGUE}: {matches} matches x {league_games} games (target 16)"
    )
    speedups = {"match": [], "league": []}
    for round_ in range(args.rounds):
        order = (1, args.workers) if round_ % 2 == 0 else (args.workers, 1)
        for name, timed, games in (
            ("match", timed_match, match_games),
            ("league", timed_league, league_games * matches),
        ):
            runs = {w: timed(games if name == "match" else league_games, w) for w in order}
            assert runs[1][1] == runs[args.workers][1], f"{name}: results differ with workers"
            serial, split = runs[1][0], runs[args.workers][0]
            speedups[name].append(serial / split)
            print(
                f"round {round_} {name}: 1 worker {serial:.1f} s ({games / serial:.2f} games/s), "
                f"{args.workers} workers {split:.1f} s ({games / split:.2f} games/s): "
                f"{serial / split:.2f}x (same results)"
            )
    for name, values in speedups.items():
        print(
            f"median speed-up, {name}: {statistics.median(values):.2f}x "
            f"({', '.join(f'{v:.2f}' for v in values)}; target >= 1.8x on 2 quiet cores)"
        )
    print(f"load at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
