"""Classic Euchre's rules as Numba kernels: each a loop over the games of a batch.

The one copy of the Classic Euchre section of ``docs/RULES.md``; the batch API
(:class:`ghost_euchre_env.classic.ClassicEuchre`) calls these over the arrays of
a ``ClassicState`` (seat-major [N, 4] fields, uint32 card masks, int8 seats with
-1 for none). Seats 0 & 2 play against seats 1 & 3.

- :func:`start_deals`: "The deal" (five cards each, the upcard; the deal's fields fresh).
- :func:`legal_bits`, :func:`legal_mask`: what the player to act may do.
- :func:`step`: one decision in every game: "First round" and "Second round"
  (pass, order up, name trump; stick the dealer), the dealer's discard,
  "Going alone" (and lone defenders), "Play" (the tricks, skipping a seat
  that sits out).
- :func:`step_and_observe`: a vector step, the step, legal mask and observation in one call.
- :func:`end_deals`: the deals that ended in a step: "Score of the deal", "The end"
  (:func:`game_won`), then the next deal or episode; the deal summary.
- :func:`observe`, :func:`hidden`: the observation of ``OBS_LAYOUT`` and the
  hidden cards of ``HIDDEN_LAYOUT`` (``ghost_euchre_env/classic.py``).

The deal's points ("Score of the deal") are :func:`ghost_euchre_env.kernels.scoring.classic_deal_points`.
"""

import numpy as np
from numba import njit

from .cards import effective_suit, playable, trick_winner
from .scoring import classic_team_points
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

NUM_PLAYERS = 4
NUM_TEAMS = 2
HAND_SIZE = 5
NUM_TRICKS = 5
NUM_ACTIONS = 31

PASS = 24
SUIT_CLUBS = 25  # 25..28 suit C, D, H, S
GO_ALONE = 29
WITH_PARTNER = 30
BIDDING, DISCARD, ALONE, PLAY, OVER = 0, 1, 2, 3, 4  # the state's phase
ALL_ACTIVE = 0b1111  # ``active`` bit s set = seat s plays this deal

# Step outcome of a game (``ended[g]`` of :func:`step`).
GOING_ON, PLAYED_OUT, THROWN_IN = 0, 1, 2

# Observation offsets (the layout of ghost_euchre_env/classic.py's OBS_LAYOUT, checked there).
O_HAND, O_UPCARD, O_DISCARD, O_PLAYED_BY, O_IN_TRICK, O_CURRENT = 0, 24, 48, 72, 168, 288
O_DEALER, O_MAKER, O_LEADER, O_CALLS, O_ALONE, O_SITTING_OUT = 384, 388, 392, 396, 436, 444
O_TRUMP, O_PHASE, O_TRICKS, O_SCORES, O_PROGRESS = 448, 452, 457, 461, 463
OBS_SIZE = 464
HIDDEN_SIZE = 72


@njit(cache=True, inline="always")
def next_active(active, seat):
    """The first seat after ``seat``, clockwise, that plays this deal (``active``: bit s = seat s plays)."""
    for k in range(1, NUM_PLAYERS + 1):
        other = (seat + k) % NUM_PLAYERS
        if active >> other & 1:
            return other
    return -1


@njit(cache=True)
def start_deals(
    games, episode_key, num_chosen, chosen, deal_number, dealer, phase, player, hands, held,
    upcard, discard, passes, maker, trump, alone, lone_defender, active, leader, led_suit, trick,
    trick_number, trick_cards, tricks_won,
):  # fmt: skip
    """ "The deal" in each game of ``games`` (int64[M]): its next deal (a chosen or a random one,
    :func:`skeleton.next_deal_row`: five cards to each of seats 0..3, then the upcard), every
    field of the deal fresh, the bidding opened left of the dealer."""
    row = np.empty(NUM_PLAYERS + 1, np.uint32)
    keys, deck = np.empty(NUM_CARDS, np.uint64), np.empty(NUM_CARDS, np.int8)  # a deck's
    for g in games:
        # fmt: off
        next_deal_row(g, NUM_PLAYERS, HAND_SIZE, episode_key, num_chosen, chosen, deal_number,
            keys, deck, row)
        # fmt: on
        for seat in range(NUM_PLAYERS):
            hands[g, seat] = row[seat]
            held[g, seat] = row[seat]
            alone[g, seat] = -1
            trick[g, seat] = -1
            tricks_won[g, seat] = 0
        upcard[g] = row[NUM_PLAYERS]
        for k in range(NUM_TRICKS):
            trick_cards[g, k] = 0
        discard[g] = -1
        passes[g] = 0
        maker[g] = -1
        trump[g] = -1
        lone_defender[g] = -1
        active[g] = ALL_ACTIVE
        leader[g] = -1
        led_suit[g] = -1
        trick_number[g] = 0
        phase[g] = BIDDING
        player[g] = (dealer[g] + 1) % NUM_PLAYERS


@njit(cache=True)
def legal_bits(stick_the_dealer, phase, player, passes, upcard, hands, trump, led_suit):
    """uint32[N]: the legal actions of the player to act in each game (bit a = action a; 0 when over).

    Round 1 (fewer than four passes): pass or order up the upcard's suit; round
    2: pass or name another suit (with stick the dealer, the dealer may not pass
    after three passes). The discard: any card but the upcard. The alone choice:
    alone or with partner. Play: the cards follow suit allows.
    """
    num_games = len(phase)
    bits = np.zeros(num_games, np.uint32)
    one = np.uint32(1)
    for g in range(num_games):
        seat = player[g]
        if seat < 0:
            continue
        if phase[g] == BIDDING:
            legal = np.uint32(0)
            if not (stick_the_dealer and passes[g] == 2 * NUM_PLAYERS - 1):
                legal |= one << np.uint32(PASS)
            first_round = passes[g] < NUM_PLAYERS
            for suit in range(4):
                if (suit == upcard[g] % 4) == first_round:
                    legal |= one << np.uint32(SUIT_CLUBS + suit)
        elif phase[g] == DISCARD:
            legal = hands[g, seat] & ~(one << np.uint32(upcard[g]))
        elif phase[g] == ALONE:
            legal = (one << np.uint32(GO_ALONE)) | (one << np.uint32(WITH_PARTNER))
        else:  # PLAY
            legal = playable(hands[g, seat], led_suit[g], trump[g])
        bits[g] = legal
    return bits


@njit(cache=True)
def legal_mask(stick_the_dealer, phase, player, passes, upcard, hands, trump, led_suit):
    """bool[N, 31]: :func:`legal_bits` unpacked (row g, column a: action a is legal), in one call."""
    return unpack_rows(
        legal_bits(stick_the_dealer, phase, player, passes, upcard, hands, trump, led_suit),
        NUM_ACTIONS,
    )


@njit(cache=True)
def step(
    actions, stick_the_dealer, allow_lone_defender, phase, player, dealer, hands, held, upcard,
    discard, passes, maker, trump, alone, lone_defender, active, leader, led_suit, trick,
    trick_number, trick_cards, tricks_won, ended,
):  # fmt: skip
    """One decision in every game: actions int[N] (legal, checked by the caller; -1: the game
    is left as it is), in place.

    ended: int8[N], set to GOING_ON, PLAYED_OUT (the fifth trick ended) or THROWN_IN
    (eight passes, without stick the dealer). Returns how many games' deals ended. The
    phases are written out in the loop (no helper call per game: a call with these
    arrays costs more than the rule).
    """
    count = 0
    for g in range(len(actions)):
        action = actions[g]
        seat = player[g]
        ended[g] = GOING_ON
        if action < 0:
            continue
        if phase[g] == BIDDING and action == PASS:
            # "First round" / "Second round": a pass; without stick the dealer, the eighth
            # pass throws the deal in.
            passes[g] += 1
            player[g] = (seat + 1) % NUM_PLAYERS
            if not stick_the_dealer and passes[g] == 2 * NUM_PLAYERS:
                ended[g] = THROWN_IN
        elif phase[g] == BIDDING:
            # Order up (round 1: the dealer picks the upcard up, then discards) or name
            # trump (round 2); the maker then chooses alone or with partner.
            maker[g] = seat
            trump[g] = action - SUIT_CLUBS
            if passes[g] < NUM_PLAYERS:
                up = np.uint32(1) << np.uint32(upcard[g])
                hands[g, dealer[g]] |= up
                held[g, dealer[g]] |= up
                phase[g] = DISCARD
                player[g] = dealer[g]
            else:
                phase[g] = ALONE
        elif phase[g] == DISCARD:
            # The dealer's discard: any card but the upcard, face down.
            bit = np.uint32(1) << np.uint32(action)
            hands[g, seat] &= ~bit
            held[g, seat] &= ~bit
            discard[g] = action
            phase[g] = ALONE
            player[g] = maker[g]
        elif phase[g] == ALONE:
            # "Going alone": a lone player's partner sits the deal out. With lone defenders
            # the defender nearest the dealer's left is asked next, their partner only if
            # that one plays with partner. Then the first player left of the dealer who is
            # in the deal leads.
            goes_alone = action == GO_ALONE
            alone[g, seat] = 1 if goes_alone else 0
            if goes_alone:
                active[g] &= ~(1 << (seat + 2) % NUM_PLAYERS)
            left = (dealer[g] + 1) % NUM_PLAYERS
            asks = False
            if allow_lone_defender:
                first_defender = left if (left - maker[g]) % 2 else (left + 1) % NUM_PLAYERS
                if seat == maker[g]:
                    player[g] = first_defender
                    asks = True
                elif goes_alone:
                    lone_defender[g] = seat
                elif seat == first_defender:
                    player[g] = (seat + 2) % NUM_PLAYERS
                    asks = True
            if not asks:
                first = left if active[g] >> left & 1 else next_active(active[g], left)
                phase[g] = PLAY
                leader[g] = first
                player[g] = first
        else:
            # "Play": the card goes into the trick; the first card sets the suit led; the
            # next player is the next one in the deal.
            bit = np.uint32(1) << np.uint32(action)
            hands[g, seat] &= ~bit
            trick[g, seat] = action
            trick_cards[g, trick_number[g]] |= bit
            if seat == leader[g]:
                led_suit[g] = effective_suit(action, trump[g])
            player[g] = next_active(active[g], seat)
            if player[g] == leader[g]:
                # "Tricks": a full trick goes to its taker, who leads the next.
                winner = trick_winner(trick[g], trump[g], led_suit[g])
                tricks_won[g, winner] += 1
                for other in range(NUM_PLAYERS):
                    trick[g, other] = -1
                led_suit[g] = -1
                leader[g] = winner
                player[g] = winner
                trick_number[g] += 1
                if trick_number[g] == NUM_TRICKS:
                    ended[g] = PLAYED_OUT
        if ended[g] != GOING_ON:
            count += 1
    return count


@njit(cache=True)
def step_and_observe(
    actions, stick_the_dealer, allow_lone_defender, phase, player, dealer, hands, held, upcard,
    discard, passes, maker, trump, alone, lone_defender, active, leader, led_suit, trick,
    trick_number, trick_cards, tricks_won, ended, target_score, max_deals, deal_number, scores,
):  # fmt: skip
    """A vector step in one call: :func:`step`, then, if no deal ended, :func:`legal_mask` and
    :func:`observe` of every game by its player to act.

    Returns (deals ended, mask bool[N, 31], obs float32[N, 464]); when a deal ended, mask
    and obs have no rows (the caller ends the deals, deals again, then observes).
    """
    # fmt: off
    count = step(actions, stick_the_dealer, allow_lone_defender, phase, player, dealer, hands,
        held, upcard, discard, passes, maker, trump, alone, lone_defender, active, leader,
        led_suit, trick, trick_number, trick_cards, tricks_won, ended)
    # fmt: on
    if count:
        return count, np.zeros((0, NUM_ACTIONS), np.bool_), np.zeros((0, OBS_SIZE), np.float32)
    seats = player.astype(np.int64)
    mask = legal_mask(stick_the_dealer, phase, player, passes, upcard, hands, trump, led_suit)
    # fmt: off
    obs = observe(np.empty(0, np.int64), seats, target_score, max_deals, phase, dealer,
        deal_number, scores, hands, held, upcard, discard, passes, maker, trump, alone, active,
        leader, trick, trick_cards, tricks_won)
    # fmt: on
    return count, mask, obs


@njit(cache=True, inline="always")
def game_won(scores, target_score):
    """ "The end": a team (scores: int32[2] by team) has reached the target (no margin needed)."""
    return max(scores[0], scores[1]) >= target_score


@njit(cache=True)
def end_deals(
    ended, auto_reset, one_deal, reward_is_win, loss_reward, score_column, target_score,
    max_deals, rewards, terminated, truncated, summary, keys, episode, episode_key, num_chosen,
    chosen, deal_number, scores, dealer, phase, player, hands, held, upcard, discard, passes,
    maker, trump, alone, lone_defender, active, leader, led_suit, trick, trick_number,
    trick_cards, tricks_won,
):  # fmt: skip
    """The end of the deals that ended in a step (``ended``: int8[N] of :func:`step`), in
    place: "Score of the deal" (the team scores; the rewards, float32[N, 4]), "The end"
    (``one_deal``: every deal ends its episode; terminated, truncated: bool[N]), then the next
    deal where play goes on (:func:`start_deals`); the parts every variant shares are
    :func:`skeleton.end_or_go_on`.

    summary: the arrays of a ``ClassicDealSummary`` of the M ended deals, in field order,
    filled here: one row per deal, the played-out deals first. A thrown-in deal scores
    nothing: no maker, contract -1, not made, not alone.
    """
    # fmt: off
    (games, thrown_in, summary_dealer, summary_tricks, points, summary_scores, summary_maker,
        contract, made, summary_alone, summary_trump, summary_upcard, summary_lone_defender,
        ordered_up) = summary
    # fmt: on
    ended_in_order(ended, PLAYED_OUT, games)
    deal_again = np.empty(len(games), np.int64)
    dealt = 0
    for i in range(len(games)):
        g = games[i]
        played = ended[g] == PLAYED_OUT
        # "Score of the deal": the makers' contract, each team's points. Round 2 cannot name
        # the upcard's suit: trump is the upcard's suit after an order up.
        thrown_in[i] = not played
        ordered_up[i] = upcard[g] % 4 == trump[g]
        goes_alone = played and alone[g, maker[g]] == 1
        points[i, 0] = 0
        points[i, 1] = 0
        if played:
            # fmt: off
            classic_team_points(tricks_won[g], maker[g], goes_alone, lone_defender[g] >= 0,
                points[i])
            # fmt: on
        summary_maker[i] = maker[g] if played else -1
        summary_alone[i] = goes_alone
        contract[i] = (2 if goes_alone else (0 if ordered_up[i] else 1)) if played else -1
        made[i] = played and points[i, maker[g] & 1] > 0
        for team in range(NUM_TEAMS):
            scores[g, team] += points[i, team]
            summary_scores[i, team] = scores[g, team]
        for seat in range(NUM_PLAYERS):
            summary_tricks[i, seat] = tricks_won[g, seat]
        summary_dealer[i] = dealer[g]
        summary_trump[i] = trump[g]
        summary_upcard[i] = upcard[g]
        summary_lone_defender[i] = lone_defender[g]
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
        held,
        upcard,
        discard,
        passes,
        maker,
        trump,
        alone,
        lone_defender,
        active,
        leader,
        led_suit,
        trick,
        trick_number,
        trick_cards,
        tricks_won,
    )
    # fmt: on


@njit(cache=True)
def observe(
    games, seats, target_score, max_deals, phase, dealer, deal_number, scores, hands, held, upcard,
    discard, passes, maker, trump, alone, active, leader, trick, trick_cards, tricks_won,
):  # fmt: skip
    """float32[M, 464]: row i is game games[i] (games empty: game i) seen by seat seats[i].

    Egocentric (relative seat 0 = the observer, 2 its partner), with perfect recall of the
    deal: its hand, the upcard, its own discard as dealer, every card played by seat and by
    trick, the calls, the alone choices, trump.
    """
    obs = np.empty((len(seats), OBS_SIZE), np.float32)  # every cell is written below, once
    blocks = np.empty(O_DEALER // 24, np.int64)  # the card masks of the 16 card blocks
    for i in range(len(seats)):
        g = games[i] if len(games) else i
        me = seats[i]
        # The card blocks, 24 cells each: the hand, the upcard, its own discard as dealer,
        # the cards played by each relative seat, in each trick, in the current trick.
        blocks[0] = hands[g, me]
        blocks[1] = card_bit(upcard[g])
        blocks[2] = card_bit(discard[g]) if dealer[g] == me else 0
        for rel in range(NUM_PLAYERS):
            seat = (me + rel) % NUM_PLAYERS
            blocks[(O_PLAYED_BY - O_HAND) // 24 + rel] = held[g, seat] & ~hands[g, seat]
            blocks[(O_CURRENT - O_HAND) // 24 + rel] = card_bit(trick[g, seat])
        for k in range(NUM_TRICKS):
            blocks[(O_IN_TRICK - O_HAND) // 24 + k] = trick_cards[g, k]
        put_masks(obs, i, O_HAND, blocks)
        # The one-hot fields (dealer .. phase): zeros, then the ones.
        put_zeros(obs, i, O_DEALER, O_TRICKS)
        for rel in range(NUM_PLAYERS):
            seat = (me + rel) % NUM_PLAYERS
            if alone[g, seat] >= 0:  # alone (slot 0) or with partner (slot 1)
                put_one(obs, i, O_ALONE + rel * 2, 1 - int(alone[g, seat]))
            if not active[g] >> seat & 1:
                obs[i, O_SITTING_OUT + rel] = 1.0
            obs[i, O_TRICKS + rel] = ratio(tricks_won[g, seat], NUM_TRICKS)
        put_one(obs, i, O_DEALER, relative(dealer[g], me, NUM_PLAYERS))
        put_one(obs, i, O_MAKER, relative(maker[g], me, NUM_PLAYERS))
        if phase[g] == PLAY:
            put_one(obs, i, O_LEADER, relative(leader[g], me, NUM_PLAYERS))
        # The calls: passes from the dealer's left, round by round, then the call that made trump.
        first = (relative(dealer[g], me, NUM_PLAYERS) + 1) % NUM_PLAYERS
        for k in range(passes[g]):
            rel = (first + k) % NUM_PLAYERS
            obs[i, O_CALLS + (k // NUM_PLAYERS) * 20 + rel * 5] = 1.0
        if maker[g] >= 0:
            k = int(passes[g])
            rel = (first + k) % NUM_PLAYERS
            put_one(obs, i, O_CALLS + (k // NUM_PLAYERS) * 20 + rel * 5 + 1, trump[g])
        put_one(obs, i, O_TRUMP, trump[g])
        if phase[g] == BIDDING:
            obs[i, O_PHASE + (1 if passes[g] >= NUM_PLAYERS else 0)] = 1.0
        elif phase[g] != OVER:
            put_one(obs, i, O_PHASE + 1, phase[g])
        team = me & 1
        obs[i, O_SCORES] = ratio(scores[g, team], target_score)
        obs[i, O_SCORES + 1] = ratio(scores[g, 1 - team], target_score)
        obs[i, O_PROGRESS] = ratio(deal_number[g], max_deals)
    return obs


@njit(cache=True)
def hidden(seats, hands):
    """float32[N, 72]: the hands of the three seats after seats[g] (relative 1, 2, 3)."""
    out = np.zeros((len(seats), HIDDEN_SIZE), np.float32)
    for g in range(len(seats)):
        for rel in range(1, NUM_PLAYERS):
            put_bits(out, g, (rel - 1) * 24, hands[g, (seats[g] + rel) % NUM_PLAYERS])
    return out
