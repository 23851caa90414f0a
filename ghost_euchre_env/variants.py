"""One descriptor per game variant, and the registry: ``make(name)``, ``available()``, ``of(game)``.

A :class:`Variant` is everything a layer above the engine needs to know about
a variant without telling the variants apart by hand: its engine, its doors (the
vector env, the PettingZoo and Gymnasium envs, the auction view), seats and teams,
the fair share of wins, the score columns, the seatings of a duplicate match, its
actions by name (``variant.actions.PASS``, ``.bid(4)``, ``.card("JH")``), its
observation layout read by name (``variant.view(obs)``, :mod:`.views`) and its renderer.

Each variant's module (:mod:`ghost_euchre_env.ghost`, :mod:`ghost_euchre_env.classic`) declares its own
descriptor (``DECLARATION``, a :class:`.core.VariantDeclaration`: its actions,
its observation layout and the kinds of its fields, its phases, contract labels,
what its doors ask of the game and where they are published); this module builds
the registry from the modules in ``MODULES``, with no code of its own per variant,
and no rule is written here. The doors are written once, for every variant: each
is made from the declaration on first use (:meth:`Variant.door`), by the door's
generator in :data:`GENERATORS`, and the door modules publish them by the names the
declarations give (:func:`published`).

>>> from ghost_euchre_env import variants
>>> ghost = variants.make("ghost")
>>> ghost.num_players, ghost.actions.bid(4), ghost.actions.card("JH")
(3, 30, 10)
"""

import dataclasses
import functools
import importlib
import itertools
import sys
from collections.abc import Callable
from typing import Any, Generic, Literal, overload

import numpy as np

from . import classic, ghost
from .cards import NUM_CARDS
from .classic import ClassicActions
from .core import DOORS, ActionsT, Doors, ShippedNetwork, Solving, VariantDeclaration, layout_table
from .core import Actions as Actions  # re-exported: variants.Actions, variants.parse_suit
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
    (``engine(episode=, reward=, **rules)``); teams: int[S] the team of each seat
    (its score column; Ghost Hand: every seat its own team); actions:
    :class:`Actions`; fields: the observation layout (:class:`views.Field`, in
    column order); phases: the observation's phase names (``view.phase`` indexes
    them); render: ``render(game, state, g=0, names=None, unicode=True)`` -> the
    table as text; contract_labels: how a table heads each of ``contract_kinds``;
    doors: where its doors are published (:class:`.core.Doors`), each made by
    :meth:`door` (``vector_env``, ``bidding_vec`` and ``aec()`` are the most used);
    score_bounds, no_deal, deal_details, seat_can_sit_out, cards_per_trick: what the
    doors ask of the game; solving: what the solver and the analysis read of it; networks: its
    shipped networks (:class:`.core.VariantDeclaration`).
    """

    name: str
    title: str
    engine: type
    teams: np.ndarray
    actions: ActionsT
    fields: tuple[Field, ...]
    phases: tuple[str, ...]
    render: Callable[..., str]
    play_phase: int  # the engine's phase code of the card play
    state_phases: tuple[str, ...]  # the engine state's phase names, by phase code
    contract_labels: tuple[str, ...]
    state_phase_of_view: np.ndarray  # int8[P]: the engine's phase code of each observation phase
    action_table: str  # the action ids as a reStructuredText table
    doors: Doors
    score_bounds: Callable[[Any], tuple[float, float]]
    no_deal: dict[str, Any]
    deal_details: Callable[[Any], dict]
    seat_can_sit_out: bool
    cards_per_trick: Callable[[Any], int] | None
    solving: Solving
    networks: tuple[ShippedNetwork, ...]
    _made: dict[str, Any] = dataclasses.field(default_factory=dict, repr=False)  # door -> made

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

    def door(self, door: str) -> Any:
        """The door ``door`` of :data:`GENERATORS` of this variant, made from the declaration
        on first use (the same object afterwards) and named as :meth:`door_name` says."""
        made = self._made.get(door)
        if made is None:
            module, name = self.door_name(door)
            made = self._made[door] = _load(GENERATORS[door])(self)
            made.__module__, made.__name__, made.__qualname__ = module, name, name
        return made

    def door_name(self, door: str) -> tuple[str, str]:
        """(module, name) where the door ``door`` is published: the PettingZoo modules' ``raw_env``
        and ``parallel_env``, the others as :class:`.core.Doors` names them."""
        if door in DOORS:
            return self.doors.entry_point(door)
        module = self.doors.auction_pettingzoo if door == "auction_aec" else self.doors.pettingzoo
        return module, "parallel_env" if door == "parallel" else "raw_env"

    def door_doc(self, door: str, written: str) -> str:
        """The docstring of the door ``door``: the declaration's (``doors.docs``), else ``written``
        (what the door's generator writes from the declaration)."""
        return self.doors.docs.get(door, written)

    def door_class(self, door: str, bases: tuple[type, ...], written: str, **attributes) -> Any:
        """A door's class: a subclass of ``bases`` with the class ``attributes``, named and
        documented (:meth:`door_name`, :meth:`door_doc` with ``written``): what a generator returns."""
        module, name = self.door_name(door)
        named = {
            "__module__": module,
            "__qualname__": name,
            "__doc__": self.door_doc(door, written),
        }
        return type(name, bases, {**named, **attributes})

    @property
    def gym_id(self) -> str:
        """Its Gymnasium id ('GhostEuchre-v0')."""
        return self.doors.gym_id

    @property
    def vector_env(self) -> Any:
        """Its vector env class (``vector_env(num_envs, seed=None, episode="game", reward="points",
        **rules)``, :mod:`ghost_euchre_env.vector`)."""
        return self.door("vector")

    @property
    def bidding_vec(self) -> Any:
        """Its auction view's vector env class (``bidding_vec(num_envs, card_play, seed=None, ...)``,
        the card play made inside the step; :mod:`ghost_euchre_env.bidding`)."""
        return self.door("auction_vector")

    @property
    def aec_entry_point(self) -> str:
        """'module:name' of its PettingZoo AEC ``env`` factory."""
        return f"{self.doors.pettingzoo}:env"

    def aec(self, **kwargs):
        """The PettingZoo AEC env (``kwargs`` as its ``env``)."""
        return self.door("aec").wrapped(**kwargs)

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
        teams=np.asarray(declared.engine.score_column),
        actions=declared.actions,
        fields=_fields(declared.layout, declared.kinds),
        phases=declared.phases,
        render=_load(declared.render),
        play_phase=declared.play_phase,
        state_phases=declared.state_phases,
        contract_labels=declared.contract_labels,
        state_phase_of_view=np.array(declared.state_phase_of_view, np.int8),
        action_table=declared.action_table,
        doors=declared.doors,
        score_bounds=declared.score_bounds,
        no_deal=dict(declared.no_deal),
        deal_details=declared.deal_details,
        seat_can_sit_out=declared.seat_can_sit_out,
        cards_per_trick=declared.cards_per_trick,
        solving=declared.solving,
        networks=declared.networks,
    )


GENERATORS = {  # each door, and the function that writes it for a variant ('module:name')
    "aec": "ghost_euchre_env.aec:raw_env_class",  # the PettingZoo AEC env class
    "parallel": "ghost_euchre_env.parallel:parallel_env_function",  # its parallel_env()
    "auction_aec": "ghost_euchre_env.auction_aec:auction_raw_env_class",
    "vector": "ghost_euchre_env.vector:vector_env_class",
    "auction_game": "ghost_euchre_env.bidding:auction_game_class",
    "auction_vector": "ghost_euchre_env.bidding:auction_vector_class",
    "gym": "ghost_euchre_env.gym_env:gym_env_class",
    "auction_gym": "ghost_euchre_env.gym_bidding:auction_gym_env_class",
    "gym_vector": "ghost_euchre_env.gym_vector:vector_entry_point",
    "auction_gym_vector": "ghost_euchre_env.gym_vector:auction_vector_entry_point",
}


_REGISTRY: dict[str, Variant[Any]] = {}


def register(declaration: VariantDeclaration[ActionsT]) -> Variant[ActionsT]:
    """The descriptor of a variant's ``DECLARATION``, registered under its name (ValueError if
    the name is taken): the shipped variants' at import (:data:`MODULES`), one's own after."""
    if declaration.name in _REGISTRY:
        raise ValueError(f"a variant named {declaration.name!r} is registered already")
    variant = _describe(declaration)
    _REGISTRY[variant.name] = variant
    variant.engine.variant = variant  # game.variant: every engine knows its descriptor
    return variant


MODULES = (ghost, classic)  # the variant modules, each ending with its DECLARATION
for _module in MODULES:
    register(_module.DECLARATION)
NAMES = tuple(_REGISTRY)  # ('ghost', 'classic'): the shipped variants


# The shipped variants by name, as before the registry was built from the modules.
GHOST: Variant[GhostActions] = _REGISTRY["ghost"]
CLASSIC: Variant[ClassicActions] = _REGISTRY["classic"]
CLASSIC_PHASES = CLASSIC.phases  # ("round 1", "round 2", "discard", "alone", "play", "over")
CLASSIC_OVER = CLASSIC.phases.index("over")  # the observation shows no phase bit then


def gym_registrations():
    """(id, entry point, vector entry point) of every Gymnasium id the variants declare, in
    registry order (each variant's game, then its auction view): what
    ``ghost_euchre_env`` registers when it is imported."""
    return [
        (gym_id, getattr(variant.doors, single), getattr(variant.doors, vector))
        for variant in _REGISTRY.values()
        for gym_id, single, vector in (
            (variant.doors.gym_id, "gym", "gym_vector"),
            (variant.doors.auction_gym_id, "auction_gym", "auction_gym_vector"),
        )
    ]


def published(module_name):
    """``(__getattr__, __dir__)`` of a door module (PEP 562): the doors that the variants'
    declarations publish in the module ``module_name`` (``GhostEuchreVec`` in
    :mod:`ghost_euchre_env.vector`), each made on first use by :meth:`Variant.door`."""

    def here():
        return {
            name: (variant, door)
            for variant in _REGISTRY.values()
            for door in DOORS
            for module, name in [variant.doors.entry_point(door)]
            if module == module_name
        }

    def __getattr__(name: str) -> Any:
        found = here().get(name)
        if found is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        variant, door = found
        return variant.door(door)

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[module_name]), *here()})

    return __getattr__, __dir__


def of_pettingzoo(module_name) -> "Variant[Any]":
    """The :class:`Variant` whose PettingZoo module (full game or auction view) is ``module_name``."""
    for variant in _REGISTRY.values():
        if module_name in (variant.doors.pettingzoo, variant.doors.auction_pettingzoo):
            return variant
    raise ValueError(f"no variant declares the PettingZoo module {module_name!r}")


def available():
    """The registered variant names: ('ghost', 'classic'), then any registered since."""
    return tuple(_REGISTRY)


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
    own = getattr(type(game), "variant", None)  # a subclass registered as a variant of its own
    if own is not None and _REGISTRY.get(own.name) is own:
        return own
    for variant in _REGISTRY.values():
        if isinstance(game, variant.engine):
            return variant
    engines = " or ".join(v.engine.__name__ for v in _REGISTRY.values())
    raise TypeError(f"no variant plays a {type(game).__name__}; expected a {engines}")


def by_name(*modules, part):
    """A per-variant table of a layer above the engine: {module.VARIANT: module.<part>} of that
    layer's per-variant modules (each declares ``VARIANT``, its variant's name), so that no code
    outside those modules names a variant."""
    return {module.VARIANT: getattr(module, part) for module in modules}


def own(table, variant, what):
    """``table[name]`` of a per-variant table (:func:`by_name`) for ``variant`` (a name or a
    :class:`Variant`); ValueError naming the variant and ``what`` it lacks when it has none."""
    name = make(variant).name
    if name not in table:
        raise ValueError(f"the variant {name!r} has no {what}; variants with one: {list(table)}")
    return table[name]
