"""The skeleton shared by the engines: batched state, episodes, deals, rules checks, action checks.

A variant module (``ghost.py``, ``classic.py``) holds only its rules: it declares its
state's fields (:class:`Field` lines of an :class:`EpisodeState` class: one record a game),
its rules options (a dataclass over :class:`Rules`) and its deal summary (over
:class:`DealSummary`), and fills in the hooks of :class:`BatchedGame` (its kernels, which
deal, apply one decision, score and end deals, each taking the state's records and the
engine's settings, one record each). Everything else (option checks, building a state,
chosen deals, episodes, the calls of the kernels, the legal mask, action checks) is here,
once; what every variant's kernels share (dealing, the end of a game, truncation, automatic
resets) is :mod:`ghost_euchre_env.kernels.skeleton`.
A variant module also declares its descriptor: its actions by name (over
:class:`Actions`) and, at its end, a :class:`VariantDeclaration` that
:mod:`ghost_euchre_env.variants` builds the registry from.
"""

import dataclasses
import functools
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, overload

import numpy as np

from . import dealing
from .cards import (
    HAND_DTYPE,
    NUM_CARDS,
    NUM_SUITS,
    SUIT_LETTERS,
    SUIT_SYMBOLS,
    card_name,
    parse_card,
)
from .kernels import skeleton

EPISODES = ("game", "deal")  # episode="game": play to target_score; "deal": one deal
CHECKED = os.environ.get("GHOST_EUCHRE_CHECKED", "") not in ("", "0")
"""Checked mode (the environment's ``GHOST_EUCHRE_CHECKED=1``, read once at import; on in the
tests): an engine made while it is on refuses, in its compiled playouts
(:meth:`BatchedGame.play_until_deal_ends`), a policy's illegal action with a ValueError, as the
doors refuse one; off, such an action is stepped as it is, unchecked, at no cost."""
REWARDS = ("points", "win")  # reward="points": deal points as scored; "win": +1 / loss at game end
NO_SEAT = -1

EVERY_GAME = np.zeros(0, np.int64)  # the ``games`` of an observation of every game, in order
_INT64 = np.dtype(np.int64)

StateSelf = TypeVar("StateSelf", bound="EpisodeState")


def _shape(cls, shape):
    """A declared shape after the game axis: ints, or names of int class attributes of ``cls``."""
    return tuple(s if isinstance(s, int) else getattr(cls, s) for s in shape)


def column(dtype, *shape):
    """A field of a :class:`DealSummary` dataclass: an array ``dtype[M, *shape]`` (shape: ints,
    or names of int class attributes of the dataclass, e.g. ``"score_width"``)."""
    return dataclasses.field(metadata={"dtype": dtype, "shape": shape})


class Field:
    """A field of a game's record in an :class:`EpisodeState`, declared in the state's class:
    ``dtype[*shape]`` a game, read as ``state.name``: ``dtype[N, *shape]``, a view of the records.

    shape: ints, or names of int class attributes of the state's class (``"score_width"``);
    fill: what a new state holds. A bool field is stored as uint8 (a Numba record holds no
    bool array) and read as bool.
    """

    def __init__(self, dtype, *shape, fill=0):
        self.dtype, self.shape, self.fill = np.dtype(dtype), shape, fill
        self.name = ""

    def __set_name__(self, owner, name):
        self.name = name

    def stored(self, cls):
        """(name, dtype, shape) of the field in the record dtype of the state class ``cls``."""
        dtype = np.dtype(np.uint8) if self.dtype == np.bool_ else self.dtype
        return self.name, dtype, _shape(cls, self.shape)

    @overload
    def __get__(self, state: None, owner: type) -> "Field": ...

    @overload
    def __get__(self, state: "EpisodeState", owner: type) -> np.ndarray: ...

    def __get__(self, state, owner):
        if state is None:
            return self
        view = state.records[self.name]
        if self.dtype == np.bool_:
            view = view.view(np.bool_)
        state.__dict__[self.name] = view  # later reads find the view without this call
        return view

    if TYPE_CHECKING:  # ``state.name = values`` is EpisodeState.__setattr__'s (no descriptor's)

        def __set__(self, state: "EpisodeState", values: Any) -> None: ...


class EpisodeState:
    """The state of N games: one record a game (``records``, a NumPy structured array that a
    kernel takes as one argument) and the chosen deals of their episodes.

    The record's fields are the :class:`Field` declarations of the class and its bases (the
    base's first): ``dtype``, the record's, is made from them once per class, and
    ``state.name`` reads a field as ``dtype[N, *shape]``, a view of the records (writing into it
    writes the state; ``state.name = values`` writes the values). chosen: uint32[N, K,
    deal_width], the chosen deals (not in the record: K grows when a game brings more deals).

    The fields every variant has: dealing streams, episodes, scores, whose turn it is. A
    subclass adds its rules' fields and sets ``deal_width`` (ints per chosen deal) and
    ``score_width`` (seats or teams that keep a score). Seats are absolute; -1 means none.
    """

    deal_width: ClassVar[int] = 0
    score_width: ClassVar[int] = 0
    fields: ClassVar[dict[str, Field]] = {}  # the record's fields by name, in order
    dtype: ClassVar[np.dtype] = np.dtype([])  # the record's
    _raw: ClassVar[np.dtype] = np.dtype((np.void, 0))  # a record's bytes
    records: np.ndarray  # ``dtype``[N], one record a game
    chosen: np.ndarray  # uint32[N, K, deal_width]

    keys = Field(np.uint64)  # dealing stream key of each game
    episode = Field(np.int64)  # episodes started with this key
    episode_key = Field(np.uint64)  # dealing key of the current episode
    num_chosen = Field(np.int32)  # how many of ``chosen`` this episode uses
    deal_number = Field(np.int32)  # deals dealt this episode, redeals included
    dealer = Field(np.int8, fill=NO_SEAT)
    scores = Field(np.int32, "score_width")  # game score by seat or team
    phase = Field(np.int8, fill=-1)  # the variant's phase; its over_phase when over
    player = Field(np.int8, fill=NO_SEAT)  # seat to act (-1 when the game is over)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.fields = {
            name: value
            for klass in reversed(cls.__mro__)
            for name, value in vars(klass).items()
            if isinstance(value, Field)
        }
        fields = [f.stored(cls) for f in cls.fields.values()]
        # np.record: a game's record (``records[g]``) reads its fields as attributes in Python
        # as in a kernel, so the kernels also run with NUMBA_DISABLE_JIT=1
        cls.dtype = np.dtype((np.record, np.dtype(fields, align=True)))
        # the records as plain bytes: NumPy copies those whole, a structured array field by field
        cls._raw = np.dtype((np.void, cls.dtype.itemsize))

    def __init__(self, records, chosen):
        """records: ``dtype``[N]; chosen: uint32[N, K, deal_width] (both kept, not copied)."""
        self.__dict__.update(records=records, chosen=chosen)  # no views to drop yet

    def __setattr__(self, name, value):
        if name in self.fields:
            getattr(self, name)[...] = value
            return
        if name == "records":  # the views of other records go
            for field in self.fields:
                self.__dict__.pop(field, None)
        super().__setattr__(name, value)

    def __getstate__(self):
        return {"records": self.records, "chosen": self.chosen}  # the views are made again

    @classmethod
    def empty(cls: type[StateSelf], num_games) -> StateSelf:
        """A state of ``num_games`` games with every field at its ``fill`` (see :class:`Field`)."""
        state = cls(
            np.zeros(num_games, cls.dtype), np.zeros((num_games, 0, cls.deal_width), HAND_DTYPE)
        )
        for name, f in cls.fields.items():
            if f.fill:
                state.records[name] = f.fill
        return state

    @classmethod
    def from_arrays(cls: type[StateSelf], arrays) -> StateSelf:
        """A state of the arrays of :meth:`arrays` ({name: array[N, ...]}), copied; a field
        left out holds its fill; ValueError for a name that is no field."""
        unknown = set(arrays) - {*cls.fields, "chosen"}
        if unknown:
            raise ValueError(f"not fields of {cls.__name__}: {sorted(unknown)}")
        state = cls.empty(len(next(iter(arrays.values()))))
        for name, array in arrays.items():
            setattr(state, name, np.array(array) if name == "chosen" else array)
        return state

    def arrays(self):
        """{name: array} of every field (views of the records) and ``chosen``."""
        return {**{name: getattr(self, name) for name in self.fields}, "chosen": self.chosen}

    @property
    def num_games(self):
        return len(self.records)

    def copy(self: StateSelf) -> StateSelf:
        """A deep copy (no array shared with this state)."""
        return self.take(slice(None))

    def take(self: StateSelf, index) -> StateSelf:
        """A new state holding the games ``index`` (int[M], bool[N] or a slice), copied."""
        records = np.frombuffer(self.records.view(self._raw)[index].copy(), self.dtype)
        return type(self)(records, self.chosen[index].copy())

    def put(self, index, other):
        """Overwrite games ``index`` (int[M]) with the M games of ``other``."""
        if self.chosen.shape[1:] != other.chosen.shape[1:]:
            raise ValueError(
                f"field chosen: shape {other.chosen.shape[1:]} does not fit {self.chosen.shape[1:]}"
            )
        self.records.view(self._raw)[index] = other.records.view(self._raw)
        self.chosen[index] = other.chosen


class Rules:
    """Base of a variant's rules dataclass (frozen): every option is checked once, here, by its type.

    A bool option must be a bool; an int option an int >= its minimum
    (``MINIMUMS``, else 0); a str option one of ``CHOICES[name]``.
    """

    MINIMUMS: ClassVar[dict[str, int]] = {"target_score": 1, "max_deals": 1}
    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {}

    if TYPE_CHECKING:  # every variant has these two options; ``@dataclass`` makes the fields
        __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]
        target_score: int
        max_deals: int

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type is bool:
                if not isinstance(value, (bool, np.bool_)):
                    raise ValueError(f"{f.name} must be a bool, got {value!r}")
            elif f.type is int:
                check_int(f.name, value, self.MINIMUMS.get(f.name, 0))
            else:
                check_choice(f.name, value, self.CHOICES[f.name])


@dataclasses.dataclass
class DealSummary:
    """Every deal that ended in one step; arrays have one row per such deal.

    game: int[M] game index; thrown_in: bool[M] nobody made trump (no play, 0
    points); dealer: int8[M]; tricks: int8[M, S] by seat; points: int32[M, W]
    scored by this deal and scores: int32[M, W] game scores after it, by seat
    or team (the state's ``score_width``).

    The outcome every variant shares: maker: int8[M] the seat that won the
    auction (Ghost Hand's declarer), -1 when thrown in; contract: int8[M] its
    kind, an index of the engine's ``contract_kinds`` (-1 none); made: bool[M]
    the maker's side took what the contract asked; alone: bool[M] the maker
    played a lone hand. A variant adds its own fields and sets ``seats`` (S) and
    ``score_width`` (W).
    """

    # not annotated: a class attribute, no field (nor a ClassVar, which __dataclass_fields__ lists)
    seats = 0
    score_width = 0

    game: np.ndarray = column(np.int64)
    thrown_in: np.ndarray = column(bool)
    dealer: np.ndarray = column(np.int8)
    tricks: np.ndarray = column(np.int8, "seats")
    points: np.ndarray = column(np.int32, "score_width")
    scores: np.ndarray = column(np.int32, "score_width")
    maker: np.ndarray = column(np.int8)
    contract: np.ndarray = column(np.int8)
    made: np.ndarray = column(bool)
    alone: np.ndarray = column(bool)

    @classmethod
    def empty_fields(cls, num_deals) -> tuple[np.ndarray, ...]:
        """The arrays of a summary of ``num_deals`` deals, in field order, unfilled (the
        variant's ``end_deals`` kernel fills them)."""
        return tuple([np.empty((num_deals, *shape), dtype) for shape, dtype in _columns(cls)])


@functools.cache
def _columns(summary_type):
    """(shape after the deal axis, dtype) of each field of a :class:`DealSummary` class, in order."""
    return tuple(
        (_shape(summary_type, f.metadata["shape"]), np.dtype(f.metadata["dtype"]))
        for f in dataclasses.fields(summary_type)
    )


RulesT = TypeVar("RulesT", bound=Rules)
StateT = TypeVar("StateT", bound=EpisodeState)
SummaryT = TypeVar("SummaryT", bound=DealSummary)


@dataclasses.dataclass
class StepResult(Generic[SummaryT]):
    """What one batched step produced.

    rewards: float32[N, S] by absolute seat; terminated, truncated: bool[N] (the
    game ended this step by the rules, or was cut at ``max_deals``); deals: the
    variant's :class:`DealSummary` of every deal that ended this step (thrown in or scored).
    """

    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    deals: SummaryT


def trick_taker(tricks_before, state, result, game=0):
    """The seat that took the trick game ``game``'s step just completed, or None (no trick completed).

    tricks_before: int[S], ``state.tricks_won[game]`` copied before the step;
    state, result: the state after the step and its :class:`StepResult`. A trick
    that ended a deal is read from ``result.deals`` (the state may already hold
    the next deal).
    """
    ended = np.flatnonzero(result.deals.game == game)
    after = result.deals.tricks[ended[0]] if len(ended) else state.tricks_won[game]
    gained = np.flatnonzero(after.astype(np.int64) - tricks_before)
    return int(gained[0]) if len(gained) else None


class BatchedGame(Generic[RulesT, StateT, SummaryT]):
    """The engine skeleton: options, episodes, deals, steps, scoring and game ends.

    ``Engine(episode="game", reward="points", **rules)``: episode "game" (deals
    until the game is won at ``target_score``) or "deal" (one deal; a thrown-in
    deal ends it with 0 points); reward "points" (each seat's share of the deal
    points when a deal is scored) or "win" (at game end: +1 to each winner,
    ``loss_reward`` to each other seat, 0 on truncation; needs episode="game").
    Other keyword arguments are the variant's rules (``rules_type``).

    A variant sets the class attributes ``num_players``, ``num_actions``,
    ``obs_size``, ``over_phase``, ``loss_reward``, ``rules_type``,
    ``state_type`` (an :class:`EpisodeState`), ``summary_type`` (a
    :class:`DealSummary`), ``score_column`` (int[S]: the score column of each
    seat), ``deal_keys`` and ``hand_size`` (the chosen-deal format), and
    implements the hooks:

    - ``observe(state, seats)``, ``hidden_cards(state, seats)``;
    - ``_deal_row(hands, deal)``: a chosen deal's row of W ints (``hands``: S
      lists of card ids, already checked to be lists);
    - ``kernels`` (class attribute): the variant's kernel module. Its kernels take the
      state's records (``state.records``) and the engine's ``settings`` (one record: every
      rules option, a str option as its index in ``CHOICES``, and the episode settings of
      :func:`settings_dtype`), whatever the variant: ``start_deals(games, state, chosen)``,
      ``legal_bits(state, settings)`` and ``legal_mask``, ``step(actions, state, settings,
      ended)``, ``step_and_observe(actions, legal, state, settings, ended, out)`` and
      ``observe_every(state, settings, out)`` (the vector API's step),
      ``observe(games, seats, state, settings)``, and
      ``end_deals(ended, auto_reset, state, chosen, settings, (rewards, terminated,
      truncated), summary)`` (scoring, game ends, the next deals, the summary's fields in
      order);
    - ``deal_points(state, games) -> int32[M, W]``.
    """

    num_players = 0
    num_actions = 0
    obs_size = 0
    hidden_size = 0
    over_phase = -1
    loss_reward = -1.0
    kernels: Any  # the variant's kernel module (ghost_euchre_env.kernels.ghost or .classic)
    rules_type: type[RulesT]
    state_type: type[StateT]
    summary_type: type[SummaryT]
    score_column: ClassVar[np.ndarray] = np.zeros(0, np.intp)
    deal_keys: ClassVar[tuple[str, ...]] = ("hands",)
    hand_size = 0
    contract_kinds: ClassVar[tuple[str, ...]] = ()  # a deal summary's ``contract`` indexes these
    bid_actions: ClassVar[tuple[int, ...]] = ()  # the auction's actions that take a contract
    # the game's descriptor (ghost_euchre_env.variants.Variant), set where the variant is
    # registered: a policy given a game reads ``game.variant``
    variant: ClassVar[Any] = None

    def __init__(self, episode="game", reward="points", **rules):
        check_choice("episode", episode, EPISODES)
        check_choice("reward", reward, REWARDS)
        if reward == "win" and episode != "game":
            raise ValueError("reward='win' needs episode='game' (a single deal has no winner)")
        known = [f.name for f in dataclasses.fields(self.rules_type)]
        unknown = set(rules) - set(known)
        if unknown:
            raise ValueError(f"unknown rules option(s) {sorted(unknown)}; expected some of {known}")
        self.episode = episode
        self.reward = reward
        self.rules = self.rules_type(**rules)
        self.settings = settings_record(self)  # the one record of them every kernel takes
        self._no_deals: SummaryT | None = (
            None  # the summary of a step in which no deal ended, made once
        )

    # ------------------------------------------------------------------ episodes
    def init(self, keys, options=None) -> StateT:
        """A new batch: one game per stream key (uint64[N]), first deal dealt.

        options: None, one dict for every game, or a list of N dicts (or None),
        each with optional ``dealer`` (a seat) and ``deals`` (a list of chosen
        deals, each a dict with the keys ``deal_keys``, used in order before
        random deals follow). Raises ValueError naming the first bad option.
        """
        keys = np.asarray(keys, dtype=np.uint64)
        state = self.state_type.empty(len(keys))
        state.keys[:] = keys
        self.start_episodes(state, np.arange(len(keys)), options)
        return state

    def start_episodes(self, state, games, options=None):
        """Start a new episode (scores 0, first deal dealt) in games ``games`` (int[M]).

        The episode counter is not advanced here; see :meth:`next_episodes`.
        options: as in :meth:`init`, for the M games. Bad options raise
        ValueError before anything is changed.
        """
        games = check_games(games, state.num_games, distinct=True)
        dealers, deals = dealing.parse_options(
            options, len(games), self.num_players, self._parse_deal
        )
        dealing.store_chosen(state, games, deals)
        with skeleton.wrapping():
            skeleton.open_episodes(games, dealers, self.num_players, state.records)
            self.kernels.start_deals(games, state.records, state.chosen)

    def next_episodes(self, state, games):
        """Advance the episode counter of ``games`` (int[M], distinct) and start a random episode there."""
        games = check_games(games, state.num_games, distinct=True)
        state.episode[games] += 1
        self.start_episodes(state, games)

    def _parse_deal(self, deal, game, number):
        """One chosen deal (a dict with the keys ``deal_keys``) -> its row of ints; ValueError if bad."""
        where = f"game {game}, deal {number}"
        keys = " and ".join(repr(key) for key in self.deal_keys)
        if not isinstance(deal, dict) or set(deal) != set(self.deal_keys):
            raise ValueError(f"{where}: a deal is a dict with keys {keys}, got {deal!r}")
        hands = deal["hands"]
        lists = dealing.SEQUENCES
        if not isinstance(hands, lists) or not all(isinstance(h, lists) for h in hands):
            raise ValueError(
                f"{where}: 'hands' must be a list of {self.num_players} lists of "
                f"{self.hand_size} card ids, got {hands!r}"
            )
        if len(hands) != self.num_players:
            raise ValueError(
                f"{where}: 'hands' must hold {self.num_players} hands, got {len(hands)}"
            )
        try:
            return self._deal_row([list(hand) for hand in hands], deal)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None

    # ------------------------------------------------------------------ decisions
    def legal_bits(self, state):
        """uint[N]: legal actions of the player to act as a bit set (bit a = action a; 0 when over)."""
        return self.kernels.legal_bits(state.records, self.settings)

    def observe(self, state, seats, games=None):
        raise NotImplementedError

    def _observe_rows(self, state, games, seats):
        """:meth:`observe` of checked ``games`` (int64[M]; empty: every game) and ``seats`` (int64)."""
        return self.kernels.observe(games, seats, state.records, self.settings)

    def hidden_cards(self, state, seats):
        """float32[N, hidden_size]: the cards seat ``seats[i]`` (int[N]) cannot see in game i, 0/1 per card
        (the other seats' hands by relative seat, the face-down cards): for training critics only
        (a policy never sees them)."""
        raise NotImplementedError

    def legal_mask(self, state):
        """bool[N, A]: legal actions of the player to act (all False when over); ``legal_bits``
        unpacked, in one kernel call."""
        return self.kernels.legal_mask(state.records, self.settings)

    def _check_seats(self, seats, num_games):
        """Observer seats as int64[N]; ValueError unless int[N] with values 0..S-1."""
        seats = np.asarray(seats, dtype=np.int64)
        if seats.shape != (num_games,) or skeleton.bad_seat(seats, self.num_players):
            raise ValueError(
                f"seats must be int[{num_games}] with values 0..{self.num_players - 1}, got {seats!r}"
            )
        return seats

    def _observed(self, state, seats, games):
        """(games int64[M], seats int64[M]) checked for an observation of the rows ``games``
        (None: every game, then games is empty and seats int[N]); ValueError if out of range."""
        if games is None:
            return EVERY_GAME, self._check_seats(seats, state.num_games)
        games = check_games(games, state.num_games)
        return games, self._check_seats(seats, len(games))

    def step(self, state, actions, auto_reset=False) -> StepResult[SummaryT]:
        """Apply one legal action per game (int[N]), in place; returns a :class:`StepResult`.

        Actions are not checked here (adapters check them once, with
        :func:`check_actions`). A game that is over (no player to act: it
        ended without ``auto_reset``) cannot be stepped: ValueError, and nothing
        changes; take the live games (``state.take``) or start their next
        episode (:meth:`next_episodes`). With ``auto_reset`` a game that ends
        starts its next episode in the same call (as :meth:`next_episodes`
        would); the result still reports its end.
        """
        game = skeleton.first_over(state.player)
        if game >= 0:
            raise ValueError(
                f"game {game} is over and cannot be stepped; start its next episode "
                "(next_episodes), step only the live games, or step with auto_reset=True"
            )
        ended, count = self._apply(state, np.asarray(actions).astype(np.int8))
        return self._end_deals(state, ended, count, auto_reset)

    def play_until_deal_ends(self, state, actions, playout, policy_args) -> StepResult[SummaryT]:
        """Step every game with ``actions`` (int[N], legal), then with a compiled policy's actions,
        step after step, in place and in one kernel call, until some deal ends; returns the
        :class:`StepResult` of that last step (no automatic reset). A playout's fast path: as
        :meth:`step` with the policy's actions between (the policy asked only where a game has
        a choice), for games that are all live (ValueError otherwise, nothing changed).

        playout, policy_args: a policy's playout kernel for this variant and its policy's
        arguments (e.g. the heuristic's ``playout()``): ``playout(actions int64[N], state,
        settings, policy_args) -> (deals ended, ended int8[N])``, the kernels'
        :func:`~ghost_euchre_env.kernels.skeleton.play_until_deals_end` with this variant's
        kernels and the policy's. In checked mode (:data:`CHECKED`) a policy's illegal action is
        a ValueError naming it (the games are then left where that decision was asked).
        """
        game = skeleton.first_over(state.player)
        if game >= 0:
            raise ValueError(f"game {game} is over and cannot be stepped")
        actions = np.array(actions, np.int64)
        count, ended = playout(actions, state.records, self.settings, tuple(policy_args))
        if count < 0:  # checked mode: game -1 - count's policy chose actions[game], illegal
            game = -1 - count
            raise ValueError(
                f"game {game}: the playout's policy chose action {actions[game]}, which is not "
                f"legal; legal actions are {np.flatnonzero(self.legal_mask(state)[game]).tolist()}"
            )
        return self._end_deals(state, ended, count, False)

    def replay_and_weigh(self, state, actions, replay, weigh_args):
        """float64[M]: each game replayed through its actions, in place and in one kernel call,
        and weighed by a compiled model of the other seats (a search's inference of the worlds
        that fit what they did): the sum over the actions of the seats other than 0 that had a
        choice of the model's log-weight of that action; -inf where an action is illegal (the
        game then goes on with its lowest legal action).

        actions: int[M, T], each row the game's actions in order, ended by -1 padding; replay,
        weigh_args: a model's replay kernel for this variant and its arguments (the heuristic's
        or a network's ``replay(floor)``): ``replay(actions, state, settings, weigh_args) ->
        float64[M]``, the kernels' :func:`~ghost_euchre_env.kernels.skeleton.replay_and_weigh`
        with this variant's kernels and the model's. The games must be live and stay so (no
        deal ends).
        """
        game = skeleton.first_over(state.player)
        if game >= 0:
            raise ValueError(f"game {game} is over and cannot be replayed")
        actions = np.asarray(actions)
        if actions.ndim != 2 or len(actions) != state.num_games or actions.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be ints of shape ({state.num_games}, T), one row a game; got "
                f"{actions.dtype} of shape {actions.shape}"
            )
        if actions.size and (actions.min() < -1 or actions.max() >= self.num_actions):
            raise ValueError(
                f"actions must be -1 (the row has ended) or 0..{self.num_actions - 1}; got "
                f"{actions.min()}..{actions.max()}"
            )
        return replay(
            np.ascontiguousarray(actions, np.int64),
            state.records,
            self.settings,
            tuple(weigh_args),
        )

    def _step_observe_live(self, state, actions, legal):
        """A step of the vector API: the actions (int[N]) checked against ``legal`` (bool[N, A],
        the legal mask the last step returned: empty in a game that is over), :meth:`step` with
        ``auto_reset``, then every game's legal mask and its observation by the player to act;
        (StepResult, obs, mask, player int64[N]), new arrays. ValueError as
        :func:`check_actions`, nothing changed. One kernel call when no deal ended.
        """
        n = len(legal)
        given = np.asarray(actions)
        flags = given.flags
        if given.dtype != _INT64 or given.shape != (n,) or not flags.c_contiguous:
            given = check_actions(given, legal)  # a bad shape or type raises here
        elif not flags.writeable:  # a kernel compiled for read-only arrays is another kernel
            given = given.copy()
        out = self._observed_arrays(n)
        result, observed = self._step_into(state, given, legal, out, True)
        if not observed:  # deals ended and were dealt again: observe now
            self.kernels.observe_every(state.records, self.settings, out)
        mask, obs, player = out
        return result, obs, mask, player

    def _observed_arrays(self, num_games):
        """New (mask bool[N, A], obs float32[N, D], player int64[N]) for :meth:`_step_into`."""
        return (
            np.empty((num_games, self.num_actions), bool),
            np.empty((num_games, self.obs_size), np.float32),
            np.empty(num_games, np.int64),
        )

    def _step_into(self, state, actions, legal, out, auto_reset):
        """A step of live games for the doors, in one kernel call: the actions (int64[N],
        contiguous) checked against ``legal`` (bool[N, A]; ValueError as :func:`check_actions`,
        nothing changed), :meth:`step`, then, if no deal ended, every game's legal mask,
        observation by its player to act and that player written into ``out``
        (:meth:`_observed_arrays`). Returns (StepResult, whether ``out`` was written).
        """
        ended = np.empty(len(legal), np.int8)
        count = self.kernels.step_and_observe(
            actions, legal, state.records, self.settings, ended, out
        )
        if count < 0:
            check_actions(actions, legal)  # game -1 - count's action is illegal: raises, named
        return self._end_deals(state, ended, count, auto_reset), not count

    # ------------------------------------------------------------------ deal ends
    def _end_deals(self, state, ended, count, auto_reset):
        """The end of the ``count`` deals the step kernel marked in ``ended`` (int8[N]): the
        variant's ``end_deals`` kernel scores them, ends games or deals again, in one call."""
        n = len(ended)
        rewards = np.zeros((n, self.num_players), np.float32)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        if not count and self._no_deals is not None:
            return StepResult(rewards, terminated, truncated, self._no_deals)
        summary = self.summary_type.empty_fields(count)
        with skeleton.wrapping():
            self.kernels.end_deals(
                ended,
                auto_reset,
                state.records,
                state.chosen,
                self.settings,
                (rewards, terminated, truncated),
                summary,
            )
        deals = self.summary_type(*summary)
        if not count:
            self._no_deals = deals  # a step in which no deal ended: one summary, made once
        return StepResult(rewards, terminated, truncated, deals)

    # ------------------------------------------------------------ variant hooks
    @staticmethod
    def _deal_row(hands, deal):
        raise NotImplementedError

    def _apply(self, state, action):
        """One decision in every game (int8[N]); returns (ended int8[N]: how each game's deal
        stands, the kernel's GOING_ON, PLAYED_OUT or THROWN_IN; how many deals ended), the
        ``kernels.step`` of the variant."""
        ended = np.empty(len(action), np.int8)
        return ended, self.kernels.step(action, state.records, self.settings, ended)

    def deal_points(self, state, games):
        raise NotImplementedError


def name_action(action, num_actions, names, suit_action, suit_word):
    """Readable name of an action id: a card ('J♥'), ``suit_word`` + a suit ('trump ♥'), or ``names[action]``.

    action: an int 0..num_actions-1 (ValueError otherwise, bools and floats included);
    ids 0..23 are cards, ``suit_action`` .. +3 the suits C, D, H, S.
    """
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        if 0 <= action < NUM_CARDS:
            return card_name(int(action))
        if suit_action <= action < suit_action + NUM_SUITS:
            return f"{suit_word} {SUIT_SYMBOLS[action - suit_action]}"
        if action in names:
            return names[action]
    raise ValueError(f"action must be an int 0..{num_actions - 1}, got {action!r}")


def parse_suit(suit):
    """'H', 'h', '♥', 'hearts' or 2 -> suit index 0..3 (C, D, H, S); ValueError for anything else."""
    if isinstance(suit, (int, np.integer)) and not isinstance(suit, bool) and 0 <= suit < NUM_SUITS:
        return int(suit)
    text = str(suit).strip()
    for index, names in enumerate(
        zip(SUIT_LETTERS, SUIT_SYMBOLS, ("clubs", "diamonds", "hearts", "spades"), strict=True)
    ):
        if text.upper() in (names[0], names[1]) or text.lower() == names[2]:
            return index
    raise ValueError(f"not a suit: {suit!r}; expected C, D, H, S (or ♣♦♥♠, clubs.., 0..3)")


class Actions:
    """A variant's action ids by name. ``card("JH")``: the id that plays (or discards) that card.

    A variant module subclasses it with its own names (``PASS``, ``bid(4)``, ``trump("H")``, ...).
    """

    num_actions = 0
    PASS = 0
    SUITS: tuple[int, ...] = ()  # the four actions that name a suit C, D, H, S
    suit_method = ""  # the method that spells a suit's action
    CARDS = slice(0, NUM_CARDS)  # the actions that play (or discard) card 0..23: mask[:, CARDS]

    def __init__(self, name_action: Callable[[int], str]):
        self._name = name_action

    @staticmethod
    def card(card):
        """'JH', 'J♥' or a card id 0..23 -> the action id that plays it (card ids are action ids
        0..23); ValueError for anything else."""
        if isinstance(card, (int, np.integer)) and not isinstance(card, bool):
            if 0 <= card < NUM_CARDS:
                return int(card)
        elif isinstance(card, str):
            return parse_card(card)
        raise ValueError(
            f"not a card: {card!r}; expected a card id 0..{NUM_CARDS - 1} or a name such as 'JH'"
        )

    def name(self, action):
        """Readable name of an action id: 'J♥', 'pass', 'bid 4', 'suit ♥', ..."""
        return self._name(action)

    def spellings(self):
        """{action id: how a bot writes it by name} for the actions that are not cards, by id."""
        spelled = {}
        for name in dir(type(self)):
            value = getattr(type(self), name)
            if name.isupper() and type(value) is int:
                spelled.setdefault(value, f"actions.{name}")
        for suit, action in zip(SUIT_LETTERS, self.SUITS, strict=True):
            spelled[action] = f'actions.{self.suit_method}("{suit}")'
        return dict(sorted(spelled.items()))


ActionsT = TypeVar("ActionsT", bound=Actions)


DOORS = (  # every door generated for a variant, by the name :class:`Doors` publishes it under
    "vector",  # its vector env class (the engine's batch API with automatic resets)
    "auction_game",  # its auction view of the engine (the card play made inside the step)
    "auction_vector",  # the vector env class over the auction view
    "gym",  # its single-agent Gymnasium env class
    "auction_gym",  # the single-agent Gymnasium env class of the auction view
    "gym_vector",  # the vector entry point of its Gymnasium id (a function)
    "auction_gym_vector",  # the vector entry point of its auction Gymnasium id
)


@dataclasses.dataclass(frozen=True)
class Doors:
    """Where a variant's doors are published: the names users import and Gymnasium registers.

    Every door is generated from the declaration, written once for every variant
    (:meth:`ghost_euchre_env.variants.Variant.door`); a name here only says where a
    generated door is found. pettingzoo / auction_pettingzoo: the PettingZoo modules
    (``"ghost_euchre_env.ghost_euchre_v0"``), which hold the variant's ``raw_env``, ``env``
    (and ``parallel_env``, ``score_bounds``) and whose last name is the env's
    ``metadata["name"]``; gym_id / auction_gym_id: the Gymnasium ids it registers;
    every door of :data:`DOORS`: ``"module:name"``, the module (which publishes it by
    :func:`ghost_euchre_env.variants.published`) and its name there. docs: the docstring of
    a door that says more of the variant than the doors' own (a door not named here has one
    written from the declaration).
    """

    pettingzoo: str
    auction_pettingzoo: str
    gym_id: str
    auction_gym_id: str
    vector: str
    auction_game: str
    auction_vector: str
    gym: str
    auction_gym: str
    gym_vector: str
    auction_gym_vector: str
    docs: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        doors = (*DOORS, "aec", "auction_aec", "parallel")  # those and the PettingZoo modules'
        unknown = set(self.docs) - set(doors)
        if unknown:
            raise ValueError(f"docs names doors {sorted(unknown)}; the doors are {list(doors)}")

    def entry_point(self, door):
        """(module, name) of a door of :data:`DOORS`."""
        module, _, name = getattr(self, door).partition(":")
        return module, name


@dataclasses.dataclass(frozen=True)
class ShippedNetwork:
    """A network shipped with the package for a variant (``ppo:NAME``): its ``name``, its ``file``
    in ``ghost_euchre/agents/pretrained``, one line ``about`` it."""

    name: str
    file: str
    about: str


@dataclasses.dataclass(frozen=True)
class Solving:
    """What the exact solver (:mod:`ghost_euchre_env.solver`) and the analysis read of a variant.

    team_scoring: a deal's points are the maker's team's against the other team's (zero-sum;
    else each seat scores its own, and the solver's concept says what the others' points
    count); position(engine, state, games) -> {row: values}: the variant's own rows of the
    solver's positions by name (``active``, ``maker``, ``bid``, ``moon_points``, ``moon_set``,
    ``renege_penalty``, ``allow_renege``, ``maker_alone``, ``lone_defender``; those not given
    are 0) and ``reneges`` (int[M, S]) where the score counts them; concept: the analysis's
    name of a value, meaning: what a value is, in words.
    """

    team_scoring: bool
    position: Callable[..., Mapping[str, Any]]
    concept: str
    meaning: str


@dataclasses.dataclass(frozen=True)
class VariantDeclaration(Generic[ActionsT]):
    """What a variant module declares of its descriptor (:class:`ghost_euchre_env.variants.Variant`).

    A variant module ends with ``DECLARATION = VariantDeclaration(...)``; the registry
    builds the descriptor from it and from the engine's own class attributes (seats,
    teams, sizes, contract kinds), with no code of its own per variant, and every door
    (the vector, PettingZoo and Gymnasium envs, the auction view) is generated from it.

    name, title: its registry name and its title; engine: its :class:`BatchedGame`;
    actions: its :class:`Actions`; layout / kinds: the observation layout
    ((name, size, meaning), ...) and how each field decodes ({name: (kind, options)},
    :class:`ghost_euchre_env.views.Field`'s kind and shape, values, none, scale);
    phases: the observation's phase names, in the order the ``phase`` field's values
    index them; state_phase_of_view: the engine's phase code of each; state_phases: the
    engine's phase names by code; play_phase: the engine's code of the card play;
    contract_labels: how a table heads each of the engine's ``contract_kinds``; render:
    ``render(game, state, g=0, names=None, unicode=True)`` by entry point ('module:name':
    the renderer imports the engine); action_table: the action ids as a reStructuredText
    table (the documentation's); doors: where its doors are published (:class:`Doors`);
    solving: what the solver and the analysis read of it (:class:`Solving`); networks: its
    shipped networks (:class:`ShippedNetwork`, the first its own agent, named after it).

    What the doors ask of the game: score_bounds(rules) -> (low, high), the bounds of the
    observation's ``scores`` columns (every other column lies in [0, 1]); no_deal: the AEC
    env's ``last_deal`` while no deal of the episode has ended (its keys, in order, are the
    infos' ``last_deal_*``); deal_details(deals) -> dict: the variant's own fields of the one
    finished deal of a batch-of-one deal summary (the doors add ``deal``, ``thrown_in``,
    ``dealer``, ``trump``, ``tricks``, ``points``, ``scores``), with the keys, shapes and
    dtypes of ``no_deal``; seat_can_sit_out: whether a seat may have no decision in a whole
    deal (classic: its partner went alone), so that the single-agent views skip an episode
    that ends before the learner's first decision; cards_per_trick(last_deal) -> int: the
    cards of each trick of a finished deal (None: one a seat).
    """

    name: str
    title: str
    engine: type
    actions: ActionsT
    layout: tuple[tuple[str, int, str], ...]
    kinds: Mapping[str, tuple[str, Mapping[str, Any]]]
    phases: tuple[str, ...]
    state_phase_of_view: tuple[int, ...]
    state_phases: tuple[str, ...]
    play_phase: int
    contract_labels: tuple[str, ...]
    render: str
    action_table: str
    doors: Doors
    score_bounds: Callable[[Any], tuple[float, float]]
    no_deal: Mapping[str, Any]
    deal_details: Callable[[Any], dict]
    seat_can_sit_out: bool
    solving: Solving
    networks: tuple[ShippedNetwork, ...] = ()
    cards_per_trick: Callable[[Mapping[str, Any]], int] | None = None


@functools.cache
def settings_dtype(rules_type, num_players):
    """The dtype of the one record of an engine's settings that every kernel takes, for its rules
    class and its number of seats: each rules option in its order (a bool, an int as int64, a str as the int8 index of its value in
    ``CHOICES``), then ``one_deal`` (episode "deal"), ``reward_is_win`` (reward "win"),
    ``loss_reward``, ``score_column`` (int64[S]: the score column of each seat) and ``checked``
    (:data:`CHECKED`: the compiled playouts refuse a policy's illegal action)."""
    kinds = {bool: np.bool_, int: np.int64, str: np.int8}
    fields = [
        *((f.name, kinds[f.type]) for f in dataclasses.fields(rules_type)),
        ("one_deal", np.bool_),
        ("reward_is_win", np.bool_),
        ("loss_reward", np.float64),
        ("score_column", np.int64, (num_players,)),
        ("checked", np.bool_),
    ]
    return np.dtype((np.record, np.dtype(fields, align=True)))


def settings_record(engine):
    """The settings of an engine (a :class:`BatchedGame`) as the one record every kernel takes:
    a :func:`settings_dtype` array of one."""
    rules = engine.rules
    options = {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}
    record = np.zeros(1, settings_dtype(type(rules), engine.num_players))
    record[0] = (
        *(rules.CHOICES[name].index(v) if isinstance(v, str) else v for name, v in options.items()),
        engine.episode == "deal",
        engine.reward == "win",
        engine.loss_reward,
        engine.score_column,
        CHECKED,
    )
    return record


def check_games(games, num_games, distinct=False):
    """Games as int64[M]; ValueError unless int[M] with values 0..num_games-1 (each once if ``distinct``)."""
    games = np.asarray(games)
    if games.ndim != 1 or (len(games) and games.dtype.kind not in "iu"):
        raise ValueError(f"games must be int[M] with values 0..{num_games - 1}, got {games!r}")
    games = games.astype(np.int64)
    if len(games) and not 0 <= games.min() <= games.max() < num_games:
        raise ValueError(f"games must be int[M] with values 0..{num_games - 1}, got {games!r}")
    if distinct and len(np.unique(games)) != len(games):
        raise ValueError(f"games must name each game once, got {games!r}")
    return games


def check_actions(actions, mask, games=None):
    """Validate a batch of actions against the legal mask; return them as int64[N].

    actions: int[N]; mask: bool[N, A]; games: int[N] the rows' game ids for the
    message (None: the row numbers). Raises ValueError naming the first bad
    game, its action and its legal actions. Nothing is modified.
    """
    num_games = mask.shape[0]
    given = np.asarray(actions)
    if given.shape != (num_games,):
        raise ValueError(f"actions must have shape ({num_games},), got {given.shape}")
    if given.dtype.kind not in "iu":
        raise ValueError(f"actions must be integers, got dtype {given.dtype}")
    array = given.astype(np.int64)  # a uint64 past 2**63 wraps negative: illegal, named as given
    game = skeleton.first_illegal(array, mask)
    if game >= 0:
        raise ValueError(
            f"game {game if games is None else int(games[game])}: action {int(given[game])} is not legal; "
            f"legal actions are {np.flatnonzero(mask[game]).tolist()}"
        )
    return array


def check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")


def check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value!r}")


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
