"""Hidden worlds as seen by one seat: reading observations, sampling deals, engine states.

Both variants. A seat's observation is read back into a knowledge record
(:class:`SeatKnowledge` for Ghost Hand, :class:`ClassicKnowledge` for classic
Euchre): the public history of the deal, the seat's own cards and the suits the
other seats have shown void in. :func:`sample_worlds` deals the cards the seat
cannot see over the places they can be, uniformly over every deal consistent
with that knowledge (:func:`sample_places`, exact), and :func:`world_states`
turns sampled worlds into engine states that the engine can play on.

Seats here are *relative to the observer*: seat 0 is the observing seat, seat 1
the next seat clockwise, and so on. A world's engine state uses the relative
seats as its absolute seats, so the observer always sits at seat 0. The games
are symmetric under rotation of the seats, so nothing is lost.

The only hard constraints a seat can know are the cards it has seen and shown
voids: a seat that did not follow the led (effective) suit holds none of it
(with Ghost Hand's ``allow_renege`` a failure to follow proves nothing, so no
voids are inferred). Bids, passes and calls are not used here (soft
information): every consistent world is equally likely, and
:mod:`agents.inference` weights the worlds by them. No card the seat cannot
see is ever fixed.

Ghost Hand: unseen cards go to the hands of seats 1 and 2 (six minus the cards
each has played) and, unless the observer itself swapped, the six face-down
cards out of play (the ghost hand while nobody has swapped; the dead hand of
whoever swapped).

Classic: unseen cards go to the hands of seats 1 to 3 (five minus the cards
each has played; a partner sitting out a lone hand keeps five, shows no void
and plays none) and out of play: the three face-down cards of the kitty, plus
the dealer's discard when the upcard was ordered up and the observer is not
the dealer. The upcard is seen by all: face up during round 1, turned down
after it, and once ordered up it is in the dealer's hand until the dealer
plays it (a place known to every seat, so it is fixed there, not sampled). The
dealer knows its own discard; every other seat samples it uniformly from the
out-of-play cards.
"""

import dataclasses
from typing import overload

import numpy as np

from ghost_euchre_env import classic, ghost, variants
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

OUT_OF_PLAY = 3  # Ghost Hand: place index of the face-down hand (after seats 0..2)
CLASSIC_OUT = 4  # classic: place index of the out-of-play cards (after seats 0..3)
_CARD_BIT_OR_NONE = np.append(CARD_BIT, HAND_DTYPE(0))  # index -1 (no card) -> empty mask


# ------------------------------------------------------------------ reading
def _times(fraction, scale, dtype):
    """A fractional observation field (a value divided by ``scale``) times ``scale``, rounded, as ``dtype``."""
    return np.rint(fraction * scale).astype(dtype)


def _index_or_none(one_hot):
    """bool[..., K] one-hot (or all False) -> int8[...] index, -1 where none is set."""
    return np.where(one_hot.any(axis=-1), one_hot.argmax(axis=-1), -1).astype(np.int8)


def card_of(single_bit_masks):
    """uint32[...] masks holding at most one card -> int8[...] card id, -1 for empty."""
    masks = np.asarray(single_bit_masks, dtype=HAND_DTYPE)
    ids = np.bitwise_count(np.where(masks == 0, 0, masks - HAND_DTYPE(1)))
    return np.where(masks == 0, NO_CARD, ids).astype(np.int8)


def _replay_tricks(played, trick_cards, first_leader, trump, players, infer_voids):
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


def _led_suit(trick, leader, trump):
    """int8[N]: effective suit of the current trick's first card (-1 before it is led).

    trick: int8[N, S] card per seat (-1 none); leader, trump: int8[N] (-1 none).
    """
    rows = np.arange(len(trick))
    lead_card = trick[rows, np.maximum(leader, 0)]
    leading = (leader >= 0) & (lead_card >= 0)
    return np.where(leading, EFFECTIVE_SUIT[np.maximum(trump, 0), lead_card], -1).astype(np.int8)


@dataclasses.dataclass
class SeatKnowledge:
    """What the observing seat knows in N Ghost Hand positions; seats relative (0 = observer).

    hand: uint32[N] own cards; dead_hand: uint32[N] own old hand if the observer
    swapped, else 0; played: uint32[N, 3] cards each seat has played this deal;
    trick_cards: uint32[N, 6] cards of trick k; trick_leaders: int8[N, 6] seat
    that led trick k (-1 not led yet); trick: int8[N, 3] card each seat put in
    the current trick (-1 none); trick_number: int8[N] tricks completed;
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
    trick_leaders: np.ndarray
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


@dataclasses.dataclass
class ClassicKnowledge:
    """What the observing seat knows in N classic positions; seats relative (0 = observer).

    hand: uint32[N] own cards; upcard: int8[N]; ordered: bool[N] the upcard was
    ordered up (the dealer picked it up); own_discard: int8[N] the observer's
    discard if it is the dealer and has discarded, else -1; discard_hidden:
    bool[N] the dealer discarded a card the observer did not see; played:
    uint32[N, 4] cards each seat has played this deal; trick_cards: uint32[N, 5]
    cards of trick k; trick_leaders: int8[N, 5] seat that led trick k (-1 not
    led yet); trick: int8[N, 4] card each seat put in the current trick (-1 none); trick_number: int8[N] tricks completed; leader, led_suit: int8[N]
    of the current trick (-1 none); dealer, maker, lone_defender: int8[N] (-1
    none); passes: int8[N] passes this deal; alone: int8[N, 4] the seat's
    alone choice (-1 none, 0 with partner, 1 alone); active: int8[N] bit s set =
    seat s plays this deal; trump: int8[N] (-1 not made); phase: int8[N] the
    engine's phase; tricks_won: int8[N, 4]; scores: int32[N, 2] own team, other
    team; deal_number: int32[N]; voids: bool[N, 4, 4] seat has shown it holds no
    card of effective suit s; fixed: uint32[N, 4] cards the observer knows are
    in another seat's hand (the picked-up upcard at the dealer); unseen:
    uint32[N] cards the observer cannot place; sizes: int64[N, 5] number of
    unseen cards in each place (seat 0 always 0, seats 1..3, out of play).
    """

    hand: np.ndarray
    upcard: np.ndarray
    ordered: np.ndarray
    own_discard: np.ndarray
    discard_hidden: np.ndarray
    played: np.ndarray
    trick_cards: np.ndarray
    trick_leaders: np.ndarray
    trick: np.ndarray
    trick_number: np.ndarray
    leader: np.ndarray
    led_suit: np.ndarray
    dealer: np.ndarray
    maker: np.ndarray
    lone_defender: np.ndarray
    passes: np.ndarray
    alone: np.ndarray
    active: np.ndarray
    trump: np.ndarray
    phase: np.ndarray
    tricks_won: np.ndarray
    scores: np.ndarray
    deal_number: np.ndarray
    voids: np.ndarray
    fixed: np.ndarray
    unseen: np.ndarray
    sizes: np.ndarray


@overload
def read_knowledge(obs, game: classic.ClassicEuchre) -> "ClassicKnowledge": ...
@overload
def read_knowledge(obs, game: ghost.GhostEuchre) -> "SeatKnowledge": ...
def read_knowledge(obs, game):
    """Read observations float32[N, D] of the seats to act into the variant's knowledge.

    game: the ``GhostEuchre`` or ``ClassicEuchre`` whose rules produced the
    observations (its rules options are used). Returns a :class:`SeatKnowledge`
    or a :class:`ClassicKnowledge`.
    """
    obs = np.asarray(obs, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1] != game.obs_size:
        raise ValueError(f"observations must be float32[N, {game.obs_size}], got shape {obs.shape}")
    view = variants.of(game).view(obs)
    if isinstance(game, classic.ClassicEuchre):
        return _read_classic(view, game)
    return _read_ghost(view, game)


def _read_ghost(view, game):
    """SeatKnowledge of Ghost Hand observations (their view)."""
    n = len(view)
    rules = game.rules
    hand, dead_hand = view.mask("hand"), view.mask("dead_hand")
    played, trick_cards = view.mask("played_by"), view.mask("played_in_trick")
    trick = _index_or_none(view.current_trick)
    phase, trump, declarer = view.phase, view.trump, view.declarer
    playing = phase == ghost.PLAY
    leader = np.where(playing, view.leader, -1).astype(np.int8)
    voids, trick_number, trick_leaders = _replay_tricks(
        played,
        trick_cards,
        np.where(playing, declarer, -1),
        trump,
        np.full(n, ghost.NUM_PLAYERS),
        infer_voids=not rules.allow_renege,
    )
    swapper = view.swapper
    unseen = ALL_CARDS & ~(hand | dead_hand | np.bitwise_or.reduce(played, axis=1))
    sizes = np.zeros((n, 4), np.int64)
    sizes[:, 1:3] = ghost.HAND_SIZE - np.bitwise_count(played[:, 1:3])
    sizes[:, OUT_OF_PLAY] = np.where(swapper == 0, 0, ghost.HAND_SIZE)
    return SeatKnowledge(
        hand=hand,
        dead_hand=dead_hand,
        played=played,
        trick_cards=trick_cards,
        trick_leaders=trick_leaders,
        trick=trick,
        trick_number=trick_number,
        leader=leader,
        led_suit=_led_suit(trick, leader, trump),
        swapper=swapper,
        declarer=declarer,
        dealer=view.dealer,
        bids=_index_or_none(view.bids),
        passed_at=_index_or_none(view.passes),
        high_bid=view.contract,
        trump=trump,
        phase=phase,
        tricks_won=view.tricks_won,
        scores=_times(view.scores, rules.target_score, np.int32),
        deal_number=_times(view.deal_progress, rules.max_deals, np.int32),
        voids=voids,
        unseen=unseen,
        sizes=sizes,
    )


# Observation phase (round 1, round 2, discard, alone, play, over) -> engine phase.
_CLASSIC_PHASE = np.array(
    [classic.BIDDING, classic.BIDDING, classic.DISCARD, classic.ALONE, classic.PLAY, classic.OVER],
    np.int8,
)


def _read_classic(view, game):
    """ClassicKnowledge of classic observations (their view)."""
    n = len(view)
    rules = game.rules
    seats = classic.NUM_PLAYERS
    rows = np.arange(n)
    hand, upcard, own_discard = view.mask("hand"), view.upcard, view.discard
    played, trick_cards = view.mask("played_by"), view.mask("played_in_trick")
    trick = _index_or_none(view.current_trick)
    dealer, maker, trump = view.dealer, view.maker, view.trump
    phase = _CLASSIC_PHASE[view.phase]
    passes = view.calls[..., 0].sum(axis=(1, 2)).astype(np.int8)
    choice = view.alone  # [N, seat, (alone, with partner)]
    alone = np.select([choice[..., 0], choice[..., 1]], [1, 0], -1).astype(np.int8)
    plays = ~view.sitting_out  # bool[N, 4]
    active = (plays << np.arange(seats)).sum(axis=1).astype(np.int8)
    defender = (np.arange(seats) - maker[:, None]) % 2 == 1
    lone_defender = _index_or_none((alone == 1) & defender & (maker[:, None] >= 0))

    playing = phase == classic.PLAY
    leader = np.where(playing, view.leader, -1)
    leader = leader.astype(np.int8)
    first_leader = (
        dealer.astype(np.int64) + 1
    ) % seats  # the first seat left of the dealer that plays
    for _ in range(seats - 1):
        first_leader = np.where(plays[rows, first_leader], first_leader, (first_leader + 1) % seats)
    voids, trick_number, trick_leaders = _replay_tricks(
        played,
        trick_cards,
        np.where(playing, first_leader, -1),
        trump,
        plays.sum(axis=1),
        infer_voids=True,
    )

    ordered = (maker >= 0) & (passes < seats)
    upcard_bit = _CARD_BIT_OR_NONE[upcard]
    all_played = np.bitwise_or.reduce(played, axis=1)
    fixed = np.zeros((n, seats), HAND_DTYPE)
    at_dealer = ordered & (dealer > 0) & (all_played & upcard_bit == 0)
    fixed[at_dealer, dealer[at_dealer]] = upcard_bit[at_dealer]
    unseen = ALL_CARDS & ~(hand | all_played | upcard_bit | _CARD_BIT_OR_NONE[own_discard])
    sizes = np.zeros((n, CLASSIC_OUT + 1), np.int64)
    sizes[:, 1:seats] = (
        classic.HAND_SIZE - np.bitwise_count(played[:, 1:]) - np.bitwise_count(fixed[:, 1:])
    )
    sizes[:, CLASSIC_OUT] = np.bitwise_count(unseen) - sizes[:, 1:seats].sum(axis=1)
    return ClassicKnowledge(
        hand=hand,
        upcard=upcard,
        ordered=ordered,
        own_discard=own_discard,
        discard_hidden=ordered & (dealer != 0) & (phase != classic.DISCARD),
        played=played,
        trick_cards=trick_cards,
        trick_leaders=trick_leaders,
        trick=trick,
        trick_number=trick_number,
        leader=leader,
        led_suit=_led_suit(trick, leader, trump),
        dealer=dealer,
        maker=maker,
        lone_defender=lone_defender,
        passes=passes,
        alone=alone,
        active=active,
        trump=trump,
        phase=phase,
        tricks_won=view.tricks_won,
        scores=_times(view.scores, rules.target_score, np.int32),
        deal_number=_times(view.deal_progress, rules.max_deals, np.int32),
        voids=voids,
        fixed=fixed,
        unseen=unseen,
        sizes=sizes,
    )


# ----------------------------------------------------------------- sampling
def sample_places(allowed, sizes, num_worlds, rng):
    """Deal cards to places, uniformly over every deal that fits.

    allowed: bool[N, 24, P], card c may go to place p (a card with no allowed
    place is not dealt); sizes: int[N, P] cards each place receives (they add
    up to the number of dealt cards); rng: numpy Generator or
    :class:`agents.streams.RowRandom` of N rows (the only randomness used; a
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


@overload
def sample_worlds(
    knowledge: ClassicKnowledge, num_worlds, rng
) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...
@overload
def sample_worlds(knowledge: SeatKnowledge, num_worlds, rng) -> tuple[np.ndarray, np.ndarray]: ...
def sample_worlds(knowledge, num_worlds, rng):
    """Deal the unseen cards, uniformly over the worlds consistent with ``knowledge``.

    rng: numpy Generator or :class:`agents.streams.RowRandom` of N rows (the only randomness used). Ghost Hand
    (:class:`SeatKnowledge`) returns (hands uint32[N, W, 3], out_of_play
    uint32[N, W]): every seat's current hand (seat 0's is its own) and the
    face-down hand (the observer's own dead hand if it swapped). Classic
    (:class:`ClassicKnowledge`) returns (hands uint32[N, W, 4], out_of_play
    uint32[N, W], discard int8[N, W]): the hands (the dealer's holds the
    picked-up upcard), the kitty and the dealer's discard, and the discard
    (-1 when there is none yet). Unseen cards may go to a seat unless it has
    shown void in their effective suit, and always out of play.
    """
    if isinstance(knowledge, ClassicKnowledge):
        return _sample_classic(knowledge, num_worlds, rng)
    hands = np.empty((len(knowledge.hand), num_worlds, ghost.NUM_PLAYERS), HAND_DTYPE)
    hands[:, :, 0] = knowledge.hand[:, None]
    places = sample_places(
        _allowed(knowledge, [1, 2]), knowledge.sizes[:, 1:], num_worlds, rng
    )  # seats 1, 2, out of play
    hands[:, :, 1:] = places[..., :2]
    return hands, places[..., 2] | knowledge.dead_hand[:, None]


def _allowed(knowledge, seats):
    """bool[N, 24, len(seats) + 1]: unseen card c may go to each seat (no shown void), and out."""
    unseen = mask_to_bool(knowledge.unseen)  # bool[N, 24]
    card_suit = EFFECTIVE_SUIT[np.maximum(knowledge.trump, 0)]  # int8[N, 24]
    rows = np.arange(len(unseen))[:, None]
    may = [unseen & ~knowledge.voids[rows, seat, card_suit] for seat in seats]
    return np.stack([*may, unseen], axis=2)


def _sample_classic(knowledge, num_worlds, rng):
    """(hands uint32[N, W, 4], out_of_play uint32[N, W], discard int8[N, W]); see sample_worlds."""
    kn = knowledge
    n = len(kn.hand)
    places = sample_places(
        _allowed(kn, [1, 2, 3]), kn.sizes[:, 1:], num_worlds, rng
    )  # seats 1..3, out of play
    hands = np.empty((n, num_worlds, classic.NUM_PLAYERS), HAND_DTYPE)
    hands[:, :, 0] = kn.hand[:, None]
    hands[:, :, 1:] = places[..., :3] | kn.fixed[:, None, 1:]
    out = places[..., 3]
    discard = np.repeat(kn.own_discard[:, None], num_worlds, axis=1)
    if kn.discard_hidden.any():  # any out-of-play card is equally likely to be the discard
        keys = np.where(mask_to_bool(out), rng.random((n, num_worlds, NUM_CARDS)), -1.0)
        discard = np.where(kn.discard_hidden[:, None], keys.argmax(axis=2), discard)
    out_of_play = out | _CARD_BIT_OR_NONE[kn.own_discard][:, None]
    return hands, out_of_play, discard.astype(np.int8)


# ------------------------------------------------------------ engine states
def world_states(game, knowledge, *worlds, rows=None):
    """Engine states (observer at seat 0) for sampled worlds.

    game: the engine that will play them (``GhostEuchre`` or ``ClassicEuchre``);
    worlds: M worlds as :func:`sample_worlds` returns them, one row each (Ghost
    Hand: hands uint32[M, 3], out_of_play uint32[M]; classic: hands uint32[M, 4],
    out_of_play uint32[M], discard int8[M]); rows: int[M] position of each world
    in ``knowledge`` (default 0..M-1). Fields that only matter between deals
    (dealing keys, chosen deals) are those of a fresh game: a world is played to
    the end of its deal only.
    """
    rows = np.arange(len(worlds[0])) if rows is None else np.asarray(rows)
    if isinstance(knowledge, ClassicKnowledge):
        return _states(game, _classic_fields(knowledge, rows, *worlds), len(rows))
    return _states(game, _ghost_fields(knowledge, rows, *worlds), len(rows))


def deal_start_states(game, knowledge, *worlds, rows=None):
    """Engine states of sampled worlds as their deal was dealt, before anybody acted.

    Arguments as :func:`world_states`. Each seat holds the cards it was dealt:
    its current hand and the cards it has played, with a Ghost Hand swap
    undone (the swapper's dead hand back in its hand, its cards back in the
    ghost hand) and, in classic, the dealer's pick-up undone (the upcard back
    on the table, the discard back in the hand). Replaying the deal's actions
    from these states (:mod:`agents.inference`) reaches :func:`world_states`.
    """
    rows = np.arange(len(worlds[0])) if rows is None else np.asarray(rows)
    hands = worlds[0] | knowledge.played[rows]  # the cards each seat has held this deal
    dealer = knowledge.dealer[rows]
    fields = {
        "deal_number": knowledge.deal_number[rows],
        "dealer": dealer,
        "scores": knowledge.scores[rows],
        "hands": hands,
    }
    if isinstance(knowledge, ClassicKnowledge):
        discard = worlds[2]
        ordered = np.flatnonzero(knowledge.ordered[rows])
        picked_up = dealer[ordered]
        hands[ordered, picked_up] = (
            hands[ordered, picked_up] & ~CARD_BIT[knowledge.upcard[rows[ordered]]]
        ) | _CARD_BIT_OR_NONE[discard[ordered]]
        fields |= {"held": hands, "upcard": knowledge.upcard[rows], "phase": classic.BIDDING}
    else:
        ghost_hand = worlds[1].copy()
        swapper = knowledge.swapper[rows]
        swapped = np.flatnonzero(swapper >= 0)
        seat = swapper[swapped]
        ghost_hand[swapped] = hands[swapped, seat]
        hands[swapped, seat] = worlds[1][swapped]
        fields |= {"ghost": ghost_hand, "phase": ghost.AUCTION}
    fields["player"] = (dealer + 1) % game.num_players
    return _states(game, fields, len(rows))


def _states(game, fields, num_games):
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


def _ghost_fields(kn, rows, hands, out_of_play):
    """GhostState fields of Ghost Hand worlds. Past reneges are not known to the
    observer and are set to 0 (they only shift points already lost)."""
    acted = (kn.passed_at[rows] >= 0) | (kn.bids[rows, :, None] == np.arange(3)).any(axis=1)
    return {
        "deal_number": kn.deal_number[rows],
        "dealer": kn.dealer[rows],
        "scores": kn.scores[rows],
        "hands": hands,
        "ghost": out_of_play,
        "phase": kn.phase[rows],
        "player": np.zeros(len(rows)),
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
        "reneges": np.zeros((len(rows), ghost.NUM_PLAYERS)),
    }


def _classic_fields(kn, rows, hands, out_of_play, discard):
    """ClassicState fields of classic worlds (the kitty, ``out_of_play``, is not engine state)."""
    del out_of_play
    return {
        "deal_number": kn.deal_number[rows],
        "dealer": kn.dealer[rows],
        "scores": kn.scores[rows],
        "hands": hands,
        "held": hands | kn.played[rows],
        "upcard": kn.upcard[rows],
        "discard": discard,
        "phase": kn.phase[rows],
        "player": np.zeros(len(rows)),
        "passes": kn.passes[rows],
        "maker": kn.maker[rows],
        "trump": kn.trump[rows],
        "alone": kn.alone[rows],
        "lone_defender": kn.lone_defender[rows],
        "active": kn.active[rows],
        "leader": kn.leader[rows],
        "led_suit": kn.led_suit[rows],
        "trick": kn.trick[rows],
        "trick_number": kn.trick_number[rows],
        "trick_cards": kn.trick_cards[rows],
        "tricks_won": kn.tricks_won[rows],
    }
