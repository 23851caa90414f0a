"""Win-rate intervals and ratings.

**95% interval** of a win rate: the Wilson score interval over an effective
number of games ``n / max(1, deff)``, where the design effect ``deff`` is the
variance of the win rate computed from the per-cluster win rates (games of one
deal sequence share their cards, so they are not independent) divided by the
binomial variance. It is never narrower than the Wilson interval of ``n``
independent games; with a single cluster, or a win rate of 0 or 1, it is that
interval.

**Rating:** OpenSkill Plackett-Luce (mu, sigma, ordinal = mu - 3 sigma; start
25 +- 25/3), updated game by game in the order given, ranking the teams of each
game by final score (ties share a rank; a Ghost Hand player is a team of one).
"""

import math

import numpy as np

Z95 = 1.959963984540054  # two-sided 95% normal quantile
RATING_MODEL = "openskill-plackett-luce"


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


def openskill_ratings(num_players, members, scores):
    """OpenSkill Plackett-Luce ratings of ``num_players`` players from games in order.

    members: int[G, T, M] player index of each of the M members of each of the T
    teams of game g; scores: [G, T] final score of each team (higher is better,
    ties share a rank). Returns one dict {"mu", "sigma", "ordinal"} per player
    (players in no game keep the starting rating).
    """
    from openskill.models import PlackettLuce

    members = np.asarray(members)
    scores = np.asarray(scores)
    model = PlackettLuce()
    ratings = [model.rating(name=str(p)) for p in range(num_players)]
    ranks = 1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)  # 1 = best; ties share
    for g in range(len(members)):
        teams = [[ratings[p] for p in team] for team in members[g]]
        updated = model.rate(teams, ranks=ranks[g].tolist())
        for team, new in zip(members[g], updated, strict=True):
            for p, rating in zip(team, new, strict=True):
                ratings[p] = rating
    return [
        {"mu": float(r.mu), "sigma": float(r.sigma), "ordinal": float(r.ordinal())} for r in ratings
    ]
