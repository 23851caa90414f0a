"""Classic Euchre: PettingZoo AEC environment (``classic_euchre_v0``).

============ ==========================================================================
Import       ``from ghost_euchre_env import classic_euchre_v0``
Create       ``classic_euchre_v0.env(render_mode=None, episode="game", reward="points",
             illegal_action="raise", illegal_action_penalty=-1.0, **rules)``
Actions      Discrete(31) (OpenSpiel ``euchre``'s action ids)
Parallel API ``parallel_env(**same options)``, one decision a step (:mod:`ghost_euchre_env.parallel`)
Agents       ``["player_0", "player_1", "player_2", "player_3"]`` (seats 0..3, clockwise;
             player_0 & player_2 play against player_1 & player_3)
Observation  Dict(observation=Box(float32, [464]), action_mask=Box(int8, [31]))
Render modes ``"ansi"`` (returns text), ``"human"`` (prints it)
============ ==========================================================================

Four players in two partnerships: after the deal one card is turned up; the
players may order it up as trump (the dealer then picks it up and discards) or,
in a second round, name another suit; the maker may go alone; five tricks. The
rules are in ``docs/RULES.md``; this module is a thin adapter over the batched
engine :class:`ghost_euchre_env.classic.ClassicEuchre` (run with a batch of one
game), so every rule lives in the engine alone.

Actions
-------

{actions}

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

``infos[agent]`` holds fixed-shape numbers only, the same keys at every step,
so libraries that stack infos into arrays (Tianshou's replay buffer) and those
that keep them as dicts (RLlib, Stable-Baselines3) take them as they are:
``"phase"`` (index into ``PHASE_NAMES``: 0 bidding, 1 discard, 2 alone, 3 play,
4 over), ``"illegal_action"`` (-1, or the offending action id in the
offender's info after an illegal action under ``illegal_action="terminate"``)
and ``"last_deal_<field>"`` for each field of the summary of the latest finished deal
of the episode (``env.unwrapped.last_deal`` holds it as a dict): ``deal``
(``"last_deal_number"``: its number in the episode, redeals included; 0 while no
deal has ended, the other fields then being -1, False or zeros), ``thrown_in``
(eight passes), ``dealer``, ``maker``, ``lone_defender`` (seats, -1 for none),
``trump`` (0..3 = C, D, H, S, -1 for none), ``upcard`` (card id),
``maker_alone`` (bool), ``tricks`` (tuple by seat) and, as tuples by team
(player_0 & player_2, player_1 & player_3), ``points`` (scored by this deal)
and ``scores`` (game scores after it). The legal actions are the observation's
``action_mask``; ``render_mode="ansi"`` shows the table as text.

Rewards
-------

``reward="points"``: when a deal is scored, each agent receives its team's
points (makers 3-4 tricks: 1; all 5: 2, or 4 for a lone maker; a euchre pays
the defenders 2, or 4 with a lone defender), the other team 0. Thrown-in deals
pay 0. ``reward="win"`` (needs ``episode="game"``): at the end of the game +1
to each winner, -1 to each loser; 0 to all on truncation.

{reward_routing}

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

Bad input: an action that is not an int in 0..30 raises ``ValueError``; so do
bad ``reset`` options (not a dict, a bad dealer or deal) and a ``seed`` that is
not a non-negative int, and the env is then as it was before the call; an
illegal action raises ``ValueError`` listing the legal ones, unless the env was
made with ``illegal_action="terminate"``: then the offender receives
``illegal_action_penalty`` (default -1), every other agent 0, and the episode
ends (all agents terminated). After the episode ends, each agent must be
stepped with ``None`` (PettingZoo's dead steps) until ``agents`` is empty.

Episode length for learning from scratch: ``episode="deal"`` gives short
episodes (18 to 27 decisions); a game of uniformly random players lasts 194
decisions on average (78 to 283; measured: 1,000 deals and 30 games of random
play from seed 0).

Version history
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

from typing import ClassVar

from . import variants
from .aec import EuchreAEC, reward_routing
from .classic import ACTION_TABLE, NUM_PLAYERS, OBS_LAYOUT
from .core import layout_table
from .parallel import EuchreParallel

__doc__ = (__doc__ or "").format(
    actions=ACTION_TABLE.strip(),
    layout=layout_table(OBS_LAYOUT),
    reward_routing=reward_routing(
        NUM_PLAYERS,
        "\nA seat whose partner goes alone plays no card: its team's points come long"
        "\nafter its last decision, beyond that reach.",
    ),
)


def score_bounds(rules):
    """(low, high) of the scores columns under ``rules`` (a ClassicRules).

    A team below target_score scores at most 4 in a deal, and the game (or the deal) then ends.
    """
    return 0.0, (rules.target_score + 3) / rules.target_score


class raw_env(EuchreAEC):
    """Classic Euchre as a PettingZoo AEC environment: :class:`EuchreAEC` on the ``ClassicEuchre`` engine.

    See the module docstring. ``game_state`` is the one game's ``ClassicState`` (N = 1).
    """

    metadata = {**EuchreAEC.metadata, "name": "classic_euchre_v0"}  # noqa: RUF012 (an instance attribute in the base)
    variant = variants.CLASSIC
    score_bounds = staticmethod(score_bounds)

    no_deal: ClassVar[dict] = {  # copied by the env, never handed out itself
        "deal": 0,
        "thrown_in": False,
        "dealer": -1,
        "maker": -1,
        "trump": -1,
        "upcard": -1,
        "maker_alone": False,
        "lone_defender": -1,
        "tricks": (0,) * NUM_PLAYERS,
        "points": (0, 0),
        "scores": (0, 0),
    }

    @staticmethod
    def deal_details(deals):
        """Maker, upcard and alone choices of the one deal of a ClassicDealSummary."""
        return {
            "maker": int(deals.maker[0]),
            "upcard": int(deals.upcard[0]),
            "maker_alone": bool(deals.alone[0]),
            "lone_defender": int(deals.lone_defender[0]),
        }


env = (
    raw_env.wrapped
)  # env(render_mode=None, episode="game", reward="points", ...): the usual entry point


def parallel_env(render_mode=None, **options):
    """The PettingZoo Parallel env of this game, with the options of ``env()``; see
    :mod:`ghost_euchre_env.parallel`."""
    return EuchreParallel(raw_env, render_mode, **options)
