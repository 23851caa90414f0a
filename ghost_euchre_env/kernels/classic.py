"""Classic Euchre's rules as Numba kernels: each a loop over the games of a batch.

The one copy of the Classic Euchre section of ``docs/RULES.md``; the batch API
(:class:`ghost_euchre_env.classic.ClassicEuchre`) calls these with a ``ClassicState``'s
records (``state``: one record a game, ``s = state[g]`` game g's, its fields named as the
state's: uint32 card masks, int8 seats with -1 for none) and the engine's settings
(``settings``: one record, its rules options and episode settings). Seats 0 & 2 play
against seats 1 & 3.

- :func:`start_deals`: "The deal" (five cards each, the upcard; the deal's fields fresh).
- :func:`legal_bits`, :func:`legal_mask`: what the player to act may do.
- :func:`step`: one decision in every game: "First round" and "Second round"
  (pass, order up, name trump; stick the dealer), the dealer's discard,
  "Going alone" (and lone defenders), "Play" (the tricks, skipping a seat
  that sits out).
- :func:`step_and_observe`: a vector step, the actions' check, the step, legal mask and
  observation in one call; :func:`observe_every`: the legal mask and observation alone.
- :func:`end_deals`: the deals that ended in a step: "Score of the deal", "The end"
  (:func:`game_won`), then the next deal or episode; the deal summary.
- :func:`observe` (:func:`observe_into` an array given), :func:`hidden`: the observation
  of ``OBS_LAYOUT`` and the hidden cards of ``HIDDEN_LAYOUT`` (``ghost_euchre_env/classic.py``).

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
    vector_step,
)
from .skeleton import observe_every as skeleton_observe_every

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
def start_deals(games, state, chosen):
    """ "The deal" in each game of ``games`` (int64[M]): its next deal (a chosen one of
    ``chosen``, uint32[N, K, 5], or a random one, :func:`skeleton.next_deal_row`: five cards to
    each of seats 0..3, then the upcard), every field of the deal fresh, the bidding opened
    left of the dealer."""
    row = np.empty(NUM_PLAYERS + 1, np.uint32)
    keys, deck = np.empty(NUM_CARDS, np.uint64), np.empty(NUM_CARDS, np.int8)  # a deck's
    for g in games:
        s = state[g]
        next_deal_row(s, chosen[g], NUM_PLAYERS, HAND_SIZE, keys, deck, row)
        for seat in range(NUM_PLAYERS):
            s.hands[seat] = row[seat]
            s.held[seat] = row[seat]
            s.alone[seat] = -1
            s.trick[seat] = -1
            s.tricks_won[seat] = 0
        s.upcard = row[NUM_PLAYERS]
        for k in range(NUM_TRICKS):
            s.trick_cards[k] = 0
        s.discard = -1
        s.passes = 0
        s.maker = -1
        s.trump = -1
        s.lone_defender = -1
        s.active = ALL_ACTIVE
        s.leader = -1
        s.led_suit = -1
        s.trick_number = 0
        s.phase = BIDDING
        s.player = (s.dealer + 1) % NUM_PLAYERS


@njit(cache=True)
def legal_bits(state, settings):
    """uint32[N]: the legal actions of the player to act in each game (bit a = action a; 0 when over).

    Round 1 (fewer than four passes): pass or order up the upcard's suit; round
    2: pass or name another suit (with stick the dealer, the dealer may not pass
    after three passes). The discard: any card but the upcard. The alone choice:
    alone or with partner. Play: the cards follow suit allows. state, settings: the engine's
    records and settings.
    """
    stick_the_dealer = settings[0].stick_the_dealer
    num_games = len(state)
    bits = np.zeros(num_games, np.uint32)
    one = np.uint32(1)
    for g in range(num_games):
        s = state[g]
        seat = s.player
        if seat < 0:
            continue
        if s.phase == BIDDING:
            legal = np.uint32(0)
            if not (stick_the_dealer and s.passes == 2 * NUM_PLAYERS - 1):
                legal |= one << np.uint32(PASS)
            first_round = s.passes < NUM_PLAYERS
            for suit in range(4):
                if (suit == s.upcard % 4) == first_round:
                    legal |= one << np.uint32(SUIT_CLUBS + suit)
        elif s.phase == DISCARD:
            legal = s.hands[seat] & ~(one << np.uint32(s.upcard))
        elif s.phase == ALONE:
            legal = (one << np.uint32(GO_ALONE)) | (one << np.uint32(WITH_PARTNER))
        else:  # PLAY
            legal = playable(s.hands[seat], s.led_suit, s.trump)
        bits[g] = legal
    return bits


@njit(cache=True)
def legal_mask(state, settings):
    """bool[N, 31]: :func:`legal_bits` unpacked (row g, column a: action a is legal), in one call."""
    return unpack_rows(legal_bits(state, settings), NUM_ACTIONS)


@njit(cache=True)
def step(actions, state, settings, ended):
    """One decision in every game: actions int[N] (legal, checked by the caller; -1: the game
    is left as it is), in place; state, settings: the engine's records and settings.

    ended: int8[N], set to GOING_ON, PLAYED_OUT (the fifth trick ended) or THROWN_IN
    (eight passes, without stick the dealer). Returns how many games' deals ended. The
    phases are written out in the loop (no helper call per game: a call with these
    arrays costs more than the rule).
    """
    rules = settings[0]
    count = 0
    for g in range(len(actions)):
        s = state[g]
        action = actions[g]
        seat = s.player
        ended[g] = GOING_ON
        if action < 0:
            continue
        if s.phase == BIDDING and action == PASS:
            # "First round" / "Second round": a pass; without stick the dealer, the eighth
            # pass throws the deal in.
            s.passes += 1
            s.player = (seat + 1) % NUM_PLAYERS
            if not rules.stick_the_dealer and s.passes == 2 * NUM_PLAYERS:
                ended[g] = THROWN_IN
        elif s.phase == BIDDING:
            # Order up (round 1: the dealer picks the upcard up, then discards) or name
            # trump (round 2); the maker then chooses alone or with partner.
            s.maker = seat
            s.trump = action - SUIT_CLUBS
            if s.passes < NUM_PLAYERS:
                up = np.uint32(1) << np.uint32(s.upcard)
                s.hands[s.dealer] |= up
                s.held[s.dealer] |= up
                s.phase = DISCARD
                s.player = s.dealer
            else:
                s.phase = ALONE
        elif s.phase == DISCARD:
            # The dealer's discard: any card but the upcard, face down.
            bit = np.uint32(1) << np.uint32(action)
            s.hands[seat] &= ~bit
            s.held[seat] &= ~bit
            s.discard = action
            s.phase = ALONE
            s.player = s.maker
        elif s.phase == ALONE:
            # "Going alone": a lone player's partner sits the deal out. With lone defenders
            # the defender nearest the dealer's left is asked next, their partner only if
            # that one plays with partner. Then the first player left of the dealer who is
            # in the deal leads.
            goes_alone = action == GO_ALONE
            s.alone[seat] = 1 if goes_alone else 0
            if goes_alone:
                s.active &= ~(1 << (seat + 2) % NUM_PLAYERS)
            left = (s.dealer + 1) % NUM_PLAYERS
            asks = False
            if rules.allow_lone_defender:
                first_defender = left if (left - s.maker) % 2 else (left + 1) % NUM_PLAYERS
                if seat == s.maker:
                    s.player = first_defender
                    asks = True
                elif goes_alone:
                    s.lone_defender = seat
                elif seat == first_defender:
                    s.player = (seat + 2) % NUM_PLAYERS
                    asks = True
            if not asks:
                first = left if s.active >> left & 1 else next_active(s.active, left)
                s.phase = PLAY
                s.leader = first
                s.player = first
        else:
            # "Play": the card goes into the trick; the first card sets the suit led; the
            # next player is the next one in the deal.
            bit = np.uint32(1) << np.uint32(action)
            s.hands[seat] &= ~bit
            s.trick[seat] = action
            s.trick_cards[s.trick_number] |= bit
            if seat == s.leader:
                s.led_suit = effective_suit(action, s.trump)
            s.player = next_active(s.active, seat)
            if s.player == s.leader:
                # "Tricks": a full trick goes to its taker, who leads the next.
                winner = trick_winner(s.trick, s.trump, s.led_suit)
                s.tricks_won[winner] += 1
                for other in range(NUM_PLAYERS):
                    s.trick[other] = -1
                s.led_suit = -1
                s.leader = winner
                s.player = winner
                s.trick_number += 1
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
    """ "The end": a team (scores: int32[2] by team) has reached the target (no margin needed)."""
    return max(scores[0], scores[1]) >= target_score


@njit(cache=True)
def end_deals(ended, auto_reset, state, chosen, settings, outcome, summary):
    """The end of the deals that ended in a step (``ended``: int8[N] of :func:`step`), in
    place: "Score of the deal" (the team scores; the rewards), "The end" (``settings``'
    ``one_deal``: every deal ends its episode), then the next deal where play goes on
    (:func:`start_deals`); the parts every variant shares are :func:`skeleton.end_or_go_on`.

    state, chosen, settings: the engine's records, chosen deals and settings; outcome: the
    step's (rewards float32[N, 4], terminated bool[N], truncated bool[N]), set here; summary:
    the arrays of a ``ClassicDealSummary`` of the M ended deals, in field order, filled here:
    one row per deal, the played-out deals first. A thrown-in deal scores nothing: no maker,
    contract -1, not made, not alone.
    """
    # fmt: off
    (games, thrown_in, summary_dealer, summary_tricks, points, summary_scores, summary_maker,
        contract, made, summary_alone, summary_trump, summary_upcard, summary_lone_defender,
        ordered_up) = summary
    # fmt: on
    rules = settings[0]
    ended_in_order(ended, PLAYED_OUT, games)
    deal_again = np.empty(len(games), np.int64)
    dealt = 0
    for i in range(len(games)):
        g = games[i]
        s = state[g]
        played = ended[g] == PLAYED_OUT
        # "Score of the deal": the makers' contract, each team's points. Round 2 cannot name
        # the upcard's suit: trump is the upcard's suit after an order up.
        thrown_in[i] = not played
        ordered_up[i] = s.upcard % 4 == s.trump
        goes_alone = played and s.alone[s.maker] == 1
        points[i, 0] = 0
        points[i, 1] = 0
        if played:
            # fmt: off
            classic_team_points(s.tricks_won, s.maker, goes_alone, s.lone_defender >= 0,
                points[i])
            # fmt: on
        summary_maker[i] = s.maker if played else -1
        summary_alone[i] = goes_alone
        contract[i] = (2 if goes_alone else (0 if ordered_up[i] else 1)) if played else -1
        made[i] = played and points[i, s.maker & 1] > 0
        for team in range(NUM_TEAMS):
            s.scores[team] += points[i, team]
            summary_scores[i, team] = s.scores[team]
        for seat in range(NUM_PLAYERS):
            summary_tricks[i, seat] = s.tricks_won[seat]
        summary_dealer[i] = s.dealer
        summary_trump[i] = s.trump
        summary_upcard[i] = s.upcard
        summary_lone_defender[i] = s.lone_defender
        # "The end", then the next deal or the next episode.
        over = rules.one_deal or game_won(s.scores, rules.target_score)
        if end_or_go_on(g, s, points[i], over, auto_reset, rules, OVER, outcome):
            deal_again[dealt] = g
            dealt += 1
    start_deals(deal_again[:dealt], state, chosen)


@njit(cache=True)
def observe(games, seats, state, settings):
    """float32[M, 464]: row i is game games[i] (games empty: game i) seen by seat seats[i].

    Egocentric (relative seat 0 = the observer, 2 its partner), with perfect recall of the
    deal: its hand, the upcard, its own discard as dealer, every card played by seat and by
    trick, the calls, the alone choices, trump. state, settings: the engine's records and
    settings.
    """
    obs = np.empty((len(seats), OBS_SIZE), np.float32)
    observe_into(games, seats, state, settings, obs)
    return obs


@njit(cache=True)
def observe_into(games, seats, state, settings, obs):
    """:func:`observe` into ``obs`` (float32[M, 464]), every cell written once."""
    rules = settings[0]
    blocks = np.empty(O_DEALER // 24, np.int64)  # the card masks of the 16 card blocks
    for i in range(len(seats)):
        g = games[i] if len(games) else i
        me = seats[i]
        s = state[g]
        # The card blocks, 24 cells each: the hand, the upcard, its own discard as dealer,
        # the cards played by each relative seat, in each trick, in the current trick.
        blocks[0] = s.hands[me]
        blocks[1] = card_bit(s.upcard)
        blocks[2] = card_bit(s.discard) if s.dealer == me else 0
        for rel in range(NUM_PLAYERS):
            seat = (me + rel) % NUM_PLAYERS
            blocks[(O_PLAYED_BY - O_HAND) // 24 + rel] = s.held[seat] & ~s.hands[seat]
            blocks[(O_CURRENT - O_HAND) // 24 + rel] = card_bit(s.trick[seat])
        for k in range(NUM_TRICKS):
            blocks[(O_IN_TRICK - O_HAND) // 24 + k] = s.trick_cards[k]
        put_masks(obs, i, O_HAND, blocks)
        # The one-hot fields (dealer .. phase): zeros, then the ones.
        put_zeros(obs, i, O_DEALER, O_TRICKS)
        for rel in range(NUM_PLAYERS):
            seat = (me + rel) % NUM_PLAYERS
            if s.alone[seat] >= 0:  # alone (slot 0) or with partner (slot 1)
                put_one(obs, i, O_ALONE + rel * 2, 1 - int(s.alone[seat]))
            if not s.active >> seat & 1:
                obs[i, O_SITTING_OUT + rel] = 1.0
            obs[i, O_TRICKS + rel] = ratio(s.tricks_won[seat], NUM_TRICKS)
        put_one(obs, i, O_DEALER, relative(s.dealer, me, NUM_PLAYERS))
        put_one(obs, i, O_MAKER, relative(s.maker, me, NUM_PLAYERS))
        if s.phase == PLAY:
            put_one(obs, i, O_LEADER, relative(s.leader, me, NUM_PLAYERS))
        # The calls: passes from the dealer's left, round by round, then the call that made trump.
        first = (relative(s.dealer, me, NUM_PLAYERS) + 1) % NUM_PLAYERS
        for k in range(s.passes):
            rel = (first + k) % NUM_PLAYERS
            obs[i, O_CALLS + (k // NUM_PLAYERS) * 20 + rel * 5] = 1.0
        if s.maker >= 0:
            k = int(s.passes)
            rel = (first + k) % NUM_PLAYERS
            put_one(obs, i, O_CALLS + (k // NUM_PLAYERS) * 20 + rel * 5 + 1, s.trump)
        put_one(obs, i, O_TRUMP, s.trump)
        if s.phase == BIDDING:
            obs[i, O_PHASE + (1 if s.passes >= NUM_PLAYERS else 0)] = 1.0
        elif s.phase != OVER:
            put_one(obs, i, O_PHASE + 1, s.phase)
        team = me & 1
        obs[i, O_SCORES] = ratio(s.scores[team], rules.target_score)
        obs[i, O_SCORES + 1] = ratio(s.scores[1 - team], rules.target_score)
        obs[i, O_PROGRESS] = ratio(s.deal_number, rules.max_deals)


@njit(cache=True)
def hidden(seats, state):
    """float32[N, 72]: the hands of the three seats after seats[g] (relative 1, 2, 3); state:
    the engine's records."""
    out = np.zeros((len(seats), HIDDEN_SIZE), np.float32)
    for g in range(len(seats)):
        s = state[g]
        for rel in range(1, NUM_PLAYERS):
            put_bits(out, g, (rel - 1) * 24, s.hands[(seats[g] + rel) % NUM_PLAYERS])
    return out
