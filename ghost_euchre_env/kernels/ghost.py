"""Ghost Hand Euchre's rules as Numba kernels: each a loop over the games of a batch.

The one copy of the Ghost Hand section of ``docs/RULES.md``; the batch API
(:class:`ghost_euchre_env.ghost.GhostEuchre`) calls these over the arrays of a
``GhostState`` (seat-major [N, 3] fields, uint32 card masks, int8 seats with -1
for none). One call handles every game of the batch, one or sixteen thousand.

- :func:`start_deals`: "The deal" (the next deal's hands and ghost hand given out,
  the deal's fields fresh, the auction opened left of the dealer).
- :func:`legal_bits`, :func:`legal_mask`: what the player to act may do (auction, trump, play).
- :func:`step`: one decision in every game: "The auction" (swap, bid, moon,
  pass; the end of the auction, "Nobody bids"), "Trump", "Play" and
  "Reneging" (the tricks, follow suit, who takes a trick), phase by phase.
- :func:`step_and_observe`: a vector step, the step, legal mask and observation in one call.
- :func:`end_deals`: the deals that ended in a step: "Score of the deal", "The end"
  (:func:`game_won`), then the next deal or episode; the deal summary.
- :func:`observe`, :func:`hidden`: the observation of ``OBS_LAYOUT`` and the
  hidden cards of ``HIDDEN_LAYOUT`` (``ghost_euchre_env/ghost.py``).

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
)

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

# Step outcome of a game (``ended[g]`` of :func:`step`).
GOING_ON, PLAYED_OUT, THROWN_IN = 0, 1, 2

# Observation offsets (the layout of ghost_euchre_env/ghost.py's OBS_LAYOUT, checked there).
O_HAND, O_DEAD, O_PLAYED_BY, O_IN_TRICK, O_CURRENT = 0, 24, 48, 120, 264
O_SWAPPER, O_DECLARER, O_DEALER, O_LEADER = 336, 339, 342, 345
O_BIDS, O_PASSES, O_CONTRACT, O_TRUMP, O_PHASE = 348, 360, 372, 376, 380
O_TRICKS, O_SCORES, O_PROGRESS = 383, 386, 389
OBS_SIZE = 390
HIDDEN_SIZE = 72


@njit(cache=True)
def start_deals(
    games, episode_key, num_chosen, chosen, deal_number, dealer, phase, player, hands, ghost,
    swapper, acted, passed_at, bids, high_bid, declarer, trump, leader, led_suit, trick,
    trick_number, played_cards, trick_cards, tricks_won, reneges,
):  # fmt: skip
    """ "The deal" in each game of ``games`` (int64[M]): its next deal (a chosen or a random one,
    :func:`skeleton.next_deal_row`: the hands of seats 0..2, the ghost hand), every field of
    the deal fresh, the auction opened left of the dealer."""
    row = np.empty(NUM_PLAYERS + 1, np.uint32)
    keys, deck = np.empty(NUM_CARDS, np.uint64), np.empty(NUM_CARDS, np.int8)  # a deck's
    for g in games:
        # fmt: off
        next_deal_row(g, NUM_PLAYERS + 1, HAND_SIZE, episode_key, num_chosen, chosen,
            deal_number, keys, deck, row)
        # fmt: on
        for seat in range(NUM_PLAYERS):
            hands[g, seat] = row[seat]
            acted[g, seat] = False
            passed_at[g, seat] = -1
            trick[g, seat] = -1
            played_cards[g, seat] = 0
            tricks_won[g, seat] = 0
            reneges[g, seat] = 0
        ghost[g] = row[NUM_PLAYERS]
        for level in range(bids.shape[1]):
            bids[g, level] = -1
        for k in range(NUM_TRICKS):
            trick_cards[g, k] = 0
        swapper[g] = -1
        high_bid[g] = 0
        declarer[g] = -1
        trump[g] = -1
        leader[g] = -1
        led_suit[g] = -1
        trick_number[g] = 0
        phase[g] = AUCTION
        player[g] = (dealer[g] + 1) % NUM_PLAYERS


@njit(cache=True)
def legal_bits(allow_renege, phase, player, hands, swapper, acted, high_bid, trump, led_suit):
    """uint64[N]: the legal actions of the player to act in each game (bit a = action a; 0 when over).

    Auction: pass; a bid above the high bid (a moon above 5); a swap while
    nobody has swapped and the player has not yet bid or passed. Trump: any
    suit. Play: the cards follow suit allows (any card held with ``allow_renege``).
    """
    num_games = len(phase)
    bits = np.zeros(num_games, np.uint64)
    one = np.uint64(1)
    for g in range(num_games):
        seat = player[g]
        if seat < 0:
            continue
        if phase[g] == AUCTION:
            legal = one << np.uint64(PASS)
            for level in range(3, MOON_LEVEL + 1):
                if level > high_bid[g]:
                    legal |= one << np.uint64(BID_3 + level - 3)
            if swapper[g] < 0 and not acted[g, seat]:
                legal |= one << np.uint64(SWAP)
        elif phase[g] == TRUMP:
            legal = np.uint64(0b1111) << np.uint64(TRUMP_CLUBS)
        else:  # PLAY
            hand = hands[g, seat]
            legal = np.uint64(hand if allow_renege else playable(hand, led_suit[g], trump[g]))
        bits[g] = legal
    return bits


@njit(cache=True)
def legal_mask(allow_renege, phase, player, hands, swapper, acted, high_bid, trump, led_suit):
    """bool[N, 34]: :func:`legal_bits` unpacked (row g, column a: action a is legal), in one call."""
    return unpack_rows(
        legal_bits(allow_renege, phase, player, hands, swapper, acted, high_bid, trump, led_suit),
        NUM_ACTIONS,
    )


@njit(cache=True)
def step(
    actions, auction_open, allow_renege, phase, player, dealer, hands, ghost, swapper, acted,
    passed_at, bids, high_bid, declarer, trump, leader, led_suit, trick, trick_number,
    played_cards, trick_cards, tricks_won, reneges, ended,
):  # fmt: skip
    """One decision in every game: actions int[N] (legal, checked by the caller; -1: the game
    is left as it is), in place.

    ended: int8[N], set to GOING_ON, PLAYED_OUT (the sixth trick ended) or THROWN_IN
    (nobody bid). Returns how many games' deals ended. The phases are written out in
    the loop (no helper call per game: a call with these arrays costs more than the rule).
    """
    count = 0
    for g in range(len(actions)):
        action = actions[g]
        seat = player[g]
        ended[g] = GOING_ON
        if action < 0:
            continue
        if phase[g] == AUCTION and action == SWAP:
            # "The auction", a swap: take the ghost hand; the old one becomes the dead hand.
            # The same player then bids or passes.
            old_hand = hands[g, seat]
            hands[g, seat] = ghost[g]
            ghost[g] = old_hand
            swapper[g] = seat
        elif phase[g] == AUCTION:
            # "The auction", a pass (remember the high bid passed at: 0 none, 1..3 = 3..5)
            # or a bid (3, 4, 5; 6 = the moon).
            acted[g, seat] = True
            if action == PASS:
                passed_at[g, seat] = high_bid[g] - 2 if high_bid[g] >= 3 else 0
            else:
                level = action - (BID_3 - 3)
                high_bid[g] = level
                declarer[g] = seat
                bids[g, level - 3] = seat
            # Who speaks next. Single round: each seat once, the dealer last. Open: the
            # seats that have not passed, but the high bidder, until all of them have.
            # A moon ends the auction at once.
            first = (seat + 1) % NUM_PLAYERS
            if not auction_open:
                over = seat == dealer[g] or high_bid[g] == MOON_LEVEL
                player[g] = first
            else:
                second = (first + 1) % NUM_PLAYERS
                first_may = passed_at[g, first] < 0 and first != declarer[g]
                second_may = passed_at[g, second] < 0 and second != declarer[g]
                over = high_bid[g] == MOON_LEVEL or not (first_may or second_may)
                player[g] = first if first_may else second
            if over and declarer[g] < 0:  # "Nobody bids": the deal is thrown in
                ended[g] = THROWN_IN
            elif over:  # the declarer names trump
                phase[g] = TRUMP
                player[g] = declarer[g]
        elif phase[g] == TRUMP:
            # "Trump": the declarer names any suit, then leads the first trick.
            trump[g] = action - TRUMP_CLUBS
            phase[g] = PLAY
            leader[g] = declarer[g]
            player[g] = declarer[g]
        else:
            # "Play": the card goes into the trick (with allow_renege, a card follow suit
            # forbids counts a renege); the first card sets the suit led.
            bit = np.uint32(1) << np.uint32(action)
            if allow_renege and not (playable(hands[g, seat], led_suit[g], trump[g]) & bit):
                reneges[g, seat] += 1
            hands[g, seat] &= ~bit
            played_cards[g, seat] |= bit
            trick[g, seat] = action
            trick_cards[g, trick_number[g]] |= bit
            if seat == leader[g]:
                led_suit[g] = effective_suit(action, trump[g])
            player[g] = (seat + 1) % NUM_PLAYERS
            if player[g] == leader[g]:
                # "Tricks": a full trick goes to its taker, who leads the next.
                winner = trick_winner(trick[g], trump[g], led_suit[g])
                tricks_won[g, winner] += 1
                trick_number[g] += 1
                leader[g] = winner
                player[g] = winner
                for other in range(NUM_PLAYERS):
                    trick[g, other] = -1
                led_suit[g] = -1
                if trick_number[g] == NUM_TRICKS:
                    ended[g] = PLAYED_OUT
        if ended[g] != GOING_ON:
            count += 1
    return count


@njit(cache=True)
def step_and_observe(
    actions, auction_open, allow_renege, phase, player, dealer, hands, ghost, swapper, acted,
    passed_at, bids, high_bid, declarer, trump, leader, led_suit, trick, trick_number,
    played_cards, trick_cards, tricks_won, reneges, ended, target_score, max_deals,
    deal_number, scores,
):  # fmt: skip
    """A vector step in one call: :func:`step`, then, if no deal ended, :func:`legal_mask` and
    :func:`observe` of every game by its player to act.

    Returns (deals ended, mask bool[N, 34], obs float32[N, 390]); when a deal ended, mask
    and obs have no rows (the caller ends the deals, deals again, then observes).
    """
    # fmt: off
    count = step(actions, auction_open, allow_renege, phase, player, dealer, hands, ghost,
        swapper, acted, passed_at, bids, high_bid, declarer, trump, leader, led_suit, trick,
        trick_number, played_cards, trick_cards, tricks_won, reneges, ended)
    # fmt: on
    if count:
        return count, np.zeros((0, NUM_ACTIONS), np.bool_), np.zeros((0, OBS_SIZE), np.float32)
    seats = player.astype(np.int64)
    mask = legal_mask(allow_renege, phase, player, hands, swapper, acted, high_bid, trump, led_suit)
    # fmt: off
    obs = observe(np.empty(0, np.int64), seats, target_score, max_deals, phase, dealer,
        deal_number, scores, hands, ghost, swapper, passed_at, bids, high_bid, declarer, trump,
        leader, trick, played_cards, trick_cards, tricks_won)
    # fmt: on
    return count, mask, obs


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
def end_deals(
    ended, auto_reset, one_deal, reward_is_win, loss_reward, score_column, target_score,
    max_deals, rewards, terminated, truncated, summary, keys, episode, episode_key, num_chosen,
    chosen, deal_number, scores, moon_points, moon_set_penalty, renege_penalty, dealer, phase,
    player, hands, ghost, swapper, acted, passed_at, bids, high_bid, declarer, trump, leader,
    led_suit, trick, trick_number, played_cards, trick_cards, tricks_won, reneges,
):  # fmt: skip
    """The end of the deals that ended in a step (``ended``: int8[N] of :func:`step`), in
    place: "Score of the deal" (the scores; the rewards, float32[N, 3]), "The end"
    (``one_deal``: every deal ends its episode; terminated, truncated: bool[N]), then the next
    deal where play goes on (:func:`start_deals`); the parts every variant shares are
    :func:`skeleton.end_or_go_on`.

    summary: the arrays of a ``GhostDealSummary`` of the M ended deals, in field order, filled
    here: one row per deal, the played-out deals first. A thrown-in deal scores nothing: no
    maker, contract -1, not made.
    """
    # fmt: off
    (games, thrown_in, summary_dealer, summary_tricks, points, summary_scores, maker, contract,
        made, alone, summary_swapper, bid, summary_trump, summary_reneges) = summary
    # fmt: on
    ended_in_order(ended, PLAYED_OUT, games)
    deal_again = np.empty(len(games), np.int64)
    dealt = 0
    for i in range(len(games)):
        g = games[i]
        played = ended[g] == PLAYED_OUT
        # "Score of the deal": the declarer's contract, every seat's points.
        thrown_in[i] = not played
        maker[i] = declarer[g] if played else -1
        contract[i] = high_bid[g] - 3 if played else -1
        made[i] = played and tricks_won[g, declarer[g]] >= high_bid[g]
        alone[i] = False
        for seat in range(NUM_PLAYERS):
            # fmt: off
            points[i, seat] = ghost_seat_points(seat, tricks_won[g], reneges[g], declarer[g],
                high_bid[g], moon_points, moon_set_penalty, renege_penalty) if played else 0
            # fmt: on
            scores[g, seat] += points[i, seat]
            summary_tricks[i, seat] = tricks_won[g, seat]
            summary_scores[i, seat] = scores[g, seat]
            summary_reneges[i, seat] = reneges[g, seat]
        summary_dealer[i] = dealer[g]
        summary_swapper[i] = swapper[g]
        bid[i] = high_bid[g]
        summary_trump[i] = trump[g]
        # "The end", then the next deal or the next episode.
        over = one_deal or game_won(scores[g], target_score)
        # fmt: off
        if end_or_go_on(g, points[i], over, reward_is_win, loss_reward, score_column, rewards,
                auto_reset, max_deals, NUM_PLAYERS, OVER, keys, episode, episode_key, num_chosen,
                dealer, deal_number, scores, phase, player, terminated, truncated):
            deal_again[dealt] = g
            dealt += 1
    start_deals(
        deal_again[:dealt],
        episode_key,
        num_chosen,
        chosen,
        deal_number,
        dealer,
        phase,
        player,
        hands,
        ghost,
        swapper,
        acted,
        passed_at,
        bids,
        high_bid,
        declarer,
        trump,
        leader,
        led_suit,
        trick,
        trick_number,
        played_cards,
        trick_cards,
        tricks_won,
        reneges,
    )
    # fmt: on


@njit(cache=True)
def observe(
    games,
    seats,
    target_score,
    max_deals,
    phase,
    dealer,
    deal_number,
    scores,
    hands,
    ghost,
    swapper,
    passed_at,
    bids,
    high_bid,
    declarer,
    trump,
    leader,
    trick,
    played_cards,
    trick_cards,
    tricks_won,
):
    """float32[M, 390]: row i is game games[i] (games empty: game i) seen by seat seats[i], egocentric (relative seat 0 = the observer).

    Perfect recall: its hand and its dead hand, every card played by seat and by
    trick, the auction (bids, passes, the swap), trump, the tricks and scores.
    """
    obs = np.empty((len(seats), OBS_SIZE), np.float32)  # every cell is written below, once
    blocks = np.empty(O_SWAPPER // 24, np.int64)  # the card masks of the 14 card blocks
    for i in range(len(seats)):
        g = games[i] if len(games) else i
        me = seats[i]
        # The card blocks, 24 cells each: the hand, the dead hand, the cards played
        # by each relative seat, in each trick, in the current trick.
        blocks[0] = hands[g, me]
        blocks[1] = ghost[g] if swapper[g] == me else 0
        for rel in range(NUM_PLAYERS):
            seat = (me + rel) % NUM_PLAYERS
            blocks[(O_PLAYED_BY - O_HAND) // 24 + rel] = played_cards[g, seat]
            blocks[(O_CURRENT - O_HAND) // 24 + rel] = card_bit(trick[g, seat])
        for k in range(NUM_TRICKS):
            blocks[(O_IN_TRICK - O_HAND) // 24 + k] = trick_cards[g, k]
        put_masks(obs, i, O_HAND, blocks)
        # The one-hot fields (swapper .. phase): zeros, then the ones.
        put_zeros(obs, i, O_SWAPPER, O_TRICKS)
        for rel in range(NUM_PLAYERS):
            seat = (me + rel) % NUM_PLAYERS
            put_one(obs, i, O_PASSES + rel * 4, passed_at[g, seat])  # the high bid it passed at
            obs[i, O_TRICKS + rel] = ratio(tricks_won[g, seat], NUM_TRICKS)
            obs[i, O_SCORES + rel] = ratio(scores[g, seat], target_score)
        put_one(obs, i, O_SWAPPER, relative(swapper[g], me, NUM_PLAYERS))
        put_one(obs, i, O_DECLARER, relative(declarer[g], me, NUM_PLAYERS))
        put_one(obs, i, O_DEALER, relative(dealer[g], me, NUM_PLAYERS))
        if phase[g] == PLAY:
            put_one(obs, i, O_LEADER, relative(leader[g], me, NUM_PLAYERS))
        for level in range(4):
            put_one(obs, i, O_BIDS + level * 3, relative(bids[g, level], me, NUM_PLAYERS))
        if high_bid[g] >= 3:
            put_one(obs, i, O_CONTRACT, high_bid[g] - 3)
        put_one(obs, i, O_TRUMP, trump[g])
        if phase[g] != OVER:
            put_one(obs, i, O_PHASE, phase[g])
        obs[i, O_PROGRESS] = ratio(deal_number[g], max_deals)
    return obs


@njit(cache=True)
def hidden(seats, hands, ghost):
    """float32[N, 72]: the hands of the two seats after seats[g] (relative 1, 2), then the ghost hand."""
    out = np.zeros((len(seats), HIDDEN_SIZE), np.float32)
    for g in range(len(seats)):
        for rel in range(1, NUM_PLAYERS):
            put_bits(out, g, (rel - 1) * 24, hands[g, (seats[g] + rel) % NUM_PLAYERS])
        put_bits(out, g, 48, ghost[g])
    return out
