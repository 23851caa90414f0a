"""The bot protocol's messages, version 1: what a program bot (``proc:PATH``) reads and writes.

One JSON object a line each way (the page ``docs/protocol.md`` is the reference,
with every message written out). Messages to the program are written compactly
(no spaces outside strings, keys in the order shown), so a program may scan
them as text::

    {"type":"hello","protocol":1,"variant":"ghost","episode":"game","rules":{...},
     "seats":3,"seed":7,"actions":["9C",...,"swap"],"fields":["hand",...]}
                                                   -> {"name":"my-bot"}
    {"type":"decide","games":[{"game":12,"obs":{"hand":["9C","JH"],...},"legal":["9C","JH"]},...]}
                                                   -> {"actions":["JH",...]}   (one per game, in order)
    {"type":"game_over","games":[{"game":12,"won":true,"truncated":false,"scores":[10,7,3]},...]}
    {"type":"match_over"}                          (then the program's input closes)

An observation is the variant's named view (:mod:`ghost_euchre_env.views`) with
each field written as JSON (:meth:`Messages.observations`): ``cards`` fields as
lists of card names (nested by the field's shape), a ``card`` as its name, a
``seat`` as the relative seat, ``trump`` as a suit letter, ``phase`` as the phase's
name, any other ``choice`` as its value, ``flags`` as booleans, ``count`` as
integers and ``fraction`` as numbers; "none" is ``null``. Actions are named in
ASCII: cards ``9C`` .. ``AS`` (rank 9 T J Q K A, suit C D H S), then the
variant's other actions as :meth:`ghost_euchre_env.variants.Actions.name` writes
them with suit letters (``pass``, ``trump H``, ``bid 4``, ``moon``, ``swap``;
classic ``suit H``, ``alone``, ``partner``).

Everything here is text in, text out (no process): :mod:`ghost_euchre.agents.program` runs the program.
"""

import dataclasses
import json

import numpy as np

from ghost_euchre_env.cards import NUM_CARDS, SUIT_LETTERS, SUIT_SYMBOLS, card_name

from .checked import shown_games

VERSION = 1
_LETTERS = str.maketrans(SUIT_SYMBOLS, SUIT_LETTERS)
_MEMO_LIMIT = 1 << 16  # texts of card sets (and flags, legal sets) kept per field, then forgotten


class AnswerError(ValueError):
    """A program's answer that the protocol does not allow (one line saying what it was and why)."""


def action_names(variant):
    """The protocol's names of a variant's actions, by action id (``9C`` .. ``AS``, ``pass``, ...)."""
    return tuple(variant.actions.name(a).translate(_LETTERS) for a in range(variant.num_actions))


def _card_list(mask):
    """'["9C","JH"]' of a card mask (bit c: card c)."""
    names = [f'"{card_name(c, unicode=False)}"' for c in range(NUM_CARDS) if mask >> c & 1]
    return f"[{','.join(names)}]"


def _nested(values, shape):
    """The JSON text of a flat list of value texts laid out as ``shape`` (() or more dimensions)."""
    if not shape:
        return values[0]
    if len(shape) == 1:
        return f"[{','.join(values)}]"
    step = len(values) // shape[0]
    parts = [_nested(values[k * step : (k + 1) * step], shape[1:]) for k in range(shape[0])]
    return f"[{','.join(parts)}]"


class _Memo(dict):
    """{key (an int, or a row's bytes): text}, computed by ``make(key)`` on a miss; emptied when it holds _MEMO_LIMIT texts."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, key):
        if len(self) >= _MEMO_LIMIT:
            self.clear()
        text = self[key] = self.make(key)
        return text


class Messages:
    """The protocol's messages of one variant and game (its rules and episode), as text lines.

    game: the engine (``GhostEuchre`` or ``ClassicEuchre``). Tables of names and the
    texts of card sets seen so far are kept, so a batch costs little more than a
    lookup per field and game.
    """

    def __init__(self, game):
        self.game = game
        self.variant = game.variant
        self.actions = action_names(self.variant)
        self.action_ids = {name: a for a, name in enumerate(self.actions)}
        self._legal = _Memo(self._names_of)
        self._card_columns = self.variant.card_columns()[0]  # int64[B, 24]: every block of cards
        self._card_bits = (2.0 ** np.arange(NUM_CARDS)).astype(np.float32)  # exact below 2**24
        self._columns, block = [], 0
        for field in self.variant.fields:
            self._columns.append(self._column_writer(field, block))
            block += int(np.prod(field.shape, dtype=np.int64)) if field.kind == "cards" else 0
            block += 1 if field.kind == "card" else 0
        self._bits = 1 << np.arange(self.variant.num_actions, dtype=np.int64)

    def __reduce__(self):  # copied to a worker process: its tables are built again there
        return Messages, (self.game,)

    # ------------------------------------------------------------ to the program
    def hello(self, seed):
        """The first message: protocol version, variant, episode, rules, seats, seed (int or None),
        every action's name (by id) and the observation's field names (in layout order)."""
        return _line(
            {
                "type": "hello",
                "protocol": VERSION,
                "variant": self.variant.name,
                "episode": self.game.episode,
                "rules": dataclasses.asdict(self.game.rules),
                "seats": self.variant.num_players,
                "seed": seed,
                "actions": list(self.actions),
                "fields": [f.name for f in self.variant.fields],
            }
        )

    def decide(self, obs, mask, games):
        """The decision message of a batch: obs float32[N, D], mask bool[N, A], games int[N]
        (the match's game ids) or None (no ids: ``null``)."""
        texts = self.observations(obs)
        legal = self.legal(mask)
        ids = ["null"] * len(texts) if games is None else [str(int(g)) for g in games]
        entries = ",".join(
            f'{{"game":{g},"obs":{o},"legal":{lg}}}'
            for g, o, lg in zip(ids, texts, legal, strict=True)
        )
        return f'{{"type":"decide","games":[{entries}]}}'

    def game_over(self, games, scores, won, truncated):
        """The end of some games: games int[M] ids, scores int[M, S] final scores by relative seat
        (0: the program's seat; classic: each seat's team score), won bool[M], truncated bool[M]."""
        entries = [
            {"game": int(g), "won": bool(w), "truncated": bool(t), "scores": [int(x) for x in s]}
            for g, w, t, s in zip(games, won, truncated, scores, strict=True)
        ]
        return _line({"type": "game_over", "games": entries})

    @staticmethod
    def match_over():
        """The last message: the match is over (the program's input closes after it)."""
        return _line({"type": "match_over"})

    def observations(self, obs):
        """One JSON object text per row of obs float32[N, D]: the named view's fields (module docstring)."""
        obs = np.asarray(obs, np.float32)
        view = self.variant.view(obs)
        masks = (obs[:, self._card_columns] @ self._card_bits).astype(np.int64)  # [N, B] card masks
        columns = [write(view, masks) for write in self._columns]
        return ["{" + ",".join(row) + "}" for row in zip(*columns, strict=True)]

    def legal(self, mask):
        """One JSON list text of action names per row of mask bool[N, A]."""
        keys = np.asarray(mask, bool) @ self._bits
        return [self._legal[k] for k in keys.tolist()]

    def _names_of(self, key):
        return "[" + ",".join(f'"{n}"' for a, n in enumerate(self.actions) if key >> a & 1) + "]"

    def _column_writer(self, field, block):
        """write(view, masks) -> N texts '"name":value' of one field (see the module docstring);
        masks: int64[N, B] the card mask of every block of cards, this field's from ``block`` on."""
        prefix = f'"{field.name}":'
        shape = field.shape
        if field.kind == "cards":
            memo = _Memo(_card_list)
            blocks = int(np.prod(shape, dtype=np.int64))

            def cards(view, masks):
                if not shape:
                    return [prefix + memo[m] for m in masks[:, block].tolist()]
                own = masks[:, block : block + blocks].T.tolist()
                columns = [[memo[m] for m in column] for column in own]
                return [prefix + "[" + ",".join(row) + "]" for row in zip(*columns, strict=True)]

            return cards
        if field.kind in ("card", "seat", "choice"):
            table = self._choice_table(field)

            def choice(view, masks):
                return [table[v] for v in getattr(view, field.name).tolist()]

            return choice
        if field.kind == "flags":
            size = int(np.prod(shape, dtype=np.int64))
            bits = 1 << np.arange(size, dtype=np.int64)
            flags = _Memo(
                lambda key: (
                    prefix
                    + _nested(["true" if key >> k & 1 else "false" for k in range(size)], shape)
                )
            )

            def flag(view, masks):
                keys = getattr(view, field.name).reshape(len(view), size) @ bits
                return [flags[k] for k in keys.tolist()]

            return flag

        decoded = np.float32 if field.kind == "fraction" else np.int8
        written = _Memo(  # {the row's bytes: its text}
            lambda key: prefix + _nested(np.frombuffer(key, decoded).astype(str).tolist(), shape)
        )

        def numbers(view, masks):  # count (ints) and fraction (float32, shortest text)
            value = np.ascontiguousarray(getattr(view, field.name), decoded).reshape(len(view), -1)
            rows = value.view(np.dtype((np.void, value.shape[1] * value.itemsize)))
            return [written[k] for k in rows.reshape(-1).tolist()]

        return numbers

    def _choice_table(self, field):
        """{decoded value: text} of a card, seat or choice field."""
        prefix = f'"{field.name}":'
        if field.kind == "card":
            words = {c: f'"{card_name(c, unicode=False)}"' for c in range(NUM_CARDS)}
        elif field.kind == "seat":
            words = {s: str(s) for s in range(field.stop - field.start)}
        elif field.name == "phase":
            words = {v: f'"{self.variant.phases[v]}"' for v in (*field.values, field.none)}
        elif field.name == "trump":
            words = {v: f'"{SUIT_LETTERS[v]}"' for v in field.values}
        else:
            words = {v: str(v) for v in field.values}
        table = {-1: prefix + "null", field.none: prefix + "null"}
        table.update({value: prefix + word for value, word in words.items()})
        return table

    # ---------------------------------------------------------- from the program
    def read_name(self, line):
        """The program's name from its answer to hello (``{"name": NAME}``); AnswerError otherwise."""
        answer = _parse(line, '{"name": NAME}', "hello")
        name = answer.get("name") if isinstance(answer, dict) else None
        if not isinstance(name, str) or not name.strip():
            raise AnswerError(
                f'answered hello with {_shown(line)}; expected {{"name": NAME}}, NAME a non-empty string'
            )
        version = answer.get("protocol", VERSION)
        if type(version) is not int or version != VERSION:  # true and 1.0 are == 1, not protocol 1
            shown = _shown(json.dumps(version))[1:-1]
            raise AnswerError(f"speaks protocol {shown}; this is protocol {VERSION} (the integer)")
        return name.strip()

    def read_actions(self, line, mask, games):
        """int64[N] action ids of the answer to a decision (``{"actions": [NAME, ...]}``, one legal
        name per game, in order); AnswerError naming the game otherwise. games: int[N] or None."""
        answer = _parse(
            line, '{"actions": [NAME, ...]}', f"the decision of {_batch(games, len(mask))}"
        )
        names = answer.get("actions") if isinstance(answer, dict) else None
        count = len(mask)
        if not isinstance(names, list):
            raise AnswerError(
                f"answered {_shown(line)} to the decision of {_batch(games, count)}; expected "
                f'{{"actions": [NAME, ...]}} with {count} names'
            )
        if len(names) != count:
            raise AnswerError(
                f"answered {len(names)} action(s) to the decision of {_batch(games, count)} "
                "(one name per game, in order)"
            )
        actions = np.array(
            [self.action_ids.get(n, -1) if isinstance(n, str) else -1 for n in names], np.int64
        )
        unknown = np.flatnonzero(actions < 0)
        if len(unknown):
            row = int(unknown[0])
            raise AnswerError(
                f"answered {_shown(names[row])} in {_game(games, row)}, which is not an action name "
                f"(the names are the hello message's: {', '.join(self.actions[:3])}, ..., {self.actions[-1]})"
            )
        illegal = np.flatnonzero(~np.asarray(mask, bool)[np.arange(count), actions])
        if len(illegal):
            row = int(illegal[0])
            legal = [self.actions[a] for a in np.flatnonzero(mask[row])]
            raise AnswerError(
                f"answered {names[row]!r} in {_game(games, row)}, which is not legal there "
                f"(legal: {', '.join(legal)})"
            )
        return actions


def _line(message):
    return json.dumps(message, separators=(",", ":"))


def _parse(line, expected, doing):
    try:
        return json.loads(line)
    except (ValueError, UnicodeDecodeError):
        raise AnswerError(
            f"answered {_shown(line)} to {doing}, which is not JSON; expected {expected}"
        ) from None
    except RecursionError:  # [[[[...]]]]: deeper than the parser goes
        raise AnswerError(
            f"answered {_shown(line)} to {doing}, JSON nested too deeply to read; expected {expected}"
        ) from None


def _shown(value, most=60):
    """A value as an error quotes it: repr, at most ``most`` characters."""
    if isinstance(value, bytes):
        value = value.decode(errors="replace")
    text = repr(value)
    return text if len(text) <= most else text[: most - 3] + "..."


def _batch(games, count):
    """'game 3', 'games 3, 5, 8, ... (12 games)', or '12 games' without ids."""
    return f"{count} games" if games is None else shown_games(games)


def _game(games, row):
    return f"row {row} of the batch" if games is None else f"game {int(games[row])}"
