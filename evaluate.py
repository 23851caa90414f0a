"""Fair tournaments between policies: duplicate deals, batched play, ratings.

Usage::

    python evaluate.py SPEC SPEC SPEC [--variant ghost|classic] [--games N] [--seed S]
                       [--episode game|deal] [--rule KEY=VALUE ...] [--num-envs N]
                       [--json FILE] [--csv FILE] [--plot FILE] [--quiet]
                       [--card-play SPEC] [--bid-regret N [--regret-worlds W]]
    python evaluate.py human heuristic heuristic      # play at the terminal
    python evaluate.py serve [--db FILE] [--port 8000] [--host 127.0.0.1]   # the web page

One SPEC per seat (3 for ghost, 4 for classic; see ``agents.specs``). Each SPEC is
a *player*; the same spec given twice is two players (``random``, ``random#2``).
``--games`` is the total number of games, rounded up to whole deal sequences
(every seating of the players on the same cards: 6 for ghost, 4 for classic).

``--card-play SPEC`` makes it a *bidding match*: every seat's card play is
made by SPEC and each player's own policy makes only its auction and trump
decisions; a bidding table follows (contracts by level, points per contract,
points per deal and its difference to each other player, paired by deal
sequence). ``--bid-regret N`` adds each player's bid regret over N sampled
auction decisions against a rollout oracle (:mod:`arena.regret`; the rest of
each deal played by the card-play policy, ``heuristic`` without --card-play).

This file is the command line only: matches, what counts and the JSON schema
are in :mod:`arena.match`, intervals and ratings in :mod:`arena.stats`, the
table and files in :mod:`arena.report`.
"""

import argparse
import sys

from agents.human import HumanQuit
from agents.specs import parse_value, split_spec
from arena.bidding import bidding_table, run_bidding_match
from arena.files import check_writable
from arena.match import EPISODES, VARIANTS, play_interactive, run_match
from arena.report import match_table, write_csv, write_json, write_plot
from ghost_euchre_env.core import check_int


# -------------------------------------------------------------------------- CLI
def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=str(__doc__).split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("players", nargs="+", metavar="SPEC", help="one policy spec per seat")
    parser.add_argument("--variant", choices=VARIANTS, default="ghost")
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="total games, rounded up to whole deal sequences (default 300; 1 with a human)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--episode", choices=EPISODES, default="game", help="full games (default) or single deals"
    )
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="rules option of the engine, e.g. --rule auction=open (repeatable)",
    )
    parser.add_argument(
        "--num-envs", type=int, default=None, help="most games stepped at once (default: all)"
    )
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
    parser.add_argument("--csv", metavar="FILE", help="write one CSV row per player")
    parser.add_argument(
        "--plot", metavar="FILE", help="write a PNG of the win rates with 95%% intervals"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--card-play",
        metavar="SPEC",
        help="bidding match: SPEC plays every seat's cards, each player only bids (ghost)",
    )
    parser.add_argument(
        "--bid-regret",
        type=int,
        default=0,
        metavar="N",
        help="bid regret of each player over N sampled auction decisions (ghost)",
    )
    parser.add_argument(
        "--regret-worlds", type=int, default=32, metavar="W", help="worlds per regret decision"
    )
    return parser.parse_args(argv)


def _parse_rules(items):
    rules = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--rule {item!r}: expected KEY=VALUE, e.g. auction=open")
        rules[key.strip()] = parse_value(value.strip())
    return rules


def serve_main(argv):
    """``serve``: run the local web page (arena.web) until Ctrl-C."""
    parser = argparse.ArgumentParser(
        prog="evaluate.py serve",
        description="The local web page: play against the bots, watch recorded games, "
        "see the leaderboard.",
    )
    parser.add_argument("--db", metavar="FILE", help="the league's SQLite store")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: this machine only)"
    )
    args = parser.parse_args(argv)
    from arena.web import serve

    serve(args.db, args.host, args.port)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["serve"]:
        return serve_main(argv[1:])
    args = parse_args(argv)
    requested = (
        ("--json", args.json, write_json),
        ("--csv", args.csv, write_csv),
        ("--plot", args.plot, write_plot),
    )
    outputs = [(flag, path, write) for flag, path, write in requested if path]
    try:
        rules = _parse_rules(args.rule)
        for flag, path, _ in outputs:  # before playing, so a bad path loses no results
            check_writable(path, flag)
        if any(split_spec(spec)[0] == "human" for spec in args.players):
            try:
                play_interactive(
                    args.players,
                    args.variant,
                    1 if args.games is None else args.games,
                    args.seed,
                    args.episode,
                    rules,
                )
            except HumanQuit:
                print("\nGame abandoned.")
            return 0
        games = 300 if args.games is None else args.games
        bidding = args.card_play is not None or args.bid_regret != 0
        regrets = None
        if bidding:
            if args.variant != "ghost":
                raise ValueError("--card-play and --bid-regret are for --variant ghost")
            check_int("--bid-regret", args.bid_regret, 0)
            check_int("--regret-worlds", args.regret_worlds, 1)
            result, regrets = run_bidding_match(
                args.players, args.card_play, args.bid_regret, args.regret_worlds, games,
                args.seed, args.episode, rules, args.num_envs, progress=not args.quiet,
            )  # fmt: skip
        else:
            result = run_match(
                args.players,
                args.variant,
                games,
                args.seed,
                args.episode,
                rules,
                args.num_envs,
                progress=not args.quiet,
            )
    except ValueError as error:
        print(f"evaluate.py: error: {error}", file=sys.stderr)
        return 2
    print(match_table(result))
    if bidding:
        print(bidding_table(result, regrets))
    for _, path, write in outputs:
        write(result, path)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
