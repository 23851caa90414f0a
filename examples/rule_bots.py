"""Rule-based bots written by names only: they read the table as ``variant.view(obs)`` and act by
``variant.actions``; no observation column or action id appears in them (docs/bots.md).

    ghost-euchre-evaluate ghost_euchre_examples.rule_bots:GhostBowers heuristic random
    ghost-euchre-evaluate --variant classic ghost_euchre_examples.rule_bots:ClassicBowers heuristic ghost_euchre_examples.rule_bots:ClassicBowers heuristic

(installed with the package as ``ghost_euchre_examples.rule_bots``; a copy of your own plays as
``rule_bots:GhostBowers`` from its folder with ``PYTHONPATH=.``)
"""

import numpy as np

from agents import Policy
from ghost_euchre_env.cards import CARD_RANK, EFFECTIVE_SUIT, STRENGTH

SUITS = "CDHS"
SAME_COLOUR = "SHDC"  # the other suit of each suit's colour: its jack is that suit's left bower


def lowest_card(legal):
    """int64[N]: the legal card (bool[N, 24]) of the lowest rank."""
    return np.where(legal, CARD_RANK, len(CARD_RANK)).argmin(axis=1)


class Bowers(Policy):
    """The card play both bots share: lead the highest trump; otherwise play the lowest legal card."""

    def __init__(self, game, seed=None):
        super().__init__(game, seed)
        card = self.variant.actions.card
        self.right_bower = np.array([card("J" + suit) for suit in SUITS])  # by suit
        self.left_bower = np.array([card("J" + suit) for suit in SAME_COLOUR])

    def both_bowers(self, table):
        """bool[N, 4]: the hand holds both bowers of suit s."""
        return table.hand[:, self.right_bower] & table.hand[:, self.left_bower]

    def play(self, table, legal):
        """int64[N]: the card to play, legal bool[N, 24] (the games with a card to play)."""
        trump = np.maximum(table.trump, 0)  # named before any card is played
        is_trump = EFFECTIVE_SUIT[trump] == trump[:, None]  # bool[N, 24]
        rank_in_trump = STRENGTH[trump, trump][:, self.variant.actions.CARDS]  # int[N, 24]
        leading = ~table.current_trick.any(axis=(1, 2))
        trumps = legal & is_trump
        highest_trump = np.where(trumps, rank_in_trump, -1).argmax(axis=1)
        return np.where(leading & trumps.any(axis=1), highest_trump, lowest_card(legal))


class GhostBowers(Bowers):
    """Ghost Hand: bid four with both bowers of a suit, else pass; name the bowers' suit trump
    (without them: the suit it holds most of); lead the highest trump; else the lowest legal card."""

    name = "ghost-bowers"

    def act(self, obs, mask):
        table, moves = self.variant.view(obs), self.variant.actions
        bowers = self.both_bowers(table)
        by_suit = np.stack([(EFFECTIVE_SUIT[s] == s) & table.hand for s in range(len(SUITS))], 1)
        best_suit = np.where(
            bowers.any(axis=1), bowers.argmax(axis=1), by_suit.sum(axis=2).argmax(axis=1)
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


class ClassicBowers(Bowers):
    """Classic: order up or name a suit it holds both bowers of, else pass; always play with its
    partner; discard the lowest card; lead the highest trump; else the lowest legal card."""

    name = "classic-bowers"

    def act(self, obs, mask):
        table, moves = self.variant.view(obs), self.variant.actions
        suits = np.asarray(moves.SUITS)
        call = mask[:, suits] & self.both_bowers(table)  # a legal call of a suit with both bowers
        legal_cards = mask[:, moves.CARDS]
        discarding = table.phase == self.variant.phases.index("discard")
        return np.select(
            [call.any(axis=1), mask[:, moves.PASS], mask[:, moves.WITH_PARTNER], discarding],
            [suits[call.argmax(axis=1)], moves.PASS, moves.WITH_PARTNER, lowest_card(legal_cards)],
            np.where(legal_cards.any(axis=1), self.play(table, legal_cards), mask.argmax(axis=1)),
        ).astype(np.int64)
