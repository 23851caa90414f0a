"""``ghost-euchre-evaluate benchmark SPEC``: the command line of the benchmark (:mod:`ghost_euchre.arena.benchmark`).

Usage::

    ghost-euchre-evaluate benchmark SPEC [--variant ghost|classic] [--suite v1] [--seed S]
        [--workers N] [--db FILE] [--json FILE] [--markdown FILE] [--plot FILE] [--again]
        [--robustness] [--quiet]

The card is printed as a Markdown table and stored in the league store ``--db``
(default ``runs/league.sqlite``): the same suite, seed, variant and bot version
(its fingerprint) print the stored card again without playing (``--again``:
play it again); a bot whose code changed gets a new card beside the old one.
A bot that raises is named with the section and the game (exit status 1); the
sections done are stored, and the same command continues from them. Bad input
is one line, exit status 2. ``--robustness`` trains (the evaluate command gives
it the trainer: :func:`ghost_euchre.trainer.exploit.robustness`).
"""

import argparse
import os

from ghost_euchre.agents.checked import PolicyRaised
from ghost_euchre.arena.benchmark import SUITES, check_seed, run_card, suite_named
from ghost_euchre.arena.cards import markdown, write_json, write_markdown, write_plot
from ghost_euchre.arena.cli import _check_output, _error, _raised, _wrote
from ghost_euchre.arena.match import VARIANTS
from ghost_euchre.arena.store import DEFAULT_DB, Store
from ghost_euchre.plumbing.cli import OneLineParser
from ghost_euchre.plumbing.commands import program_name
from ghost_euchre.plumbing.files import check_writable_in_place
from ghost_euchre.plumbing.workers import usable_cores
from ghost_euchre_env.core import check_int


def parse_args(argv):
    parser = OneLineParser(
        prog=f"{program_name()} benchmark",
        description="Score SPEC on a versioned suite of fixed deals (the field, the auction, cost, "
        "scale; robustness on request): one report card, stored in --db.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("spec", metavar="SPEC", help="the bot to score (any policy spec)")
    parser.add_argument("--variant", choices=VARIANTS, default="ghost")
    parser.add_argument(
        "--suite", default="v1", help=f"the suite ({', '.join(SUITES)}; default v1)"
    )
    parser.add_argument(
        "--seed", default=None, help="a private suite's seed (default: the suite's published seed)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help=f"processes playing at once (default: the {usable_cores()} usable cores)",
    )
    parser.add_argument("--db", default=DEFAULT_DB, help=f"league store (default {DEFAULT_DB})")
    parser.add_argument("--json", metavar="FILE", help="write the card as JSON")
    parser.add_argument("--markdown", metavar="FILE", help="write the card as a Markdown table")
    parser.add_argument(
        "--plot", metavar="FILE", help="write a PNG of the card beside the published cards"
    )
    parser.add_argument("--again", action="store_true", help="play a stored card again")
    parser.add_argument(
        "--robustness",
        action="store_true",
        help="add the robustness section (it trains a best response: minutes)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser.parse_args(argv)


def main(argv, robustness=None):
    """``benchmark`` (argv without it): exit status 0, 1 (a bot raised) or 2 (bad input, one line).
    robustness: ``f(spec, variant, seed, budget, games) -> figures``, or None (the section refused)."""
    args = parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # read when a network policy first imports torch
    try:
        return benchmark_main(args, robustness)
    except (ValueError, OSError) as error:
        return _error(error)
    except KeyboardInterrupt:
        print(f"\ninterrupted: the sections done are stored in {args.db}; rerun to continue")
        return 130
    except PolicyRaised as error:  # a bot's own code: named with its section and game
        return _raised(error)


def benchmark_main(args, robustness):
    suite = suite_named(args.suite)
    seed = None if args.seed is None else check_seed(args.seed)
    if args.workers is not None:
        check_int("--workers", args.workers, 1)
    if args.robustness and robustness is None:
        raise ValueError("--robustness trains a network: run it as ghost-euchre-evaluate benchmark")
    outputs = [
        (write, _check_output(path, f"--{flag}"), path)
        for flag, write, path in (
            ("json", write_json, args.json),
            ("markdown", write_markdown, args.markdown),
            ("plot", write_plot, args.plot),
        )
        if path
    ]
    if os.path.isdir(args.db):
        raise ValueError(f"--db {args.db!r} is a directory; expected a league store file")
    check_writable_in_place(args.db, "--db")
    with Store(args.db) as store:
        store.check_writable()
        card = run_card(
            args.spec,
            args.variant,
            suite,
            seed,
            usable_cores() if args.workers is None else args.workers,
            store,
            args.again,
            robustness if args.robustness else None,
            progress=not args.quiet,
            out=print,
        )
    print(markdown(card))
    for write, shown, path in outputs:
        write(card, path)
        _wrote(shown)
    return 0
