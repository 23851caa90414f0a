"""The evaluate command's arguments: one parser per subcommand, errors in one line (usage: --help).

The commands themselves are :mod:`ghost_euchre.arena.cli`.
"""

import argparse

from ghost_euchre.arena.match import EPISODES, VARIANTS
from ghost_euchre.arena.store import DEFAULT_DB
from ghost_euchre.plumbing.cli import OneLineParser
from ghost_euchre.plumbing.commands import command_name, program_name
from ghost_euchre.plumbing.workers import usable_cores

REGRET_WORLDS = 32  # --regret-worlds' default


SUBCOMMANDS_HELP = """subcommands (each with its own --help):
  {prog} replay FILE           replay and check recorded games (a --record file or a store)
  {prog} analyse FILE          every card decision of recorded games against double-dummy play
  {prog} leaderboard [--db F]  print a league store's leaderboard, playing nothing
  {prog} serve                 the local web page: play, watch, the leaderboard
  {prog} exploit SPEC          how exploitable SPEC is: train a best response to it
  {prog} benchmark SPEC        score SPEC on the versioned suite: one report card

A match: {prog} ppo:ghost heuristic heuristic --games 300
A league: {prog} --league ppo:ghost pimc heuristic random --games 300 --db FILE"""


def parse_args(argv=None):
    parser = OneLineParser(
        prog=program_name(),
        description=str(__doc__).split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=SUBCOMMANDS_HELP.format(prog=command_name()),
    )
    parser.add_argument("players", nargs="+", metavar="SPEC", help="one policy spec per seat")
    parser.add_argument("--variant", choices=VARIANTS, default="ghost")
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="total games (per match in a league), rounded up to whole deal sequences "
        "(default 300; 1 with a human)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="deals and players' seed (default 0; with a human: a fresh one)",
    )
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
        "--plot",
        metavar="FILE",
        help="write a PNG of the win rates (league: ratings and head to head)",
    )
    parser.add_argument(
        "--record", metavar="FILE", help="keep every game (key and actions) as JSON, for replay"
    )
    parser.add_argument(
        "--league",
        action="store_true",
        help="a league: every 3-player subset of the SPECs (classic: every pairing of two "
        "teams) plays a match into the store --db, then its leaderboard is printed; matches "
        "already stored are not played again",
    )
    parser.add_argument(
        "--db", metavar="FILE", default=None, help=f"league store (default {DEFAULT_DB})"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--card-play",
        metavar="SPEC",
        help="bidding match: SPEC plays every seat's cards, each player only bids (a league: of composite[PLAYER | SPEC])",
    )
    parser.add_argument(
        "--bid-regret",
        type=int,
        default=0,
        metavar="N",
        help="bid regret of each player over N sampled auction decisions (a league: of each match, stored)",
    )
    parser.add_argument(
        "--regret-worlds",
        type=int,
        default=None,
        metavar="W",
        help=f"worlds per regret decision (with --bid-regret; default {REGRET_WORLDS})",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help=f"processes playing at once (default: the {usable_cores()} usable cores, "
        "or 1 when every player is random, heuristic or a ppo network; 1: this process only)",
    )
    parser.add_argument(
        "--ray",
        metavar="ADDRESS",
        default=None,
        help="play on a Ray cluster: its address, or auto for the one started here "
        "(ray start --head)",
    )
    return parser.parse_args(argv)


def parse_leaderboard_args(argv):
    parser = OneLineParser(
        prog=f"{program_name()} leaderboard",
        description="Print the leaderboard of a league store's matches of one variant and rules, "
        "playing nothing.",
    )
    parser.add_argument(
        "players", nargs="*", metavar="SPEC", help="only these players' rows (default: everyone)"
    )
    parser.add_argument("--db", metavar="FILE", default=DEFAULT_DB, help=f"default {DEFAULT_DB}")
    parser.add_argument("--variant", choices=VARIANTS, default="ghost")
    parser.add_argument("--episode", choices=EPISODES, default="game")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--json", metavar="FILE", help="write the leaderboard as JSON")
    parser.add_argument("--csv", metavar="FILE", help="write one CSV row per player")
    parser.add_argument("--plot", metavar="FILE", help="write a PNG of ratings and head to head")
    parser.add_argument(
        "--cards",
        action="store_true",
        help="the store's benchmark report cards of --variant instead (ghost-euchre-evaluate benchmark)",
    )
    return parser.parse_args(argv)


def parse_replay_args(argv):
    parser = OneLineParser(
        prog=f"{program_name()} replay",
        description="Replay recorded games through the engine (a --record file or a league store).",
    )
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--match", type=int, default=None, help="match id (league store)")
    parser.add_argument("--game", type=int, default=None, help="print this game deal by deal")
    parser.add_argument("--ascii", action="store_true", help="cards as JH instead of J♥")
    return parser.parse_args(argv)


def parse_analyse_args(argv):
    parser = OneLineParser(
        prog=f"{program_name()} analyse",
        description="Analyse recorded games (a --record file or a league store): at each card "
        "decision every legal card's value with every hand shown (double-dummy), the card played, "
        "the best card(s), and the points each player lost a deal against that line. No legal "
        "player reaches it: it sees every hand (docs/solver.md, 'Analysing a game').",
    )
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--match", type=int, default=None, help="match id (league store; needed)")
    parser.add_argument("--game", type=int, default=None, help="only this game (default: all)")
    parser.add_argument("--json", metavar="OUT", help="write the same figures as JSON")
    parser.add_argument("--ascii", action="store_true", help="cards as JH instead of J♥")
    return parser.parse_args(argv)


def parse_serve_args(argv):
    parser = OneLineParser(
        prog=f"{program_name()} serve",
        description="The local web page: play against the bots, watch recorded games, "
        "see the leaderboard. What it offers and refuses: docs/web.md, 'Security'.",
    )
    parser.add_argument(
        "--db",
        metavar="FILE",
        default=DEFAULT_DB,
        help=f"the league store shown (default {DEFAULT_DB}; read, never created)",
    )
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: this machine only)"
    )
    parser.add_argument(
        "--policy-dir",
        metavar="DIR",
        action="append",
        default=[],
        help="a directory whose *.pt policy files the page offers as ppo:NAME "
        "(repeatable; default: the shipped networks, ghost_euchre.agents.pretrained)",
    )
    parser.add_argument(
        "--allow-spec",
        metavar="SPEC",
        action="append",
        default=[],
        help="a spec the page may build exactly as written, e.g. mybots:HighCard (repeatable)",
    )
    parser.add_argument(
        "--public",
        action="store_true",
        help="allow a --host other machines can reach (no login; built-in bots only)",
    )
    parser.add_argument(
        "--behind-proxy",
        metavar="ADDR",
        help="the IP addresses or networks (comma-separated) of a reverse proxy in front of the "
        "page: its X-Forwarded-For names the client (default: the header is ignored)",
    )
    parser.add_argument(
        "--trust-every-proxy",
        action="store_true",
        help="believe X-Forwarded-For from every peer (anyone who reaches the page can then "
        "pose as any client, past the per-client game cap)",
    )
    return parser.parse_args(argv)
