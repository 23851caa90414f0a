"""What a bidding match measures: contracts by kind, points per contract, paired points differences.

A *bidding match* is a duplicate match in which every seat's card play is made
by one policy (``ghost-euchre-evaluate ... --card-play SPEC``: each player's own policy
makes only its auction decisions, :func:`bidding_players`; classic: the dealer's
discard too), so the differences between the players are differences of bidding alone.

Per player: contracts by kind and how many were made (Ghost Hand: by level 3, 4,
5, moon; classic: ordered up in the first round, named in the second, alone in
either), points per contract (the maker's, classic: the maker's team's, deal
points, averaged over its contracts) and points per deal (classic: its team's).
The difference of two players' points per deal is *paired by deal sequence*:
every sequence is played with every seating on the same cards, so for each
sequence the difference of the two players' points per deal is computed, and
the interval is mean +- 1.96 sd / sqrt(sequences) over the sequences (a normal
interval; sequences are independent).
"""

import math
import time

import numpy as np

from ghost_euchre.agents.base import playing
from ghost_euchre.agents.composite import CompositePolicy
from ghost_euchre.agents.specs import spec_tree, written
from ghost_euchre.arena.match import (
    build_players,
    check_no_human,
    make_game,
    match_result,
    plan_match,
    play_games,
    read_players,
    run_match,
    task_players,
)
from ghost_euchre.arena.player_stats import deal_stats
from ghost_euchre.arena.regret import RecordingPolicy, action_values, merge_samples, regret_of
from ghost_euchre.arena.report import format_rows
from ghost_euchre.arena.stats import Z95
from ghost_euchre.plumbing.workers import ProgressBar, Workers
from ghost_euchre_env import variants
from ghost_euchre_env.core import check_int


def bidding_players(players, card_play, game, seed):
    """The players of a bidding match: each player's policy bids, ``card_play`` (a spec) plays every card.

    players: specs or Policy objects. Returns Policy objects named as the given
    players (``composite[SPEC | CARD_PLAY]`` underneath), seeded as a match
    seeds its players.
    """
    policies, names, _ = build_players(players, game, seed)
    card_players, _, _ = build_players([card_play] * len(players), game, seed + 1)
    return [
        CompositePolicy(game, policy, card_policy, name=name.partition("#")[0])
        for policy, card_policy, name in zip(policies, card_players, names, strict=True)
    ]


def run_bidding_match(
    players,
    card_play=None,
    regret_decisions=0,
    regret_worlds=32,
    games=300,
    seed=0,
    episode="game",
    rules=None,
    num_envs=None,
    progress=False,
    workers=1,
    ray=None,
    variant="ghost",
    oracle=None,
    record=False,
):
    """A duplicate match of ``players`` (specs or Policies), as a bidding match when ``card_play`` is given.

    card_play: None (each player plays its own cards) or the spec (a string or its tree) that
    plays every card; regret_decisions: auction decisions per player sampled for the
    bid regret (0: none), each valued on ``regret_worlds`` worlds with the rest
    of the deal played by ``oracle`` (default: card_play, else heuristic); record:
    keep every game's actions (as run_match). Returns (MatchResult,
    one ghost_euchre.arena.regret.Regret per player or None). Other arguments: ``run_match``'s;
    the deal sequences, then the sampled decisions, are split over the workers
    (the result does not depend on the split).
    """
    check_int("seed", seed, 0)
    game = make_game(variant, episode, rules)
    check_int("regret_decisions", regret_decisions, 0)
    if regret_decisions:
        check_int("regret_worlds", regret_worlds, 1)  # before the match, not after it
    players = read_players(players)
    check_no_human(players)
    card_player = None if card_play is None else spec_tree(card_play)
    if card_player is not None:
        card_play = written(card_player)  # as the result shows it
        check_no_human([card_player], "card-play policy")
        players = bidding_players(players, card_player, game, seed)
    if not regret_decisions:
        options = {"num_envs": num_envs, "progress": progress, "workers": workers, "ray": ray}
        result = run_match(players, variant, games, seed, episode, rules, record=record, **options)
        return add_bidding(result, card_play, None), None
    plan, _ = plan_match(players, variant, games, seed, episode, rules, num_envs)
    start = time.perf_counter()
    with Workers(workers, ray) as pool:
        ranges = plan.ranges(pool.slots)
        tasks = [(plan, lo, hi, regret_decisions, record) for lo, hi in ranges]
        with ProgressBar(progress, len(plan.sequence), "game") as report:
            played = pool.map(_recorded_task, tasks, [hi - lo for lo, hi in ranges], report)
        result = match_result(plan, [part for part, _ in played], time.perf_counter() - start)
        samples = []  # (priority, obs, mask, action, key) of each player's sampled decisions
        for p, name in enumerate(plan.names):
            sample = merge_samples([reservoirs[p] for _, reservoirs in played], regret_decisions)
            if sample is None:
                raise ValueError(f"player {name!r} made no auction decision with a choice")
            samples.append(sample)
        playout = spec_tree(oracle) if oracle else card_player or "heuristic"
        tasks = []  # (player, first decision): chunks of each player's sampled decisions
        for p, (_, obs, mask, _, keys) in enumerate(samples):
            for lo in range(0, len(keys), REGRET_CHUNK):
                rows = slice(lo, lo + REGRET_CHUNK)
                rollout = (
                    playout,
                    regret_worlds,
                    seed + p,
                    "relative",
                    keys[rows],
                )
                tasks.append((p, (game, obs[rows], mask[rows], *rollout)))
        with ProgressBar(progress, sum(len(s[4]) for s in samples), "decision") as report:
            values = pool.map(
                _values_task, [t[1] for t in tasks], [len(t[1][1]) for t in tasks], report
            )
    regrets = []
    for p, (_, _, _, actions, _) in enumerate(samples):
        mine = np.concatenate(
            [v for (owner, _), v in zip(tasks, values, strict=True) if owner == p]
        )
        regrets.append(regret_of(mine, actions))
    return add_bidding(result, card_play, regrets), regrets


def add_bidding(result, card_play, regrets):
    """``result`` with a ``bidding`` entry in each player's dict (so in its JSON): ``card_play`` (the
    spec that played every card, or None), :func:`bidding_stats`' keys and ``bid_regret``
    (``Regret.to_dict()``, or None without regrets)."""
    for p, stats in enumerate(bidding_stats(result)):
        regret = None if regrets is None else regrets[p].to_dict()
        result.players[p]["bidding"] = {"card_play": card_play, **stats, "bid_regret": regret}
    return result


REGRET_CHUNK = 16  # sampled decisions valued per task


def _recorded_task(task, progress):
    """Games lo..hi-1 of a match with each player recording its auction decisions.

    task: (plan, lo, hi, size, record) -> (GamesPlayed, [reservoir of each player]).
    """
    plan, lo, hi, size, record = task
    policies = task_players(plan, lo, hi)
    recorders = [
        RecordingPolicy(policy, size, seed=plan.seed + index)
        for index, policy in enumerate(policies)
    ]
    with playing(recorders):
        part = play_games(plan, recorders, lo, hi, record, progress)
    return part, [recorder.reservoir() for recorder in recorders]


def _values_task(task, progress):
    """The oracle's values of some sampled decisions: task = action_values' arguments."""
    values = action_values(*task)
    progress(len(values))
    return values


def bidding_stats(result):
    """One dict per player of a :class:`ghost_euchre.arena.match.MatchResult`: contracts by kind and more.

    Keys: ``contracts_by_kind`` {kind: [contracts, made]} (the variant's ``contract_kinds``),
    ``points_per_contract`` (None without contracts), ``points_per_deal``.
    """
    deals = result.deal_summary
    players, points, maker, made, _, _ = deal_stats(result.variant, deals, result.seat_player)
    rows = np.arange(len(deals.game))
    contract = maker >= 0
    seat = np.maximum(maker, 0)
    who = players[rows, seat]
    scored = points[rows, seat]
    kind = deals.contract
    stats = []
    for p in range(len(result.players)):
        mine = contract & (who == p)
        by_kind = {
            name: [int((mine & (kind == k)).sum()), int((mine & made & (kind == k)).sum())]
            for k, name in enumerate(variants.make(result.variant).contract_kinds)
        }
        stats.append(
            {
                "contracts_by_kind": by_kind,
                "points_per_contract": float(scored[mine].mean()) if mine.any() else None,
                "points_per_deal": result.players[p]["mean_points_per_deal"],
            }
        )
    return stats


def points_difference(result, a, b):
    """(mean, (lo, hi)): player a's points per deal minus player b's (b: an index, or a list of them:
    their mean), paired by deal sequence (95%)."""
    deals = result.deal_summary
    num_players = len(result.players)
    sequences = result.num_sequences
    players, points, *_ = deal_stats(result.variant, deals, result.seat_player)  # [M, S]
    cell = result.sequence[deals.game][:, None] * num_players + players
    size = sequences * num_players
    sums = np.bincount(cell.ravel(), weights=points.ravel(), minlength=size)
    counts = np.bincount(cell.ravel(), minlength=size)
    per_deal = (sums / np.maximum(counts, 1)).reshape(sequences, num_players)
    diff = per_deal[:, a] - per_deal[:, np.atleast_1d(b)].mean(axis=1)
    mean = float(diff.mean())
    half = Z95 * float(diff.std(ddof=1)) / math.sqrt(len(diff)) if len(diff) > 1 else math.inf
    return mean, (mean - half, mean + half)


def bidding_table(result, regrets=None):
    """The bidding lines of a match as a text table (regrets: one ghost_euchre.arena.regret.Regret per player, or None)."""
    named = variants.make(result.variant).contract_labels
    header = ["player", *(f"{n} (made)" for n in named), "pts/contract", "pts/deal"]
    header += [f"pts/deal - {p['name']} [95% CI]" for p in result.players[1:]]
    if regrets is not None:
        header += ["bid regret [95% CI]", "oracle's choice"]
    rows = [header]
    for p, stats in enumerate(bidding_stats(result)):
        per_contract = stats["points_per_contract"]
        row = [
            result.players[p]["name"],
            *(f"{n} ({m})" for n, m in stats["contracts_by_kind"].values()),
            "-" if per_contract is None else f"{per_contract:+.2f}",
            f"{stats['points_per_deal']:+.3f}",
        ]
        for other in range(1, len(result.players)):
            if other == p:
                row.append("")
                continue
            mean, (lo, hi) = points_difference(result, p, other)
            row.append(f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]")
        if regrets is not None:
            r = regrets[p]
            row += [f"{r.mean:.3f} [{r.ci95[0]:.3f}, {r.ci95[1]:.3f}]", f"{r.best_rate:.0%}"]
        rows.append(row)
    return "\n".join(
        [
            "bidding (paired by deal sequence; regret in points per auction decision):",
            *format_rows(rows),
        ]
    )
