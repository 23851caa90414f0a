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


def ratio_interval(x, d, z=Z95):
    """Ratio sum(x) / sum(d) over clusters (float[K] each) with its 95% interval (linearised, clustered)."""
    total = d.sum()
    ratio = x.sum() / total
    k = len(x)
    if k < 2:
        return float(ratio), [float("nan")] * 2
    spread = z * np.sqrt(k / (k - 1) * ((x - ratio * d) ** 2).sum()) / total
    return float(ratio), [float(ratio - spread), float(ratio + spread)]


def over_fair_points(result, position=0):
    """Points per deal of player ``position`` of a :class:`ghost_euchre.arena.match.MatchResult` minus the mean of
    the seats', with its interval clustered by deal sequence (classic: seats hold their team's
    points, so the mean is the teams')."""
    seat = np.argmax(result.seat_player == position, axis=1)
    points = np.asarray(result.game_points, np.float64)
    over = points[np.arange(len(points)), seat] - points.mean(axis=1)
    _, cluster = np.unique(result.sequence, return_inverse=True)
    return ratio_interval(
        np.bincount(cluster, weights=over), np.bincount(cluster, weights=result.game_deals)
    )


def places(scores):
    """int[G, T] place of each team (1 = best; ties share the better place) from scores [G, T]."""
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
    ranks = places(scores).tolist()
    ratings = [model.rating(name=str(p)) for p in range(num_players)]
    for teams_of, rank in zip(np.asarray(members).tolist(), ranks, strict=True):
        updated = model.rate([[ratings[p] for p in team] for team in teams_of], ranks=rank)
        for team, new in zip(teams_of, updated, strict=True):
            for p, rating in zip(team, new, strict=True):
                ratings[p] = rating
    return _rating_dicts([r.mu for r in ratings], [r.sigma for r in ratings])


def plackett_luce_ratings(num_players, members, scores, counts, tolerance=1e-7):
    """Plackett-Luce ratings fitted to all games at once (the model in the module docstring).

    members: int[R, T, M] and scores [R, T] as :func:`openskill_ratings`, one row
    per distinct (line-up, finishing order); counts: [R] games of each row.
    Returns one dict {"mu", "sigma", "ordinal" = mu - 3 sigma} per player
    (players in no row keep the prior 25 +- 25/3). Deterministic: the same rows
    in the same order give the same floats. Cost: O(R T^2 log R) once, then
    O(E T^2 M^2 + P^3) per Newton step (about 10), E <= R T the distinct choice sets.
    """
    teams, chosen = _choice_sets(num_players, members, places(scores), counts)
    events, width, size = teams.shape
    present = teams[:, :, 0] < num_players
    total_weight = chosen.sum(axis=1)
    scale = BETA * math.sqrt(np.shape(scores)[1])  # c: the teams of a game, not of a set
    eye = np.eye(width)
    team_of = np.broadcast_to(teams[:, :, None, :, None], (events, width, width, size, size))
    pair_of = (team_of * (num_players + 1) + teams[:, None, :, None, :]).reshape(-1)
    member_of = teams.reshape(-1)
    prior_precision = 1.0 / PRIOR_SIGMA**2
    kept = np.arange(num_players)

    def terms(mu):
        """(log posterior + const, gradient [P], Hessian [P, P]) at mu."""
        theta = np.append(mu, 0.0)[teams].sum(axis=2) / scale
        theta = theta - np.where(present, theta, -np.inf).max(axis=1, keepdims=True)
        strength = np.where(present, np.exp(np.where(present, theta, 0.0)), 0.0)
        total = strength.sum(axis=1)
        share = strength / total[:, None]
        value = (chosen * np.where(present, theta, 0.0)).sum() - total_weight @ np.log(total)
        team_gradient = (chosen - total_weight[:, None] * share) / scale  # [E, T]
        team_hessian = -(total_weight[:, None, None] / scale**2) * (
            share[:, :, None] * (eye - share[:, None, :])
        )  # [E, T, T]
        gradient = np.bincount(
            member_of,
            np.repeat(team_gradient, size, axis=1).reshape(-1),
            minlength=num_players + 1,
        )[:num_players]
        hessian = np.bincount(
            pair_of,
            np.broadcast_to(team_hessian[..., None, None], team_of.shape).reshape(-1),
            minlength=(num_players + 1) ** 2,
        ).reshape(num_players + 1, num_players + 1)[np.ix_(kept, kept)]
        offset = mu - PRIOR_MU
        value -= 0.5 * prior_precision * (offset @ offset)
        gradient = gradient - prior_precision * offset
        return value, gradient, hessian - prior_precision * np.eye(num_players)

    mu = np.full(num_players, PRIOR_MU)
    value, gradient, hessian = terms(mu)
    while True:
        step = np.linalg.solve(hessian, -gradient)
        if np.abs(step).max() < tolerance:
            break
        length = 1.0
        while True:  # a concave objective: the full Newton step, halved until it climbs
            trial = terms(mu + length * step)
            if trial[0] >= value - 1e-12 * abs(value) or length < 1e-6:  # (rounding aside)
                break
            length /= 2
        mu = mu + length * step
        value, gradient, hessian = trial
    return _rating_dicts(mu, 1.0 / np.sqrt(-np.diag(hessian)))


def _choice_sets(num_players, members, ranks, counts):
    """The likelihood's terms, merged: every (team q, its set {s: rank_s >= rank_q}) of every
    row is one choice of q from that set, worth counts / A_q games; choices from the same set
    of teams (in any row) add up. Returns (teams int[E, T, M]: the set's teams, padded with
    player ``num_players``; chosen float[E, T]: games' worth of each team chosen from it),
    sets sorted by their teams (deterministic). Sets of one team carry no information: dropped.
    """
    members = np.asarray(members, np.int64)
    width, size = members.shape[1:]
    in_set = ranks[:, None, :] >= ranks[:, :, None]  # [R, q, s]
    weight = np.asarray(counts, np.float64)[:, None] / (ranks[:, None, :] == ranks[:, :, None]).sum(
        2
    )
    base = num_players**size + 1  # team ids 1 .. P^M; 0 = not in the set
    if float(base) ** width >= 2.0**63:
        raise ValueError(f"{num_players} players are too many for one rating fit")
    team_id = 1 + (np.sort(members, axis=2) * num_players ** np.arange(size)).sum(axis=2)
    ids = np.where(in_set, team_id[:, None, :], 0)  # [R, q, s]
    order = np.argsort(-ids, axis=2, kind="stable")  # the set's teams first, by id
    ordered = np.take_along_axis(ids, order, axis=2)
    key = (ordered * base ** np.arange(width)).sum(axis=2).reshape(-1)
    slot = (order == np.arange(width)[None, :, None]).argmax(axis=2).reshape(-1)  # q's place
    real = (in_set.sum(axis=2) >= 2).reshape(-1)
    unique, first, inverse = np.unique(key[real], return_index=True, return_inverse=True)
    chosen = np.bincount(
        inverse * width + slot[real], weight.reshape(-1)[real], minlength=len(unique) * width
    ).reshape(len(unique), width)
    source = np.flatnonzero(real)[first]  # one (row, q) of each set
    teams = members[(source // width)[:, None], order.reshape(-1, width)[source]]  # [E, T, M]
    teams[ordered.reshape(-1, width)[source] == 0] = num_players
    return teams, chosen
