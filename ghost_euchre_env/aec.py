"""The PettingZoo AEC env of every variant, written once: what its ``*_v0`` module holds.

:class:`EuchreAEC` runs one game of a batched engine (a batch of one) behind
PettingZoo's AEC API: argument checks, spaces, seeded and continued resets,
action checks, illegal actions, dead steps, observations, infos and rendering.
:func:`raw_env_class` makes a variant's ``raw_env`` from its declaration (its
engine, names, deal details, score bounds and renderer), and
:func:`pettingzoo_module` gives a variant's PettingZoo module (``ghost_euchre_v0``)
its ``raw_env``, ``env = raw_env.wrapped``, ``parallel_env`` and ``score_bounds``;
that module's docstring documents the env.
"""

import copy
import warnings
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import dealing, options, variants
from .core import EVERY_GAME, BatchedGame, EpisodeState

# What reset and step change besides game_state (see EuchreAEC.snapshot)
EPISODE_FIELDS = (
    "agents",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
    "agent_selection",
    "_mask",
    "_on_move",
    "_obs_cache",
    "_last_deal",
    "_deal_infos",
)
RESET_OPTIONS = ("dealer", "deals")


def render_as(render_mode, make_text):
    """``render()`` in ``render_mode``: "ansi" returns the text of ``make_text()``.

    "human" prints that text and returns None; no render mode (None) warns and returns None.
    """
    if render_mode is None:
        gymnasium.logger.warn(
            "render() was called without a render_mode; make the env with render_mode='ansi'"
        )
        return None
    text = make_text()
    if render_mode == "human":
        print(text, end="\n\n")
        return None
    return text


READING = """
The documentation's page "Using it with RL libraries" (docs/rl-libraries.md)."""


def reward_routing(num_players, note=""):
    """The docstring paragraph on who receives which reward when, for ``num_players`` seats.

    ``note``: a variant's own lines (starting with a newline), before the pointer to the documentation.
    """
    return f"{who_is_paid(num_players)}{note}{READING}"


def who_is_paid(num_players):
    """:func:`reward_routing`'s paragraph without a variant's note and the pointer to the documentation."""
    later = ("one", "two", "three")[num_players - 2]
    return f"""Who receives which reward, when: a deal's points are all in ``rewards`` at
the step that scores it (the last card of the deal), whoever made that step,
and an illegal action's penalty at that action. ``last()`` then hands each
agent the sum of its rewards since it last acted (PettingZoo's cumulative
rewards); once the episode is over, each agent's turn for its dead step shows
its last share. A library that reads ``last()`` for every agent (RLlib's
``PettingZooEnv``, the Gymnasium view) therefore credits every point to the
seat that scored it, on that seat's next turn or at the end; one that stores
every seat's ``rewards`` with the transition of the seat that acted (Tianshou's
``PettingZooEnv``) finds a seat's points in the transition of the deal's last
card, up to {later} transitions after that seat's own last card: its learner needs
n-step returns over at least {num_players} transitions."""


def flat_deal(summary):
    """The infos' keys of a deal summary (a dict as a variant's ``no_deal``): ``last_deal_number``
    for its ``deal``, ``last_deal_<field>`` for every other field (numbers, tuples by seat)."""
    return {
        "last_deal_number" if key == "deal" else f"last_deal_{key}": value
        for key, value in summary.items()
    }


def seat_names(num_players):
    """('player_0', 'player_1', ...): the agent name of each seat."""
    return tuple(f"player_{seat}" for seat in range(num_players))


class EuchreAEC(AECEnv):
    """One game of a batched Euchre engine as a PettingZoo AEC environment.

    ``EuchreAEC(render_mode=None, episode="game", reward="points",
    illegal_action="raise", illegal_action_penalty=-1.0, **rules)``: the engine
    is made with ``episode``, ``reward`` and ``rules``; its one game's state is
    ``game_state``. A variant's class (:func:`raw_env_class`) sets:

    - ``metadata``: the base's plus ``"name"`` (e.g. ``"ghost_euchre_v0"``);
    - ``variant``: its descriptor (:mod:`ghost_euchre_env.variants`), from which
      the class takes ``engine``, ``agent_names`` (one per seat), ``phase_names``
      (phase id -> name), ``action_name(action) -> str``, ``scores_field`` ((start,
      stop) of the scores in the observation), ``render_table(game,
      game_state, g, names) -> str`` and what its declaration says of the deals:
      ``score_bounds(rules) -> (low, high)``, the bounds of the scores columns
      (every other column lies in [0, 1]); ``no_deal``, the ``"last_deal"`` info
      while no deal of the episode has ended; ``deal_details(deals) -> dict``, the
      variant's own fields of the one finished deal of a batch-of-one deal summary
      (``deal_info`` adds the shared ones), with the same keys, shapes and dtypes
      as in ``no_deal``.

    Infos are fixed-shape numbers (module docstrings: Infos), so libraries that
    stack them into arrays (Tianshou's replay buffer) take them as they are.
    """

    metadata = {  # noqa: RUF012 (an instance attribute in the base)
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    variant: ClassVar[Any] = None  # the descriptor (ghost_euchre_env.variants.Variant)
    engine: type = BatchedGame  # the variant's engine, called with (episode=, reward=, **rules)
    agent_names: ClassVar[tuple[str, ...]] = ()
    phase_names: ClassVar[tuple[str, ...]] = ()
    scores_field: ClassVar[tuple[int, int]] = (0, 0)
    no_deal: ClassVar[dict]

    def __init_subclass__(cls, **kwargs):
        """A subclass naming its ``variant`` takes what the descriptor says of the game."""
        super().__init_subclass__(**kwargs)
        variant = cls.__dict__.get("variant")
        if variant is None:
            return
        scores = next(f for f in variant.fields if f.name == "scores")
        cls.engine = variant.engine
        cls.agent_names = seat_names(variant.num_players)
        cls.phase_names = variant.state_phases
        cls.action_name = staticmethod(variant.actions.name)
        cls.scores_field = (scores.start, scores.stop)
        cls.render_table = staticmethod(variant.render)
        cls.score_bounds = staticmethod(variant.score_bounds)
        cls.no_deal = variant.no_deal  # copied by the env, never handed out itself
        cls.deal_details = staticmethod(variant.deal_details)

    @staticmethod
    def action_name(action):
        raise NotImplementedError

    @staticmethod
    def score_bounds(rules):
        raise NotImplementedError

    @staticmethod
    def render_table(game, game_state, g, names):
        raise NotImplementedError

    @staticmethod
    def deal_details(deals):
        raise NotImplementedError

    @classmethod
    def wrapped(cls, *args, **kwargs):
        """``cls(*args, **kwargs)`` in PettingZoo's order-enforcing wrapper: the module's ``env()``."""
        return wrappers.OrderEnforcingWrapper(cls(*args, **kwargs))

    door_kind = "aec"  # its kind of door (ghost_euchre_env.options.KINDS)

    @classmethod
    def door(cls) -> options.Door:
        """This env's door: its name in messages, its options and its variant's rules."""
        return options.Door(
            f"{cls.metadata['name']}.env()", cls.door_kind, cls.engine, cls.agent_names
        )

    def make_game(self, chosen: options.EnvOptions):
        """The batched engine of one game, made with the checked options."""
        return self.engine(episode=chosen.episode, reward=chosen.reward, **chosen.rules)

    def __init__(self, render_mode=None, **given):
        super().__init__()
        chosen = options.parse(self.door(), {"render_mode": render_mode, **given})
        self.options = chosen
        illegal_action, illegal_action_penalty = (
            chosen.illegal_action,
            chosen.illegal_action_penalty,
        )
        self.game = self.make_game(chosen)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_action_penalty = illegal_action_penalty
        agents = self.agent_names
        num_actions = self.game.num_actions
        self.possible_agents = list(agents)
        self.agents = []
        low, high = self.observation_bounds(self.game.rules)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (num_actions,), dtype=np.int8),
                }
            )
            for agent in agents
        }
        self.action_spaces = {agent: spaces.Discrete(num_actions) for agent in agents}
        self.game_state: EpisodeState | None = None
        self._seat_of = {agent: seat for seat, agent in enumerate(agents)}
        self._every_seat = np.arange(len(agents), dtype=np.int64)
        self._game_per_seat = np.zeros(len(agents), np.int64)  # game 0 for each seat
        self._seat_index = [
            np.array([seat]) for seat in range(len(agents))
        ]  # int64[1] per seat, for observe
        self._action = np.zeros(
            1, dtype=np.int64
        )  # the engine's actions argument, refilled each step
        self._no_actions = np.zeros(num_actions, dtype=np.int8)
        self._any_action = np.ones((1, num_actions), bool)  # the engine's check: done by step()
        self._mask = (
            self._no_actions
        )  # int8[A] legal actions of the agent on move (zeros when none)
        self._on_move = None  # seat on move, None once the episode is over
        self._obs_cache = [None] * len(agents)  # float32[D] per seat, for the current step
        self._set_last_deal(self.no_deal)

    def snapshot(self):
        """Everything ``reset`` and ``step`` change, copied: :meth:`restore` puts it back.

        For a caller that makes several steps as one (the Gymnasium view: the
        learner's action and the opponents' up to its next turn), so that a
        failure in any of them leaves the env as it was.
        """
        present = vars(self)
        saved = {name: copy.copy(present[name]) for name in EPISODE_FIELDS if name in present}
        saved["game_state"] = None if self.game_state is None else self.game_state.copy()
        return saved

    def restore(self, saved):
        """Put back what :meth:`snapshot` copied (the env is then as it was at that call)."""
        for name in EPISODE_FIELDS:
            if name not in saved and name in vars(self):
                delattr(self, name)
        for name, value in saved.items():
            setattr(self, name, value)

    def _state(self) -> EpisodeState:
        """``game_state``; RuntimeError before the first ``reset()``."""
        if self.game_state is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game_state

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observation_bounds(self, rules):
        """(low, high) float32[obs_size]: [0, 1] for every column, ``score_bounds(rules)`` for the scores."""
        low = np.zeros(self.game.obs_size, np.float32)
        high = np.ones(self.game.obs_size, np.float32)
        start, stop = self.scores_field
        low[start:stop], high[start:stop] = self.score_bounds(rules)
        return low, high

    def deal_info(self, deals, deal_number):
        """The one finished deal in a batch-of-one deal summary, as a dict of numbers (as ``no_deal``)."""
        return {
            "deal": deal_number,
            "thrown_in": bool(deals.thrown_in[0]),
            "dealer": int(deals.dealer[0]),
            "trump": int(deals.trump[0]),
            **self.deal_details(deals),
            "tricks": tuple(deals.tricks[0].tolist()),
            "points": tuple(deals.points[0].tolist()),
            "scores": tuple(deals.scores[0].tolist()),
        }

    def _set_last_deal(self, summary):
        """Keep ``summary`` (a dict as ``no_deal``) as the latest finished deal, and its infos."""
        self._last_deal = dict(summary)
        self._deal_infos = flat_deal(summary)

    @property
    def last_deal(self) -> dict:
        """The summary of the latest finished deal of the episode, as a dict (the infos hold it
        as flat ``last_deal_*`` keys); ``no_deal`` while none has ended."""
        return dict(self._last_deal)

    # ---------------------------------------------------------------- episodes
    def reset(self, seed=None, options=None):
        """Start an episode: a seeded stream, or the next episode of the current one (seed None)."""
        engine_options = None
        if options is not None and not isinstance(options, dict):
            raise ValueError(
                f"options must be None or a dict (with 'dealer', 'deals'), got {options!r}"
            )
        if options:
            unknown = sorted(set(options) - set(RESET_OPTIONS))
            if unknown:
                warnings.warn(
                    f"{self.metadata['name']}.reset ignores option(s) {unknown}; "
                    f"it uses {list(RESET_OPTIONS)}",
                    stacklevel=2,
                )
            engine_options = {key: options[key] for key in RESET_OPTIONS if key in options}
        if seed is None and self.game_state is not None:
            game_state = self.game_state.copy()
            game_state.episode += 1
            self.game.start_episodes(game_state, np.zeros(1, np.int64), engine_options)
        else:
            game_state = self.game.init(dealing.stream_keys(seed, 1), engine_options)
        agents = self.agent_names
        self.game_state = game_state
        self.agents = list(agents)
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self._set_last_deal(self.no_deal)
        self._new_turn()
        if self.render_mode == "human":
            self.render()

    def step(self, action):
        """Apply the action of ``agent_selection``; None for an agent whose episode is over."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = self._check_type(action)
        if not self._mask[action]:
            if self.illegal_action == "raise":
                legal = ", ".join(
                    f"{a} ({self.action_name(a)})" for a in np.flatnonzero(self._mask)
                )
                phase = self.phase_names[self.infos[agent]["phase"]]
                raise ValueError(
                    f"{agent}: action {action} ({self.action_name(action)}) is not legal in the "
                    f"{phase} phase; legal actions are {legal}"
                )
            self._terminate_illegal(agent, action)
            return
        game_state = self._state()
        deal_number = int(game_state.deal_number[0])
        self._action[0] = action
        observed = self.game._observed_arrays(1)
        result, written = self.game._step_into(  # raises with game_state as it was
            game_state, self._action, self._any_action, observed, False
        )
        self._cumulative_rewards[agent] = 0.0
        if written:  # no deal ended (the step then wrote the next turn): no reward, no end
            self.rewards = dict.fromkeys(self.agent_names, 0.0)
            self._new_turn(observed)
        else:
            self.rewards = dict(zip(self.agent_names, result.rewards[0].tolist(), strict=True))
            if len(result.deals.game):
                self._set_last_deal(self.deal_info(result.deals, deal_number))
            if result.terminated[0]:
                self.terminations = dict.fromkeys(self.agent_names, True)
            elif result.truncated[0]:
                self.truncations = dict.fromkeys(self.agent_names, True)
            self._new_turn()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _check_type(self, action):
        """The action as an int, or ValueError when it is not an integer in 0..A-1."""
        if type(action) is int:  # the common case, checked first
            if 0 <= action < len(self._mask):
                return action
        elif isinstance(action, np.ndarray) and action.ndim == 0:
            action = action[()]
        last = len(self._mask) - 1
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(
                f"action must be an int in 0..{last}, got {action!r} ({type(action).__name__})"
            )
        action = int(action)
        if not 0 <= action <= last:
            raise ValueError(f"action must be an int in 0..{last}, got {action}")
        return action

    def _terminate_illegal(self, agent, action):
        """PettingZoo's terminate-on-illegal: the offender is penalised and the episode ends."""
        agents = self.agent_names
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(agents, 0.0)
        self.rewards[agent] = self.illegal_action_penalty
        self.terminations = dict.fromkeys(agents, True)
        self._mask = self._no_actions
        self._on_move = None
        phase = self.infos[agent]["phase"]
        base = {"phase": phase, "illegal_action": -1, **self._deal_infos}
        self.infos = {a: base.copy() for a in agents}
        self.infos[agent]["illegal_action"] = action
        self._accumulate_rewards()

    def _new_turn(self, observed=None):
        """Read whose turn it is, their legal actions (one engine call) and the phase from the
        engine; observed: the step's (mask, obs, player) of the game when it wrote them (the
        player to act's legal mask and observation, no call then)."""
        game_state = self._state()
        agents = self.agent_names
        self._obs_cache = [None] * len(agents)
        phase = int(game_state.phase[0])
        player = int(game_state.player[0])
        if player < 0:  # the episode is over; agent_selection stays on the last agent to act
            self._on_move = None
            self._mask = self._no_actions
        else:
            self._on_move = player
            if observed is None:
                self._mask = self.game.legal_mask(game_state)[0].view(np.int8)
            else:
                self._mask = observed[0][0].view(np.int8)
                self._obs_cache[player] = observed[1][0]
            self.agent_selection = agents[player]
        base = {"phase": phase, "illegal_action": -1, **self._deal_infos}
        self.infos = {agent: base.copy() for agent in agents}

    # ------------------------------------------------------------- observation
    def observe(self, agent):
        try:
            seat = self._seat_of[agent]
        except KeyError:
            raise ValueError(
                f"agent must be one of {self.possible_agents}, got {agent!r}"
            ) from None
        obs = self._obs_cache[seat]
        if obs is None:  # the seat is checked above: the engine's unchecked observation
            rows = self.game._observe_rows(self._state(), EVERY_GAME, self._seat_index[seat])
            obs = self._obs_cache[seat] = rows[0]
        mask = self._mask if seat == self._on_move else self._no_actions
        return {"observation": obs.copy(), "action_mask": mask.copy()}

    def observe_every_seat(self):
        """float32[S, D]: every seat's observation now, in one engine call (a new array)."""
        return self.game._observe_rows(self._state(), self._game_per_seat, self._every_seat)

    def render(self):
        return render_as(
            self.render_mode,
            lambda: self.render_table(self.game, self._state(), 0, self.agent_names),
        )

    def close(self):
        """Nothing to release (no window, no files)."""


def raw_env_class(variant) -> type[EuchreAEC]:
    """The variant's PettingZoo AEC env class (its ``*_v0`` module's ``raw_env``)."""
    module = variant.door_name("aec")[0]
    engine = variant.engine
    title = variant.title[0].upper() + variant.title[1:]
    written = f"""{title} as a PettingZoo AEC environment: :class:`EuchreAEC` on the ``{engine.__name__}`` engine.

See the module docstring. ``game_state`` is the one game's ``{engine.state_type.__name__}`` (N = 1).
"""
    metadata = {**EuchreAEC.metadata, "name": module.rpartition(".")[2]}
    return variant.door_class("aec", (EuchreAEC,), written, metadata=metadata, variant=variant)


# The PettingZoo modules' paragraph on bad input, and their version history (every variant's
# env has the same): what their docstrings' {bad_input} and {version_history} stand for
BAD_INPUT = """Bad input: an action that is not an int in 0..{last} raises ``ValueError``; so do
bad ``reset`` options (not a dict, a bad dealer or deal) and a ``seed`` that is
not a non-negative int, and the env is then as it was before the call; an
illegal action raises ``ValueError`` listing the legal ones, unless the env was
made with ``illegal_action="terminate"``: then the offender receives
``illegal_action_penalty`` (default -1), every other agent 0, and the episode
ends (all agents terminated). After the episode ends, each agent must be
stepped with ``None`` (PettingZoo's dead steps) until ``agents`` is empty."""

VERSION_HISTORY = """Version history
---------------

* v0: initial release (ghost_euchre_env 0.1.0).
* v0, before its first published release: infos became fixed-shape numbers for
  the libraries that stack them (``phase`` an index, seats and suits ints,
  ``legal_actions`` dropped for the observation's ``action_mask``, an
  ``illegal_action`` key at every step). Observations, actions, rewards and
  dealing are unchanged.
* v0, before its first published release: the deal summary in the infos as
  flat ``last_deal_*`` keys (a nested dict does not stack), the dict as the
  ``last_deal`` attribute; ``parallel_env()``; a keyword the env does not take
  is a ``TypeError`` (:mod:`ghost_euchre_env.options`), a seed above 2**64-1 is
  refused. Valid options play as before.
"""


def pettingzoo_module(module_name, doc):
    """What the variant's PettingZoo module ``module_name`` holds: (its docstring ``doc`` with
    the variant's action table, observation layout, reward paragraph, bad input paragraph and
    the version history filled in, ``raw_env``, ``env``, ``parallel_env``, ``score_bounds``)."""
    variant = variants.of_pettingzoo(module_name)
    raw_env = variant.door("aec")
    filled = (doc or "").format(
        actions=variant.action_table.strip(),
        layout=variant.layout_table(),
        reward_routing=who_is_paid(variant.num_players),
        bad_input=BAD_INPUT.format(last=variant.num_actions - 1),
        version_history=VERSION_HISTORY,
    )
    return filled, raw_env, raw_env.wrapped, variant.door("parallel"), variant.score_bounds
