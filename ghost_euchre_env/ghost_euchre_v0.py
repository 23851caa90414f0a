"""Ghost Hand Euchre: PettingZoo AEC environment (``ghost_euchre_v0``).

============ ==========================================================================
Import       ``from ghost_euchre_env import ghost_euchre_v0``
Create       ``ghost_euchre_v0.env(render_mode=None, episode="game", reward="points",
             illegal_action="raise", illegal_action_penalty=-1.0, **rules)``
Actions      Discrete(34)
Parallel API ``parallel_env(**same options)``, one decision a step (:mod:`ghost_euchre_env.parallel`)
Agents       ``["player_0", "player_1", "player_2"]`` (seats 0, 1, 2, clockwise)
Observation  Dict(observation=Box(float32, [390]), action_mask=Box(int8, [34]))
Render modes ``"ansi"`` (returns text), ``"human"`` (prints it)
Single agent ``gymnasium.make("GhostEuchre-v0")``, see :mod:`ghost_euchre_env.gym_env`
============ ==========================================================================

Three players bid for the right to name trump, one of them may first swap their
hand for the face-down ghost hand, and the declarer must take as many of the six
tricks as bid. The rules are in ``docs/RULES.md``; this module is a thin
adapter over the batched engine :class:`ghost_euchre_env.ghost.GhostEuchre`
(run with a batch of one game), so every rule lives in the engine alone.

Actions
-------

{actions}

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

``infos[agent]`` holds fixed-shape numbers only, the same keys at every step,
so libraries that stack infos into arrays (Tianshou's replay buffer) and those
that keep them as dicts (RLlib, Stable-Baselines3) take them as they are:
``"phase"`` (index into ``PHASE_NAMES``: 0 auction, 1 trump, 2 play, 3 over),
``"illegal_action"`` (-1, or the offending action id in the offender's info
after an illegal action under ``illegal_action="terminate"``) and
``"last_deal_<field>"`` for each field of the summary of the latest finished deal
of the episode (``env.unwrapped.last_deal`` holds it as a dict): ``deal``
(``"last_deal_number"``: its number in the episode, redeals included; 0 while no deal has
ended, the other fields then being -1, 0 or zeros), ``thrown_in`` (all passed),
``dealer``, ``maker`` (the declarer), ``swapper`` (seats, -1 for none), ``bid`` (3, 4, 5, 6
for a moon, 0 for none), ``trump`` (0..3 = C, D, H, S, -1 for none) and, as
tuples by seat, ``tricks``, ``reneges``, ``points`` (scored by this deal) and
``scores`` (game scores after it). The legal actions are the observation's
``action_mask``; ``render_mode="ansi"`` shows the table as text.

Rewards
-------

``reward="points"``: when a deal is scored, each agent receives the points it
scored (tricks taken; a made contract pays the tricks taken, a set declarer
loses the bid; a made moon pays ``moon_points``, a missed one costs
``moon_set_penalty``; reneges cost ``renege_penalty`` each). Thrown-in deals
pay 0. ``reward="win"`` (needs ``episode="game"``): at the end of the game +1 to
the winner and -0.5 to each other agent; 0 to all on truncation.

{reward_routing}
The documentation's page "Using it with RL libraries" (docs/rl-libraries.md).

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

{bad_input}

Episode length for learning from scratch: ``episode="deal"`` gives short
episodes (22 decisions on average, 3 when all pass); a game of uniformly random
players lasts 2,640 decisions on average (148 to 4,353), and 13 of 30 reached
``max_deals`` = 200 and were truncated (measured: 1,000 deals and 30 games of
random play from seed 0). Learn on deals first; switch to games once the
bidding is sensible.

{version_history}"""

from .aec import pettingzoo_module

__doc__, raw_env, env, parallel_env, score_bounds = pettingzoo_module(__name__, __doc__)
