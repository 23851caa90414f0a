"""Leaderboard time against the number of stored games: 10k, 100k and 1M games.

Synthetic Ghost Hand leagues are written through the store's own API
(``Store.add_match`` with ``MatchResult`` objects shaped like real ones: duplicate
seatings, scores to the default target of 32, ~11 deals and a 256-byte action
record per game), then ``ghost_euchre.arena.league.leaderboard`` is timed on them (median of
``--repeats`` calls on an open store, the first call separately). Two ways to
reach a store size:

- **fixed**: one league of 16 players (560 matches) whose matches hold more
  games (18, 180, 1,782 a match): the leaderboard should not move;
- **growing**: complete leagues of 11, 23 and 48 players, 60 games a match (165,
  1,771, 17,296 matches), as when bots keep being added: the cost follows the
  matches.

The peer, in the same run on the same stores: reading the per-game arrays once
(``Store.games`` over every match), the first step of any leaderboard computed
from the games (the one before schema 2 also fitted OpenSkill over them, about
0.5 ms a game). Also printed: each store's write time, size, and the rank
correlation of the fitted mu with the synthetic skills. ``--plot`` writes the
curve as a PNG.

Usage: ``python benchmarks/leaderboard_scaling.py [--quick] [--plot docs/leaderboard_scaling.png]``
(``--quick``: 10k and 100k games only, 3 repeats).
"""

import argparse
import dataclasses
import itertools
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np

from ghost_euchre.arena.league import leaderboard
from ghost_euchre.arena.match import MatchResult, make_game
from ghost_euchre.arena.seatings import seatings
from ghost_euchre.arena.stats import BETA
from ghost_euchre.arena.store import Store, match_key, player_identity
from ghost_euchre.plumbing.files import write_atomic

RECORD_BYTES = 256  # a recorded game's actions (the documentation's league: 253 bytes on average)
SIZES = {"fixed": [(16, 18), (16, 180), (16, 1782)], "growing": [(11, 60), (23, 60), (48, 60)]}


def synthetic_match(players, skills, games, seed, rng):
    """A MatchResult of ``players`` (specs) with finishing orders drawn from a Plackett-Luce
    model of ``skills`` (mu points, one per player), shaped as run_match's."""
    rules = dataclasses.asdict(make_game("ghost", "game", None).rules)
    sequence, seat_player = seatings("ghost", games)
    total = len(sequence)
    rows = np.arange(total)[:, None]
    performance = skills[seat_player] / (BETA * np.sqrt(3)) + rng.gumbel(size=(total, 3))
    place = (-performance).argsort(axis=1).argsort(axis=1)  # 0 = first, by seat
    target = rules["target_score"]
    top = target + rng.integers(0, 12, total)
    others = np.sort(rng.integers(-6, target, (total, 2)), axis=1)[:, ::-1]  # ties happen
    scores = np.where(place == 0, top[:, None], others[rows, np.maximum(place - 1, 0)])
    deals = rng.integers(8, 16, total)
    names = [{"name": p, "spec": p, "games": total, "rating": None} for p in players]
    keys = rng.integers(0, 2**63, total // 6, dtype=np.uint64).repeat(6)
    record = rng.bytes(total * RECORD_BYTES)
    return MatchResult(
        variant="ghost",
        episode="game",
        rules=rules,
        seed=seed,
        players=names,
        sequence=sequence,
        seat_player=seat_player,
        keys=keys,
        final_scores=scores,
        winner_seat=place.argmin(axis=1),
        truncated=np.zeros(total, bool),
        deals=int(deals.sum()),
        redeals=0,
        decisions=int(deals.sum()) * 22,
        wall_time_s=0.0,
        game_points=scores,
        game_deals=deals,
        actions=[record[g * RECORD_BYTES : (g + 1) * RECORD_BYTES] for g in range(total)],
    )


def synthetic_league(store, num_players, games, seed=0):
    """Write every 3-player match of ``num_players`` synthetic players (``bench:P000`` ...,
    skills spread over 15..35), ``games`` games each; returns (games written, skills)."""
    rng = np.random.default_rng(seed)
    specs = [f"bench:P{k:03d}" for k in range(num_players)]
    skills = np.linspace(35.0, 15.0, num_players)
    ids = {spec: store.player_id(player_identity(spec)) for spec in specs}
    written = 0
    for trio in itertools.combinations(range(num_players), 3):
        players = [specs[k] for k in trio]
        result = synthetic_match(players, skills[list(trio)], games, seed, rng)
        identities = [player_identity(p) for p in players]
        key = match_key("ghost", "game", result.rules, seed, len(result.sequence), identities)
        store.add_match(result, key, [ids[p] for p in players], version="synthetic")
        written += len(result.sequence)
    return written, dict(zip(specs, skills, strict=True))


def timed(function, repeats):
    """(first call's seconds, median of the next ``repeats`` calls' seconds, the result)."""
    start = time.perf_counter()
    result = function()
    first, times = time.perf_counter() - start, []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return first, statistics.median(times), result


def rank_correlation(a, b):
    """Spearman's rank correlation of two equal-length sequences (no ties)."""
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


def measure(directory, way, num_players, games, repeats):
    """One store: write it, time the leaderboard and the peer; returns a dict of figures."""
    path = os.path.join(directory, f"{way}_{num_players}_{games}.sqlite")
    start = time.perf_counter()
    with Store(path) as store:
        written, skills = synthetic_league(store, num_players, games)
    write_s = time.perf_counter() - start
    with Store(path) as store:
        first, median, board = timed(lambda: leaderboard(store), repeats)
        ids = [m["id"] for m in store.matches()]
        peer_start = time.perf_counter()
        store.games(ids)
        peer_s = time.perf_counter() - peer_start
    fitted = [p["mu"] for p in board.players]
    truth = [skills[p["spec"]] for p in board.players]
    figures = {
        "way": way,
        "players": num_players,
        "matches": board.matches,
        "games": written,
        "store_mb": round(os.path.getsize(path) / 1e6, 1),
        "write_s": round(write_s, 2),
        "leaderboard_first_s": round(first, 4),
        "leaderboard_s": round(median, 4),
        "read_games_s": round(peer_s, 3),
        "rank_correlation": round(rank_correlation(fitted, truth), 4),
    }
    os.remove(path)
    return figures


def plot(rows, path, load):
    """The curve: leaderboard seconds (and the peer's) against stored games, log-log."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.5, 4.5))
    axes = figure.add_subplot()
    for way, style in (("fixed", "o-"), ("growing", "s-")):
        mine = [r for r in rows if r["way"] == way]
        games = [r["games"] for r in mine]
        axes.plot(games, [r["leaderboard_s"] for r in mine], style, label=f"leaderboard, {way}")
        axes.plot(
            games, [r["read_games_s"] for r in mine], style, alpha=0.4, label=f"read games, {way}"
        )
    axes.axhline(1.0, color="gray", linestyle="--", label="1 s")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("stored games")
    axes.set_ylabel("seconds")
    axes.set_title(
        f"ghost_euchre.arena.league.leaderboard (fixed: 16 players; growing: 60 games a match)\n{load}"
    )
    axes.grid(alpha=0.3, which="both")
    axes.legend(fontsize=8)
    figure.tight_layout()
    write_atomic(path, lambda f: figure.savefig(f, format="png", dpi=100), binary=True)


def main():
    parser = argparse.ArgumentParser(description=str(__doc__).split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10k and 100k games, 3 repeats")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--plot", default=None, metavar="PNG")
    parser.add_argument("--json", default=None, metavar="FILE")
    parser.add_argument(
        "--dir", default=None, help="where the stores are written (default: a temp dir)"
    )
    args = parser.parse_args()
    repeats = 3 if args.quick else args.repeats
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    print(f"uptime: {load}")
    rows = []
    with tempfile.TemporaryDirectory(dir=args.dir) as directory:
        for way, sizes in SIZES.items():
            for num_players, games in sizes[:2] if args.quick else sizes:
                rows.append(measure(directory, way, num_players, games, repeats))
                print(json.dumps(rows[-1]), flush=True)
    load_after = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout
    print(f"uptime: {load_after.strip()}")
    header = ["way", "players", "matches", "games", "store_mb", "write_s"]
    header += ["leaderboard_first_s", "leaderboard_s", "read_games_s", "rank_correlation"]
    print("  ".join(header))
    for r in rows:
        print("  ".join(str(r[h]) for h in header))
    if args.plot:
        plot(rows, args.plot, "load " + load.split("load average:")[-1].strip())
        print(f"wrote {args.plot}")
    if args.json:
        data = {"uptime": [load, load_after.strip()], "rows": rows}
        write_atomic(args.json, lambda f: f.write(json.dumps(data, indent=2) + "\n"))


if __name__ == "__main__":
    main()
