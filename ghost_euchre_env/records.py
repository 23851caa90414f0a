"""Game records: a game kept as its dealing key and its actions, replayed through the engine alone.

A :class:`GameRecord` holds what the engine needs to play a game again exactly:
the variant, its rules options and episode mode, the dealing stream key (every
deal of the game is a pure function of it, see :mod:`ghost_euchre_env.dealing`)
and the action ids in the order they were taken, one byte each (a Ghost Hand
game of ~10 deals is ~400 bytes). No policy is needed to replay it.

:func:`replay` steps the engine through a record and checks every action
against the legal moves; a record that does not replay (edited, cut short, or
replayed under other rules) raises :class:`RecordError` naming the first bad
action, and a replay that ends with other final scores than the record says is
an error too. :func:`format_replay` prints a game deal by deal: the auction, then
the renderer's table before every trick and the trick's cards and winner.

JSON form (``records_to_dict`` / ``records_from_dict``; web and file friendly:
the key is 16 hex digits, the actions base64)::

    {"schema": "ghost-euchre-records-v1", "variant": "ghost", "episode": "game",
     "rules": {...every rules option...},
     "games": [{"key": "9e3779b97f4a7c15", "names": [seat 0, seat 1, seat 2],
                "actions": "base64 of one byte per action", "final_scores": [int, ...]}, ...]}

``final_scores`` are the engine's scores when the game ended (Ghost Hand: by
seat; classic: by team, seats 0+2 then 1+3).
"""

import base64
import dataclasses
from typing import Any

import numpy as np

from . import variants
from .cards import SUIT_LETTERS, SUIT_SYMBOLS, card_name
from .core import EPISODES, trick_taker

VARIANTS = variants.available()
SCHEMA = "ghost-euchre-records-v1"


def make_game(variant="ghost", episode="game", rules=None):
    """The engine of ``variant`` (a name of :mod:`ghost_euchre_env.variants`, or a Variant) with
    ``episode`` and rules options (dict or None)."""
    return variants.make(variant).make_game(episode, rules=rules)


def action_name(variant, action):
    """The variant's readable name of an action id ('J♥', 'bid 4', 'suit ♥', ...)."""
    return variants.make(variant).actions.name(action)


class RecordError(ValueError):
    """A game record that does not replay through the engine."""


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """One game, replayable through the engine alone.

    variant: a name of :mod:`ghost_euchre_env.variants`; episode: "game" or "deal"; rules: the
    engine's rules options (dict); key: the dealing stream key (int, 0 <= key <
    2**64); actions: bytes, one action id per decision in order; names: the
    players' names by seat (display only); final_scores: the engine's scores
    when the game ended (ghost: by seat; classic: by team).
    """

    variant: str
    episode: str
    rules: dict
    key: int
    actions: bytes
    names: tuple
    final_scores: tuple

    def game(self):
        """The engine this record is played on."""
        return make_game(self.variant, self.episode, self.rules)


@dataclasses.dataclass(frozen=True)
class ReplayStep:
    """One decision of a replay.

    number: 0-based index of the action in the record; seat: the seat that
    acted; action: the action id; before, after: copies of the state (a batch
    of one game) just before and after the action (None when replayed without
    states); result: the engine's StepResult of the action.
    """

    number: int
    seat: int
    action: int
    before: Any
    after: Any
    result: Any


def replay(record, states=True):
    """Replay ``record`` through the engine, yielding a :class:`ReplayStep` per action.

    states: give each step copies of the state before and after it (False is
    faster). Raises RecordError as :func:`check_records` does. The engine alone
    decides every rule.
    """
    game = record.game()
    state = game.init(_keys([record]))
    actions = np.frombuffer(bytes(record.actions), np.uint8)
    first = np.zeros(1, np.int64)
    for number, action in enumerate(actions.tolist()):
        seat = int(state.player[0])
        legal = np.flatnonzero(game.legal_mask(state)[0])
        if action not in legal:
            raise _bad_action(record, "game record", number, seat, action, legal)
        before = state.take(first) if states else None
        result = game.step(state, np.array([action], np.int64))
        after = state.take(first) if states else None
        yield ReplayStep(number, seat, action, before, after, result)
        if result.terminated[0] or result.truncated[0]:
            _check_end(record, "game record", number + 1, state.scores[0])
            return
    raise RecordError(
        f"game record: the actions end after {len(actions)} decisions but the game is not over"
    )


def check_records(records):
    """Replay many records at once on the batched engine and check them as :func:`replay` does.

    Returns the final scores, int64[R, S'] (the engine's: by seat, classic by
    team). Raises RecordError naming the record (its index in ``records``) and
    its first bad action: one that is not legal, one after the game ended, too
    few actions, or final scores other than the record's.
    """
    records = list(records)
    scores = [None] * len(records)
    groups = {}
    for index, r in enumerate(records):
        groups.setdefault((r.variant, r.episode, repr(sorted(r.rules.items()))), []).append(index)
    for indices in groups.values():
        first = records[indices[0]]
        game = first.game()
        group = [records[i] for i in indices]
        lengths = np.array([len(r.actions) for r in group])
        table = np.full((len(group), int(lengths.max(initial=0)) + 1), 255, np.int64)
        for row, r in enumerate(group):
            table[row, : lengths[row]] = np.frombuffer(bytes(r.actions), np.uint8)
        state = game.init(_keys(group))
        alive = np.arange(len(group))
        for number in range(table.shape[1]):
            if not len(alive):
                break
            actions = table[alive, number]
            short = np.flatnonzero(number >= lengths[alive])
            if len(short):
                raise RecordError(
                    f"game record {indices[alive[short[0]]]}: the actions end after {number} "
                    "decisions but the game is not over"
                )
            mask = game.legal_mask(state)
            legal = mask[np.arange(len(alive)), np.minimum(actions, mask.shape[1] - 1)]
            legal &= actions < mask.shape[1]
            if not legal.all():
                bad = int(np.flatnonzero(~legal)[0])
                label = f"game record {indices[alive[bad]]}"
                seat = int(state.player[bad])
                raise _bad_action(
                    group[alive[bad]],
                    label,
                    number,
                    seat,
                    int(actions[bad]),
                    np.flatnonzero(mask[bad]),
                )
            result = game.step(state, actions)
            done = result.terminated | result.truncated
            for row in np.flatnonzero(done):
                g = int(alive[row])
                _check_end(group[g], f"game record {indices[g]}", number + 1, state.scores[row])
                scores[indices[g]] = state.scores[row].astype(np.int64)
            keep = np.flatnonzero(~done)
            state, alive = state.take(keep), alive[keep]
    return np.array(scores, np.int64).reshape(len(records), -1 if records else 0)


def _keys(records):
    keys = [int(r.key) for r in records]
    for key in keys:
        if not 0 <= key < 1 << 64:
            raise RecordError(f"game record: stream key must be an int in [0, 2**64), got {key!r}")
    return np.array(keys, np.uint64)


def _bad_action(record, label, number, seat, action, legal):
    try:
        what = f"{action} = {action_name(record.variant, action)}"
    except ValueError:
        what = f"{action}, not an action id"
    names = [action_name(record.variant, int(a)) for a in legal]
    return RecordError(
        f"{label}: action {number} ({what}) by seat {seat} is not legal here; legal: {names}"
    )


def _check_end(record, label, taken, scores):
    """The game ended after ``taken`` actions with ``scores``: the record must agree."""
    if taken < len(record.actions):
        extra = record.actions[taken]
        raise RecordError(
            f"{label}: action {taken} ({extra}) comes after the game ended "
            f"({len(record.actions)} actions, the game took {taken})"
        )
    replayed = [int(s) for s in scores]
    if replayed != [int(s) for s in record.final_scores]:
        raise RecordError(
            f"{label}: the replay ends with scores {replayed}, "
            f"the record says {list(record.final_scores)}"
        )


def format_replay(record, unicode=True):
    """A recorded game as text, deal by deal: the auction, then the table before every trick
    (the renderer's, showing the leader's hand) and the trick's cards and winner."""
    game = record.game()
    names = list(record.names) or [f"seat {s}" for s in range(game.num_players)]
    if len(names) != game.num_players or not all(isinstance(n, str) for n in names):
        raise ValueError(
            f"names must be {game.num_players} strings (one per seat) or none, got {record.names!r}"
        )
    variant = variants.make(record.variant)
    seats = ", ".join(f"{s} {n}" for s, n in enumerate(names))
    lines = [f"{record.variant} game, stream key {record.key:016x}; seats clockwise: {seats}"]
    deal, calls, trick, truncated = None, [], [], False
    for step in replay(record):
        s = step.before
        if int(s.deal_number[0]) != deal:
            deal = int(s.deal_number[0])
            upcard = getattr(s, "upcard", None)  # classic's card turned face up
            extra = "" if upcard is None else f", upcard {card_name(int(upcard[0]), unicode)}"
            lines += ["", f"=== deal {deal}: dealer {names[int(s.dealer[0])]}{extra} ==="]
        name = action_name(record.variant, step.action)
        if not unicode:
            name = name.translate(str.maketrans(dict(zip(SUIT_SYMBOLS, SUIT_LETTERS, strict=True))))
        if int(s.phase[0]) != variant.play_phase:
            calls.append(f"{names[step.seat]} {name}")
        else:
            if calls:
                lines.append("calls: " + ", ".join(calls))
                calls = []
            if not trick:
                lines += ["", variant.render(game, s, 0, names, unicode)]
            trick.append(f"{names[step.seat]} {card_name(step.action, unicode)}")
        deals = step.result.deals
        truncated = bool(step.result.truncated[0])
        taken = trick_taker(step.before.tricks_won[0], step.after, step.result)
        if taken is not None and trick:
            lines.append(f"trick: {', '.join(trick)} -> {names[taken]}")
            trick = []
        if len(deals.game):
            if calls:
                lines.append("calls: " + ", ".join(calls))
                calls = []
            if deals.thrown_in[0]:
                lines.append("everybody passed: the deal is thrown in")
            else:
                points = _scores_text(record, names, deals.points[0], signed=True)
                scores = _scores_text(record, names, deals.scores[0])
                lines.append(f"deal over: points {points}; scores {scores}")
    how = "game over"
    if truncated:
        how = f"game cut at {game.rules.max_deals} deals"
    lines += ["", f"{how}: final scores {_scores_text(record, names, record.final_scores)}"]
    return "\n".join(lines)


def _scores_text(record, names, values, signed=False):
    """'a 3, b 0, c -5' by seat (ghost) or 'a & c 3, b & d 7' by team (classic)."""
    members = variants.make(record.variant).team_members
    labels = [" & ".join(names[s] for s in team) for team in members]
    return ", ".join(
        f"{label} {int(v):+d}" if signed else f"{label} {int(v)}"
        for label, v in zip(labels, values, strict=False)
    )


# ------------------------------------------------------------------ JSON form
def records_to_dict(records):
    """Records of one variant, episode and rules set as a JSON-ready dict (schema in the module docstring)."""
    records = list(records)
    if not records:
        raise ValueError("no game records to write")
    first = records[0]
    for r in records:
        if (r.variant, r.episode, r.rules) != (first.variant, first.episode, first.rules):
            raise ValueError("game records of one file must share the variant, episode and rules")
    return {
        "schema": SCHEMA,
        "variant": first.variant,
        "episode": first.episode,
        "rules": first.rules,
        "games": [
            {
                "key": f"{int(r.key):016x}",
                "names": list(r.names),
                "actions": base64.b64encode(bytes(r.actions)).decode("ascii"),
                "final_scores": [int(s) for s in r.final_scores],
            }
            for r in records
        ],
    }


def records_from_dict(data):
    """The GameRecords of :func:`records_to_dict`'s dict; RecordError (one line) for anything malformed.

    Every field is checked: the variant, episode and rules; ``games`` a non-empty
    list; each game's key (16 hex digits), names (one str per seat, or none),
    actions (base64) and final scores (one int per seat, classic per team).
    """
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise RecordError(f"not a game records file: schema {found!r}, expected {SCHEMA!r}")
    variant, episode, rules, games = (data.get(k) for k in ("variant", "episode", "rules", "games"))
    if variant not in VARIANTS:
        raise RecordError(f"variant must be one of {list(VARIANTS)}, got {_short(variant)}")
    if episode not in EPISODES:
        raise RecordError(f"episode must be one of {list(EPISODES)}, got {_short(episode)}")
    if not isinstance(rules, dict):
        raise RecordError(f"rules must be a dict of rules options, got {_short(rules)}")
    if not isinstance(games, list) or not games:
        raise RecordError(f"games must be a non-empty list of games, got {_short(games)}")
    seats, scores = variants.make(variant).num_players, variants.make(variant).num_teams
    return [
        _record_from_dict(number, game, variant, episode, rules, seats, scores)
        for number, game in enumerate(games)
    ]


def _record_from_dict(number, game, variant, episode, rules, seats, scores):
    """The GameRecord of entry ``number`` of a file's ``games``; RecordError naming it if malformed."""
    label = f"game record {number}"
    if not isinstance(game, dict):
        raise RecordError(f"{label}: expected a dict with key, names, actions, final_scores")
    key, names, actions, final = (game.get(k) for k in ("key", "names", "actions", "final_scores"))
    if not (isinstance(key, str) and len(key) == 16 and all(c in HEX_DIGITS for c in key)):
        raise RecordError(f"{label}: key must be 16 hex digits, got {_short(key)}")
    _check_variant(label, variant, seats, names, final)
    if not (isinstance(names, list) and len(names) in (0, seats)) or not all(
        isinstance(n, str) for n in names
    ):
        raise RecordError(
            f"{label}: names must be a list of {seats} strings (one per seat), got {_short(names)}"
        )
    if not isinstance(final, list) or len(final) != scores or not all(_is_int(s) for s in final):
        raise RecordError(
            f"{label}: final_scores must be a list of {scores} ints, got {_short(final)}"
        )
    try:
        moves = base64.b64decode(actions, validate=True) if isinstance(actions, str) else None
    except ValueError:
        moves = None
    if moves is None:
        raise RecordError(f"{label}: actions must be base64 text, got {_short(actions)}")
    return GameRecord(
        variant=variant,
        episode=episode,
        rules=dict(rules),
        key=int(key, 16),
        actions=moves,
        names=tuple(names),
        final_scores=tuple(int(s) for s in final),
    )


def _check_variant(label, variant, seats, names, final):
    """RecordError naming the file's variant when a game's names and final scores are those of
    another variant's game (a record given the wrong variant), rather than its names."""
    if not (isinstance(names, list) and isinstance(final, list)) or len(names) in (0, seats):
        return
    for other in VARIANTS:
        described = variants.make(other)
        if other != variant and (len(names), len(final)) == (
            described.num_players,
            described.num_teams,
        ):
            raise RecordError(
                f"{label}: the file's variant is {variant!r} ({seats} seats), but the game has "
                f"{len(names)} names and {len(final)} final scores, as a {other!r} game does; "
                f"is its variant {other!r}?"
            )


HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _short(value, limit=60):
    """repr(value), cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
