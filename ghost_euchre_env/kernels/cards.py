"""Card primitives as Numba kernels: the one copy of follow-suit and of who takes a trick.

The tables are those of :mod:`ghost_euchre_env.deck` (card id = rank * 4 + suit,
hands as uint32 bitmasks), captured as global arrays, which Numba compiles in
as constants. The scalar kernels are for other kernels (the engine's, the
solver's); the ``*_batch`` loops are what :mod:`ghost_euchre_env.cards`' NumPy
functions call, so the engine's NumPy code and the kernels share one rule.

- ``effective_suit(card, trump) -> int``: the suit a card counts as (the left
  bower is trump); card 0..23, trump 0..3.
- ``playable(hand, led_suit, trump) -> uint32``: the cards of ``hand`` a player
  may play: the cards of the led suit if it holds any, else the whole hand
  (``led_suit`` -1: leading, anything).
- ``trick_winner(trick, trump, led_suit) -> int``: the seat (index of
  ``trick``, int8[S] cards by seat, -1 for no card) whose card takes the trick.
"""

import numpy as np
from numba import njit

from ..deck import EFFECTIVE_SUIT, NUM_CARDS, STRENGTH, SUIT_MASK

_EFFECTIVE_SUIT = EFFECTIVE_SUIT.astype(np.int8)  # [trump (4: none), card]
_STRENGTH = STRENGTH.astype(np.int8)  # [trump, led suit, card & 31]: -1 for columns 24..31
_SUIT_MASK = SUIT_MASK.astype(np.uint32)  # [trump, effective suit]


@njit(cache=True)
def effective_suit(card, trump):
    """The suit card ``card`` (0..23) counts as under trump ``trump`` (0..3; 4: none named)."""
    return _EFFECTIVE_SUIT[trump, card]


@njit(cache=True)
def strength(card, trump, led_suit):
    """Trick strength of ``card`` (0..23; -1 no card) given trump and the led suit (0..3).

    Trumps 21..27 (9, T, Q, K, A, left bower, right bower), the led suit 1..6
    (9 .. A), other cards 0, no card -1: the highest card of a trick takes it.
    """
    return _STRENGTH[trump & 3, led_suit & 3, card & 31]


@njit(cache=True)
def playable(hand, led_suit, trump):
    """uint32: the cards of ``hand`` (a mask) the follow-suit rule allows.

    led_suit: the effective suit led, -1 when leading (then the whole hand);
    trump: 0..3 (only its low two bits are read). The cards of the led suit if
    the hand holds any, else the whole hand.
    """
    hand = np.uint32(hand)
    if led_suit < 0:
        return hand
    follow = hand & _SUIT_MASK[trump & 3, led_suit & 3]
    return follow if follow else hand


@njit(cache=True)
def trick_winner(trick, trump, led_suit):
    """The seat (index of ``trick``: int8[S], card by seat, -1 none) whose card takes the trick.

    Highest ``strength``; cards never tie unless no card follows (then the
    last such seat, harmless: a complete trick always holds a card of the led suit).
    """
    best = np.int32(-1000)
    winner = 0
    for seat in range(len(trick)):
        key = np.int32(strength(trick[seat], trump, led_suit)) * 4 + seat
        if key > best:
            best, winner = key, seat
    return winner


# ------------------------------------------------------------ batch loops (for the NumPy engine)
@njit(cache=True)
def effective_suit_batch(cards, trump):
    """int8[M]: the suit each card counts as under its game's trump (cards, trump: int8[M]).

    Values that name no card (-1, or an action id >= 24) or no trump (-1) give
    the card's printed suit bits (meaningless but harmless: callers discard them).
    """
    out = np.empty(len(cards), np.int8)
    for i in range(len(cards)):
        card = cards[i]
        if 0 <= card < NUM_CARDS and 0 <= trump[i] < 4:
            out[i] = effective_suit(card, trump[i])
        else:
            out[i] = card & 3
    return out


@njit(cache=True)
def playable_batch(hands, led_suit, trump):
    """uint32[M]: :func:`playable` of every game (hands: uint32[M]; led_suit, trump: int8[M])."""
    out = np.empty(len(hands), np.uint32)
    for i in range(len(hands)):
        out[i] = playable(hands[i], led_suit[i], trump[i])
    return out


@njit(cache=True)
def trick_winner_batch(trick, trump, led_suit):
    """int8[M]: :func:`trick_winner` of every game (trick: int8[M, S]; trump, led_suit: int8[M])."""
    out = np.empty(trick.shape[0], np.int8)
    for i in range(trick.shape[0]):
        out[i] = trick_winner(trick[i], trump[i], led_suit[i])
    return out
