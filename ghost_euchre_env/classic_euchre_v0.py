"""Classic Euchre: PettingZoo AEC environment (``classic_euchre_v0``).

============ ==========================================================================
Import       ``from ghost_euchre_env import classic_euchre_v0``
Create       ``classic_euchre_v0.env(render_mode=None, episode="game", reward="points",
             illegal_action="raise", illegal_action_penalty=-1.0, **rules)``
Actions      Discrete(31) (OpenSpiel ``euchre``'s action ids)
Parallel API no (turn based)
Agents       ``["player_0", "player_1", "player_2", "player_3"]`` (seats 0..3, clockwise;
             player_0 & player_2 play against player_1 & player_3)
Observation  Dict(observation=Box(float32, [464]), action_mask=Box(int8, [31]))
Render modes ``"ansi"`` (returns text), ``"human"`` (prints it)
============ ==========================================================================

Four players in two partnerships: after the deal one card is turned up; the
players may order it up as trump (the dealer then picks it up and discards) or,
in a second round, name another suit; the maker may go alone; five tricks. The
rules are in ``shared/RULES.md``; this module is a thin adapter over the batched
engine :class:`ghost_euchre_env.classic.ClassicEuchre` (run with a batch of one
game), so every rule lives in the engine alone.

Actions
-------

====== ========================================================= ==========
ids    meaning                                                   phase
====== ========================================================= ==========
0-23   play card ``id``, or the dealer's discard                 play, discard
24     PASS                                                      bidding
25-28  suit C, D, H, S: order up the upcard's suit (round 1),    bidding
       name another suit (round 2)
29     go alone                                                  alone
30     play with partner                                         alone
====== ========================================================= ==========

Card ``id = rank * 4 + suit`` with ranks 9, T, J, Q, K, A = 0..5 and suits
C, D, H, S = 0..3 (0 = 9♣, 8 = J♣, 23 = A♠). The dealer may not discard the
upcard (as in OpenSpiel). A seat whose partner went alone is never on move.

Observation
-----------

``observation`` is float32[464], egocentric for the observing agent (relative
seat 0 is the observer, 1 the next seat clockwise, 2 the partner) with perfect
recall of what that seat has seen (the dealer sees its own discard, nobody else
does). ``action_mask`` is int8[31], 1 = legal; it is all zeros for every agent
not on move (and for all once the episode is over). Layout of ``observation``:

{layout}

Every field is in [0, 1] except ``scores`` (team score / target_score), which
stays below (target_score + 4) / target_score.

Infos
-----

``infos[agent]`` is a dict with ``"phase"`` (``"bidding"``, ``"discard"``,
``"alone"``, ``"play"``, ``"over"``), ``"legal_actions"`` (list of action ids;
empty for agents not on move) and ``"last_deal"``: ``None`` until the first
deal of the episode ends, then the summary of the latest finished deal, a dict
with ``deal`` (its number in the episode, redeals included), ``thrown_in``
(eight passes), ``dealer``, ``maker``, ``lone_defender`` (agent names or
``None``), ``trump`` (``"C"``, ``"D"``, ``"H"``, ``"S"`` or ``None``),
``upcard`` (card id), ``maker_alone`` (bool), ``tricks`` (tuple by seat) and,
as tuples by team (player_0 & player_2, player_1 & player_3), ``points``
(scored by this deal) and ``scores`` (game scores after it). After an illegal
action under ``illegal_action="terminate"``, every info also holds
``"illegal_action": (agent, action)``.

Rewards
-------

``reward="points"``: when a deal is scored, each agent receives its team's
points (makers 3-4 tricks: 1; all 5: 2, or 4 for a lone maker; a euchre pays
the defenders 2, or 4 with a lone defender), the other team 0. Thrown-in deals
pay 0. ``reward="win"`` (needs ``episode="game"``): at the end of the game +1
to each winner, -1 to each loser; 0 to all on truncation.

Episodes and options
--------------------

``episode="game"``: deals until a team has ``target_score`` (default 10); a
game that reaches ``max_deals`` deals is truncated (``truncations`` all True).
``episode="deal"``: one deal (a thrown-in deal ends it with 0 points). Rules
options (``stick_the_dealer``, ``allow_lone_defender``, ``target_score``,
``max_deals``) are those of :class:`ghost_euchre_env.classic.ClassicRules`.

``reset(seed=None, options=None)``: with ``seed`` (a non-negative int) the env
deals exactly like game 0 of ``ClassicEuchreVec(n, seed=seed)``; without one it
starts the next episode of the same dealing stream. ``options`` may hold
``"dealer"`` (seat 0..3) and ``"deals"`` (list of ``{{"hands": [[5 ids] x 4],
"upcard": id}}`` used in order; the three cards in neither are the rest of the
kitty), so a chosen deal can be replayed exactly; other keys are ignored with a
warning (PettingZoo's ``api_test`` passes a dummy key).

Bad input: an action that is not an int in 0..30 raises ``ValueError``; an
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
from .cards import SUIT_LETTERS, SUIT_SYMBOLS, card_name
from .classic import (
    BIDDING,
    NUM_ACTIONS,
    NUM_PLAYERS,
    NUM_TRICKS,
    OBS_LAYOUT,
    OBS_OFFSETS,
    OBS_SIZE,
    OVER,
    PHASE_NAMES,
    PLAY,
    ClassicEuchre,
    action_name,
)
from .core import layout_table
from .render import EMPTY_SLOT, hand_text, text_table, trick_text

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
    """(low, high) float32[464] bounds of the observation under ``rules`` (a ClassicRules).

    Every field lies in [0, 1] but the scores: a team below target_score scores
    at most 4 in a deal, and the game (or the deal) then ends.
    """
    low = np.zeros(OBS_SIZE, np.float32)
    high = np.ones(OBS_SIZE, np.float32)
    start, stop = OBS_OFFSETS["scores"]
    high[start:stop] = (rules.target_score + 3) / rules.target_score
    return low, high


class raw_env(AECEnv):
    """Classic Euchre as a PettingZoo AEC environment; see the module docstring.

    ``raw_env(render_mode=None, episode="game", reward="points",
    illegal_action="raise", illegal_action_penalty=-1.0, **rules)``. The engine
    state of the one game is ``game_state`` (a ``ClassicState`` with N = 1).
    """

    metadata = {"render_modes": ["human", "ansi"], "name": "classic_euchre_v0", "is_parallelizable": False,
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
        self.game = ClassicEuchre(episode=episode, reward=reward, **rules)
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
        self._mask = None  # int8[31] legal actions of the agent on move (zeros when none)
        self._on_move = None  # seat on move, None once the episode is over
        self._obs_cache = [None] * NUM_PLAYERS  # float32[464] per seat, for the current step
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
                warnings.warn(f"classic_euchre_v0.reset ignores option(s) {unknown}; it uses {list(RESET_OPTIONS)}")
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
        """The action as an int, or ValueError when it is not an integer in 0..30."""
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
            legal = np.flatnonzero(mask).tolist()
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
        text = render_classic(self.game, self.game_state, 0, AGENTS)
        if self.render_mode == "human":
            print(text, end="\n\n")
            return None
        return text

    def close(self):
        """Nothing to release (no window, no files)."""


def _deal_summary(deals, deal_number):
    """The one finished deal in a batch-of-one ClassicDealSummary, as a readable dict."""
    seat_or_none = lambda seat: AGENTS[seat] if seat >= 0 else None  # noqa: E731
    trump = int(deals.trump[0])
    return {
        "deal": deal_number,
        "thrown_in": bool(deals.thrown_in[0]),
        "dealer": AGENTS[int(deals.dealer[0])],
        "maker": seat_or_none(int(deals.maker[0])),
        "trump": SUIT_LETTERS[trump] if trump >= 0 else None,
        "upcard": int(deals.upcard[0]),
        "maker_alone": bool(deals.maker_alone[0]),
        "lone_defender": seat_or_none(int(deals.lone_defender[0])),
        "tricks": tuple(deals.tricks[0].tolist()),
        "points": tuple(deals.points[0].tolist()),
        "scores": tuple(deals.scores[0].tolist()),
    }


def _calls_text(game_state, g, seat, unicode):
    """What seat called in the bidding of this deal: 'pass', 'pass, ♥', '' (not yet)."""
    suits = SUIT_SYMBOLS if unicode else SUIT_LETTERS
    passes, dealer = int(game_state.passes[g]), int(game_state.dealer[g])
    made = game_state.maker[g] >= 0
    calls = []
    for k in range(passes + made):
        if (dealer + 1 + k) % NUM_PLAYERS == seat:
            calls.append("pass" if k < passes else ("order up " if k < NUM_PLAYERS else "name ")
                         + suits[game_state.trump[g]])
    return ", ".join(calls)


def render_classic(game, game_state, g=0, names=None, unicode=True):
    """The classic Euchre table of game ``g`` of a batch, as text.

    Shows the team scores, each seat's calls, alone choice and tricks this deal,
    the upcard, trump and maker, the current trick and the hand of the seat to
    act (the only hand shown). game: the ``ClassicEuchre`` engine (for its rules);
    game_state: a ``ClassicState``; names: seat names (default 'seat 0'...).
    """
    s = game_state
    names = names or [f"seat {i}" for i in range(NUM_PLAYERS)]
    phase = int(s.phase[g])
    lines = [
        f"Classic Euchre · deal {int(s.deal_number[g])} · {PHASE_NAMES[phase]} · target {game.rules.target_score}",
        f"scores: {names[0]} & {names[2]} {int(s.scores[g, 0])}, {names[1]} & {names[3]} {int(s.scores[g, 1])}",
    ]
    dealer, maker = int(s.dealer[g]), int(s.maker[g])
    rows = [("seat", "calls", "alone", "tricks", "")]
    for seat in range(NUM_PLAYERS):
        alone = {-1: EMPTY_SLOT, 0: "with partner", 1: "alone"}[int(s.alone[g, seat])]
        roles = [label for label, who in (("dealer", dealer), ("maker", maker)) if who == seat]
        if not s.active[g] >> seat & 1:
            roles.append("sits out")
        calls = _calls_text(s, g, seat, unicode) or EMPTY_SLOT
        rows.append((names[seat], calls, alone, str(int(s.tricks_won[g, seat])), ", ".join(roles)))
    lines.append(text_table(rows))
    upcard = card_name(int(s.upcard[g]), unicode)
    picked_up = maker >= 0 and s.passes[g] < NUM_PLAYERS
    lines.append(f"upcard: {upcard}" + (f", picked up by {names[dealer]}" if picked_up else ""))
    if maker >= 0:
        suits = SUIT_SYMBOLS if unicode else SUIT_LETTERS
        lines.append(f"trump: {suits[s.trump[g]]}, made by {names[maker]}")
    elif phase == BIDDING:
        lines.append("trump: not made yet")
    if phase == PLAY:
        leader = int(s.leader[g])
        order = [seat for seat in ((leader + k) % NUM_PLAYERS for k in range(NUM_PLAYERS)) if s.active[g] >> seat & 1]
        trick = trick_text(s.trick[g], order, names, unicode)
        lines.append(f"trick {int(s.trick_number[g]) + 1} of {NUM_TRICKS}: {trick}")
    if phase == OVER:
        lines.append("episode over")
    else:
        seat = int(s.player[g])
        lines.append(f"to act: {names[seat]}, holding {hand_text(s.hands[g, seat], unicode)}")
    return "\n".join(lines)
