"""Named, batched views of observations, and their exact inverse.

A variant's observation is one flat float32[N, D] array (its ``OBS_LAYOUT``).
:class:`ObservationView` reads it by name: ``view.hand`` is bool[N, 24],
``view.trump`` int8[N] (-1: not named yet), ``view.current_trick`` bool[N, S, 24]
by relative seat. Each field is decoded on first reading, from a slice of the
array (no copy of the rest), and kept; :func:`encode` writes fields back into
the observation they came from, bit for bit.

Field kinds (:class:`Field` ``kind``):

- ``cards``: 0/1 blocks of 24 (one entry per card id) -> bool[N, *shape, 24];
- ``card``: one card or none -> int8[N] card id, -1 for none;
- ``seat``: one relative seat or none -> int8[N], -1 for none (0 = the observer);
- ``choice``: one of ``values`` or none -> int8[N] value (``none`` when all 0);
- ``flags``: 0/1 -> bool[N, *shape];
- ``count``: a count divided by ``scale`` -> int8[N, *shape] count;
- ``fraction``: a fraction, kept as float32[N, *shape] (its unit in the meaning).

The variant descriptors (:mod:`.variants`) give each layout field its kind.
"""

import dataclasses

import numpy as np

from .cards import HAND_DTYPE, NUM_CARDS, pack_bits

KINDS = ("cards", "card", "seat", "choice", "flags", "count", "fraction")


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

    @property
    def decoded(self):
        """The decoded value's type and shape, e.g. 'bool[N, 3, 24]' or 'int8[N]'."""
        shape = (*self.shape, NUM_CARDS) if self.kind == "cards" else self.shape
        dtype = {"cards": "bool", "flags": "bool", "fraction": "float32"}.get(self.kind, "int8")
        return f"{dtype}[{', '.join(['N', *map(str, shape)])}]"

    def decode(self, columns):
        """float32[N, width] (this field's columns) -> the decoded array."""
        n = len(columns)
        if self.kind in ("cards", "flags"):
            shape = (*self.shape, NUM_CARDS) if self.kind == "cards" else self.shape
            return columns.reshape(n, *shape) > 0.5
        if self.kind == "fraction":
            return columns.reshape(n, *self.shape)
        if self.kind == "count":
            return np.rint(columns * np.float32(self.scale)).astype(np.int8).reshape(n, *self.shape)
        hot = columns > 0.5
        index = hot.argmax(axis=1)
        if self.kind == "choice":
            return np.where(
                hot.any(axis=1), np.asarray(self.values, np.int8)[index], self.none
            ).astype(np.int8)
        return np.where(hot.any(axis=1), index, -1).astype(np.int8)  # card, seat

    def encode(self, value, out):
        """Write the decoded ``value`` (as :meth:`decode` returns it) into out float32[N, width]."""
        n = len(out)
        value = np.asarray(value)
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


class ObservationView:
    """Observations float32[N, D] of one variant, read by field name.

    ``view.NAME`` is the decoded field (see :attr:`fields` and each
    :class:`Field`'s ``decoded`` type); ``view.columns(NAME)`` its raw
    float32[N, width] columns; ``view.mask(NAME)`` a ``cards`` field as uint32
    card masks [N, *shape]; ``view.card_flags(NAME)`` a ``card`` field as bool[N, 24]. Built by ``variant.view(obs)``; the observation is
    not copied, and a field is decoded once, when it is first read.
    """

    def __init__(self, fields, obs):
        obs = np.asarray(obs)
        width = fields[-1].stop
        if obs.ndim != 2 or obs.shape[1] != width:
            raise ValueError(f"observations must be float32[N, {width}], got shape {obs.shape}")
        self.obs = obs
        self.fields = {f.name: f for f in fields}

    def __len__(self):
        return len(self.obs)

    def __getattr__(self, name) -> np.ndarray:
        fields = self.__dict__.get("fields", {})
        if name not in fields:
            raise AttributeError(
                f"observations have no field {name!r}; fields: {', '.join(fields)}"
            )
        value = fields[name].decode(self.columns(name))
        self.__dict__[name] = value  # read once: later reads are attribute lookups
        return value

    def columns(self, name):
        """float32[N, width]: the field's columns (a view of the observation)."""
        field = self.fields[name]
        return self.obs[:, field.start : field.stop]

    def card_flags(self, name):
        """bool[N, 24]: a ``card`` field as a set of cards (all False for none)."""
        if self.fields[name].kind != "card":
            raise ValueError(
                f"card_flags reads a card field; {name!r} is a {self.fields[name].kind} field"
            )
        return self.columns(name) > 0.5

    def mask(self, name):
        """uint32[N, *shape]: a ``cards`` field's blocks as card masks (bit c = card c)."""
        cards = getattr(self, name)
        flat = cards.reshape(-1, NUM_CARDS)
        return pack_bits(flat).astype(HAND_DTYPE).reshape(cards.shape[:-1])


def encode(fields, values, num_rows=None):
    """float32[N, D]: the observation whose view has these field values (the inverse of a view).

    fields: a variant's layout (:class:`Field` list); values: an
    :class:`ObservationView` or a mapping {name: decoded value} with every field.
    """
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
