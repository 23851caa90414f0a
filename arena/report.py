"""A match's results as a text table, JSON, CSV and a PNG (files written atomically)."""

import csv

import numpy as np

from arena.files import write_atomic

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


def format_rows(rows):
    """Lines of a text table: the first row is the header, first column left-aligned, rule below the header."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(
            c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    return lines


def match_table(result):
    """The per-player results of a :class:`arena.match.MatchResult` as a text table."""
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
                f"{p['moons']} ({p['moons_made']})",
                str(p["swaps"]),
                f"{p['mean_final_score']:.1f}",
                "-" if rating is None else f"{rating['mu']:.1f}±{rating['sigma']:.1f}",
            ]
        )
    games, sequences = len(result.sequence), result.num_sequences
    info = (
        f"{result.variant}, {games} games ({sequences} deal sequences x "
        f"{games // sequences} seatings), episode={result.episode}, "
        f"seed={result.seed}, {result.deals} deals, {result.decisions} decisions, {result.wall_time_s:.1f} s"
    )
    return "\n".join([info, *format_rows(rows)])


def write_json(result, path):
    """``result.to_json()`` into ``path`` (atomically)."""
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
    fair = 0.5 if result.variant == "classic" else 1 / len(names)
    axes.axvline(fair, color="gray", linestyle="--", label=f"fair share {fair:.0%}")
    axes.set_xlim(0, 1)
    axes.set_xlabel("win rate (95% CI)")
    axes.set_title(f"{result.variant}: {len(result.sequence)} duplicate games, seed {result.seed}")
    axes.legend(loc="lower right")
    figure.tight_layout()
    write_atomic(path, lambda f: figure.savefig(f, format="png", dpi=100), binary=True)
    return figure
