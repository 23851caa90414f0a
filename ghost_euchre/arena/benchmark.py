"""The benchmark: any bot scored on a named, versioned suite of fixed deals, as one report card.

``ghost-euchre-evaluate benchmark SPEC [--variant ghost|classic] [--suite v1] [--seed S]``
(the command line: :mod:`ghost_euchre.arena.benchmark_cli`; the card's tables, chart and the
published cards: :mod:`ghost_euchre.arena.cards`).

A suite is data (:data:`SUITES`): per variant, its sections, each a lineup of
opponents, a number of games and a seed offset. SPEC sits at position 0 of
every lineup (classic: SPEC's team of two copies against a team of the
opponent's); every match is a duplicate match (:func:`ghost_euchre.arena.match.run_match`).
Sections of ``v1`` (games; ghost / classic):

- ``field/heuristics`` (1,200 / 1,200), ``field/pimc`` (240 / 240),
  ``field/network`` (600 ``ppo:ghost`` / 400 ``ppo:classic``) and, Ghost Hand
  only, ``field/three-way`` against ``ppo:ghost`` and ``pimc`` (240): the win rate
  (fair share 1/3; classic 1/2) and the points per deal over the fair share
  (SPEC's minus the mean of the seats'), each with its 95% interval clustered
  by deal sequence (:func:`ghost_euchre.arena.stats.over_fair_points`);
- ``auction`` (1,200): a bidding match (:mod:`ghost_euchre.arena.bidding`) against the
  heuristics, the heuristic playing every card: SPEC's points per deal over
  the heuristics' auction (paired by deal sequence), and its bid regret over
  120 sampled auction decisions of 16 worlds each (:mod:`ghost_euchre.arena.regret`);
- ``cost`` (60, in this process): SPEC's CPU milliseconds per decision, the
  peak memory NumPy and Python allocate in one of its ``act`` calls
  (``tracemalloc``, on every 8th call, untimed) and the process's peak RSS;
- ``scale`` (240): on the deals of ``field/heuristics``' first 240 games,
  ``random`` (the floor) and ``oracle`` (:mod:`ghost_euchre.agents.oracle`: the search shown
  every hand, no legal player) in SPEC's place, so a score reads against how
  much of the game is skill;
- ``card-play`` (240, added to ``v1`` later: :data:`ADDED`): SPEC against the
  heuristics on ``scale``'s deals (``field/heuristics``' first 240 games),
  recorded, every card SPEC played solved with every hand seen
  (:func:`ghost_euchre.arena.analysis.analyse_game`): the points a deal SPEC lost
  against double-dummy play (:func:`card_play_figures`). No legal player reaches
  that line (loss 0): a figure of card play alone, to compare bots by;
- ``robustness`` (opt-in, it trains; only from the command, which can train):
  what ``exploit`` measures at a budget of 1,048,576 decisions.

Section k deals from ``seed + offset`` (the published seed ``55000``, or
``--seed``: a private suite of the same structure, and the card says so). The
figures do not depend on ``workers``; the same suite and bot give the same card
JSON but its ``timing``. **A suite's deals and sizes never change once
released: a change is a new suite (``v2``), never an edit of ``v1``.** The one
addition a released suite takes is a section that plays only deals the suite
already deals and changes no other section (:data:`ADDED`): a card made before it
lacks that section, and says "not measured" (:mod:`ghost_euchre.arena.cards`); the
same command on a stored card plays only the missing section.
"""

import dataclasses
import functools
import resource
import sys
import time
import tracemalloc

import numpy as np

from ghost_euchre.agents.base import Wrapped, end_match
from ghost_euchre.agents.checked import PolicyRaised
from ghost_euchre.agents.extras import extra_named
from ghost_euchre.agents.specs import make_policy
from ghost_euchre.agents.streams import act_keyed
from ghost_euchre.arena.analysis import analyse_game
from ghost_euchre.arena.bidding import points_difference, run_bidding_match
from ghost_euchre.arena.match import _player_seed, make_game, run_match
from ghost_euchre.arena.stats import over_fair_points, ratio_interval
from ghost_euchre_env import __version__, variants

CARD_SCHEMA = "ghost-euchre-card-v1"


@dataclasses.dataclass(frozen=True)
class Section:
    """One part of a suite: ``kind`` (match, auction, cost, scale or robustness) of SPEC against
    ``opponents`` (specs: one per other seat in Ghost Hand, the other team's in classic) over
    ``games`` duplicate games dealt from the suite's seed + ``offset``; ``references``: the specs
    played in SPEC's place (scale); ``regret``: (decisions, worlds) of the bid regret (auction);
    ``budget``: training decisions (robustness)."""

    name: str
    kind: str  # match, auction, cost, scale, cardplay or robustness
    opponents: tuple = ()
    games: int = 0
    offset: int = 0
    references: tuple = ()
    regret: tuple = (0, 0)
    budget: int = 0


@dataclasses.dataclass(frozen=True)
class Suite:
    """A named suite: its published seed and its sections per variant (name -> tuple of Section)."""

    name: str
    seed: int
    sections: dict

    def of(self, variant, robustness=False):
        """The sections played for ``variant`` (robustness only when asked for)."""
        return [s for s in self.sections[variant] if robustness or s.kind != "robustness"]


def _v1(variant):
    """v1's sections of ``variant`` (a descriptor with a shipped network): the network is the
    first it ships (its own, ``ppo:NAME``); a variant whose seats score alone (Ghost Hand) plays
    600 games against it and meets it beside ``pimc`` too (``field/three-way``), a team game 400."""
    network = f"ppo:{variant.networks[0].name}"
    three_way = not variant.has_partners
    return (
        Section("field/heuristics", "match", ("heuristic", "heuristic"), 1200, 0),
        Section("field/pimc", "match", ("pimc", "pimc"), 240, 1),
        Section("field/network", "match", (network, network), 600 if three_way else 400, 2),
        *((Section("field/three-way", "match", (network, "pimc"), 240, 3),) if three_way else ()),
        Section("auction", "auction", ("heuristic", "heuristic"), 1200, 4, regret=(120, 16)),
        Section("cost", "cost", ("heuristic", "heuristic"), 60, 5),
        Section("scale", "scale", ("heuristic", "heuristic"), 240, 0, ("random", "oracle")),
        Section("card-play", "cardplay", ("heuristic", "heuristic"), 240, 0),
        Section("robustness", "robustness", games=300, offset=6, budget=1_048_576),
    )


V1 = Suite("v1", 55000, {name: _v1(variants.make(name)) for name in variants.NAMES})
"""The first suite: its sections of each shipped variant, from what the variant declares."""
SUITES = {"v1": V1}
"""The released suites by name: never edited once released (a change is a new name)."""
ADDED = {"v1": ("card-play",)}
"""Sections added to a released suite after its first cards, by suite: each plays only deals the
suite already dealt and changes no other section; a card made before lacks them ("not measured")."""


def lineup(variant, bot, opponents):
    """The players of a section's match: ``bot`` in every seat of team 0 (classic: partners), the
    opponents in the other seats in order (classic: the other team's spec twice)."""
    teams = variants.make(variant).teams
    return [bot if t == 0 else opponents[(t - 1) % len(opponents)] for t in teams.tolist()]


def finite(interval):
    """An interval [lo, hi] as JSON keeps it: None for a bound that is not finite (too few games)."""
    return [float(x) if np.isfinite(x) else None for x in interval]


def match_figures(result, position=0):
    """Win rate and points per deal over the fair share of ``position`` in a MatchResult, with
    their 95% intervals and the game count."""
    row = result.players[position]
    points, points_ci = over_fair_points(result, position)
    return {
        "games": len(result.sequence),
        "win_rate": row["win_rate"],
        "win_rate_ci95": finite(row["win_rate_ci95"]),
        "points_per_deal_over_fair": points,
        "points_per_deal_over_fair_ci95": finite(points_ci),
    }


class TimedPolicy(Wrapped):
    """``inner`` played as it is, its ``act`` calls timed (CPU seconds of this process) and, on
    every ``every``-th call (untimed), its peak traced allocation measured (``tracemalloc``)."""

    def __init__(self, inner, every=8):
        super().__init__(inner)
        self.every = every
        self.cpu_s, self.decisions, self.calls, self.peak_bytes = 0.0, 0, 0, 0

    def act(self, obs, mask, keys=None, games=None):
        self.calls += 1
        if self.calls % self.every == 0 and not tracemalloc.is_tracing():
            tracemalloc.start()
            try:
                return act_keyed(self.inner, obs, mask, keys, games)
            finally:
                self.peak_bytes = max(self.peak_bytes, tracemalloc.get_traced_memory()[1])
                tracemalloc.stop()
        start = time.process_time()
        actions = act_keyed(self.inner, obs, mask, keys, games)
        self.cpu_s += time.process_time() - start
        self.decisions += len(mask)
        return actions


def run_section(section, spec, variant, seed, workers=1, progress=False, robustness=None):
    """(figures, timing) of one section for ``spec`` on deals of ``seed + section.offset``: figures are
    deterministic (the card's ``sections``), timing is not (its ``timing``)."""
    seed = seed + section.offset
    players = lineup(variant, spec, section.opponents) if section.opponents else [spec]
    options = {"variant": variant, "games": section.games, "seed": seed, "progress": progress}
    start = time.perf_counter()
    if section.kind == "match":
        figures = match_figures(run_match(players, workers=workers, **options))
    elif section.kind == "auction":
        decisions, worlds = section.regret
        result, regrets = run_bidding_match(
            players, "heuristic", decisions, worlds, workers=workers, **options
        )
        assert regrets is not None  # asked for: one per player
        others = np.flatnonzero(variants.make(variant).teams != 0).tolist()
        mean, ci = points_difference(result, 0, others)
        figures = {
            "games": len(result.sequence),
            "points_per_deal_over_heuristic": mean,
            "points_per_deal_over_heuristic_ci95": finite(ci),
            "bid_regret": dict(regrets[0].to_dict(), mean_regret_ci95=finite(regrets[0].ci95)),
        }
    elif section.kind == "cost":
        return _cost(players, options)
    elif section.kind == "scale":
        figures = {}
        for reference in section.references:
            lined = lineup(variant, reference, section.opponents)
            figures[reference] = match_figures(run_match(lined, workers=workers, **options))
    elif section.kind == "cardplay":
        result = run_match(players, workers=workers, record=True, **options)
        figures = card_play_figures(result)
    elif section.kind == "robustness":
        if robustness is None:
            raise ValueError("the robustness section trains: run it from the evaluate command")
        figures = robustness(spec, variant, seed, section.budget, section.games)
    else:
        raise ValueError(f"unknown section kind {section.kind!r}")
    return figures, {"wall_time_s": round(time.perf_counter() - start, 3)}


def card_play_figures(result):
    """The card-play section's figures of a recorded match (``record=True``): every card decision
    of SPEC's seats (team 0's players: SPEC, and its partner copy in classic) solved with every
    hand seen (:func:`ghost_euchre.arena.analysis.analyse_game`, the analyse command's own).

    {"games", "deals": deals a seat of SPEC's played a card in (counted once a seat),
    "decisions": its card decisions, "off_line": those that lost points,
    "points_lost_per_deal": the points lost over those deals (the analysis's ``lost_per_deal``),
    "points_lost_per_deal_ci95": its 95% interval clustered by deal sequence}.
    """
    mine = np.flatnonzero(variants.make(result.variant).teams == 0)  # SPEC's positions
    games = len(result.sequence)
    lost, deals = np.zeros(games), np.zeros(games)
    decisions = off_line = 0
    for g, record in enumerate(result.game_records()):
        seats = set(np.flatnonzero(np.isin(result.seat_player[g], mine)).tolist())
        for deal in analyse_game(record, g, seats).deals:
            deals[g] += len(deal.lost)  # one entry per seat of SPEC's that played
            lost[g] += sum(d.loss for d in deal.decisions)
            decisions += len(deal.decisions)
            off_line += sum(d.loss > 0 for d in deal.decisions)
    _, cluster = np.unique(result.sequence, return_inverse=True)
    mean, ci = ratio_interval(
        np.bincount(cluster, weights=lost), np.bincount(cluster, weights=deals)
    )
    return {
        "games": games,
        "deals": int(deals.sum()),
        "decisions": decisions,
        "off_line": off_line,
        "points_lost_per_deal": mean,
        "points_lost_per_deal_ci95": finite(ci),
    }


def _cost(players, options):
    """The cost section: SPEC's seats (team 0's) timed in a match played in this process, each
    SPEC built and seeded as a match builds its players."""
    game = make_game(options["variant"], "game", None)
    mine = (variants.make(options["variant"]).teams == 0).tolist()
    lined = [
        TimedPolicy(make_policy(spec, game, seed=_player_seed(options["seed"], p))) if own else spec
        for p, (spec, own) in enumerate(zip(players, mine, strict=True))
    ]
    timed = [player for player in lined if isinstance(player, TimedPolicy)]
    start = time.perf_counter()
    result = run_match(lined, workers=1, **options)
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    decisions = sum(t.decisions for t in timed)
    timing = {
        "wall_time_s": round(time.perf_counter() - start, 3),
        "cpu_ms_per_decision": 1000 * sum(t.cpu_s for t in timed) / max(decisions, 1),
        "decisions_timed": decisions,
        "peak_act_memory_mib": max(t.peak_bytes for t in timed) / 2**20,
        "peak_rss_mib": maxrss / (2**20 if sys.platform == "darwin" else 2**10),
    }
    return {"games": len(result.sequence)}, timing


def card_header(spec, fingerprint, variant, suite, seed, planned):
    """The identity part of a card: suite, seed (published or private), project version, bot, and
    the names of the sections it plays (``planned``)."""
    return {
        "schema": CARD_SCHEMA,
        "suite": suite.name,
        "seed": seed,
        "published_seed": seed == suite.seed,
        "variant": variant,
        "project_version": __version__,
        "spec": spec,
        "fingerprint": fingerprint,
        "planned": list(planned),
    }


def run_card(
    spec,
    variant="ghost",
    suite=V1,
    seed=None,
    workers=1,
    store=None,
    again=False,
    robustness=None,
    progress=False,
    out=None,
):
    """The report card of ``spec`` (a dict: the module docstring's JSON) on ``suite``.

    seed: None for the suite's published seed, else an int >= 0 (a private suite); store: an
    :class:`ghost_euchre.arena.store.Store` (or None): a complete card stored under the same key (suite, seed,
    variant, spec and its fingerprint) is returned as it is unless ``again``, and each section done
    is saved, so that a rerun after a failure continues; robustness: None (the section is left out)
    or ``f(spec, variant, seed, budget, games, db=PATH) -> figures``. A bot that raises is named with the
    section and its game (:class:`ghost_euchre.agents.checked.PolicyRaised`), the sections done kept. out:
    called with a line per section done, or None.
    """
    from ghost_euchre.arena.store import card_key, player_identity

    seed = suite.seed if seed is None else seed
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"--seed must be an int >= 0, got {seed!r}")
    if variant not in suite.sections:
        raise ValueError(f"suite {suite.name} has no sections for variant {variant!r}")
    spec, fingerprint = player_identity(spec)
    key = card_key(suite.name, seed, variant, (spec, fingerprint))
    if robustness is not None and store is not None:  # the exploit run stored beside the card
        robustness = functools.partial(robustness, db=store.path)
    wanted = suite.of(variant, robustness is not None)
    header = card_header(spec, fingerprint, variant, suite, seed, [s.name for s in wanted])
    card = dict(header, sections={}, timing={})
    stored = None if store is None else store.card(key)
    if stored is not None and not again:
        card = dict(stored["card"], planned=header["planned"])
    to_play = [section for section in wanted if section.name not in card["sections"]]
    check_players(spec, to_play, variant)
    if out is not None and not to_play:
        out(
            f"the stored card of {spec} (the same suite, seed and code) reused; --again plays it again"
        )
    for section in to_play:
        try:
            figures, timing = run_section(
                section, spec, variant, seed, workers, progress, robustness
            )
        except PolicyRaised as error:
            raise error.located(f"benchmark section {section.name!r}") from None
        card["sections"][section.name] = figures
        card["timing"][section.name] = timing
        if store is not None:
            store.add_card(key, (spec, fingerprint), card, complete=complete(card))
        if out is not None:
            out(f"section {section.name}: done in {timing['wall_time_s']:.1f} s")
    return card


def check_players(spec, sections, variant):
    """Build SPEC and every other player of ``sections`` (their opponents and references) once,
    before any game is played: one that cannot be built (a bad spec, an extra that is not
    installed) is refused at once, naming its section, not after the sections before it."""
    game = make_game(variant, "game", None)
    end_match(make_policy(spec, game))
    others = {}  # player -> the first section that plays it
    for section in sections:
        for player in (*section.opponents, *section.references):
            others.setdefault(player, section.name)
    for player, name in others.items():
        if player == spec:
            continue
        try:
            with extra_named(f"benchmark section {name!r}"):
                end_match(make_policy(player, game))
        except ValueError as error:
            raise ValueError(f"benchmark section {name!r}: {error}") from None


def complete(card):
    """Whether every section the card plans is done."""
    return all(name in card["sections"] for name in card["planned"])


def check_seed(text):
    """--seed's value as an int >= 0 (ValueError: one line)."""
    try:
        seed = int(text)
    except (TypeError, ValueError):
        raise ValueError(f"--seed must be an int >= 0, got {text!r}") from None
    if seed < 0:
        raise ValueError(f"--seed must be an int >= 0, got {seed}")
    return seed


def suite_named(name):
    """The released suite ``name`` (ValueError naming the ones there are)."""
    if name not in SUITES:
        raise ValueError(f"unknown suite {name!r}; the suites are {', '.join(SUITES)}")
    return SUITES[name]


def interval_widths(card):
    """{section/figure: width of its 95% interval} of a card, for the docs' tables."""
    widths = {}
    for name, figures in card["sections"].items():
        for key, value in _flat(figures):
            if key.endswith("_ci95") and None not in value:
                widths[f"{name}/{key[: -len('_ci95')]}"] = value[1] - value[0]
    return widths


def _flat(figures, prefix=""):
    for key, value in figures.items():
        if isinstance(value, dict):
            yield from _flat(value, f"{prefix}{key}/")
        else:
            yield f"{prefix}{key}", value
