"""Duplicate-deal matches between policies on the batched engine.

**Duplicate deals.** ``games`` is the total number of games, rounded up to a
multiple of the number of seatings: ghost plays every permutation of the players
over the seats (3! = 6); classic keeps the partnerships as listed (players 1 and
3 against 2 and 4) and plays the 4 rotations of the table. The games form *deal
sequences*: every sequence is played once with each seating, and those games
deal identical cards (the same stream key, so the same first dealer and the same
deal after deal while the games run alike). Every player sits in every seat
equally often on the same cards, so the luck of the deal cancels out. All games
of a match run as one batch of the engine (or batches of ``num_envs`` games),
each game stepped only until its first episode ends; each policy is called once
per step with the games where it is to act (:func:`act`, the one place where
seats are dispatched to policies).

**What counts.** A game is won by the seat with the unique top score when it
ends (a truncated game, or a tie in ``episode="deal"``, has no winner; classic:
both players of the winning team win). ``mean_points_per_deal`` is a player's
points (as scored by the engine) over every deal dealt, redeals included. A
*contract* is a deal the player won the auction (ghost: declarer; classic:
maker); it is *made* when the declarer took at least the bid (moon: all six;
classic: three tricks). Win-rate intervals and ratings: :mod:`arena.stats`
(a match is rated only when its players are not all the same policy).

**Same seed, same results** (for the same ``num_envs``: the batching decides
the order of the policies' random draws; the deals never depend on it).

JSON schema (``MatchResult.to_dict()``)::

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

import dataclasses
import itertools
import json
import time
from typing import Any

import numpy as np
from tqdm import tqdm

from agents.human import HumanPolicy, Narrator, seat_labels
from agents.specs import check_policy, make_policy
from arena.stats import RATING_MODEL, clustered_win_ci, openskill_ratings
from ghost_euchre_env import dealing
from ghost_euchre_env.classic import SEAT_TEAM
from ghost_euchre_env.core import EPISODES, check_actions, check_choice, check_int
from ghost_euchre_env.records import VARIANTS, GameRecord, make_game

__all__ = [
    "EPISODES",
    "VARIANTS",
    "MatchResult",
    "act",
    "build_players",
    "make_game",
    "match_teams",
    "play_interactive",
    "run_match",
    "seatings",
]
SCHEMA = "ghost-euchre-match-v1"


# --------------------------------------------------------------------- variants
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


def match_teams(variant, seat_player, final_scores):
    """The teams of each game for rating: (members int[G, T, M], scores int[G, T]).

    ghost: three teams of one (the seats); classic: seats 0+2 against 1+3.
    seat_player: int[G, S] player index by seat; final_scores: int[G, S] by seat.
    """
    if variant == "classic":
        members = np.stack([seat_player[:, [0, 2]], seat_player[:, [1, 3]]], axis=1)
        return members, final_scores[:, [0, 1]]
    return seat_player[:, :, None], final_scores


def _deal_stats(variant, deals, seat_player):
    """Per-deal (player of each seat, points by seat, declarer seat, made, moon, swapper seat).

    deals: the variant's deal summary with global game ids in ``game``.
    """
    players = seat_player[deals.game]
    rows = np.arange(len(deals.game))
    if variant == "ghost":
        declarer = np.where(deals.thrown_in, -1, deals.declarer).astype(np.int64)
        taken = deals.tricks[rows, np.maximum(declarer, 0)]
        made = (declarer >= 0) & (taken >= deals.bid)  # bid 6 = moon: all six tricks
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
    the winning team), truncated bool[G], game_points int64[G, S] points scored
    by seat over the game's deals (classic: the team's, at each seat),
    game_deals int64[G] deals dealt (redeals included); actions: when recorded,
    one bytes object per game (the action ids in order), else None;
    deal_summary: the variant's summary of every deal dealt (its ``game`` is the
    match's game index).
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
    game_points: np.ndarray
    game_deals: np.ndarray
    rating_model: str | None = None
    actions: list | None = None
    deal_summary: Any = None

    @property
    def num_sequences(self):
        """Number of deal sequences (each played once with every seating)."""
        return int(self.sequence.max()) + 1

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
            "sequences": self.num_sequences,
            "seatings": games // self.num_sequences,
            "deals": self.deals,
            "redeals": self.redeals,
            "truncated": int(self.truncated.sum()),
            "decisions": self.decisions,
            "wall_time_s": round(self.wall_time_s, 3),
            "rating_model": self.rating_model,
            "players": self.players,
        }

    def to_json(self):
        """``to_dict()`` as indented JSON text."""
        return json.dumps(self.to_dict(), indent=2)

    def game_records(self):
        """One :class:`ghost_euchre_env.records.GameRecord` per game (needs ``record=True``)."""
        if self.actions is None:
            raise ValueError("this match was played without record=True: it has no game records")
        engine_scores = self.final_scores if self.variant == "ghost" else self.final_scores[:, :2]
        names = [p["name"] for p in self.players]
        return [
            GameRecord(
                variant=self.variant,
                episode=self.episode,
                rules=self.rules,
                key=int(self.keys[g]),
                actions=self.actions[g],
                names=tuple(names[p] for p in self.seat_player[g]),
                final_scores=tuple(int(x) for x in engine_scores[g]),
            )
            for g in range(len(self.sequence))
        ]


def _check_player_count(players, game, variant):
    if len(players) != game.num_players:
        raise ValueError(
            f"{variant} needs {game.num_players} players (one per seat), got {len(players)}"
        )


def _player_seed(seed, index):
    """The seed of player ``index``'s policy, derived from the match seed."""
    return int(
        np.random.SeedSequence([seed, index]).generate_state(1, np.uint64)[0] >> np.uint64(1)
    )


def build_players(players, game, seed):
    """(policies, names, specs) of the match's players: spec strings are built, policies checked.

    Names are the specs, with ``#2``, ``#3`` added to repeats (``random``, ``random#2``).
    """
    policies, specs = [], []
    for index, player in enumerate(players):
        if isinstance(player, str):
            policy = make_policy(player, game, seed=_player_seed(seed, index))
            spec = player.strip()
        else:
            check_policy(player, getattr(player, "name", type(player).__name__))
            policy, spec = player, player.name
        policies.append(policy)
        specs.append(spec)
    return policies, player_names(specs), specs


def player_names(specs):
    """The players' names: the specs, with ``#2``, ``#3`` added to repeats (``random``, ``random#2``)."""
    return [
        spec if specs[:k].count(spec) == 0 else f"{spec}#{specs[:k].count(spec) + 1}"
        for k, spec in enumerate(specs)
    ]


def act(policies, names, seat_player, obs, mask, player):
    """Actions int64[n] of n games: each policy called once, on the games where it is to act.

    seat_player: int[n, S] player index by seat; obs, mask: the acting seats'
    observations and legal masks; player: int[n] seat to act. The one place where
    seats are dispatched to policies.
    """
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
    record=False,
):
    """Play a duplicate-deal match and return a :class:`MatchResult`.

    players: one spec string or Policy per seat (3 for ghost, 4 for classic);
    games: total games, rounded up to whole deal sequences (6 seatings for ghost, 4 for classic);
    seed: int >= 0 (deals and the players' seeds); episode: "game" or "deal";
    rules: dict of the engine's rules options; num_envs: most games stepped at
    once (None: all; rounded up to whole deal sequences); progress: show a bar;
    record: keep every game's actions (``MatchResult.actions``, ``game_records()``).
    """
    check_int("seed", seed, 0)
    game = make_game(variant, episode, rules)
    _check_player_count(players, game, variant)
    policies, names, specs = build_players(players, game, seed)
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
    acted_games, acted = [], []  # per step (record=True): game ids and their actions
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
            actions = act(policies, names, seat_player[alive], obs, mask, player)
            result = game.step(state, actions)
            decisions += len(alive)
            if record:
                acted_games.append(alive)
                acted.append(actions.astype(np.uint8))
            ended: Any = result.deals  # the variant's deal summary dataclass
            if len(ended.game):
                deal_records.append(dataclasses.replace(ended, game=alive[ended.game]))
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
    _, deal_points, *_ = _deal_stats(variant, deals, seat_player)
    game_points = np.zeros((total, game.num_players), np.int64)
    np.add.at(game_points, deals.game, deal_points)
    stats = _player_stats(
        variant, names, specs, deals, sequence, seat_player, final_scores, winner_seat
    )
    rated = len(set(specs)) > 1
    if rated:
        ratings = openskill_ratings(len(names), *match_teams(variant, seat_player, final_scores))
    else:
        ratings = [None] * len(names)
    for entry, rating in zip(stats, ratings, strict=True):
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
        game_points=game_points,
        game_deals=np.bincount(deals.game, minlength=total).astype(np.int64),
        rating_model=RATING_MODEL if rated else None,
        actions=_split_actions(acted_games, acted, total) if record else None,
        deal_summary=deals,
    )


def _split_actions(acted_games, acted, total):
    """One bytes object per game: its actions in order, from per-step (game ids, actions) arrays."""
    games = np.concatenate(acted_games)
    order = np.argsort(games, kind="stable")  # stable: each game's actions stay in step order
    ends = np.cumsum(np.bincount(games, minlength=total))
    flat = np.concatenate(acted)[order].tobytes()
    return [flat[start:end] for start, end in zip(np.r_[0, ends[:-1]], ends, strict=True)]


def _concat_deals(records):
    fields = dataclasses.fields(records[0])
    return type(records[0])(
        **{f.name: np.concatenate([getattr(r, f.name) for r in records]) for f in fields}
    )


def _player_stats(variant, names, specs, deals, sequence, seat_player, final_scores, winner_seat):
    """One dict per player (schema in the module docstring), without its rating."""
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


# -------------------------------------------------------------------- human play
def play_interactive(
    players, variant="ghost", games=1, seed: int | None = 0, episode="game", rules=None, out=print
):
    """Play ``games`` games one at a time with seats in the given order, narrating every move.

    For matches with a ``human`` player: no duplicate seating. seed: an int >= 0,
    or None for a fresh one, printed so that the games can be played again.
    Every seat is named the same way in every line (:func:`agents.human.seat_labels`).
    Returns the final scores of each game (list of lists, by seat, or by team in classic).
    """
    check_int("games", games, 1)
    if seed is None:
        seed = int(np.random.default_rng().integers(1_000_000))
        out(f"seed {seed} (play these deals again with --seed {seed})")
    check_int("seed", seed, 0)
    game = make_game(variant, episode, rules)
    _check_player_count(players, game, variant)
    policies, names, _ = build_players(players, game, seed)
    labels = seat_labels(names, [isinstance(policy, HumanPolicy) for policy in policies])
    for seat, policy in enumerate(policies):
        if isinstance(policy, HumanPolicy):
            policy.take_seat(seat, labels, out)
    results = []
    for number, key in enumerate(dealing.stream_keys(seed, games)):
        state = game.init(np.array([key], np.uint64))
        narrator = Narrator(game, labels, out)
        out(f"=== game {number + 1} of {games} ===")
        while True:
            narrator.before(state)
            player = state.player.astype(np.int64)
            mask = game.legal_mask(state)
            obs = game.observe(state, player)
            actions = act(policies, names, np.arange(game.num_players)[None, :], obs, mask, player)
            narrator.action(state, int(actions[0]))
            result = game.step(state, actions)
            narrator.after(state, result)
            if result.terminated[0] or result.truncated[0]:
                results.append(state.scores[0].tolist())
                break
    return results
