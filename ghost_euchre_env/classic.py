"""Classic Euchre (4 players, 2 partnerships): the pure, batched rules engine.

Every rule of the Classic Euchre section of ``docs/RULES.md`` lives here; the
adapters (vector API, ``classic_euchre_v0``) hold none. Seats 0 & 2 (team 0)
play against seats 1 & 3 (team 1). A batch of N games is a :class:`ClassicState`
of arrays with a leading game axis; :meth:`ClassicEuchre.step` advances every
game by one decision with whole-batch array operations (no Python loop over
games) and mutates the state in place. Card tables, follow-suit and trick
resolution are the shared ones of :mod:`ghost_euchre_env.cards`.

Action ids (31, identical to OpenSpiel's ``euchre``):

{actions}

Decision order within a deal (as in OpenSpiel): bidding round 1 from the
dealer's left (pass or order up), round 2 (pass or name a suit other than the
upcard's; with stick the dealer the dealer may not pass), the dealer's discard
after an order up (any card but the upcard, as in OpenSpiel), the maker's
alone/partner choice, then, with ``allow_lone_defender``, the defenders' choices
(the first defender left of the dealer first; the second is asked only if the
first plays with partner), then five tricks led by the first active seat left
of the dealer. Without stick the dealer, eight passes throw the deal in.

Scoring, to the team: makers take 3-4 tricks: 1; all 5: 2 (4 if the maker went
alone); makers take 0-2 (euchred): 2 to the defenders (4 against a lone
defender). With ``episode="deal"`` each player's reward is its team's points
(0 for the other team), so OpenSpiel's zero-sum return of a seat equals its
reward minus the reward of the seat on its left.

Observation: float32[464] for one seat, egocentric (relative seat r = 0 is the
observer, r = 1 the next seat clockwise, r = 2 the partner), with perfect recall
of everything that seat has seen in the deal (the dealer sees its own discard).
Layout (``OBS_LAYOUT``):

{layout}
"""

import dataclasses
import enum

import numpy as np

from . import dealing
from .cards import (
    ALL_CARDS,
    CARD_BIT,
    CARD_BIT_OR_NONE,
    CARD_SUIT,
    HAND_DTYPE,
    NO_CARD,
    NO_SUIT,
    NUM_CARDS,
    NUM_SUITS,
    effective_suit,
    playable_cards,
    trick_winner,
    unpack_masks_into,
)
from .core import (
    FLAG_BLOCK,
    NO_SEAT,
    BatchedGame,
    DealSummary,
    EpisodeState,
    Rules,
    at_seat,
    blend,
    column,
    fill_rows,
    game_index,
    layout_offsets,
    layout_table,
    name_action,
    one_hot_bits,
    one_hot_table,
    put_rows,
    relative_seat_codes,
    seat_lanes,
    seat_view,
    take_rows,
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


class Phase(enum.IntEnum):
    """The engine state's phase (``state.phase``). The observation tells bidding's two rounds
    apart; the descriptor maps its phases to these (``state_phase_of_view``)."""

    BIDDING = 0
    DISCARD = 1
    ALONE = 2
    PLAY = 3
    OVER = 4


BIDDING, DISCARD, ALONE, PLAY, OVER = map(int, Phase)  # plain ints: NumPy compares them fastest
PHASE_NAMES = tuple(phase.name.lower() for phase in Phase)
ALL_ACTIVE = 0b1111  # ``active`` bit s set = seat s plays this deal

SEATS = np.arange(NUM_PLAYERS, dtype=np.int8)
SEAT_TEAM = SEATS % NUM_TEAMS  # team of each seat: 0, 1, 0, 1


_ACTION_NAMES = {PASS: "pass", GO_ALONE: "alone", WITH_PARTNER: "partner"}


def action_name(action):
    """Readable name of an action id: 'J♥', 'pass', 'suit ♥', 'alone', 'partner'.

    ValueError for anything but an int 0..30.
    """
    return name_action(action, NUM_ACTIONS, _ACTION_NAMES, SUIT_CLUBS, "suit")


OBS_LAYOUT = (
    (
        "hand",
        24,
        "own hand: 1 if card c is held (the dealer's includes the upcard once ordered up)",
    ),
    ("upcard", 24, "the card turned face up after the deal"),
    ("discard", 24, "the card this seat discarded as dealer (all 0 for every other seat)"),
    ("played_by", 96, "[relative seat r, card c] at r*24+c: seat r has played card c this deal"),
    ("played_in_trick", 120, "[trick k, card c] at k*24+c: card c was played in trick k (0..4)"),
    (
        "current_trick",
        96,
        "[relative seat r, card c] at r*24+c: card seat r put in the current trick",
    ),
    ("dealer", 4, "relative seat of the dealer"),
    ("maker", 4, "relative seat that ordered up or named trump (all 0: none yet)"),
    ("leader", 4, "relative seat that leads the current trick (all 0 outside the play phase)"),
    (
        "calls",
        40,
        "[round k, relative seat r, call: pass,C,D,H,S] at k*20+r*5+call: seat r's call in round k",
    ),
    ("alone", 8, "[relative seat r, choice: alone, with partner] at r*2+choice: seat r's choice"),
    ("sitting_out", 4, "relative seats whose partner went alone"),
    ("trump", 4, "trump suit C, D, H, S (all 0 until made)"),
    (
        "phase",
        5,
        "bidding round 1, bidding round 2, discard, alone, play (all 0 once the game is over)",
    ),
    ("tricks_won", 4, "tricks taken this deal by relative seat, divided by 5"),
    ("scores", 2, "game score of own team, other team, divided by target_score"),
    ("deal_progress", 1, "deals dealt this episode (redeals included) divided by max_deals"),
)
OBS_OFFSETS, OBS_SIZE = layout_offsets(OBS_LAYOUT)
HIDDEN_LAYOUT = (
    ("hands", 72, "[relative seat r - 1, card c] at (r-1)*24+c: seat r holds card c (r = 1, 2, 3)"),
)
HIDDEN_OFFSETS, HIDDEN_SIZE = layout_offsets(HIDDEN_LAYOUT)
# What a renaming of the suits permutes (ghost_euchre_env/suits.py): the fields made of blocks of 24
# (one entry per card id), the fields made of blocks whose columns first..first+3 are the suits
# C, D, H, S ({name: (block width, first)}; a call's block is pass, C, D, H, S), the action ids
# that are card ids (action c plays or discards card c) and the four that name the suits C, D, H, S.
OBS_CARD_FIELDS = ("hand", "upcard", "discard", "played_by", "played_in_trick", "current_trick")
OBS_SUIT_FIELDS = {"trump": (4, 0), "calls": (5, 1)}
CARD_ACTIONS = range(NUM_CARDS)
SUIT_ACTIONS = range(SUIT_CLUBS, SUIT_CLUBS + NUM_SUITS)

ACTION_TABLE = """\
====== ========================================================= ==========
ids    meaning                                                   phase
====== ========================================================= ==========
0-23   play card ``id``, or the dealer's discard                 play, discard
24     PASS                                                      bidding
25-28  suit C, D, H, S: order up the upcard's suit (round 1),    bidding
       name another suit (round 2)
29     go alone                                                  alone
30     play with partner                                         alone
====== ========================================================= ==========
"""  # the action ids as a reStructuredText table (used in the docs)

__doc__ = (__doc__ or "").format(actions=ACTION_TABLE.strip(), layout=layout_table(OBS_LAYOUT))


@dataclasses.dataclass(frozen=True)
class ClassicRules(Rules):
    """Rules options of classic Euchre (defaults as in docs/RULES.md and OpenSpiel).

    stick_the_dealer: in round 2 the dealer may not pass (else four more passes
    throw the deal in); allow_lone_defender: after the maker's choice, a defender
    may go alone too (a euchre then scores 4), as OpenSpiel's option;
    target_score: team points that win the game; max_deals: deals (redeals
    included) after which a game is truncated.
    """

    stick_the_dealer: bool = True
    allow_lone_defender: bool = False
    target_score: int = 10
    max_deals: int = 200


@dataclasses.dataclass
class ClassicState(EpisodeState):
    """N classic Euchre games: the fields of :class:`core.EpisodeState` and these. Seats are absolute (0..3); -1 means none.

    Hands and card sets are uint32 masks (bit c set = card c). [N, K] fields
    are stored seat-major (see :class:`core.BatchState`). Fields marked per
    deal are set back to their initial value when a deal starts.
    """

    deal_width = NUM_PLAYERS + 1  # a chosen deal: seat 0..3 hand masks, upcard id
    score_width = NUM_TEAMS  # game score by team

    hands: np.ndarray = column(HAND_DTYPE, NUM_PLAYERS)  # cards each seat holds now
    held: np.ndarray = column(
        HAND_DTYPE, NUM_PLAYERS
    )  # dealt hand + picked-up upcard - discard; played = held & ~hands
    upcard: np.ndarray = column(np.int8, fill=NO_CARD)  # the card turned face up
    # per deal:
    discard: np.ndarray = column(np.int8, fill=NO_CARD, per_deal=True)  # the dealer's discard
    passes: np.ndarray = column(
        np.int8, per_deal=True
    )  # passes this deal (0..8); calls 0..passes-1 were passes
    maker: np.ndarray = column(np.int8, fill=NO_SEAT, per_deal=True)  # ordered up or named trump
    trump: np.ndarray = column(
        np.int8, fill=NO_SUIT, per_deal=True
    )  # suit 0..3, -1 before it is made
    alone: np.ndarray = column(
        np.int8, NUM_PLAYERS, fill=-1, per_deal=True
    )  # alone choice by seat: -1 none, 0 with partner, 1 alone
    lone_defender: np.ndarray = column(np.int8, fill=NO_SEAT, per_deal=True)
    active: np.ndarray = column(np.int8, fill=ALL_ACTIVE, per_deal=True)  # bit s set = seat s plays
    leader: np.ndarray = column(np.int8, fill=NO_SEAT, per_deal=True)  # led the current trick
    led_suit: np.ndarray = column(
        np.int8, fill=NO_SUIT, per_deal=True
    )  # effective suit led, -1 none
    trick: np.ndarray = column(
        np.int8, NUM_PLAYERS, fill=NO_CARD, per_deal=True
    )  # card each seat put in the current trick, -1 none
    trick_number: np.ndarray = column(np.int8, per_deal=True)  # tricks completed this deal
    trick_cards: np.ndarray = column(
        HAND_DTYPE, NUM_TRICKS, per_deal=True
    )  # cards played in trick k this deal (the current one included)
    tricks_won: np.ndarray = column(np.int8, NUM_PLAYERS, per_deal=True)


@dataclasses.dataclass
class ClassicDealSummary(DealSummary):
    """Every deal that ended in one step (see :class:`core.DealSummary`: game, thrown_in, dealer, tricks by seat, points and scores by team).

    thrown_in: eight passes; the shared ``contract`` indexes ``contract_kinds``
    ("ordered up", "named", "alone"), ``made``: the maker's team took three
    tricks or more, ``alone``: the maker played alone; lone_defender: int8[M]
    (-1 none); trump, upcard: int8[M]; ordered_up: bool[M] trump was made in
    round 1 (the upcard's suit), alone or not.
    """

    trump: np.ndarray
    upcard: np.ndarray
    lone_defender: np.ndarray
    ordered_up: np.ndarray


# ------------------------------------------------------------- lookup tables
def _seat_tables():
    """int8[16 * 4]: next active seat after s, and first active seat from s on.

    Indexed by ``active * 4 + seat`` (active: bit set per seat that plays); -1
    where no seat qualifies.
    """
    after = np.full((16, NUM_PLAYERS), NO_SEAT, dtype=np.int8)
    from_on = np.full((16, NUM_PLAYERS), NO_SEAT, dtype=np.int8)
    for active in range(16):
        for seat in range(NUM_PLAYERS):
            later = [(seat + k) % NUM_PLAYERS for k in range(1, NUM_PLAYERS + 1)]
            later = [s for s in later if active >> s & 1]
            if later:
                after[active, seat] = later[0]
                from_on[active, seat] = seat if active >> seat & 1 else later[0]
    return after.reshape(-1), from_on.reshape(-1)


_NEXT_ACTIVE, _FIRST_ACTIVE = _seat_tables()


def _first_defender_table():
    """int8[4, 4]: first defender left of dealer d when seat m is the maker."""
    table = np.zeros((NUM_PLAYERS, NUM_PLAYERS), dtype=np.int8)
    for dealer in range(NUM_PLAYERS):
        for maker in range(NUM_PLAYERS):
            left = (dealer + 1) % NUM_PLAYERS
            table[dealer, maker] = left if (left - maker) % 2 else (dealer + 2) % NUM_PLAYERS
    return table


_FIRST_DEFENDER = _first_defender_table()


def _maker_points_table():
    """int8[2, 2, 6]: [maker alone, lone defender, makers' tricks] -> points (flattened below).

    Positive: the makers' team scores that many; negative: the defenders do.
    """
    table = np.zeros((2, 2, NUM_TRICKS + 1), dtype=np.int8)
    for maker_alone in (0, 1):
        for lone_defender in (0, 1):
            table[maker_alone, lone_defender, :3] = -4 if lone_defender else -2
            table[maker_alone, lone_defender, 3:5] = 1
            table[maker_alone, lone_defender, 5] = 4 if maker_alone else 2
    return table


MAKER_POINTS = _maker_points_table().reshape(
    -1
)  # [(maker alone * 2 + lone defender) * 6 + makers' tricks]


def _tail_table(stick_the_dealer):
    """uint32[5 * 9 * 4]: legal non-card actions (bits 24..30) by (phase, passes, upcard suit)."""
    table = np.zeros((OVER + 1, 2 * NUM_PLAYERS + 1, NUM_SUITS), dtype=HAND_DTYPE)
    for passes in range(2 * NUM_PLAYERS):
        for up_suit in range(NUM_SUITS):
            bits = 0
            if not (stick_the_dealer and passes == 2 * NUM_PLAYERS - 1):
                bits |= 1 << PASS
            for suit in range(NUM_SUITS):
                if (suit == up_suit) == (passes < NUM_PLAYERS):
                    bits |= 1 << (SUIT_CLUBS + suit)
            table[BIDDING, passes, up_suit] = bits
    table[ALONE] = (1 << GO_ALONE) | (1 << WITH_PARTNER)
    return table.reshape(-1)


_CARD_BLOCKS = 16  # hand, upcard, discard, 4 played-by, 5 tricks, 4 current-trick cards
assert OBS_OFFSETS["current_trick"][1] == _CARD_BLOCKS * NUM_CARDS
_REL_SEAT_CODE = relative_seat_codes(
    NUM_PLAYERS
)  # [(seat + 1) * 4 + observer] -> relative seat + 1
_BASE_3 = 3 ** np.arange(NUM_PLAYERS)[:, None]
_ALONE_DIGIT = np.array(
    [2, 1, 0], dtype=np.intp
)  # alone choice 0 (with partner), 1 (alone), -1 (none)
_RELATIVE_SEATS = np.arange(NUM_PLAYERS, dtype=np.intp)[:, None]


def _relative_cells(seats, num_games):
    """int[4, N]: [r, i] indexes the seat view of an [N, 4] field at relative seat r of observer seats[i]."""
    return ((seats + _RELATIVE_SEATS) & 3) * num_games + game_index(num_games)


def _calls_table():
    """float32[9 * 5 * 4, 40]: the "calls" field for code passes + 9 * called + 45 * first caller.

    passes: 0..8; called: 0 (no trump made), 1..4 (suit C..S made by the call after
    the passes); first caller: relative seat left of the dealer.
    """
    table = np.zeros((2 * NUM_PLAYERS + 1, NUM_SUITS + 1, NUM_PLAYERS, 40), dtype=np.float32)
    for passes in range(2 * NUM_PLAYERS + 1):
        for called in range(NUM_SUITS + 1 if passes < 2 * NUM_PLAYERS else 1):
            for first in range(NUM_PLAYERS):
                calls = [0] * passes + ([called] if called else [])
                for k, call in enumerate(calls):
                    rel = (first + k) % NUM_PLAYERS
                    table[passes, called, first, (k // NUM_PLAYERS) * 20 + rel * 5 + call] = 1.0
    return table.transpose(2, 1, 0, 3).reshape(-1, 40)


# The one-hot fields (dealer .. phase, 73 columns after the card blocks) are set as
# bits of two uint64 words per game (word A: dealer .. calls, word B: alone ..
# phase; bit i = column i of the word's first field) and unpacked with the card
# blocks as four more 24-column blocks.
_FLAGS_START, _FLAGS_SPLIT, _FLAGS_STOP = (
    OBS_OFFSETS[name][i] for name, i in (("dealer", 0), ("alone", 0), ("phase", 1))
)
_WORD_A_BITS = _FLAGS_SPLIT - _FLAGS_START
assert _FLAGS_START == _CARD_BLOCKS * NUM_CARDS and 2 * NUM_CARDS <= _WORD_A_BITS <= 64
assert _FLAGS_STOP - _FLAGS_START <= 4 * NUM_CARDS and _FLAGS_STOP - _FLAGS_SPLIT <= 64
_SEATS_FLAGS = one_hot_bits(
    one_hot_table([4, 4, 4]), OBS_OFFSETS["dealer"][0] - _FLAGS_START
)  # dealer, maker, leader
_CALLS_FLAGS = one_hot_bits(_calls_table(), OBS_OFFSETS["calls"][0] - _FLAGS_START)
_ALONE_FLAGS = one_hot_bits(
    one_hot_table([2, 2, 2, 2]), 0
)  # per relative seat: alone, with partner
_SITTING_OUT_FLAGS = one_hot_bits(
    np.array([[not (bits >> r & 1) for r in range(4)] for bits in range(16)]),
    OBS_OFFSETS["sitting_out"][0] - _FLAGS_SPLIT,
)
_TRUMP_PHASE_FLAGS = one_hot_bits(one_hot_table([4, 5]), OBS_OFFSETS["trump"][0] - _FLAGS_SPLIT)


class ClassicEuchre(BatchedGame[ClassicRules, ClassicState, ClassicDealSummary]):
    """The rules of classic 4-player Euchre over batches of games.

    ``ClassicEuchre(episode="game", reward="points", **rules)``: episode "game"
    (deals until a team reaches target_score) or "deal" (one deal; eight passes
    end it with 0 points); reward "points" (each seat gets its team's points
    when a deal is scored, 0 for the other team) or "win" (at game end: +1 each
    winner, -1 each loser, 0 on truncation; needs episode="game"). Other
    keyword arguments are :class:`ClassicRules`. Episodes, deals and game ends
    run on the skeleton :class:`core.BatchedGame`; this class holds the rules.
    """

    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    obs_size = OBS_SIZE
    hidden_size = HIDDEN_SIZE
    over_phase = OVER
    loss_reward = -1.0
    rules_type = ClassicRules
    state_type = ClassicState
    summary_type = ClassicDealSummary
    score_column = SEAT_TEAM.astype(np.intp)  # a seat shares its team's score
    deal_keys = ("hands", "upcard")  # {"hands": [[5 ids] x 4], "upcard": id}
    # with the partner, in round 1 (the upcard's suit) or round 2; alone: in either round
    contract_kinds = ("ordered up", "named", "alone")
    bid_actions = tuple(range(SUIT_CLUBS, SUIT_CLUBS + NUM_SUITS))  # order up / name a suit
    hand_size = HAND_SIZE

    def __init__(self, episode="game", reward="points", **rules):
        super().__init__(episode, reward, **rules)
        self._tail = _tail_table(self.rules.stick_the_dealer)

    # ----------------------------------------------------------------- deals
    @staticmethod
    def _deal_row(hands, deal):
        """[4 hand masks, upcard id] of a chosen deal; the three cards in neither are the rest of the kitty."""
        upcard = deal["upcard"]
        named = [card for hand in hands for card in hand] + [upcard]
        kitty = sorted(
            set(range(NUM_CARDS)) - {c for c in named if isinstance(c, (int, np.integer))}
        )
        masks = dealing.parse_deal(
            [*hands, [upcard], kitty],
            [HAND_SIZE] * NUM_PLAYERS + [1, 3],
            ["seat 0", "seat 1", "seat 2", "seat 3", "upcard", "rest of the kitty"],
        )
        return [*masks[:NUM_PLAYERS], int(upcard)]

    @staticmethod
    def _deal_rows(deck):
        """uint32[M, 5]: hands of seats 0..3 (five consecutive cards of the deck each), then the upcard id."""
        dealt_cards = NUM_PLAYERS * HAND_SIZE
        bits = CARD_BIT.take(deck[:, :dealt_cards]).reshape(len(deck), NUM_PLAYERS, HAND_SIZE)
        rows = np.empty((len(deck), NUM_PLAYERS + 1), HAND_DTYPE)
        rows[:, :NUM_PLAYERS] = (
            bits[:, :, 0] | bits[:, :, 1] | bits[:, :, 2] | bits[:, :, 3] | bits[:, :, 4]
        )
        rows[:, NUM_PLAYERS] = deck[:, dealt_cards]
        return rows

    @staticmethod
    def _open_deal(state, games, rows):
        """Give out the hands, turn the upcard; the bidding opens left of the dealer."""
        hands = rows[:, :NUM_PLAYERS]
        put_rows(state.hands, games, hands)
        put_rows(state.held, games, hands)
        state.upcard[games] = rows[:, NUM_PLAYERS]
        state.phase[games] = BIDDING
        state.player[games] = (state.dealer[games] + 1) % NUM_PLAYERS

    # ---------------------------------------------------------------- decisions
    @staticmethod
    def _legal_cards(state):
        """uint32[N]: cards the player to act may play or discard (0 in other phases)."""
        hand = at_seat(state.hands, seat_lanes(state.player, NUM_PLAYERS))
        playable = playable_cards(hand, state.led_suit, state.trump)
        discardable = hand & ~CARD_BIT.take(state.upcard)
        return playable * (state.phase == PLAY) | discardable * (state.phase == DISCARD)

    def legal_bits(self, state):
        """uint32[N]: legal actions of the player to act as a bit set (bit a = action a)."""
        code = (state.phase.astype(np.int16) * (2 * NUM_PLAYERS + 1) + state.passes) * NUM_SUITS + (
            state.upcard & 3
        )
        return self._legal_cards(state) | self._tail.take(code)

    def _apply(self, state, action):
        """One decision in every game (int8[N]); returns the games whose deal was played out, then thrown in.

        Passes and card plays, the bulk of the decisions, are applied to the whole
        batch with bit arithmetic; the rarer events (making trump, the discard,
        alone choices, the end of a trick) to the games concerned only.
        """
        n = len(state.player)
        phase, seat = state.phase, state.player.copy()
        playing = phase == PLAY
        passing = (phase == BIDDING) & (action == PASS)

        # A play or a discard takes the card out of the hand of the seat to act.
        card_bit = (
            HAND_DTYPE(1) << action.astype(HAND_DTYPE)
        ) & ALL_CARDS  # 0 for non-card actions
        lanes = seat_lanes(seat, NUM_PLAYERS)  # bool[4, N]
        hands = state.hands.T  # [4, N] view
        hands &= ~(card_bit * lanes)

        # Play: put the card in the seat's slot of the trick and in the trick's cards,
        # note the suit led.
        trick = state.trick.T
        trick[...] = blend(lanes & playing, action, trick)
        trick_cells = np.minimum(state.trick_number, NUM_TRICKS - 1).astype(
            np.intp
        ) * n + game_index(n)
        seat_view(state.trick_cards)[trick_cells] |= card_bit * playing
        state.led_suit[:] = blend(
            playing & (seat == state.leader), effective_suit(action, state.trump), state.led_suit
        )
        next_seat = _NEXT_ACTIVE.take(state.active * NUM_PLAYERS + seat)
        trick_done = np.flatnonzero(playing & (next_seat == state.leader))

        state.passes += passing
        state.player[:] = blend(playing, next_seat, blend(passing, (seat + 1) & 3, seat))

        if self.rules.stick_the_dealer:
            thrown_in = trick_done[:0]
        else:
            thrown_in = np.flatnonzero(passing & (state.passes == 2 * NUM_PLAYERS))
        others = np.flatnonzero(~(playing | passing))
        if len(others):
            other_phase = phase[others]
            naming = others[other_phase == BIDDING]
            discarding = others[other_phase == DISCARD]
            choosing = others[other_phase == ALONE]
            if len(naming):
                self._apply_naming(state, naming, action[naming] - SUIT_CLUBS)
            if len(discarding):
                self._apply_discard(state, discarding, action[discarding])
            if len(choosing):
                self._apply_alone(state, choosing, action[choosing] == GO_ALONE)
        scored = self._end_tricks(state, trick_done) if len(trick_done) else trick_done
        return scored, thrown_in

    @staticmethod
    def _apply_naming(state, games, suits):
        """Order up (round 1: the dealer picks the upcard up, then discards) or name trump."""
        state.maker[games] = state.player[games]
        state.trump[games] = suits
        ordered = games[state.passes[games] < NUM_PLAYERS]
        cells = state.dealer[ordered].astype(np.intp) * len(state.player) + ordered
        upcard = CARD_BIT.take(state.upcard[ordered])
        seat_view(state.hands)[cells] |= upcard
        seat_view(state.held)[cells] |= upcard
        state.phase[games] = ALONE
        state.phase[ordered] = DISCARD
        state.player[ordered] = state.dealer[ordered]

    @staticmethod
    def _apply_discard(state, games, cards):
        """The dealer's discard (already out of its hand): record it, then the maker chooses."""
        seat_view(state.held)[
            state.dealer[games].astype(np.intp) * len(state.player) + games
        ] &= ~CARD_BIT.take(cards)
        state.discard[games] = cards
        state.phase[games] = ALONE
        state.player[games] = state.maker[games]

    def _apply_alone(self, state, games, alone):
        """Alone (bool[M]) or with partner; then the next defender is asked or play starts."""
        seat = state.player[games]
        seat_view(state.alone)[seat.astype(np.intp) * len(state.player) + games] = alone
        state.active[games] &= ~(
            alone.astype(np.int8) << (seat + 2) % NUM_PLAYERS
        )  # the partner sits out
        maker_choice = seat == state.maker[games]
        starts = games
        if self.rules.allow_lone_defender:
            lone = alone & ~maker_choice
            state.lone_defender[games[lone]] = seat[lone]
            first_defender = _FIRST_DEFENDER.take(
                state.dealer[games] * NUM_PLAYERS + state.maker[games]
            )
            ask = maker_choice | (~alone & (seat == first_defender))
            state.player[games[ask]] = np.where(
                maker_choice, first_defender, (seat + 2) % NUM_PLAYERS
            )[ask]
            starts = games[~ask]
        first = _FIRST_ACTIVE.take(
            state.active[starts] * NUM_PLAYERS + (state.dealer[starts] + 1) % NUM_PLAYERS
        )
        state.phase[starts] = PLAY
        state.leader[starts] = first
        state.player[starts] = first

    @staticmethod
    def _end_tricks(state, games):
        """Resolve the full tricks of ``games``; returns the games whose fifth trick ended."""
        winner = trick_winner(
            take_rows(state.trick, games), state.trump[games], state.led_suit[games]
        )
        number = state.trick_number[games]
        seat_view(state.tricks_won)[winner.astype(np.intp) * len(state.player) + games] += 1
        fill_rows((state.trick,), games, NO_CARD)
        state.led_suit[games] = NO_SUIT
        state.leader[games] = winner
        state.player[games] = winner
        state.trick_number[games] = number + 1
        return games[number + 1 == NUM_TRICKS]

    def deal_points(self, state, games):
        """int32[M, 2]: points each team scores for the finished deals ``games``."""
        team, points = self._deal_result(state, games)
        by_team = np.zeros((len(games), NUM_TEAMS), np.int32)
        by_team[np.arange(len(games)), team] = points
        return by_team

    @staticmethod
    def _deal_result(state, games):
        """(int8[M] the team that scores, int32[M] its points) for the finished deals ``games``."""
        n = len(state.player)
        maker = state.maker[games]
        maker_team = maker & 1
        tricks = seat_view(state.tricks_won)
        maker_cell = maker_team.astype(np.intp) * n + games
        maker_tricks = tricks.take(maker_cell) + tricks.take(
            maker_cell + 2 * n
        )  # seats t and t + 2
        maker_alone = seat_view(state.alone).take(maker.astype(np.intp) * n + games) == 1
        lone_defender = state.lone_defender[games] >= 0
        signed = MAKER_POINTS.take(
            (maker_alone * 2 + lone_defender) * (NUM_TRICKS + 1) + maker_tricks
        )
        return maker_team ^ (signed < 0), np.abs(signed).astype(np.int32)

    @staticmethod
    def _summary_fields(state, games):
        n = len(state.player)
        maker = state.maker[games]
        trump = state.trump[games]
        upcard = state.upcard[games]
        alone = (maker >= 0) & (
            seat_view(state.alone).take((maker & 3).astype(np.intp) * n + games) == 1
        )
        ordered_up = CARD_SUIT.take(upcard) == trump  # round 2 cannot name the upcard's suit
        scoring_team, _ = ClassicEuchre._deal_result(state, games)
        return {
            "maker": maker,
            "contract": np.where(alone, 2, np.where(ordered_up, 0, 1)).astype(np.int8),
            "made": scoring_team == (maker & 1),
            "alone": alone,
            "trump": trump,
            "upcard": upcard,
            "lone_defender": state.lone_defender[games],
            "ordered_up": ordered_up,
        }

    def _game_won(self, scores):
        """bool[M]: a team has target_score (only one team scores in a deal, so never both)."""
        return np.maximum(scores[:, 0], scores[:, 1]) >= self.rules.target_score

    # ------------------------------------------------------------- observation
    def observe(self, state, seats):
        """float32[N, 464]: each game observed by seat ``seats[i]`` (int[N], 0..3).

        The card blocks (16 uint32 masks per game) and the one-hot fields (two
        uint64 words of flags) are unpacked in one call and written as floats in
        one pass; then the 7 fractional columns.
        """
        n = len(state.player)
        seats = self._check_seats(seats, n)
        rel_cells = _relative_cells(seats, n)

        def by_rel(field):  # [N, 4] per absolute seat -> [4, N] per relative seat
            return seat_view(field).take(rel_cells)

        blocks = np.empty((n, _CARD_BLOCKS + 4), HAND_DTYPE)
        blocks[:, 0] = seat_view(state.hands).take(rel_cells[0])
        blocks[:, 1] = CARD_BIT.take(state.upcard)
        blocks[:, 2] = CARD_BIT_OR_NONE.take(state.discard) * (state.dealer == seats)
        blocks[:, 3:7] = by_rel(state.held).T & ~by_rel(state.hands).T
        blocks[:, 7:12] = state.trick_cards
        blocks[:, 12:16] = CARD_BIT_OR_NONE.take(by_rel(state.trick)).T

        def rel(absolute):  # relative seat + 1 of absolute seats int[N] (0 = none)
            return _REL_SEAT_CODE.take((absolute.astype(np.intp) + 1) * NUM_PLAYERS + seats)

        in_play = np.where(state.phase == PLAY, state.leader, NO_SEAT)
        flags = _SEATS_FLAGS.take(rel(state.dealer) + 5 * rel(state.maker) + 25 * rel(in_play))
        called = np.where(state.maker >= 0, state.trump + 1, 0)
        first_caller = rel(state.dealer) % NUM_PLAYERS  # relative seat left of the dealer
        flags |= _CALLS_FLAGS.take(
            state.passes + (2 * NUM_PLAYERS + 1) * (called + (NUM_SUITS + 1) * first_caller)
        )
        later = _ALONE_FLAGS.take((_ALONE_DIGIT.take(by_rel(state.alone)) * _BASE_3).sum(axis=0))
        rotated = (
            (state.active.astype(np.intp) * 17) >> seats
        ) & 15  # bit r: relative seat r plays
        later |= _SITTING_OUT_FLAGS.take(rotated)
        phase = np.where(state.phase == BIDDING, state.passes >= NUM_PLAYERS, state.phase + 1) + 1
        phase = np.where(state.phase == OVER, 0, phase)
        later |= _TRUMP_PHASE_FLAGS.take(state.trump + 1 + 5 * phase)
        # The 24-column blocks of the flag bits, word A then word B.
        blocks[:, _CARD_BLOCKS] = flags & FLAG_BLOCK
        blocks[:, _CARD_BLOCKS + 1] = (flags >> np.uint64(NUM_CARDS)) & FLAG_BLOCK
        blocks[:, _CARD_BLOCKS + 2] = (flags >> np.uint64(2 * NUM_CARDS)) | (
            (later << np.uint64(_WORD_A_BITS - 2 * NUM_CARDS)) & FLAG_BLOCK
        )
        blocks[:, _CARD_BLOCKS + 3] = later >> np.uint64(3 * NUM_CARDS - _WORD_A_BITS)

        obs = np.empty((n, OBS_SIZE), dtype=np.float32)
        unpack_masks_into(obs[:, :_FLAGS_STOP], blocks)
        tricks = by_rel(state.tricks_won) / np.float32(NUM_TRICKS)
        for rel_seat in range(
            NUM_PLAYERS
        ):  # column by column: a [N, 4] block write loops over the short axis
            obs[:, OBS_OFFSETS["tricks_won"][0] + rel_seat] = tricks[rel_seat]
        scores = seat_view(state.scores)
        target = np.float32(self.rules.target_score)
        for rel_team in range(NUM_TEAMS):  # own team, then the other
            team_cells = ((seats & 1) ^ rel_team) * n + game_index(n)
            obs[:, OBS_OFFSETS["scores"][0] + rel_team] = scores.take(team_cells) / target
        obs[:, OBS_OFFSETS["deal_progress"][0]] = state.deal_number / np.float32(
            self.rules.max_deals
        )
        return obs

    def hidden_cards(self, state, seats):
        """float32[N, 72] (``HIDDEN_LAYOUT``): the hands of the three seats after ``seats[i]``."""
        n = len(state.player)
        rel_cells = _relative_cells(self._check_seats(seats, n), n)
        hidden = np.empty((n, HIDDEN_SIZE), np.float32)
        unpack_masks_into(hidden, seat_view(state.hands).take(rel_cells[1:]).T)
        return hidden
