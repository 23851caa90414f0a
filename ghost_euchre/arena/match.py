"""Duplicate-deal matches between policies on the batched engine.

**Duplicate deals.** ``games`` is the total number of games, rounded up to a
multiple of the number of seatings: ghost plays every permutation of the players
over the seats (3! = 6); classic keeps the partnerships as listed (players 1 and
3 against 2 and 4) and plays the 4 rotations of the table. The games form *deal
sequences*: every sequence is played once with each seating, and those games
deal identical cards (the same stream key, so the same first dealer and the same
deal after deal while the games run alike). Every player sits in every seat
equally often on the same cards, so the luck of the deal cancels out. All games
of a match (of a worker's part of it) run as one batch of the engine (or
batches of ``num_envs`` games), each game stepped only until its first episode
ends; each policy is called once per step with the games where it is to act
(:func:`act`, the one place where seats are dispatched to policies).

**What counts.** A game is won by the seat with the unique top score when it
ends (a truncated game, or a tie in ``episode="deal"``, has no winner; classic:
both players of the winning team win). ``mean_points_per_deal`` is a player's
points (as scored by the engine) over every deal dealt, redeals included. A
*contract* is a deal the player won the auction (ghost: declarer; classic:
maker); it is *made* when the declarer took at least the bid (moon: all six;
classic: three tricks). Win-rate intervals and ratings: :mod:`ghost_euchre.arena.stats`
(a match is rated only when its players are not all the same policy).

**Same seed, same results**, whatever ``num_envs``, ``workers`` or ``ray``:
the deals depend only on the seed, and every decision has a key (its game's
stream key and seating, and its step) from which the built-in policies draw
their random numbers (:mod:`ghost_euchre.agents.streams`). With ``workers`` (or ``ray``)
the deal sequences are split into ranges played at once (:mod:`ghost_euchre.plumbing.workers`)
and merged in game order. A policy of yours that draws from its own ``rng``
over the whole batch gives results that depend on the split.

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
                  "rating": {"mu": float, "sigma": float, "ordinal": float} | null,
                  "bidding": {...}}, ...]}    (a bidding match only: ghost_euchre.arena.bidding.add_bidding)

Classic: ``contracts`` are the deals where the player made trump, made when its
team took three tricks or more; ``mean_points_per_deal`` and
``mean_final_score`` are its team's; ``moons`` and ``swaps`` are 0.
"""

import dataclasses
import itertools
import json
import pickle
import time
from typing import Any

import numpy as np

from ghost_euchre.agents.base import game_over, playing, show_deal
from ghost_euchre.agents.checked import PolicyRaised, checked_act
from ghost_euchre.agents.human import HumanPolicy
from ghost_euchre.agents.specs import (
    HUMAN_SEAT,
    SpecTree,
    check_policy,
    make_policy,
    spec_tree,
    uses_human,
    written,
)
from ghost_euchre.agents.streams import child_keys
from ghost_euchre.arena.player_stats import concat_deals, deal_stats, player_stats
from ghost_euchre.arena.seatings import match_teams, seat_scores, seatings
from ghost_euchre.arena.stats import RATING_MODEL, openskill_ratings
from ghost_euchre.plumbing.workers import ProgressBar, TaskNotLoaded, Workers
from ghost_euchre_env import dealing, variants
from ghost_euchre_env.core import EPISODES, check_int
from ghost_euchre_env.records import VARIANTS, GameRecord, make_game

__all__ = [
    "EPISODES",
    "VARIANTS",
    "MatchResult",
    "act",
    "build_players",
    "check_no_human",
    "make_game",
    "read_players",
    "run_match",
]
SCHEMA = "ghost-euchre-match-v1"


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
        engine_scores = self.final_scores[:, : variants.make(self.variant).num_teams]
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


def check_player_count(players, game):
    """ValueError unless ``players`` has one entry per seat of ``game``."""
    if len(players) != game.num_players:
        raise ValueError(
            f"{game.variant.name} needs {game.num_players} players (one per seat), "
            f"got {len(players)}"
        )


def read_players(players):
    """``players`` with each spec string read into its :class:`ghost_euchre.agents.specs.SpecTree`
    (once, for everything a match does with it, its workers included); trees and policies as
    they are."""
    return [spec_tree(p) if isinstance(p, str) else p for p in players]


def _spec(player):
    """The spec string of a player given as a spec (a string or its tree), else None."""
    if isinstance(player, SpecTree):
        return written(player)
    return player if isinstance(player, str) else None


def check_no_human(players, what="player"):
    """ValueError (one line, saying where ``human`` plays) if a spec of ``players`` (specs, their
    trees or Policies) uses ``human`` at any depth, or a Policy is a HumanPolicy: a batched match
    has nobody at a terminal to ask."""
    for player in players:
        spec = _spec(player)
        if isinstance(player, HumanPolicy) or (spec is not None and uses_human(player)):
            name = spec if spec is not None else player.name
            raise ValueError(f"{what} {name!r} cannot play in a batched match: {HUMAN_SEAT}")


def _player_seed(seed, index):
    """The seed of player ``index``'s policy, derived from the match seed."""
    return int(
        np.random.SeedSequence([seed, index]).generate_state(1, np.uint64)[0] >> np.uint64(1)
    )


def build_players(players, game, seed):
    """(policies, names, specs) of the match's players: specs (strings or trees) are built,
    policies checked.

    Names are the specs, with ``#2``, ``#3`` added to repeats (``random``, ``random#2``).
    """
    policies, specs = [], []
    for index, player in enumerate(players):
        spec = _spec(player)
        if spec is not None:
            policy = make_policy(player, game, seed=_player_seed(seed, index))
            spec = spec.strip()
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


def act(policies, names, seat_player, obs, mask, player, keys=None, games=None):
    """Actions int64[n] of n games: each policy called once, on the games where it is to act.

    seat_player: int[n, S] player index by seat; obs, mask: the acting seats'
    observations and legal masks; player: int[n] seat to act; keys: uint64[n]
    keys of the decisions (given to policies that take them,
    :mod:`ghost_euchre.agents.streams`), or None; games: int[n] the match's game ids (for
    messages), or None. What a policy returns is checked, what it raises named
    (:func:`ghost_euchre.agents.checked.checked_act`). The one place where seats are
    dispatched to policies.
    """
    acting = seat_player[np.arange(len(player)), player]
    actions = np.zeros(len(player), np.int64)
    for index, policy in enumerate(policies):
        rows = np.flatnonzero(acting == index)
        if len(rows) == 0:
            continue
        actions[rows] = checked_act(
            policy,
            f"player {names[index]!r}",
            obs[rows],
            mask[rows],
            None if keys is None else keys[rows],
            None if games is None else games[rows],
        )
    return actions


@dataclasses.dataclass
class MatchPlan:
    """What a match plays, before any game: its engine, players and games.

    variant: the game's descriptor; game: the engine; names, specs: per player; sequence, seat_player: as
    :func:`seatings`; keys: uint64[G] dealing stream key of each game;
    game_keys: uint64[G] key of each game's decisions (its stream key and
    seating, :mod:`ghost_euchre.agents.streams`); chunk: most games stepped at once.
    """

    variant: variants.Variant
    episode: str
    seed: int
    players: list
    game: Any
    names: list
    specs: list
    sequence: np.ndarray
    seat_player: np.ndarray
    keys: np.ndarray
    game_keys: np.ndarray
    chunk: int

    @property
    def num_seatings(self):
        """Seatings per deal sequence (6 ghost, 4 classic)."""
        return len(self.sequence) // (int(self.sequence[-1]) + 1)

    def ranges(self, parts):
        """[(lo, hi)] game ranges of at most ``parts`` tasks, each whole deal sequences."""
        sequences = int(self.sequence[-1]) + 1
        bounds = np.linspace(0, sequences, min(parts, sequences) + 1).round().astype(int)
        k = self.num_seatings
        return [(int(a) * k, int(b) * k) for a, b in itertools.pairwise(bounds)]


def plan_match(
    players, variant="ghost", games=300, seed=0, episode="game", rules=None, num_envs=None
):
    """(:class:`MatchPlan`, the players' policies) of a match (arguments as :func:`run_match`)."""
    check_int("seed", seed, 0)
    game = make_game(variant, episode, rules)
    variant = game.variant  # the plan and what it calls hold the descriptor
    check_player_count(players, game)
    players = read_players(players)
    check_no_human(players)
    policies, names, specs = build_players(players, game, seed)
    sequence, seat_player = seatings(variant, games)
    num_seatings = len(sequence) // (int(sequence[-1]) + 1)
    keys = np.repeat(dealing.stream_keys(seed, int(sequence[-1]) + 1), num_seatings)
    game_keys = child_keys(keys, np.arange(len(sequence)) % num_seatings)
    if num_envs is not None:
        check_int("num_envs", num_envs, 1)
    total = len(sequence)
    chunk = total if num_envs is None else -(-num_envs // num_seatings) * num_seatings
    plan = MatchPlan(
        variant, episode, seed, list(players), game, names, specs, sequence, seat_player, keys,
        game_keys, chunk,
    )  # fmt: skip
    return plan, policies


@dataclasses.dataclass
class GamesPlayed:
    """The games lo..hi-1 of a match as :func:`play_games` played them (arrays over those games)."""

    final_scores: np.ndarray
    winner_seat: np.ndarray
    truncated: np.ndarray
    decisions: int
    deal_records: list
    acted: tuple | None


def play_games(plan, policies, lo, hi, record=False, progress=None):
    """Play games lo..hi-1 of ``plan`` with ``policies``; returns :class:`GamesPlayed`.

    Every game's play depends only on the game (its cards and decision keys),
    not on which other games share its batch, for policies keyed by game
    (:mod:`ghost_euchre.agents.streams`) and deterministic ones. progress: called with the
    number of games just finished, or None.
    """
    game, variant, seat_player = plan.game, plan.variant, plan.seat_player
    count = hi - lo
    final_scores = np.zeros((count, game.num_players), np.int64)
    winner_seat = np.full(count, -1, np.int64)
    truncated = np.zeros(count, bool)
    deal_records = []
    acted_games, acted = [], []  # per step (record=True): game ids and their actions
    decisions = 0
    for policy in policies:
        policy.reset(np.arange(lo, hi))
    for start in range(lo, hi, plan.chunk):
        alive = np.arange(start, min(start + plan.chunk, hi))
        state = game.init(plan.keys[alive])
        step = 0
        while len(alive):
            player = state.player.astype(np.int64)
            mask = game.legal_mask(state)
            obs = game.observe(state, player)
            keys = child_keys(plan.game_keys[alive], step)
            for policy in (
                policies
            ):  # a perfect-information reference sees the deal (ghost_euchre.agents.oracle)
                show_deal(policy, alive, state)
            actions = act(policies, plan.names, seat_player[alive], obs, mask, player, keys, alive)
            result = game.step(state, actions)
            decisions += len(alive)
            step += 1
            if record:
                acted_games.append(alive)
                acted.append(actions.astype(np.uint8))
            ended: Any = result.deals  # the variant's deal summary dataclass
            if len(ended.game):
                deal_records.append(dataclasses.replace(ended, game=alive[ended.game]))
            done = result.terminated | result.truncated
            if done.any():
                finished = alive[done] - lo
                scores = state.scores[done]
                final_scores[finished] = seat_scores(variant, scores)
                top = scores.max(axis=1)
                unique = (scores == top[:, None]).sum(axis=1) == 1
                won = result.terminated[done] & unique
                winner_seat[finished[won]] = seat_scores(variant, scores)[won].argmax(axis=1)
                truncated[finished] = result.truncated[done]
                _tell_game_over(
                    plan,
                    policies,
                    alive[done],
                    final_scores[finished],
                    winner_seat[finished],
                    truncated[finished],
                )
                keep = np.flatnonzero(~done)
                state, alive = state.take(keep), alive[keep]
                if progress:
                    progress(int(done.sum()))
    played = (acted_games, acted) if record else None
    return GamesPlayed(final_scores, winner_seat, truncated, decisions, deal_records, played)


def _tell_game_over(plan, policies, games, scores, winner, truncated):
    """Tell each policy that takes it (:func:`ghost_euchre.agents.base.game_over`) that ``games`` (int[M] ids)
    ended, from its own seat: scores int[M, S] by seat, winner int[M] seat (-1: none), truncated bool[M]."""
    teams = plan.variant.teams
    seats = scores.shape[1]
    rows = np.arange(len(games))[:, None]
    for index, policy in enumerate(policies):
        if not callable(getattr(policy, "game_over", None)):
            continue
        seat = np.argmax(plan.seat_player[games] == index, axis=1)
        relative = scores[rows, (seat[:, None] + np.arange(seats)) % seats]
        won = (winner >= 0) & (teams[np.maximum(winner, 0)] == teams[seat])
        game_over(policy, games, relative, won, truncated)


def task_players(plan, lo, hi):
    """The policies of a task that plays games lo..hi-1, built where it runs (a worker process, a
    Ray task): a player whose code raises there (its module, its constructor) is named with the
    worker's games, then its traceback."""
    try:
        return build_players(plan.players, plan.game, plan.seed)[0]
    except PolicyRaised as error:
        raise error.located(f"the worker playing games {lo}..{hi - 1}") from None


def _play_task(task, progress):
    """A task of a match: (plan, policies or None: built here, lo, hi, record) -> GamesPlayed."""
    plan, policies, lo, hi, record = task
    if policies is None:
        policies = task_players(plan, lo, hi)
    with playing(policies):
        return play_games(plan, policies, lo, hi, record, progress)


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
    workers=1,
    ray=None,
):
    """Play a duplicate-deal match and return a :class:`MatchResult`.

    players: one spec string or Policy per seat (3 for ghost, 4 for classic); variant: a
    name of :mod:`ghost_euchre_env.variants` or its descriptor;
    games: total games, rounded up to whole deal sequences (6 seatings for ghost, 4 for classic);
    seed: int >= 0 (deals and the players' seeds); episode: "game" or "deal";
    rules: dict of the engine's rules options; num_envs: most games stepped at
    once (None: all; rounded up to whole deal sequences); progress: show a bar,
    or a function called with the number of games just finished;
    record: keep every game's actions (``MatchResult.actions``, ``game_records()``);
    workers: processes that play deal sequences at once (1: this process
    only), ray: a Ray address (``auto``) to play them on a Ray cluster instead
    (:mod:`ghost_euchre.plumbing.workers`). Policy objects given as players are copied to
    each worker. The result does not depend on workers, ray or num_envs (for
    policies that are deterministic or keyed by game, :mod:`ghost_euchre.agents.streams`).
    """
    plan, policies = plan_match(players, variant, games, seed, episode, rules, num_envs)
    total = len(plan.sequence)
    start = time.perf_counter()
    with Workers(workers, ray) as pool, ProgressBar(progress, total, "game") as report:
        if pool.slots == 1:  # in this process, with the policies built above
            tasks = [(plan, policies, 0, total, record)]
        else:
            check_copyable(plan.players, plan.names)
            tasks = [(plan, None, lo, hi, record) for lo, hi in plan.ranges(pool.slots)]

        def describe(index):
            return f"games {tasks[index][2]}..{tasks[index][3] - 1} of the match"

        try:
            parts = pool.map(_play_task, tasks, [t[3] - t[2] for t in tasks], report, describe)
        except TaskNotLoaded as error:
            raise ValueError(f"{error}; {_not_loaded_hint(plan, str(error))}") from None
    return match_result(plan, parts, time.perf_counter() - start)


WORKER_HINT = (
    "define its class at the top level of a module the workers can import (installed, or its "
    "folder on PYTHONPATH) and keep no locks, open files or threads in it; or play with workers=1"
)


def check_copyable(players, names):
    """ValueError (one line naming the player, and how to fix it) unless every Policy object of
    ``players`` can be copied to a worker process (pickled)."""
    for player, name in zip(players, names, strict=True):
        if _spec(player) is not None:
            continue
        try:
            pickle.dumps(player)
        except Exception as error:  # noqa: BLE001 (pickle raises many kinds: each one line)
            first = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise ValueError(
                f"player {name!r} cannot be copied to the worker processes "
                f"({type(error).__name__}: {first}): {WORKER_HINT}"
            ) from None


def _not_loaded_hint(plan, message):
    """Which player a worker could not load (named in the worker's error), and how to fix it."""
    for player, name in zip(plan.players, plan.names, strict=True):
        spec = _spec(player)
        module = type(player).__module__ if spec is None else spec.partition(":")[0]
        if f"'{module}'" in message or f"<module '{module}'" in message:
            return f"player {name!r} does not load in a worker process: {WORKER_HINT}"
    return WORKER_HINT


def match_result(plan, parts, wall):
    """The :class:`MatchResult` of a match from its :class:`GamesPlayed` parts, in game order."""
    variant, game, sequence, seat_player = plan.variant, plan.game, plan.sequence, plan.seat_player
    total = len(sequence)
    final_scores = np.concatenate([p.final_scores for p in parts])
    winner_seat = np.concatenate([p.winner_seat for p in parts])
    truncated = np.concatenate([p.truncated for p in parts])
    deals = concat_deals([record for p in parts for record in p.deal_records])
    _, deal_points, *_ = deal_stats(variant, deals, seat_player)
    game_points = np.zeros((total, game.num_players), np.int64)
    np.add.at(game_points, deals.game, deal_points)
    names, specs = plan.names, plan.specs
    stats = player_stats(
        variant, names, specs, deals, sequence, seat_player, final_scores, winner_seat
    )
    rated = len(set(specs)) > 1
    if rated:
        ratings = openskill_ratings(len(names), *match_teams(variant, seat_player, final_scores))
    else:
        ratings = [None] * len(names)
    for entry, rating in zip(stats, ratings, strict=True):
        entry["rating"] = rating
    recorded = parts[0].acted is not None
    return MatchResult(
        variant=variant.name,  # results name the variant (their stored format)
        episode=plan.episode,
        rules=dataclasses.asdict(game.rules),
        seed=plan.seed,
        players=stats,
        sequence=sequence,
        seat_player=seat_player,
        keys=plan.keys,
        final_scores=final_scores,
        winner_seat=winner_seat,
        truncated=truncated,
        deals=len(deals.game),
        redeals=int(deals.thrown_in.sum()),
        decisions=sum(p.decisions for p in parts),
        wall_time_s=wall,
        game_points=game_points,
        game_deals=np.bincount(deals.game, minlength=total).astype(np.int64),
        rating_model=RATING_MODEL if rated else None,
        actions=_split_actions(parts, total) if recorded else None,
        deal_summary=deals,
    )


def _split_actions(parts, total):
    """One bytes object per game: its actions in order, from the parts' per-step (game ids, actions)."""
    games = np.concatenate([g for p in parts for g in p.acted[0]])
    order = np.argsort(games, kind="stable")  # stable: each game's actions stay in step order
    ends = np.cumsum(np.bincount(games, minlength=total))
    flat = np.concatenate([a for p in parts for a in p.acted[1]])[order].tobytes()
    return [flat[start:end] for start, end in zip(np.r_[0, ends[:-1]], ends, strict=True)]


# -------------------------------------------------------------------- human play
