"""What a league adds to the time of the matches it plays: store writes, game records, ratings.

Each round plays the same matches twice, in alternating order: once as plain
``run_match`` calls (no records, nothing stored), once as ``run_league`` into a
SQLite store (games recorded, one transaction per match with its summaries)
followed by its ``leaderboard`` (the fit over every stored match of these
rules). The store is a fresh one, or with ``--store-games N`` one that already
holds a synthetic league of about N games of the same rules (16 players, 560
matches, written once before the rounds by ``leaderboard_scaling.py``), so the
leaderboard ranks those 16 players too. Both paths are warmed up first (a
6-game match, and a 6-game league into a scratch store: imports and first
calls, paid once per process). Time is CPU time of this process and its
children (the work is single-threaded, so on an idle machine it equals wall
time; on a shared one it is the fair figure). Printed: both times per round (CPU
and wall), the leaderboard's CPU time and the wall time run_league spent outside
its matches (store writes, records, player checks), and the median of the
per-round CPU ratios league / plain.

Usage: ``python benchmarks/league_overhead.py [--games 120] [--rounds 5] [--store-games N] [SPEC ...]``
(default players: random, heuristic, the shipped ppo and a class-spec random:
4 players, 4 matches).
"""

import argparse
import os
import statistics
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

from cpu_time import cpu_seconds
from leaderboard_scaling import synthetic_league

from ghost_euchre.arena.league import leaderboard, league_matches, run_league
from ghost_euchre.arena.match import run_match
from ghost_euchre.arena.store import Store

SYNTHETIC_PLAYERS = 16  # 560 matches

DEFAULT_SPECS = (
    "random",
    "heuristic",
    "ppo:ghost_euchre/agents/pretrained/ghost_ppo.pt",
    "ghost_euchre.agents.random_policy:RandomPolicy",
)


def plain_matches(specs, games, seed):
    """(CPU s, wall s) to play every match of the league with run_match alone."""
    cpu, wall = cpu_seconds(), time.perf_counter()
    for players in league_matches(specs):
        run_match(players, games=games, seed=seed)
    return cpu_seconds() - cpu, time.perf_counter() - wall


def league_run(specs, games, seed, path):
    """(CPU s, wall s, CPU s of the leaderboard alone, wall s of run_league outside its matches:
    store writes and records) of run_league into the store at ``path`` plus its leaderboard."""
    cpu, wall = cpu_seconds(), time.perf_counter()
    with Store(path) as store:
        run = run_league(specs, store, games=games, seed=seed)
        board_start = cpu_seconds()
        leaderboard(store)
        board = cpu_seconds() - board_start
    outside = run.total_time_s - run.matches_time_s
    elapsed = cpu_seconds() - cpu, time.perf_counter() - wall, board, outside
    assert len(run.played) == len(league_matches(specs))
    return elapsed


def stored_league(directory, games):
    """The path of a store holding a synthetic league of about ``games`` games ('' if 0)."""
    if not games:
        return ""
    path = os.path.join(directory, "stored.sqlite")
    per_match = max(6, round(games / 560 / 6) * 6)
    start = time.perf_counter()
    with Store(path) as store:
        written, _ = synthetic_league(store, SYNTHETIC_PLAYERS, per_match, seed=1000)
    size = os.path.getsize(path) / 1e6
    print(
        f"store: {written} synthetic games ({size:.0f} MB) in {time.perf_counter() - start:.1f} s"
    )
    return path


def main():
    parser = argparse.ArgumentParser(description=str(__doc__).split("\n\n")[0])
    parser.add_argument("specs", nargs="*", default=list(DEFAULT_SPECS), metavar="SPEC")
    parser.add_argument("--games", type=int, default=120, help="games per match")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--store-games", type=int, default=0, help="games already stored (default 0: a fresh store)"
    )
    args = parser.parse_args()
    print(f"{len(league_matches(args.specs))} matches of {args.games} games: {args.specs}")
    ratios = []
    with tempfile.TemporaryDirectory() as directory:
        # warm-up of both paths (imports, first calls, the store's first file): once per process
        run_match(league_matches(args.specs)[0], games=6, seed=0)
        league_run(args.specs, 6, 0, os.path.join(directory, "warm-up.sqlite"))
        stored = stored_league(directory, args.store_games)
        for round_ in range(args.rounds):
            path = stored or os.path.join(directory, f"fresh{round_}.sqlite")
            if round_ % 2 == 0:
                plain = plain_matches(args.specs, args.games, round_)
                league = league_run(args.specs, args.games, round_, path)
            else:
                league = league_run(args.specs, args.games, round_, path)
                plain = plain_matches(args.specs, args.games, round_)
            ratios.append(league[0] / plain[0])
            print(
                f"round {round_}: plain {plain[0]:.2f} s CPU ({plain[1]:.2f} s wall), "
                f"league {league[0]:.2f} s CPU ({league[1]:.2f} s wall; leaderboard {league[2]:.3f} s, "
                f"outside its matches {league[3]:.3f} s), "
                f"CPU ratio {ratios[-1]:.3f}"
            )
    print(f"median league / plain (CPU): {statistics.median(ratios):.3f} (target <= 1.05)")


if __name__ == "__main__":
    main()
