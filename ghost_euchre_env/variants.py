"""One descriptor per game variant, and the registry: ``make(name)``, ``available()``, ``of(game)``.

A :class:`Variant` is everything a layer above the engine needs to know about
a variant without telling the variants apart by hand: its engine, vector env,
PettingZoo AEC and Gymnasium entry points, seats and teams, the fair share of
wins, the score columns, the seatings of a duplicate match, its actions by
name (``variant.actions.PASS``, ``.bid(4)``, ``.card("JH")``), its observation
layout read by name (``variant.view(obs)``, :mod:`.views`) and its renderer.
Every number in it comes from the engine modules; no rule is written here.

>>> from ghost_euchre_env import variants
>>> ghost = variants.make("ghost")
>>> ghost.num_players, ghost.actions.bid(4), ghost.actions.card("JH")
(3, 30, 10)
"""

import dataclasses
import functools
import importlib
import itertools
from collections.abc import Callable
from typing import Any, ClassVar, Generic, Literal, TypeVar, overload

import numpy as np

from . import classic, ghost
from .bidding import ClassicBiddingVec, GhostBiddingVec
from .cards import NUM_CARDS, NUM_SUITS, SUIT_LETTERS, SUIT_SYMBOLS, parse_card
from .core import layout_table
from .render import render_classic, render_ghost
from .vector import ClassicEuchreVec, GhostEuchreVec
from .views import Field, encode, view_class


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
    """A variant's action ids by name. ``card("JH")``: the id that plays (or discards) that card."""

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


class GhostActions(Actions):
    """Ghost Hand's actions: PASS, SWAP, MOON, ``bid(3..5 or 6 = moon)``, ``trump(suit)``, ``card(card)``."""

    num_actions = ghost.NUM_ACTIONS
    PASS = ghost.PASS
    SWAP = ghost.SWAP
    MOON = ghost.MOON
    BIDS = (ghost.BID_3, ghost.BID_4, ghost.BID_5, ghost.MOON)  # by level 3, 4, 5, moon
    _BY_LEVEL: ClassVar[dict[int, int]] = dict(zip(ghost.BID_LEVELS, BIDS, strict=True))
    SUITS = tuple(ghost.SUIT_ACTIONS)  # name trump C, D, H, S

    def bid(self, level):
        """Action id of a bid of ``level`` tricks (3, 4, 5; 6 or 'moon': the moon)."""
        if isinstance(level, str) and level == "moon":
            level = ghost.MOON_LEVEL
        is_int = isinstance(level, (int, np.integer)) and not isinstance(level, bool)
        action = self._BY_LEVEL.get(int(level)) if is_int else None
        if action is None:
            raise ValueError(f"not a bid: {level!r}; expected 3, 4, 5, 6 or 'moon'")
        return action

    suit_method = "trump"

    def spellings(self):
        return dict(
            sorted(
                {
                    **super().spellings(),
                    **{self.bid(b): f"actions.bid({b})" for b in (3, 4, 5)},
                }.items()
            )
        )

    def trump(self, suit):
        """Action id that names ``suit`` trump ('H', '♥', 'hearts' or 0..3)."""
        return ghost.TRUMP_CLUBS + parse_suit(suit)


class ClassicActions(Actions):
    """Classic's actions: PASS, GO_ALONE, WITH_PARTNER, ``suit(suit)`` (order up / name), ``card(card)``."""

    num_actions = classic.NUM_ACTIONS
    PASS = classic.PASS
    GO_ALONE = classic.GO_ALONE
    WITH_PARTNER = classic.WITH_PARTNER
    SUITS = tuple(classic.SUIT_ACTIONS)  # order up / name C, D, H, S

    suit_method = "suit"

    def suit(self, suit):
        """Action id that orders up (round 1) or names (round 2) ``suit`` trump."""
        return classic.SUIT_CLUBS + parse_suit(suit)


def _fields(layout, kinds):
    """The :class:`views.Field` list of an engine layout ((name, size, meaning), ...) and {name: (kind, options)}."""
    fields, start = [], 0
    for name, size, meaning in layout:
        kind, options = kinds[name]
        fields.append(Field(name, start, start + size, meaning, kind, **options))
        start += size
    return tuple(fields)


def _ghost_fields():
    seats, tricks = ghost.NUM_PLAYERS, ghost.NUM_TRICKS
    seat = ("seat", {})
    return _fields(
        ghost.OBS_LAYOUT,
        {
            "hand": ("cards", {}),
            "dead_hand": ("cards", {}),
            "played_by": ("cards", {"shape": (seats,)}),
            "played_in_trick": ("cards", {"shape": (tricks,)}),
            "current_trick": ("cards", {"shape": (seats,)}),
            "swapper": seat,
            "declarer": seat,
            "dealer": seat,
            "leader": seat,
            "bids": ("flags", {"shape": (len(ghost.BID_LEVELS), seats)}),
            "passes": ("flags", {"shape": (seats, 4)}),
            "contract": ("choice", {"values": ghost.BID_LEVELS, "none": 0}),
            "trump": ("choice", {"values": tuple(range(NUM_SUITS))}),
            "phase": (
                "choice",
                {"values": (ghost.AUCTION, ghost.TRUMP, ghost.PLAY), "none": ghost.OVER},
            ),
            "tricks_won": ("count", {"shape": (seats,), "scale": tricks}),
            "scores": ("fraction", {"shape": (seats,)}),
            "deal_progress": ("fraction", {}),
        },
    )


CLASSIC_PHASES = (
    "round 1",
    "round 2",
    "discard",
    "alone",
    "play",
    "over",
)  # as the observation tells them
CLASSIC_OVER = CLASSIC_PHASES.index("over")  # the observation shows no phase bit then


def _classic_fields():
    seats, tricks = classic.NUM_PLAYERS, classic.NUM_TRICKS
    seat = ("seat", {})
    return _fields(
        classic.OBS_LAYOUT,
        {
            "hand": ("cards", {}),
            "upcard": ("card", {}),
            "discard": ("card", {}),
            "played_by": ("cards", {"shape": (seats,)}),
            "played_in_trick": ("cards", {"shape": (tricks,)}),
            "current_trick": ("cards", {"shape": (seats,)}),
            "dealer": seat,
            "maker": seat,
            "leader": seat,
            "calls": ("flags", {"shape": (2, seats, 1 + NUM_SUITS)}),
            "alone": ("flags", {"shape": (seats, 2)}),
            "sitting_out": ("flags", {"shape": (seats,)}),
            "trump": ("choice", {"values": tuple(range(NUM_SUITS))}),
            "phase": ("choice", {"values": tuple(range(CLASSIC_OVER)), "none": CLASSIC_OVER}),
            "tricks_won": ("count", {"shape": (seats,), "scale": tricks}),
            "scores": ("fraction", {"shape": (classic.NUM_TEAMS,)}),
            "deal_progress": ("fraction", {}),
        },
    )


def _load(entry_point):
    module, _, name = entry_point.partition(":")
    return getattr(importlib.import_module(module), name)


ActionsT = TypeVar("ActionsT", bound=Actions)


@dataclasses.dataclass(frozen=True, eq=False)
class Variant(Generic[ActionsT]):
    """A game variant: what every layer above the engine needs to know about it.

    name: its registry name ('ghost', 'classic'); engine: the rules engine class
    (``engine(episode=, reward=, **rules)``); vector_env: its vector env class;
    aec_entry_point / gym_id: the PettingZoo AEC ``env`` factory
    ('module:name') and the Gymnasium id (None: no Gymnasium env);
    teams: int[S] the team of each seat (its score column; Ghost Hand: every
    seat its own team); actions: :class:`Actions`; fields: the observation
    layout (:class:`views.Field`, in column order); phases: the observation's
    phase names (``view.phase`` indexes them); render: ``render(game, state,
    g=0, names=None, unicode=True)`` -> the table as text; bidding_vec: its
    auction view's vector env (the card play made inside the step);
    contract_labels: how a table heads each of ``contract_kinds``.
    """

    name: str
    title: str
    engine: type
    vector_env: type
    aec_entry_point: str
    gym_id: str | None
    teams: np.ndarray
    actions: ActionsT
    fields: tuple[Field, ...]
    phases: tuple[str, ...]
    render: Callable[..., str]
    play_phase: int  # the engine's phase code of the card play
    state_phases: tuple[str, ...]  # the engine state's phase names, by phase code
    bidding_vec: type
    contract_labels: tuple[str, ...]
    state_phase_of_view: np.ndarray  # int8[P]: the engine's phase code of each observation phase

    @property
    def contract_kinds(self):
        """The kinds a deal summary's ``contract`` indexes: ('3', '4', '5', 'moon'); ('ordered up', 'named', 'alone')."""
        return self.engine.contract_kinds

    @property
    def bid_actions(self):
        """The auction's action ids that take a contract (a bid; classic: order up or name a suit)."""
        return self.engine.bid_actions

    @property
    def opponent_seats(self):
        """bool[S, S]: seat t is on another team than seat s."""
        return self.teams[:, None] != self.teams[None, :]

    @property
    def num_players(self):
        return self.engine.num_players

    @property
    def num_actions(self):
        return self.engine.num_actions

    @property
    def obs_size(self):
        return self.engine.obs_size

    @property
    def rules_type(self):
        return self.engine.rules_type

    @property
    def num_teams(self):
        """Teams (= score columns): 3 in Ghost Hand, 2 in classic."""
        return int(self.teams.max()) + 1

    @property
    def has_partners(self):
        return self.num_teams < self.num_players

    @property
    def team_members(self):
        """int[T, S / T]: the seats of each team, in seat order ([[0], [1], [2]]; [[0, 2], [1, 3]])."""
        return np.stack([np.flatnonzero(self.teams == t) for t in range(self.num_teams)])

    @property
    def fair_share(self):
        """A team's share of the wins when every team is as good: 1 / teams."""
        return 1 / self.num_teams

    @property
    def score_columns(self):
        """Names of the engine's score columns: by seat (Ghost Hand) or by team (classic)."""
        return tuple(
            f"team {t}" if self.has_partners else f"seat {t}" for t in range(self.num_teams)
        )

    @property
    def opponents(self):
        """Relative seats on other teams than the observer (0): [1, 2] or [1, 3]."""
        return [int(s) for s in np.flatnonzero(self.teams != self.teams[0])]

    @property
    def partner(self):
        """Relative seat of the observer's partner, or None (Ghost Hand)."""
        mates = np.flatnonzero(self.teams == self.teams[0])[1:]
        return int(mates[0]) if len(mates) else None

    def seatings(self):
        """int64[K, S]: the seat orders of a duplicate match's deal sequence.

        Every permutation of the seats when each seat is its own team (every
        player meets every seat and neighbour); with partnerships, the
        rotations (a partnership stays opposite).
        """
        seats = self.num_players
        if self.has_partners:
            return (np.arange(seats)[:, None] + np.arange(seats)[None, :]) % seats
        return np.array(list(itertools.permutations(range(seats))), dtype=np.int64)

    def card_play(self, obs):
        """bool[N]: the observations float32[N, obs_size] whose decision is a card play (the view's
        phase is 'play'); every other decision is the auction's (classic: the dealer's discard too)."""
        return self.view(obs).phase == self.phases.index("play")

    def make_game(self, episode="game", reward="points", rules=None):
        """The engine with ``episode``, ``reward`` and rules options (dict or None)."""
        return self.engine(episode=episode, reward=reward, **dict(rules or {}))

    def aec(self, **kwargs):
        """The PettingZoo AEC env (``kwargs`` as its ``env``)."""
        return _load(self.aec_entry_point)(**kwargs)

    def view(self, obs):
        """The observations float32[N, obs_size] read by name (a :class:`views.ObservationView`)."""
        return self.view_type(obs)

    def encode(self, values):
        """float32[N, obs_size]: the observations of a view, or of {field name: decoded value}."""
        return encode(self.fields, values)

    def card_columns(self):
        """(int64[B, 24]: the observation column of card c in card block b, int64[R]: the other columns).

        The card blocks are the ``cards`` and ``card`` fields' blocks of 24, in layout order.
        """
        starts = [
            np.arange(f.start, f.stop, NUM_CARDS)
            for f in self.fields
            if f.kind in ("cards", "card")
        ]
        cards = np.concatenate(starts)[:, None] + np.arange(NUM_CARDS)
        return cards, np.setdiff1d(np.arange(self.obs_size), cards.reshape(-1))

    def layout_table(self):
        """The observation layout as a reStructuredText table (field, offset, size, meaning)."""
        return layout_table([(f.name, f.stop - f.start, f.meaning) for f in self.fields])

    @functools.cached_property
    def view_type(self):
        """The variant's :class:`views.ObservationView` subclass (one descriptor per field)."""
        return view_class(self.name, self.fields)

    def __repr__(self):
        return f"Variant({self.name!r})"

    def __reduce__(self):  # pickled by name: the registry's own object comes back
        return make, (self.name,)


GHOST: Variant[GhostActions] = Variant(
    name="ghost",
    title="Ghost Hand Euchre",
    engine=ghost.GhostEuchre,
    vector_env=GhostEuchreVec,
    aec_entry_point="ghost_euchre_env.ghost_euchre_v0:env",
    gym_id="GhostEuchre-v0",
    teams=np.asarray(ghost.GhostEuchre.score_column),
    actions=GhostActions(ghost.action_name),
    fields=_ghost_fields(),
    phases=ghost.PHASE_NAMES,
    render=render_ghost,
    play_phase=ghost.PLAY,
    state_phases=ghost.PHASE_NAMES,
    bidding_vec=GhostBiddingVec,
    contract_labels=("bid 3", "bid 4", "bid 5", "bid moon"),
    state_phase_of_view=np.arange(len(ghost.PHASE_NAMES), dtype=np.int8),  # the same phases
)
CLASSIC: Variant[ClassicActions] = Variant(
    name="classic",
    title="classic Euchre",
    engine=classic.ClassicEuchre,
    vector_env=ClassicEuchreVec,
    aec_entry_point="ghost_euchre_env.classic_euchre_v0:env",
    gym_id="ClassicEuchre-v0",
    teams=np.asarray(classic.ClassicEuchre.score_column),
    actions=ClassicActions(classic.action_name),
    fields=_classic_fields(),
    phases=CLASSIC_PHASES,
    render=render_classic,
    play_phase=classic.PLAY,
    state_phases=classic.PHASE_NAMES,
    bidding_vec=ClassicBiddingVec,
    contract_labels=classic.ClassicEuchre.contract_kinds,
    state_phase_of_view=np.array(  # round 1 and round 2 are both the engine's bidding
        [
            classic.BIDDING,
            classic.BIDDING,
            classic.DISCARD,
            classic.ALONE,
            classic.PLAY,
            classic.OVER,
        ],
        np.int8,
    ),
)
_REGISTRY = {v.name: v for v in (GHOST, CLASSIC)}
NAMES = tuple(_REGISTRY)  # ('ghost', 'classic')


def available():
    """The registered variant names: ('ghost', 'classic')."""
    return NAMES


@overload
def make(name: Literal["ghost"]) -> Variant[GhostActions]: ...
@overload
def make(name: Literal["classic"]) -> Variant[ClassicActions]: ...
@overload
def make(name: "str | Variant[Any]") -> Variant[Any]: ...
def make(name):
    """The :class:`Variant` named ``name`` (a Variant is returned as is); ValueError for an unknown name."""
    if isinstance(name, Variant):
        return name
    if name not in _REGISTRY:
        raise ValueError(f"variant must be one of {sorted(NAMES)}, got {name!r}")
    return _REGISTRY[name]


def by_sizes(obs_size, num_actions):
    """The :class:`Variant` whose observations and actions have these sizes (what a network knows), or None."""
    for variant in _REGISTRY.values():
        if (variant.obs_size, variant.num_actions) == (obs_size, num_actions):
            return variant
    return None


def of(game) -> Variant[Any]:
    """The :class:`Variant` of an engine (a GhostEuchre or ClassicEuchre, or a subclass); TypeError otherwise."""
    for variant in _REGISTRY.values():
        if isinstance(game, variant.engine):
            return variant
    engines = " or ".join(v.engine.__name__ for v in _REGISTRY.values())
    raise TypeError(f"no variant plays a {type(game).__name__}; expected a {engines}")
