"""What a league adds to the time of the matches it plays: store writes, game records, ratings.

Each round plays the same matches twice, in alternating order: once as plain
``run_match`` calls (no records, nothing stored), once as ``run_league`` into a
fresh SQLite store (games recorded, one transaction per match) followed by its
``leaderboard`` (the OpenSkill fit over all stored games). Printed: both times
per round and the median of the per-round ratios league / plain.

Usage: ``python benchmarks/league_overhead.py [--games 120] [--rounds 3] [SPEC ...]``
(default players: random, heuristic, the shipped ppo and a class-spec random:
4 players, 4 matches).
"""

import argparse
import os
import statistics
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

from arena.league import leaderboard, league_matches, run_league
from arena.match import run_match
from arena.store import Store

DEFAULT_SPECS = (
    "random",
    "heuristic",
    "ppo:agents/pretrained/ghost_ppo.pt",
    "agents.random_policy:RandomPolicy",
)


def plain_matches(specs, games, seed):
    """Seconds to play every match of the league with run_match alone."""
    start = time.perf_counter()
    for players in league_matches(specs):
        run_match(players, games=games, seed=seed)
    return time.perf_counter() - start


def league_run(specs, games, seed):
    """Seconds for run_league into a fresh store plus its leaderboard."""
    with tempfile.TemporaryDirectory() as directory:
        start = time.perf_counter()
        with Store(os.path.join(directory, "league.sqlite")) as store:
            run = run_league(specs, store, games=games, seed=seed)
            leaderboard(store)
        elapsed = time.perf_counter() - start
    assert len(run.played) == len(league_matches(specs))
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=str(__doc__).split("\n\n")[0])
    parser.add_argument("specs", nargs="*", default=list(DEFAULT_SPECS), metavar="SPEC")
    parser.add_argument("--games", type=int, default=120, help="games per match")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{len(league_matches(args.specs))} matches of {args.games} games: {args.specs}")
    ratios = []
    for round_ in range(args.rounds):
        if round_ % 2 == 0:
            plain = plain_matches(args.specs, args.games, round_)
            league = league_run(args.specs, args.games, round_)
        else:
            league = league_run(args.specs, args.games, round_)
            plain = plain_matches(args.specs, args.games, round_)
        ratios.append(league / plain)
        print(f"round {round_}: plain {plain:.2f} s, league {league:.2f} s, ratio {ratios[-1]:.3f}")
    print(f"median league / plain: {statistics.median(ratios):.3f} (target <= 1.10)")


if __name__ == "__main__":
    main()
