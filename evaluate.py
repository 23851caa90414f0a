"""Fair tournaments between policies: duplicate deals, batched play, ratings.

Usage::

    python evaluate.py SPEC SPEC SPEC [--variant ghost|classic] [--games N] [--seed S]
                       [--episode game|deal] [--rule KEY=VALUE ...] [--num-envs N]
                       [--json FILE] [--csv FILE] [--plot FILE] [--quiet]
    python evaluate.py human heuristic heuristic      # play at the terminal
    python evaluate.py serve [--db FILE] [--port 8000] [--host 127.0.0.1]   # the web page

One SPEC per seat (3 for ghost, 4 for classic; see ``agents.specs``). Each SPEC is
a *player*; the same spec given twice is two players (``random``, ``random#2``).

**Duplicate deals.** ``--games`` is the total number of games, rounded up to a
multiple of the number of seatings: ghost plays every permutation of the players
over the seats (3! = 6); classic keeps the partnerships as listed (players 1 and
3 against 2 and 4) and plays the 4 rotations of the table. The games form *deal
sequences*: every sequence is played once with each seating, and those games
deal identical cards (the same
stream key, so the same first dealer and the same deal after deal while the
games run alike). Every player sits in every seat equally often on the same
cards, so the luck of the deal cancels out. All games of a match run as one
batch of the engine (or batches of ``--num-envs`` games), each game stepped only
until its first episode ends; each policy is called once per step with the
games where it is to act.

**What counts.** A game is won by the seat with the unique top score when it
ends (a truncated game, or a tie in ``--episode deal``, has no winner; classic:
both players of the winning team win). ``mean_points_per_deal`` is a player's
points (as scored by the engine) over every deal dealt, redeals included. A
*contract* is a deal the player won the auction (ghost: declarer; classic:
maker); it is *made* when the declarer took at least the bid (moon: all six;
classic: three tricks).

**95% interval** of a win rate: the Wilson score interval over an effective
number of games ``n / max(1, deff)``, where the design effect ``deff`` is the
variance of the win rate computed from the per-sequence win rates (games of one
sequence share their cards, so they are not independent) divided by the
binomial variance. It is never narrower than the Wilson interval of ``n``
independent games; with a single sequence, or a win rate of 0 or 1, it is that
interval.

**Rating:** when the players are not all the same policy, an OpenSkill
Plackett-Luce rating (mu, sigma, ordinal = mu - 3 sigma; start 25 +- 25/3) is
updated game by game in game order, ranking the seats by final score (ties
share a rank; classic ranks the two teams).

**Same seed, same results** (for the same ``--num-envs``: the batching decides
the order of the policies' random draws; the deals never depend on it).

JSON schema (``--json``, ``MatchResult.to_dict()``)::

    {"schema": "ghost-euchre-match-v1", "variant": "ghost", "episode": "game",
     "rules": {...rules options...}, "seed": 0, "games": 3000, "sequences": 500,
     "seatings": 6, "deals": int, "redeals": int, "truncated": int,
     "decisions": int, "wall_time_s": float, "rating_model": "openskill-plackett-luce" | null,
     "players": [{"name": str, "spec": str, "games": int, "wins": int,
                  "win_rate": float, "win_rate_ci95": [lo, hi],
                  "mean_points_per_deal": float, "deals": int,
                  "contracts": int, "contracts_made": int,
                  "contract_success_rate": float | null,
                  "moons": int, "moons_made": int, "swaps": int,
                  "mean_final_score": float,
                  "rating": {"mu": float, "sigma": float, "ordinal": float} | null}, ...]}

Classic: ``contracts`` are the deals where the player made trump, made when its
team took three tricks or more; ``mean_points_per_deal`` and
``mean_final_score`` are its team's; ``moons`` and ``swaps`` are 0.
"""

import argparse
import csv
import dataclasses
import io
import itertools
import json
import math
import os
import sys
import tempfile
import time

import numpy as np
from tqdm import tqdm

from agents.human import HumanQuit, Narrator
from agents.specs import check_policy, make_policy, parse_value, split_spec
from ghost_euchre_env import dealing
from ghost_euchre_env.classic import SEAT_TEAM, ClassicEuchre
from ghost_euchre_env.core import check_actions, check_choice, check_int
from ghost_euchre_env.ghost import GhostEuchre

VARIANTS = ("ghost", "classic")
EPISODES = ("game", "deal")
Z95 = 1.959963984540054  # two-sided 95% normal quantile
SCHEMA = "ghost-euchre-match-v1"
RATING_MODEL = "openskill-plackett-luce"


# ------------------------------------------------------------------ statistics
def wilson_interval(successes, trials, z=Z95):
    """(lo, hi) Wilson score interval of a proportion; trials may be fractional (> 0)."""
    if trials <= 0:
        raise ValueError(f"trials must be > 0, got {trials!r}")
    p = successes / trials
    denominator = 1 + z * z / trials
    center = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, min(p, center - half)), min(1.0, max(p, center + half))


def clustered_win_ci(wins, clusters, z=Z95):
    """95% interval of a win rate from games that come in correlated clusters.

    wins: bool[G] (or 0/1) per game; clusters: int[G] deal sequence of each game.
    Wilson interval over n / max(1, deff) games, deff = (variance of the mean
    from per-cluster means) / (binomial variance); see the module docstring.
    """
    wins = np.asarray(wins, dtype=np.float64)
    clusters = np.asarray(clusters)
    n = len(wins)
    if n == 0:
        raise ValueError("no games: cannot compute a win-rate interval")
    p = wins.mean()
    _, cluster_of = np.unique(clusters, return_inverse=True)
    sizes = np.bincount(cluster_of)
    effective = float(n)
    if len(sizes) >= 2 and 0 < p < 1:
        means = np.bincount(cluster_of, weights=wins) / sizes
        cluster_variance = means.var(ddof=1) / len(sizes)
        binomial_variance = p * (1 - p) / n
        effective = n / max(1.0, cluster_variance / binomial_variance)
    return wilson_interval(p * effective, effective, z)


# --------------------------------------------------------------------- variants
def make_game(variant="ghost", episode="game", rules=None):
    """The engine of ``variant`` with ``episode`` and rules options (dict or None)."""
    check_choice("variant", variant, VARIANTS)
    check_choice("episode", episode, EPISODES)
    rules = dict(rules or {})
    engine = GhostEuchre if variant == "ghost" else ClassicEuchre
    return engine(episode=episode, **rules)


def seatings(variant, games):
    """Duplicate seating plan for at least ``games`` games.

    ghost: all 3! = 6 permutations of the players over the seats; classic: the 4
    rotations of the table, so partnerships stay as listed (players 1 and 3
    against 2 and 4) and every player sits in every seat once. Returns
    (sequence int64[G], seat_player int64[G, S]): G = games rounded up to a
    multiple of the number of seatings; game g plays deal sequence g // K with
    seating g % K (seat_player[g, s] = index of the player at seat s).
    """
    check_choice("variant", variant, VARIANTS)
    check_int("games", games, 1)
    if variant == "ghost":
        orders = np.array(list(itertools.permutations(range(3))), dtype=np.int64)
    else:
        orders = (np.arange(4)[:, None] + np.arange(4)[None, :]) % 4
    num_sequences = -(-games // len(orders))
    total = num_sequences * len(orders)
    return np.arange(total) // len(orders), orders[np.arange(total) % len(orders)]


def _deal_stats(variant, deals, seat_player):
    """Per-deal (player of each seat, points by seat, declarer seat, made, moon, swapper seat).

    deals: the variant's deal summary with global game ids in ``game``.
    """
    players = seat_player[deals.game]
    rows = np.arange(len(deals.game))
    if variant == "ghost":
        declarer = np.where(deals.thrown_in, -1, deals.declarer).astype(np.int64)
        taken = deals.tricks[rows, np.maximum(declarer, 0)]
        made = (declarer >= 0) & (taken >= np.minimum(deals.bid, 6))
        return players, deals.points, declarer, made, deals.bid == 6, deals.swapper.astype(np.int64)
    declarer = np.where(deals.thrown_in, -1, deals.maker).astype(np.int64)
    team_tricks = (
        deals.tricks[:, SEAT_TEAM == 0].sum(axis=1),
        deals.tricks[:, SEAT_TEAM == 1].sum(axis=1),
    )
    maker_team = SEAT_TEAM[np.maximum(declarer, 0)]
    made = (declarer >= 0) & (np.where(maker_team == 0, *team_tricks) >= 3)
    points = deals.points[:, SEAT_TEAM]  # team points shown at every seat of the team
    return players, points, declarer, made, np.zeros(len(rows), bool), np.full(len(rows), -1)


def _seat_scores(variant, scores):
    """Final scores by seat, int[G, S] (classic: the seat's team score)."""
    return scores if variant == "ghost" else scores[:, SEAT_TEAM]


# ------------------------------------------------------------------------ match
@dataclasses.dataclass
class MatchResult:
    """Everything one match produced.

    players: one dict per entry of ``players`` (schema in the module docstring);
    per game g (G games): sequence int64[G], seat_player int64[G, S], keys
    uint64[G] (the dealing stream key), final_scores int64[G, S] by seat (classic:
    team score at each seat), winner_seat int64[G] (-1 none; classic: a seat of
    the winning team), truncated bool[G].
    """

    variant: str
    episode: str
    rules: dict
    seed: int
    players: list
    sequence: np.ndarray
    seat_player: np.ndarray
    keys: np.ndarray
    final_scores: np.ndarray
    winner_seat: np.ndarray
    truncated: np.ndarray
    deals: int
    redeals: int
    decisions: int
    wall_time_s: float
    rating_model: str = None

    def to_dict(self):
        """The JSON-ready summary (schema in the module docstring)."""
        games = len(self.sequence)
        return {
            "schema": SCHEMA,
            "variant": self.variant,
            "episode": self.episode,
            "rules": self.rules,
            "seed": self.seed,
            "games": games,
            "sequences": int(self.sequence.max()) + 1,
            "seatings": games // (int(self.sequence.max()) + 1),
            "deals": self.deals,
            "redeals": self.redeals,
            "truncated": int(self.truncated.sum()),
            "decisions": self.decisions,
            "wall_time_s": round(self.wall_time_s, 3),
            "rating_model": self.rating_model,
            "players": self.players,
        }

    def to_json(self):
        return json.dumps(self.to_dict(), indent=2)

    def table(self):
        """The per-player results as a text table."""
        header = [
            "player",
            "games",
            "wins",
            "win rate [95% CI]",
            "pts/deal",
            "contracts (made)",
            "moons (made)",
            "swaps",
            "final score",
            "rating mu±sigma",
        ]
        rows = [header]
        for p in self.players:
            lo, hi = p["win_rate_ci95"]
            made = p["contract_success_rate"]
            rating = p["rating"]
            rows.append(
                [
                    p["name"],
                    str(p["games"]),
                    str(p["wins"]),
                    f"{p['win_rate']:6.1%} [{lo:.1%}, {hi:.1%}]",
                    f"{p['mean_points_per_deal']:+.3f}",
                    f"{p['contracts']} ({'-' if made is None else f'{made:.0%}'})",
                    f"{p['moons']} ({p['moons_made']})",
                    str(p["swaps"]),
                    f"{p['mean_final_score']:.1f}",
                    "-" if rating is None else f"{rating['mu']:.1f}±{rating['sigma']:.1f}",
                ]
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
        lines = [
            "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
            for r in rows
        ]
        lines.insert(1, "-" * len(lines[0]))
        info = (
            f"{self.variant}, {len(self.sequence)} games ({int(self.sequence.max()) + 1} deal sequences x "
            f"{len(self.sequence) // (int(self.sequence.max()) + 1)} seatings), episode={self.episode}, "
            f"seed={self.seed}, {self.deals} deals, {self.decisions} decisions, {self.wall_time_s:.1f} s"
        )
        return "\n".join([info] + lines)


def _player_seed(seed, index):
    """The seed of player ``index``'s policy, derived from the match seed."""
    return int(
        np.random.SeedSequence([seed, index]).generate_state(1, np.uint64)[0] >> np.uint64(1)
    )


def _build_players(players, game, seed):
    policies, names, specs = [], [], []
    for index, player in enumerate(players):
        if isinstance(player, str):
            policy = make_policy(player, game, seed=_player_seed(seed, index))
            spec = player.strip()
        else:
            check_policy(player, getattr(player, "name", type(player).__name__))
            policy, spec = player, player.name
        policies.append(policy)
        specs.append(spec)
        taken = sum(s == spec for s in specs[:-1])
        names.append(spec if taken == 0 else f"{spec}#{taken + 1}")
    return policies, names, specs


def _act(policies, names, seat_player, obs, mask, player):
    """Actions int64[n]: each policy called once, on the games where it is to act."""
    acting = seat_player[np.arange(len(player)), player]
    actions = np.zeros(len(player), np.int64)
    for index, policy in enumerate(policies):
        rows = np.flatnonzero(acting == index)
        if len(rows) == 0:
            continue
        chosen = policy.act(obs[rows], mask[rows])
        try:
            actions[rows] = check_actions(chosen, mask[rows])
        except ValueError as error:
            raise ValueError(f"player {names[index]!r} returned a bad action: {error}") from None
    return actions


def run_match(
    players,
    variant="ghost",
    games=300,
    seed=0,
    episode="game",
    rules=None,
    num_envs=None,
    progress=False,
):
    """Play a duplicate-deal match and return a :class:`MatchResult`.

    players: one spec string or Policy per seat (3 for ghost, 4 for classic);
    games: total games, rounded up to whole deal sequences (6 seatings for ghost, 4 for classic);
    seed: int >= 0 (deals and the players' seeds); episode: "game" or "deal";
    rules: dict of the engine's rules options; num_envs: most games stepped at
    once (None: all; rounded up to whole deal sequences); progress: show a bar.
    """
    check_int("seed", seed, 0)
    game = make_game(variant, episode, rules)
    if len(players) != game.num_players:
        raise ValueError(
            f"{variant} needs {game.num_players} players (one per seat), got {len(players)}"
        )
    policies, names, specs = _build_players(players, game, seed)
    sequence, seat_player = seatings(variant, games)
    num_seatings = len(sequence) // (int(sequence[-1]) + 1)
    keys = np.repeat(dealing.stream_keys(seed, int(sequence[-1]) + 1), num_seatings)
    total = len(sequence)
    if num_envs is not None:
        check_int("num_envs", num_envs, 1)
    chunk = total if num_envs is None else -(-num_envs // num_seatings) * num_seatings

    start = time.perf_counter()
    final_scores = np.zeros((total, game.num_players), np.int64)
    winner_seat = np.full(total, -1, np.int64)
    truncated = np.zeros(total, bool)
    deal_records = []
    decisions = 0
    bar = tqdm(total=total, unit="game", disable=not progress, leave=False, dynamic_ncols=True)
    for policy in policies:
        policy.reset(np.arange(total))
    for lo in range(0, total, chunk):
        alive = np.arange(lo, min(lo + chunk, total))
        state = game.init(keys[alive])
        while len(alive):
            player = state.player.astype(np.int64)
            mask = game.legal_mask(state)
            obs = game.observe(state, player)
            actions = _act(policies, names, seat_player[alive], obs, mask, player)
            result = game.step(state, actions)
            decisions += len(alive)
            if len(result.deals.game):
                deal_records.append(
                    dataclasses.replace(result.deals, game=alive[result.deals.game])
                )
            done = result.terminated | result.truncated
            if done.any():
                finished = alive[done]
                scores = state.scores[done]
                final_scores[finished] = _seat_scores(variant, scores)
                top = scores.max(axis=1)
                unique = (scores == top[:, None]).sum(axis=1) == 1
                won = result.terminated[done] & unique
                winner_seat[finished[won]] = _seat_scores(variant, scores)[won].argmax(axis=1)
                truncated[finished] = result.truncated[done]
                keep = np.flatnonzero(~done)
                state, alive = state.take(keep), alive[keep]
                bar.update(int(done.sum()))
    bar.close()
    wall = time.perf_counter() - start

    deals = _concat_deals(deal_records)
    stats = _player_stats(
        variant, names, specs, deals, sequence, seat_player, final_scores, winner_seat
    )
    rated = len(set(specs)) > 1
    ratings = _ratings(variant, seat_player, final_scores) if rated else [None] * len(names)
    for entry, rating in zip(stats, ratings):
        entry["rating"] = rating
    return MatchResult(
        variant=variant,
        episode=episode,
        rules=dataclasses.asdict(game.rules),
        seed=seed,
        players=stats,
        sequence=sequence,
        seat_player=seat_player,
        keys=keys,
        final_scores=final_scores,
        winner_seat=winner_seat,
        truncated=truncated,
        deals=len(deals.game),
        redeals=int(deals.thrown_in.sum()),
        decisions=decisions,
        wall_time_s=wall,
        rating_model=RATING_MODEL if rated else None,
    )


def _concat_deals(records):
    fields = dataclasses.fields(records[0])
    return type(records[0])(
        **{f.name: np.concatenate([getattr(r, f.name) for r in records]) for f in fields}
    )


def _player_stats(variant, names, specs, deals, sequence, seat_player, final_scores, winner_seat):
    """One dict per player (schema in the module docstring)."""
    num_players = len(names)
    total = len(sequence)
    seat_of = np.argsort(seat_player, axis=1)  # seat_of[g, p] = seat of player p in game g
    players, points, declarer, made, moon, swapper = _deal_stats(variant, deals, seat_player)
    rows = np.arange(len(deals.game))
    point_sums = np.bincount(players.ravel(), weights=points.ravel(), minlength=num_players)
    deals_of = np.bincount(players.ravel(), minlength=num_players)

    def count(selected, seat):
        return np.bincount(players[rows[selected], seat[selected]], minlength=num_players)

    contract = declarer >= 0
    contracts, contracts_made = count(contract, declarer), count(contract & made, declarer)
    moons, moons_made = count(contract & moon, declarer), count(contract & moon & made, declarer)
    swaps = count(swapper >= 0, swapper)
    if variant == "classic":
        winner_team = np.where(winner_seat >= 0, SEAT_TEAM[np.maximum(winner_seat, 0)], -1)
        won = SEAT_TEAM[seat_of] == winner_team[:, None]  # [G, P]
    else:
        won = seat_of == winner_seat[:, None]
    stats = []
    for p in range(num_players):
        wins = won[:, p]
        lo, hi = clustered_win_ci(wins, sequence)
        stats.append(
            {
                "name": names[p],
                "spec": specs[p],
                "games": total,
                "wins": int(wins.sum()),
                "win_rate": float(wins.mean()),
                "win_rate_ci95": [lo, hi],
                "mean_points_per_deal": float(point_sums[p] / max(deals_of[p], 1)),
                "deals": int(deals_of[p]),
                "contracts": int(contracts[p]),
                "contracts_made": int(contracts_made[p]),
                "contract_success_rate": float(contracts_made[p] / contracts[p])
                if contracts[p]
                else None,
                "moons": int(moons[p]),
                "moons_made": int(moons_made[p]),
                "swaps": int(swaps[p]),
                "mean_final_score": float(final_scores[np.arange(total), seat_of[:, p]].mean()),
            }
        )
    return stats


def _ratings(variant, seat_player, final_scores):
    """OpenSkill Plackett-Luce rating per player, updated game by game in game order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    num_players = seat_player.shape[1]
    ratings = [model.rating(name=str(p)) for p in range(num_players)]
    if variant == "classic":
        teams_of_game = [seat_player[:, [0, 2]], seat_player[:, [1, 3]]]
        team_scores = [final_scores[:, 0], final_scores[:, 1]]
    else:
        teams_of_game = [seat_player[:, [s]] for s in range(num_players)]
        team_scores = [final_scores[:, s] for s in range(num_players)]
    members = np.stack(teams_of_game, axis=1)  # [G, teams, team size]
    scores = np.stack(team_scores, axis=1)  # [G, teams]
    ranks = 1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)  # 1 = best; ties share
    for g in range(len(seat_player)):
        teams = [[ratings[p] for p in team] for team in members[g]]
        updated = model.rate(teams, ranks=ranks[g].tolist())
        for team, new in zip(members[g], updated):
            for p, rating in zip(team, new):
                ratings[p] = rating
    return [
        {"mu": float(r.mu), "sigma": float(r.sigma), "ordinal": float(r.ordinal())} for r in ratings
    ]


# ----------------------------------------------------------------------- output
def _write_atomic(path, write):
    """Call write(file object) on a temporary file beside ``path``, then rename it over ``path``."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=os.path.basename(path))
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


CSV_COLUMNS = (
    "name",
    "spec",
    "games",
    "wins",
    "win_rate",
    "win_rate_ci95_lo",
    "win_rate_ci95_hi",
    "mean_points_per_deal",
    "deals",
    "contracts",
    "contracts_made",
    "contract_success_rate",
    "moons",
    "moons_made",
    "swaps",
    "mean_final_score",
    "rating_mu",
    "rating_sigma",
    "rating_ordinal",
)


def write_json(result, path):
    _write_atomic(path, lambda f: f.write((result.to_json() + "\n").encode()))


def write_csv(result, path):
    """One row per player, columns ``CSV_COLUMNS`` (empty cell = no value)."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for p in result.players:
        rating = p["rating"] or {}
        flat = dict(
            p,
            win_rate_ci95_lo=p["win_rate_ci95"][0],
            win_rate_ci95_hi=p["win_rate_ci95"][1],
            rating_mu=rating.get("mu"),
            rating_sigma=rating.get("sigma"),
            rating_ordinal=rating.get("ordinal"),
        )
        writer.writerow(["" if flat[c] is None else flat[c] for c in CSV_COLUMNS])
    _write_atomic(path, lambda f: f.write(text.getvalue().encode()))


def write_plot(result, path):
    """A PNG bar chart of the win rates with their 95% intervals and the fair share."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    names = [p["name"] for p in result.players]
    rates = np.array([p["win_rate"] for p in result.players])
    ci = np.array([p["win_rate_ci95"] for p in result.players])
    figure = Figure(figsize=(1.6 + 1.3 * len(names), 4))
    axes = figure.add_subplot()
    errors = np.maximum(0.0, [rates - ci[:, 0], ci[:, 1] - rates])
    axes.bar(names, rates, yerr=errors, capsize=6, color="tab:blue")
    fair = 0.5 if result.variant == "classic" else 1 / len(names)
    axes.axhline(fair, color="gray", linestyle="--", label=f"fair share {fair:.0%}")
    axes.set_ylim(0, 1)
    axes.set_ylabel("win rate (95% CI)")
    axes.set_title(f"{result.variant}: {len(result.sequence)} duplicate games, seed {result.seed}")
    axes.legend(loc="best")
    figure.tight_layout()
    _write_atomic(path, lambda f: figure.savefig(f, format="png", dpi=100))


# -------------------------------------------------------------------- human play
def play_interactive(
    players, variant="ghost", games=1, seed=0, episode="game", rules=None, out=print
):
    """Play ``games`` games one at a time with seats in the given order, narrating every move.

    For matches with a ``human`` player: no duplicate seating. Returns the final
    scores of each game (list of lists, by seat).
    """
    game = make_game(variant, episode, rules)
    if len(players) != game.num_players:
        raise ValueError(
            f"{variant} needs {game.num_players} players (one per seat), got {len(players)}"
        )
    policies, names, _ = _build_players(players, game, seed)
    results = []
    for number, key in enumerate(dealing.stream_keys(seed, games)):
        state = game.init(np.array([key], np.uint64))
        narrator = Narrator(game, names, out)
        out(f"=== game {number + 1} of {games} ===")
        while True:
            narrator.before(state)
            player = state.player.astype(np.int64)
            mask = game.legal_mask(state)
            obs = game.observe(state, player)
            actions = _act(policies, names, np.arange(game.num_players)[None, :], obs, mask, player)
            narrator.action(state, int(actions[0]))
            result = game.step(state, actions)
            narrator.after(state, result)
            if result.terminated[0] or result.truncated[0]:
                results.append(state.scores[0].tolist())
                break
    return results


# -------------------------------------------------------------------------- CLI
def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
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
    try:
        rules = _parse_rules(args.rule)
        if any(split_spec(spec)[0] == "human" for spec in args.players):
            try:
                play_interactive(
                    args.players, args.variant, args.games or 1, args.seed, args.episode, rules
                )
            except HumanQuit:
                print("\nGame abandoned.")
            return 0
        result = run_match(
            args.players,
            args.variant,
            args.games or 300,
            args.seed,
            args.episode,
            rules,
            args.num_envs,
            progress=not args.quiet,
        )
    except ValueError as error:
        print(f"evaluate.py: error: {error}", file=sys.stderr)
        return 2
    print(result.table())
    for path, write in ((args.json, write_json), (args.csv, write_csv), (args.plot, write_plot)):
        if path:
            write(result, path)
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
