"""Results as text tables, JSON, CSV and PNGs (files written atomically).

A match (:class:`ghost_euchre.arena.match.MatchResult`): :func:`match_table`, :func:`write_json`,
:func:`write_csv`, :func:`write_plot`. A league (:class:`ghost_euchre.arena.league.Leaderboard`):
:func:`leaderboard_table`, :func:`write_json`, :func:`write_leaderboard_csv`,
:func:`write_leaderboard_plot`.
"""

import csv

import numpy as np

from ghost_euchre.plumbing.files import write_atomic
from ghost_euchre_env import variants

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


def format_rows(rows, left=1):
    """Lines of a text table: the first row is the header (a rule below it), the first ``left`` columns left-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    return lines


def match_table(result):
    """The per-player results of a :class:`ghost_euchre.arena.match.MatchResult` as a text table.

    Moons and swaps are Ghost Hand's: a classic table has no such columns (they would always
    read 0). ``pts/deal`` is the player's own points a deal (classic: its team's), not a margin.
    """
    ghost = "moon" in variants.make(result.variant).contract_kinds  # moons and swaps: Ghost Hand's
    header = ["player", "games", "wins", "win rate [95% CI]", "pts/deal", "contracts (made)"]
    header += ["moons (made)", "swaps"] if ghost else []
    header += ["final score", "rating mu±sigma"]
    rows = [header]
    for p in result.players:
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
                *([f"{p['moons']} ({p['moons_made']})", str(p["swaps"])] if ghost else []),
                f"{p['mean_final_score']:.1f}",
                "-" if rating is None else f"{rating['mu']:.1f}±{rating['sigma']:.1f}",
            ]
        )
    games, sequences = len(result.sequence), result.num_sequences
    seatings = games // sequences
    info = (
        f"{result.variant}, {games} games ({_count(sequences, 'deal sequence')} x "
        f"{_count(seatings, 'seating')}), episode={result.episode}, "
        f"seed={result.seed}, {result.deals} deals, {result.decisions} decisions, {result.wall_time_s:.1f} s"
    )
    return "\n".join([info, *format_rows(rows)])


def _count(number, noun):
    """'1 deal sequence', '2 deal sequences'."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def write_json(result, path):
    """``result.to_json()`` into ``path`` (atomically); a MatchResult or a Leaderboard."""
    write_atomic(path, lambda f: f.write(result.to_json() + "\n"))


def write_csv(result, path):
    """One row per player, columns ``CSV_COLUMNS`` (empty cell = no value)."""

    def write(handle):
        writer = csv.writer(handle, lineterminator="\n")
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

    write_atomic(path, write)


def short_label(name, width=40):
    """``name`` cut to at most ``width`` characters with a middle ellipsis (keeps a path's file name)."""
    if len(name) <= width:
        return name
    tail = (width - 1) // 2
    return name[: width - 1 - tail] + "…" + name[-tail:]


def write_plot(result, path):
    """A PNG of the win rates with their 95% intervals and the fair share.

    One horizontal bar per player, named on the y axis (so long specs such as a
    checkpoint path never overlap; names beyond 40 characters are shortened in
    the middle), first player on top.
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    names = [short_label(p["name"]) for p in result.players]
    rates = np.array([p["win_rate"] for p in result.players])
    ci = np.array([p["win_rate_ci95"] for p in result.players])
    figure = Figure(figsize=(7, 1.4 + 0.5 * len(names)))
    axes = figure.add_subplot()
    errors = np.maximum(0.0, [rates - ci[:, 0], ci[:, 1] - rates])
    rows = np.arange(len(names))
    axes.barh(rows, rates, xerr=errors, capsize=5, color="tab:blue")
    axes.set_yticks(rows, names)
    axes.invert_yaxis()
    fair = variants.make(result.variant).fair_share
    axes.axvline(fair, color="gray", linestyle="--", label=f"fair share {fair:.0%}")
    axes.set_xlim(0, 1)
    axes.set_xlabel("win rate (95% CI)")
    axes.set_title(f"{result.variant}: {len(result.sequence)} duplicate games, seed {result.seed}")
    axes.legend(loc="lower right")
    figure.tight_layout()
    write_atomic(path, lambda f: figure.savefig(f, format="png", dpi=100), binary=True)
    return figure


# ---------------------------------------------------------------------- leagues
LEADERBOARD_COLUMNS = (
    "rank",
    "name",
    "spec",
    "content_hash",
    "current",
    "mu",
    "sigma",
    "ordinal",
    "games",
    "wins",
    "win_rate",
    "win_rate_ci95_lo",
    "win_rate_ci95_hi",
    "points_per_deal",
    "deals",
)


def ranking_cells(player):
    """The text of a leaderboard row's numbers (a ``Leaderboard.players`` entry), as every table shows them:
    {"mu", "sigma", "ordinal", "win_rate", "win_rate_lo", "win_rate_hi", "points_per_deal", "exploited"}."""
    lo, hi = player["win_rate_ci95"]
    return {
        "mu": f"{player['mu']:.1f}",
        "sigma": f"{player['sigma']:.2f}",
        "ordinal": f"{player['ordinal']:.1f}",
        "win_rate": f"{player['win_rate']:.1%}",
        "win_rate_lo": f"{lo:.1%}",
        "win_rate_hi": f"{hi:.1%}",
        "points_per_deal": f"{player['points_per_deal']:+.3f}",
        "exploited": exploit_text(player["exploitability"]),
    }


def share_cell(share):
    """A head-to-head share (float or None: never met) as the tables and the plot show it: '62%', '-'."""
    return "-" if share is None else f"{share:.0%}"


def leaderboard_table(board):
    """A :class:`ghost_euchre.arena.league.Leaderboard` as text: the ranking, then the head-to-head table."""
    rows = [["rank", "player", "mu", "sigma", "ordinal", "games", "win rate [95% CI]", "pts/deal"]]
    specs = [p["spec"] for p in board.players]
    for p in board.players:
        cells = ranking_cells(p)
        versions = specs.count(p["spec"]) > 1  # versions apart: the one run last says so
        rows.append(
            [
                str(p["rank"]),
                p["name"] + (" (current)" if versions and p["current"] else ""),
                cells["mu"],
                cells["sigma"],
                cells["ordinal"],
                str(p["games"]),
                f"{cells['win_rate']:>6} [{cells['win_rate_lo']}, {cells['win_rate_hi']}]",
                cells["points_per_deal"],
            ]
        )
    if any(p["exploitability"] for p in board.players):  # the column once a result is stored
        rows[0].append("exploited by [95% CI] (budget)")
        for row, p in zip(rows[1:], board.players, strict=True):
            row.append(exploit_text(p["exploitability"]))
    if any(p["bid_regret"] for p in board.players):  # the column once a regret is stored
        rows[0].append("bid regret [95% CI] (decisions)")
        for row, p in zip(rows[1:], board.players, strict=True):
            row.append(regret_text(p["bid_regret"]))
    ranking = format_rows(rows, left=2)
    head = [["ahead of ->", *[str(p["rank"]) for p in board.players]]]
    for p, shares in zip(board.players, board.head_to_head, strict=True):
        head.append([f"{p['rank']} {p['name']}", *map(share_cell, shares)])
    info = (
        f"{board.variant} league, episode={board.episode}: {board.matches} matches, "
        f"{board.games} games; ranked by rating ordinal (mu - 3 sigma)"
    )
    note = "head to head: share of the games met as opponents that the row player finished ahead"
    return "\n".join([info, *ranking, "", note, *format_rows(head)])


def regret_text(regret):
    """A leaderboard row's bid regret as text: points per auction decision, interval, decisions."""
    if regret is None:
        return ""
    lo, hi = regret["mean_regret_ci95"]
    return f"{regret['mean_regret']:.3f} [{lo:.3f}, {hi:.3f}] ({regret['decisions']})"


def exploit_text(found):
    """A leaderboard row's exploitability as text: the best response's win rate, interval, budget."""
    if found is None:
        return "-"
    lo, hi = found["win_rate_ci95"]
    return f"{found['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] ({found['budget']:,})"


def write_leaderboard_csv(board, path):
    """One row per player, columns ``LEADERBOARD_COLUMNS``, then one ``vs <name>`` column per player
    (head-to-head share, empty when they never met)."""
    names = [p["name"] for p in board.players]

    def write(handle):
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow([*LEADERBOARD_COLUMNS, *(f"vs {n}" for n in names)])
        for p, shares in zip(board.players, board.head_to_head, strict=True):
            flat = dict(
                p, win_rate_ci95_lo=p["win_rate_ci95"][0], win_rate_ci95_hi=p["win_rate_ci95"][1]
            )
            cells = [flat[c] for c in LEADERBOARD_COLUMNS]
            writer.writerow(cells + ["" if s is None else s for s in shares])

    write_atomic(path, write)


def leaderboard_figure(board):
    """A matplotlib Figure: ratings (mu with a +-3 sigma bar, so the left end is the
    ordinal the ranking uses) beside the head-to-head heat map."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    players = board.players
    names = [f"{p['rank']}. {short_label(p['name'], 32)}" for p in players]
    count = len(players)
    figure = Figure(figsize=(13, 2.2 + 0.55 * count))
    ratings, heat = figure.subplots(1, 2, width_ratios=[1, 1])
    rows = np.arange(count)
    mu = np.array([p["mu"] for p in players])
    sigma = np.array([p["sigma"] for p in players])
    ratings.errorbar(mu, rows, xerr=3 * sigma, fmt="o", capsize=5, color="tab:blue")
    ratings.set_yticks(rows, names)
    ratings.invert_yaxis()
    ratings.set_xlabel("rating (Plackett-Luce fit): mu, bar = ±3 sigma (left end = ordinal)")
    ratings.set_title(f"{board.variant}: {board.matches} matches, {board.games} games")
    ratings.grid(axis="x", alpha=0.3)
    share = np.array([[np.nan if s is None else s for s in row] for row in board.head_to_head])
    image = heat.imshow(share, vmin=0, vmax=1, cmap="RdBu")
    for i, j in np.ndindex(share.shape):
        if not np.isnan(share[i, j]):
            color = "white" if abs(share[i, j] - 0.5) > 0.3 else "black"
            heat.text(j, i, share_cell(share[i, j]), ha="center", va="center", color=color)
    ranks = [str(p["rank"]) for p in players]
    heat.set_xticks(rows, ranks)
    heat.set_yticks(rows, ranks)
    heat.set_ylabel("player (rank)")
    heat.set_xlabel("opponent (rank)")
    heat.set_title("head to head: row finished ahead of column")
    figure.colorbar(image, ax=heat, fraction=0.046, pad=0.04)
    figure.tight_layout()
    return figure


def write_leaderboard_plot(board, path):
    """:func:`leaderboard_figure` as a PNG file. Returns the figure."""
    figure = leaderboard_figure(board)
    write_atomic(path, lambda f: figure.savefig(f, format="png", dpi=100), binary=True)
    return figure
