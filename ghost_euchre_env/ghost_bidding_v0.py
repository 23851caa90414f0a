"""Ghost Hand Euchre, auction only: PettingZoo AEC environment (``ghost_bidding_v0``).

============ ==========================================================================
Import       ``from ghost_euchre_env import ghost_bidding_v0``
Create       ``ghost_bidding_v0.env(card_play="heuristic", render_mode=None, episode="deal",
             reward="points", illegal_action="raise", illegal_action_penalty=-1.0, **rules)``
Actions      Discrete(34); only 24 (PASS), 25-28 (trump), 29-32 (bids, MOON), 33 (SWAP) are ever legal
Parallel API no (turn based)
Agents       ``["player_0", "player_1", "player_2"]`` (seats 0, 1, 2, clockwise)
Observation  Dict(observation=Box(float32, [390]), action_mask=Box(int8, [34])), as ``ghost_euchre_v0``
Render modes ``"ansi"`` (returns text), ``"human"`` (prints it)
Single agent ``gymnasium.make("GhostEuchreBidding-v0")``, see :mod:`ghost_euchre_env.gym_bidding`
============ ==========================================================================

The agents make the auction decisions (SWAP, PASS, bids 3-5, MOON) and the
declarer names trump; the card play of every deal happens inside ``step``,
made by ``card_play``: a policy spec string (``"heuristic"``, the default; built
with ``ghost_euchre.agents.make_policy``, seeded ``policy_seed``) or any object with the batched ``act(obs float32[M, 390],
mask bool[M, 34]) -> int[M]`` of ``agents.Policy`` (e.g.
``agents.make_policy("heuristic", ghost_euchre_env.GhostEuchre())``; this
package imports ``agents`` only by name, when a spec string is given). The env is :mod:`ghost_euchre_v0` on
:class:`ghost_euchre_env.bidding.AuctionGame`, so actions, observations,
infos, seeding, options, bad input and dead steps are as documented there;
the differences:

- ``episode`` is ``"deal"`` by default (an all-pass deal ends it with 0 points);
  ``reward`` is ``"points"`` (each agent's deal points, paid by the step that
  names trump, when the card play it caused scores the deal) or ``"margin"``
  (an agent's points minus the mean of the other two agents').
- A card-play policy that returns an illegal action raises ``ValueError``
  naming the policy; the game (and the card play ``render()`` shows) is left
  as before the step.
- ``render()`` shows the table and, below it, the card play made since the
  previous decision, trick by trick, with the deal's result.

Version history
---------------

* v0: initial release (ghost_euchre_env 0.1.0).
"""

from .auction_aec import pettingzoo_module

raw_env, env = pettingzoo_module(__name__)
