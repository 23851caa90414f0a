"""Analysis of recorded games against double-dummy play: every card decision solved with all hands shown.

:func:`analyse` replays game records through the engine and, at each card
decision, values every legal card with the exact solver of known hands
(:mod:`ghost_euchre_env.solver`) in the deal's points: Ghost Hand under the
solver's "relative" concept (the mover's points minus the mean of the other
two seats', those two playing together against it), classic the mover's
team's points minus the other team's. A decision's *loss* is the best card's
value minus the played card's (>= 0); a player's loss in a deal is the sum over
its card decisions. The solver sees every hand, so no legal player reaches the
double-dummy line: a loss measures card play against a ceiling nobody can
reach, not a mistake a real player could always have avoided.

The command is ``ghost-euchre-evaluate analyse FILE`` (:mod:`ghost_euchre.arena.cli`);
:func:`format_analysis` is its text, :func:`analysis_to_dict` its ``--json``.
"""

import dataclasses

import numpy as np

from ghost_euchre_env import solver, variants
from ghost_euchre_env.cards import SUIT_LETTERS, SUIT_SYMBOLS, card_name
from ghost_euchre_env.records import replay

SCHEMA = "ghost-euchre-analysis-v1"
CONCEPT = "relative"  # Ghost Hand's solution concept (classic is zero-sum: the team's points)
NOTE = (
    "Values are deal points with every hand shown (double-dummy play); no legal player reaches "
    "this line: it sees every hand."
)
LEGEND = (
    "'>' marks the card played, '*' the best card(s); lost: the best value minus the played card's."
)


@dataclasses.dataclass(frozen=True)
class CardDecision:
    """One card played, solved.

    trick: 0-based trick of the deal; seat, player: who played (name by seat);
    card: the card played (id 0..23); values: ((card, value), ...) of every legal
    card, in card order; best: the cards of the highest value; loss: the highest
    value minus the played card's (>= 0).
    """

    trick: int
    seat: int
    player: str
    card: int
    values: tuple
    best: tuple
    loss: float


@dataclasses.dataclass(frozen=True)
class DealAnalysis:
    """One deal's card decisions: deal: its number in the game; trump: suit 0..3; maker: the seat
    that named trump; points: the deal's points (Ghost Hand by seat, classic by team; () for a
    deal the game was cut in); lost: ((player, points lost), ...) by seat of the players that played."""

    deal: int
    trump: int
    maker: int
    decisions: tuple
    points: tuple
    lost: tuple


@dataclasses.dataclass(frozen=True)
class GameAnalysis:
    """One game: number (its index in the file or the match), key, names by seat, deals."""

    number: int
    key: int
    names: tuple
    deals: tuple


@dataclasses.dataclass(frozen=True)
class PlayerSummary:
    """One player over every game: card decisions, decisions off the double-dummy line (loss > 0),
    points lost in all, deals in which it played a card, and points lost a deal (lost / deals)."""

    player: str
    decisions: int
    off_line: int
    lost: float
    deals: int
    lost_per_deal: float


@dataclasses.dataclass(frozen=True)
class Analysis:
    """What :func:`analyse` finds: variant, games (GameAnalysis), players (PlayerSummary, in order
    of their first seat)."""

    variant: str
    games: tuple
    players: tuple


def analyse(records, numbers=None):
    """Analysis of game ``records`` (GameRecord, one variant), each card decision solved.

    numbers: the games' numbers shown (default 0, 1, ...). Players are told
    apart by name (a duplicate match seats the same player at other seats in
    other games); a record without names gets "seat S". Raises RecordError
    (a ValueError) for a record that does not replay.
    """
    records = list(records)
    numbers = range(len(records)) if numbers is None else list(numbers)
    variants = {r.variant for r in records}
    if len(variants) > 1:
        raise ValueError(f"game records of one variant only, got {sorted(variants)}")
    games = tuple(
        analyse_game(record, number) for record, number in zip(records, numbers, strict=True)
    )
    return Analysis(
        variant=records[0].variant if records else "ghost",
        games=games,
        players=_summaries(games),
    )


def _names(record, seats):
    return tuple(record.names) if record.names else tuple(f"seat {s}" for s in range(seats))


def analyse_game(record, number=0, seats=None):
    """The :class:`GameAnalysis` of one game ``record`` (its number shown: ``number``).

    seats: the seats whose card decisions are solved (a set of ints; None: every
    seat); a deal's ``lost`` then names only those seats. Raises RecordError (a
    ValueError) for a record that does not replay.
    """
    game = record.game()
    names = _names(record, game.num_players)
    deals, decisions, current = [], [], None
    for step in replay(record):
        state = step.before
        if solver.in_play(game, state)[0]:
            if current is None:
                current = (int(state.deal_number[0]), int(state.trump[0]))
                current += (int(state.maker[0]),)
            if seats is None or step.seat in seats:
                decisions.append(_decision(game, state, step, names))
        ended = step.result.deals
        if len(ended.game) and current is not None:
            points = tuple(int(p) for p in ended.points[0])
            deals.append(_deal(current, decisions, points, names))
            decisions, current = [], None
    if current is not None:  # a game cut in the middle of a deal
        deals.append(_deal(current, decisions, (), names))
    return GameAnalysis(number=number, key=record.key, names=names, deals=tuple(deals))


def solve_decision(game, state):
    """The card decision of game 0 of engine ``state`` (in its play phase) solved, every hand seen.

    Returns (values, best): ((card, value), ...) of every legal card in card
    order, in the deal's points (:data:`CONCEPT` in Ghost Hand; classic: the
    mover's team's points minus the other team's), and the cards of the highest
    value (``solver.best_cards``). The one place a decision is solved: the
    analysis, the benchmark's card-play section and the web page's replays call it.
    """
    values = solver.solve(game, state, [0], concept=CONCEPT)
    best = np.flatnonzero(solver.best_cards(values)[0])
    legal = np.flatnonzero(values[0] != solver.NO_VALUE)
    return tuple((int(c), float(values[0, c])) for c in legal), tuple(int(c) for c in best)


def decision_loss(values, card):
    """The points a card decision lost against double-dummy play: the best value of ``values``
    (:func:`solve_decision`'s) minus the value of ``card``, the card played (>= 0)."""
    return max(v for _, v in values) - dict(values)[card]


def _decision(game, state, step, names):
    values, best = solve_decision(game, state)
    return CardDecision(
        trick=int(np.asarray(state.tricks_won[0]).sum()),
        seat=step.seat,
        player=names[step.seat],
        card=step.action,
        values=values,
        best=best,
        loss=decision_loss(values, step.action),
    )


def _deal(current, decisions, points, names):
    deal, trump, maker = current
    lost = {}
    for d in decisions:
        lost[d.seat] = lost.get(d.seat, 0.0) + d.loss
    return DealAnalysis(
        deal=deal,
        trump=trump,
        maker=maker,
        decisions=tuple(decisions),
        points=points,
        lost=tuple((names[seat], lost[seat]) for seat in sorted(lost)),
    )


def _summaries(games):
    players = {}  # name -> [decisions, off line, lost, deals]
    for game in games:
        for name in game.names:
            players.setdefault(name, [0, 0, 0.0, 0])
        for deal in game.deals:
            for d in deal.decisions:
                row = players[d.player]
                row[0] += 1
                row[1] += d.loss > 0
                row[2] += d.loss
            for name, _ in deal.lost:
                players[name][3] += 1
    return tuple(
        PlayerSummary(name, n, off, lost, deals, lost / deals if deals else 0.0)
        for name, (n, off, lost, deals) in players.items()
    )


# ------------------------------------------------------------------ text and JSON
def _card(card, unicode):
    return card_name(card, unicode)


def _suit(suit, unicode):
    return (SUIT_SYMBOLS if unicode else SUIT_LETTERS)[suit]


def _number(value):
    """A value as text: +1, -0.5, 0."""
    return "0" if value == 0 else f"{value:+g}"


def _lost(value):
    return f"{value:g}"


def format_analysis(analysis, unicode=True):
    """The analysis as text: a header, every game deal by deal (one line per card decision:
    every legal card's value, '>' before the card played, '*' after the best), each deal's
    points lost by player, then the summary table by player."""
    lines = [
        f"{analysis.variant} games: every card decision solved with every hand shown.",
        NOTE,
        f"A card's value: {variants.make(analysis.variant).solving.meaning}, to the end of the deal.",
        LEGEND,
    ]
    for game in analysis.games:
        seats = ", ".join(f"{s} {n}" for s, n in enumerate(game.names))
        lines += ["", f"=== game {game.number}, stream key {game.key:016x}; seats: {seats} ==="]
        width = max(len(n) for n in game.names)
        for deal in game.deals:
            lines.append(
                f"deal {deal.deal}: trump {_suit(deal.trump, unicode)}, "
                f"maker {game.names[deal.maker]}"
            )
            for d in deal.decisions:
                cards = ", ".join(
                    f"{'>' if c == d.card else ''}{_card(c, unicode)} {_number(v)}"
                    f"{'*' if c in d.best else ''}"
                    for c, v in d.values
                )
                lost = f"  lost {_lost(d.loss)}" if d.loss > 0 else ""
                lines.append(f"  trick {d.trick + 1} {d.player:<{width}}  {cards}{lost}")
            points = f"points {list(deal.points)}; " if deal.points else "(cut) "
            lost = ", ".join(f"{name} {_lost(v)}" for name, v in deal.lost)
            lines.append(f"  deal {deal.deal} {points}lost against double-dummy: {lost}")
    lines += ["", summary_table(analysis)]
    return "\n".join(lines)


def summary_table(analysis):
    """The per-player table: card decisions, off the double-dummy line, points lost, a deal."""
    head = ("player", "card decisions", "off the line", "points lost", "deals", "lost a deal")
    rows = [
        (
            p.player,
            str(p.decisions),
            str(p.off_line),
            f"{p.lost:.1f}",
            str(p.deals),
            f"{p.lost_per_deal:.3f}",
        )
        for p in analysis.players
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    text = [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in [head, *rows]
    ]
    games = len(analysis.games)
    plural = "" if games == 1 else "s"
    return f"points lost against double-dummy play, {games} game{plural}:\n" + "\n".join(text)


def analysis_to_dict(analysis):
    """The analysis as a JSON-ready dict: the same figures as :func:`format_analysis` (card
    names with suit symbols, card ids beside them)."""
    return {
        "schema": SCHEMA,
        "variant": analysis.variant,
        "concept": variants.make(analysis.variant).solving.concept,
        "note": NOTE,
        "games": [
            {
                "game": game.number,
                "key": f"{game.key:016x}",
                "names": list(game.names),
                "deals": [_deal_dict(deal, game.names) for deal in game.deals],
            }
            for game in analysis.games
        ],
        "players": [dataclasses.asdict(p) for p in analysis.players],
    }


def _deal_dict(deal, names):
    return {
        "deal": deal.deal,
        "trump": SUIT_SYMBOLS[deal.trump],
        "maker": names[deal.maker],
        "points": list(deal.points),
        "lost": dict(deal.lost),
        "decisions": [
            {
                "trick": d.trick,
                "seat": d.seat,
                "player": d.player,
                "played": card_name(d.card),
                "played_id": d.card,
                "cards": [
                    {"card": card_name(c), "id": c, "value": v, "best": c in d.best}
                    for c, v in d.values
                ],
                "loss": d.loss,
            }
            for d in deal.decisions
        ],
    }
