"""Plumbing shared by the engines: batched state containers and action checks."""

import dataclasses
import functools
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np

from . import dealing
from .cards import unpack_bits

_State = TypeVar("_State", bound="BatchState")
_Deals = TypeVar("_Deals")


class BatchState:
    """Base for a dataclass whose every field is an array with a leading game axis (one is ``player``).

    [N, K] fields are stored seat-major, column by column (Fortran order): one
    seat's column of every game is then contiguous, and the engines update it
    with whole-array operations. Indexing is unchanged.
    """

    # Declared for the type checker; ``@dataclass`` sets them on each subclass.
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]
    player: np.ndarray

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value.ndim == 2 and not value.flags.f_contiguous:
                setattr(self, f.name, np.asfortranarray(value))

    @property
    def num_games(self):
        return len(self.player)  # every state has a ``player`` field: int8[N]

    def copy(self: _State) -> _State:
        """A deep copy (no array shared with this state)."""
        return self.take(slice(None))

    def take(self: _State, index) -> _State:
        """A new state holding the games ``index`` (int[M], bool[N] or a slice), copied."""
        return type(self)(
            **{f.name: getattr(self, f.name)[index].copy() for f in dataclasses.fields(self)}
        )

    def put(self, index, other):
        """Overwrite games ``index`` (int[M]) with the M games of ``other``."""
        for f in dataclasses.fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if mine.shape[1:] != theirs.shape[1:]:
                raise ValueError(
                    f"field {f.name}: shape {theirs.shape[1:]} does not fit {mine.shape[1:]}"
                )
            mine[index] = theirs


@functools.lru_cache(maxsize=8)
def game_index(num_games):
    """intp[num_games] 0..num_games-1 (read-only, cached: rebuilt per step it would cost a pass)."""
    index = np.arange(num_games, dtype=np.intp)
    index.flags.writeable = False
    return index


def seat_view(array):
    """The 1-D view of a seat-major [N, K] state array: cell (game g, column k) is ``k * N + g``."""
    if not array.flags.f_contiguous:
        raise ValueError(f"state array of shape {array.shape} must be seat-major (Fortran order)")
    return array.T.reshape(-1)


def _flat(field):
    """The 1-D view of a contiguous [N, K] state array (seat-major or row-major)."""
    if field.flags.f_contiguous:
        return field.T.reshape(-1)
    if field.flags.c_contiguous:
        return field.reshape(-1)
    raise ValueError(f"state array of shape {field.shape} must be contiguous")


@functools.lru_cache(maxsize=64)
def _column_offsets(num_games, width, seat_major):
    """intp[K, 1] (read-only): where column k starts in the flat view of an [N, K] array, in steps of a row."""
    offsets = np.arange(width, dtype=np.intp)[:, None] * (num_games if seat_major else 1)
    offsets.flags.writeable = False
    return offsets


def _column_cells(field, games):
    """intp[K, M]: cells of the rows ``games`` of a contiguous [N, K] field in its flat view, column by column.

    Built as [K, M], not [M, K]: NumPy loops are slow over a short last axis.
    """
    num_games, width = field.shape
    if field.flags.f_contiguous:
        return _column_offsets(num_games, width, True) + games
    return _column_offsets(num_games, width, False) + games * width


def take_rows(field, games):
    """``field[games]`` for a contiguous [N, K] field and int[M] games -> [M, K].

    One flat gather: several times faster than NumPy's row indexing of a 2-D array.
    """
    return _flat(field).take(_column_cells(field, games)).T


def put_rows(field, games, values):
    """``field[games] = values`` for a contiguous [N, K] field; values int[M, K]."""
    _flat(field)[_column_cells(field, games)] = values.T


def fill_rows(fields, games, value):
    """``field[games] = value`` (a scalar) for each contiguous [N, K] field of ``fields``."""
    cells = {}
    for field in fields:
        layout = (field.shape, field.flags.f_contiguous)
        if layout not in cells:
            cells[layout] = _column_cells(field, games)
        _flat(field)[cells[layout]] = value


def seat_lanes(seat, num_seats):
    """bool[S, N]: ``lanes[s, g]`` is True where game g's seat ``seat[g]`` (int[N], -1 none) is s."""
    return seat == np.arange(num_seats, dtype=np.int8)[:, None]


def at_seat(field, lanes):
    """field[g, s] of the seat s whose lane is set in game g (0 where none is).

    field: seat-major [N, S] (integer or bool); lanes: bool[S, N] (see :func:`seat_lanes`).
    """
    return np.bitwise_or.reduce(field.T * lanes, axis=0)


def blend(condition, if_true, if_false):
    """np.where for same-dtype integer arrays, as bit arithmetic (several times faster)."""
    lanes = -condition.astype(if_false.dtype)
    return if_false ^ ((if_true ^ if_false) & lanes)


class Rules(Protocol):
    """What the shared bookkeeping reads of a variant's rules options."""

    @property
    def max_deals(self) -> int: ...


_Rules = TypeVar("_Rules", bound=Rules)


class BatchedGame(Generic[_Rules]):
    """Episode bookkeeping shared by the engines.

    A subclass sets ``num_players``, ``num_actions``, ``over_phase`` and ``rules``
    (its rules dataclass, with ``max_deals``), computes ``legal_bits(state)``, parses one chosen deal
    in ``_parse_deal(deal, game, number)`` and deals in ``_start_deals(state, games)``.
    """

    num_players = 0
    num_actions = 0
    over_phase = -1
    rules: _Rules

    def legal_bits(self, state) -> np.ndarray:
        """unsigned int[N]: legal actions of the player to act as a bit set (bit a = action a)."""
        raise NotImplementedError

    @staticmethod
    def _parse_deal(deal, game, number) -> list[int]:
        """One chosen deal, validated, as the row of ints ``state.chosen`` keeps."""
        raise NotImplementedError

    def _start_deals(self, state, games) -> None:
        """Deal the next deal in ``games`` (int[M])."""
        raise NotImplementedError

    def legal_mask(self, state):
        """bool[N, A]: legal actions of the player to act (all False when OVER); ``legal_bits`` unpacked."""
        return unpack_bits(self.legal_bits(state), self.num_actions)

    def _check_seats(self, seats, num_games):
        """Observer seats as int64[N]; ValueError unless int[N] with values 0..S-1."""
        seats = np.asarray(seats, dtype=np.int64)
        if (
            seats.shape != (num_games,)
            or seats.min(initial=0) < 0
            or seats.max(initial=0) >= self.num_players
        ):
            raise ValueError(
                f"seats must be int[{num_games}] with values 0..{self.num_players - 1}, got {seats!r}"
            )
        return seats

    def start_episodes(self, state, games, options=None):
        """Start a new episode (scores 0, first deal dealt) in games ``games`` (int[M]).

        The episode counter is not advanced here; see :meth:`next_episodes`.
        options: None, one dict for every game or a list of M dicts, each with
        optional ``dealer`` (a seat) and ``deals`` (chosen deals used in order).
        """
        games = np.asarray(games, dtype=np.intp)
        self._open_episodes(state, games, options)
        self._start_deals(state, games)

    def next_episodes(self, state, games):
        """Advance the episode counter of ``games`` (int[M]) and start a random episode there."""
        state.episode[games] += 1
        self.start_episodes(state, games)

    def _open_episodes(self, state, games, options=None):
        """Episode bookkeeping of :meth:`start_episodes`, all but dealing the first deal."""
        dealers, deals = dealing.parse_options(
            options, len(games), self.num_players, self._parse_deal
        )
        episode_key = dealing.episode_keys(state.keys[games], state.episode[games])
        state.episode_key[games] = episode_key
        random_dealer = dealing.random_dealers(episode_key, self.num_players)
        state.dealer[games] = np.where(dealers >= 0, dealers, random_dealer)
        dealing.store_chosen(state, games, deals)
        fill_rows([state.scores], games, 0)
        state.deal_number[games] = 0

    def _close_games(self, state, ended, over, terminated, truncated, auto_reset):
        """After the deals of games ``ended`` (int[M]) ended, end or go on.

        over: bool[M], the game is over by the rules (it terminates); of the others,
        a game that has dealt ``max_deals`` deals is truncated, and the rest deal
        again with the next seat dealing. Sets terminated / truncated (bool[N]) in
        place. Finished games get phase ``over_phase`` and no player to act, or
        with ``auto_reset`` start their next episode (dealt with the others' deals).
        """
        cut = ~over & (state.deal_number[ended] >= self.rules.max_deals)
        terminated[ended[over]] = True
        truncated[ended[cut]] = True
        going_on = ended[~over & ~cut]
        state.dealer[going_on] = (state.dealer[going_on] + 1) % self.num_players
        finished = ended[over | cut]
        if auto_reset:
            if len(finished):
                state.episode[finished] += 1
                self._open_episodes(state, finished)
            self._start_deals(state, ended)
            return
        if len(going_on):
            self._start_deals(state, going_on)
        state.phase[finished] = self.over_phase
        state.player[finished] = -1


@dataclasses.dataclass
class StepResult(Generic[_Deals]):
    """What one batched step produced.

    rewards: float32[N, S] by absolute seat; terminated, truncated: bool[N] (the
    game ended this step by the rules, or was cut at ``max_deals``); deals: the
    variant's summary of every deal that ended this step (thrown in or scored).
    """

    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    deals: _Deals


def check_actions(actions, mask):
    """Validate a batch of actions against the legal mask; return them as int64[N].

    actions: int[N]; mask: bool[N, A]. Raises ValueError naming the first bad
    game, its action and its legal actions. Nothing is modified.
    """
    num_games, num_actions = mask.shape
    array = np.asarray(actions)
    if array.shape != (num_games,):
        raise ValueError(f"actions must have shape ({num_games},), got {array.shape}")
    if array.dtype.kind not in "iu":
        raise ValueError(f"actions must be integers, got dtype {array.dtype}")
    array = array.astype(np.int64)
    in_range = (array >= 0) & (array < num_actions)
    cell = np.arange(num_games) * num_actions + np.where(in_range, array, 0)
    legal = in_range & mask.reshape(-1)[cell]
    if not legal.all():
        game = int(np.flatnonzero(~legal)[0])
        raise ValueError(
            f"game {game}: action {int(array[game])} is not legal; "
            f"legal actions are {np.flatnonzero(mask[game]).tolist()}"
        )
    return array


def check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")


def check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")


def one_hot_table(sizes):
    """float32[prod(v + 1), sum(v)]: one-hot rows for mixed-radix codes.

    sizes: the number of values of each digit, least significant first; digit
    value 0 means "none" (all zeros) and value v > 0 sets slot v - 1.
    """
    radices = [v + 1 for v in sizes]
    table = np.zeros((int(np.prod(radices)), sum(sizes)), dtype=np.float32)
    for code in range(len(table)):
        rest, offset = code, 0
        for size, radix in zip(sizes, radices, strict=True):
            digit, rest = rest % radix, rest // radix
            if digit:
                table[code, offset + digit - 1] = 1.0
            offset += size
    return table


def one_hot_bits(table, shift):
    """uint64[R]: the rows of a 0/1 table [R, k] (k + shift <= 64) as bit sets, column j at bit shift + j."""
    weights = np.uint64(1) << np.arange(shift, shift + table.shape[1], dtype=np.uint64)
    return (np.asarray(table, dtype=bool) * weights).sum(axis=1, dtype=np.uint64)


def layout_offsets(layout):
    """({name: (start, stop)}, total size) of an observation layout ((name, size, meaning), ...)."""
    offsets, start = {}, 0
    for name, size, _ in layout:
        offsets[name] = (start, start + size)
        start += size
    return offsets, start


def layout_table(layout):
    """An observation layout ((name, size, meaning), ...) as a reStructuredText table."""
    rows = [("field", "offset", "size", "meaning")]
    offset = 0
    for name, size, meaning in layout:
        rows.append((name, str(offset), str(size), meaning))
        offset += size
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    rule = " ".join("=" * w for w in widths)
    lines = [
        rule,
        " ".join(c.ljust(w) for c, w in zip(rows[0], widths, strict=True)).rstrip(),
        rule,
    ]
    lines += [
        " ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows[1:]
    ]
    return "\n".join([*lines, rule])
