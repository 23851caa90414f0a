"""Ghost Hand Euchre: PettingZoo AEC environment (``ghost_euchre_v0``).

============ ==========================================================================
Import       ``from ghost_euchre_env import ghost_euchre_v0``
Create       ``ghost_euchre_v0.env(render_mode=None, episode="game", reward="points",
             illegal_action="raise", illegal_action_penalty=-1.0, **rules)``
Actions      Discrete(34)
Parallel API no (turn based)
Agents       ``["player_0", "player_1", "player_2"]`` (seats 0, 1, 2, clockwise)
Observation  Dict(observation=Box(float32, [390]), action_mask=Box(int8, [34]))
Render modes ``"ansi"`` (returns text), ``"human"`` (prints it)
Single agent ``gymnasium.make("GhostEuchre-v0")``, see :mod:`ghost_euchre_env.gym_env`
============ ==========================================================================

Three players bid for the right to name trump, one of them may first swap their
hand for the face-down ghost hand, and the declarer must take as many of the six
tricks as bid. The rules are in ``shared/RULES.md``; this module is a thin
adapter over the batched engine :class:`ghost_euchre_env.ghost.GhostEuchre`
(run with a batch of one game), so every rule lives in the engine alone.

Actions
-------

====== ========================== =========
ids    meaning                    phase
====== ========================== =========
0-23   play card ``id``           play
24     PASS                       auction
25-28  name trump C, D, H, S      trump
29-31  bid 3, 4, 5 tricks         auction
32     MOON (all six tricks)      auction
33     SWAP with the ghost hand   auction
====== ========================== =========

Card ``id = rank * 4 + suit`` with ranks 9, T, J, Q, K, A = 0..5 and suits
C, D, H, S = 0..3 (0 = 9♣, 8 = J♣, 23 = A♠). The same seat may act twice in a
row (after a SWAP it must bid or pass).

Observation
-----------

``observation`` is float32[390], egocentric for the observing agent (relative
seat 0 is the observer, 1 the next seat clockwise, 2 the one after) with
perfect recall of what that seat has seen. ``action_mask`` is int8[34], 1 =
legal; it is all zeros for every agent not on move (and for all once the
episode is over). Layout of ``observation``:

{layout}

Every field is in [0, 1] except ``scores`` (game score / target_score), whose
bounds in the space follow from ``max_deals`` and the scoring options.

Infos
-----

``infos[agent]`` is a dict with ``"phase"`` (``"auction"``, ``"trump"``,
``"play"``, ``"over"``), ``"legal_actions"`` (list of action ids; empty for
agents not on move) and ``"last_deal"``: ``None`` until the first deal of the
episode ends, then the summary of the latest finished deal, a dict with
``deal`` (its number in the episode, redeals included), ``thrown_in`` (all
passed), ``dealer``, ``declarer``, ``swapper`` (agent names or ``None``),
``bid`` (3, 4, 5, ``"moon"`` or ``None``), ``trump`` (``"C"``, ``"D"``,
``"H"``, ``"S"`` or ``None``) and, as tuples by seat, ``tricks``, ``reneges``,
``points`` (scored by this deal) and ``scores`` (game scores after it). After
an illegal action under ``illegal_action="terminate"``, every info also holds
``"illegal_action": (agent, action)``.

Rewards
-------

``reward="points"``: when a deal is scored, each agent receives the points it
scored (tricks taken; a made contract pays the tricks taken, a set declarer
loses the bid; a made moon pays ``moon_points``, a missed one costs
``moon_set_penalty``; reneges cost ``renege_penalty`` each). Thrown-in deals
pay 0. ``reward="win"`` (needs ``episode="game"``): at the end of the game +1 to
the winner and -0.5 to each other agent; 0 to all on truncation.

Episodes and options
--------------------

``episode="game"``: deals until one player alone has at least
``target_score``; a game that reaches ``max_deals`` deals is truncated
(``truncations`` all True). ``episode="deal"``: one deal (a thrown-in deal ends
it with 0 points). Rules options (``auction``, ``allow_renege``,
``renege_penalty``, ``moon_points``, ``moon_set_penalty``, ``target_score``,
``max_deals``) are those of :class:`ghost_euchre_env.ghost.GhostRules`.

``reset(seed=None, options=None)``: with ``seed`` (a non-negative int) the env
deals exactly like game 0 of ``GhostEuchreVec(n, seed=seed)``; without one it
starts the next episode of the same dealing stream (like the vector env's
automatic resets). ``options`` may hold ``"dealer"`` (seat 0..2) and
``"deals"`` (list of ``{{"hands": [[6 ids] x 3], "ghost": [6 ids]}}`` used in
order), so a chosen deal can be replayed exactly; other keys are ignored with a
warning (PettingZoo's ``api_test`` passes a dummy key).

Bad input: an action that is not an int in 0..33 raises ``ValueError``; an
illegal action raises ``ValueError`` listing the legal ones, unless the env was
made with ``illegal_action="terminate"``: then the offender receives
``illegal_action_penalty`` (default -1), every other agent 0, and the episode
ends (all agents terminated). After the episode ends, each agent must be
stepped with ``None`` (PettingZoo's dead steps) until ``agents`` is empty.

Version history
---------------

* v0: initial release (ghost_euchre_env 0.1.0).
"""

import math
import warnings

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import dealing
from .cards import SUIT_LETTERS
from .core import layout_table
from .ghost import (
    MOON_LEVEL,
    NUM_ACTIONS,
    NUM_PLAYERS,
    NUM_TRICKS,
    OBS_LAYOUT,
    OBS_OFFSETS,
    OBS_SIZE,
    PHASE_NAMES,
    GhostEuchre,
    action_name,
)
from .render import render_ghost

__doc__ = __doc__.format(layout=layout_table(OBS_LAYOUT))

AGENTS = tuple(f"player_{seat}" for seat in range(NUM_PLAYERS))
ILLEGAL_ACTION_MODES = ("raise", "terminate")
RESET_OPTIONS = ("dealer", "deals")
_NO_ACTIONS = np.zeros(NUM_ACTIONS, dtype=np.int8)


def env(render_mode=None, episode="game", reward="points", illegal_action="raise",
        illegal_action_penalty=-1.0, **rules):
    """The environment wrapped in PettingZoo's order-enforcing wrapper (the usual entry point)."""
    return wrappers.OrderEnforcingWrapper(
        raw_env(render_mode, episode, reward, illegal_action, illegal_action_penalty, **rules)
    )


def observation_bounds(rules):
    """(low, high) float32[390] bounds of the observation under ``rules`` (a GhostRules).

    Every field lies in [0, 1] but the scores, which a game can push, per deal
    and for at most ``max_deals`` deals, from -(a set bid + 6 reneges) to a made moon.
    """
    low = np.zeros(OBS_SIZE, np.float32)
    high = np.ones(OBS_SIZE, np.float32)
    reneges = NUM_TRICKS * rules.renege_penalty if rules.allow_renege else 0
    worst_deal = max(5, rules.moon_set_penalty) + reneges
    best_deal = max(NUM_TRICKS, rules.moon_points)
    start, stop = OBS_OFFSETS["scores"]
    low[start:stop] = -rules.max_deals * worst_deal / rules.target_score
    high[start:stop] = rules.max_deals * best_deal / rules.target_score
    return low, high


class raw_env(AECEnv):
    """Ghost Hand Euchre as a PettingZoo AEC environment; see the module docstring.

    ``raw_env(render_mode=None, episode="game", reward="points",
    illegal_action="raise", illegal_action_penalty=-1.0, **rules)``. The engine
    state of the one game is ``game_state`` (a ``GhostState`` with N = 1).
    """

    metadata = {"render_modes": ["human", "ansi"], "name": "ghost_euchre_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, render_mode=None, episode="game", reward="points", illegal_action="raise",
                 illegal_action_penalty=-1.0, **rules):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {list(ILLEGAL_ACTION_MODES)}, got {illegal_action!r}")
        if (isinstance(illegal_action_penalty, bool) or not isinstance(illegal_action_penalty, (int, float, np.number))
                or not math.isfinite(illegal_action_penalty)):
            raise ValueError(f"illegal_action_penalty must be a finite number, got {illegal_action_penalty!r}")
        self.game = GhostEuchre(episode=episode, reward=reward, **rules)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_action_penalty = float(illegal_action_penalty)
        self.possible_agents = list(AGENTS)
        self.agents = []
        low, high = observation_bounds(self.game.rules)
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
            })
            for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in AGENTS}
        self.game_state = None
        self._mask = None  # int8[34] legal actions of the agent on move (zeros when none)
        self._on_move = None  # seat on move, None once the episode is over
        self._obs_cache = [None] * NUM_PLAYERS  # float32[390] per seat, for the current step
        self._last_deal = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ---------------------------------------------------------------- episodes
    def reset(self, seed=None, options=None):
        """Start an episode: a seeded stream, or the next episode of the current one (seed None)."""
        engine_options = None
        if options:
            unknown = sorted(set(options) - set(RESET_OPTIONS))
            if unknown:
                warnings.warn(f"ghost_euchre_v0.reset ignores option(s) {unknown}; it uses {list(RESET_OPTIONS)}")
            engine_options = {key: options[key] for key in RESET_OPTIONS if key in options}
        if seed is None and self.game_state is not None:
            game_state = self.game_state.copy()
            game_state.episode += 1
            self.game.start_episodes(game_state, np.zeros(1, np.int64), engine_options)
        else:
            game_state = self.game.init(dealing.stream_keys(seed, 1), engine_options)
        self.game_state = game_state
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self._last_deal = None
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
                legal = ", ".join(f"{a} ({action_name(a)})" for a in np.flatnonzero(self._mask))
                raise ValueError(
                    f"{agent}: action {action} ({action_name(action)}) is not legal in the "
                    f"{self.infos[agent]['phase']} phase; legal actions are {legal}"
                )
            self._terminate_illegal(agent, action)
            return
        self._cumulative_rewards[agent] = 0.0
        deal_number = int(self.game_state.deal_number[0])
        result = self.game.step(self.game_state, np.array([action], dtype=np.int64))
        self.rewards = dict(zip(AGENTS, result.rewards[0].tolist()))
        if len(result.deals.game):
            self._last_deal = _deal_summary(result.deals, deal_number)
        if result.terminated[0]:
            self.terminations = dict.fromkeys(AGENTS, True)
        elif result.truncated[0]:
            self.truncations = dict.fromkeys(AGENTS, True)
        self._new_turn()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _check_type(self, action):
        """The action as an int, or ValueError when it is not an integer in 0..33."""
        if isinstance(action, np.ndarray) and action.ndim == 0:
            action = action[()]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action must be an int in 0..{NUM_ACTIONS - 1}, got {action!r} ({type(action).__name__})")
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action must be an int in 0..{NUM_ACTIONS - 1}, got {action}")
        return action

    def _terminate_illegal(self, agent, action):
        """PettingZoo's terminate-on-illegal: the offender is penalised and the episode ends."""
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self.rewards[agent] = self.illegal_action_penalty
        self.terminations = dict.fromkeys(AGENTS, True)
        self._mask = _NO_ACTIONS
        self._on_move = None
        phase = self.infos[agent]["phase"]
        self.infos = {a: {"phase": phase, "legal_actions": [], "last_deal": self._last_deal,
                          "illegal_action": (agent, action)} for a in AGENTS}
        self._accumulate_rewards()

    def _new_turn(self):
        """Read whose turn it is, their legal actions and the phase from the engine."""
        game_state = self.game_state
        self._obs_cache = [None] * NUM_PLAYERS
        phase = PHASE_NAMES[game_state.phase[0]]
        player = int(game_state.player[0])
        if player < 0:  # the episode is over; agent_selection stays on the last agent to act
            self._on_move = None
            self._mask = _NO_ACTIONS
            legal = []
        else:
            self._on_move = player
            mask = self.game.legal_mask(game_state)[0]
            self._mask = mask.view(np.int8)
            legal = mask.nonzero()[0].tolist()
            self.agent_selection = AGENTS[player]
        self.infos = {agent: {"phase": phase, "legal_actions": legal if seat == player else [],
                              "last_deal": self._last_deal}
                      for seat, agent in enumerate(AGENTS)}

    # ------------------------------------------------------------- observation
    def observe(self, agent):
        seat = AGENTS.index(agent)
        obs = self._obs_cache[seat]
        if obs is None:
            obs = self._obs_cache[seat] = self.game.observe(self.game_state, np.array([seat]))[0]
        mask = self._mask if seat == self._on_move else _NO_ACTIONS
        return {"observation": obs.copy(), "action_mask": mask.copy()}

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode; make the env with render_mode='ansi'")
            return None
        text = render_ghost(self.game, self.game_state, 0, AGENTS)
        if self.render_mode == "human":
            print(text, end="\n\n")
            return None
        return text

    def close(self):
        """Nothing to release (no window, no files)."""


def _deal_summary(deals, deal_number):
    """The one finished deal in a batch-of-one GhostDealSummary, as a readable dict."""
    seat_or_none = lambda seat: AGENTS[seat] if seat >= 0 else None  # noqa: E731
    bid = int(deals.bid[0])
    trump = int(deals.trump[0])
    return {
        "deal": deal_number,
        "thrown_in": bool(deals.thrown_in[0]),
        "dealer": AGENTS[int(deals.dealer[0])],
        "declarer": seat_or_none(int(deals.declarer[0])),
        "swapper": seat_or_none(int(deals.swapper[0])),
        "bid": None if bid == 0 else "moon" if bid == MOON_LEVEL else bid,
        "trump": SUIT_LETTERS[trump] if trump >= 0 else None,
        "tricks": tuple(deals.tricks[0].tolist()),
        "reneges": tuple(deals.reneges[0].tolist()),
        "points": tuple(deals.points[0].tolist()),
        "scores": tuple(deals.scores[0].tolist()),
    }
