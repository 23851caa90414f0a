"""Ghost Hand Euchre, auction only: PettingZoo AEC environment (``ghost_bidding_v0``).

============ ==========================================================================
Import       ``from ghost_euchre_env import ghost_bidding_v0``
Create       ``ghost_bidding_v0.env(card_play, render_mode=None, episode="deal",
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
made by ``card_play``: any object with the batched ``act(obs float32[M, 390],
mask bool[M, 34]) -> int[M]`` of ``agents.Policy`` (e.g.
``agents.make_policy("heuristic", ghost_euchre_env.GhostEuchre())``; this
package never imports ``agents``). The env is :mod:`ghost_euchre_v0` on
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

import functools

from .bidding import AuctionGame
from .cards import card_name
from .ghost import NUM_PLAYERS
from .ghost_euchre_v0 import AGENTS
from .ghost_euchre_v0 import raw_env as ghost_raw_env


def plays_text(plays, names=AGENTS):
    """The card plays of one game as text, one line per trick: 'trick 1: player_0 A♥, player_1 9♥, player_2 K♥'.

    plays: ``AuctionGame.last_plays`` of a batch of one game.
    """
    cards = [f"{names[int(seats[0])]} {card_name(int(card[0]))}" for _, seats, card in plays]
    return [
        f"trick {k // NUM_PLAYERS + 1}: " + ", ".join(cards[k : k + NUM_PLAYERS])
        for k in range(0, len(cards), NUM_PLAYERS)
    ]


class raw_env(ghost_raw_env):
    """Ghost Hand Euchre, auction only: ``ghost_euchre_v0.raw_env`` on an :class:`AuctionGame`.

    See the module docstring. ``game`` is the AuctionGame (its ``engine`` the GhostEuchre).
    """

    metadata = {**ghost_raw_env.metadata, "name": "ghost_bidding_v0"}  # noqa: RUF012 (an instance attribute in the base)
    game: AuctionGame

    def __init__(
        self,
        card_play,
        render_mode=None,
        episode="deal",
        reward="points",
        illegal_action="raise",
        illegal_action_penalty=-1.0,
        **rules,
    ):
        self.engine = functools.partial(AuctionGame, card_play)
        super().__init__(
            render_mode, episode, reward, illegal_action, illegal_action_penalty, **rules
        )

    def reset(self, seed=None, options=None):
        plays = self.game.last_plays
        self.game.last_plays = []  # before the reset: render_mode "human" renders in it
        try:
            super().reset(seed, options)
        except BaseException:
            self.game.last_plays = plays
            raise

    def snapshot(self):
        return {**super().snapshot(), "last_plays": list(self.game.last_plays)}

    def restore(self, saved):
        saved = dict(saved)
        self.game.last_plays = saved.pop("last_plays")
        super().restore(saved)

    def render(self):
        plays = self.game.last_plays
        if self.render_mode is None or not plays:
            return super().render()
        deal = self._last_deal
        lines = ["card play since the last decision:", *plays_text(plays)]
        if deal is not None:
            lines.append(f"deal {deal['deal']} scored: points {deal['points']}")
        extra = "\n".join(lines)
        if self.render_mode == "human":
            super().render()
            print(extra, end="\n\n")
            return None
        return f"{super().render()}\n{extra}"


env = (
    raw_env.wrapped
)  # env(card_play, render_mode=None, episode="deal", ...): the usual entry point
