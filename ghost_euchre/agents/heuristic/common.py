"""What the variants' heuristics share: card tables, hand evaluation, trick reading and card costs.

Each variant's rules are in its own module (:mod:`ghost_euchre.agents.heuristic.ghost`,
:mod:`ghost_euchre.agents.heuristic.classic`); every kernel here reads an observation's columns
by the variant's ``layout`` (:func:`layout`).
"""

import numpy as np
from numba import njit

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

from ..base import Policy

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


class KernelHeuristic(Policy):
    """A heuristic whose decisions are one compiled kernel: a subclass names its kernels
    (:meth:`kernels`) and the arguments between the mask and the actions (``kernel_args``)."""

    def kernels(self):
        """(actions, playout, replay): the variant's compiled functions (``actions(obs, mask,
        *kernel_args, out)``, the playout for ``play_until_deal_ends``, the replay for
        ``replay_and_weigh``)."""
        raise NotImplementedError

    def kernel_args(self):
        """The kernels' arguments between the mask and the actions."""
        raise NotImplementedError

    def act(self, obs, mask):
        """obs float32[N, D], mask bool[N, A] -> int64[N]: one call of the actions kernel."""
        obs, mask = _batch(self.variant, obs, mask)
        actions = np.zeros(len(obs), np.int64)
        self.kernels()[0](obs, mask, *self.kernel_args(), actions)
        return actions

    def playout(self):
        """(the playout kernel, :meth:`kernel_args`): this player's compiled playout, for the
        engine's ``play_until_deal_ends``."""
        return self.kernels()[1], self.kernel_args()

    def replay(self, floor):
        """(the replay kernel, its arguments): this player as a compiled model of a seat with
        likelihood floor ``floor``, for the engine's ``replay_and_weigh`` (``search``'s inference)."""
        weights = one_hot_log_weights(floor, self.variant.num_actions)
        return self.kernels()[2], (*self.kernel_args(), weights)


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
