"""Ghost Hand Euchre's rules as Numba kernels: each a loop over the games of a batch.

The one copy of the Ghost Hand section of ``docs/RULES.md``; the batch API
(:class:`ghost_euchre_env.ghost.GhostEuchre`) calls these with a ``GhostState``'s
records (``state``: one record a game, ``s = state[g]`` game g's, its fields named as the
state's: uint32 card masks, int8 seats with -1 for none) and the engine's settings
(``settings``: one record, its rules options and episode settings). One call handles every
game of the batch, one or sixteen thousand.

- :func:`start_deals`: "The deal" (the next deal's hands and ghost hand given out,
  the deal's fields fresh, the auction opened left of the dealer).
- :func:`legal_bits`, :func:`legal_mask`: what the player to act may do (auction, trump, play).
- :func:`step`: one decision in every game: "The auction" (swap, bid, moon,
  pass; the end of the auction, "Nobody bids"), "Trump", "Play" and
  "Reneging" (the tricks, follow suit, who takes a trick), phase by phase.
- :func:`step_and_observe`: a vector step, the actions' check, the step, legal mask and
  observation in one call; :func:`observe_every`: the legal mask and observation alone.
- :func:`end_deals`: the deals that ended in a step: "Score of the deal", "The end"
  (:func:`game_won`), then the next deal or episode; the deal summary.
- :func:`observe` (:func:`observe_into` an array given), :func:`hidden`: the observation
  of ``OBS_LAYOUT`` and the hidden cards of ``HIDDEN_LAYOUT`` (``ghost_euchre_env/ghost.py``).

The deal's points ("Score of the deal") are :func:`ghost_euchre_env.kernels.scoring.ghost_deal_points`.
"""

import numpy as np
from numba import njit

from .cards import effective_suit, playable, trick_winner
from .scoring import ghost_seat_points
from .skeleton import (
    NUM_CARDS,
    card_bit,
    end_or_go_on,
    ended_in_order,
    next_deal_row,
    put_bits,
    put_masks,
    put_one,
    put_zeros,
    ratio,
    relative,
    unpack_rows,
    vector_step,
)
from .skeleton import observe_every as skeleton_observe_every

NUM_PLAYERS = 3
HAND_SIZE = 6
NUM_TRICKS = 6
NUM_ACTIONS = 34

PASS = 24
TRUMP_CLUBS = 25  # 25..28 name trump C, D, H, S
BID_3, BID_4, BID_5 = 29, 30, 31
MOON = 32
SWAP = 33
MOON_LEVEL = 6  # a moon bid ranks as six tricks
AUCTION, TRUMP, PLAY, OVER = 0, 1, 2, 3  # the state's phase
AUCTIONS = ("single_round", "open")  # the rules option ``auction``; settings hold its index
OPEN_AUCTION = AUCTIONS.index("open")

# Step outcome of a game (``ended[g]`` of :func:`step`).
GOING_ON, PLAYED_OUT, THROWN_IN = 0, 1, 2

# Observation offsets (the layout of ghost_euchre_env/ghost.py's OBS_LAYOUT, checked there).
O_HAND, O_DEAD, O_PLAYED_BY, O_IN_TRICK, O_CURRENT = 0, 24, 48, 120, 264
O_SWAPPER, O_MAKER, O_DEALER, O_LEADER = 336, 339, 342, 345
O_BIDS, O_PASSES, O_CONTRACT, O_TRUMP, O_PHASE = 348, 360, 372, 376, 380
O_TRICKS, O_SCORES, O_PROGRESS = 383, 386, 389
OBS_SIZE = 390
HIDDEN_SIZE = 72


@njit(cache=True)
def start_deals(games, state, chosen):
    """ "The deal" in each game of ``games`` (int64[M]): its next deal (a chosen one of
    ``chosen``, uint32[N, K, 4], or a random one, :func:`skeleton.next_deal_row`: the hands of
    seats 0..2, the ghost hand), every field of the deal fresh, the auction opened left of the
    dealer."""
    row = np.empty(NUM_PLAYERS + 1, np.uint32)
    keys, deck = np.empty(NUM_CARDS, np.uint64), np.empty(NUM_CARDS, np.int8)  # a deck's
    for g in games:
        s = state[g]
        next_deal_row(s, chosen[g], NUM_PLAYERS + 1, HAND_SIZE, keys, deck, row)
        for seat in range(NUM_PLAYERS):
            s.hands[seat] = row[seat]
            s.acted[seat] = False
            s.passed_at[seat] = -1
            s.trick[seat] = -1
            s.played_cards[seat] = 0
            s.tricks_won[seat] = 0
            s.reneges[seat] = 0
        s.ghost = row[NUM_PLAYERS]
        for level in range(len(s.bids)):
            s.bids[level] = -1
        for k in range(NUM_TRICKS):
            s.trick_cards[k] = 0
        s.swapper = -1
        s.high_bid = 0
        s.maker = -1
        s.trump = -1
        s.leader = -1
        s.led_suit = -1
        s.trick_number = 0
        s.phase = AUCTION
        s.player = (s.dealer + 1) % NUM_PLAYERS


@njit(cache=True)
def legal_bits(state, settings):
    """uint64[N]: the legal actions of the player to act in each game (bit a = action a; 0 when over).

    Auction: pass; a bid above the high bid (a moon above 5); a swap while
    nobody has swapped and the player has not yet bid or passed. Trump: any
    suit. Play: the cards follow suit allows (any card held with ``allow_renege``).
    state, settings: the engine's records and settings.
    """
    allow_renege = settings[0].allow_renege
    num_games = len(state)
    bits = np.zeros(num_games, np.uint64)
    one = np.uint64(1)
    for g in range(num_games):
        s = state[g]
        seat = s.player
        if seat < 0:
            continue
        if s.phase == AUCTION:
            legal = one << np.uint64(PASS)
            for level in range(3, MOON_LEVEL + 1):
                if level > s.high_bid:
                    legal |= one << np.uint64(BID_3 + level - 3)
            if s.swapper < 0 and not s.acted[seat]:
                legal |= one << np.uint64(SWAP)
        elif s.phase == TRUMP:
            legal = np.uint64(0b1111) << np.uint64(TRUMP_CLUBS)
        else:  # PLAY
            hand = s.hands[seat]
            legal = np.uint64(hand if allow_renege else playable(hand, s.led_suit, s.trump))
        bits[g] = legal
    return bits


@njit(cache=True)
def legal_mask(state, settings):
    """bool[N, 34]: :func:`legal_bits` unpacked (row g, column a: action a is legal), in one call."""
    return unpack_rows(legal_bits(state, settings), NUM_ACTIONS)


@njit(cache=True)
def step(actions, state, settings, ended):
    """One decision in every game: actions int[N] (legal, checked by the caller; -1: the game
    is left as it is), in place; state, settings: the engine's records and settings.

    ended: int8[N], set to GOING_ON, PLAYED_OUT (the sixth trick ended) or THROWN_IN
    (nobody bid). Returns how many games' deals ended. The phases are written out in
    the loop (no helper call per game: a call with these arrays costs more than the rule).
    """
    rules = settings[0]
    auction_open = rules.auction == OPEN_AUCTION
    count = 0
    for g in range(len(actions)):
        s = state[g]
        action = actions[g]
        seat = s.player
        ended[g] = GOING_ON
        if action < 0:
            continue
        if s.phase == AUCTION and action == SWAP:
            # "The auction", a swap: take the ghost hand; the old one becomes the dead hand.
            # The same player then bids or passes.
            old_hand = s.hands[seat]
            s.hands[seat] = s.ghost
            s.ghost = old_hand
            s.swapper = seat
        elif s.phase == AUCTION:
            # "The auction", a pass (remember the high bid passed at: 0 none, 1..3 = 3..5)
            # or a bid (3, 4, 5; 6 = the moon).
            s.acted[seat] = True
            if action == PASS:
                s.passed_at[seat] = s.high_bid - 2 if s.high_bid >= 3 else 0
            else:
                level = action - (BID_3 - 3)
                s.high_bid = level
                s.maker = seat
                s.bids[level - 3] = seat
            # Who speaks next. Single round: each seat once, the dealer last. Open: the
            # seats that have not passed, but the high bidder, until all of them have.
            # A moon ends the auction at once.
            first = (seat + 1) % NUM_PLAYERS
            if not auction_open:
                over = seat == s.dealer or s.high_bid == MOON_LEVEL
                s.player = first
            else:
                second = (first + 1) % NUM_PLAYERS
                first_may = s.passed_at[first] < 0 and first != s.maker
                second_may = s.passed_at[second] < 0 and second != s.maker
                over = s.high_bid == MOON_LEVEL or not (first_may or second_may)
                s.player = first if first_may else second
            if over and s.maker < 0:  # "Nobody bids": the deal is thrown in
                ended[g] = THROWN_IN
            elif over:  # the declarer names trump
                s.phase = TRUMP
                s.player = s.maker
        elif s.phase == TRUMP:
            # "Trump": the declarer names any suit, then leads the first trick.
            s.trump = action - TRUMP_CLUBS
            s.phase = PLAY
            s.leader = s.maker
            s.player = s.maker
        else:
            # "Play": the card goes into the trick (with allow_renege, a card follow suit
            # forbids counts a renege); the first card sets the suit led.
            bit = np.uint32(1) << np.uint32(action)
            if rules.allow_renege and not (playable(s.hands[seat], s.led_suit, s.trump) & bit):
                s.reneges[seat] += 1
            s.hands[seat] &= ~bit
            s.played_cards[seat] |= bit
            s.trick[seat] = action
            s.trick_cards[s.trick_number] |= bit
            if seat == s.leader:
                s.led_suit = effective_suit(action, s.trump)
            s.player = (seat + 1) % NUM_PLAYERS
            if s.player == s.leader:
                # "Tricks": a full trick goes to its taker, who leads the next.
                winner = trick_winner(s.trick, s.trump, s.led_suit)
                s.tricks_won[winner] += 1
                s.trick_number += 1
                s.leader = winner
                s.player = winner
                for other in range(NUM_PLAYERS):
                    s.trick[other] = -1
                s.led_suit = -1
                if s.trick_number == NUM_TRICKS:
                    ended[g] = PLAYED_OUT
        if ended[g] != GOING_ON:
            count += 1
    return count


@njit(cache=True)
def step_and_observe(actions, legal, state, settings, ended, out):
    """The vector API's step in one call: :func:`~.skeleton.vector_step` (the actions checked
    against ``legal``, :func:`step`, then every game observed into ``out`` = (mask, obs,
    player) if no deal ended) with this variant's kernels."""
    return vector_step(actions, legal, state, settings, ended, out, step, legal_bits, observe_into)


@njit(cache=True)
def observe_every(state, settings, out):
    """:func:`~.skeleton.observe_every` with this variant's kernels: every game's legal mask,
    observation by its player to act and that player, into ``out`` = (mask, obs, player)."""
    skeleton_observe_every(state, settings, legal_bits, observe_into, out)


@njit(cache=True, inline="always")
def game_won(scores, target_score):
    """ "The end": one seat alone holds the top score (scores: int32[3] by seat) and it is at least the target."""
    top = max(scores[0], scores[1], scores[2])
    leaders = 0
    for seat in range(NUM_PLAYERS):
        if scores[seat] == top:
            leaders += 1
    return leaders == 1 and top >= target_score


@njit(cache=True)
def end_deals(ended, auto_reset, state, chosen, settings, outcome, summary):
    """The end of the deals that ended in a step (``ended``: int8[N] of :func:`step`), in
    place: "Score of the deal" (the scores; the rewards), "The end" (``settings``'
    ``one_deal``: every deal ends its episode), then the next deal where play goes on
    (:func:`start_deals`); the parts every variant shares are :func:`skeleton.end_or_go_on`.

    state, chosen, settings: the engine's records, chosen deals and settings; outcome: the
    step's (rewards float32[N, 3], terminated bool[N], truncated bool[N]), set here; summary:
    the arrays of a ``GhostDealSummary`` of the M ended deals, in field order, filled here:
    one row per deal, the played-out deals first. A thrown-in deal scores nothing: no maker,
    contract -1, not made.
    """
    # fmt: off
    (games, thrown_in, summary_dealer, summary_tricks, points, summary_scores, maker, contract,
        made, alone, summary_swapper, bid, summary_trump, summary_reneges) = summary
    # fmt: on
    rules = settings[0]
    ended_in_order(ended, PLAYED_OUT, games)
    deal_again = np.empty(len(games), np.int64)
    dealt = 0
    for i in range(len(games)):
        g = games[i]
        s = state[g]
        played = ended[g] == PLAYED_OUT
        # "Score of the deal": the declarer's contract, every seat's points.
        thrown_in[i] = not played
        maker[i] = s.maker if played else -1
        contract[i] = s.high_bid - 3 if played else -1
        made[i] = played and s.tricks_won[s.maker] >= s.high_bid
        alone[i] = False
        for seat in range(NUM_PLAYERS):
            # fmt: off
            points[i, seat] = ghost_seat_points(seat, s.tricks_won, s.reneges, s.maker,
                s.high_bid, rules.moon_points, rules.moon_set_penalty,
                rules.renege_penalty) if played else 0
            # fmt: on
            s.scores[seat] += points[i, seat]
            summary_tricks[i, seat] = s.tricks_won[seat]
            summary_scores[i, seat] = s.scores[seat]
            summary_reneges[i, seat] = s.reneges[seat]
        summary_dealer[i] = s.dealer
        summary_swapper[i] = s.swapper
        bid[i] = s.high_bid
        summary_trump[i] = s.trump
        # "The end", then the next deal or the next episode.
        over = rules.one_deal or game_won(s.scores, rules.target_score)
        if end_or_go_on(g, s, points[i], over, auto_reset, rules, OVER, outcome):
            deal_again[dealt] = g
            dealt += 1
    start_deals(deal_again[:dealt], state, chosen)


@njit(cache=True)
def observe(games, seats, state, settings):
    """float32[M, 390]: row i is game games[i] (games empty: game i) seen by seat seats[i], egocentric (relative seat 0 = the observer).

    Perfect recall: its hand and its dead hand, every card played by seat and by
    trick, the auction (bids, passes, the swap), trump, the tricks and scores.
    state, settings: the engine's records and settings.
    """
    obs = np.empty((len(seats), OBS_SIZE), np.float32)
    observe_into(games, seats, state, settings, obs)
    return obs


@njit(cache=True)
def observe_into(games, seats, state, settings, obs):
    """:func:`observe` into ``obs`` (float32[M, 390]), every cell written once."""
    rules = settings[0]
    blocks = np.empty(O_SWAPPER // 24, np.int64)  # the card masks of the 14 card blocks
    for i in range(len(seats)):
        g = games[i] if len(games) else i
        me = seats[i]
        s = state[g]
        # The card blocks, 24 cells each: the hand, the dead hand, the cards played
        # by each relative seat, in each trick, in the current trick.
        blocks[0] = s.hands[me]
        blocks[1] = s.ghost if s.swapper == me else 0
        for rel in range(NUM_PLAYERS):
            seat = (me + rel) % NUM_PLAYERS
            blocks[(O_PLAYED_BY - O_HAND) // 24 + rel] = s.played_cards[seat]
            blocks[(O_CURRENT - O_HAND) // 24 + rel] = card_bit(s.trick[seat])
        for k in range(NUM_TRICKS):
            blocks[(O_IN_TRICK - O_HAND) // 24 + k] = s.trick_cards[k]
        put_masks(obs, i, O_HAND, blocks)
        # The one-hot fields (swapper .. phase): zeros, then the ones.
        put_zeros(obs, i, O_SWAPPER, O_TRICKS)
        for rel in range(NUM_PLAYERS):
            seat = (me + rel) % NUM_PLAYERS
            put_one(obs, i, O_PASSES + rel * 4, s.passed_at[seat])  # the high bid it passed at
            obs[i, O_TRICKS + rel] = ratio(s.tricks_won[seat], NUM_TRICKS)
            obs[i, O_SCORES + rel] = ratio(s.scores[seat], rules.target_score)
        put_one(obs, i, O_SWAPPER, relative(s.swapper, me, NUM_PLAYERS))
        put_one(obs, i, O_MAKER, relative(s.maker, me, NUM_PLAYERS))
        put_one(obs, i, O_DEALER, relative(s.dealer, me, NUM_PLAYERS))
        if s.phase == PLAY:
            put_one(obs, i, O_LEADER, relative(s.leader, me, NUM_PLAYERS))
        for level in range(4):
            put_one(obs, i, O_BIDS + level * 3, relative(s.bids[level], me, NUM_PLAYERS))
        if s.high_bid >= 3:
            put_one(obs, i, O_CONTRACT, s.high_bid - 3)
        put_one(obs, i, O_TRUMP, s.trump)
        if s.phase != OVER:
            put_one(obs, i, O_PHASE, s.phase)
        obs[i, O_PROGRESS] = ratio(s.deal_number, rules.max_deals)


@njit(cache=True)
def hidden(seats, state):
    """float32[N, 72]: the hands of the two seats after seats[g] (relative 1, 2), then the ghost
    hand; state: the engine's records."""
    out = np.zeros((len(seats), HIDDEN_SIZE), np.float32)
    for g in range(len(seats)):
        s = state[g]
        for rel in range(1, NUM_PLAYERS):
            put_bits(out, g, (rel - 1) * 24, s.hands[(seats[g] + rel) % NUM_PLAYERS])
        put_bits(out, g, 48, s.ghost)
    return out
