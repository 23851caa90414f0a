"""``heuristic``: scripted players, computed with array operations over the batch.

Ghost Hand Euchre (:class:`GhostHeuristic`) reads only the observation and the
legal mask. Its rules, in the order it applies them (the numbers are class
attributes; they were tuned in duplicate matches of variants against the
default, and the card values fitted as said below):

Hand evaluation, for every candidate trump suit t, from the cards held:
  expected tricks = sum of a value per card role (``ROLE_VALUE``: right bower
  1.55, left bower 1.01, A K Q T 9 of trump 0.82 .. 0.6, off-suit ace 0.65,
  off-suit king 0.15, lower off-suit cards about -0.1) + 0.4 per off-suit void
  when holding at least two trumps. These are the rounded least-squares fit of
  the tricks this player's card play takes as declarer against two copies of
  itself, over 150,000 random deals (trump mostly its best suit).

Auction (one decision per call; after a swap the same seat acts again):
  1. MOON when, for the best trump, the hand is *moon-ready* (its trumps from
     the top down, right bower first, skipping cards it knows are dead, run
     unbroken past all outstanding trumps but one, and every off-suit card is an
     ace or a king backed by its ace: about 77% make it) or its expected tricks
     reach 5.5 (``moon_above``). A moon pays +24 against -6, so it is worth
     calling from about one chance in three.
  2. SWAP with the ghost hand (when allowed) if it will not bid, or if its
     expected tricks are below 3.8 (``swap_below``): the ghost hand is unseen, so
     the swap is a gamble, but a random hand is worth more than a weak one, and a
     swap taken is one the later seats cannot take.
  3. Bid the lowest legal level (points come from tricks taken, not from the
     level) if the expected tricks reach that level's threshold
     (``bid_thresholds``: 2.7 for 3, 3.4 for 4, 4.2 for 5).
  4. Otherwise PASS.

Trump: the suit with the most expected tricks.

Card play. ``unseen`` = the cards not held, not played and not in its own dead
hand, so it remembers which trumps and aces are out; a card is *boss* when no
unseen card of its effective suit ranks above it:

  - Leading as declarer: the highest trump, if it is boss and trumps are still
    unseen (drawing trumps); else a boss off-suit card (cashing aces); else the
    cheapest card (never a losing trump lead).
  - Leading as a defender: a boss off-suit card; else a boss trump; else the
    cheapest card.
  - Second to play: the cheapest card that beats the trick so far and is boss;
    else the cheapest card that beats it (win cheaply); else throw off.
  - Last to play: the cheapest card that beats the trick; else throw off.
  - Throwing off: the cheapest card: off-suit cards by rank, then off-suit
    bosses, then trumps from the lowest.
  - It follows suit even when the rules allow reneging (``allow_renege``).

Classic Euchre (:class:`ClassicHeuristic`) is described in its own docstring.

How it runs: each variant's rules are one Numba kernel (``@njit(cache=True)``),
a loop over the games of the batch with one branch per phase, reading the
observation's columns by the variant's layout; ``act`` is one kernel call, for
one game or thousands. Hand values are float32 sums over the cards in card-id
order, compared with the thresholds in float64. ``NUMBA_DISABLE_JIT=1`` runs the
same functions as plain Python. ``playout()`` gives the kernel that plays whole
playouts with these rules inside the engine's loop (``ghost_playout``,
``classic_playout``: ``pimc``'s playouts, one call until a deal ends); ``replay(floor)``
the kernel that weighs a deal's actions by these rules (``ghost_replay``,
``classic_replay`` with ``ghost_weigh``, ``classic_weigh``: ``search``'s inference, one call).
"""

import numpy as np
from numba import njit

from ghost_euchre_env import classic, ghost, variants
from ghost_euchre_env.cards import (
    CARD_RANK,
    CARD_SUIT,
    EFFECTIVE_SUIT,
    JACK,
    NUM_CARDS,
    NUM_SUITS,
    PARTNER_SUIT,
    STRENGTH,
)
from ghost_euchre_env.kernels import classic as classic_kernels
from ghost_euchre_env.kernels import ghost as ghost_kernels
from ghost_euchre_env.kernels.skeleton import (
    one_hot_weights,
    play_until_deals_end,
    replay_and_weigh,
)

from .base import Policy

PARTNER = int(variants.CLASSIC.partner or 0)  # classic: the partner's relative seat (opposite)

SUITS = np.arange(NUM_SUITS)

# ------------------------------------------------------------------ card tables
# Trump ranks from the top: right bower, left bower, A, K, Q, T, 9 (rank ids).
_TRUMP_RANKS = (5, 4, 3, 1, 0)  # A, K, Q, T, 9
_OFF_RANKS = (5, 4, 3, 2, 1, 0)  # A, K, Q, J, T, 9
ROLE_NAMES = (
    "right",
    "left",
    "A",
    "K",
    "Q",
    "T",
    "9",
    "off A",
    "off K",
    "off Q",
    "off J",
    "off T",
    "off 9",
)
# Expected tricks as declarer per card role (same order as ROLE_NAMES).
ROLE_VALUE = np.array(
    [1.55, 1.01, 0.82, 0.73, 0.65, 0.6, 0.6, 0.65, 0.15, -0.01, -0.05, -0.11, -0.12], np.float32
)
VOID_VALUE = np.float32(0.4)  # per off-suit void, when holding at least two trumps


def _role_table():
    """int8[4, 24]: role (index into ROLE_NAMES) of card c when suit t is trump."""
    table = np.empty((NUM_SUITS, NUM_CARDS), np.int8)
    for trump in SUITS:
        for card in range(NUM_CARDS):
            rank, suit = CARD_RANK[card], CARD_SUIT[card]
            if rank == JACK and suit == trump:
                table[trump, card] = 0
            elif rank == JACK and suit == PARTNER_SUIT[trump]:
                table[trump, card] = 1
            elif suit == trump:
                table[trump, card] = 2 + _TRUMP_RANKS.index(rank)
            else:
                table[trump, card] = 7 + _OFF_RANKS.index(rank)
    return table


ROLE = _role_table()
EFF = EFFECTIVE_SUIT[:NUM_SUITS].astype(np.int64)  # [4, 24]: effective suit of card c, trump t
IS_TRUMP = EFF == SUITS[:, None]  # bool[4, 24]
# int64[4, 24]: trick strength of card c when it is led (trump t).
LEAD_STRENGTH = STRENGTH[SUITS[:, None], EFF, np.arange(NUM_CARDS)].astype(np.int64)
# int64[4, 7]: the trump cards of suit t from the top (right bower .. 9).
TRUMP_CARDS = np.ascontiguousarray(
    np.argsort(-np.where(IS_TRUMP, LEAD_STRENGTH, -1), axis=1, kind="stable")[:, :7]
)
# int64[4, 4, 24]: strength of card c in a trick, trump t, effective suit s led.
TRICK_STRENGTH = STRENGTH[:, :, :NUM_CARDS].astype(np.int64)
CARD_VALUE = ROLE_VALUE[ROLE]  # float32[4, 24]: expected tricks of card c with trump t
OFF_NON_ACE = ROLE >= ROLE_NAMES.index("off K")  # bool[4, 24]: an off-suit card below the ace
OFF_KING = ROLE == ROLE_NAMES.index("off K")  # bool[4, 24]
ACE_OF = 5 * NUM_SUITS + CARD_SUIT  # int[24]: the ace of card c's printed suit


def _beaters_table():
    """int64[4, 24]: card mask of the cards of the same effective suit that outrank card c (trump t)."""
    table = np.zeros((NUM_SUITS, NUM_CARDS), np.int64)
    for trump in SUITS:
        for card in range(NUM_CARDS):
            higher = (EFF[trump] == EFF[trump, card]) & (
                LEAD_STRENGTH[trump] > LEAD_STRENGTH[trump, card]
            )
            table[trump, card] = (np.int64(1) << np.flatnonzero(higher)).sum()
    return table


BEATERS = _beaters_table()
# int64[4, 4]: card mask of the cards of effective suit s when t is trump.
SUIT_CARDS = np.array(
    [[(np.int64(1) << np.flatnonzero(EFF[t] == s)).sum() for s in SUITS] for t in SUITS], np.int64
)
# Throw-off cost: off-suit cards by rank (0..5), +10 when boss, +20 when trump (+ trump strength).
THROW_COST = np.where(IS_TRUMP, 20 + LEAD_STRENGTH, CARD_RANK[None, :]).astype(np.int64)
NEVER = 9999  # the cost of a card no rule allows
RULE_STEP = 64  # costs are 0..63: rule k's cards cost 64 * k more than rule k-1's


# ------------------------------------------------------------- reading an observation
# Each kernel takes the variant's ``layout``: int64[K], the first column of each field it reads.
GHOST_FIELDS = (
    "hand",
    "dead_hand",
    "played_by",
    "current_trick",
    "declarer",
    "leader",
    "contract",
    "trump",
    "phase",
)
CLASSIC_FIELDS = (
    "hand",
    "upcard",
    "discard",
    "played_by",
    "current_trick",
    "dealer",
    "maker",
    "leader",
    "sitting_out",
    "trump",
    "phase",
)
(G_HAND, G_DEAD, G_PLAYED, G_TRICK, G_DECLARER, G_LEADER, G_CONTRACT, G_TRUMP, G_PHASE) = range(9)
(
    C_HAND,
    C_UPCARD,
    C_DISCARD,
    C_PLAYED,
    C_TRICK,
    C_DEALER,
    C_MAKER,
    C_LEADER,
    C_SITTING_OUT,
    C_TRUMP,
    C_PHASE,
) = range(11)
# The classic view's phases (round 1, round 2, discard, alone, play; none: over).
C_DISCARD, C_ALONE, C_PLAY, CLASSIC_OVER = (
    variants.CLASSIC_PHASES.index(name) for name in ("discard", "alone", "play", "over")
)


def layout(variant, names):
    """int64[K]: the first observation column of each named field of ``variant``."""
    fields = variant.view_type.fields
    return np.array([fields[name].start for name in names], np.int64)


@njit(cache=True)
def _cards(obs, game, start):
    """Card mask (bit c = card c) of the 24 columns from ``start`` of row ``game``."""
    bits = 0
    for card in range(NUM_CARDS):
        bits |= int(obs[game, start + card] > 0.5) << card
    return bits


@njit(cache=True)
def _blocks(obs, game, start, count):
    """Card mask of ``count`` blocks of 24 columns from ``start`` together."""
    bits = 0
    for block in range(count):
        bits |= _cards(obs, game, start + block * NUM_CARDS)
    return bits


@njit(cache=True)
def _index(obs, game, start, width):
    """The set column (0..width-1) of a one-hot field of row ``game``; -1 when none is set."""
    for k in range(width):
        if obs[game, start + k] > 0.5:
            return k
    return -1


@njit(cache=True)
def _lowest(bits):
    """The lowest card of a mask (0 for an empty mask, as NumPy's argmax of no card)."""
    for card in range(NUM_CARDS):
        if bits >> card & 1:
            return card
    return 0


# ------------------------------------------------------------------ hand evaluation
@njit(cache=True)
def count_cards(mask):
    """The number of cards in a card mask (a population count of 24 bits)."""
    mask = mask - (mask >> 1 & 0x555555)
    mask = (mask & 0x333333) + (mask >> 2 & 0x333333)
    mask = (mask + (mask >> 4)) & 0x0F0F0F
    return (mask + (mask >> 8) + (mask >> 16)) & 0xFF


@njit(cache=True)
def hand_value(hand, trump):
    """float32: expected tricks as declarer of card mask ``hand`` with trump ``trump`` (0..3).

    The cards' role values summed in float32 in card-id order, plus VOID_VALUE per
    void suit when holding at least two trumps (then the trump suit itself is not
    void). The order is fixed, so a hand's value does not depend on the other
    games of its batch (the NumPy heuristic's matrix product took another order
    for a game alone in its phase, and a single env and a vector env could then
    differ on a hand at a threshold). The thresholds compare as the NumPy
    heuristic did: the bid and order-up thresholds in float64, the others in float32.
    """
    total = np.float32(0.0)
    for card in range(NUM_CARDS):
        if hand >> card & 1:
            total += CARD_VALUE[trump, card]
    if count_cards(hand & SUIT_CARDS[trump, trump]) >= 2:
        voids = 0
        for suit in range(NUM_SUITS):
            voids += hand & SUIT_CARDS[trump, suit] == 0
        total += VOID_VALUE * np.float32(voids)
    return total


@njit(cache=True)
def _best_trump(hand):
    """(trump 0..3 with the most expected tricks (the first on ties), those tricks float32)."""
    best, most = 0, hand_value(hand, 0)
    for trump in range(1, NUM_SUITS):
        tricks = hand_value(hand, trump)
        if tricks > most:
            best, most = trump, tricks
    return best, most


@njit(cache=True)
def is_moon_ready(hand, dead, trump):
    """True when, with trump ``trump``, every card of mask ``hand`` is a sure winner once trumps are drawn.

    dead: mask of cards known out of play. Trumps held from the top down,
    skipping dead ones, must run unbroken past all outstanding trumps but one,
    and each off-suit card must be an ace or a king backed by its ace.
    """
    run, known_count, broken = 0, 0, False
    for k in range(7):
        card = TRUMP_CARDS[trump, k]
        held = hand >> card & 1
        known = held | (dead >> card & 1)
        known_count += known
        broken |= known == 0
        if held and not broken:
            run += 1
    outstanding = 7 - known_count
    losers = 0
    for card in range(NUM_CARDS):
        if hand >> card & 1:
            losers += OFF_NON_ACE[trump, card]
            if hand >> ACE_OF[card] & 1:
                losers -= OFF_KING[trump, card]
    return losers < 0.5 and run >= outstanding - 1 and run >= 2


# ------------------------------------------------------------------ card play
@njit(cache=True)
def _boss(card, trump, unseen):
    """No unseen card (mask) of the card's effective suit outranks it."""
    return BEATERS[trump, card] & unseen == 0


@njit(cache=True)
def _cheapest(rule_cards, rule_kinds, costs, rules):
    """The card chosen by the first rule that has a card, the cheapest of its cards.

    rule_cards: int64[R] card masks (0 where the rule does not apply); rule_kinds: int64[R] the
    row of costs int64[K, 24] (0..63) by which each rule ranks its cards; rules: how many are
    used. The key of card c is its cost + 64 * its first rule's index (NEVER for no rule); the
    lowest key wins, the lowest card on ties.
    """
    candidates = 0
    for rule in range(rules):
        candidates |= rule_cards[rule]
    chosen, lowest = 0, NEVER
    for card in range(NUM_CARDS):
        if not candidates >> card & 1:
            continue
        for rule in range(rules):
            if rule_cards[rule] >> card & 1:
                key = costs[rule_kinds[rule], card] + RULE_STEP * rule
                if key < lowest:
                    chosen, lowest = card, key
                break
    return chosen


@njit(cache=True)
def _trick(obs, game, start, seats, leader, trump, seat_best):
    """The current trick of row ``game`` (blocks of 24 columns per relative seat from ``start``).

    Returns (cards on the table: mask, the led effective suit (of card 0 when none is led),
    position: cards played so far, strength int64[24] of each card under the led suit,
    seat_best: int64[seats] (written): the strength of each seat's card, -1 for none).
    """
    led_seat = leader if leader >= 0 else seats - 1  # NumPy's index -1: the last seat
    led_card = _lowest(_cards(obs, game, start + led_seat * NUM_CARDS))
    led = EFF[trump, led_card]
    strength = TRICK_STRENGTH[trump, led]
    on_table = 0
    seat_best[:] = -1
    for seat in range(seats):
        cards = _cards(obs, game, start + seat * NUM_CARDS)
        on_table |= cards
        for card in range(NUM_CARDS):
            if cards >> card & 1:
                seat_best[seat] = max(seat_best[seat], strength[card])
    position = 0
    for card in range(NUM_CARDS):
        position += on_table >> card & 1
    return on_table, led, position, strength, seat_best


@njit(cache=True)
def _card_costs(trump, unseen, strength, legal, costs):
    """(bosses: mask of the cards no unseen card outranks, trumps mask, legal trumps that are boss,
    legal off-suit bosses); costs int64[3, 24] (written): highest first, strength, throw-off."""
    bosses, trumps = 0, 0
    for card in range(NUM_CARDS):
        bit = 1 << card
        boss = _boss(card, trump, unseen)
        if boss:
            bosses |= bit
        if IS_TRUMP[trump, card]:
            trumps |= bit
        costs[0, card] = 27 - LEAD_STRENGTH[trump, card]  # lowest for the highest card
        costs[1, card] = strength[card]
        costs[2, card] = THROW_COST[trump, card] + 10 * (boss and not IS_TRUMP[trump, card])
    return bosses, trumps, legal & trumps & bosses, legal & ~trumps & bosses


@njit(cache=True)
def _legal_cards(mask, game):
    """Card mask of the legal cards of row ``game`` of the legal mask."""
    bits = 0
    for card in range(NUM_CARDS):
        if mask[game, card]:
            bits |= 1 << card
    return bits


@njit(cache=True)
def _beating(legal, strength, best):
    """Mask of the legal cards whose strength beats ``best``."""
    bits = 0
    for card in range(NUM_CARDS):
        if legal >> card & 1 and strength[card] > best:
            bits |= 1 << card
    return bits


@njit(cache=True)
def _phases(obs, start, width, none_as):
    """int64[N]: each game's phase, ``none_as`` where no phase column is set (a finished game)."""
    phases = np.empty(len(obs), np.int64)
    for game in range(len(obs)):
        phase = _index(obs, game, start, width)
        phases[game] = none_as if phase < 0 else phase
    return phases


@njit(cache=True)
def _scratch():
    """Work arrays of a kernel call, reused game after game: (rule_cards int64[7], rule_kinds
    int64[7], costs int64[3, 24], seat_best int64[4]) (see :func:`_cheapest`, :func:`_trick`)."""
    return (
        np.zeros(7, np.int64),
        np.zeros(7, np.int64),
        np.zeros((3, NUM_CARDS), np.int64),
        np.zeros(4, np.int64),
    )


# ------------------------------------------------------------------ Ghost Hand
@njit(cache=True)
def ghost_actions(obs, mask, layout, thresholds, allow_renege, actions):
    """The Ghost Hand heuristic's action of each game (the module docstring's rules).

    obs float32[N, D], mask bool[N, A]; layout int64[9]: the first column of each of
    GHOST_FIELDS; thresholds float64[5]: bids of 3, 4, 5, moon, swap (the class attributes);
    allow_renege: the rules let a player renege (it still follows suit); actions int64[N]: out.
    """
    scratch = _scratch()
    phases = _phases(obs, layout[G_PHASE], 3, ghost.AUCTION)  # over: as the auction
    for game in range(len(obs)):
        phase = phases[game]
        hand = _cards(obs, game, layout[G_HAND])
        if phase == ghost.TRUMP:
            actions[game] = ghost.TRUMP_CLUBS + _best_trump(hand)[0]
        elif phase == ghost.PLAY:
            actions[game] = _ghost_card(obs, mask, layout, allow_renege, game, hand, scratch)
        else:
            actions[game] = _ghost_call(obs, mask, layout, thresholds, game, hand)


@njit(cache=True)
def _ghost_call(obs, mask, layout, thresholds, game, hand):
    """Auction: moon, swap, the lowest bid the hand reaches, or pass."""
    dead = _cards(obs, game, layout[G_DEAD])
    best, expected = _best_trump(hand)
    moon_hand = is_moon_ready(hand, dead, best) or expected >= np.float32(thresholds[3])
    contract = _index(obs, game, layout[G_CONTRACT], 4)  # the high bid: 3..6 (moon), 0 none
    need = max(contract + 4 if contract >= 0 else 1, 3)
    threshold = thresholds[need - 3] if need <= 5 else np.inf
    bid = expected >= threshold
    if moon_hand and mask[game, ghost.MOON]:
        return ghost.MOON
    if mask[game, ghost.SWAP] and (not bid or expected < np.float32(thresholds[4])):
        return ghost.SWAP
    if bid:
        return ghost.BID_3 + min(need, 5) - 3
    return ghost.PASS


@njit(cache=True)
def _ghost_card(obs, mask, layout, allow_renege, game, hand, scratch):
    """Card play: draw trumps or cash bosses when leading, win cheaply, else throw off."""
    seats = ghost.NUM_PLAYERS
    trump = _index(obs, game, layout[G_TRUMP], NUM_SUITS)
    played = _blocks(obs, game, layout[G_PLAYED], seats)
    unseen = ((1 << NUM_CARDS) - 1) & ~(hand | played | _cards(obs, game, layout[G_DEAD]))
    leader = _index(obs, game, layout[G_LEADER], seats)
    rule_cards, rule_kinds, costs, seat_best = scratch
    _, led, position, strength, seat_best = _trick(
        obs, game, layout[G_TRICK], seats, leader, trump, seat_best
    )
    legal = _legal_cards(mask, game)
    if allow_renege and position > 0:  # the mask allows reneges: never play one
        follow = 0
        for card in range(NUM_CARDS):
            if legal >> card & 1 and EFF[trump, card] == led:
                follow |= 1 << card
        if follow:
            legal = follow
    best = seat_best.max()
    beats = _beating(legal, strength, best)
    bosses, trumps, boss_trump, boss_off = _card_costs(trump, unseen, strength, legal, costs)
    declaring = _index(obs, game, layout[G_DECLARER], seats) == 0
    leading = position == 0
    rules = (  # (applies, cards, cost): the first that applies and has a card
        (leading and declaring and unseen & trumps != 0, boss_trump, 0),
        (leading and declaring, boss_off, 0),
        (leading and not declaring, boss_off, 0),
        (leading and not declaring, boss_trump, 0),
        (position == 1, beats & bosses, 1),
        (position > 0, beats, 1),
        (True, legal, 2),
    )
    for k in range(len(rules)):
        applies, cards, cost = rules[k]
        rule_cards[k] = cards if applies else 0
        rule_kinds[k] = cost
    return _cheapest(rule_cards, rule_kinds, costs, len(rules))


class GhostHeuristic(Policy):
    """The scripted Ghost Hand player described in the module docstring."""

    name = "heuristic"
    bid_thresholds = (2.7, 3.4, 4.2)  # expected tricks needed to bid 3, 4, 5
    moon_above = 5.5  # expected tricks that call for the moon even when not moon_ready
    swap_below = 3.8  # swap even a biddable hand when its expected tricks are below this

    def act(self, obs, mask):
        """obs float32[N, D], mask bool[N, A] -> int64[N]: one kernel call (:func:`ghost_actions`)."""
        obs, mask = _batch(self.variant, obs, mask)
        actions = np.zeros(len(obs), np.int64)
        ghost_actions(obs, mask, *self.kernel_args(), actions)
        return actions

    def kernel_args(self):
        """The arguments of :func:`ghost_actions` between the mask and the actions."""
        thresholds = np.array([*self.bid_thresholds, self.moon_above, self.swap_below], np.float64)
        renege = bool(getattr(self.game.rules, "allow_renege", False))
        return _layout(self.variant, GHOST_FIELDS), thresholds, renege

    def playout(self):
        """(:func:`ghost_playout`, :meth:`kernel_args`): this player's compiled playout, for the
        engine's ``play_until_deal_ends``."""
        return ghost_playout, self.kernel_args()

    def replay(self, floor):
        """(:func:`ghost_replay`, its arguments): this player as a compiled model of a seat with
        likelihood floor ``floor``, for the engine's ``replay_and_weigh`` (``search``'s inference)."""
        return ghost_replay, (*self.kernel_args(), one_hot_log_weights(floor, ghost.NUM_ACTIONS))


class ClassicHeuristic(Policy):
    """A scripted classic Euchre player (4 seats, partners opposite), from the observation.

    It uses the Ghost Hand hand evaluation (expected tricks per trump, above) and
    card play, adapted to partnerships. Rules:

    - Round 1 (order up the upcard's suit u): the hand's expected tricks with
      trump u, plus half the upcard's value when the dealer is its partner or
      itself (the dealer takes the upcard; the dealer also drops its worst card),
      minus half of it when the dealer is an opponent; order up from 2.7
      (``order_above``).
    - Round 2: name the best suit other than u from 2.6 (``name_above``); a
      stuck dealer names its best legal suit.
    - Discard (dealer): the cheapest card, off-suit singletons first.
    - Alone: go alone from 4.0 expected tricks (``alone_above``); as a defender
      (``allow_lone_defender``) always play with partner.
    - Play: as the Ghost Hand declarer when its team made trump, as a defender
      otherwise, except that it throws off under its partner's winning card when
      it is last to play or that card is boss. The thresholds were tuned in
      duplicate matches of variants against the default.
    """

    name = "heuristic"
    order_above = 2.7
    name_above = 2.6
    alone_above = 4.0

    def act(self, obs, mask):
        """obs float32[N, D], mask bool[N, A] -> int64[N]: one kernel call (:func:`classic_actions`)."""
        obs, mask = _batch(self.variant, obs, mask)
        actions = np.zeros(len(obs), np.int64)
        classic_actions(obs, mask, *self.kernel_args(), actions)
        return actions

    def kernel_args(self):
        """The arguments of :func:`classic_actions` between the mask and the actions."""
        thresholds = np.array([self.order_above, self.name_above, self.alone_above], np.float64)
        return _layout(self.variant, CLASSIC_FIELDS), thresholds

    def playout(self):
        """(:func:`classic_playout`, :meth:`kernel_args`): this player's compiled playout, for the
        engine's ``play_until_deal_ends``."""
        return classic_playout, self.kernel_args()

    def replay(self, floor):
        """(:func:`classic_replay`, its arguments): as :meth:`GhostHeuristic.replay`."""
        return classic_replay, (
            *self.kernel_args(),
            one_hot_log_weights(floor, classic.NUM_ACTIONS),
        )


@njit(cache=True)
def classic_actions(obs, mask, layout, thresholds, actions):
    """The classic heuristic's action of each game (:class:`ClassicHeuristic`'s rules).

    obs float32[N, D], mask bool[N, A]; layout int64[11]: the first column of each of
    CLASSIC_FIELDS; thresholds float64[3]: order up, name, go alone (the class attributes);
    actions int64[N]: out.
    """
    scratch = _scratch()
    phases = _phases(obs, layout[C_PHASE], CLASSIC_OVER, 0)  # over: as round 1
    for game in range(len(obs)):
        phase = phases[game]
        hand = _cards(obs, game, layout[C_HAND])
        if phase == C_DISCARD:
            actions[game] = _classic_discard(obs, mask, layout, game, hand)
        elif phase == C_ALONE:
            trump = _index(obs, game, layout[C_TRUMP], NUM_SUITS)
            maker = _index(obs, game, layout[C_MAKER], classic.NUM_PLAYERS)
            alone = mask[game, classic.GO_ALONE] and maker == 0
            if alone and hand_value(hand, trump) >= np.float32(thresholds[2]):
                actions[game] = classic.GO_ALONE
            else:
                actions[game] = classic.WITH_PARTNER
        elif phase == C_PLAY:
            actions[game] = _classic_card(obs, mask, layout, game, hand, scratch)
        else:  # rounds 1 and 2
            actions[game] = _classic_call(obs, mask, layout, thresholds, game, hand)


@njit(cache=True)
def _classic_call(obs, mask, layout, thresholds, game, hand):
    """Rounds 1 and 2: order up the upcard's suit, name the best other suit, or pass."""
    up = _index(obs, game, layout[C_UPCARD], NUM_CARDS)
    up = up if up >= 0 else NUM_CARDS - 1  # NumPy's index -1: the last card
    up_suit = CARD_SUIT[up]
    dealer = _index(obs, game, layout[C_DEALER], classic.NUM_PLAYERS)  # relative: 0 me
    if dealer == 0:  # round 1 for the dealer: the upcard taken, its worst card dropped
        with_up = hand | 1 << up
        worst = np.float32(np.inf)
        for card in range(NUM_CARDS):
            if with_up >> card & 1:
                worst = min(worst, CARD_VALUE[up_suit, card])
        order_value = np.float64(hand_value(with_up, up_suit) - worst)
    else:  # half the upcard's value to the partner dealer, against an opponent dealer
        sign = 0.5 if dealer == PARTNER else -0.5
        order_value = hand_value(hand, up_suit) + sign * np.float64(CARD_VALUE[up_suit, up])
    up_call = classic.SUIT_CLUBS + up_suit
    if mask[game, up_call] and order_value >= thresholds[0]:
        return up_call
    named, most, any_legal = 0, np.float32(-np.inf), False
    for suit in range(NUM_SUITS):
        if mask[game, classic.SUIT_CLUBS + suit]:
            any_legal = True
            tricks = hand_value(hand, suit)
            if tricks > most:
                named, most = suit, tricks
    stuck = not mask[game, classic.PASS]  # the dealer must name a suit
    if any_legal and not mask[game, up_call] and (most >= np.float32(thresholds[1]) or stuck):
        return classic.SUIT_CLUBS + named
    return classic.PASS


@njit(cache=True)
def _classic_discard(obs, mask, layout, game, hand):
    """The dealer's discard: the cheapest card, off-suit singletons first."""
    trump = _index(obs, game, layout[C_TRUMP], NUM_SUITS)
    length = np.zeros(NUM_SUITS, np.int64)
    for card in range(NUM_CARDS):
        if hand >> card & 1:
            length[EFF[trump, card]] += 1
    chosen, lowest = 0, NEVER
    for card in range(NUM_CARDS):
        if mask[game, card]:
            long_off_suit = length[EFF[trump, card]] > 1 and not IS_TRUMP[trump, card]
            cost = THROW_COST[trump, card] + 8 * long_off_suit
            if cost < lowest:
                chosen, lowest = card, cost
    return chosen


@njit(cache=True)
def _classic_card(obs, mask, layout, game, hand, scratch):
    """Card play: as Ghost Hand's, by team, throwing off under a partner's safe winner."""
    seats = classic.NUM_PLAYERS
    trump = _index(obs, game, layout[C_TRUMP], NUM_SUITS)
    played = _blocks(obs, game, layout[C_PLAYED], seats)
    unseen = ((1 << NUM_CARDS) - 1) & ~(hand | played | _cards(obs, game, layout[C_DISCARD]))
    leader = _index(obs, game, layout[C_LEADER], seats)
    rule_cards, rule_kinds, costs, seat_best = scratch
    _, _, position, strength, seat_best = _trick(
        obs, game, layout[C_TRICK], seats, leader, trump, seat_best
    )
    players = seats
    for seat in range(seats):
        players -= obs[game, layout[C_SITTING_OUT] + seat] > 0.5
    legal = _legal_cards(mask, game)
    best = seat_best.max()
    beats = _beating(legal, strength, best)
    bosses, trumps, boss_trump, boss_off = _card_costs(trump, unseen, strength, legal, costs)
    partner_card = _lowest(_cards(obs, game, layout[C_TRICK] + PARTNER * NUM_CARDS))
    partner_winning = position > 0 and seat_best[PARTNER] == best
    partner_safe = partner_winning and (
        position == players - 1 or (bosses >> partner_card & 1) == 1
    )
    maker = _index(obs, game, layout[C_MAKER], seats)
    making = maker == 0 or maker == PARTNER  # its own team made trump
    leading = position == 0
    rules = (  # (applies, cards, cost): the first that applies and has a card
        (leading and making and unseen & trumps != 0, boss_trump, 0),
        (leading, boss_off, 0),
        (leading and not making, boss_trump, 0),
        (partner_safe, legal, 2),
        (position > 0, beats & bosses, 1),
        (position > 0, beats, 1),
        (True, legal, 2),
    )
    for k in range(len(rules)):
        applies, cards, cost = rules[k]
        rule_cards[k] = cards if applies else 0
        rule_kinds[k] = cost
    return _cheapest(rule_cards, rule_kinds, costs, len(rules))


# ------------------------------------------------------------------ playouts and replays
@njit(cache=True)
def ghost_playout(actions, state, settings, policy_args):
    """Ghost Hand games played by :func:`ghost_actions` until some deal ends, in one call: the
    engine's :func:`~ghost_euchre_env.kernels.skeleton.play_until_deals_end` with Ghost Hand's
    kernels (the engine's ``play_until_deal_ends`` passes their arguments)."""
    # fmt: off
    return play_until_deals_end(actions, state, settings, ghost_kernels.step,
        ghost_kernels.legal_mask, ghost_kernels.observe, ghost_actions, policy_args)
    # fmt: on


@njit(cache=True)
def classic_playout(actions, state, settings, policy_args):
    """:func:`ghost_playout` for classic Euchre and :func:`classic_actions`."""
    # fmt: off
    return play_until_deals_end(actions, state, settings, classic_kernels.step,
        classic_kernels.legal_mask, classic_kernels.observe, classic_actions, policy_args)
    # fmt: on


@njit(cache=True)
def ghost_weigh(obs, mask, taken, legal, layout, thresholds, renege, log_weight, out):
    """The Ghost Hand heuristic as a model of a seat (a replay's ``weigh`` kernel): out[i] =
    log_weight[1 if :func:`ghost_actions` takes ``taken[i]`` else 0, legal[i]]."""
    chosen = np.empty(len(obs), np.int64)
    ghost_actions(obs, mask, layout, thresholds, renege, chosen)
    one_hot_weights(chosen, taken, legal, log_weight, out)


@njit(cache=True)
def classic_weigh(obs, mask, taken, legal, layout, thresholds, log_weight, out):
    """:func:`ghost_weigh` for classic Euchre and :func:`classic_actions`."""
    chosen = np.empty(len(obs), np.int64)
    classic_actions(obs, mask, layout, thresholds, chosen)
    one_hot_weights(chosen, taken, legal, log_weight, out)


@njit(cache=True)
def ghost_replay(actions, state, settings, weigh_args):
    """Ghost Hand games replayed and weighed by :func:`ghost_weigh` in one call: the engine's
    :func:`~ghost_euchre_env.kernels.skeleton.replay_and_weigh` with Ghost Hand's kernels (the
    engine's ``replay_and_weigh`` passes their arguments)."""
    # fmt: off
    return replay_and_weigh(actions, state, settings, ghost_kernels.step,
        ghost_kernels.legal_mask, ghost_kernels.observe, ghost_weigh, weigh_args)
    # fmt: on


@njit(cache=True)
def classic_replay(actions, state, settings, weigh_args):
    """:func:`ghost_replay` for classic Euchre and :func:`classic_weigh`."""
    # fmt: off
    return replay_and_weigh(actions, state, settings, classic_kernels.step,
        classic_kernels.legal_mask, classic_kernels.observe, classic_weigh, weigh_args)
    # fmt: on


def one_hot_log_weights(floor, num_actions):
    """float64[2, num_actions + 1]: [the model took the action (0/1), legal actions] -> the
    log-weight ``log((1 - floor) * p + floor / legal)`` of an action of probability p = 0 or 1
    (:mod:`ghost_euchre.agents.inference`)."""
    chosen = np.array([[0.0], [1.0]])
    log_weight = np.zeros((2, num_actions + 1))
    with np.errstate(divide="ignore"):  # p = 0 with no floor: log 0 = -inf, by design
        log_weight[:, 1:] = np.log((1 - floor) * chosen + floor / np.arange(1, num_actions + 1))
    return log_weight


# ------------------------------------------------------------------ NumPy-facing helpers
_LAYOUTS = {}


def _layout(variant, names):
    """int64[K] (cached): the first column of each field ``names`` of ``variant``'s observation."""
    key = (variant.name, names)
    if key not in _LAYOUTS:
        _LAYOUTS[key] = layout(variant, names)
    return _LAYOUTS[key]


def _batch(variant, obs, mask):
    """(obs float32[N, D], mask bool[N, A]) as contiguous arrays for a kernel; ValueError for a width
    other than the variant's observation's."""
    obs = np.ascontiguousarray(obs, dtype=np.float32)
    width = variant.view_type.width
    if obs.ndim != 2 or obs.shape[1] != width:
        raise ValueError(f"observations must be float32[N, {width}], got shape {obs.shape}")
    return obs, np.ascontiguousarray(mask, dtype=bool)


def _masks(cards):
    """int64[N]: bool[N, 24] card flags as card masks (bit c = card c)."""
    return (np.asarray(cards, bool).astype(np.int64) << np.arange(NUM_CARDS)).sum(axis=1)


@njit(cache=True)
def _hand_values(hands, out):
    for row in range(len(hands)):
        for trump in range(NUM_SUITS):
            out[row, trump] = hand_value(hands[row], trump)


@njit(cache=True)
def _moon_ready(hands, dead, out):
    for row in range(len(hands)):
        for trump in range(NUM_SUITS):
            out[row, trump] = is_moon_ready(hands[row], dead[row], trump)


def hand_evaluation(hand):
    """Expected tricks as declarer for each trump: hand bool[N, 24] -> float32[N, 4] (:func:`hand_value`)."""
    out = np.empty((len(hand), NUM_SUITS), np.float32)
    _hand_values(_masks(hand), out)
    return out


def moon_ready(hand, dead):
    """bool[N, 4]: with trump t every card is a sure winner once trumps are drawn
    (hand, dead: bool[N, 24]; :func:`is_moon_ready`)."""
    out = np.empty((len(hand), NUM_SUITS), bool)
    _moon_ready(_masks(hand), _masks(dead), out)
    return out


def cards_played(played_by):
    """bool[N, 24]: cards played this deal, from the ``played_by`` field bool[N, seats, 24]."""
    return played_by.any(axis=1)


def heuristic_policy(game, seed=None):
    """The heuristic for ``game``'s variant (spec ``heuristic``); TypeError for another engine."""
    return HEURISTICS[variants.of(game).name](game, seed)


HEURISTICS = {"ghost": GhostHeuristic, "classic": ClassicHeuristic}
"""Each variant's heuristic, by the descriptor's name: the one place the heuristic is chosen."""
