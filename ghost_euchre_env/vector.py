"""Batched vector API: the fast path for trainers and evaluators.

``GhostEuchreVec`` steps N games at once and resets each finished game in the
same step (the returned observation is then the new game's first decision).
Rewards are by absolute seat; ``player`` says who acts next in each game.
"""

from typing import TYPE_CHECKING, Any

import numpy as np

from . import dealing, variants
from .core import EVERY_GAME, check_int


class VectorEnv:
    """Shared vector adapter over an engine (``GhostEuchre`` or ``ClassicEuchre``)."""

    def __init__(self, game, num_envs, seed=None):
        check_int("num_envs", num_envs, 1)
        if seed is not None:
            dealing.stream_keys(seed, num_envs)  # a bad seed is refused here, not at reset()
        self.game = game
        self.num_envs = num_envs
        self.num_players = game.num_players
        self.num_actions = game.num_actions
        self.obs_size = game.obs_size
        self._seed = seed
        self._state = None
        self.mask = None
        self.last_result = None
        self.truncated = np.zeros(num_envs, bool)

    def reset(self, seed=None, options=None):
        """Start N new games.

        seed: int (game i uses stream i of it), a list of N ints (game i deals as
        game 0 of seed[i]), or None (the constructor's seed the first time, then
        the next episode of every game). options: None, one dict for every game,
        or a list of N dicts; see the engine's ``init``. Options apply to the
        games started by this call, not to later automatic resets.
        Returns (obs float32[N, D], mask bool[N, A], player int64[N]).
        """
        if seed is None and self._state is None:
            seed = self._seed
        if seed is None and self._state is not None:
            state = self._state.copy()
            state.episode += 1
            self.game.start_episodes(state, np.arange(self.num_envs), options)
        else:
            state = self.game.init(dealing.stream_keys(seed, self.num_envs), options)
        self._state = state
        self.truncated = np.zeros(self.num_envs, bool)
        return self._observe(state)

    def step(self, actions):
        """Apply one action per game (int[N]).

        Returns (obs, mask, player, rewards float32[N, S] by absolute seat,
        done bool[N]); games that ended are reset automatically. ``truncated``
        (bool[N]) tells which of the done games were cut at ``max_deals``, and
        ``last_result.deals`` summarises each deal that ended this step. An
        illegal or out-of-range action raises ValueError and changes nothing.
        """
        # the actions are checked against the mask (empty in a game that is over) in the step
        result, obs, self.mask, player = self.game._step_observe_live(
            self.state, actions, self.mask
        )
        done = result.terminated | result.truncated
        self.last_result = result
        self.truncated = result.truncated
        return obs, self.mask, player, result.rewards, done

    @property
    def state(self):
        """The batch's engine state (``GhostState`` or ``ClassicState``); RuntimeError before ``reset()``."""
        if self._state is None:
            raise RuntimeError("call reset() before step()")
        return self._state

    @state.setter
    def state(self, state):
        self._state = state

    def _observe(self, state):
        self.mask = self.game.legal_mask(state)
        player = state.player.astype(np.int64)  # every game is live (auto-reset): seats 0..S-1
        return self.game._observe_rows(state, EVERY_GAME, player), self.mask, player


class EngineVec(VectorEnv):
    """N games of a variant's engine: ``EngineVec(num_envs, seed=None, episode="game",
    reward="points", **rules)``; a variant's class (:func:`vector_env_class`) sets ``engine``."""

    engine: Any  # the variant's engine class

    def __init__(self, num_envs, seed=None, episode="game", reward="points", **rules):
        super().__init__(self.engine(episode=episode, reward=reward, **rules), num_envs, seed)


def vector_env_class(variant) -> type[EngineVec]:
    """The variant's vector env class (``GhostEuchreVec``, ``ClassicEuchreVec``)."""
    name = variant.door_name("vector")[1]
    engine = variant.engine
    written = f"""N {variant.title} games; see :class:`{engine.__module__}.{engine.__name__}`.

``{name}(num_envs, seed=None, episode="game", reward="points", **rules)``
"""
    return variant.door_class("vector", (EngineVec,), written, engine=engine)


__getattr__, __dir__ = variants.published(__name__)  # the doors the declarations publish here
if TYPE_CHECKING:  # the shipped variants' ones, as ghost.py and classic.py declare them
    GhostEuchreVec: type[EngineVec]
    ClassicEuchreVec: type[EngineVec]
