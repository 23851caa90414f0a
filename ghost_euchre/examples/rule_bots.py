"""Rule-based bots written by names only: they read the table as ``variant.view(obs)`` and act by
``variant.actions``; no observation column or action id appears in them (docs/bots.md).

    ghost-euchre-evaluate ghost_euchre.examples.rule_bots:GhostBowers heuristic random
    ghost-euchre-evaluate --variant classic ghost_euchre.examples.rule_bots:ClassicBowers heuristic ghost_euchre.examples.rule_bots:ClassicBowers heuristic

(installed with the package as ``ghost_euchre.examples.rule_bots``; a copy of your own plays as
``rule_bots:GhostBowers`` from its folder with ``PYTHONPATH=.``)
"""

import numpy as np

from ghost_euchre.agents import Policy

SUITS = "CDHS"
SAME_COLOUR = "SHDC"  # the other suit of each suit's colour: its jack is that suit's left bower
NONE = 99  # above every strength: "no such card" for an argmin


def weakest(table, cards):
    """int64[N]: the card of ``cards`` (bool[N, 24]) weakest in the trick (as if led when none is)."""
    return np.where(cards, table.strength, NONE).argmin(axis=1)


class Bowers(Policy):
    """The card play both bots share, read from the view's trick (``led_suit``, ``strength``,
    ``takes_trick``, ``winning_seat``, ``best_left``): lead the highest trump, else a card that is
    the best left of its suit; follow with the cheapest card that takes the trick, unless the
    partner is taking it; otherwise throw the weakest card."""

    def __init__(self, game, seed=None):
        super().__init__(game, seed)
        card = self.variant.actions.card
        self.right_bower = np.array([card("J" + suit) for suit in SUITS])  # by suit
        self.left_bower = np.array([card("J" + suit) for suit in SAME_COLOUR])
        self.suit_cards = np.array([[card(rank + suit) for rank in "9TJQKA"] for suit in SUITS])
        self.partner = self.variant.partner  # a relative seat; None in Ghost Hand

    def both_bowers(self, table):
        """bool[N, 4]: the hand holds both bowers of suit s."""
        return table.hand[:, self.right_bower] & table.hand[:, self.left_bower]

    def play(self, table, legal):
        """int64[N]: the card to play, legal bool[N, 24] (the games with a card to play)."""
        trumps, bosses = legal & table.is_trump, legal & table.best_left
        takers = legal & table.takes_trick
        leading = table.led_suit < 0
        take = ~leading & takers.any(axis=1)
        if self.partner is not None:  # classic: not over the partner's winning card
            take &= table.winning_seat != self.partner
        return np.select(
            [
                leading & trumps.any(axis=1),
                leading & bosses.any(axis=1),
                take,
            ],
            [
                np.where(trumps, table.strength, -1).argmax(axis=1),  # the highest trump
                bosses.argmax(axis=1),
                np.where(takers, table.strength, NONE).argmin(axis=1),  # the cheapest that takes
            ],
            weakest(table, legal),
        )


class GhostBowers(Bowers):
    """Ghost Hand: bid four with both bowers of a suit, else pass; name the bowers' suit trump
    (without them: the suit it holds most of); then :class:`Bowers`' card play."""

    name = "ghost-bowers"

    def act(self, obs, mask):
        table, moves = self.variant.view(obs), self.variant.actions
        bowers = self.both_bowers(table)
        best_suit = np.where(
            bowers.any(axis=1), bowers.argmax(axis=1), self.suit_lengths(table).argmax(axis=1)
        )
        bid_four = mask[:, moves.bid(4)] & bowers.any(axis=1)
        naming = mask[:, moves.SUITS].any(axis=1)  # the declarer names trump
        legal_cards = mask[:, moves.CARDS]
        return np.select(
            [bid_four, mask[:, moves.PASS], naming, legal_cards.any(axis=1)],
            [
                moves.bid(4),
                moves.PASS,
                np.asarray(moves.SUITS)[best_suit],
                self.play(table, legal_cards),
            ],
            mask.argmax(axis=1),  # anything else (a swap offered alone): the first legal move
        ).astype(np.int64)

    def suit_lengths(self, table):
        """int[N, 4]: the cards the hand would hold of suit s were s trump (its left bower too)."""
        return table.hand[:, self.suit_cards].sum(axis=2) + table.hand[:, self.left_bower]


class ClassicBowers(Bowers):
    """Classic: order up or name a suit it holds both bowers of, else pass; always play with its
    partner; discard the weakest card; then :class:`Bowers`' card play."""

    name = "classic-bowers"

    def act(self, obs, mask):
        table, moves = self.variant.view(obs), self.variant.actions
        suits = np.asarray(moves.SUITS)
        call = mask[:, suits] & self.both_bowers(table)  # a legal call of a suit with both bowers
        legal_cards = mask[:, moves.CARDS]
        discarding = table.phase == self.variant.phases.index("discard")
        return np.select(
            [call.any(axis=1), mask[:, moves.PASS], mask[:, moves.WITH_PARTNER], discarding],
            [
                suits[call.argmax(axis=1)],
                moves.PASS,
                moves.WITH_PARTNER,
                weakest(table, legal_cards),
            ],
            np.where(legal_cards.any(axis=1), self.play(table, legal_cards), mask.argmax(axis=1)),
        ).astype(np.int64)
