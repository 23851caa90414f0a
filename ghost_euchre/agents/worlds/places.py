"""What both variants' worlds share: reading fields back, replaying tricks, dealing cards to places.

Seats are relative to the observer (0). See :mod:`ghost_euchre.agents.worlds`.
"""

import weakref

import numpy as np
from numba import njit

from ghost_euchre_env.cards import (
    CARD_BIT,
    EFFECTIVE_SUIT,
    HAND_DTYPE,
    NO_CARD,
    NUM_CARDS,
    NUM_SUITS,
    mask_to_bool,
)
from ghost_euchre_env.kernels.cards import effective_suit, trick_winner

CARD_BIT_OR_NONE = np.append(CARD_BIT, HAND_DTYPE(0))  # index -1 (no card) -> empty mask
NO_ACTION = -1  # in a deal's actions: padding after its last action
FROM_WORLD = -2  # in a deal's actions: the action is the world's own (classic's hidden discard)


def times(fraction, scale, dtype):
    """A fractional observation field (a value divided by ``scale``) times ``scale``, rounded, as ``dtype``."""
    return np.rint(fraction * scale).astype(dtype)


def index_or_none(one_hot):
    """bool[..., K] one-hot (or all False) -> int8[...] index, -1 where none is set."""
    return np.where(one_hot.any(axis=-1), one_hot.argmax(axis=-1), -1).astype(np.int8)


def card_of(single_bit_masks):
    """uint32[...] masks holding at most one card -> int8[...] card id, -1 for empty."""
    masks = np.asarray(single_bit_masks, dtype=HAND_DTYPE)
    ids = np.bitwise_count(np.where(masks == 0, 0, masks - HAND_DTYPE(1)))
    return np.where(masks == 0, NO_CARD, ids).astype(np.int8)


def replay_tricks(played, trick_cards, first_leader, trump, players, infer_voids):
    """Replay the tricks of the deal: who led each, who failed to follow.

    played: uint32[N, S] cards each seat has played; trick_cards: uint32[N, K]
    cards of trick k; first_leader: int8[N] seat that led the first trick (-1:
    play has not started); trump: int8[N]; players: int[N] seats that play each
    trick; infer_voids: False when failing to follow proves nothing. Returns
    (voids bool[N, S, 4]: the seat has shown it holds no card of effective suit
    s, tricks completed int8[N], leaders int8[N, K]: the seat that led trick k,
    -1 before it is led). One kernel call (:func:`_replay_tricks`).
    """
    n, num_seats = played.shape
    voids = np.zeros((n, num_seats, NUM_SUITS), bool)
    leaders = np.full(trick_cards.shape, -1, np.int8)
    completed = np.zeros(n, np.int8)
    _replay_tricks(
        np.asarray(played, np.int64),
        np.asarray(trick_cards, np.int64),
        np.asarray(first_leader, np.int64),
        np.asarray(trump, np.int64),
        np.broadcast_to(np.asarray(players, np.int64), n).copy(),
        bool(infer_voids),
        voids,
        completed,
        leaders,
    )
    return voids, completed, leaders


@njit(cache=True)
def _replay_tricks(
    played, trick_cards, first_leader, trump, players, infer_voids, voids, completed, leaders
):
    """The kernel of :func:`replay_tricks` (its arguments as int64 arrays; fills voids, completed
    and leaders)."""
    n, num_seats = played.shape
    cards = np.empty(num_seats, np.int8)  # the card of each seat in the trick, -1 none
    for row in range(n):
        leader = first_leader[row]
        safe_trump = max(trump[row], 0)
        for k in range(trick_cards.shape[1]):
            in_trick = trick_cards[row, k]
            complete = _count(in_trick) == players[row]
            completed[row] += complete
            for seat in range(num_seats):
                cards[seat] = card_in(played[row, seat] & in_trick)
            if leader < 0 or cards[leader] < 0:  # not led yet
                continue
            leaders[row, k] = leader
            led = effective_suit(cards[leader], safe_trump)
            for seat in range(num_seats):
                if (
                    infer_voids
                    and cards[seat] >= 0
                    and effective_suit(cards[seat], safe_trump) != led
                ):
                    voids[row, seat, led] = True
            if complete:
                leader = trick_winner(cards, safe_trump, led)


@njit(cache=True)
def _count(mask):
    """The number of cards in a card mask."""
    count = 0
    for card in range(NUM_CARDS):
        count += mask >> card & 1
    return count


@njit(cache=True)
def card_in(mask):
    """The card of a mask holding at most one (its lowest), -1 for an empty mask."""
    for card in range(NUM_CARDS):
        if mask >> card & 1:
            return card
    return NO_CARD


def led_suit(trick, leader, trump):
    """int8[N]: effective suit of the current trick's first card (-1 before it is led).

    trick: int8[N, S] card per seat (-1 none); leader, trump: int8[N] (-1 none).
    """
    rows = np.arange(len(trick))
    lead_card = trick[rows, np.maximum(leader, 0)]
    leading = (leader >= 0) & (lead_card >= 0)
    return np.where(leading, EFFECTIVE_SUIT[np.maximum(trump, 0), lead_card], -1).astype(np.int8)


def sample_places(allowed, sizes, num_worlds, rng):
    """Deal cards to places, uniformly over every deal that fits.

    allowed: bool[N, 24, P], card c may go to place p (a card with no allowed
    place is not dealt); sizes: int[N, P] cards each place receives (they add
    up to the number of dealt cards); rng: numpy Generator or
    :class:`ghost_euchre.agents.streams.RowRandom` of N rows (the only randomness used; a
    row's worlds depend only on its own draws). Returns uint32[N, W, P]: the cards of each place in each of W worlds.

    Exact: ``ways[i, r]`` counts the deals of cards i, i+1, ... that fit when
    places 0..P-2 still have room r (the last place takes the rest), by dynamic
    programming from the last card back; then each world deals the cards in
    order, each to a place chosen with probability proportional to the deals
    left after it. Raises ValueError naming a position that no deal fits.
    """
    allowed = np.ascontiguousarray(allowed, dtype=bool)
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    n, _, num_places = allowed.shape
    total_dealt = allowed.any(axis=2).sum(axis=1)
    bad = np.flatnonzero(sizes.sum(axis=1) != total_dealt)
    if len(bad):
        raise ValueError(
            f"position {bad[0]}: place sizes {sizes[bad[0]].tolist()} do not add up to "
            f"the {total_dealt[bad[0]]} cards dealt"
        )
    # One draw per world and card id, drawn at once: a row's worlds do not depend on the other rows.
    uniform = rng.random((n, num_worlds, NUM_CARDS))
    places = np.zeros((n, num_worlds, num_places), HAND_DTYPE)
    span = int(sizes[:, : num_places - 1].max(initial=0)) + 1
    deals = _deal_places(allowed, sizes, span, uniform, places)
    bad = np.flatnonzero(deals <= 0)
    if len(bad):
        raise ValueError(f"position {bad[0]}: no deal of the unseen cards fits the shown voids")
    return places


@njit(cache=True)
def _deal_places(allowed, sizes, span, uniform, places):
    """The kernel of :func:`sample_places`: fills places uint32[N, W, P]; returns float64[N], the
    number of deals that fit each position (0: none, nothing dealt).

    allowed bool[N, 24, P], sizes int64[N, P]; span: one more than the most cards a place
    0..P-2 receives; uniform float64[N, W, 24]: the draw of each world and card id.
    """
    n, _, num_places = allowed.shape
    free = num_places - 1  # places 0..P-2 count their room; the last takes the rest
    cells = span**free
    stride = np.zeros(num_places, np.int64)  # cell change when a card goes to each place
    step = 1
    for place in range(free - 1, -1, -1):
        stride[place] = step
        step *= span
    room = np.zeros((cells, num_places), np.int64)  # room[r, p]: cards place p still takes
    used = np.zeros(cells, np.int64)  # cards places 0..P-2 still take
    for cell in range(cells):
        for place in range(free):
            room[cell, place] = cell // stride[place] % span
            used[cell] += room[cell, place]
    deals = np.zeros(n)
    cards = np.zeros(NUM_CARDS, np.int64)
    ways = np.zeros((NUM_CARDS + 1, cells))  # ways[i, r]: deals of cards i.. from cell r
    for row in range(n):
        count = 0  # the cards dealt in this position, in card-id order
        for card in range(NUM_CARDS):
            if allowed[row, card].any():
                cards[count] = card
                count += 1
        ways[count] = 0.0
        ways[count, 0] = 1.0
        for i in range(count - 1, -1, -1):  # counts are whole numbers: any order sums them exactly
            card, left = cards[i], count - i
            ways[i] = 0.0
            for place in range(free):
                if allowed[row, card, place]:
                    for cell in range(cells):
                        if room[cell, place] >= 1:
                            ways[i, cell] += ways[i + 1, cell - stride[place]]
            if allowed[row, card, free]:
                for cell in range(cells):
                    if left - used[cell] >= 1:
                        ways[i, cell] += ways[i + 1, cell]
        start = 0
        for place in range(free):
            start += sizes[row, place] * stride[place]
        deals[row] = ways[0, start]
        if deals[row] <= 0:
            continue
        for world in range(uniform.shape[1]):
            cell = start
            for i in range(count):
                card = cards[i]
                total = ways[i, cell]
                draw = uniform[row, world, card] * total
                if draw >= total:  # rounded up to the total: the float just below it
                    draw = np.nextafter(total, 0.0)
                cdf, chosen = 0.0, num_places - 1
                for place in range(num_places):  # the first place whose cdf passes the draw
                    cdf += _ways_after(
                        allowed, row, card, place, cell, count - i, room, used, stride, ways, i + 1
                    )
                    if cdf > draw:
                        chosen = place
                        break
                places[row, world, chosen] |= 1 << card
                cell -= stride[chosen]
    return deals


@njit(cache=True, inline="always")
def _ways_after(allowed, row, card, place, cell, left, room, used, stride, ways, after):
    """Deals of the cards after ``card`` if it goes to ``place`` from room ``cell``, ``left`` cards
    (this one included) still to deal; ways[after]: float64[cells], those of the next card."""
    if not allowed[row, card, place]:
        return 0.0
    if place < len(stride) - 1:  # a counted place: it needs room
        return ways[after, cell - stride[place]] if room[cell, place] >= 1 else 0.0
    return ways[after, cell] if left - used[cell] >= 1 else 0.0  # the last place: cards to spare


def allowed_places(knowledge, seats):
    """bool[N, 24, len(seats) + 1]: unseen card c may go to each seat (no shown void), and out."""
    unseen = mask_to_bool(knowledge.unseen)  # bool[N, 24]
    card_suit = EFFECTIVE_SUIT[np.maximum(knowledge.trump, 0)]  # int8[N, 24]
    rows = np.arange(len(unseen))[:, None]
    may = [unseen & ~knowledge.voids[rows, seat, card_suit] for seat in seats]
    return np.stack([*may, unseen], axis=2)


_FRESH = weakref.WeakKeyDictionary()  # game -> the state of one fresh game (read only)


def fresh_state(game):
    """The state of one fresh game of ``game`` (made once per game; its arrays are not written)."""
    if game not in _FRESH:
        _FRESH[game] = game.init(np.zeros(1, np.uint64))
    return _FRESH[game]


def engine_states(game, fields, num_games):
    """A batch of ``num_games`` states of ``game``: the given fields (copied, in the state's
    dtypes, broadcast), the others those of a fresh game."""
    state = fresh_state(game).take(np.zeros(num_games, np.intp))
    for name, value in fields.items():
        setattr(state, name, value)
    return state
