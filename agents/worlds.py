"""Hidden worlds of Ghost Hand Euchre as seen by one seat: reading and sampling.

A seat's observation (``ghost_euchre_env.ghost.OBS_LAYOUT``) is read back into a
:class:`SeatKnowledge`: the public history of the deal, the seat's own cards,
and the suits the other seats have shown void in. :func:`sample_worlds` deals
the cards the seat cannot see over the places they can be, uniformly over every
deal consistent with that knowledge, and :func:`world_states` turns sampled
worlds into engine states (``GhostState``) that the engine can play on.

Seats here are *relative to the observer*: seat 0 is the observing seat, seat 1
the next seat clockwise, seat 2 the one after. A world's engine state uses the
relative seats as its absolute seats, so the observer always sits at seat 0.
The game is symmetric under rotation of the seats, so nothing is lost.

Unseen cards go to three places: the hands of seats 1 and 2 (their sizes are
known: six minus the cards each has played) and, unless the observer itself
swapped, the six face-down cards out of play (the ghost hand while nobody has
swapped; the dead hand of whoever swapped). The only hard constraints a seat can
know are shown voids: a seat that did not follow the led (effective) suit holds
none of it. With ``allow_renege`` a failure to follow proves nothing, so no
voids are inferred. Bids and passes are not used to weight worlds (soft
information); every consistent world is equally likely.
"""

import dataclasses

import numpy as np

from ghost_euchre_env.cards import (
    ALL_CARDS,
    CARD_BIT,
    EFFECTIVE_SUIT,
    HAND_DTYPE,
    NO_CARD,
    NUM_CARDS,
    NUM_SUITS,
    mask_to_bool,
    trick_winner,
)
from ghost_euchre_env.ghost import (
    HAND_SIZE,
    NUM_PLAYERS,
    NUM_TRICKS,
    OBS_OFFSETS,
    OVER,
    PLAY,
    GhostState,
)

OUT_OF_PLAY = 3  # place index of the face-down hand (after seats 0..2)


@dataclasses.dataclass
class SeatKnowledge:
    """What the observing seat knows in N positions; seats relative (0 = observer).

    hand: uint32[N] own cards; dead_hand: uint32[N] own old hand if the observer
    swapped, else 0; played: uint32[N, 3] cards each seat has played this deal;
    trick_cards: uint32[N, 6] cards of trick k; trick: int8[N, 3] card each seat
    put in the current trick (-1 none); trick_number: int8[N] tricks completed;
    leader, led_suit: int8[N] of the current trick (-1 none); swapper, declarer,
    dealer: int8[N] (-1 none); bids: int8[N, 4] seat that bid 3, 4, 5, moon;
    passed_at: int8[N, 3] high-bid index (0 none, 1..3) when the seat passed, -1;
    high_bid: int8[N] 0, 3..6; trump: int8[N] (-1 not named); phase: int8[N];
    tricks_won: int8[N, 3]; scores: int32[N, 3]; deal_number: int32[N];
    voids: bool[N, 3, 4] seat has shown it holds no card of effective suit s;
    unseen: uint32[N] cards the observer cannot place; sizes: int64[N, 4] number
    of unseen cards in each place (seat 0 always 0, seats 1 and 2, out of play).
    """

    hand: np.ndarray
    dead_hand: np.ndarray
    played: np.ndarray
    trick_cards: np.ndarray
    trick: np.ndarray
    trick_number: np.ndarray
    leader: np.ndarray
    led_suit: np.ndarray
    swapper: np.ndarray
    declarer: np.ndarray
    dealer: np.ndarray
    bids: np.ndarray
    passed_at: np.ndarray
    high_bid: np.ndarray
    trump: np.ndarray
    phase: np.ndarray
    tricks_won: np.ndarray
    scores: np.ndarray
    deal_number: np.ndarray
    voids: np.ndarray
    unseen: np.ndarray
    sizes: np.ndarray


def bool_to_mask(cards):
    """bool[..., 24] -> uint32[...] card masks (inverse of ``cards.mask_to_bool``)."""
    packed = np.packbits(np.asarray(cards, dtype=bool), axis=-1, bitorder="little")
    words = np.zeros((*packed.shape[:-1], 4), np.uint8)
    words[..., :3] = packed
    return words.view("<u4")[..., 0].astype(HAND_DTYPE)


def _field(obs, name, *shape):
    start, stop = OBS_OFFSETS[name]
    return obs[:, start:stop].reshape(len(obs), *shape) > 0.5


def _index_or_none(one_hot):
    """bool[..., K] one-hot (or all False) -> int8[...] index, -1 where none is set."""
    return np.where(one_hot.any(axis=-1), one_hot.argmax(axis=-1), -1).astype(np.int8)


def _card_of(single_bit_masks):
    """uint32[...] masks holding at most one card -> int8[...] card id, -1 for empty."""
    masks = np.asarray(single_bit_masks, dtype=HAND_DTYPE)
    ids = np.bitwise_count(np.where(masks == 0, 0, masks - HAND_DTYPE(1)))
    return np.where(masks == 0, NO_CARD, ids).astype(np.int8)


def read_knowledge(obs, game):
    """Read observations float32[N, 390] of the seat to act into a SeatKnowledge.

    game: the ``GhostEuchre`` whose rules produced the observations (its
    ``allow_renege``, ``target_score`` and ``max_deals`` are used).
    """
    obs = np.asarray(obs, dtype=np.float32)
    n = len(obs)
    if obs.ndim != 2 or obs.shape[1] != game.obs_size:
        raise ValueError(f"observations must be float32[N, {game.obs_size}], got shape {obs.shape}")
    rules = game.rules
    hand = bool_to_mask(_field(obs, "hand", NUM_CARDS))
    dead_hand = bool_to_mask(_field(obs, "dead_hand", NUM_CARDS))
    played = bool_to_mask(_field(obs, "played_by", NUM_PLAYERS, NUM_CARDS))
    trick_cards = bool_to_mask(_field(obs, "played_in_trick", NUM_TRICKS, NUM_CARDS))
    trick_one_hot = _field(obs, "current_trick", NUM_PLAYERS, NUM_CARDS)
    trick = np.where(trick_one_hot.any(axis=2), trick_one_hot.argmax(axis=2), NO_CARD).astype(
        np.int8
    )
    contract = _index_or_none(_field(obs, "contract", 4))
    phase = _index_or_none(_field(obs, "phase", 3))
    phase[phase < 0] = OVER
    trump = _index_or_none(_field(obs, "trump", NUM_SUITS))
    declarer = _index_or_none(_field(obs, "declarer", NUM_PLAYERS))
    leader = np.where(phase == PLAY, _index_or_none(_field(obs, "leader", NUM_PLAYERS)), -1).astype(
        np.int8
    )

    # Replay the tricks: who played what in trick k, who led it, who failed to follow.
    by_seat = _card_of(played[:, :, None] & trick_cards[:, None, :])  # int8[N, 3, 6]
    voids = np.zeros((n, NUM_PLAYERS, NUM_SUITS), bool)
    rows = np.arange(n)
    trick_leader = declarer.astype(np.int64)
    safe_trump = np.maximum(trump, 0).astype(np.int64)
    complete = (by_seat >= 0).all(axis=1)  # bool[N, 6]
    for k in range(NUM_TRICKS):
        cards = by_seat[:, :, k]
        lead_card = cards[rows, np.maximum(trick_leader, 0)]
        started = (phase == PLAY) & (trick_leader >= 0) & (lead_card >= 0)
        led = EFFECTIVE_SUIT[safe_trump, lead_card].astype(np.int64)
        if not rules.allow_renege:  # with reneges allowed, not following proves nothing
            suit_played = EFFECTIVE_SUIT[safe_trump[:, None], cards]
            failed = started[:, None] & (cards >= 0) & (suit_played != led[:, None])
            seat_rows, seats = np.nonzero(failed)
            voids[seat_rows, seats, led[seat_rows]] = True
        done = started & complete[:, k]
        winner = trick_winner(cards[done], safe_trump[done], led[done])
        trick_leader[done] = winner
    led_suit = np.full(n, -1, np.int8)
    leading = (leader >= 0) & (trick[rows, np.maximum(leader, 0)] >= 0)
    led_suit[leading] = EFFECTIVE_SUIT[safe_trump[leading], trick[leading, leader[leading]]]

    swapper = _index_or_none(_field(obs, "swapper", NUM_PLAYERS))
    unseen = ALL_CARDS & ~(hand | dead_hand | np.bitwise_or.reduce(played, axis=1))
    sizes = np.zeros((n, 4), np.int64)
    sizes[:, 1:3] = HAND_SIZE - np.bitwise_count(played[:, 1:3])
    sizes[:, OUT_OF_PLAY] = np.where(swapper == 0, 0, HAND_SIZE)
    start, stop = OBS_OFFSETS["tricks_won"]
    tricks_won = np.rint(obs[:, start:stop] * NUM_TRICKS).astype(np.int8)
    start, stop = OBS_OFFSETS["scores"]
    scores = np.rint(obs[:, start:stop] * rules.target_score).astype(np.int32)
    start, _ = OBS_OFFSETS["deal_progress"]
    deal_number = np.rint(obs[:, start] * rules.max_deals).astype(np.int32)
    return SeatKnowledge(
        hand=hand,
        dead_hand=dead_hand,
        played=played,
        trick_cards=trick_cards,
        trick=trick,
        trick_number=complete.sum(axis=1).astype(np.int8),
        leader=leader,
        led_suit=led_suit,
        swapper=swapper,
        declarer=declarer,
        dealer=_index_or_none(_field(obs, "dealer", NUM_PLAYERS)),
        bids=_index_or_none(_field(obs, "bids", 4, NUM_PLAYERS)),
        passed_at=_index_or_none(_field(obs, "passes", NUM_PLAYERS, 4)),
        high_bid=np.where(contract >= 0, contract + 3, 0).astype(np.int8),
        trump=trump,
        phase=phase,
        tricks_won=tricks_won,
        scores=scores,
        deal_number=deal_number,
        voids=voids,
        unseen=unseen,
        sizes=sizes,
    )


def _binomial_table(size):
    """float64[size + 1, size + 1]: C(n, r), 0 where r > n."""
    table = np.zeros((size + 1, size + 1))
    for n in range(size + 1):
        table[n, 0] = 1.0
        for r in range(1, n + 1):
            table[n, r] = table[n - 1, r - 1] + table[n - 1, r]
    return table


_BINOMIAL = _binomial_table(NUM_CARDS)
_SPLITS = HAND_SIZE + 1  # cards a seat can take from a group: 0..6


def _choose(n, r):
    """C(n, r) elementwise for int arrays, 0 where r < 0 or r > n."""
    valid = (r >= 0) & (r <= n)
    return np.where(valid, _BINOMIAL[np.clip(n, 0, NUM_CARDS), np.clip(r, 0, NUM_CARDS)], 0.0)


def sample_worlds(knowledge, num_worlds, rng):
    """Deal the unseen cards, uniformly over the worlds consistent with ``knowledge``.

    Returns (hands uint32[N, W, 3], out_of_play uint32[N, W]): every seat's
    current hand (seat 0's is its own) and the face-down hand (the observer's own
    dead hand if it swapped). rng: numpy Generator (the only randomness used).

    Exact uniform sampling: each unseen card can go to seat 1 only if seat 1 is
    not void in its effective suit, likewise seat 2, and always out of play (when
    that place has room). So the unseen cards fall into four groups by where they
    may go: A = {seat 1, out}, B = {seat 2, out}, F = {1, 2, out}, O = {out}. A
    world is fixed by how many cards k of A go to seat 1 and m of B to seat 2
    (the rest of seat 1's and seat 2's cards then come from F) and by which
    cards; there are C(a,k) C(b,m) C(f, n1-k) C(f-n1+k, n2-m) worlds with that
    (k, m). We draw (k, m) with that weight and then the cards uniformly within
    each group.
    """
    n = len(knowledge.hand)
    unseen = mask_to_bool(knowledge.unseen)  # bool[N, 24]
    trump = np.maximum(knowledge.trump, 0)
    card_suit = EFFECTIVE_SUIT[trump]  # int8[N, 24]
    rows = np.arange(n)[:, None]
    may_1 = ~knowledge.voids[rows, 1, card_suit]
    may_2 = ~knowledge.voids[rows, 2, card_suit]
    # Group codes, in the order the cards are laid out below: A, B, F, O, then seen cards.
    group = np.select([may_1 & ~may_2, may_2 & ~may_1, may_1 & may_2], [0, 1, 2], 3)
    group = np.where(unseen, group, 4)
    a, b, f = ((group == g).sum(axis=1) for g in range(3))
    n1, n2 = knowledge.sizes[:, 1], knowledge.sizes[:, 2]

    k = np.arange(_SPLITS)[None, :, None]
    m = np.arange(_SPLITS)[None, None, :]
    a_, b_, f_, n1_, n2_ = (x[:, None, None] for x in (a, b, f, n1, n2))
    weight = (
        _choose(a_, k) * _choose(b_, m) * _choose(f_, n1_ - k) * _choose(f_ - n1_ + k, n2_ - m)
    ).reshape(n, -1)  # float64[N, 49]
    total = weight.sum(axis=1)
    if (total <= 0).any():
        bad = int(np.flatnonzero(total <= 0)[0])
        raise ValueError(f"position {bad}: no deal of the unseen cards fits the shown voids")
    cdf = np.cumsum(weight, axis=1) / total[:, None]
    draw = rng.random((n, num_worlds))
    last_possible = weight.shape[1] - 1 - (weight[:, ::-1] > 0).argmax(axis=1)
    split = np.minimum((cdf[:, None, :] <= draw[:, :, None]).sum(axis=2), last_possible[:, None])
    take_1 = (split // _SPLITS)[..., None]  # int[N, W, 1]: cards of A to seat 1
    take_2 = (split % _SPLITS)[..., None]  # cards of B to seat 2

    # Lay the cards out group by group, in uniformly random order within a group.
    order = np.argsort(group[:, None, :] + rng.random((n, num_worlds, NUM_CARDS)), axis=2)
    position = np.arange(NUM_CARDS)
    a3, b3, n13, n23 = (x[:, None, None] for x in (a, b, n1, n2))
    from_f_1 = a3 + b3 + n13 - take_1  # end of seat 1's share of F
    to_1 = (position < take_1) | ((position >= a3 + b3) & (position < from_f_1))
    to_2 = ((position >= a3) & (position < a3 + take_2)) | (
        (position >= from_f_1) & (position < from_f_1 + n23 - take_2)
    )
    bits = CARD_BIT[order]  # uint32[N, W, 24] bit of the card at each position
    unseen_at = np.take_along_axis(np.broadcast_to(unseen[:, None, :], order.shape), order, axis=2)
    hands = np.empty((n, num_worlds, NUM_PLAYERS), HAND_DTYPE)
    hands[:, :, 0] = knowledge.hand[:, None]
    hands[:, :, 1] = np.where(to_1, bits, 0).sum(axis=2, dtype=HAND_DTYPE)
    hands[:, :, 2] = np.where(to_2, bits, 0).sum(axis=2, dtype=HAND_DTYPE)
    out = np.where(unseen_at & ~to_1 & ~to_2, bits, 0).sum(axis=2, dtype=HAND_DTYPE)
    out_of_play = out | knowledge.dead_hand[:, None]
    return hands, out_of_play


def world_states(game, knowledge, hands, out_of_play, rows=None):
    """Engine states (``GhostState``, observer at seat 0) for sampled worlds.

    game: the ``GhostEuchre`` that will play them; hands: uint32[M, 3],
    out_of_play: uint32[M]; rows: int[M] position of each world in
    ``knowledge`` (default 0..M-1). Past reneges are not known to the observer
    and are set to 0 (they only shift points already lost). Fields that only
    matter between deals (dealing keys, chosen deals) are those of a fresh
    game: a world is played to the end of its deal only.
    """
    m = len(hands)
    rows = np.arange(m) if rows is None else np.asarray(rows)
    kn = knowledge
    acted = (kn.passed_at[rows] >= 0) | (kn.bids[rows, :, None] == np.arange(NUM_PLAYERS)).any(
        axis=1
    )
    fields = {
        "deal_number": kn.deal_number[rows],
        "dealer": kn.dealer[rows],
        "scores": kn.scores[rows],
        "hands": np.asarray(hands, HAND_DTYPE),
        "ghost": np.asarray(out_of_play, HAND_DTYPE),
        "phase": kn.phase[rows],
        "player": np.zeros(m, np.int8),
        "swapper": kn.swapper[rows],
        "acted": acted,
        "passed_at": kn.passed_at[rows],
        "bids": kn.bids[rows],
        "high_bid": kn.high_bid[rows],
        "declarer": kn.declarer[rows],
        "trump": kn.trump[rows],
        "leader": kn.leader[rows],
        "led_suit": kn.led_suit[rows],
        "trick": kn.trick[rows],
        "trick_number": kn.trick_number[rows],
        "played_cards": kn.played[rows],
        "trick_cards": kn.trick_cards[rows],
        "tricks_won": kn.tricks_won[rows],
        "reneges": np.zeros((m, NUM_PLAYERS), np.int8),
    }
    fresh = game.init(np.zeros(1, np.uint64))
    for field in dataclasses.fields(GhostState):
        if field.name in fields:
            template = getattr(fresh, field.name)
            fields[field.name] = np.array(
                fields[field.name], dtype=template.dtype
            )  # a copy, engine dtype
        else:
            fields[field.name] = np.repeat(getattr(fresh, field.name), m, axis=0)
    return GhostState(**fields)
