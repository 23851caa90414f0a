"""Win-rate intervals and ratings.

**95% interval** of a win rate: the Wilson score interval over an effective
number of games ``n / max(1, deff)``, where the design effect ``deff`` is the
variance of the win rate computed from the per-cluster win rates (games of one
deal sequence share their cards, so they are not independent) divided by the
binomial variance. It is never narrower than the Wilson interval of ``n``
independent games; with a single cluster, or a win rate of 0 or 1, it is that
interval. It needs only five sums (games, wins, clusters, and the sum and sum of
squares of the cluster win rates), so a league adds them up per match.

**Match rating** (:func:`openskill_ratings`): OpenSkill Plackett-Luce (mu, sigma,
ordinal = mu - 3 sigma; start 25 +- 25/3), updated game by game in the order
given, ranking the teams of each game by final score (ties share a rank; a Ghost
Hand player is a team of one).

**League rating** (:func:`plackett_luce_ratings`): the same Plackett-Luce model
fitted to all games at once instead of game by game. Each player has a skill mu
with OpenSkill's prior N(25, (25/3)^2); a team's strength is the sum of its
members' mu; a game's finishing order has the likelihood OpenSkill's update
follows (Weng and Lin 2011, its ties included)::

    log L = sum over teams q of (1 / A_q) * (theta_q / c - log sum_{s: rank_s >= rank_q} exp(theta_s / c))

with A_q the number of teams sharing q's rank and c = beta * sqrt(teams),
beta = 25/6 (OpenSkill's performance spread). mu is the maximum of the posterior
(Newton's method on a concave objective: one optimum, found whatever the order
of the games); sigma = 1 / sqrt(the posterior's curvature in mu_i), the spread
of the factorised Gaussian OpenSkill keeps per player. A game enters only
through its line-up and finishing order, so a count of each (line-up, order)
is all the fit reads.
"""

import math

import numpy as np

Z95 = 1.959963984540054  # two-sided 95% normal quantile
RATING_MODEL = "openskill-plackett-luce"  # a match's rating
FIT_RATING_MODEL = "plackett-luce-map"  # a league's rating
PRIOR_MU, PRIOR_SIGMA, BETA = 25.0, 25.0 / 3.0, 25.0 / 6.0  # OpenSkill's defaults


def wilson_interval(successes, trials, z=Z95):
    """(lo, hi) Wilson score interval of a proportion; trials may be fractional (> 0)."""
    if trials <= 0:
        raise ValueError(f"trials must be > 0, got {trials!r}")
    p = successes / trials
    denominator = 1 + z * z / trials
    center = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return float(max(0.0, min(p, center - half))), float(min(1.0, max(p, center + half)))


def clustered_win_ci(wins, clusters, z=Z95):
    """95% interval of a win rate from games that come in correlated clusters.

    wins: bool[G] (or 0/1) per game; clusters: int[G] cluster (deal sequence) of
    each game. Wilson interval over n / max(1, deff) games, deff = (variance of
    the mean from per-cluster means) / (binomial variance); see the module docstring.
    """
    wins = np.asarray(wins, dtype=np.float64)
    if len(wins) == 0:
        raise ValueError("no games: cannot compute a win-rate interval")
    _, cluster_of = np.unique(np.asarray(clusters), return_inverse=True)
    means = np.bincount(cluster_of, weights=wins) / np.bincount(cluster_of)
    return win_ci_from_sums(len(wins), wins.sum(), len(means), means.sum(), (means**2).sum(), z)


def win_ci_from_sums(games, wins, clusters, rate_sum, rate_squares, z=Z95):
    """:func:`clustered_win_ci` from sums: games, wins, the number of clusters, and the
    sum and the sum of squares of the clusters' win rates (wins / games of each cluster)."""
    if games <= 0:
        raise ValueError("no games: cannot compute a win-rate interval")
    p = wins / games
    effective = float(games)
    if clusters >= 2 and 0 < p < 1:
        rate_variance = max(0.0, rate_squares - rate_sum * rate_sum / clusters) / (clusters - 1)
        effective = games / max(1.0, (rate_variance / clusters) / (p * (1 - p) / games))
    return wilson_interval(p * effective, effective, z)


def _ranks(scores):
    """int[G, T] rank of each team (1 = best; ties share the better rank) from scores [G, T]."""
    scores = np.asarray(scores)
    return 1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)


def _rating_dicts(mu, sigma):
    return [
        {"mu": float(m), "sigma": float(s), "ordinal": float(m - 3 * s)}
        for m, s in zip(mu, sigma, strict=True)
    ]


def openskill_ratings(num_players, members, scores):
    """OpenSkill Plackett-Luce ratings of ``num_players`` players, game by game in the given order.

    members: int[G, T, M] player index of each of the M members of each of the T
    teams of game g; scores: [G, T] final score of each team (higher is better,
    ties share a rank). Returns one dict {"mu", "sigma", "ordinal" = mu - 3 sigma}
    per player (players in no game keep the start 25 +- 25/3).
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ranks = _ranks(scores).tolist()
    ratings = [model.rating(name=str(p)) for p in range(num_players)]
    for teams_of, rank in zip(np.asarray(members).tolist(), ranks, strict=True):
        updated = model.rate([[ratings[p] for p in team] for team in teams_of], ranks=rank)
        for team, new in zip(teams_of, updated, strict=True):
            for p, rating in zip(team, new, strict=True):
                ratings[p] = rating
    return _rating_dicts([r.mu for r in ratings], [r.sigma for r in ratings])


def plackett_luce_ratings(num_players, members, scores, counts, tolerance=1e-9):
    """Plackett-Luce ratings fitted to all games at once (the model in the module docstring).

    members: int[R, T, M] and scores [R, T] as :func:`openskill_ratings`, one row
    per distinct (line-up, finishing order); counts: [R] games of each row.
    Returns one dict {"mu", "sigma", "ordinal" = mu - 3 sigma} per player
    (players in no row keep the prior 25 +- 25/3). Deterministic: the same rows
    in the same order give the same floats. Cost: O(R T^2 M^2 + P^3) per Newton
    step, about 10 steps.
    """
    members = np.asarray(members, np.int64)
    rows, teams, size = members.shape
    ranks = _ranks(scores)
    below = ranks[:, None, :] >= ranks[:, :, None]  # [R, q, s]: team s competes at q's stage
    weight = np.asarray(counts, np.float64)[:, None] / (ranks[:, None, :] == ranks[:, :, None]).sum(
        2
    )
    scale = BETA * math.sqrt(teams)
    eye = np.eye(teams)
    team_of = np.broadcast_to(members[:, :, None, :, None], (rows, teams, teams, size, size))
    pair_of = (team_of * num_players + members[:, None, :, None, :]).reshape(-1)
    member_of = members.reshape(-1)
    prior_precision = 1.0 / PRIOR_SIGMA**2

    def terms(mu):
        """(log posterior + const, gradient [P], Hessian [P, P]) at mu."""
        theta = mu[members].sum(axis=2) / scale
        top = theta.max(axis=1, keepdims=True)
        strength = np.exp(theta - top)[:, None, :] * below  # [R, q, s]
        total = strength.sum(axis=2)
        share = strength / total[:, :, None]
        value = (weight * (theta - top - np.log(total))).sum()
        team_gradient = (weight[:, :, None] * (eye - share)).sum(axis=1) / scale  # [R, s]
        team_hessian = (
            -(weight[:, :, None, None] * share[:, :, :, None] * (eye - share[:, :, None, :])).sum(
                axis=1
            )
            / scale**2
        )  # [R, s, u]
        gradient = np.bincount(
            member_of, np.repeat(team_gradient, size, axis=1).reshape(-1), minlength=num_players
        )
        hessian = np.bincount(
            pair_of,
            np.broadcast_to(team_hessian[..., None, None], team_of.shape).reshape(-1),
            minlength=num_players * num_players,
        ).reshape(num_players, num_players)
        offset = mu - PRIOR_MU
        value -= 0.5 * prior_precision * (offset @ offset)
        return (
            value,
            gradient - prior_precision * offset,
            hessian - prior_precision * np.eye(num_players),
        )

    mu = np.full(num_players, PRIOR_MU)
    value, gradient, hessian = terms(mu)
    while True:
        step = np.linalg.solve(hessian, -gradient)
        length = 1.0
        while True:  # a concave objective: the full Newton step, halved until it climbs
            trial = terms(mu + length * step)
            if trial[0] >= value or length < 1e-6:
                break
            length /= 2
        mu = mu + length * step
        value, gradient, hessian = trial
        if np.abs(length * step).max() < tolerance:
            break
    return _rating_dicts(mu, 1.0 / np.sqrt(-np.diag(hessian)))
