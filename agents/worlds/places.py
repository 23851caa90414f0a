"""What both variants' worlds share: reading fields back, replaying tricks, dealing cards to places.

Seats are relative to the observer (0). See :mod:`ghost_euchre.agents.worlds`.
"""

import dataclasses

import numpy as np

from ghost_euchre_env.cards import (
    CARD_BIT,
    EFFECTIVE_SUIT,
    HAND_DTYPE,
    NO_CARD,
    NUM_CARDS,
    NUM_SUITS,
    mask_to_bool,
    trick_winner,
)

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
    s, tricks completed int8[N]).
    """
    n, num_seats = played.shape
    by_seat = card_of(played[:, :, None] & trick_cards[:, None, :])  # int8[N, S, K]
    voids = np.zeros((n, num_seats, NUM_SUITS), bool)
    rows = np.arange(n)
    leader = first_leader.astype(np.int64)
    safe_trump = np.maximum(trump, 0).astype(np.int64)
    complete = np.bitwise_count(trick_cards) == np.asarray(players)[:, None]  # bool[N, K]
    leaders = np.full(trick_cards.shape, -1, np.int8)
    for k in range(trick_cards.shape[1]):
        cards = by_seat[:, :, k]
        lead_card = cards[rows, np.maximum(leader, 0)]
        started = (leader >= 0) & (lead_card >= 0)
        leaders[started, k] = leader[started]
        led = EFFECTIVE_SUIT[safe_trump, lead_card].astype(np.int64)
        if infer_voids:
            suit_played = EFFECTIVE_SUIT[safe_trump[:, None], cards]
            failed = started[:, None] & (cards >= 0) & (suit_played != led[:, None])
            seat_rows, seats = np.nonzero(failed)
            voids[seat_rows, seats, led[seat_rows]] = True
        done = started & complete[:, k]
        leader[done] = trick_winner(cards[done], safe_trump[done], led[done])
    return voids, complete.sum(axis=1).astype(np.int8), leaders


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
    allowed = np.asarray(allowed, dtype=bool)
    sizes = np.asarray(sizes, dtype=np.int64)
    n, _, num_places = allowed.shape
    dealt_any = np.flatnonzero(allowed.any(axis=(0, 2)))  # cards dealt in some position
    allowed = allowed[:, dealt_any]
    dealt = np.any(allowed, axis=2)  # bool[N, K]
    num_cards = len(dealt_any)
    left = np.cumsum(dealt[:, ::-1], axis=1)[:, ::-1]  # int[N, K]: cards dealt from card i on
    total_dealt = left[:, 0] if num_cards else np.zeros(n, np.int64)
    bad = np.flatnonzero(sizes.sum(axis=1) != total_dealt)
    if len(bad):
        raise ValueError(
            f"position {bad[0]}: place sizes {sizes[bad[0]].tolist()} do not add up to "
            f"the {total_dealt[bad[0]]} cards dealt"
        )
    # The room grid of places 0..P-2: cell index = sum of room[p] * stride[p].
    free = num_places - 1
    span = int(sizes[:, :free].max(initial=0)) + 1
    strides = span ** np.arange(free - 1, -1, -1)
    room = np.stack(
        np.unravel_index(np.arange(span**free), (span,) * free), axis=1
    )  # [cells, free]
    used = room.sum(axis=1)  # int[cells]: cards the room grid still takes
    # choices[i][n, r, p]: deals left if card i goes to place p from cell r; column P: the
    # card is not dealt in that position (it moves on to the next card unchanged).
    choices = []
    ways = np.zeros((n, span**free))
    ways[:, 0] = 1.0
    for card in range(num_cards - 1, -1, -1):
        choice = np.zeros((n, span**free, num_places + 1))
        for place in range(free):
            cells = np.flatnonzero(room[:, place] >= 1)
            choice[:, cells, place] = (
                allowed[:, card, place, None] * ways[:, cells - strides[place]]
            )
        choice[..., free] = (
            allowed[:, card, free, None] * ways * ((left[:, card, None] - used) >= 1)
        )
        choice[..., num_places] = ~dealt[:, card, None] * ways
        choices.append(choice)
        ways = choice.sum(axis=2)

    cell = np.repeat((sizes[:, :free] * strides).sum(axis=1)[:, None], num_worlds, axis=1)
    bad = np.flatnonzero(ways[np.arange(n), cell[:, 0]] <= 0)
    if len(bad):
        raise ValueError(f"position {bad[0]}: no deal of the unseen cards fits the shown voids")
    rows = np.arange(n)[:, None]
    step = np.append(strides, [0, 0])  # cell change when a card goes to each place (or none)
    where = np.empty((n, num_worlds, num_cards), np.int8)  # place of each card (P: not dealt)
    # One draw per world and card id, drawn at once: a row's worlds do not depend on the other rows.
    uniform = rng.random((n, num_worlds, NUM_CARDS))[..., dealt_any]
    for card, choice in enumerate(reversed(choices)):
        cdf = np.cumsum(choice[rows, cell], axis=2)  # [N, W, P + 1]
        total = cdf[..., -1]
        draw = np.minimum(uniform[..., card] * total, np.nextafter(total, 0))
        place = (cdf <= draw[..., None]).sum(axis=2)  # the first place whose cdf passes the draw
        where[..., card] = place
        cell -= step[place]
    places = np.zeros((n, num_worlds, num_places), HAND_DTYPE)
    bits = CARD_BIT[dealt_any]
    for place in range(num_places):
        places[..., place] = ((where == place) * bits).sum(axis=2, dtype=HAND_DTYPE)
    return places


def allowed_places(knowledge, seats):
    """bool[N, 24, len(seats) + 1]: unseen card c may go to each seat (no shown void), and out."""
    unseen = mask_to_bool(knowledge.unseen)  # bool[N, 24]
    card_suit = EFFECTIVE_SUIT[np.maximum(knowledge.trump, 0)]  # int8[N, 24]
    rows = np.arange(len(unseen))[:, None]
    may = [unseen & ~knowledge.voids[rows, seat, card_suit] for seat in seats]
    return np.stack([*may, unseen], axis=2)


def engine_states(game, fields, num_games):
    """A batch of ``num_games`` states of ``game``: the given fields (copied, in the state's
    dtypes, broadcast), the others those of a fresh game."""
    fresh = game.init(np.zeros(1, np.uint64))
    for field in dataclasses.fields(game.state_type):
        template = getattr(fresh, field.name)
        if field.name in fields:
            fields[field.name] = np.array(
                np.broadcast_to(fields[field.name], (num_games, *template.shape[1:])),
                dtype=template.dtype,
            )
        else:
            fields[field.name] = np.repeat(template, num_games, axis=0)
    return game.state_type(**fields)
