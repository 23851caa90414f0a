"""Cards, suits and trick-taking tables shared by every Euchre variant.

Card ids follow OpenSpiel's euchre layout: ``card = rank * 4 + suit`` with ranks
9, T, J, Q, K, A = 0..5 and suits C, D, H, S = 0..3. A hand is a 24-bit mask
(``uint32``, bit ``c`` set = card ``c`` held). Every table here is built once at
import and indexed with arrays, so the engines never branch per game.
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
_STRENGTH_KEY = (STRENGTH.reshape(-1).astype(np.int16) << 2).astype(
    np.int8
)  # [(trump * 4 + led) * 32 + card]


def effective_suit(cards, trump):
    """int8[M]: the suit each card counts as under its game's trump.

    cards, trump: int8[M]; any values are accepted (in games where they mean
    nothing, -1 or a non-card action, the result is meaningless but harmless).
    """
    suit = cards & 3
    left_bower = (
        cards == JACK * NUM_SUITS + 3 - trump
    )  # the jack of the trump's partner suit (PARTNER_SUIT[t] = 3 - t)
    return suit + (trump - suit) * left_bower


def _suit_mask_table():
    """uint32[4, 4]: mask of the cards whose effective suit is s under trump t."""
    table = np.zeros((NUM_SUITS, NUM_SUITS), dtype=HAND_DTYPE)
    for trump in range(NUM_SUITS):
        for suit in range(NUM_SUITS):
            table[trump, suit] = CARD_BIT[EFFECTIVE_SUIT[trump] == suit].sum()
    return table


SUIT_MASK = _suit_mask_table()
_SUIT_MASK_FLAT = SUIT_MASK.reshape(-1)  # [trump * 4 + suit]


def playable_cards(hand, led_suit, trump):
    """Cards a player may legally play, as a mask.

    hand: uint32[M]; led_suit: int8[M] (effective suit led, -1 when leading);
    trump: int8[M] (only its low two bits are read). Returns uint32[M]: the cards
    of the led suit if the hand has any, else the whole hand.
    """
    follow = hand & _SUIT_MASK_FLAT.take((trump & 3) * 4 + (led_suit & 3))
    free = (led_suit < 0) | (follow == 0)  # leading, or void in the led suit
    return follow | (hand * free)


def trick_winner(trick, trump, led_suit):
    """Seat index (column of ``trick``) of the card that wins each trick.

    trick: int8[M, S] card per seat (S <= 4), -1 for a seat with no card; trump,
    led_suit: int8[M] (only the low two bits are read, so -1 is harmless in games
    whose trick is not complete). Returns int8[M].
    """
    row = ((trump & 3) * 4 + (led_suit & 3)).astype(np.int16) * 32
    # Key = strength * 4 + seat: cards never tie in strength, so the largest key names the winner.
    best = _STRENGTH_KEY.take(row | (trick[:, 0] & 31))
    for seat in range(1, trick.shape[1]):
        np.maximum(best, _STRENGTH_KEY.take(row | (trick[:, seat] & 31)) | np.int8(seat), out=best)
    return best & 3


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
    flags = np.ascontiguousarray(flags, dtype=bool)
    num_rows, width = flags.shape
    if width > 57:
        raise ValueError(f"pack_bits packs at most 57 columns, got {width}")
    stream = np.zeros(
        (num_rows * width + 7) // 8 + 8, np.uint8
    )  # 8 spare bytes for the last word read
    stream[:-8] = np.packbits(flags.reshape(-1), bitorder="little")  # row g starts at bit g * width
    # The little-endian 8-byte word starting at every byte offset (an unaligned, overlapping view).
    words = np.ndarray((len(stream) - 7,), np.uint64, stream, strides=(1,))
    start = np.arange(num_rows, dtype=np.intp) * width
    return (words[start >> 3] >> (start & 7).astype(np.uint64)) & np.uint64((1 << width) - 1)


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
