"""Benchmark report cards (:mod:`ghost_euchre.arena.benchmark`) as a Markdown table, JSON, a PNG chart; the
published cards of the shipped bots.

A card's JSON (``schema`` ``ghost-euchre-card-v1``)::

    {"schema", "suite": "v1", "seed": 55000, "published_seed": true, "variant",
     "project_version", "spec", "fingerprint": SHA-256 of the bot's code (ghost_euchre.agents.versions),
     "planned": [the names of the sections it plays],
     "sections": {"field/heuristics": {"games", "win_rate", "win_rate_ci95": [lo, hi],
                                       "points_per_deal_over_fair", "..._ci95"}, ...,
                  "auction": {"games", "points_per_deal_over_heuristic", "..._ci95",
                              "bid_regret": {"decisions", "mean_regret", "mean_regret_ci95",
                                             "best_rate"}},
                  "cost": {"games"},
                  "scale": {"random": {match figures}, "oracle": {match figures}},
                  "card-play": {"games", "deals", "decisions", "off_line",
                                "points_lost_per_deal", "points_lost_per_deal_ci95"},
                  "robustness": {exploit's figures (opt-in)}},
     "timing": {section: {"wall_time_s", ...; cost: "cpu_ms_per_decision",
                          "decisions_timed", "peak_act_memory_mib", "peak_rss_mib"}}}

Everything but ``timing`` is the same for the same suite, seed and bot, whatever
the worker count. A section added to a released suite later (``benchmark.ADDED``:
``card-play``) is absent from the cards made before it, which keep their schema
and their ``planned`` list: its row reads "not measured", never a number.
Published cards (``ghost_euchre/arena/published/*.json``, in the wheel) are the
shipped bots' cards on each suite's published seed.
"""

import glob
import json
import os
import re

from ghost_euchre.arena.benchmark import ADDED
from ghost_euchre.plumbing.files import write_atomic
from ghost_euchre_env import variants

PUBLISHED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "published")

# (section, figure key, label, format) of the card's table, in order
ROWS = (
    ("field/heuristics", "win_rate", "win rate vs two heuristics (classic: their team)", "%"),
    ("field/pimc", "win_rate", "win rate vs pimc", "%"),
    ("field/network", "win_rate", "win rate vs the shipped network", "%"),
    ("field/three-way", "win_rate", "win rate vs ppo:ghost and pimc", "%"),
    (
        "field/heuristics",
        "points_per_deal_over_fair",
        "points a deal over fair, vs heuristics",
        "+",
    ),
    (
        "auction",
        "points_per_deal_over_heuristic",
        "points a deal over the heuristic's auction",
        "+",
    ),
    ("auction", "bid_regret", "bid regret (points a decision)", "regret"),
    (
        "card-play",
        "points_lost_per_deal",
        "card play: points a deal lost to double-dummy play",
        "lost",
    ),
    ("scale", "random", "scale: random's win rate vs heuristics", "ref"),
    ("scale", "oracle", "scale: oracle's win rate vs heuristics", "ref"),
    ("robustness", "win_rate", "robustness: a best response's win rate", "%"),
)


CARD_PLAY_NOTE = (
    "card play: every card the bot played solved with every hand seen; "
    "no legal player reaches that double-dummy line (loss 0): the figure compares bots' card "
    "play, it does not count mistakes"
)
NOT_MEASURED = "not measured"
"""The value of a row whose section was added to its suite after the card was made."""


def _shown(value, kind):
    if value is None:
        return "-"
    return f"{value:.1%}" if kind == "%" else f"{value:+.3f}" if kind == "+" else f"{value:.3f}"


def figure_rows(card):
    """[(label, value text, interval text, games)] of a card's figures, in :data:`ROWS` order; a
    section added to the card's suite after the card was made (``benchmark.ADDED``): "not
    measured"."""
    rows = []
    for section, key, label, kind in ROWS:
        figures = card["sections"].get(section)
        if figures is None and section in ADDED.get(card["suite"], ()):
            rows.append((label, NOT_MEASURED, "-", "-"))
            continue
        if figures is None or key not in figures:
            continue
        games = figures.get("games", "")
        if kind == "regret":
            regret = figures[key]
            value, ci, kind = regret["mean_regret"], regret["mean_regret_ci95"], "regret"
            games = f"{regret['decisions']} decisions"
        elif kind == "ref":
            value, ci, kind = figures[key]["win_rate"], figures[key]["win_rate_ci95"], "%"
            games = figures[key]["games"]
        else:
            value, ci = figures[key], figures[f"{key}_ci95"]
        rows.append(
            (label, _shown(value, kind), f"[{_shown(ci[0], kind)}, {_shown(ci[1], kind)}]", games)
        )
    return rows


def markdown(card):
    """The card as a Markdown table, its identity above it and its cost below (not a figure)."""
    kind = "published" if card["published_seed"] else "private"
    lines = [
        (
            f"**{card['spec']}** ({card['variant']}), suite {card['suite']}, {kind} seed "
            f"{card['seed']}, ghost-euchre {card['project_version']}, fingerprint "
            f"`{card['fingerprint'][:12]}`"
        ),
        "",
        "| figure | value | 95% interval | games |",
        "|---|---|---|---|",
        *(
            f"| {label} | {value} | {ci} | {games} |"
            for label, value, ci, games in figure_rows(card)
        ),
    ]
    if "card-play" in card["sections"]:
        lines += ["", CARD_PLAY_NOTE]
    cost = card.get("timing", {}).get("cost")
    if cost:
        lines += [
            "",
            (
                f"cost (this machine, not part of the figures): {cost['cpu_ms_per_decision']:.3f} "
                f"CPU ms a decision over {cost['decisions_timed']:,} decisions; peak "
                f"{cost['peak_act_memory_mib']:.3f} MiB allocated in one act call, "
                f"{cost['peak_rss_mib']:.0f} MiB process peak RSS"
            ),
        ]
    missing = [name for name in card["planned"] if name not in card["sections"]]
    if missing:
        lines += ["", f"sections not done: {', '.join(missing)}"]
    return "\n".join(lines)


COMPACT = (
    ("field/heuristics", "win_rate", "vs heuristics"),
    ("field/pimc", "win_rate", "vs pimc"),
    ("field/network", "win_rate", "vs network"),
    ("field/three-way", "win_rate", "three-way"),
    ("auction", "points_per_deal_over_heuristic", "auction pts/deal"),
)


def compact_rows(cards, links=False):
    """Markdown rows of several cards, one line each (the README's and the leaderboard's table):
    the bot, then each :data:`COMPACT` figure with its interval ('-' where the card lacks it)."""
    lines = [
        "| bot | variant | " + " | ".join(label for *_, label in COMPACT) + " | CPU ms/decision |",
        "|---" * (len(COMPACT) + 3) + "|",
    ]
    for card in cards:
        cells = []
        for section, key, _ in COMPACT:
            figures = card["sections"].get(section, {})
            if key not in figures:
                cells.append("-")
                continue
            kind = "+" if key.startswith("points") else "%"
            lo, hi = figures[f"{key}_ci95"]
            cells.append(f"{_shown(figures[key], kind)} [{_shown(lo, kind)}, {_shown(hi, kind)}]")
        cost = card.get("timing", {}).get("cost")
        cells.append(f"{cost['cpu_ms_per_decision']:.3g}" if cost else "-")
        seed = "" if card["published_seed"] else f" (private seed {card['seed']})"
        spec = card["spec"].replace("|", "\\|")  # a composite's bar, not a column
        lines.append(f"| `{spec}`{seed} | {card['variant']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_json(card, path):
    write_atomic(path, lambda handle: json.dump(card, handle, indent=2))


def write_markdown(card, path):
    write_atomic(path, lambda handle: handle.write(markdown(card) + "\n"))


def published_cards(variant=None, suite=None):
    """The shipped bots' published cards (of one variant and suite, or all): by variant in the
    registry's order (Ghost Hand first), then by spec."""
    cards = []
    for path in sorted(glob.glob(os.path.join(PUBLISHED_DIR, "*.json"))):
        with open(path, encoding="utf-8") as handle:
            card = json.load(handle)
        if (variant is None or card["variant"] == variant) and (
            suite is None or card["suite"] == suite
        ):
            cards.append(card)
    order = variants.available()  # the registry's order: Ghost Hand first
    return sorted(cards, key=lambda c: (order.index(c["variant"]), c["spec"]))


HEADLINE = ("ppo:ghost", "ppo:classic", "search", "heuristic")  # the README's bots, each variant's


def headline_cards():
    """The published cards of the :data:`HEADLINE` bots (the README's table; every published card
    is on the Benchmark page), in :func:`published_cards`' order."""
    return [card for card in published_cards() if card["spec"] in HEADLINE]


def published_name(card):
    """The file name a card is published under: ``SUITE-VARIANT-SPEC.json``, the spec's runs of
    characters other than letters, digits and ``.`` written ``-`` (``v1-ghost-ppo-ghost.json``)."""
    safe = re.sub(r"[^A-Za-z0-9.]+", "-", card["spec"]).strip("-")
    return f"{card['suite']}-{card['variant']}-{safe}.json"


def write_plot(card, path, others=None):
    """A PNG of the card's win rates and points a deal beside other cards' (default: the
    published cards of its variant and suite), each with its 95% interval; the figure.

    Win rates are in percent, as the printed card gives them, on one axis of 0-100% in every
    panel, with a dashed line at the fair share (Ghost Hand 33.3%, a classic team 50%); the
    points panels share one axis, with their line at 0 (no better than fair, or than the
    heuristic's auction).
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.ticker import PercentFormatter

    others = published_cards(card["variant"], card["suite"]) if others is None else others
    cards = [card] + [c for c in others if c["spec"] != card["spec"]]
    rows = [(s, k, label, kind) for s, k, label, kind in ROWS if kind in ("%", "+")]
    rows = [r for r in rows if r[0] != "robustness" and any(r[0] in c["sections"] for c in cards)]
    fair = variants.make(card["variant"]).fair_share
    points = [  # every points figure and interval end drawn, and 0: one range for those panels
        x
        for section, key, _, kind in rows
        if kind == "+"
        for c in cards
        if key in c["sections"].get(section, {})
        for x in (c["sections"][section][key], *c["sections"][section][f"{key}_ci95"])
        if x is not None
    ]
    low, high = min([0.0, *points]), max([0.0, *points])
    margin = 0.05 * (high - low or 1.0)
    columns = min(3, len(rows))
    lines = -(-len(rows) // columns)
    figure, grid = plt.subplots(
        lines, columns, figsize=(4 * columns, (0.3 * len(cards) + 0.9) * lines), squeeze=False
    )
    axes = list(grid.flat)
    for ax in axes[len(rows) :]:
        ax.set_visible(False)
    for k, (ax, (section, key, label, kind)) in enumerate(zip(axes, rows, strict=False)):
        scale = 100.0 if kind == "%" else 1.0
        for y, c in enumerate(cards):
            figures = c["sections"].get(section)
            if figures is None or key not in figures:
                continue
            value, (lo, hi) = figures[key], figures[f"{key}_ci95"]
            lo, hi = (value if lo is None else lo), (value if hi is None else hi)
            ax.errorbar(
                scale * value, y, xerr=[[scale * (value - lo)], [scale * (hi - value)]],
                fmt="o", capsize=3, color="C1" if c is card else "C0",
            )  # fmt: skip
        if kind == "%":
            ax.axvline(100 * fair, color="grey", linestyle="--", linewidth=1, zorder=0)
            ax.set_xlim(0, 100)
            ax.xaxis.set_major_formatter(PercentFormatter())
        else:
            ax.axvline(0, color="grey", linestyle="--", linewidth=1, zorder=0)
            ax.set_xlim(low - margin, high + margin)
        ax.set_yticks(range(len(cards)), [c["spec"] for c in cards] if k % columns == 0 else [])
        ax.set_ylim(len(cards) - 0.5, -0.5)
        ax.set_title(_panel_title(label, card["variant"]), fontsize=8)
    kind = "published" if card["published_seed"] else "private"
    figure.suptitle(
        f"{card['spec']} ({card['variant']}, suite {card['suite']}, {kind} seed; "
        f"dashed: fair share {fair:.1%}, or 0 points)",
        fontsize=10,
    )
    figure.tight_layout()
    write_atomic(path, lambda handle: figure.savefig(handle, format="png", dpi=100), binary=True)
    plt.close(figure)
    return figure


def _panel_title(label, variant):
    """A :data:`ROWS` label as the panel of a card of ``variant`` reads it: the note for the other
    variant left out (a Ghost Hand card's panel is not titled "classic: their team")."""
    note = re.search(r" \((\w+): ([^)]*)\)$", label)
    if note is None:
        return label
    base = label[: note.start()]
    return f"{base} ({note.group(2)})" if note.group(1) == variant else base
