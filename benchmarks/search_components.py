"""The worth of each part of the ``search`` bot: one match per setting, the same deals for all.

Each SPEC (a ``search:...`` setting, or any policy spec) plays a duplicate match
against the same opponents on the same seed, so the settings are compared on the
same deals. Usage::

    OMP_NUM_THREADS=1 python benchmarks/search_components.py --games 240 --seed 4701 \\
        --json runs/components.json search:infer=none search:infer=network ...

Prints per setting: win rate [95% CI], points a deal (its own, and its opponents' mean), and for a ``search`` bot the mean
effective sample size of its candidate worlds (inference on). Cost per decision is
measured apart, on fixed positions, by ``benchmarks/pimc_speed.py --bot SPEC``.
``--json`` appends one line per setting to FILE (a JSON object), so that settings run in
separate processes land in one file.
"""

import argparse
import json
import time

from ghost_euchre.agents.specs import make_policy
from ghost_euchre.arena.match import run_match
from ghost_euchre_env import variants


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("specs", nargs="+", metavar="SPEC", help="the settings compared")
    parser.add_argument("--variant", choices=sorted(variants.available()), default="ghost")
    parser.add_argument("--opponents", nargs="+", default=None, help="default: heuristics")
    parser.add_argument("--games", type=int, default=240)
    parser.add_argument("--seed", type=int, default=4701)
    parser.add_argument("--json", help="append one JSON line per setting to this file")
    args = parser.parse_args()
    variant = variants.make(args.variant)
    opponents = args.opponents or ["heuristic"] * (variant.num_players - 1)
    game = variant.make_game("game")
    for spec in args.specs:
        bot = make_policy(spec, game, seed=args.seed)
        start = time.perf_counter()
        result = run_match([bot, *opponents], args.variant, args.games, args.seed)
        row, others = result.players[0], result.players[1:]
        record = {
            "spec": spec,
            "opponents": opponents,
            "seed": args.seed,
            "games": row["games"],
            "win_rate": row["win_rate"],
            "ci": row["win_rate_ci95"],
            "points_per_deal": row["mean_points_per_deal"],
            "opponents_points_per_deal": sum(p["mean_points_per_deal"] for p in others)
            / len(others),
            "mean_ess": getattr(bot, "mean_ess", None),
            "wall_s": round(time.perf_counter() - start, 1),
        }
        ess = "" if record["mean_ess"] is None else f", ESS {record['mean_ess']:.1f}"
        low, high = record["ci"]
        print(
            f"{spec}: {record['win_rate']:.1%} [{low:.1%}, {high:.1%}] of {record['games']}, "
            f"{record['points_per_deal']:+.3f} points a deal (opponents "
            f"{record['opponents_points_per_deal']:+.3f}){ess} ({record['wall_s']} s)",
            flush=True,
        )
        if args.json:
            with open(args.json, "a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
