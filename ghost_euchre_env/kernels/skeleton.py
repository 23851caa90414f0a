"""The kernels every variant shares: dealing, bit sets, action checks, observation blocks.

Each kernel is a loop over the games (or rows) of a batch, compiled once by Numba
(``@njit(cache=True)``); with ``NUMBA_DISABLE_JIT=1`` they run as the plain Python
they are. Shapes and dtypes are those of the engine's state
(:mod:`ghost_euchre_env.core`): hands are uint32 card masks (bit c = card c held),
seats int8 (-1 none).

- Dealing (``docs/RULES.md``, "The deal"): a deal is a pure function of the
  episode's key and the deal's number, a SplitMix64 hash per card
  (:mod:`ghost_euchre_env.dealing` states the scheme; :func:`random_decks` is
  its one implementation).
- Legal masks: :func:`unpack_rows` turns the bit sets of ``legal_bits`` into
  bool rows; :func:`first_illegal` checks a batch of actions against them;
  :func:`draw_set_bits` and :func:`draw_legal` draw a legal action per row
  (the random policy's draw).
- Observations: :func:`put_bits` writes a card mask as 24 0/1 floats
  (:func:`put_masks` a row's consecutive card blocks at once),
  :func:`relative` turns an absolute seat into the observer's relative one.
"""

import numpy as np
from numba import njit

NUM_CARDS = 24
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MUL1 = np.uint64(0xBF58476D1CE4E5B9)
_MUL2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, inline="always")
def mix64(x):
    """SplitMix64's finaliser of one uint64 (wrapping arithmetic)."""
    x = np.uint64(x)
    x ^= x >> np.uint64(30)
    x *= _MUL1
    x ^= x >> np.uint64(27)
    x *= _MUL2
    x ^= x >> np.uint64(31)
    return x


@njit(cache=True)
def random_decks(episode_key, deal_numbers):
    """int8[M, 24]: a uniform random permutation of the deck per (episode key, deal number).

    episode_key: uint64[M]; deal_numbers: int[M]. Card k gets the random key
    ``mix(mix(deal key + (k + 1) * golden))`` with its id in the low 5 bits; the
    deck is the cards in the order of their keys. The caller splits it into
    hands (consecutive blocks).
    """
    num_deals = len(episode_key)
    decks = np.empty((num_deals, NUM_CARDS), np.int8)
    keyed = np.empty(NUM_CARDS, np.uint64)
    low = np.uint64(31)
    for i in range(num_deals):
        deal_key = mix64(episode_key[i] ^ mix64(np.uint64(deal_numbers[i]) * _MUL2))
        for card in range(NUM_CARDS):
            counter = np.uint64(card + 1) * _GOLDEN
            key = (mix64(deal_key + counter) & ~low) | np.uint64(card)
            # Insert the key among the sorted keys of the cards before it (an insertion
            # sort: for 24 keys twice as fast as keyed.sort(); the keys are distinct).
            k = card
            while k > 0 and keyed[k - 1] > key:
                keyed[k] = keyed[k - 1]
                k -= 1
            keyed[k] = key
        for k in range(NUM_CARDS):
            decks[i, k] = np.int8(keyed[k] & low)
    return decks


@njit(cache=True)
def hands_of_deck(decks, num_hands, hand_size):
    """uint32[M, num_hands]: hand h of each deck is its cards h * hand_size .. (h + 1) * hand_size - 1."""
    rows = np.zeros((decks.shape[0], num_hands), np.uint32)
    for i in range(decks.shape[0]):
        for hand in range(num_hands):
            mask = np.uint64(0)
            for k in range(hand * hand_size, (hand + 1) * hand_size):
                mask |= np.uint64(1) << np.uint64(decks[i, k])
            rows[i, hand] = np.uint32(mask)
    return rows


@njit(cache=True)
def unpack_rows(bits, width):
    """bool[N, width]: bit a of ``bits[g]`` (unsigned ints[N]) as row g."""
    out = np.zeros((len(bits), width), np.bool_)
    for g in range(len(bits)):
        value = np.uint64(bits[g])
        for a in range(width):
            out[g, a] = (value >> np.uint64(a)) & np.uint64(1)
    return out


@njit(cache=True)
def pack_rows(flags):
    """uint64[N]: row g of ``flags`` (bool[N, W], W <= 64) as a bit set, bit a = flags[g, a]."""
    bits = np.zeros(flags.shape[0], np.uint64)
    for g in range(flags.shape[0]):
        value = np.uint64(0)
        for a in range(flags.shape[1]):
            value |= np.uint64(flags[g, a]) << np.uint64(a)
        bits[g] = value
    return bits


@njit(cache=True, inline="always")
def count_bits(value):
    """The number of set bits of the uint64 ``value`` (additions of bit counts, no multiply)."""
    value = np.uint64(value)
    value = value - ((value >> np.uint64(1)) & np.uint64(0x5555555555555555))
    value = (value & np.uint64(0x3333333333333333)) + (
        (value >> np.uint64(2)) & np.uint64(0x3333333333333333)
    )
    value = (value + (value >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    value += value >> np.uint64(8)
    value += value >> np.uint64(16)
    value += value >> np.uint64(32)
    return int(value & np.uint64(0x7F))


@njit(cache=True)
def draw_set_bits(bits, draws, none):
    """int64[N]: a set bit of each ``bits[g]`` (uint64[N]), drawn by ``draws[g]`` (float64 in [0, 1)).

    The bit is number ``floor(draws[g] * set bits)`` counted from the lowest (``none`` for no
    set bit): uniform over the set bits when the draws are.
    """
    skip = np.empty(len(bits), np.int64)
    rounds = 0
    for g in range(len(bits)):  # how many of its lowest set bits each row skips
        skip[g] = int(draws[g] * np.float64(count_bits(bits[g])))
        rounds = max(rounds, skip[g])
    chosen = np.empty(len(bits), np.int64)
    for g in range(len(bits)):
        # Clear the skipped bits, in the same number of rounds in every row (a select, not
        # a loop of the row's own length: no branch to mispredict), then take the lowest left.
        value = np.uint64(bits[g])
        for k in range(rounds):
            value = value & (value - np.uint64(1)) if k < skip[g] else value
        chosen[g] = count_bits((value ^ (value - np.uint64(1))) >> np.uint64(1)) if value else none
    return chosen


@njit(cache=True)
def draw_legal(mask, draws):
    """int64[N]: a legal action of each row of ``mask`` (bool[N, A], A <= 64), drawn by ``draws[g]``
    (float64 in [0, 1)): :func:`draw_set_bits` of the packed rows (64 for a row with none)."""
    return draw_set_bits(pack_rows(mask), draws, 64)


@njit(cache=True)
def first_illegal(actions, mask):
    """The first row whose action (int64[N]) is out of range or not set in ``mask`` (bool[N, A]); -1 if none."""
    num_actions = mask.shape[1]
    for g in range(len(actions)):
        action = actions[g]
        if action < 0 or action >= num_actions or not mask[g, action]:
            return g
    return -1


@njit(cache=True)
def first_over(player):
    """The first game with no player to act (int8[N], -1: its game is over), -1 if none."""
    for g in range(len(player)):
        if player[g] < 0:
            return g
    return -1


@njit(cache=True)
def bad_seat(seats, num_players):
    """True if any observer seat (int64[N]) is outside 0..num_players - 1."""
    for seat in seats:  # noqa: SIM110 (a loop: what Numba compiles best)
        if seat < 0 or seat >= num_players:
            return True
    return False


@njit(cache=True, inline="always")
def relative(seat, observer, num_players):
    """The observer's relative seat of absolute seat ``seat`` (0: the observer); -1 for no seat."""
    if seat < 0:
        return -1
    return (seat - observer + num_players) % num_players


@njit(cache=True, inline="always")
def put_bits(out, g, start, mask):
    """out[g, start + c] = bit c of ``mask`` (a uint32 card mask) as 0.0 / 1.0, for c in 0..23."""
    value = np.uint32(mask)
    for card in range(NUM_CARDS):
        out[g, start + card] = np.float32((value >> np.uint32(card)) & np.uint32(1))


@njit(cache=True, inline="always")
def put_masks(out, g, start, masks):
    """out[g, start + 24 * b + c] = bit c of ``masks[b]`` (int64 card masks) as 0.0 / 1.0: the
    consecutive card blocks of an observation row, written in one regular loop (which the
    compiler turns into vector code: a third faster than a call of :func:`put_bits` a block)."""
    for b in range(len(masks)):
        value = masks[b]
        for card in range(NUM_CARDS):
            out[g, start + b * NUM_CARDS + card] = np.float32((value >> card) & 1)


@njit(cache=True, inline="always")
def put_zeros(out, g, start, stop):
    """out[g, start:stop] = 0.0 (a loop: no slice made per row)."""
    for cell in range(start, stop):
        out[g, cell] = 0.0


@njit(cache=True, inline="always")
def card_bit(card):
    """uint32: the mask of card ``card`` (0..23); 0 for no card (-1)."""
    return np.uint32(1) << np.uint32(card) if card >= 0 else np.uint32(0)


@njit(cache=True, inline="always")
def put_one(out, g, start, index):
    """out[g, start + index] = 1.0 unless index < 0 (a one-hot field whose value is none)."""
    if index >= 0:
        out[g, start + int(index)] = (
            1.0  # int(): an int8 index must not wrap (JIT off: NumPy scalars)
        )


@njit(cache=True, inline="always")
def ratio(numerator, denominator):
    """float32(numerator / denominator), rounded once (as NumPy's float32 division)."""
    return np.float32(np.float64(numerator) / np.float64(denominator))
