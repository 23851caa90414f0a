"""Leagues: every group of players meets in a duplicate match; results kept, ratings fitted over all.

:func:`run_league` plays, for a list of player specs, every 3-player subset
(Ghost Hand) or every pairing of two teams of two (classic: each 4-player
subset gives 3 matches), each a duplicate match of :func:`ghost_euchre.arena.match.run_match`
with the league's seed, and stores it in an :class:`ghost_euchre.arena.store.Store` in one
transaction. A match already stored (same players, rules, seed and games) is
not played again, so adding a player plays only its new matches, and an
interrupted league resumes where it stopped. The players of a match are put
in a canonical order (sorted specs; classic: partners sorted, then teams), so
the order of the specs on the command line does not matter.

A player is its spec plus the version of its code (:func:`ghost_euchre.arena.store.player_identity`):
a bot whose class (or checkpoint file) changed is a new player, whose matches
are played again; the leaderboard lists each version apart (``spec@version``
when a spec has several, ``current``: the version last run), never pooled.

:func:`leaderboard` ranks the players of every stored match of one variant,
episode and rules set. It reads the summaries the store keeps per match (how
many games ended in each finishing order; each position's games, wins, points,
deals and per-sequence win sums), never the games themselves, so its cost grows
with the players and matches, not with the games (about 3 ms for the league of the
documentation; ``benchmarks/leaderboard_scaling.py``):

- **rating**: a Plackett-Luce fit over all those matches at once
  (:func:`ghost_euchre.arena.stats.plackett_luce_ratings`: the maximum of the posterior of
  OpenSkill's model with no skill drift, a bot or a checkpoint file playing the
  same in every game). It depends only on which games are stored (the count of
  each finishing order of each line-up), not on any order of rating them; rank
  by ordinal = mu - 3 sigma;
- games, wins, **win rate** with its 95% interval (clustered by deal sequence
  of each match, :func:`ghost_euchre.arena.stats.win_ci_from_sums`), **points per deal**;
- **head to head**: for players i and j, the share of the games in which they
  met as opponents that i finished ahead of j (ties count half);
- **exploitability** (None until ``ghost-euchre-evaluate exploit SPEC`` stored one for
  these rules): of the player's stored approximate best responses
  (:mod:`ghost_euchre.trainer.exploit`), the one that won most against it: its win
  rate with the 95% interval, that win rate over the fair share (1/3; classic
  1/2), its points per deal over the fair share, the budget (decisions).
- **bid regret** (None unless a league stored one, ``--bid-regret N``): the
  points per auction decision the player's bids leave against a rollout oracle
  (:mod:`ghost_euchre.arena.regret`), the mean over all its stored sampled decisions with a
  95% normal interval (from the stored sums, :func:`ghost_euchre.arena.regret.regret_from_sums`).

The leaderboard's JSON schema (``Leaderboard.to_dict()``)::

    {"schema": "ghost-euchre-leaderboard-v1", "variant", "episode", "rules",
     "matches": int, "games": int, "rating_model": "plackett-luce-map",
     "players": [{"rank", "name", "spec", "content_hash", "current", "mu", "sigma", "ordinal",
                  "games", "wins", "win_rate", "win_rate_ci95": [lo, hi],
                  "points_per_deal", "deals",
                  "exploitability": {"win_rate", "win_rate_ci95", "win_rate_over_fair",
                                     "points_per_deal_over_fair", "budget", "seed"}
                                    | null,
                  "bid_regret": {"decisions", "mean_regret", "mean_regret_ci95", "best_rate"}
                                | null}, ...],             (best first)
     "head_to_head": [[share or null, ...], ...],               (rows and columns: players)
     "head_to_head_games": [[int, ...], ...]}
"""

import dataclasses
import itertools
import json
import time

import numpy as np

from ghost_euchre.agents.checked import PolicyRaised
from ghost_euchre.agents.specs import make_policy, written
from ghost_euchre.arena.bidding import run_bidding_match
from ghost_euchre.arena.match import check_no_human, make_game, read_players, run_match
from ghost_euchre.arena.regret import regret_from_sums
from ghost_euchre.arena.seatings import match_teams, seatings
from ghost_euchre.arena.stats import FIT_RATING_MODEL, plackett_luce_ratings, win_ci_from_sums
from ghost_euchre.arena.store import code_version, match_key, player_identity, version_label
from ghost_euchre.plumbing.workers import ProgressBar, WorkerDied, Workers, above_bar
from ghost_euchre_env import variants

LEADERBOARD_SCHEMA = "ghost-euchre-leaderboard-v1"


def league_matches(specs, variant="ghost"):
    """The player lists of every match of a league, each in canonical (seat-plan) order.

    ghost: every 3-player subset; classic: every split of every 4-player subset
    into two teams, as [team A first, team B first, team A second, team B second].
    """
    specs = sorted(s.strip() for s in specs)
    if len(set(specs)) != len(specs):
        twice = sorted({s for s in specs if specs.count(s) > 1})
        raise ValueError(f"league players must differ; given more than once: {twice}")
    size = variants.make(variant).num_players
    if len(specs) < size:
        raise ValueError(f"a {variant} league needs at least {size} players, got {len(specs)}")
    if not variants.make(variant).has_partners:
        return [list(trio) for trio in itertools.combinations(specs, size)]
    matches = []
    for four in itertools.combinations(specs, 4):
        for partner in four[1:]:
            team_a = (four[0], partner)
            team_b = tuple(s for s in four[1:] if s != partner)
            matches.append([team_a[0], team_b[0], team_a[1], team_b[1]])
    return matches


def league_plan(specs, variant="ghost", episode="game", rules=None):
    """:func:`league_matches`, with every player built once on the league's game to check it.

    specs: spec strings or their trees. ValueError (one line) for too few players, a repeated
    one, a spec that does not build for these rules, or ``human``
    (:func:`ghost_euchre.arena.match.check_no_human`): for a caller to check a league before it
    creates anything.
    """
    return _checked_league(specs, variant, episode, rules)[0]


def _checked_league(specs, variant, episode, rules):
    """(:func:`league_plan`'s plan of spec strings, {spec string: its tree})."""
    trees = read_players(specs)
    names = [written(tree) for tree in trees]
    plan = league_matches(names, variant)
    check_no_human(trees, "league player")
    game = make_game(variant, episode, rules)
    read = dict(zip(names, trees, strict=True))
    for spec in sorted({s for m in plan for s in m}):
        make_policy(read[spec], game, seed=0)
    return plan, read


@dataclasses.dataclass
class LeagueRun:
    """What one :func:`run_league` call did: played / skipped lists of
    {"players": [specs], "match_id": int, "wall_time_s": float (played only)};
    failed: {"players", "error"} of the matches whose worker died (not stored);
    matches_time_s: time in run_match; total_time_s: the whole call."""

    played: list
    skipped: list
    matches_time_s: float
    total_time_s: float
    failed: list = dataclasses.field(default_factory=list)


def run_league(
    specs,
    store,
    variant="ghost",
    games=300,
    seed=0,
    episode="game",
    rules=None,
    num_envs=None,
    record=True,
    progress=False,
    out=None,
    workers=1,
    ray=None,
    regret=None,
):
    """Play every missing match of a league into ``store``; returns a :class:`LeagueRun`.

    specs: player spec strings or their trees (distinct; at least 3 for ghost, 4 for classic);
    games, seed, episode, rules, num_envs: as :func:`ghost_euchre.arena.match.run_match`
    (every match uses the same seed, so all matches deal the same cards);
    record: keep every game's actions in the store (for replays); out: a
    function called with one line per match (e.g. print), or None; progress:
    one bar of the games of every match to play; workers, ray: matches played
    at once in worker processes or on a Ray cluster (:mod:`ghost_euchre.plumbing.workers`).
    Only this process writes the store, one transaction per match, in the
    league's order (a match finished early waits for the ones before it; on
    Ctrl-C or an error every finished match is written first). A match whose
    worker dies is one line and a ``failed`` entry; the rest is played.
    regret: None, or (decisions N, worlds W, oracle card-play spec): each match
    also measures each player's bid regret (:func:`ghost_euchre.arena.bidding.run_bidding_match`)
    and stores it with the match. The regret is not part of a match's identity: a
    match stored without one is played again (the same games) for its regret,
    and one stored with a regret of other options is refused (ValueError).
    """
    start = time.perf_counter()
    game = make_game(variant, episode, rules)
    full_rules = dataclasses.asdict(game.rules)
    total_games = len(seatings(variant, games)[0])
    plan, trees = _checked_league(specs, variant, episode, rules)
    identities = {spec: player_identity(trees[spec]) for spec in {s for m in plan for s in m}}
    unversioned = sorted(spec for spec, (_, version) in identities.items() if not version)
    if unversioned:  # its results would pool with any other version's: refused, nothing played
        raise ValueError(
            f"player {unversioned[0]!r} has no version to store its results under: neither a "
            "source file, a module file nor a loaded class was found to fingerprint "
            "(ghost_euchre.agents.versions); define it in a module, or play it with run_match (nothing stored)"
        )
    version = code_version()
    run = LeagueRun([], [], 0.0, 0.0)
    say = above_bar(out)
    todo = []  # (number, players, key, label) of the matches to play, in league order
    for number, players in enumerate(plan, 1):
        ids = [identities[p] for p in players]
        key = match_key(variant, episode, full_rules, seed, total_games, ids)
        label = _teams_text(players, variant)
        stored = store.has_match(key)
        if stored and regret is not None:
            had = store.match_regret(key)
            if had is not None and had != tuple(regret):
                raise ValueError(
                    f"match {label} has its bid regret stored with --bid-regret {had[0]}"
                    f" --regret-worlds {had[1]} (oracle {had[2]!r}), not --bid-regret {regret[0]}"
                    f" --regret-worlds {regret[1]} (oracle {regret[2]!r}): ask for those,"
                    " or use another store"
                )
            stored = had is not None
        if stored:
            run.skipped.append({"players": players, "match_key": key})
            say(f"[{number}/{len(plan)}] {label}: stored already")
        else:
            todo.append((number, players, key, label))
    player_ids = {}  # registered in league order, so ids do not depend on which match ends first
    for (
        players
    ) in plan:  # every player, played or not: the versions run now become the current ones
        for spec in players:
            player_ids.setdefault(spec, store.player_id(identities[spec]))
    options = (variant, games, seed, episode, full_rules, num_envs, record, regret)
    tasks = [([trees[p] for p in players], *options) for _, players, _, _ in todo]
    finished = {}  # task index -> MatchResult, finished and not yet written

    def write(index):
        number, players, key, label = todo[index]
        result, regrets = finished.pop(index)
        ids = [player_ids[p] for p in players]
        match_id = store.add_match(result, key, ids, num_envs, version, regrets, regret)
        run.matches_time_s += result.wall_time_s
        run.played.append(
            {"players": players, "match_id": match_id, "wall_time_s": result.wall_time_s}
        )
        say(
            f"[{number}/{len(plan)}] {label}: {len(result.sequence)} games in {result.wall_time_s:.1f} s"
        )

    # a match's steps on the progress bar: its games, then its regret's decisions
    work, unit = total_games, "game"
    if regret is not None:
        work, unit = total_games + regret[0] * variants.make(variant).num_players, "step"
    done, following = set(), 0  # tasks finished (stored or failed); the next task to write
    with (
        Workers(workers, ray) as pool,
        ProgressBar(progress and bool(tasks), work * len(tasks), unit) as report,
    ):
        try:
            for index, outcome in pool.run(_match_task, tasks, [work] * len(tasks), report):
                done.add(index)
                if isinstance(outcome, WorkerDied):
                    number, players, _, label = todo[index]
                    run.failed.append({"players": players, "error": str(outcome)})
                    say(f"[{number}/{len(plan)}] {label}: not played, {outcome}; rerun to retry")
                elif isinstance(outcome, PolicyRaised):  # named with its match
                    raise outcome.located(f"match {todo[index][3]}")
                elif isinstance(outcome, ValueError):
                    raise ValueError(f"match {todo[index][3]}: {outcome}") from None
                elif isinstance(outcome, Exception):
                    raise outcome
                else:
                    finished[index] = outcome
                while following in done:
                    if following in finished:
                        write(following)
                    following += 1
        finally:
            for index in sorted(finished):  # interrupted or failed: keep what is finished
                write(index)
    run.total_time_s = time.perf_counter() - start
    return run


def _match_task(task, progress):
    """One match of a league: run_match's arguments and the regret's options (or None) ->
    (its MatchResult, one Regret per player or None)."""
    players, variant, games, seed, episode, rules, num_envs, record, regret = task
    if regret is None:
        result = run_match(
            players, variant, games, seed, episode, rules, num_envs, progress, record=record
        )
        return result, None
    decisions, worlds, oracle = regret
    return run_bidding_match(
        players, None, decisions, worlds, games, seed, episode, rules, num_envs,
        progress=progress, variant=variant, oracle=oracle, record=record,
    )  # fmt: skip


def _teams_text(players, variant):
    """'a vs b vs c' (Ghost Hand), 'a & c vs b & d' (classic): the teams of a match's players by seat."""
    members = variants.make(variant).team_members
    return " vs ".join(" & ".join(players[seat] for seat in team) for team in members)


@dataclasses.dataclass
class Leaderboard:
    """Ranked players of one variant, episode and rules set (schema in the module docstring)."""

    variant: str
    episode: str
    rules: dict
    matches: int
    games: int
    players: list
    head_to_head: list
    head_to_head_games: list

    def to_dict(self):
        """The JSON-ready leaderboard (schema in the module docstring)."""
        return {
            "schema": LEADERBOARD_SCHEMA,
            "variant": self.variant,
            "episode": self.episode,
            "rules": self.rules,
            "matches": self.matches,
            "games": self.games,
            "rating_model": FIT_RATING_MODEL,
            "players": self.players,
            "head_to_head": self.head_to_head,
            "head_to_head_games": self.head_to_head_games,
        }

    def to_json(self):
        """``to_dict()`` as indented JSON text."""
        return json.dumps(self.to_dict(), indent=2)


def leaderboard(store, variant="ghost", episode="game", rules=None, players=None):
    """The :class:`Leaderboard` of every stored match of ``variant``, ``episode`` and ``rules``.

    Read from the matches' summaries (outcome counts and per-position totals),
    never their games: the cost grows with players and matches, not games.
    Ratings are fitted over all those matches; ``players`` (specs) limits the
    rows to those players (default: everyone in those matches). Raises
    ValueError when no match is stored for these rules.
    """
    full_rules = dataclasses.asdict(make_game(variant, episode, rules).rules)
    with store.reading():  # one state of the file, even while a league writes to it
        outcomes = store.outcomes(variant, episode, full_rules)
        totals = store.player_totals(variant, episode, full_rules)
        known = {p["id"]: p for p in store.players()}
        exploits = store.exploits(variant, episode, full_rules)
        regrets = store.player_regrets(variant, episode, full_rules)
    if outcomes is None:
        raise ValueError(
            f"no {variant} matches (episode {episode}, rules {json.dumps(rules or {})}) "
            f"stored in {store.path!r}"
        )
    identity = {pid: (p["spec"], p["content_hash"]) for pid, p in known.items()}
    everyone = sorted(totals, key=lambda pid: identity[pid])
    column = {pid: k for k, pid in enumerate(everyone)}
    column_of = np.zeros(max(everyone) + 1, np.int64)
    column_of[everyone] = np.arange(len(everyone))
    position_player = column_of[outcomes["player_ids"]]
    places, counts = outcomes["places"], outcomes["games"]
    # rows in an order of their contents alone (players by identity, then places), so that
    # the fit's floats do not depend on when, or in which order, the matches were stored
    order = np.lexsort(np.concatenate([position_player, places], axis=1).T[::-1])
    position_player, places, counts = position_player[order], places[order], counts[order]
    ratings = plackett_luce_ratings(
        len(everyone), *match_teams(variant, position_player, -places), counts
    )

    shown = everyone
    if players is not None:  # every stored version of them: an edited bot's versions side by side
        wanted = {p.strip() for p in players}
        shown = [pid for pid in everyone if identity[pid][0] in wanted]
    specs = [known[pid]["spec"] for pid in shown]
    rows = []
    for pid in shown:
        spec, content_hash = identity[pid]
        total = totals[pid]
        seatings = total["games"] // total["sequences"]  # games of each deal sequence
        lo, hi = win_ci_from_sums(
            total["games"],
            total["wins"],
            total["sequences"],
            total["wins"] / seatings,
            total["sequence_wins_squared"] / seatings**2,
        )
        rows.append(
            {
                "name": spec if specs.count(spec) == 1 else f"{spec}@{version_label(content_hash)}",
                "spec": spec,
                "content_hash": content_hash,
                "current": known[pid]["current"],
                **ratings[column[pid]],
                "games": total["games"],
                "wins": total["wins"],
                "win_rate": total["wins"] / total["games"],
                "win_rate_ci95": [lo, hi],
                "points_per_deal": total["points"] / max(total["deals"], 1),
                "deals": total["deals"],
                "exploitability": _worst_case(e for e in exploits if e["player_id"] == pid),
                "bid_regret": regret_from_sums(**regrets[pid]) if pid in regrets else None,
            }
        )
    ranking = sorted(range(len(rows)), key=lambda r: -rows[r]["ordinal"])
    rows = [dict(rank=rank, **rows[r]) for rank, r in enumerate(ranking, 1)]
    ranked = [column[shown[r]] for r in ranking]
    share, met = _head_to_head(variant, ranked, len(everyone), position_player, places, counts)
    return Leaderboard(
        variant=variant,
        episode=episode,
        rules=full_rules,
        matches=len(np.unique(outcomes["match_id"])),
        games=int(counts.sum()),  # a match's order counts add up to its games
        players=rows,
        head_to_head=share,
        head_to_head_games=met,
    )


def _worst_case(exploits):
    """The leaderboard's exploitability of a player from its stored exploit runs (None if none):
    the response that won most."""
    best = max(exploits, key=lambda e: e["result"]["win_rate"], default=None)
    if best is None:
        return None
    keys = ("win_rate", "win_rate_ci95", "win_rate_over_fair", "points_per_deal_over_fair")
    return {**{k: best["result"][k] for k in keys}, "budget": best["budget"], "seed": best["seed"]}


def _head_to_head(variant, columns, num_players, position_player, places, counts):
    """(share[i][j] of games i finished ahead of j as opponents, ties half; None if never met,
    games[i][j] they met as opponents), over player columns ``columns``, from outcome rows:
    position_player, places int[R, S] and counts int[R]."""
    # partners are positions 0 and 2, 1 and 3 (ghost_euchre.arena.seatings.seatings): the seats' pattern
    team = variants.make(variant).teams
    ahead = np.zeros(num_players * num_players)  # in halves of a game: ties count half
    met = np.zeros(num_players * num_players, np.int64)
    for a, b in itertools.permutations(range(places.shape[1]), 2):
        if team[a] == team[b]:
            continue
        pair = position_player[:, a] * num_players + position_player[:, b]
        halves = 2 * (places[:, a] < places[:, b]) + (places[:, a] == places[:, b])
        ahead += np.bincount(pair, counts * halves, minlength=num_players * num_players)
        met += np.bincount(pair, counts, minlength=num_players * num_players).astype(np.int64)
    ahead, met = ahead.reshape(num_players, num_players), met.reshape(num_players, num_players)
    share = [
        [ahead[a, b] / (2 * met[a, b]) if met[a, b] else None for b in columns] for a in columns
    ]
    return share, [[int(met[a, b]) for b in columns] for a in columns]
