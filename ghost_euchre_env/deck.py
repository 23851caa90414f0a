"""The deck and its trick-taking tables, shared by every Euchre variant and by the kernels.

Card ids follow OpenSpiel's euchre layout: ``card = rank * 4 + suit`` with ranks
9, T, J, Q, K, A = 0..5 and suits C, D, H, S = 0..3. A hand is a 24-bit mask
(``uint32``, bit ``c`` set = card ``c`` held). Every table here is built once at
import; the rules over them (follow suit, the winner of a trick) are the kernels of
:mod:`ghost_euchre_env.kernels.cards`, and :mod:`ghost_euchre_env.cards` is the NumPy
face of both.
"""

import numpy as np

NUM_CARDS = 24
NUM_SUITS = 4
HAND_DTYPE = np.uint32

SUIT_SYMBOLS = "♣♦♥♠"
SUIT_LETTERS = "CDHS"
RANK_LETTERS = "9TJQKA"
JACK = 2

CARDS = np.arange(NUM_CARDS)
CARD_RANK = CARDS // NUM_SUITS
CARD_SUIT = CARDS % NUM_SUITS
CARD_BIT = (np.uint32(1) << CARDS.astype(HAND_DTYPE)).astype(HAND_DTYPE)
ALL_CARDS = HAND_DTYPE((1 << NUM_CARDS) - 1)
CARD_BIT_OR_NONE = np.append(CARD_BIT, HAND_DTYPE(0))  # [card or -1 (no card)] -> its bit, or 0
NO_CARD = -1
NO_SUIT = -1

# Same-colour partner suit: C <-> S, D <-> H.
PARTNER_SUIT = np.array([3, 2, 1, 0])


def _effective_suit_table():
    """int8[5, 24]: suit a card counts as under trump t (row 4 = no trump yet).

    The left bower (jack of the trump's partner suit) counts as trump.
    """
    table = np.tile(CARD_SUIT, (NUM_SUITS + 1, 1))
    for trump in range(NUM_SUITS):
        left_bower = JACK * NUM_SUITS + PARTNER_SUIT[trump]
        table[trump, left_bower] = trump
    return table.astype(np.int8)


EFFECTIVE_SUIT = _effective_suit_table()


def _strength_table():
    """int8[4, 4, 32]: trick strength of a card given (trump, led suit).

    Trumps score 21..27 (9, T, Q, K, A, left bower, right bower), cards of the led
    suit 1..6 (9 .. A), other cards 0. Columns 24..31 score -1, so
    ``STRENGTH[t, led, card & 31]`` gives -1 for the empty slot (-1) of a trick.
    """
    table = np.full((NUM_SUITS, NUM_SUITS, 32), -1, dtype=np.int8)
    trump_order = {0: 21, 1: 22, 3: 23, 4: 24, 5: 25}  # 9, T, Q, K, A of trump
    for trump in range(NUM_SUITS):
        for led in range(NUM_SUITS):
            for card in range(NUM_CARDS):
                rank, suit = CARD_RANK[card], CARD_SUIT[card]
                if EFFECTIVE_SUIT[trump, card] == trump:
                    table[trump, led, card] = (
                        (27 if suit == trump else 26) if rank == JACK else trump_order[rank]
                    )
                else:
                    table[trump, led, card] = rank + 1 if suit == led else 0
    return table


STRENGTH = _strength_table()


def _suit_mask_table():
    """uint32[4, 4]: mask of the cards whose effective suit is s under trump t."""
    table = np.zeros((NUM_SUITS, NUM_SUITS), dtype=HAND_DTYPE)
    for trump in range(NUM_SUITS):
        for suit in range(NUM_SUITS):
            table[trump, suit] = CARD_BIT[EFFECTIVE_SUIT[trump] == suit].sum()
    return table


SUIT_MASK = _suit_mask_table()
