"""The Ghost Hand heuristic (:class:`GhostHeuristic`): its rules, its kernels, its playouts.

Its rules, in the order it applies them (the numbers are class attributes; they were tuned in
duplicate matches of variants against the default, and the card values fitted as said below):

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
"""

import numpy as np
from numba import njit

from ghost_euchre_env import ghost
from ghost_euchre_env.cards import NUM_CARDS, NUM_SUITS
from ghost_euchre_env.kernels import ghost as ghost_kernels
from ghost_euchre_env.kernels.skeleton import (
    one_hot_weights,
    play_until_deals_end,
    replay_and_weigh,
)

from .common import (
    EFF,
    KernelHeuristic,
    _beating,
    _best_trump,
    _blocks,
    _card_costs,
    _cards,
    _cheapest,
    _index,
    _layout,
    _legal_cards,
    _phases,
    _scratch,
    _trick,
    is_moon_ready,
)

VARIANT = "ghost"  # the descriptor's name of the variant these rules play

# Each kernel reads the observation's columns of these fields (:func:`~.common.layout`).
GHOST_FIELDS = (
    "hand",
    "dead_hand",
    "played_by",
    "current_trick",
    "maker",
    "leader",
    "contract",
    "trump",
    "phase",
)
(G_HAND, G_DEAD, G_PLAYED, G_TRICK, G_MAKER, G_LEADER, G_CONTRACT, G_TRUMP, G_PHASE) = range(9)


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
    declaring = _index(obs, game, layout[G_MAKER], seats) == 0
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


class GhostHeuristic(KernelHeuristic):
    """The scripted Ghost Hand player described in the module docstring."""

    name = "heuristic"
    bid_thresholds = (2.7, 3.4, 4.2)  # expected tricks needed to bid 3, 4, 5
    moon_above = 5.5  # expected tricks that call for the moon even when not moon_ready
    swap_below = 3.8  # swap even a biddable hand when its expected tricks are below this

    def kernels(self):
        """(:func:`ghost_actions`, :func:`ghost_playout`, :func:`ghost_replay`)."""
        return ghost_actions, ghost_playout, ghost_replay

    def kernel_args(self):
        """The arguments of :func:`ghost_actions` between the mask and the actions."""
        thresholds = np.array([*self.bid_thresholds, self.moon_above, self.swap_below], np.float64)
        renege = bool(getattr(self.game.rules, "allow_renege", False))
        return _layout(self.variant, GHOST_FIELDS), thresholds, renege


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
def ghost_weigh(obs, mask, taken, legal, layout, thresholds, renege, log_weight, out):
    """The Ghost Hand heuristic as a model of a seat (a replay's ``weigh`` kernel): out[i] =
    log_weight[1 if :func:`ghost_actions` takes ``taken[i]`` else 0, legal[i]]."""
    chosen = np.empty(len(obs), np.int64)
    ghost_actions(obs, mask, layout, thresholds, renege, chosen)
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
