"""Classic Euchre, auction only: PettingZoo AEC environment (``classic_bidding_v0``).

============ ==========================================================================
Import       ``from ghost_euchre_env import classic_bidding_v0``
Create       ``classic_bidding_v0.env(card_play="heuristic", render_mode=None, episode="deal",
             reward="points", illegal_action="raise", illegal_action_penalty=-1.0, **rules)``
Actions      Discrete(31), OpenSpiel ``euchre``'s ids; legal: 24 (pass), 25-28 (order up or
             name a suit), 29-30 (alone, with partner) and the dealer's discard (a card id)
Parallel API no (turn based)
Agents       ``["player_0", "player_1", "player_2", "player_3"]`` (player_0 & player_2
             against player_1 & player_3)
Observation  Dict(observation=Box(float32, [464]), action_mask=Box(int8, [31])), as
             ``classic_euchre_v0``
Render modes ``"ansi"`` (returns text), ``"human"`` (prints it)
============ ==========================================================================

The agents make every decision taken before a deal's first card: ordering up
the upcard or passing, naming trump in the second round (the dealer stuck with
``stick_the_dealer``), going alone or with the partner, and the dealer's
discard, which is made with trump known before any card is played and is part
of what ordering up is worth. The card play of every deal happens inside
``step``, made by ``card_play``: a policy spec string (``"heuristic"``, the default; built
with ``ghost_euchre.agents.make_policy``, seeded ``policy_seed``) or any object with the batched ``act(obs
float32[M, 464], mask bool[M, 31]) -> int[M]`` of ``agents.Policy`` (e.g.
``agents.make_policy("heuristic", ghost_euchre_env.ClassicEuchre())``; this
package imports ``agents`` only by name, when a spec string is given). The env is :mod:`classic_euchre_v0` on
:class:`ghost_euchre_env.bidding.ClassicAuctionGame`, so actions, observations,
infos, seeding, options, bad input and dead steps are as documented there; the
differences:

- ``episode`` is ``"deal"`` by default (a deal thrown in after eight passes
  ends it with 0 points); ``reward`` is ``"points"`` (each agent's team's deal
  points, paid by the step after which the card play scores the deal) or
  ``"margin"`` (its team's points minus the other team's).
- A card-play policy that returns an illegal action raises ``ValueError``
  naming the policy; the game is left as before the step.
- ``render()`` shows the table and, below it, the card play made since the
  previous decision, trick by trick, with the deal's result.

Version history
---------------

* v0: initial release (ghost_euchre_env 0.1.0).
"""

from .auction_aec import pettingzoo_module

raw_env, env = pettingzoo_module(__name__)
