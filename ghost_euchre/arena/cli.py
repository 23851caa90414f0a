"""Fair tournaments between policies: duplicate deals, batched play, ratings, leagues, replays.

Usage::

    ghost-euchre-evaluate SPEC SPEC SPEC [--variant ghost|classic] [--games N] [--seed S]
                       [--episode game|deal] [--rule KEY=VALUE ...] [--num-envs N]
                       [--json FILE] [--csv FILE] [--plot FILE] [--record FILE] [--quiet]
                       [--card-play SPEC] [--bid-regret N [--regret-worlds W]]
                       [--workers N] [--ray ADDRESS|auto]
    ghost-euchre-evaluate human heuristic heuristic      # play at the terminal
    ghost-euchre-evaluate --league SPEC SPEC SPEC SPEC ... [--db FILE] [same flags]
    ghost-euchre-evaluate replay FILE [--match M] [--game K] [--ascii]
    ghost-euchre-evaluate analyse FILE [--match M] [--game K] [--json OUT] [--ascii]  # against double-dummy play
    ghost-euchre-evaluate serve [--db FILE] [--port 8000] [--host 127.0.0.1]   # the web page
                       [--policy-dir DIR ...] [--allow-spec SPEC ...] [--public]
    ghost-euchre-evaluate exploit SPEC [--budget DECISIONS] ...   # a best response (ghost_euchre.trainer.exploit)
    ghost-euchre-evaluate benchmark SPEC [--variant V] [--suite v1] [--seed S] ...  # a report card (ghost_euchre.arena.benchmark_cli)

One SPEC per seat (3 for ghost, 4 for classic; see ``ghost_euchre.agents.specs``). Each SPEC is
a *player*; the same spec given twice is two players (``random``, ``random#2``).
``--games`` is the total number of games, rounded up to whole deal sequences
(every seating of the players on the same cards: 6 for ghost, 4 for classic).
``--record FILE`` keeps every game (its dealing key and actions) as JSON.
Output files (``--json``, ``--csv``, ``--plot``, ``--record``) are checked
writable before any play; the missing folders of their paths are created, and
each file written is printed by its absolute path with the folders that were new
(``wrote /home/me/runs/m.json (new folder runs in /home/me)``): a typo shows.

Exit status: 0 when done; 2 for bad input, told in one line (``ghost-euchre-evaluate:
error: ...``, usage: ``--help``); a game at the terminal left by end of input
(Ctrl-D) 1, by Ctrl-C 130 (after "Game abandoned."); a league stopped by Ctrl-C 130;
a bot whose own code raised 1, after one line naming it, the game (and the league's
match) and then its traceback.

``--league``: every 3-player subset of the SPECs (classic: every pairing of two
teams) plays a duplicate match of ``--games`` games into the SQLite store
``--db`` (default ``runs/league.sqlite``); matches already stored are not played
again. Then the leaderboard of every stored game of these rules is printed
(``--json``/``--csv``/``--plot`` write it). Ctrl-C loses at most the matches
in progress; rerun the command to resume. A match whose worker process died is
one line; the others are played and the exit status is 1.

``replay FILE``: FILE is a ``--record`` file or a league store. Without
``--game`` every game is replayed and checked, one line each (a store without
``--match`` lists its matches); with ``--game K`` game K is printed deal by deal.

``--card-play SPEC`` makes it a *bidding match* (both variants): every seat's
card play is made by SPEC and each player's own policy makes only its auction
decisions (classic: ordering up, naming trump, alone, the dealer's discard); a
bidding table follows (contracts by kind, points per contract, points per deal
and its difference to each other player, paired by deal sequence), and the
``--json`` file holds it under each player's ``bidding``. ``--bid-regret N`` adds
each player's bid regret over N sampled auction decisions against a rollout
oracle (:mod:`ghost_euchre.arena.regret`; the rest of each deal played by the card-play
policy, ``heuristic`` without --card-play; classic: the team's points). With
``--league``, ``--card-play SPEC`` makes every player ``composite[PLAYER | SPEC]``
and ``--bid-regret N`` stores each match's regrets in --db (a match stored
without them is played again for them); the leaderboard shows them.

``--workers N`` plays the deal sequences of a match (the matches of a league,
the sampled decisions of ``--bid-regret``) in N processes at once (default:
every usable core, or 1 when every player is ``random``, ``heuristic`` or ``ppo:...``; a
job of one part runs in this process); ``--ray ADDRESS``
(``auto``: the cluster ``ray start --head`` started) runs them as Ray tasks.
The results do not depend on the split (:mod:`ghost_euchre.plumbing.workers`).

Network policies (``ppo:PATH``, learned playouts) run torch on one thread unless
``OMP_NUM_THREADS`` says otherwise: their batches are small, and a second
thread mostly waits for a core the engine is using.

This module is the command line only: matches, what counts and the JSON schema
are in :mod:`ghost_euchre.arena.match`, intervals and ratings in :mod:`ghost_euchre.arena.stats`, tables
and files in :mod:`ghost_euchre.arena.report`, leagues in :mod:`ghost_euchre.arena.league` and
:mod:`ghost_euchre.arena.store`, game records in :mod:`ghost_euchre_env.records`.
"""

import json
import os
import sys

from ghost_euchre.agents.checked import PolicyRaised
from ghost_euchre.agents.extras import require
from ghost_euchre.agents.human import HumanQuit
from ghost_euchre.agents.pimc import check_fits
from ghost_euchre.agents.specs import composite_tree, spec_tree, written
from ghost_euchre.arena.bidding import bidding_table, run_bidding_match
from ghost_euchre.arena.cli_args import (
    REGRET_WORLDS,
    parse_analyse_args,
    parse_args,
    parse_leaderboard_args,
    parse_replay_args,
    parse_serve_args,
)
from ghost_euchre.arena.interactive import play_interactive
from ghost_euchre.arena.league import leaderboard, league_plan, run_league
from ghost_euchre.arena.match import check_no_human, read_players, run_match
from ghost_euchre.arena.report import (
    leaderboard_table,
    match_table,
    write_csv,
    write_json,
    write_leaderboard_csv,
    write_leaderboard_plot,
    write_plot,
)
from ghost_euchre.arena.store import DEFAULT_DB, Store, reading_store
from ghost_euchre.plumbing.cli import parse_rules
from ghost_euchre.plumbing.commands import command_name, program_name
from ghost_euchre.plumbing.files import check_writable, check_writable_in_place, write_atomic
from ghost_euchre.plumbing.workers import connect_ray, usable_cores
from ghost_euchre_env.core import check_int
from ghost_euchre_env.records import (
    RecordError,
    check_records,
    format_replay,
    records_from_dict,
    records_to_dict,
)

SQLITE_HEADER = b"SQLite format 3\x00"
MAX_PORT = 65535
# what a game with a human at the terminal does not use (it keeps no results)
NOT_WITH_HUMAN = ("json", "csv", "plot", "record", "card_play", "bid_regret", "regret_worlds")


def serve_main(argv):
    """``serve``: run the local web page (ghost_euchre.arena.web) until Ctrl-C."""
    args = parse_serve_args(argv)
    if not 0 <= args.port <= MAX_PORT:
        return _error(f"--port must be 0..{MAX_PORT} (0: any free port), got {args.port}")
    if os.path.isdir(args.db):
        return _error(f"--db {args.db!r} is a directory; expected a league store file")
    from ghost_euchre.arena.web import serve

    try:
        serve(
            args.db,
            args.host,
            args.port,
            args.policy_dir,
            args.allow_spec,
            args.public,
            args.behind_proxy,
            args.trust_every_proxy,
        )
    except ValueError as error:
        return _error(error)
    except OSError as error:
        return _error(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}")
    except PolicyRaised as error:  # an allowed spec's module raised at import: named first
        return _raised(error)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # read when a network policy first imports torch
    if argv[:1] == ["serve"]:
        return serve_main(argv[1:])
    if argv[:1] == ["replay"]:
        return _run(replay_main, parse_replay_args(argv[1:]))
    if argv[:1] == ["analyse"]:
        return _run(analyse_main, parse_analyse_args(argv[1:]))
    if argv[:1] == ["leaderboard"]:
        return _run(leaderboard_main, parse_leaderboard_args(argv[1:]))
    if argv[:1] == [
        "benchmark"
    ]:  # the command's parser is ghost_euchre.arena.benchmark_cli, which imports this
        return _error(
            f"benchmark is ghost_euchre.arena.benchmark_cli.main (given the trainer's robustness section); run "
            f"{command_name()} benchmark ..."
        )
    if argv[:1] == ["exploit"]:  # it trains: a command of the trainer, which arena never imports
        return _error(
            f"exploit trains a network: ghost_euchre.arena.cli.main cannot run it; run {command_name()} exploit ..."
        )
    args = parse_args(argv)
    if args.plot:
        require("matplotlib")  # before anything is played
    for flag, value, minimum in (
        ("--games", args.games, 1),
        ("--seed", args.seed, 0),
        ("--num-envs", args.num_envs, 1),
    ):
        if value is not None and value < minimum:
            return _error(f"{flag} must be an int >= {minimum}, got {value}")
    if args.regret_worlds is not None and not args.bid_regret:
        return _error(
            "--regret-worlds is the worlds of each --bid-regret decision; give --bid-regret N"
        )
    if args.league:
        return _run(league_main, args)
    if args.db:
        return _error("--db is for --league")
    return _run(match_main, args)


def _run(command, args):
    try:
        return command(args)
    except ValueError as error:  # bad input: one line
        return _error(error)
    except OSError as error:  # an unreadable or unwritable file: one line naming it
        return _error(_file_error(error))
    except PolicyRaised as error:  # a bot's own code raised: named first, then its traceback
        return _raised(error)
    except KeyboardInterrupt:  # Ctrl-C while a bot thinks: every program is stopped by now
        print(f"\n{program_name()}: stopped by Ctrl-C; nothing written", file=sys.stderr)
        return 130


def _raised(error):
    """Status 1 for user code that raised (:class:`PolicyRaised`): its line, then its traceback."""
    _error(error)
    print(error.trace, end="", file=sys.stderr)
    return 1


def _error(message):
    print(f"{program_name()}: error: {message}", file=sys.stderr)
    return 2


def _play_options(args, rules, specs):
    """The keyword arguments run_match and run_league share, from the command line (specs: the
    players' and the card play's trees, for the default of --workers)."""
    return {
        "variant": args.variant,
        "games": 300 if args.games is None else args.games,
        "seed": 0 if args.seed is None else args.seed,
        "episode": args.episode,
        "rules": rules,
        "num_envs": args.num_envs,
        "progress": not args.quiet,
        "workers": _default_workers(args, specs) if args.workers is None else args.workers,
        "ray": args.ray,
    }


FAST_KINDS = (
    "random",
    "heuristic",
    "ppo",
)  # batched: their matches take seconds, and starting workers costs more than they save


def _default_workers(args, specs):
    """--workers when not given: every usable core, or 1 when the job is only fast batched bots.

    Starting a worker costs a second or more (a fresh process, its imports; far
    more on a busy machine) and halves each batch; random and heuristic play
    3,000 games in seconds, a ppo network 300 games against two heuristics in
    about 10 s, where that costs more than it saves (``ppo:ghost heuristic
    heuristic --games 300``: 1 worker 3.0x and 3.2x the decisions/s of 2, quiet and
    with a core busy; ``benchmarks/load_defaults.py``). Anything else (pimc, your
    classes) gets every core, as does the bid regret (a rollout search).
    """
    if args.bid_regret or not all(_fast(spec) for spec in specs):
        return usable_cores()
    return 1


def _fast(tree):
    """Whether a parsed spec is random, heuristic or a ppo network (a composite: both of its parts)."""
    if tree.kind == "composite":
        return all(map(_fast, tree.parts))
    return tree.kind in FAST_KINDS


def _check_outputs(args, writers):
    """[(path, write, shown)] of the requested output files, each checked writable before any play.

    shown: :func:`_check_output`'s, for :func:`_wrote`.
    """
    outputs = []
    for flag, write in writers:
        path = getattr(args, flag)
        if path:
            outputs.append((path, write, _check_output(path, f"--{flag}")))
    return outputs


def _check_output(path, flag):
    """Check ``path`` (of ``flag``) writable -> (its absolute path, [] or ["new folder a/b in /dir"])
    for :func:`_wrote`: a folder is new when it is missing now, before the play."""
    existing = check_writable(path, flag)
    target = os.path.abspath(path)
    folder = os.path.dirname(target)
    if folder == existing:
        return target, []
    return target, [f"new folder {os.path.relpath(folder, existing)} in {existing}"]


def _wrote(shown, *details):
    """Print 'wrote ABSOLUTE_PATH (details; new folder a/b in /dir)': a typo in a path shows."""
    target, notes = shown
    details = [*details, *notes]
    print(f"wrote {target}" + (f" ({'; '.join(details)})" if details else ""))


def match_main(args):
    rules = parse_rules(args.rule)
    players = read_players(args.players)  # each spec read once, for all that follows
    card_play = None if args.card_play is None else spec_tree(args.card_play)
    specs = [*players, *([card_play] if card_play else [])]
    human = any(player.kind == "human" for player in players)
    unused = [name for name in NOT_WITH_HUMAN if human and getattr(args, name)]
    if unused:
        flag = "--" + unused[0].replace("_", "-")
        raise ValueError(f"{flag} is for matches of bots; a game with human keeps no results")
    outputs = _check_outputs(args, [("json", write_json), ("csv", write_csv), ("plot", write_plot)])
    record = _check_output(args.record, "--record") if args.record else None
    if args.workers is not None:
        check_int("--workers", args.workers, 1)
    if human:
        games = 1 if args.games is None else args.games
        try:
            play_interactive(players, args.variant, games, args.seed, args.episode, rules)
        except (HumanQuit, KeyboardInterrupt) as stop:  # Ctrl-C while a bot thinks, too
            print("\nGame abandoned.")
            return 1 if isinstance(stop, HumanQuit) and not stop.interrupted else 130
        return 0
    bidding = card_play is not None or args.bid_regret != 0
    regrets = None
    if bidding:
        if args.record:
            raise ValueError("--record is for plain matches, not with --card-play or --bid-regret")
        worlds = _regret_worlds(args)
        options = _play_options(args, rules, specs)
        result, regrets = run_bidding_match(players, card_play, args.bid_regret, worlds, **options)
    else:
        result = run_match(players, **_play_options(args, rules, specs), record=bool(args.record))
    print(match_table(result))
    if bidding:
        print(bidding_table(result, regrets))
    for path, write, shown in outputs:
        write(result, path)
        _wrote(shown)
    if record is not None:
        data = records_to_dict(result.game_records())
        write_atomic(args.record, lambda f: json.dump(data, f, separators=(",", ":")))
        _wrote(record, f"{len(data['games'])} game records")
    return 0


def _regret_worlds(args):
    """--regret-worlds (its default when not given), checked with --bid-regret: ints >= 0 and >= 1, and
    one decision's worlds must fit in the machine's memory (ghost_euchre.agents.pimc.check_fits)."""
    worlds = REGRET_WORLDS if args.regret_worlds is None else args.regret_worlds
    check_int("--bid-regret", args.bid_regret, 0)
    check_int("--regret-worlds", worlds, 1)
    check_fits(f"--regret-worlds {worlds}", worlds)
    return worlds


def league_main(args):
    rules = parse_rules(args.rule)
    writers = [("json", write_json), ("csv", write_leaderboard_csv)]
    outputs = _check_outputs(args, [*writers, ("plot", write_leaderboard_plot)])
    if args.record:
        return _error("--record is for a single match; a league keeps its games in --db")
    regret = None
    if args.bid_regret:  # each match also measures each player's bid regret, stored with it
        worlds = _regret_worlds(args)  # before the store is opened: a refusal leaves no file
        regret = (args.bid_regret, worlds, args.card_play or "heuristic")
    players = read_players(args.players)  # each spec read once, for all that follows
    if args.card_play is not None:  # a bidding league: each player bids, SPEC plays every card
        card_play = spec_tree(args.card_play)
        check_no_human([card_play], "card-play policy")
        players = [composite_tree(player, card_play) for player in players]
        args.players = [written(player) for player in players]
    db = args.db or DEFAULT_DB
    check_writable_in_place(db, "--db")  # a read-only store: refused before it is opened
    league_plan(players, args.variant, args.episode, rules)  # bad players: no store made
    if args.workers is not None:
        check_int("--workers", args.workers, 1)
    if args.ray is not None:
        connect_ray(args.ray)  # no cluster there: no store made
    with Store(db) as store:
        store.check_writable()  # a read-only store is refused before any match is played
        try:
            options = _play_options(args, rules, players)
            run = run_league(players, store, **options, out=print, regret=regret)
        except KeyboardInterrupt:
            print(f"\ninterrupted: finished matches are stored in {db}; rerun to resume")
            return 130
        board = leaderboard(store, args.variant, args.episode, rules, players=args.players)
    failed = f", {len(run.failed)} failed (rerun to retry them)" if run.failed else ""
    print(
        f"played {len(run.played)} matches, {len(run.skipped)} already stored{failed}; store {db}; "
        f"{run.total_time_s:.1f} s wall in all (the matches' own times sum to "
        f"{run.matches_time_s:.1f} s; with --workers they overlap)"
    )
    print(leaderboard_table(board))
    for path, write, shown in outputs:
        write(board, path)
        _wrote(shown)
    return 1 if run.failed else 0


def _is_sqlite(path):
    """True if the file at ``path`` starts as an SQLite database does (a league store, or another)."""
    with open(path, "rb") as handle:
        return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def leaderboard_main(args):
    """``leaderboard``: a store's table (and files), from what is stored; nothing is played."""
    outputs = _check_outputs(
        args,
        [("json", write_json), ("csv", write_leaderboard_csv), ("plot", write_leaderboard_plot)],
    )
    if not os.path.isfile(args.db):
        return _error(
            f"no league store at {args.db!r} (play one with {command_name()} --league ... --db FILE)"
        )
    if not _is_sqlite(args.db):
        return _error(f"{args.db!r} is not a league store (not an SQLite file)")
    with reading_store(args.db) as store:  # nothing written: a read-only store reads as well
        if args.cards:
            from ghost_euchre.arena.cards import compact_rows

            if args.json or args.csv or args.plot:
                raise ValueError(
                    "--cards prints the cards; --json, --csv and --plot are the leaderboard's"
                )
            found = [c["card"] for c in store.cards(args.variant)]
            found = [c for c in found if not args.players or c["spec"] in args.players]
            print(compact_rows(found) if found else f"no {args.variant} cards in {args.db}")
            return 0
        rules = parse_rules(args.rule)
        board = leaderboard(store, args.variant, args.episode, rules, players=args.players or None)
    print(leaderboard_table(board))
    for path, write, shown in outputs:
        write(board, path)
        _wrote(shown)
    return 0


def _file_error(error):
    """One line of an OSError: the file and what went wrong ('runs/x.json': No such file or
    directory), not Python's bare '[Errno 2] ...'."""
    if error.filename is None:
        return error.strerror or str(error)
    return f"{error.filename!r}: {error.strerror or error}"


def read_records(args, command):
    """(records, first) of ``args.file`` as ``replay`` and ``analyse`` read it: a --record file, or
    match ``args.match`` of a league store; only game ``args.game`` when given (``first``: the
    number of the first record). ValueError (one line, naming the file) for bad input."""
    if not os.path.isfile(args.file):
        what = "a folder" if os.path.isdir(args.file) else "no file"
        raise ValueError(
            f"{args.file!r} is {what}: {command} reads a game records file (--record FILE of a "
            "match) or a league store (--db FILE of a league)"
        )
    if _is_sqlite(args.file):
        if args.match is None:
            raise ValueError(
                f"--match M is needed with a league store (list them: {command_name()} replay "
                f"{args.file})"
            )
        with reading_store(args.file) as store:  # --game out of range: the store says so
            records = store.game_records(args.match, None if args.game is None else [args.game])
        return records, 0 if args.game is None else args.game
    if args.match is not None:
        raise ValueError("--match is for a league store; FILE is a record file")
    try:
        with open(args.file, encoding="utf-8") as handle:
            records = records_from_dict(json.load(handle))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(
            f"{args.file!r} is not a game records file (JSON text): {error}"
        ) from error
    except RecordError as error:
        raise ValueError(f"{args.file!r}: {error}") from error
    if args.game is None:
        return records, 0
    if not 0 <= args.game < len(records):
        raise ValueError(f"--game {args.game}: the file has games 0..{len(records) - 1}")
    return [records[args.game]], args.game


def replay_main(args):
    if os.path.isfile(args.file) and _is_sqlite(args.file) and args.match is None:
        if args.game is not None:
            return _error("--game needs --match in a league store (listed without --match)")
        with reading_store(args.file) as store:
            for match in store.matches():
                names = [p["name"] for p in store.match_summary(match["id"])["players"]]
                print(
                    f"match {match['id']}: {match['variant']}, {match['games']} games, "
                    f"seed {match['seed']}: {', '.join(names)}"
                )
        return 0
    records, first = read_records(args, "replay")
    try:  # a record that does not replay (bad rules, a bad action): named with its file
        if args.game is not None:
            print(format_replay(records[0], unicode=not args.ascii))
            return 0
        scores = check_records(records)
    except ValueError as error:
        return _error(f"{args.file!r}: {error}")
    for number, (record, final) in enumerate(zip(records, scores, strict=True), first):
        print(
            f"game {number}: {', '.join(record.names)}; {len(record.actions)} actions; "
            f"final scores {final.tolist()} (replayed)"
        )
    return 0


def analyse_main(args):
    """``analyse``: every card decision of recorded games solved with every hand shown
    (:mod:`ghost_euchre.arena.analysis`), as text and, with --json, as JSON."""
    from ghost_euchre.arena.analysis import analyse, analysis_to_dict, format_analysis

    output = _check_output(args.json, "--json") if args.json else None
    records, first = read_records(args, "analyse")
    try:  # a record that does not replay (bad rules, a bad action): named with its file
        result = analyse(records, range(first, first + len(records)))
    except ValueError as error:
        return _error(f"{args.file!r}: {error}")
    print(format_analysis(result, unicode=not args.ascii))
    if output is not None:
        data = analysis_to_dict(result)
        write_atomic(args.json, lambda f: json.dump(data, f, ensure_ascii=False, indent=1))
        _wrote(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
