"""An exact solver of known hands: the value of every legal card to the end of the deal.

Once trump is set (and in Ghost Hand the swap is done) and every card is known,
the rest of a deal is a game of perfect information: this module searches it
to the end and scores it with the engine's own score table
(:mod:`ghost_euchre_env.kernels.scoring`), so a card's value is in the deal's
points. The search is a compiled (Numba) alpha-beta over card plays:

- **Classic**: two teams, zero-sum. A card's value is the points of the mover's
  team minus the other team's (only one team scores in a deal, so +2 reads
  "my team scores 2", -1 "the other team scores 1"). Lone hands are played
  as the engine plays them (the partner sits out, its cards take no part).
- **Ghost Hand**: three players who each score, so best play needs a
  solution concept (``concept=``). "relative" (the default): the mover
  maximizes its points minus the mean of the other two seats' (the objective
  of ``pimc`` and ``search``) while the other two play together to minimize
  it: the paranoid search made zero-sum. "paranoid": the same on the mover's
  own points. "maxn": every seat maximizes its own points (among cards of
  equal value to it a seat plays the first in the order clubs, diamonds,
  hearts, spades by the suit the card counts as, then strongest first); the
  value is the mover's points on that line. "relative" was chosen by measured
  strength (``docs/solver.md``). With ``allow_renege`` every card in hand is
  legal and a card that breaks the follow-suit rule carries the engine's
  ``renege_penalty``.

Speed comes from a transposition table at the start of each trick (keyed by
every hand, the leader and what of the tricks so far still matters to the
score), move ordering (cards that take the trick first, the lowest of them
first) and equivalent cards: touching cards of one suit in one hand, counting
cards no longer in play (played in earlier tricks, the ghost or dead hand, a
sitting-out partner's, the kitty) as gaps, are searched once and share a value.

Public API: :func:`solve` (engine state in, float64[M, 24] values out),
:func:`position_value` (the value of the position itself, for one seat),
:func:`best_cards`, :func:`in_play`, and :func:`solve_position` for positions
given as plain arrays.
"""

import threading

import numpy as np
from numba import njit

from .cards import EFFECTIVE_SUIT, NUM_CARDS, NUM_SUITS, STRENGTH, SUIT_MASK
from .kernels.cards import effective_suit, playable, strength, trick_winner
from .kernels.scoring import classic_maker_points, ghost_seat_points

NO_VALUE = -np.inf  # the value of a card that is not legal
CONCEPTS = ("paranoid", "relative", "maxn")

# Rows of the ``info`` vector a position carries (int64[INFO_SIZE]).
SCORING, NUM_SEATS, ACTIVE, TRUMP, ROOT, MAKER, BID, MOON_POINTS, MOON_SET = range(9)
RENEGE_PENALTY, ALLOW_RENEGE, MAKER_ALONE, LONE_DEFENDER, CONCEPT = range(9, 14)
INFO_SIZE = 14
_ROWS = {  # the rows a variant's position fills in by name (core.Solving)
    "active": ACTIVE,
    "maker": MAKER,
    "bid": BID,
    "moon_points": MOON_POINTS,
    "moon_set": MOON_SET,
    "renege_penalty": RENEGE_PENALTY,
    "allow_renege": ALLOW_RENEGE,
    "maker_alone": MAKER_ALONE,
    "lone_defender": LONE_DEFENDER,
}
SEAT_SCORING, TEAM_SCORING = 0, 1  # info[SCORING]: each seat its own points; a team's
PARANOID, RELATIVE, MAXN = 0, 1, 2
_ILLEGAL = np.iinfo(np.int32).min  # the kernels' NO_VALUE

_INFINITY = 1 << 20
_MAX_DEPTH = 24  # plays in a deal, at most 20 (classic), plus one
_MAX_MOVES = 8  # cards in a hand, at most 6
_TABLE_BITS = 17
# Roots searched before the table is cleared (the generation is part of a key: it must fit).
_GENERATIONS = (1 << 11) - 1


def _suit_order_table():
    """(int64[4, 4, 8], int64[4, 4]): cards of effective suit s under trump t, strongest first; how many."""
    order = np.full((NUM_SUITS, NUM_SUITS, 8), -1, np.int64)
    count = np.zeros((NUM_SUITS, NUM_SUITS), np.int64)
    for trump in range(NUM_SUITS):
        for suit in range(NUM_SUITS):
            cards = [c for c in range(NUM_CARDS) if EFFECTIVE_SUIT[trump, c] == suit]
            cards.sort(key=lambda c, t=trump, s=suit: -int(STRENGTH[t, s, c]))
            order[trump, suit, : len(cards)] = cards
            count[trump, suit] = len(cards)
    return order, count


_ORDER, _ORDER_LEN = _suit_order_table()
_SUIT_MASK = SUIT_MASK.astype(np.int64)


# ---------------------------------------------------------------------- the search kernel
@njit(cache=True)
def _next_seat(seat, info):
    """The next seat clockwise that plays this deal."""
    seats = info[NUM_SEATS]
    nxt = (seat + 1) % seats
    while not (info[ACTIVE] >> nxt) & 1:
        nxt = (nxt + 1) % seats
    return nxt


@njit(cache=True)
def _seat_points(seat, tricks, reneges, info):
    """Ghost Hand: the deal points of ``seat``; classic: its team's points minus the other team's."""
    if info[SCORING] == SEAT_SCORING:
        return ghost_seat_points(
            seat,
            tricks,
            reneges,
            info[MAKER],
            info[BID],
            info[MOON_POINTS],
            info[MOON_SET],
            info[RENEGE_PENALTY],
        )
    team = info[MAKER] & 1
    signed = classic_maker_points(
        tricks[team] + tricks[team + 2], info[MAKER_ALONE] != 0, info[LONE_DEFENDER] != 0
    )
    return signed if (seat & 1) == team else -signed


@njit(cache=True)
def _root_value(tricks, reneges, info):
    """The root's value at the end of the deal: its points (classic: its team's minus the other
    team's); concept "relative": twice its points minus the other two seats' (an integer)."""
    root = info[ROOT]
    own = _seat_points(root, tricks, reneges, info)
    if info[SCORING] == SEAT_SCORING and info[CONCEPT] == RELATIVE:
        others = np.int64(0)
        for seat in range(3):
            if seat != root:
                others += _seat_points(seat, tricks, reneges, info)
        return 2 * own - others
    return own


@njit(cache=True)
def _same_side(seat, other, info):
    """Whether two seats play together: classic partners; in Ghost Hand (paranoid) the root's opponents."""
    if info[SCORING] == TEAM_SCORING:
        return (seat & 1) == (other & 1)
    root = info[ROOT]
    return (seat == root) == (other == root)


@njit(cache=True)
def _score_key(tricks, reneges, info):
    """What of the deal so far still changes the root's value (a part of the table's key)."""
    if info[SCORING] == TEAM_SCORING:
        team = info[MAKER] & 1
        return tricks[team] + tricks[team + 2]
    if info[CONCEPT] != PARANOID:  # every seat's score matters
        return (
            tricks[0]
            | tricks[1] << 3
            | tricks[2] << 6
            | reneges[0] << 9
            | reneges[1] << 12
            | reneges[2] << 15
        )
    root = info[ROOT]
    return tricks[root] | reneges[root] << 3


@njit(cache=True)
def _moves(hands, trick, player, led, info, out):
    """Legal cards of ``player``, one per class of equivalent cards, into ``out``; how many.

    Two cards of one effective suit in one hand are equivalent when no card
    between them in that suit's order is still in play (in an active hand or
    in the current trick): they take the same tricks whatever is played.
    """
    trump = info[TRUMP]
    hand = hands[player]
    legal = hand if info[ALLOW_RENEGE] else np.int64(playable(hand, led, trump))
    in_play = np.int64(0)
    for seat in range(info[NUM_SEATS]):
        if (info[ACTIVE] >> seat) & 1:
            in_play |= hands[seat]
        if trick[seat] >= 0:
            in_play |= np.int64(1) << trick[seat]
    others = in_play & ~hand
    count = 0
    for suit in range(NUM_SUITS):
        if not legal & _SUIT_MASK[trump, suit]:
            continue
        touching = False
        for k in range(_ORDER_LEN[trump, suit]):
            card = _ORDER[trump, suit, k]
            bit = np.int64(1) << card
            if legal & bit:
                if not touching:
                    out[count] = card
                    count += 1
                touching = True
            elif others & bit:
                touching = False
    return count


@njit(cache=True)
def _order_moves(moves, count, trick, player, leader, led, info):
    """Sort ``moves[:count]`` best first: on a lead the strongest; when following, the lowest
    card that takes the trick from the other side, else the lowest card."""
    trump = info[TRUMP]
    keys = np.empty(_MAX_MOVES, np.int64)
    best, winner = -1, leader
    if led >= 0:
        for seat in range(info[NUM_SEATS]):
            if trick[seat] >= 0:
                s = strength(trick[seat], trump, led)
                if s > best:
                    best, winner = s, seat
    partner_wins = led >= 0 and _same_side(winner, player, info)
    for i in range(count):
        card = moves[i]
        if led < 0:
            keys[i] = strength(card, trump, effective_suit(card, trump))
        else:
            s = strength(card, trump, led)
            keys[i] = 100 - s if (s > best and not partner_wins) else -s
    for i in range(1, count):  # insertion sort, descending keys
        key, card = keys[i], moves[i]
        j = i - 1
        while j >= 0 and keys[j] < key:
            keys[j + 1], moves[j + 1] = keys[j], moves[j]
            j -= 1
        keys[j + 1], moves[j + 1] = key, card


@njit(cache=True)
def _table_slot(key1, key2, bits):
    mixed = key1 * np.int64(-7046029254386353131) ^ key2 * np.int64(-4658895280553007687)
    return (mixed >> (64 - bits)) & ((np.int64(1) << bits) - 1)


@njit(cache=True)
def _play(hands, trick, tricks, reneges, player, leader, led, card, info):
    """Play ``card`` for ``player``: (next player, next leader, led suit, trick winner or -1, renege)."""
    trump = info[TRUMP]
    bit = np.int64(1) << card
    renege = info[ALLOW_RENEGE] != 0 and (np.int64(playable(hands[player], led, trump)) & bit) == 0
    hands[player] ^= bit
    if renege:
        reneges[player] += 1
    trick[player] = card
    if led < 0:
        led = effective_suit(card, trump)
    nxt = _next_seat(player, info)
    if nxt != leader:
        return nxt, leader, led, -1, renege
    winner = trick_winner(trick[: info[NUM_SEATS]], trump, led)
    tricks[winner] += 1
    return winner, winner, -1, winner, renege


# The fields of a search frame (one row of ``work[0]`` per depth).
_LEADER, _PLAYER, _LED, _ALPHA, _BETA, _WINDOW_LOW, _WINDOW_HIGH, _COUNT, _NEXT = range(9)
_KEY1, _KEY2, _SLOT, _CARD, _WINNER, _RENEGE, _BEST, _MAXIMIZE = range(9, 17)
_FRAME_SIZE = 17
_ENTER, _NEXT_CHILD, _RETURN = 0, 1, 2


@njit(cache=True)
def _search(hands, trick, tricks, reneges, info, leader, player, led, alpha, beta, work, table):
    """The root's value of a position: alpha-beta (fail-soft) in (alpha, beta), or max-n.

    Paranoid / zero-sum: returns the root's value. Max-n (``info[CONCEPT]``,
    Ghost Hand): returns the root's points and leaves every seat's in
    ``work[4][0]``. An explicit stack of frames, not recursion (Numba cannot
    cache recursive functions). The position is restored before it returns.
    """
    frames, moves, saved, line_points, result = work
    ret = result[0]
    keys, bounds = table
    maxn = info[CONCEPT] == MAXN and info[SCORING] == SEAT_SCORING
    root = info[ROOT]
    depth = 0
    frame = frames[0]
    frame[_LEADER], frame[_PLAYER], frame[_LED] = leader, player, led
    frame[_ALPHA], frame[_BETA] = alpha, beta
    mode = _ENTER
    value = np.int64(0)
    while True:
        frame = frames[depth]
        if mode == _ENTER:
            player, led = frame[_PLAYER], frame[_LED]
            mode = _NEXT_CHILD
            if led < 0:  # the start of a trick: the end of the deal, or the table
                if hands[player] == 0:
                    if maxn:
                        for seat in range(3):
                            ret[seat] = _seat_points(seat, tricks, reneges, info)
                    value = _root_value(tricks, reneges, info)
                    mode = _RETURN
                else:
                    score = _score_key(tricks, reneges, info)
                    key1 = (
                        hands[0]
                        | hands[1] << 24
                        | np.int64(frame[_LEADER]) << 48
                        | (score & 0x3FFF) << 50
                    )
                    key2 = hands[2] | hands[3] << 24 | (score >> 14) << 48 | keys[0, 0] << 52
                    slot = _table_slot(key1, key2, _TABLE_BITS) + 1
                    frame[_KEY1], frame[_KEY2], frame[_SLOT] = key1, key2, slot
                    if keys[slot, 0] == key1 and keys[slot, 1] == key2:
                        low, high = bounds[slot, 0], bounds[slot, 1]
                        if maxn:
                            for seat in range(3):
                                ret[seat] = bounds[slot, seat]
                            value, mode = ret[root], _RETURN
                        elif low >= frame[_BETA] or low == high:
                            value, mode = low, _RETURN
                        elif high <= frame[_ALPHA]:
                            value, mode = high, _RETURN
                        else:
                            frame[_ALPHA] = max(frame[_ALPHA], low)
                            frame[_BETA] = min(frame[_BETA], high)
            if mode == _NEXT_CHILD:
                frame[_WINDOW_LOW], frame[_WINDOW_HIGH] = frame[_ALPHA], frame[_BETA]
                count = _moves(hands, trick, player, led, info, moves[depth])
                if maxn:  # searched in the order of _moves: ties go to the first
                    line_points[depth, player] = -_INFINITY
                else:
                    _order_moves(moves[depth], count, trick, player, frame[_LEADER], led, info)
                maximize = _same_side(player, root, info)
                frame[_MAXIMIZE] = maximize
                frame[_BEST] = -_INFINITY if maximize else _INFINITY
                frame[_COUNT], frame[_NEXT] = count, 0
        elif mode == _RETURN:
            if depth == 0:
                return value
            depth -= 1
            frame = frames[depth]
            player = frame[_PLAYER]
            winner = frame[_WINNER]
            if winner >= 0:
                tricks[winner] -= 1
            for seat in range(4):
                trick[seat] = saved[depth, seat]
            if frame[_RENEGE]:
                reneges[player] -= 1
            hands[player] |= np.int64(1) << frame[_CARD]
            if maxn:
                if ret[player] > line_points[depth, player]:
                    for seat in range(3):
                        line_points[depth, seat] = ret[seat]
            elif frame[_MAXIMIZE]:
                frame[_BEST] = max(frame[_BEST], value)
                frame[_ALPHA] = max(frame[_ALPHA], value)
            else:
                frame[_BEST] = min(frame[_BEST], value)
                frame[_BETA] = min(frame[_BETA], value)
            mode = _NEXT_CHILD
        if mode == _RETURN:  # a leaf, or a table entry that settles the value
            continue
        # mode == _NEXT_CHILD: play the next card of this frame, or close the frame
        if frame[_NEXT] < frame[_COUNT] and (maxn or frame[_ALPHA] < frame[_BETA]):
            player, leader, led = frame[_PLAYER], frame[_LEADER], frame[_LED]
            card = moves[depth, frame[_NEXT]]
            frame[_NEXT] += 1
            for seat in range(4):
                saved[depth, seat] = trick[seat]
            nxt, nxt_leader, nxt_led, winner, renege = _play(
                hands, trick, tricks, reneges, player, leader, led, card, info
            )
            if winner >= 0:
                for seat in range(4):
                    trick[seat] = -1
            frame[_CARD], frame[_WINNER], frame[_RENEGE] = card, winner, renege
            child = frames[depth + 1]
            child[_LEADER], child[_PLAYER], child[_LED] = nxt_leader, nxt, nxt_led
            child[_ALPHA], child[_BETA] = frame[_ALPHA], frame[_BETA]
            depth += 1
            mode = _ENTER
            continue
        # every child searched (or a cut-off): the frame's value, into the table at a trick's start
        slot = frame[_SLOT]
        if maxn:
            for seat in range(3):
                ret[seat] = line_points[depth, seat]
            value = ret[root]
            if frame[_LED] < 0:
                keys[slot, 0], keys[slot, 1] = frame[_KEY1], frame[_KEY2]
                for seat in range(3):
                    bounds[slot, seat] = ret[seat]
        else:
            value = frame[_BEST]
            if frame[_LED] < 0:
                low, high = -_INFINITY, _INFINITY
                if keys[slot, 0] == frame[_KEY1] and keys[slot, 1] == frame[_KEY2]:
                    low, high = bounds[slot, 0], bounds[slot, 1]
                if value <= frame[_WINDOW_LOW]:
                    high = min(high, value)
                elif value >= frame[_WINDOW_HIGH]:
                    low = max(low, value)
                else:
                    low = high = value
                keys[slot, 0], keys[slot, 1] = frame[_KEY1], frame[_KEY2]
                bounds[slot, 0], bounds[slot, 1] = low, high
        mode = _RETURN


@njit(cache=True)
def _new_generation(table):
    """Entries of earlier roots no longer match: the generation is part of every key."""
    keys = table[0]
    if keys[0, 0] >= _GENERATIONS:  # the generation would overflow its bits: start afresh
        keys[1:, :] = -1
        keys[0, 0] = 0
    keys[0, 0] += 1


@njit(cache=True)
def _solve_one(hands, trick, tricks, reneges, info, leader, player, led, work, table, values):
    """The value of every legal card of ``player`` into ``values`` (int32[24]; _ILLEGAL if not legal;
    concept "relative": doubled, to stay an integer)."""
    _new_generation(table)
    if info[ROOT] < 0:  # valued for the seat to move
        info[ROOT] = player
    values[:] = _ILLEGAL
    reps = np.empty(_MAX_MOVES, np.int64)
    count = _moves(hands, trick, player, led, info, reps)
    trump = info[TRUMP]
    hand = hands[player]
    legal = hand if info[ALLOW_RENEGE] else np.int64(playable(hand, led, trump))
    saved = np.empty(4, np.int64)
    for i in range(count):
        card = reps[i]
        for seat in range(4):
            saved[seat] = trick[seat]
        nxt, nxt_leader, nxt_led, winner, renege = _play(
            hands, trick, tricks, reneges, player, leader, led, card, info
        )
        if winner >= 0:
            for seat in range(4):
                trick[seat] = -1
        value = _search(
            hands, trick, tricks, reneges, info, nxt_leader, nxt, nxt_led, -_INFINITY,
            _INFINITY, work, table,
        )  # fmt: skip
        if winner >= 0:
            tricks[winner] -= 1
        for seat in range(4):
            trick[seat] = saved[seat]
        if renege:
            reneges[player] -= 1
        hands[player] |= np.int64(1) << card
        values[card] = value
        # the same value for the cards equivalent to this one: the touching legal cards below it
        suit = effective_suit(card, trump)
        below = False
        for k in range(_ORDER_LEN[trump, suit]):
            other = _ORDER[trump, suit, k]
            bit = np.int64(1) << other
            if other == card:
                below = True
            elif below:
                if legal & bit:
                    values[other] = value
                elif _in_play(hands, trick, info) & bit:
                    break


@njit(cache=True)
def _in_play(hands, trick, info):
    in_play = np.int64(0)
    for seat in range(info[NUM_SEATS]):
        if (info[ACTIVE] >> seat) & 1:
            in_play |= hands[seat]
        if trick[seat] >= 0:
            in_play |= np.int64(1) << trick[seat]
    return in_play


@njit(cache=True)
def _solve_batch(hands, trick, tricks, reneges, info, leader, player, led, work, table):
    """int32[M, 24]: :func:`_solve_one` of every position (arrays with a leading position axis)."""
    values = np.empty((hands.shape[0], NUM_CARDS), np.int32)
    for g in range(hands.shape[0]):
        _solve_one(
            hands[g], trick[g], tricks[g], reneges[g], info[g], leader[g], player[g], led[g],
            work, table, values[g],
        )  # fmt: skip
    return values


@njit(cache=True)
def _value_batch(hands, trick, tricks, reneges, info, leader, player, led, work, table):
    """int64[M]: the value of every position for its ``info[ROOT]`` seat, one alpha-beta search
    each (arrays with a leading position axis; concept "relative": doubled)."""
    values = np.empty(hands.shape[0], np.int64)
    for g in range(hands.shape[0]):
        _new_generation(table)
        values[g] = _search(
            hands[g], trick[g], tricks[g], reneges[g], info[g], leader[g], player[g], led[g],
            -_INFINITY, _INFINITY, work, table,
        )  # fmt: skip
    return values


class _Workspace:
    """The search's buffers and transposition table, made once (about 6 MB) and reused."""

    def __init__(self):
        self.work = (
            np.zeros((_MAX_DEPTH, _FRAME_SIZE), np.int64),  # the search's frames
            np.zeros((_MAX_DEPTH, _MAX_MOVES), np.int64),  # moves by depth
            np.zeros((_MAX_DEPTH, 4), np.int64),  # the trick saved by depth
            np.zeros((_MAX_DEPTH, 4), np.int64),  # max-n: the best line's points by depth
            np.zeros((1, 4), np.int64),  # max-n: the points a search returns
        )
        size = (1 << _TABLE_BITS) + 1  # slot 0 holds the generation
        self.table = (np.full((size, 2), -1, np.int64), np.zeros((size, 3), np.int64))
        self.table[0][0, 0] = 0


_LOCAL = threading.local()  # one workspace per thread: solves in several threads do not mix


def _workspace():
    workspace = getattr(_LOCAL, "workspace", None)
    if workspace is None:
        workspace = _LOCAL.workspace = _Workspace()
    return workspace


# ---------------------------------------------------------------------- the public API
def solve_position(hands, trick, tricks, reneges, info, leader, player, led_suit):
    """float64[M, 24]: the value of every legal card of M positions given as plain arrays.

    hands: uint32[M, 4] cards held by seat (a seat absent from the variant or
    sitting out: anything, it is ignored); trick: int8[M, 4] card each seat put
    in the current trick (-1 none); tricks, reneges: int[M, 4] tricks taken and
    reneges made so far this deal; info: int64[M, INFO_SIZE] (the rules and
    the contract, as :func:`position_arrays` fills it; its ``ROOT`` column is
    the seat whose points are valued, -1 for the seat to move); leader,
    player, led_suit: int[M] the seat that led the current trick, the seat to
    play, the effective suit led (-1 when leading). Cards that are not legal
    get ``NO_VALUE`` (-inf).
    """
    info, arrays = _kernel_arrays(hands, trick, tricks, reneges, info, leader, player, led_suit)
    raw = _solve_batch(*arrays)
    values = raw.astype(np.float64)
    values[raw == _ILLEGAL] = NO_VALUE
    return _undoubled(values, info)


def _kernel_arrays(hands, trick, tricks, reneges, info, leader, player, led_suit):
    """(info int64[M, INFO_SIZE], the kernels' arguments): the position's arrays as int64 copies
    (the search plays on them), then this thread's workspace."""
    workspace = _workspace()
    info = np.asarray(info, np.int64).reshape(-1, INFO_SIZE).copy()
    arrays = (
        *(np.asarray(a, np.int64).reshape(-1, 4).copy() for a in (hands, trick, tricks, reneges)),
        info,
        *(np.asarray(a, np.int64).reshape(-1) for a in (leader, player, led_suit)),
        workspace.work,
        workspace.table,
    )
    return info, arrays


def _undoubled(values, info):
    """float64 values (rows by position) in points: the kernel doubles "relative" values to keep
    them integers."""
    relative = (info[:, CONCEPT] == RELATIVE) & (info[:, SCORING] == SEAT_SCORING)
    values[relative] /= 2
    return values


def _solving(engine):
    solving = getattr(type(engine).variant, "solving", None)
    if solving is None:
        raise ValueError(
            f"solve needs the engine of a declared variant, got {type(engine).__name__}"
        )
    return solving


def position_arrays(engine, state, games=None, concept="relative", seat=None):
    """The solver's input (the arguments of :func:`solve_position`) for ``games`` of an engine state.

    seat: None (value each game for the seat to move) or int[M] / an int, the
    seat whose points are valued (its team's in classic).

    ValueError unless every game is in its play phase (trump set: in Ghost Hand
    the swap is then done) and the concept is one of ``CONCEPTS``.
    """
    if concept not in CONCEPTS:
        raise ValueError(f"concept must be one of {list(CONCEPTS)}, got {concept!r}")
    solving = _solving(engine)
    games = np.arange(state.num_games) if games is None else np.asarray(games, np.intp)
    play_phase = type(engine).variant.play_phase
    if not np.all(state.phase[games] == play_phase):
        bad = int(games[np.flatnonzero(state.phase[games] != play_phase)[0]])
        raise ValueError(
            f"game {bad} is not in its play phase; the solver starts once trump is set"
        )
    m, seats = len(games), engine.num_players
    hands = np.zeros((m, 4), np.int64)
    trick = np.full((m, 4), -1, np.int64)
    tricks = np.zeros((m, 4), np.int64)
    reneges = np.zeros((m, 4), np.int64)
    hands[:, :seats] = state.hands[games]
    trick[:, :seats] = state.trick[games]
    tricks[:, :seats] = state.tricks_won[games]
    info = np.zeros((m, INFO_SIZE), np.int64)
    info[:, SCORING] = TEAM_SCORING if solving.team_scoring else SEAT_SCORING
    info[:, NUM_SEATS] = seats
    info[:, TRUMP] = state.trump[games]
    info[:, ROOT] = -1 if seat is None else seat
    if not solving.team_scoring:
        info[:, CONCEPT] = CONCEPTS.index(concept)
    for row, values in solving.position(engine, state, games).items():
        if row == "reneges":
            reneges[:, :seats] = values
        else:
            info[:, _ROWS[row]] = values
    return (
        hands,
        trick,
        tricks,
        reneges,
        info,
        state.leader[games],
        state.player[games],
        state.led_suit[games],
    )


def in_play(engine, state, games=None):
    """bool[M]: which of ``games`` (int[M]; None: all) are in their play phase, where :func:`solve` applies."""
    games = np.arange(state.num_games) if games is None else np.asarray(games, np.intp)
    _solving(engine)
    return state.phase[games] == type(engine).variant.play_phase


def solve(engine, state, games=None, concept="relative", seat=None):
    """float64[M, 24]: the exact value of every legal card in ``games`` (int[M]; None: all) of ``state``.

    engine: the :class:`~ghost_euchre_env.ghost.GhostEuchre` or
    :class:`~ghost_euchre_env.classic.ClassicEuchre` whose rules the state is
    played under; every game must be in its play phase. The value of card c
    is, after playing it and best play by everyone to the end of the deal, in
    the deal's points: classic, the mover's team's points minus the other
    team's; Ghost Hand, under ``concept``: "paranoid", the mover's own points
    with the two other seats playing together against it; "relative", the
    mover's points minus the mean of the other two seats' (the objective
    ``pimc`` uses), the other two playing together to make it smallest;
    "maxn", the mover's points when each seat plays for its own points. With ``seat`` (an int, or int[M]) the values are that seat's
    points instead (paranoid: that seat against the other two), whoever is to
    move. Cards that are not legal get ``NO_VALUE``. The state is unchanged.
    """
    return solve_position(*position_arrays(engine, state, games, concept, seat))


def position_value(engine, state, games=None, concept="relative", seat=0):
    """float64[M]: the value for ``seat`` (an int or int[M]) of ``games`` of ``state`` as they stand.

    The best of the mover's card values for ``seat`` when the mover plays for
    ``seat`` (it is ``seat``, or its partner in classic), else the worst: what a
    search values a world by, for instance a world's contract at its first
    lead. Concepts "relative" and "paranoid" (under max-n a seat's value is not
    a minimax of its own card values: ValueError). One alpha-beta search of the
    position, so cheaper than :func:`solve`, which values every card exactly.
    """
    if concept == "maxn":
        raise ValueError("position_value takes concept 'relative' or 'paranoid', not 'maxn'")
    info, arrays = _kernel_arrays(*position_arrays(engine, state, games, concept, seat))
    return _undoubled(_value_batch(*arrays).astype(np.float64), info)


def best_cards(values):
    """bool[M, 24]: the legal cards of highest value in each row of :func:`solve`'s values."""
    values = np.asarray(values)
    top = values.max(axis=1, keepdims=True)
    return (values == top) & (values != NO_VALUE)
