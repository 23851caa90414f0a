"""The one interface every bot implements: batched, observation-in, action-out."""

import contextlib
import functools
import os
from typing import Any

import numpy as np

from ghost_euchre_env import variants

from .streams import policy_key


def import_hint(module_name):
    """The end of a "no module named ..." line: how to make ``module_name`` importable."""
    here = os.path.join(os.getcwd(), f"{module_name.split('.')[0]}.py")
    return (
        f"it must be importable: installed, or its folder on PYTHONPATH, e.g. PYTHONPATH=. for "
        f"{here}" + (", which exists" if os.path.isfile(here) else "")
    )


class Policy:
    """A batched policy over N games.

    ``act(obs, mask)`` takes observations float32[N, D] (egocentric, the layout of
    the variant's engine) and legal masks bool[N, A], and returns int64[N] legal
    actions. ``reset(games)`` is called with int[M] game indices whose episode
    just started (override it if the policy keeps per-game memory). ``name`` is
    shown in reports. Subclasses take the variant's engine
    (``ghost_euchre_env.GhostEuchre`` or ``ClassicEuchre``) as ``game`` and a
    ``seed`` so that results are reproducible. Observations have perfect recall,
    so a policy needs no memory of its own: a match calls ``act`` once per
    step with just the games where the policy is to act, in no fixed order.

    A policy that draws random numbers may take a third argument, ``act(obs,
    mask, keys=None)``: a match passes uint64[N] keys (one per game and
    decision), and drawing from ``ghost_euchre.agents.streams.draws(self, keys)`` makes its
    choices independent of the batch (of how a match is split over workers);
    ``stream_key`` is its own key, from ``seed``.

    Two more optional hooks, for a bot that keeps something per match (a
    program, :mod:`ghost_euchre.agents.program`): a policy whose ``act`` takes ``games`` gets
    the match's game ids int[N] of the rows; ``game_over(games, scores, won,
    truncated)`` is called when games end (:func:`game_over`) and ``end_match()``
    when the match is over, on an error too (:func:`end_match`). ``show_deal(games,
    state)`` (:func:`show_deal`) is for a perfect-information reference only
    (:mod:`ghost_euchre.agents.oracle`): no legal player has it.
    """

    name = "policy"

    def __init__(self, game, seed=None):
        self.game = game
        self.rng = np.random.default_rng(seed)
        self.stream_key = policy_key(seed)

    @functools.cached_property
    def variant(self) -> "variants.Variant[Any]":
        """The :class:`ghost_euchre_env.variants.Variant` of ``game``: ``self.variant.view(obs)`` reads obs by name."""
        return self.game.variant

    def act(self, obs, mask):
        """int64[N]: one legal action per game, for obs float32[N, D] and mask bool[N, A]. A
        subclass defines it (one with none is refused when it is built from a spec)."""
        raise NotImplementedError(
            f"{type(self).__name__} defines no act(obs, mask) -> int64[N] (a Policy subclass must)"
        )

    def reset(self, games):
        """Hook: games (int[M]) started a new episode. Default: nothing to forget."""


def game_over(policy, games, scores, won, truncated):
    """Tell ``policy`` (if it has a ``game_over`` method) that games ended: games int[M] the match's
    ids; scores int[M, S] final scores by seat relative to the policy's (0: its own; classic: each
    seat's team score); won bool[M] its seat (team) won; truncated bool[M] ended at max_deals."""
    method = getattr(policy, "game_over", None)
    if callable(method):
        method(games, scores, won, truncated)


def show_deal(policy, games, state):
    """Show ``policy`` (if it has a ``show_deal`` method: :mod:`ghost_euchre.agents.oracle`, no legal player) the
    engine state of the games about to act: games int[M] the match's ids of the state's rows."""
    method = getattr(policy, "show_deal", None)
    if callable(method):
        method(games, state)


def end_match(policy):
    """Tell ``policy`` (if it has an ``end_match`` method) that its match is over."""
    method = getattr(policy, "end_match", None)
    if callable(method):
        method()


class Wrapped(Policy):
    """A policy that plays as ``inner`` (its game and name) and passes every hook on to it: a
    subclass adds what it does around ``act`` (recording, timing)."""

    def __init__(self, inner, seed=None):
        super().__init__(inner.game, seed)
        self.inner = inner
        self.name = inner.name

    def reset(self, games):
        self.inner.reset(games)

    def game_over(self, *ended):
        game_over(self.inner, *ended)

    def show_deal(self, games, state):
        show_deal(self.inner, games, state)

    def end_match(self):
        end_match(self.inner)


@contextlib.contextmanager
def playing(policies):
    """``with playing(policies):`` a match; at its end, on an error or Ctrl-C too, each policy is told
    (:func:`end_match`: a program bot stops, :mod:`ghost_euchre.agents.program`)."""
    try:
        yield
    finally:
        for policy in policies:
            end_match(policy)
