"""Leagues: every group of players meets in a duplicate match; results kept, ratings fitted over all.

:func:`run_league` plays, for a list of player specs, every 3-player subset
(Ghost Hand) or every pairing of two teams of two (classic: each 4-player
subset gives 3 matches), each a duplicate match of :func:`arena.match.run_match`
with the league's seed, and stores it in an :class:`arena.store.Store` in one
transaction. A match already stored (same players, rules, seed and games) is
not played again, so adding a player plays only its new matches, and an
interrupted league resumes where it stopped. The players of a match are put
in a canonical order (sorted specs; classic: partners sorted, then teams), so
the order of the specs on the command line does not matter.

:func:`leaderboard` reads every stored game of one variant, episode and rules
set and ranks the players:

- **rating**: OpenSkill Plackett-Luce (:func:`arena.stats.openskill_ratings`)
  fitted over all those games: with no skill drift (tau = 0: a bot, and a
  checkpoint file, plays the same in every game), the games rated in
  ``RATING_ORDERS`` seeded random orders of a canonical order (by game index,
  then match key) and mu and sigma averaged, so the fit depends only on which
  games are stored, hardly on the order of rating (one order alone moves mu by
  about 2 points in the README's league) and not at all on when they were
  played; rank by ordinal = mu - 3 sigma;
- games, wins, **win rate** with its 95% interval (clustered by deal sequence
  of each match, :func:`arena.stats.clustered_win_ci`), **points per deal**;
- **head to head**: for players i and j, the share of the games in which they
  met as opponents that i finished ahead of j (ties count half).

The leaderboard's JSON schema (``Leaderboard.to_dict()``)::

    {"schema": "ghost-euchre-leaderboard-v1", "variant", "episode", "rules",
     "matches": int, "games": int, "rating_model": "openskill-plackett-luce",
     "players": [{"rank", "name", "spec", "content_hash", "mu", "sigma", "ordinal",
                  "games", "wins", "win_rate", "win_rate_ci95": [lo, hi],
                  "points_per_deal", "deals"}, ...],            (best first)
     "head_to_head": [[share or null, ...], ...],               (rows and columns: players)
     "head_to_head_games": [[int, ...], ...]}
"""

import dataclasses
import itertools
import json
import time

import numpy as np

from agents.specs import make_policy
from arena.match import make_game, match_teams, run_match, seatings
from arena.parallel import ProgressBar, WorkerDied, Workers, above_bar
from arena.stats import RATING_MODEL, clustered_win_ci, openskill_ratings
from arena.store import code_version, match_key, player_identity
from ghost_euchre_env.classic import SEAT_TEAM

LEADERBOARD_SCHEMA = "ghost-euchre-leaderboard-v1"
RATING_ORDERS = 8  # orders of the games averaged in the rating fit


def league_matches(specs, variant="ghost"):
    """The player lists of every match of a league, each in canonical (seat-plan) order.

    ghost: every 3-player subset; classic: every split of every 4-player subset
    into two teams, as [team A first, team B first, team A second, team B second].
    """
    specs = sorted(s.strip() for s in specs)
    if len(set(specs)) != len(specs):
        twice = sorted({s for s in specs if specs.count(s) > 1})
        raise ValueError(f"league players must differ; given more than once: {twice}")
    size = 3 if variant == "ghost" else 4
    if len(specs) < size:
        raise ValueError(f"a {variant} league needs at least {size} players, got {len(specs)}")
    if variant == "ghost":
        return [list(trio) for trio in itertools.combinations(specs, 3)]
    matches = []
    for four in itertools.combinations(specs, 4):
        for partner in four[1:]:
            team_a = (four[0], partner)
            team_b = tuple(s for s in four[1:] if s != partner)
            matches.append([team_a[0], team_b[0], team_a[1], team_b[1]])
    return matches


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
):
    """Play every missing match of a league into ``store``; returns a :class:`LeagueRun`.

    specs: player spec strings (distinct; at least 3 for ghost, 4 for classic);
    games, seed, episode, rules, num_envs: as :func:`arena.match.run_match`
    (every match uses the same seed, so all matches deal the same cards);
    record: keep every game's actions in the store (for replays); out: a
    function called with one line per match (e.g. print), or None; progress:
    one bar of the games of every match to play; workers, ray: matches played
    at once in worker processes or on a Ray cluster (:mod:`arena.parallel`).
    Only this process writes the store, one transaction per match, in the
    league's order (a match finished early waits for the ones before it; on
    Ctrl-C or an error every finished match is written first). A match whose
    worker dies is one line and a ``failed`` entry; the rest is played.
    """
    start = time.perf_counter()
    game = make_game(variant, episode, rules)
    full_rules = dataclasses.asdict(game.rules)
    total_games = len(seatings(variant, games)[0])
    plan = league_matches(specs, variant)
    for spec in sorted({s for m in plan for s in m}):
        make_policy(spec, game, seed=0)  # every spec checked before any match is played
    identities = {spec: player_identity(spec) for spec in {s for m in plan for s in m}}
    version = code_version()
    run = LeagueRun([], [], 0.0, 0.0)
    say = above_bar(out)
    todo = []  # (number, players, key, label) of the matches to play, in league order
    for number, players in enumerate(plan, 1):
        ids = [identities[p] for p in players]
        key = match_key(variant, episode, full_rules, seed, total_games, ids)
        label = " vs ".join(players) if variant == "ghost" else _teams_text(players)
        if store.has_match(key):
            run.skipped.append({"players": players, "match_key": key})
            say(f"[{number}/{len(plan)}] {label}: stored already")
        else:
            todo.append((number, players, key, label))
    player_ids = {}  # registered in league order, so ids do not depend on which match ends first
    for _, players, _, _ in todo:
        for spec in players:
            player_ids.setdefault(spec, store.player_id(identities[spec]))
    options = (variant, games, seed, episode, full_rules, num_envs, record)
    tasks = [(players, *options) for _, players, _, _ in todo]
    finished = {}  # task index -> MatchResult, finished and not yet written

    def write(index):
        number, players, key, label = todo[index]
        result = finished.pop(index)
        match_id = store.add_match(result, key, [player_ids[p] for p in players], num_envs, version)
        run.matches_time_s += result.wall_time_s
        run.played.append(
            {"players": players, "match_id": match_id, "wall_time_s": result.wall_time_s}
        )
        say(
            f"[{number}/{len(plan)}] {label}: {len(result.sequence)} games in {result.wall_time_s:.1f} s"
        )

    done, following = set(), 0  # tasks finished (stored or failed); the next task to write
    with (
        Workers(workers, ray) as pool,
        ProgressBar(progress, total_games * len(tasks), "game") as report,
    ):
        try:
            for index, outcome in pool.run(_match_task, tasks, [total_games] * len(tasks), report):
                done.add(index)
                if isinstance(outcome, WorkerDied):
                    number, players, _, label = todo[index]
                    run.failed.append({"players": players, "error": str(outcome)})
                    say(f"[{number}/{len(plan)}] {label}: not played, {outcome}; rerun to retry")
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
    """One match of a league: run_match's arguments -> its MatchResult."""
    players, variant, games, seed, episode, rules, num_envs, record = task
    return run_match(
        players, variant, games, seed, episode, rules, num_envs, progress, record=record
    )


def _teams_text(players):
    return f"{players[0]} & {players[2]} vs {players[1]} & {players[3]}"


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
            "rating_model": RATING_MODEL,
            "players": self.players,
            "head_to_head": self.head_to_head,
            "head_to_head_games": self.head_to_head_games,
        }

    def to_json(self):
        """``to_dict()`` as indented JSON text."""
        return json.dumps(self.to_dict(), indent=2)


def leaderboard(store, variant="ghost", episode="game", rules=None, players=None):
    """The :class:`Leaderboard` of every stored game of ``variant``, ``episode`` and ``rules``.

    Ratings are fitted over all those games; ``players`` (specs) limits the
    rows to those players (default: everyone in those games). Raises ValueError
    when no match is stored for these rules.
    """
    full_rules = dataclasses.asdict(make_game(variant, episode, rules).rules)
    matches = store.matches(variant, episode, full_rules)
    if not matches:
        raise ValueError(
            f"no {variant} matches (episode {episode}, rules {json.dumps(rules or {})}) "
            f"stored in {store.path!r}"
        )
    known = {p["id"]: p for p in store.players()}
    everyone = sorted({pid for m in matches for pid in m["player_ids"]})
    column = {pid: k for k, pid in enumerate(everyone)}
    data = store.games([m["id"] for m in matches])
    position_to_player = {m["id"]: [column[p] for p in m["player_ids"]] for m in matches}
    seat_player = np.array(
        [
            [position_to_player[int(mid)][pos] for pos in seats]
            for mid, seats in zip(data["match_id"], data["seats"], strict=True)
        ],
        np.int64,
    )
    ratings = _fit_ratings(variant, matches, data, seat_player, len(everyone))

    num_games, num_seats = seat_player.shape
    seat_of = np.full((num_games, len(everyone)), -1, np.int64)
    for seat in range(num_seats):
        seat_of[np.arange(num_games), seat_player[:, seat]] = seat
    match_index = {m["id"]: k for k, m in enumerate(matches)}
    cluster = (
        np.array([match_index[int(m)] for m in data["match_id"]]) * (1 << 32) + data["sequence"]
    )
    team = SEAT_TEAM if variant == "classic" else np.arange(num_seats)
    winner_team = np.where(data["winner_seat"] >= 0, team[np.maximum(data["winner_seat"], 0)], -1)

    shown = everyone
    if players is not None:
        wanted = {player_identity(p) for p in players}
        shown = [
            pid for pid in everyone if (known[pid]["spec"], known[pid]["content_hash"]) in wanted
        ]
    specs = [known[pid]["spec"] for pid in shown]
    rows = []
    for pid in shown:
        k = column[pid]
        played = np.flatnonzero(seat_of[:, k] >= 0)
        seats = seat_of[played, k]
        won = winner_team[played] == team[seats]
        deals = int(data["deals"][played].sum())
        points = int(data["points"][played, seats].sum())
        lo, hi = clustered_win_ci(won, cluster[played])
        spec, content_hash = known[pid]["spec"], known[pid]["content_hash"]
        rows.append(
            {
                "name": spec if specs.count(spec) == 1 else f"{spec}@{content_hash[:8]}",
                "spec": spec,
                "content_hash": content_hash,
                **ratings[k],
                "games": len(played),
                "wins": int(won.sum()),
                "win_rate": float(won.mean()),
                "win_rate_ci95": [lo, hi],
                "points_per_deal": points / max(deals, 1),
                "deals": deals,
            }
        )
    order = sorted(range(len(rows)), key=lambda r: -rows[r]["ordinal"])
    rows = [dict(rank=rank, **rows[r]) for rank, r in enumerate(order, 1)]
    ranked = [column[shown[r]] for r in order]
    share, met = _head_to_head(variant, ranked, seat_of, data["final_scores"])
    return Leaderboard(
        variant=variant,
        episode=episode,
        rules=full_rules,
        matches=len(matches),
        games=num_games,
        players=rows,
        head_to_head=share,
        head_to_head_games=met,
    )


def _fit_ratings(variant, matches, data, seat_player, num_players):
    """OpenSkill ratings over all games (see the module docstring), tau = 0, averaged over orders."""
    key_rank = {
        m["id"]: rank for rank, m in enumerate(sorted(matches, key=lambda m: m["match_key"]))
    }
    ranks = np.array([key_rank[int(m)] for m in data["match_id"]])
    order = np.lexsort((ranks, data["game"]))
    members, scores = match_teams(variant, seat_player[order], data["final_scores"][order])
    return openskill_ratings(num_players, members, scores, orders=RATING_ORDERS, tau=0.0)


def _head_to_head(variant, columns, seat_of, final_scores):
    """(share[i][j] of games i finished ahead of j as opponents, ties half; None if never met,
    games[i][j] they met as opponents), over player columns ``columns``."""
    rows = np.arange(len(seat_of))
    share, met = [], []
    for a in columns:
        share_row, met_row = [], []
        for b in columns:
            seat_a, seat_b = seat_of[:, a], seat_of[:, b]
            both = (seat_a >= 0) & (seat_b >= 0) & (a != b)
            if variant == "classic":
                both &= SEAT_TEAM[np.maximum(seat_a, 0)] != SEAT_TEAM[np.maximum(seat_b, 0)]
            score_a = final_scores[rows, np.maximum(seat_a, 0)][both]
            score_b = final_scores[rows, np.maximum(seat_b, 0)][both]
            n = int(both.sum())
            ahead = float((score_a > score_b).sum() + 0.5 * (score_a == score_b).sum())
            share_row.append(ahead / n if n else None)
            met_row.append(n)
        share.append(share_row)
        met.append(met_row)
    return share, met
