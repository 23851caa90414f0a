"""Cards, suits and trick-taking tables shared by every Euchre variant: the NumPy face.

Card ids follow OpenSpiel's euchre layout: ``card = rank * 4 + suit`` with ranks
9, T, J, Q, K, A = 0..5 and suits C, D, H, S = 0..3. A hand is a 24-bit mask
(``uint32``, bit ``c`` set = card ``c`` held). The deck's constants and tables are
:mod:`ghost_euchre_env.deck` (re-exported here); the functions below run the rules'
kernels (:mod:`ghost_euchre_env.kernels.cards`) over arrays of games.
"""

import numpy as np

from .deck import (  # noqa: F401 (the deck, read from here by the engines and the bots)
    ALL_CARDS,
    CARD_BIT,
    CARD_BIT_OR_NONE,
    CARD_RANK,
    CARD_SUIT,
    CARDS,
    EFFECTIVE_SUIT,
    HAND_DTYPE,
    JACK,
    NO_CARD,
    NO_SUIT,
    NUM_CARDS,
    NUM_SUITS,
    PARTNER_SUIT,
    RANK_LETTERS,
    STRENGTH,
    SUIT_LETTERS,
    SUIT_MASK,
    SUIT_SYMBOLS,
)
from .kernels import cards as _kernels
from .kernels import skeleton as _skeleton


def effective_suit(cards, trump):
    """int8[M]: the suit each card counts as under its game's trump (kernel ``effective_suit``).

    cards, trump: int[M]; any values are accepted (in games where they mean
    nothing, -1 or a non-card action, the result is meaningless but harmless).
    """
    return _kernels.effective_suit_batch(_as_int8(cards), _as_int8(trump))


def playable_cards(hand, led_suit, trump):
    """Cards a player may legally play, as a mask (kernel ``playable``).

    hand: uint32[M]; led_suit: int8[M] (effective suit led, -1 when leading);
    trump: int8[M] (only its low two bits are read). Returns uint32[M]: the cards
    of the led suit if the hand has any, else the whole hand.
    """
    return _kernels.playable_batch(
        np.asarray(hand, HAND_DTYPE), _as_int8(led_suit), _as_int8(trump)
    )


def trick_winner(trick, trump, led_suit):
    """Seat index (column of ``trick``) of the card that wins each trick (kernel ``trick_winner``).

    trick: int8[M, S] card per seat (S <= 4), -1 for a seat with no card; trump,
    led_suit: int8[M] (only the low two bits are read, so -1 is harmless in games
    whose trick is not complete). Returns int8[M].
    """
    return _kernels.trick_winner_batch(_as_int8(trick), _as_int8(trump), _as_int8(led_suit))


def _as_int8(values):
    return np.asarray(values, np.int8)


_FEW_VALUES = 32  # up to this many values, unpack_bits reads their bytes through a view


def unpack_bits(values, width):
    """Unsigned ints [...] -> bool[..., width]: bit i of each value (C-contiguous)."""
    values = np.asarray(values)
    num_bytes = (width + 7) // 8
    if values.ndim and values.size <= _FEW_VALUES:  # few values (one game): fewer NumPy calls
        little = np.ascontiguousarray(values, values.dtype.newbyteorder("<"))
        as_bytes = little.view(np.uint8).reshape(*values.shape, -1)[..., :num_bytes]
    else:
        as_bytes = np.empty((*values.shape, num_bytes), np.uint8)
        for byte in range(num_bytes):  # shifting out each byte beats slicing a byte view
            as_bytes[..., byte] = values >> (8 * byte)
    # Unpacking one flat byte string is far faster than unpacking along a short last axis.
    bits = np.unpackbits(as_bytes.reshape(-1), bitorder="little").reshape(
        *values.shape, 8 * num_bytes
    )
    return (
        bits.view(bool)
        if width == 8 * num_bytes
        else np.ascontiguousarray(bits[..., :width]).view(bool)
    )


def pack_bits(flags):
    """bool[N, W] -> uint64[N] with bit i of row g = flags[g, i] (W <= 57); the inverse of unpack_bits."""
    flags = np.asarray(flags, dtype=bool)
    if flags.shape[1] > 57:
        raise ValueError(f"pack_bits packs at most 57 columns, got {flags.shape[1]}")
    return _skeleton.pack_rows(flags)


def mask_to_bool(masks):
    """uint32[...] card masks -> bool[..., 24] (C-contiguous)."""
    return unpack_bits(np.asarray(masks, dtype=HAND_DTYPE), NUM_CARDS)


def unpack_masks_into(out, masks, rows_per_chunk=4096):
    """Write the bits of card masks as 0/1 into ``out``: out[:, j] = bit j % 24 of masks[:, j // 24].

    out: float[N, W] (e.g. the first W columns of an observation); masks:
    uint32[N, B] with W <= 24 * B. Done in chunks of rows, so that the bool
    array in between stays in cache (about 1.7x faster at N = 16384).
    """
    width = out.shape[1]
    for start in range(0, len(out), rows_per_chunk):
        chunk = masks[start : start + rows_per_chunk]
        out[start : start + len(chunk)] = mask_to_bool(chunk).reshape(len(chunk), -1)[:, :width]


def cards_to_mask(cards):
    """int[..., K] card ids -> uint32[...] mask (ids must be distinct)."""
    return CARD_BIT[np.asarray(cards)].sum(axis=-1, dtype=HAND_DTYPE)


def mask_to_cards(mask):
    """One uint32 mask -> sorted list of card ids."""
    return [int(c) for c in np.flatnonzero(mask_to_bool(mask))]


def card_name(card, unicode=True):
    """'J♥' (or 'JH' with unicode=False) for a card id."""
    suits = SUIT_SYMBOLS if unicode else SUIT_LETTERS
    return RANK_LETTERS[card // NUM_SUITS] + suits[card % NUM_SUITS]


def parse_card(text):
    """'JH', 'J♥', 'jh' or '10H' -> card id; ValueError for anything else."""
    cleaned = text.strip().upper().replace("10", "T")
    if len(cleaned) == 2:
        rank = RANK_LETTERS.find(cleaned[0])
        suit = max(SUIT_LETTERS.find(cleaned[1]), SUIT_SYMBOLS.find(text.strip()[-1]))
        if rank >= 0 and suit >= 0:
            return rank * NUM_SUITS + suit
    raise ValueError(
        f"not a card: {text!r}; expected rank 9,T,J,Q,K,A then suit C,D,H,S (e.g. 'JH')"
    )
