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


def openskill_ratings(num_players, members, scores, orders=1, tau=None, seed=0):
    """OpenSkill Plackett-Luce ratings of ``num_players`` players from games.

    members: int[G, T, M] player index of each of the M members of each of the T
    teams of game g; scores: [G, T] final score of each team (higher is better,
    ties share a rank). orders: 1 rates the games once in the given order;
    K > 1 rates them in K seeded random orders and averages mu and sigma (an
    online rating depends on the order of the games; the average does much less).
    tau: the model's per-game skill drift (None: OpenSkill's default 25/300; 0
    for players whose skill does not change). Returns one dict {"mu", "sigma",
    "ordinal" = mu - 3 sigma} per player (players in no game keep the start 25 +- 25/3).
    """
    from openskill.models import PlackettLuce

    members = np.asarray(members)
    scores = np.asarray(scores)
    model = PlackettLuce() if tau is None else PlackettLuce(tau=tau)
    ranks = (1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)).tolist()  # 1 = best
    teams_of = members.tolist()
    runs = [np.arange(len(members))]
    if orders > 1:
        rng = np.random.default_rng(seed)
        runs = [rng.permutation(len(members)) for _ in range(orders)]
    mu = np.zeros(num_players)
    sigma = np.zeros(num_players)
    for order in runs:
        ratings = [model.rating(name=str(p)) for p in range(num_players)]
        for g in order.tolist():
            teams = [[ratings[p] for p in team] for team in teams_of[g]]
            updated = model.rate(teams, ranks=ranks[g])
            for team, new in zip(teams_of[g], updated, strict=True):
                for p, rating in zip(team, new, strict=True):
                    ratings[p] = rating
        mu += [r.mu for r in ratings]
        sigma += [r.sigma for r in ratings]
    mu, sigma = mu / len(runs), sigma / len(runs)
    return [
        {"mu": float(m), "sigma": float(s), "ordinal": float(m - 3 * s)}
        for m, s in zip(mu, sigma, strict=True)
    ]
