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
"""

import numpy as np

from ghost_euchre_env import classic, ghost, variants
from ghost_euchre_env.cards import (
    CARD_BIT,
    CARD_RANK,
    CARD_SUIT,
    EFFECTIVE_SUIT,
    HAND_DTYPE,
    JACK,
    NUM_CARDS,
    NUM_SUITS,
    PARTNER_SUIT,
    STRENGTH,
    pack_bits,
)

from .base import Policy

PARTNER = variants.CLASSIC.partner  # classic: the partner's relative seat (opposite)

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
VOID_VALUE = 0.4  # per off-suit void, when holding at least two trumps


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
EFF = EFFECTIVE_SUIT[:NUM_SUITS]  # int8[4, 24]: effective suit of card c under trump t
IS_TRUMP = EFF == SUITS[:, None]  # bool[4, 24]
# int8[4, 24]: trick strength of card c when it is led (trump t).
LEAD_STRENGTH = STRENGTH[SUITS[:, None], EFF, np.arange(NUM_CARDS)]
# int8[4, 7]: the trump cards of suit t from the top (right bower .. 9).
TRUMP_CARDS = np.argsort(-np.where(IS_TRUMP, LEAD_STRENGTH, -1), axis=1, kind="stable")[:, :7]
# Matrices for hand @ matrix (hand float32[N, 24]):
CARD_VALUE = ROLE_VALUE[ROLE].T.copy()  # [24, 4]: value of card c with trump t
SUIT_COLUMNS = np.eye(NUM_SUITS * NUM_SUITS, dtype=np.float32)[
    SUITS[:, None] * NUM_SUITS + EFF
].sum(axis=0)  # [24, 16]
SUIT_TO_TRUMP = np.repeat(
    np.eye(NUM_SUITS, dtype=np.float32), NUM_SUITS, axis=0
)  # [16, 4]: sum over suits
TRUMP_COLUMNS = np.array(
    [t * NUM_SUITS + t for t in SUITS]
)  # columns of SUIT_COLUMNS counting trumps
OFF_NON_ACE = ((ROLE >= ROLE_NAMES.index("off K")).T).astype(np.float32)  # [24, 4]
OFF_KING = ((ROLE == ROLE_NAMES.index("off K")).T).astype(np.float32)  # [24, 4]
ACE_OF = 5 * NUM_SUITS + CARD_SUIT  # int[24]: the ace of card c's printed suit


def _beaters_table():
    """uint32[4, 24]: cards of the same effective suit that outrank card c (trump t)."""
    table = np.zeros((NUM_SUITS, NUM_CARDS), HAND_DTYPE)
    for trump in SUITS:
        for card in range(NUM_CARDS):
            higher = (EFF[trump] == EFF[trump, card]) & (
                LEAD_STRENGTH[trump] > LEAD_STRENGTH[trump, card]
            )
            table[trump, card] = CARD_BIT[higher].sum()
    return table


BEATERS = _beaters_table()
# Throw-off cost: off-suit cards by rank (0..5), +10 when boss, +20 when trump (+ trump strength).
THROW_COST = np.where(IS_TRUMP, 20 + LEAD_STRENGTH.astype(np.int16), CARD_RANK[None, :]).astype(
    np.int16
)
_NEVER = np.int16(9999)


def _boss(trump, unseen):
    """bool[N, 24]: no unseen card of its effective suit beats the card (trump int[N], unseen bool[N, 24])."""
    return (BEATERS[trump] & pack_bits(unseen).astype(HAND_DTYPE)[:, None]) == 0


def _by_phase(phase, rules, obs, mask, view):
    """int64[N]: each game's action by the rule of its phase (rules: {phase: rule(view, mask)})."""
    actions = np.zeros(len(obs), np.int64)
    for code, rule in rules.items():
        rows = np.flatnonzero(phase == code)
        if len(rows) == len(obs):
            actions[:] = rule(view(obs), mask)
        elif len(rows):
            actions[rows] = rule(view(np.take(obs, rows, axis=0)), mask[rows])
    return actions


def hand_evaluation(hand):
    """Expected tricks as declarer for each trump: hand bool[N, 24] -> float32[N, 4]."""
    held = hand.astype(np.float32)
    suit_counts = held @ SUIT_COLUMNS  # [N, 16]: cards of effective suit s under trump t at t*4+s
    voids = (suit_counts == 0).astype(np.float32) @ SUIT_TO_TRUMP
    two_trumps = suit_counts[:, TRUMP_COLUMNS] >= 2  # then the trump suit itself is not void
    return held @ CARD_VALUE + VOID_VALUE * np.where(two_trumps, voids, 0)


def moon_ready(hand, dead):
    """bool[N, 4]: with trump t every card is a sure winner once trumps are drawn.

    hand, dead: bool[N, 24] (dead = cards known out of play). Trumps held from the
    top down, skipping dead ones, must run unbroken past all outstanding trumps
    but one, and each off-suit card must be an ace or a king backed by its ace.
    """
    held = hand[:, TRUMP_CARDS]  # [N, 4, 7]
    known = held | dead[:, TRUMP_CARDS]
    run = (np.cumprod(known, axis=2) & held).sum(axis=2)
    outstanding = 7 - known.sum(axis=2)
    backed = (hand & hand[:, ACE_OF]).astype(np.float32)
    losers = hand.astype(np.float32) @ OFF_NON_ACE - backed @ OFF_KING
    return (losers < 0.5) & (run >= outstanding - 1) & (run >= 2)


def cards_played(played_by):
    """bool[N, 24]: cards played this deal, from the ``played_by`` field bool[N, seats, 24]."""
    return played_by.any(axis=1)


class GhostHeuristic(Policy):
    """The scripted Ghost Hand player described in the module docstring."""

    name = "heuristic"
    bid_thresholds = (2.7, 3.4, 4.2)  # expected tricks needed to bid 3, 4, 5
    moon_above = 5.5  # expected tricks that call for the moon even when not moon_ready
    swap_below = 3.8  # swap even a biddable hand when its expected tricks are below this

    def act(self, obs, mask):
        view = self.variant.view
        phase = view(obs).phase  # a finished game (no phase) is answered as an auction
        phase = np.where(phase == ghost.OVER, ghost.AUCTION, phase)
        rules = {ghost.AUCTION: self._auction, ghost.TRUMP: self._trump, ghost.PLAY: self._play}
        return _by_phase(phase, rules, obs, mask, view)

    def _auction(self, view, mask):
        hand, dead = view.hand, view.dead_hand
        tricks = hand_evaluation(hand)
        best = tricks.argmax(axis=1)
        index = np.arange(len(hand))
        expected = tricks[index, best]
        moon_hand = moon_ready(hand, dead)[index, best] | (expected >= self.moon_above)
        need = np.maximum(view.contract + 1, 3)  # contract: the high bid's level, 0 for none
        threshold = np.select([need == 3, need == 4, need == 5], list(self.bid_thresholds), np.inf)
        bid = expected >= threshold
        swap = mask[:, ghost.SWAP] & (~bid | (expected < self.swap_below))
        return np.select(
            [moon_hand & mask[:, ghost.MOON], swap, bid],
            [ghost.MOON, ghost.SWAP, ghost.BID_3 + (np.minimum(need, 5) - 3)],
            ghost.PASS,
        )

    @staticmethod
    def _trump(view, mask):
        return ghost.TRUMP_CLUBS + hand_evaluation(view.hand).argmax(axis=1)

    def _play(self, view, mask):
        hand, current, trump = view.hand, view.current_trick, view.trump  # trump is named in play
        n = len(hand)
        legal = mask[:, :NUM_CARDS]
        played = cards_played(view.played_by)
        unseen = ~(hand | played | view.dead_hand)
        boss = _boss(trump, unseen)  # [N, 24]
        is_trump = IS_TRUMP[trump]
        trumps_unseen = (unseen & is_trump).any(axis=1)

        in_trick = current.any(axis=1)
        position = in_trick.sum(axis=1)  # 0 leading, 1 second, 2 last
        led_card = current[np.arange(n), view.leader].argmax(axis=1)
        led = EFFECTIVE_SUIT[trump, led_card]
        if getattr(
            self.game.rules, "allow_renege", False
        ):  # the mask allows reneges: never play one
            follow = legal & (EFF[trump] == led[:, None]) & (position > 0)[:, None]
            legal = np.where(follow.any(axis=1)[:, None], follow, legal)
        strength = STRENGTH[trump, led, :NUM_CARDS]  # [N, 24] under the led suit
        best = np.where(in_trick, strength, -1).max(axis=1)
        beats = legal & (strength > best[:, None])
        lead_strength = LEAD_STRENGTH[trump]
        throw = THROW_COST[trump] + 10 * (boss & ~is_trump)  # 0..57

        declaring = view.declarer == 0
        leading = position == 0
        boss_trump = legal & is_trump & boss
        boss_off = legal & ~is_trump & boss
        highest = 27 - lead_strength  # lowest for the highest card
        rules = (  # (games where the rule applies bool[N], its cards bool[N, 24], cost int[N, 24])
            (leading & declaring & trumps_unseen, boss_trump, highest),
            (leading & declaring, boss_off, highest),
            (leading & ~declaring, boss_off, highest),
            (leading & ~declaring, boss_trump, highest),
            (position == 1, beats & boss, strength),
            (position > 0, beats, strength),
            (True, legal, throw),
        )
        return _first_rule(rules)


def _first_rule(rules):
    """The card chosen by the first rule that applies and has a card, int64[N].

    rules: (applies bool[N] or True, cards bool[N, 24], cost int[N, 24] in 0..63);
    within a rule the cheapest card wins. One argmin over a combined key.
    """
    key = None
    for priority, (applies, cards, cost) in enumerate(rules):
        allowed = cards & applies[:, None] if isinstance(applies, np.ndarray) else cards
        ranked = np.where(allowed, cost.astype(np.int16) + np.int16(64 * priority), _NEVER)
        key = ranked if key is None else np.minimum(key, ranked, out=key)
    assert key is not None, "rules must not be empty"
    return key.argmin(axis=1)


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
        phase = self.variant.view(obs).phase  # round 1, round 2, discard, alone, play, over
        phase = np.where(phase == len(variants.CLASSIC_PHASES) - 1, 0, phase)  # over: as round 1
        rules = dict(enumerate((self._bid, self._bid, self._discard, self._alone, self._play)))
        return _by_phase(phase, rules, obs, mask, self.variant.view)

    def _bid(self, view, mask):
        hand, up = view.hand, view.upcard
        n = len(hand)
        rows = np.arange(n)
        up_suit = CARD_SUIT[up]
        dealer = view.dealer  # relative: 0 me
        tricks = hand_evaluation(hand)
        # Round 1: value of ordering up the upcard's suit.
        with_up = hand.copy()
        with_up[rows, up] = True
        worst = np.where(with_up, CARD_VALUE[:, up_suit].T, np.inf).min(axis=1)
        own_take = hand_evaluation(with_up)[rows, up_suit] - worst
        up_value = CARD_VALUE[up, up_suit]
        sign = np.select([dealer == PARTNER, dealer == 0], [0.5, 0.0], -0.5)
        order_value = np.where(dealer == 0, own_take, tricks[rows, up_suit] + sign * up_value)
        order = mask[rows, classic.SUIT_CLUBS + up_suit] & (order_value >= self.order_above)
        # Round 2: the best legal suit.
        suit_legal = mask[:, classic.SUIT_CLUBS : classic.SUIT_CLUBS + NUM_SUITS]
        named = np.where(suit_legal, tricks, -np.inf).argmax(axis=1)
        name = (
            suit_legal.any(axis=1)
            & ~mask[rows, classic.SUIT_CLUBS + up_suit]
            & ((tricks[rows, named] >= self.name_above) | ~mask[:, classic.PASS])
        )
        return np.select(
            [order, name], [classic.SUIT_CLUBS + up_suit, classic.SUIT_CLUBS + named], classic.PASS
        )

    def _discard(self, view, mask):
        trump = view.trump
        legal = mask[:, :NUM_CARDS]
        suit_length = view.hand.astype(np.float32) @ SUIT_COLUMNS  # [N, 16]
        length = np.take_along_axis(suit_length, trump[:, None] * NUM_SUITS + EFF[trump], axis=1)
        cost = THROW_COST[trump] + 8 * (length > 1) * ~IS_TRUMP[trump]
        return np.where(legal, cost, _NEVER).argmin(axis=1)

    def _alone(self, view, mask):
        tricks = hand_evaluation(view.hand)[np.arange(len(view)), view.trump]
        alone = mask[:, classic.GO_ALONE] & (view.maker == 0) & (tricks >= self.alone_above)
        return np.where(alone, classic.GO_ALONE, classic.WITH_PARTNER)

    def _play(self, view, mask):
        hand, trick, trump = view.hand, view.current_trick, view.trump
        n = len(hand)
        rows = np.arange(n)
        legal = mask[:, :NUM_CARDS]
        played = cards_played(view.played_by)
        unseen = ~(hand | played | view.card_flags("discard"))
        boss = _boss(trump, unseen)
        is_trump = IS_TRUMP[trump]
        trumps_unseen = (unseen & is_trump).any(axis=1)

        in_trick = trick.any(axis=1)
        position = in_trick.sum(axis=1)
        players = 4 - view.sitting_out.sum(axis=1)
        led_card = trick[rows, view.leader].argmax(axis=1)
        strength = STRENGTH[trump, EFFECTIVE_SUIT[trump, led_card], :NUM_CARDS]
        seat_strength = np.where(trick, strength[:, None, :], -1).max(
            axis=2
        )  # [N, 4] by relative seat
        best = seat_strength.max(axis=1)
        partner_winning = (position > 0) & (seat_strength[:, PARTNER] == best)
        partner_card = trick[:, PARTNER].argmax(axis=1)
        partner_safe = partner_winning & ((position == players - 1) | boss[rows, partner_card])
        beats = legal & (strength > best[:, None])
        lead_strength = LEAD_STRENGTH[trump]
        throw = THROW_COST[trump] + 10 * (boss & ~is_trump)

        making = (view.maker == 0) | (view.maker == 2)  # own team made trump
        leading = position == 0
        boss_trump = legal & is_trump & boss
        boss_off = legal & ~is_trump & boss
        highest = 27 - lead_strength
        return _first_rule(
            (
                (leading & making & trumps_unseen, boss_trump, highest),
                (leading, boss_off, highest),
                (leading & ~making, boss_trump, highest),
                (partner_safe, legal, throw),
                (position > 0, beats & boss, strength),
                (position > 0, beats, strength),
                (True, legal, throw),
            )
        )


def heuristic_policy(game, seed=None):
    """The heuristic for ``game``'s variant (spec ``heuristic``); TypeError for another engine."""
    return HEURISTICS[variants.of(game).name](game, seed)


HEURISTICS = {"ghost": GhostHeuristic, "classic": ClassicHeuristic}
"""Each variant's heuristic, by the descriptor's name: the one place the heuristic is chosen."""
