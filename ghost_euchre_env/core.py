"""The skeleton shared by the engines: batched state, episodes, deals, rules checks, action checks.

A variant module (``ghost.py``, ``classic.py``) holds only its rules: it
declares its state fields (:func:`column`), its rules options (a dataclass over
:class:`Rules`) and its deal summary (over :class:`DealSummary`), and fills in
the hooks of :class:`BatchedGame` (its kernels, which deal, apply one decision,
score and end deals; the arguments they take). Everything else (option checks,
building a state, chosen deals, episodes, the calls of the kernels, the legal mask,
action checks) is here, once; what every variant's kernels share (dealing, the end
of a game, truncation, automatic resets) is :mod:`ghost_euchre_env.kernels.skeleton`.
A variant module also declares its descriptor: its actions by name (over
:class:`Actions`) and, at its end, a :class:`VariantDeclaration` that
:mod:`ghost_euchre_env.variants` builds the registry from.
"""

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

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
REWARDS = ("points", "win")  # reward="points": deal points as scored; "win": +1 / loss at game end
NO_SEAT = -1

EVERY_GAME = np.zeros(0, np.int64)  # the ``games`` of an observation of every game, in order

StateSelf = TypeVar("StateSelf", bound="BatchState")


def column(dtype, *shape, fill=0):
    """A field of a :class:`BatchState` or :class:`DealSummary` dataclass: an array
    ``dtype[N, *shape]``.

    shape: ints, or names of int class attributes of the dataclass (e.g.
    ``"score_width"``). A new state holds ``fill`` everywhere (the fields of a deal
    are written by the variant's ``start_deals`` kernel when the deal starts).
    """
    return dataclasses.field(metadata={"dtype": dtype, "shape": shape, "fill": fill})


@functools.cache
def _layout(cls):
    """((dtype, fill, shape after the game axis), ...) of the :func:`column` fields of a dataclass, in order."""
    return tuple(
        (
            np.dtype(f.metadata["dtype"]),
            f.metadata["fill"],
            tuple(s if isinstance(s, int) else getattr(cls, s) for s in f.metadata["shape"]),
        )
        for f in dataclasses.fields(cls)
    )


@dataclasses.dataclass
class BatchState:
    """Base for a dataclass whose every field is an array with a leading game axis (one is ``player``).

    [N, K] fields are stored seat-major, column by column (Fortran order): one
    seat's column of every game is then contiguous. It is the layout the rules
    kernels are compiled for (another layout would compile them again); indexing
    is unchanged.
    """

    if TYPE_CHECKING:  # declared by every subclass (see EpisodeState)
        player: np.ndarray

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value.ndim == 2 and not value.flags.f_contiguous:
                setattr(self, f.name, np.asfortranarray(value))

    @classmethod
    def empty(cls, num_games):
        """A state of ``num_games`` games with every field at its ``fill`` (see :func:`column`)."""
        return cls(
            *(
                np.full((num_games, *shape), fill, dtype, order="F" if len(shape) == 1 else "C")
                for dtype, fill, shape in _layout(cls)
            )
        )

    @property
    def num_games(self):
        return len(self.player)  # every state has a ``player`` field: int8[N]

    def copy(self: StateSelf) -> StateSelf:
        """A deep copy (no array shared with this state)."""
        return self.take(slice(None))

    def take(self: StateSelf, index) -> StateSelf:
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


@dataclasses.dataclass
class EpisodeState(BatchState):
    """The fields every variant's state has: dealing streams, episodes, scores, whose turn it is.

    A subclass adds its rules' fields and sets ``deal_width`` (ints per chosen
    deal) and ``score_width`` (seats or teams that keep a score). Seats are
    absolute; -1 means none.
    """

    deal_width: ClassVar[int] = 0
    score_width: ClassVar[int] = 0

    keys: np.ndarray = column(np.uint64)  # dealing stream key of each game
    episode: np.ndarray = column(np.int64)  # episodes started with this key
    episode_key: np.ndarray = column(np.uint64)  # dealing key of the current episode
    chosen: np.ndarray = column(HAND_DTYPE, 0, "deal_width")  # [N, K, W] chosen deals
    num_chosen: np.ndarray = column(np.int32)  # how many of ``chosen`` this episode uses
    deal_number: np.ndarray = column(np.int32)  # deals dealt this episode, redeals included
    dealer: np.ndarray = column(np.int8, fill=NO_SEAT)
    scores: np.ndarray = column(np.int32, "score_width")  # game score by seat or team
    phase: np.ndarray = column(np.int8, fill=-1)  # the variant's phase; its over_phase when over
    player: np.ndarray = column(np.int8, fill=NO_SEAT)  # seat to act (-1 when the game is over)


def game_index(num_games):
    """intp[num_games] 0..num_games-1 (read-only, cached: rebuilt per step it would cost a pass)."""
    index = np.arange(num_games, dtype=np.intp)
    index.flags.writeable = False
    return index


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

    One flat gather: several times faster than NumPy's row indexing of a 2-D array, but for
    one row (a batch of one), where NumPy's indexing is twice as fast (and a [1, K] array has
    both layouts).
    """
    if len(games) == 1:
        return field[games]
    return _flat(field).take(_column_cells(field, games)).T


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
        return tuple([np.empty((num_deals, *shape), dtype) for dtype, _, shape in _layout(cls)])


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

    - ``observe(state, seats)``; ``_legal_args(state)``: the arguments of the
      variant's ``kernels.legal_bits`` and ``kernels.legal_mask``; ``_observe_args(state)``:
      those of ``kernels.observe`` after the games and the seats;
    - ``_deal_row(hands, deal)``: a chosen deal's row of W ints (``hands``: S
      lists of card ids, already checked to be lists);
    - ``kernels`` (class attribute): the variant's kernel module, whose ``step``
      and ``step_and_observe`` take the actions, then ``_step_args(state)``
      (the state's fields and rules they read), then the ``ended`` buffer; whose
      ``start_deals`` takes the games, the episode's dealing fields, then
      ``_deal_args(state)`` (the fields a deal sets); and whose ``end_deals``
      (scoring, game ends, the next deals, the summary's fields in order) takes
      the engine's settings and the episode's fields, then ``_score_args()`` (the
      scoring rules options), then ``_deal_args(state)``;
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
            skeleton.open_episodes(
                games,
                dealers,
                self.num_players,
                state.keys,
                state.episode,
                state.episode_key,
                state.dealer,
                state.deal_number,
                state.scores,
            )
            self.kernels.start_deals(
                games,
                state.episode_key,
                state.num_chosen,
                state.chosen,
                state.deal_number,
                *self._deal_args(state),
            )

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
    def _legal_args(self, state):
        raise NotImplementedError

    def legal_bits(self, state):
        """uint[N]: legal actions of the player to act as a bit set (bit a = action a; 0 when over)."""
        return self.kernels.legal_bits(*self._legal_args(state))

    def observe(self, state, seats, games=None):
        raise NotImplementedError

    def _observe_rows(self, state, games, seats):
        """:meth:`observe` of checked ``games`` (int64[M]; empty: every game) and ``seats`` (int64)."""
        return self.kernels.observe(games, seats, *self._observe_args(state))

    def hidden_cards(self, state, seats):
        """float32[N, hidden_size]: the cards seat ``seats[i]`` (int[N]) cannot see in game i, 0/1 per card
        (the other seats' hands by relative seat, the face-down cards): for training critics only
        (a policy never sees them)."""
        raise NotImplementedError

    def legal_mask(self, state):
        """bool[N, A]: legal actions of the player to act (all False when over); ``legal_bits``
        unpacked, in one kernel call."""
        return self.kernels.legal_mask(*self._legal_args(state))

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
        arguments (e.g. the heuristic's ``playout()``): ``playout(actions int64[N], player,
        step_args, legal_args, observe_args, policy_args, ended) -> deals ended``, the kernels'
        :func:`~ghost_euchre_env.kernels.skeleton.play_until_deals_end` with this variant's
        kernels and the policy's.
        """
        game = skeleton.first_over(state.player)
        if game >= 0:
            raise ValueError(f"game {game} is over and cannot be stepped")
        ended = np.empty(state.num_games, np.int8)
        count = playout(np.array(actions, np.int64), *self._loop_args(state, policy_args), ended)
        return self._end_deals(state, ended, count, False)

    def replay_and_weigh(self, state, actions, replay, weigh_args):
        """float64[M]: each game replayed through its actions, in place and in one kernel call,
        and weighed by a compiled model of the other seats (a search's inference of the worlds
        that fit what they did): the sum over the actions of the seats other than 0 that had a
        choice of the model's log-weight of that action; -inf where an action is illegal (the
        game then goes on with its lowest legal action).

        actions: int[M, T], each row the game's actions in order, ended by -1 padding; replay,
        weigh_args: a model's replay kernel for this variant and its arguments (the heuristic's
        or a network's ``replay(floor)``): ``replay(actions, player, step_args, legal_args,
        observe_args, weigh_args, totals, ended)``, the kernels'
        :func:`~ghost_euchre_env.kernels.skeleton.replay_and_weigh` with this variant's kernels
        and the model's. The games must be live and stay so (no deal ends).
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
        totals = np.zeros(state.num_games)
        replay(
            np.ascontiguousarray(actions, np.int64),
            *self._loop_args(state, weigh_args),
            totals,
            np.empty(state.num_games, np.int8),
        )
        return totals

    def _loop_args(self, state, policy_args):
        """(player, step args, legal-mask args, observe args, policy or model args): what a loop
        kernel (:meth:`play_until_deal_ends`, :meth:`replay_and_weigh`) takes after its actions."""
        return (
            state.player,
            self._step_args(state),
            self._legal_args(state),
            self._observe_args(state),
            tuple(policy_args),
        )

    def _step_observe_live(self, state, actions):
        """A step of the vector API: :meth:`step` with ``auto_reset``, then every game's legal mask
        and its observation by the player to act; (StepResult, obs, mask, player int64[N]).

        For games known to be live (actions checked against their legal mask, which is empty
        in a game that is over). One kernel call when no deal ended (``_apply_observe``).
        """
        ended, count, obs, mask = self._apply_observe(state, np.asarray(actions).astype(np.int8))
        result = self._end_deals(state, ended, count, True)
        player = state.player.astype(np.int64)
        if obs is None or mask is None:  # deals ended and were dealt again: observe now
            mask = self.legal_mask(state)
            obs = self._observe_rows(state, EVERY_GAME, player)
        return result, obs, mask, player

    # ------------------------------------------------------------------ deal ends
    def _end_deals(self, state, ended, count, auto_reset):
        """The end of the ``count`` deals the step kernel marked in ``ended`` (int8[N]): the
        variant's ``end_deals`` kernel scores them, ends games or deals again, in one call."""
        n = state.num_games
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
                self.episode == "deal",
                self.reward == "win",
                self.loss_reward,
                self.score_column,
                self.rules.target_score,
                self.rules.max_deals,
                rewards,
                terminated,
                truncated,
                summary,
                state.keys,
                state.episode,
                state.episode_key,
                state.num_chosen,
                state.chosen,
                state.deal_number,
                state.scores,
                *self._score_args(),
                *self._deal_args(state),
            )
        deals = self.summary_type(*summary)
        if not count:
            self._no_deals = deals  # a step in which no deal ended: one summary, made once
        return StepResult(rewards, terminated, truncated, deals)

    # ------------------------------------------------------------ variant hooks
    @staticmethod
    def _deal_row(hands, deal):
        raise NotImplementedError

    def _step_args(self, state):
        raise NotImplementedError

    def _deal_args(self, state):
        raise NotImplementedError

    def _observe_args(self, state):
        raise NotImplementedError

    def _score_args(self):
        raise NotImplementedError

    def _apply(self, state, action):
        """One decision in every game (int8[N]); returns (ended int8[N]: how each game's deal
        stands, the kernel's GOING_ON, PLAYED_OUT or THROWN_IN; how many deals ended), the
        ``kernels.step`` of the variant."""
        ended = np.empty(len(action), np.int8)
        return ended, self.kernels.step(action, *self._step_args(state), ended)

    def _apply_observe(
        self, state, action
    ) -> tuple[np.ndarray, int, np.ndarray | None, np.ndarray | None]:
        """:meth:`_apply`, then (ended, count, obs, mask) with the legal mask and the
        observation of every game by its player to act (None, None when a deal ended: the caller
        then observes), in one kernel call (``kernels.step_and_observe``)."""
        ended = np.empty(len(action), np.int8)
        count, mask, obs = self.kernels.step_and_observe(
            action,
            *self._step_args(state),
            ended,
            self.rules.target_score,
            self.rules.max_deals,
            state.deal_number,
            state.scores,
        )
        return (ended, count, None, None) if count else (ended, count, obs, mask)

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
    table (the documentation's); doors: where its doors are published (:class:`Doors`).

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
    cards_per_trick: Callable[[Mapping[str, Any]], int] | None = None


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
