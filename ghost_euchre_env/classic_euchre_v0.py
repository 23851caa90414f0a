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
A seat whose partner goes alone plays no card: its team's points come long
after its last decision, beyond that reach.
The documentation's page "Using it with RL libraries" (docs/rl-libraries.md).

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

{bad_input}

Episode length for learning from scratch: ``episode="deal"`` gives short
episodes (18 to 27 decisions); a game of uniformly random players lasts 194
decisions on average (78 to 283; measured: 1,000 deals and 30 games of random
play from seed 0).

{version_history}"""

from .aec import pettingzoo_module

__doc__, raw_env, env, parallel_env, score_bounds = pettingzoo_module(__name__, __doc__)
