"""What each player of a match did, from the deal summaries: points, contracts, moons, swaps, wins.

The per-player dict of ``MatchResult.to_dict()`` (its schema: :mod:`ghost_euchre.arena.match`),
without the rating.
"""

import dataclasses

import numpy as np

from ghost_euchre.arena.stats import clustered_win_ci
from ghost_euchre_env import variants


def deal_stats(variant, deals, seat_player):
    """Per-deal (player of each seat, points by seat, maker seat, made, moon, swapper seat).

    deals: the variant's deal summary with global game ids in ``game``; points
    by seat are the seat's team's (classic: both partners show the team's).
    """
    variant = variants.make(variant)
    players = seat_player[deals.game]
    kinds = variant.contract_kinds
    moon = (
        deals.contract == kinds.index("moon")
        if "moon" in kinds
        else np.zeros(len(deals.game), bool)
    )
    swapper = getattr(deals, "swapper", np.full(len(deals.game), -1))  # a Ghost Hand field
    return (
        players,
        deals.points[:, variant.teams],
        deals.maker.astype(np.int64),
        deals.made,
        moon,
        swapper.astype(np.int64),
    )


def contract_points(result):
    """[float or None] per player of a MatchResult: the mean points the player's seat (classic: its
    team) scored on the deals it won the auction of (None without a contract)."""
    players, points, maker, _, _, _ = deal_stats(
        result.variant, result.deal_summary, result.seat_player
    )
    held = np.flatnonzero(maker >= 0)
    who = players[held, maker[held]]
    scored = points[held, maker[held]]
    sums = np.bincount(who, weights=scored, minlength=len(result.players))
    counts = np.bincount(who, minlength=len(result.players))
    return [float(s / n) if n else None for s, n in zip(sums, counts, strict=True)]


def concat_deals(records):
    """One deal summary of every row of the summaries ``records`` (a non-empty list), in order."""
    fields = dataclasses.fields(records[0])
    return type(records[0])(
        **{f.name: np.concatenate([getattr(r, f.name) for r in records]) for f in fields}
    )


def player_stats(variant, names, specs, deals, sequence, seat_player, final_scores, winner_seat):
    """One dict per player (schema in the module docstring), without its rating."""
    num_players = len(names)
    total = len(sequence)
    seat_of = np.argsort(seat_player, axis=1)  # seat_of[g, p] = seat of player p in game g
    players, points, maker, made, moon, swapper = deal_stats(variant, deals, seat_player)
    rows = np.arange(len(deals.game))
    point_sums = np.bincount(players.ravel(), weights=points.ravel(), minlength=num_players)
    deals_of = np.bincount(players.ravel(), minlength=num_players)

    def count(selected, seat):
        return np.bincount(players[rows[selected], seat[selected]], minlength=num_players)

    contract = maker >= 0
    contracts, contracts_made = count(contract, maker), count(contract & made, maker)
    moons, moons_made = count(contract & moon, maker), count(contract & moon & made, maker)
    swaps = count(swapper >= 0, swapper)
    team = variants.make(variant).teams  # Ghost Hand: every seat its own team
    winner_team = np.where(winner_seat >= 0, team[np.maximum(winner_seat, 0)], -1)
    won = team[seat_of] == winner_team[:, None]  # [G, P]
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
