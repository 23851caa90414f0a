"""Games per second of a pimc match and of a league on 1 worker against N workers, same run.

Each round plays the same pimc match (``run_match``) and the same league
(``run_league`` into a fresh store) once on one worker (this process) and once
on ``--workers`` processes (:mod:`ghost_euchre.plumbing.workers`; their start-up counted), in
alternating order, and checks that both give the same results. Printed per
round: wall seconds, games per second and cores kept busy (CPU time of this
process and its workers over wall time) of each, the speed-up and the ratio of
CPU times (what splitting the batches costs); then the median speed-ups and the
machine's load (``os.getloadavg``) at the start and the end: on a loaded
machine the workers get less than a core each, and "cores busy" shows it.

Usage: ``python benchmarks/parallel_speed.py [--quick] [--workers 2] [--rounds 3]``
The match has 600 games, as pimc's 600-game match on the docs' Search page:
each of 2 workers then steps 300 games at once, where pimc's search costs no
more per decision than in one batch of 600. Below about 300 games a worker,
pimc's fixed cost per step weighs more (a 300-game match, 150 a worker: 0.87
of the CPU efficiency, 1.66x), and worker start-up weighs more (``--quick``:
a 72-game match and 12-game league matches, about a sixth of the time;
about 1.4x the CPU time on 2 workers).
"""

import argparse
import os
import statistics
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

from cpu_time import cpu_seconds

from ghost_euchre.arena.league import league_matches, run_league
from ghost_euchre.arena.match import run_match
from ghost_euchre.arena.store import Store
from ghost_euchre.plumbing.workers import usable_cores

MATCH = ("pimc:samples=16", "heuristic", "heuristic")
LEAGUE = ("random", "heuristic", "pimc:samples=4", "pimc:samples=8", "pimc:samples=16")
RULES = {"target_score": 16}  # the league: shorter games, more matches in the time


def timed(play, games, workers):
    """(wall s, CPU s, results) of play(games, workers)."""
    cpu, start = cpu_seconds(), time.perf_counter()
    results = play(games, workers)
    return time.perf_counter() - start, cpu_seconds() - cpu, results


def timed_match(games, workers):
    """The pimc match's summary without its time."""
    data = run_match(list(MATCH), games=games, seed=0, workers=workers).to_dict()
    data.pop("wall_time_s")
    return data


def timed_league(games, workers):
    """(match keys, final scores of their games) of the league, played into a fresh store."""
    with (
        tempfile.TemporaryDirectory() as directory,
        Store(os.path.join(directory, "league.sqlite")) as store,
    ):
        run_league(list(LEAGUE), store, games=games, seed=0, rules=RULES, workers=workers)
        matches = sorted(store.matches(), key=lambda m: m["match_key"])
        data = store.games([m["id"] for m in matches])
        assert data is not None
        return [m["match_key"] for m in matches], data["final_scores"].tolist()


def main():
    parser = argparse.ArgumentParser(description=str(__doc__).split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="fewer games (see above)")
    args = parser.parse_args()
    match_games, league_games = (72, 12) if args.quick else (600, 36)
    matches = len(league_matches(LEAGUE))
    print(
        f"{usable_cores()} usable cores; load {os.getloadavg()}; match {MATCH} x {match_games} "
        f"games; league {LEAGUE}: {matches} matches x {league_games} games (target 16)"
    )
    speedups = {"match": [], "league": []}
    for round_ in range(args.rounds):
        order = (1, args.workers) if round_ % 2 == 0 else (args.workers, 1)
        for name, play, games in (
            ("match", timed_match, match_games),
            ("league", timed_league, league_games),
        ):
            runs = {w: timed(play, games, w) for w in order}
            assert runs[1][2] == runs[args.workers][2], f"{name}: results differ with workers"
            (serial, serial_cpu, _), (split, split_cpu, _) = runs[1], runs[args.workers]
            speedups[name].append(serial / split)
            played = games * (matches if name == "league" else 1)
            print(
                f"round {round_} {name}: 1 worker {serial:.1f} s ({played / serial:.2f} games/s, "
                f"{serial_cpu / serial:.2f} cores busy), {args.workers} workers {split:.1f} s "
                f"({played / split:.2f} games/s, {split_cpu / split:.2f} cores busy): "
                f"{serial / split:.2f}x, {serial_cpu / split_cpu:.2f} of the CPU time (same results)"
            )
    for name, values in speedups.items():
        print(
            f"median speed-up, {name}: {statistics.median(values):.2f}x "
            f"({', '.join(f'{v:.2f}' for v in values)}; target >= 1.8x on 2 quiet cores)"
        )
    print(f"load at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
