"""Named, batched views of observations, and their exact inverse.

A variant's observation is one flat float32[N, D] array (its ``OBS_LAYOUT``).
:class:`ObservationView` reads it by name: ``view.hand`` is bool[N, 24],
``view.trump`` int8[N] (-1: not named yet), ``view.current_trick`` bool[N, S, 24]
by relative seat. Each field is decoded on first reading, from a slice of the
array (no copy of the rest), and kept; :func:`encode` writes fields back into
the observation they came from, bit for bit.

Field kinds (:class:`Field` ``kind``):

- ``cards``: 0/1 blocks of 24 (one entry per card id) -> ``bool[N, *shape, 24]``;
- ``card``: one card or none -> int8[N] card id, -1 for none;
- ``seat``: one relative seat or none -> int8[N], -1 for none (0 = the observer);
- ``choice``: one of ``values`` or none -> int8[N] value (``none`` when all 0);
- ``flags``: 0/1 -> ``bool[N, *shape]``;
- ``count``: a count divided by ``scale`` -> ``int8[N, *shape]`` count;
- ``fraction``: a fraction, kept as ``float32[N, *shape]`` (its unit in the meaning).

A damaged observation (one no engine writes) is read as far as it can be and no
further: ``cards`` and ``flags`` columns count as set when above 0.5 (NaN: not
set), ``fraction`` columns are returned as they are, and a ``card``, ``seat``,
``choice`` or ``count`` field whose columns decode to no value (NaN, two columns
set, a value other than 0 or 1, a count outside 0..127) raises ValueError naming
the row, the field and its columns when it is read. :func:`encode` checks every
value against its field's range (and shape) and names the first one outside it.

The variant descriptors (:mod:`.variants`) give each layout field its kind, and
build one view class per variant (:func:`view_class`): each field is a
descriptor of that class, so reading ``view.hand`` costs the slice and the
comparison a bot would write by hand, once per view.
"""

import dataclasses
import functools
from collections.abc import Mapping

import numpy as np

from .cards import EFFECTIVE_SUIT, HAND_DTYPE, NUM_CARDS, NUM_SUITS, STRENGTH, pack_bits

KINDS = ("cards", "card", "seat", "choice", "flags", "count", "fraction")
COUNT_MAX = 127  # a count decodes to int8
OLD_FIELDS = {"declarer": "maker"}
"""Fields of earlier versions' observations, by their name today (Ghost Hand's ``declarer`` of
0.2 is ``maker``, as in classic): a view still reads them by the old name."""

# int8[5, 24]: each card's strength led (its own effective suit led) under trump t; row 4 (no
# trump named: -1 indexes it) is -1.
_LEAD_STRENGTH = np.vstack(
    [STRENGTH[t, EFFECTIVE_SUIT[t, :NUM_CARDS], np.arange(NUM_CARDS)] for t in range(NUM_SUITS)]
    + [np.full(NUM_CARDS, -1, np.int8)]
)
# int8[5, 5, 24]: a card's strength in a trick under trump t (4: none named, all -1) with led
# suit s (4: none led, the card's own suit as led).
_TRICK_STRENGTH = np.full((NUM_SUITS + 1, NUM_SUITS + 1, NUM_CARDS), -1, np.int8)
_TRICK_STRENGTH[:NUM_SUITS, :NUM_SUITS] = STRENGTH[:, :, :NUM_CARDS]
_TRICK_STRENGTH[:, NUM_SUITS] = _LEAD_STRENGTH


@dataclasses.dataclass(frozen=True)
class Field:
    """One named field of an observation layout and how it is decoded.

    name, start, stop: its columns obs[:, start:stop]; meaning: the layout's
    text; kind: one of ``KINDS``; shape: the decoded shape after N (cards: the
    blocks before the 24 cards); values / none: a ``choice``'s decoded values,
    in column order, and its value when no column is set; scale: a
    ``count``'s divisor.
    """

    name: str
    start: int
    stop: int
    meaning: str
    kind: str
    shape: tuple[int, ...] = ()
    values: tuple[int, ...] = ()
    none: int = -1
    scale: int = 1

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"field {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}")
        width = self.stop - self.start
        expected = {
            "cards": int(np.prod(self.shape, dtype=np.int64)) * NUM_CARDS,
            "card": NUM_CARDS,
            "choice": len(self.values),
            "seat": width,  # one column per seat
        }.get(self.kind, int(np.prod(self.shape, dtype=np.int64)))
        if width != expected:
            raise ValueError(
                f"field {self.name!r}: {width} columns, but its kind and shape need {expected}"
            )
        object.__setattr__(self, "decode", self._decoder())

    def _decoder(self):
        """decode(columns float32[N, width]) -> the decoded array, with no more work than the kind needs."""
        if self.kind in ("card", "seat", "choice"):
            # one-hot (or all 0) columns: their dot product with 1..k is the set column + 1 (0: none)
            width = self.stop - self.start
            ordinals = np.arange(1, width + 1, dtype=np.float32)
            values = self.values if self.kind == "choice" else range(width)
            lookup = np.array([self.none if self.kind == "choice" else -1, *values], np.int8)

            def one_hot(columns):
                sound = ((columns == 0) | (columns == 1)).all(axis=1) & (columns.sum(axis=1) <= 1)
                if not sound.all():
                    self._damaged(columns, sound, "at most one column 1, the others 0")
                return lookup.take((columns @ ordinals).astype(np.intp))

            return one_hot
        shape = (*self.shape, NUM_CARDS) if self.kind == "cards" else self.shape
        if self.kind == "count":
            scale = np.float32(self.scale)

            def count(columns):
                counts = np.rint(columns * scale)
                sound = ((counts >= 0) & (counts <= COUNT_MAX)).reshape(len(counts), -1).all(axis=1)
                if not sound.all():
                    self._damaged(columns, sound, f"counts 0..{COUNT_MAX} (times 1/{self.scale})")
                return counts.astype(np.int8)

            return count
        if self.kind == "fraction":
            return (lambda columns: columns[:, 0]) if shape == () else (lambda columns: columns)
        if len(shape) == 1:  # cards, flags: already [N, width]
            return lambda columns: columns > 0.5
        return lambda columns: columns.reshape(len(columns), *shape) > 0.5

    def _damaged(self, columns, sound, expected):
        """Raise the ValueError of a damaged observation: its first row whose columns of this field
        cannot be decoded (NaN, two columns set, a value out of range)."""
        row = int(np.flatnonzero(~sound)[0])
        raise ValueError(
            f"observation row {row} is damaged: field {self.name!r} ({self.kind}) has columns "
            f"{columns[row].tolist()}; expected {expected}"
        )

    @property
    def decoded(self):
        """The decoded value's type and shape, e.g. 'bool[N, 3, 24]' or 'int8[N]'."""
        shape = (*self.shape, NUM_CARDS) if self.kind == "cards" else self.shape
        dtype = {"cards": "bool", "flags": "bool", "fraction": "float32"}.get(self.kind, "int8")
        return f"{dtype}[{', '.join(['N', *map(str, shape)])}]"

    def encode(self, value, out):
        """Write the decoded ``value`` (as ``decode`` returns it) into out float32[N, width];
        ValueError (one line naming the field, the row and the range) for a value no observation
        holds, or a shape other than :attr:`decoded`'s."""
        n = len(out)
        value = np.asarray(value)
        self._check_encodable(value, n)
        if self.kind in ("cards", "flags", "fraction"):
            out[:] = value.reshape(n, -1)
        elif self.kind == "count":
            out[:] = value.reshape(n, -1).astype(np.float32) / np.float32(self.scale)
        else:
            index = value.astype(np.int64)
            if self.kind == "choice":
                lookup = {v: i for i, v in enumerate(self.values)}
                index = np.array([lookup.get(int(v), -1) for v in value], np.int64)
            out[:] = 0
            rows = np.flatnonzero(index >= 0)
            out[rows, index[rows]] = 1

    def _check_encodable(self, value, n):
        shape = (n, *self.shape, *((NUM_CARDS,) if self.kind == "cards" else ()))
        if value.shape != shape and not (self.kind == "fraction" and value.size == n * self.width):
            raise ValueError(
                f"encode: field {self.name!r} is {self.decoded}, got an array of shape {value.shape}"
            )
        if self.kind == "fraction":
            allowed, expected = np.isfinite(value), "finite numbers"
        elif self.kind in ("cards", "flags"):
            allowed, expected = (value == 0) | (value == 1), "False/True (0/1)"
        elif self.kind == "choice":
            allowed = np.isin(value, [*self.values, self.none])
            expected = f"one of {list(self.values)} or {self.none} (none)"
        else:
            low, high = {"card": (-1, NUM_CARDS - 1), "seat": (-1, self.width - 1)}.get(
                self.kind, (0, COUNT_MAX)
            )
            allowed = (value >= low) & (value <= high) & (value == np.round(value))
            expected = f"integers {low}..{high}" + (" (-1: none)" if low < 0 else "")
        if not np.all(allowed):
            where = np.argwhere(~np.asarray(allowed).reshape(value.shape))[0]
            raise ValueError(
                f"encode: field {self.name!r} row {where[0]}: {value[tuple(where)].item()!r} is out "
                f"of range; expected {expected}"
            )

    @property
    def width(self):
        return self.stop - self.start


class _FieldReader:
    """The descriptor of one field on a view class: decodes on first reading, then the instance keeps it."""

    def __init__(self, field):
        self.field = field
        self.name, self.decode = field.name, field.decode
        self.columns = slice(field.start, field.stop)
        self.__doc__ = f"{field.decoded}: {field.meaning}"

    def __get__(self, view, owner=None):
        if view is None:
            return self
        value = view.__dict__[self.name] = self.decode(view.obs[:, self.columns])
        return value  # a non-data descriptor: later reads find it in the instance


class ObservationView:
    """Observations float32[N, D] of one variant, read by field name.

    ``view.NAME`` is the decoded field (see :attr:`fields` and each
    :class:`Field`'s ``decoded`` type); the trick as the rules read it:
    :attr:`led_suit`, :attr:`winning_card`, :attr:`strength`, :attr:`takes_trick`,
    :attr:`best_left`, :attr:`is_trump`; ``view.columns(NAME)`` its raw
    float32[N, width] columns; ``view.mask(NAME)`` a ``cards`` field as uint32
    card masks ``[N, *shape]``; ``view.card_flags(NAME)`` a ``card`` field as
    bool[N, 24]. Built by ``variant.view(obs)`` (a subclass per variant, see
    :func:`view_class`); the observation is not copied, and a field is decoded
    once, when it is first read.
    """

    fields: dict[str, Field] = {}  # noqa: RUF012 (set per variant by view_class)
    width = 0

    def __init__(self, obs):
        obs = np.asarray(obs)
        if obs.ndim != 2 or obs.shape[1] != self.width:
            raise ValueError(
                f"observations must be float32[N, {self.width}], got shape {obs.shape}"
            )
        self.obs = obs

    def __len__(self):
        return len(self.obs)

    def __getattr__(self, name) -> np.ndarray:  # only for names that are not fields
        if OLD_FIELDS.get(name) in self.fields:  # a bot written for an earlier version
            return getattr(self, OLD_FIELDS[name])
        raise AttributeError(
            f"observations have no field {name!r}; fields: {', '.join(self.fields)}"
        )

    def columns(self, name):
        """float32[N, width]: the field's columns (a view of the observation)."""
        field = self.fields.get(name) if isinstance(name, str) else None
        if field is None:
            raise ValueError(
                f"observations have no field {name!r}; fields: {', '.join(self.fields)}"
            )
        return self.obs[:, field.start : field.stop]

    def card_flags(self, name):
        """bool[N, 24]: a ``card`` field as a set of cards (all False for none)."""
        columns = self.columns(name)
        if self.fields[name].kind != "card":
            raise ValueError(
                f"card_flags reads a card field; {name!r} is a {self.fields[name].kind} field"
            )
        return columns > 0.5

    def mask(self, name):
        """``uint32[N, *shape]``: a ``cards`` field's blocks as card masks (bit c = card c)."""
        field = self.fields.get(name) if isinstance(name, str) else None
        if field is None or field.kind != "cards":
            kind = "" if field is None else f" ({name!r} is a {field.kind} field)"
            cards = [f.name for f in self.fields.values() if f.kind == "cards"]
            raise ValueError(
                f"mask reads a cards field: one of {', '.join(cards)}; got {name!r}{kind}"
            )
        cards = getattr(self, name)
        flat = cards.reshape(-1, NUM_CARDS)
        return pack_bits(flat).astype(HAND_DTYPE).reshape(cards.shape[:-1])

    # The trick as the rules read it, from the fields trump, leader, current_trick and played_by
    # (every variant has them); each is computed when first read, then kept.

    @functools.cached_property
    def _rows(self) -> np.ndarray:
        """int64[N]: 0..N-1, to pick one entry a row."""
        return np.arange(len(self))

    @functools.cached_property
    def is_trump(self) -> np.ndarray:
        """bool[N, 24]: the card counts as trump (the left bower too); all False before trump is named."""
        trump = self.trump.astype(np.intp)
        return (EFFECTIVE_SUIT[trump] == trump[:, None]) & (trump >= 0)[:, None]

    @functools.cached_property
    def led_card(self) -> np.ndarray:
        """int8[N]: the card led to the current trick; -1 when no card is on the table."""
        leader = self.leader.astype(np.intp)
        led = self.current_trick[self._rows, np.maximum(leader, 0)]  # bool[N, 24]
        return np.where((leader >= 0) & led.any(axis=1), led.argmax(axis=1), -1).astype(np.int8)

    @functools.cached_property
    def led_suit(self) -> np.ndarray:
        """int8[N]: the effective suit (0..3: C, D, H, S) led to the current trick, as the engine's
        ``led_suit`` (the left bower leads trump); -1 when no card is on the table."""
        led = self.led_card.astype(np.intp)
        suit = EFFECTIVE_SUIT[self.trump.astype(np.intp), led]
        return np.where(led >= 0, suit, -1).astype(np.int8)

    @functools.cached_property
    def strength(self) -> np.ndarray:
        """int8[N, 24]: each card's strength in the current trick, the engine's order (trumps
        21..27: 9, T, Q, K, A, left, right bower; the led suit 1..6: 9..A; other cards 0); with
        no card on the table, each card as if led (its own suit). -1 before trump is named."""
        return _TRICK_STRENGTH[self.trump.astype(np.intp), self.led_suit.astype(np.intp)]

    @functools.cached_property
    def winning_card(self) -> np.ndarray:
        """int8[N]: the card taking the current trick so far; -1 when no card is on the table."""
        on_table = self.current_trick.any(axis=1)  # bool[N, 24]
        best = np.where(on_table, self.strength, -1).argmax(axis=1)
        return np.where(np.any(on_table, axis=1), best, -1).astype(np.int8)

    @functools.cached_property
    def winning_seat(self) -> np.ndarray:
        """int8[N]: the relative seat (0: the observer) that played :attr:`winning_card`; -1 for none."""
        card = self.winning_card.astype(np.intp)
        seats = self.current_trick[self._rows, :, np.maximum(card, 0)]  # bool[N, S]
        return np.where(card >= 0, np.argmax(seats, axis=1), -1).astype(np.int8)

    @functools.cached_property
    def takes_trick(self) -> np.ndarray:
        """bool[N, 24]: played now, the card would take the trick so far (every card when leading,
        once trump is named)."""
        card = self.winning_card.astype(np.intp)
        to_beat = np.where(card >= 0, self.strength[self._rows, np.maximum(card, 0)], -1)
        return self.strength > to_beat[:, None]

    @functools.cached_property
    def best_left(self) -> np.ndarray:
        """bool[N, 24]: the card is not played yet and no card of its effective suit that is not
        played yet ranks above it (its own hand included; cards out of play that no seat has
        played, such as the ghost hand or the kitty, count as not played). All False before trump
        is named."""
        trump = self.trump.astype(np.intp)
        unplayed = ~self.played_by.any(axis=1)  # bool[N, 24]
        rank = np.where(unplayed, _LEAD_STRENGTH[trump], -1)  # within a suit: the lead order
        suit = EFFECTIVE_SUIT[trump].astype(np.intp)  # [N, 24]
        top = np.stack([np.where(suit == s, rank, -1).max(axis=1) for s in range(NUM_SUITS)], 1)
        return (rank >= 0) & (rank == np.take_along_axis(top, suit, 1))


def view_class(name, fields):
    """The :class:`ObservationView` subclass of a layout: one descriptor per field (fields in column order)."""
    attributes: dict[str, object] = {f.name: _FieldReader(f) for f in fields}
    attributes.update(
        fields={f.name: f for f in fields}, width=fields[-1].stop, __module__=__name__
    )
    attributes["__doc__"] = f"{name} observations read by name (:class:`ObservationView`)."
    return type(f"{name.title()}View", (ObservationView,), attributes)


def encode(fields, values, num_rows=None):
    """float32[N, D]: the observation whose view has these field values (the inverse of a view).

    fields: a variant's layout (:class:`Field` list); values: an
    :class:`ObservationView` or a mapping {name: decoded value} with every field.
    """
    if not isinstance(values, (ObservationView, Mapping)):
        raise ValueError(
            "encode takes an observation view or a mapping {field name: decoded value} of every "
            f"field, got {type(values).__name__} {values!r:.60}"
        )
    missing = (
        []
        if isinstance(values, ObservationView)
        else [f.name for f in fields if f.name not in values]
    )
    if missing:
        raise ValueError(f"encode: the mapping has no field {missing[0]!r}; it needs every field")
    if num_rows is None:
        num_rows = (
            len(values) if isinstance(values, ObservationView) else len(values[fields[0].name])
        )
    obs = np.zeros((num_rows, fields[-1].stop), np.float32)
    for field in fields:
        value = (
            getattr(values, field.name)
            if isinstance(values, ObservationView)
            else values[field.name]
        )
        field.encode(value, obs[:, field.start : field.stop])
    return obs
