"""The classic Euchre heuristic (:class:`ClassicHeuristic`): its rules, its kernels, its playouts."""

import numpy as np
from numba import njit

from ghost_euchre_env import classic, variants
from ghost_euchre_env.cards import CARD_SUIT, NUM_CARDS, NUM_SUITS
from ghost_euchre_env.kernels import classic as classic_kernels
from ghost_euchre_env.kernels.skeleton import (
    one_hot_weights,
    play_until_deals_end,
    replay_and_weigh,
)

from .common import (
    CARD_VALUE,
    EFF,
    IS_TRUMP,
    NEVER,
    THROW_COST,
    KernelHeuristic,
    _beating,
    _blocks,
    _card_costs,
    _cards,
    _cheapest,
    _index,
    _layout,
    _legal_cards,
    _lowest,
    _phases,
    _scratch,
    _trick,
    hand_value,
)

VARIANT = "classic"  # the descriptor's name of the variant these rules play
PARTNER = int(variants.CLASSIC.partner or 0)  # the partner's relative seat (opposite)

# Each kernel reads the observation's columns of these fields (:func:`~.common.layout`).
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


class ClassicHeuristic(KernelHeuristic):
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

    def kernels(self):
        """(:func:`classic_actions`, :func:`classic_playout`, :func:`classic_replay`)."""
        return classic_actions, classic_playout, classic_replay

    def kernel_args(self):
        """The arguments of :func:`classic_actions` between the mask and the actions."""
        thresholds = np.array([self.order_above, self.name_above, self.alone_above], np.float64)
        return _layout(self.variant, CLASSIC_FIELDS), thresholds


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
def classic_playout(actions, state, settings, policy_args):
    """:func:`ghost_playout` for classic Euchre and :func:`classic_actions`."""
    # fmt: off
    return play_until_deals_end(actions, state, settings, classic_kernels.step,
        classic_kernels.legal_mask, classic_kernels.observe, classic_actions, policy_args)
    # fmt: on


@njit(cache=True)
def classic_weigh(obs, mask, taken, legal, layout, thresholds, log_weight, out):
    """:func:`ghost_weigh` for classic Euchre and :func:`classic_actions`."""
    chosen = np.empty(len(obs), np.int64)
    classic_actions(obs, mask, layout, thresholds, chosen)
    one_hot_weights(chosen, taken, legal, log_weight, out)


@njit(cache=True)
def classic_replay(actions, state, settings, weigh_args):
    """:func:`ghost_replay` for classic Euchre and :func:`classic_weigh`."""
    # fmt: off
    return replay_and_weigh(actions, state, settings, classic_kernels.step,
        classic_kernels.legal_mask, classic_kernels.observe, classic_weigh, weigh_args)
    # fmt: on
