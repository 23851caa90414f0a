"""One descriptor per game variant, and the registry: ``make(name)``, ``available()``, ``of(game)``.

A :class:`Variant` is everything a layer above the engine needs to know about
a variant without telling the variants apart by hand: its engine, vector env,
PettingZoo AEC and Gymnasium entry points, seats and teams, the fair share of
wins, the score columns, the seatings of a duplicate match, its actions by
name (``variant.actions.PASS``, ``.bid(4)``, ``.card("JH")``), its observation
layout read by name (``variant.view(obs)``, :mod:`.views`) and its renderer.

Each variant's module (:mod:`ghost_euchre_env.ghost`, :mod:`ghost_euchre_env.classic`) declares its own
descriptor (``DECLARATION``, a :class:`.core.VariantDeclaration`: its actions,
its observation layout and the kinds of its fields, its phases, contract labels
and doors); this module builds the registry from the modules in ``MODULES``,
with no code of its own per variant, and no rule is written here.

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
from typing import Any, Generic, Literal, overload

import numpy as np

from . import classic, ghost
from .cards import NUM_CARDS
from .classic import ClassicActions
from .core import Actions as Actions  # re-exported: variants.Actions, variants.parse_suit
from .core import ActionsT, VariantDeclaration, layout_table
from .core import parse_suit as parse_suit
from .ghost import GhostActions
from .views import Field, encode, view_class


def _fields(layout, kinds):
    """The :class:`views.Field` list of an engine layout ((name, size, meaning), ...) and {name: (kind, options)}."""
    if set(kinds) != {name for name, _, _ in layout}:
        raise ValueError(f"the kinds name {sorted(kinds)}, the layout {[n for n, _, _ in layout]}")
    fields, start = [], 0
    for name, size, meaning in layout:
        kind, options = kinds[name]
        fields.append(Field(name, start, start + size, meaning, kind, **options))
        start += size
    return tuple(fields)


def _load(entry_point):
    module, _, name = entry_point.partition(":")
    return getattr(importlib.import_module(module), name)


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


def _describe(declared: VariantDeclaration[ActionsT]) -> Variant[ActionsT]:
    """The descriptor of what a variant module declares (its ``DECLARATION``)."""
    return Variant(
        name=declared.name,
        title=declared.title,
        engine=declared.engine,
        vector_env=_load(declared.vector_env),
        aec_entry_point=declared.aec_entry_point,
        gym_id=declared.gym_id,
        teams=np.asarray(declared.engine.score_column),
        actions=declared.actions,
        fields=_fields(declared.layout, declared.kinds),
        phases=declared.phases,
        render=_load(declared.render),
        play_phase=declared.play_phase,
        state_phases=declared.state_phases,
        bidding_vec=_load(declared.bidding_vec),
        contract_labels=declared.contract_labels,
        state_phase_of_view=np.array(declared.state_phase_of_view, np.int8),
    )


MODULES = (ghost, classic)  # the variant modules, each ending with its DECLARATION
_REGISTRY: dict[str, Variant[Any]] = {}
for _module in MODULES:
    _variant = _describe(_module.DECLARATION)
    _REGISTRY[_variant.name] = _variant
    _variant.engine.variant = _variant  # game.variant: every engine knows its descriptor
NAMES = tuple(_REGISTRY)  # ('ghost', 'classic')


# The shipped variants by name, as before the registry was built from the modules.
GHOST: Variant[GhostActions] = _REGISTRY["ghost"]
CLASSIC: Variant[ClassicActions] = _REGISTRY["classic"]
CLASSIC_PHASES = CLASSIC.phases  # ("round 1", "round 2", "discard", "alone", "play", "over")
CLASSIC_OVER = CLASSIC.phases.index("over")  # the observation shows no phase bit then


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
    if not isinstance(name, str) or name not in _REGISTRY:  # a list is no name (nor hashable)
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
