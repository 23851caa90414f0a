"""Ghost Hand Euchre (3 players): the pure, batched rules engine.

Every rule of the Ghost Hand section of ``docs/RULES.md`` lives here and
nowhere else; the vector, PettingZoo and Gymnasium APIs are thin adapters. A
batch of N games is a :class:`GhostState` of arrays with a leading game axis;
:meth:`GhostEuchre.step` advances every game by one decision with array
operations (no Python loop over games) and mutates the state in place.

Action ids (34):

{actions}

Observation: float32[390] for one seat, egocentric (relative seat r = 0 is the
observer, r = 1 the next seat clockwise, r = 2 the one after), with perfect
recall of everything that seat has seen. Layout (``OBS_LAYOUT``):

{layout}
"""

import dataclasses
import enum
from typing import ClassVar

import numpy as np

from . import dealing
from .cards import (
    ALL_CARDS,
    CARD_BIT,
    CARD_BIT_OR_NONE,
    HAND_DTYPE,
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
BID_LEVELS = (3, 4, 5, MOON_LEVEL)


_ACTION_NAMES = {
    PASS: "pass",
    BID_3: "bid 3",
    BID_4: "bid 4",
    BID_5: "bid 5",
    MOON: "moon",
    SWAP: "swap",
}


def action_name(action):
    """Readable name of an action id: 'J♥', 'pass', 'trump ♥', 'bid 4', 'moon', 'swap'.

    ValueError for anything but an int 0..33.
    """
    return name_action(action, NUM_ACTIONS, _ACTION_NAMES, TRUMP_CLUBS, "trump")


class Phase(enum.IntEnum):
    """The engine state's phase (``state.phase``); the observation shows the same four."""

    AUCTION = 0
    TRUMP = 1
    PLAY = 2
    OVER = 3


AUCTION, TRUMP, PLAY, OVER = map(int, Phase)  # plain ints: NumPy compares them fastest
PHASE_NAMES = tuple(phase.name.lower() for phase in Phase)  # ("auction", "trump", "play", "over")

OBS_LAYOUT = (
    ("hand", 24, "own hand: 1 if card c is held"),
    (
        "dead_hand",
        24,
        "own old hand after swapping with the ghost hand (all 0 unless this seat swapped)",
    ),
    ("played_by", 72, "[relative seat r, card c] at r*24+c: seat r has played card c this deal"),
    ("played_in_trick", 144, "[trick k, card c] at k*24+c: card c was played in trick k (0..5)"),
    (
        "current_trick",
        72,
        "[relative seat r, card c] at r*24+c: card seat r put in the current trick",
    ),
    ("swapper", 3, "relative seat that took the ghost hand (all 0: nobody yet)"),
    ("declarer", 3, "relative seat of the highest bidder (all 0: no bid yet)"),
    ("dealer", 3, "relative seat of the dealer"),
    ("leader", 3, "relative seat that leads the current trick (all 0 outside the play phase)"),
    ("bids", 12, "[level 3,4,5,moon, relative seat r] at l*3+r: seat r made that bid"),
    ("passes", 12, "[relative seat r, high bid when it passed: none,3,4,5] at r*4+b"),
    ("contract", 4, "highest bid so far: 3, 4, 5, moon"),
    ("trump", 4, "trump suit C, D, H, S (all 0 until named)"),
    ("phase", 3, "auction, trump, play (all 0 once the game is over)"),
    ("tricks_won", 3, "tricks taken this deal by relative seat, divided by 6"),
    ("scores", 3, "game score by relative seat, divided by target_score"),
    ("deal_progress", 1, "deals dealt this episode (redeals included) divided by max_deals"),
)
OBS_OFFSETS, OBS_SIZE = layout_offsets(OBS_LAYOUT)
HIDDEN_LAYOUT = (
    ("hands", 48, "[relative seat r - 1, card c] at (r-1)*24+c: seat r holds card c (r = 1, 2)"),
    ("ghost", 24, "the ghost hand (after a swap: the swapper's dead hand)"),
)
HIDDEN_OFFSETS, HIDDEN_SIZE = layout_offsets(HIDDEN_LAYOUT)
# What a renaming of the suits permutes (ghost_euchre_env/suits.py): the fields made of blocks of 24
# (one entry per card id), the fields made of blocks whose columns first..first+3 are the suits
# C, D, H, S ({name: (block width, first)}), the action ids that are card ids (action c: card c)
# and the four that name the suits C, D, H, S.
OBS_CARD_FIELDS = ("hand", "dead_hand", "played_by", "played_in_trick", "current_trick")
OBS_SUIT_FIELDS = {"trump": (4, 0)}
CARD_ACTIONS = range(NUM_CARDS)
SUIT_ACTIONS = range(TRUMP_CLUBS, TRUMP_CLUBS + NUM_SUITS)


ACTION_TABLE = """\
====== ========================== =========
ids    meaning                    phase
====== ========================== =========
0-23   play card ``id``           play
24     PASS                       auction
25-28  name trump C, D, H, S      trump
29-31  bid 3, 4, 5 tricks         auction
32     MOON (all six tricks)      auction
33     SWAP with the ghost hand   auction
====== ========================== =========
"""  # the action ids as a reStructuredText table (used in the docs)

__doc__ = (__doc__ or "").format(actions=ACTION_TABLE.strip(), layout=layout_table(OBS_LAYOUT))

AUCTIONS = ("single_round", "open")


@dataclasses.dataclass(frozen=True)
class GhostRules(Rules):
    """Rules options of Ghost Hand Euchre (defaults as in docs/RULES.md).

    auction: "single_round" (each seat acts once) or "open" (bidding goes round
    until all but the high bidder have passed); allow_renege: any held card may
    be played, and each play that breaks the follow-suit rule costs
    ``renege_penalty`` points; moon_points / moon_set_penalty: points for a made
    / missed moon; target_score: points that win the game; max_deals: deals
    (redeals included) after which a game is truncated.
    """

    auction: str = "single_round"
    allow_renege: bool = False
    renege_penalty: int = 2
    moon_points: int = 24
    moon_set_penalty: int = 6
    target_score: int = 32
    max_deals: int = 200

    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"auction": AUCTIONS}


@dataclasses.dataclass
class GhostState(EpisodeState):
    """N Ghost Hand games: the fields of :class:`core.EpisodeState` and these. Seats are absolute (0..2); -1 means none.

    Hands are uint32 card masks (bit c set = card c held). [N, K] fields are
    stored seat-major (see :class:`core.BatchState`). Fields marked per deal
    are set back to their initial value when a deal starts.
    """

    deal_width = 4  # a chosen deal: seat 0..2 hands, ghost
    score_width = NUM_PLAYERS  # game score by seat

    hands: np.ndarray = column(HAND_DTYPE, NUM_PLAYERS)  # cards held by each seat
    ghost: np.ndarray = column(HAND_DTYPE)  # the ghost hand; after a swap, the dead hand
    # per deal:
    swapper: np.ndarray = column(np.int8, fill=NO_SEAT, per_deal=True)  # took the ghost hand
    acted: np.ndarray = column(bool, NUM_PLAYERS, per_deal=True)  # seat has bid or passed
    passed_at: np.ndarray = column(
        np.int8, NUM_PLAYERS, fill=-1, per_deal=True
    )  # -1, else the high bid index (0 none, 1..3 = 3..5) when it passed
    bids: np.ndarray = column(
        np.int8, len(BID_LEVELS), fill=NO_SEAT, per_deal=True
    )  # seat that bid 3, 4, 5, moon
    high_bid: np.ndarray = column(np.int8, per_deal=True)  # 0 (none), 3, 4, 5 or 6 (moon)
    declarer: np.ndarray = column(np.int8, fill=NO_SEAT, per_deal=True)
    trump: np.ndarray = column(np.int8, fill=-1, per_deal=True)  # suit 0..3, -1 before it is named
    leader: np.ndarray = column(np.int8, fill=NO_SEAT, per_deal=True)  # led the current trick
    led_suit: np.ndarray = column(np.int8, fill=-1, per_deal=True)  # effective suit led, -1 none
    trick: np.ndarray = column(
        np.int8, NUM_PLAYERS, fill=-1, per_deal=True
    )  # card each seat put in the current trick
    trick_number: np.ndarray = column(np.int8, per_deal=True)  # tricks completed this deal
    played_cards: np.ndarray = column(HAND_DTYPE, NUM_PLAYERS, per_deal=True)  # played this deal
    trick_cards: np.ndarray = column(HAND_DTYPE, NUM_TRICKS, per_deal=True)  # played in trick k
    tricks_won: np.ndarray = column(np.int8, NUM_PLAYERS, per_deal=True)
    reneges: np.ndarray = column(
        np.int8, NUM_PLAYERS, per_deal=True
    )  # plays that broke follow-suit


@dataclasses.dataclass
class GhostDealSummary(DealSummary):
    """Every deal that ended in one step (see :class:`core.DealSummary`: game, thrown_in, dealer, tricks, points and scores by seat).

    The shared ``maker`` is the declarer, ``contract`` the bid's index in
    ``BID_LEVELS`` ("3", "4", "5", "moon"); ``alone`` is never set. swapper:
    int8[M] (-1 none); bid: int8[M] 0 none, 3..5, 6 moon; trump: int8[M];
    reneges: int8[M, 3] by seat.
    """

    swapper: np.ndarray
    bid: np.ndarray
    trump: np.ndarray
    reneges: np.ndarray


def _contract(state, games):
    """(declarer int8[M], bid int32[M] 3..6, made bool[M]) of the played-out deals ``games``.

    Made: the declarer took at least the bid (a moon ranks as six: every trick).
    """
    declarer = state.declarer[games]
    bid = state.high_bid[games].astype(np.int32)
    taken = take_rows(state.tricks_won, games)[np.arange(len(games)), declarer]
    return declarer, bid, taken >= bid


def _passed_index_table():
    """int8[7]: high bid (0, 3..6) -> index stored in ``passed_at``."""
    table = np.zeros(MOON_LEVEL + 1, dtype=np.int8)
    table[3:6] = [1, 2, 3]
    return table


_PASSED_INDEX = _passed_index_table()
_NO_GAMES = np.zeros(0, dtype=np.int64)


def _action_tail_table():
    """bool[64, 10]: legal non-card actions (ids 24..33) per "tail code".

    The code is ``phase * 16 + high_bid * 2 + can_swap`` (high_bid 0, 3..6):
    auction rows depend on the high bid and the swap; in the trump phase every
    suit may be named; the play phase and a finished game have none.
    """
    table = np.zeros((64, NUM_ACTIONS - NUM_CARDS), dtype=bool)
    for high in range(MOON_LEVEL + 1):
        for can_swap in (0, 1):
            row = table[AUCTION * 16 + high * 2 + can_swap]
            row[PASS - NUM_CARDS] = True
            for action, level in zip((BID_3, BID_4, BID_5, MOON), BID_LEVELS, strict=True):
                row[action - NUM_CARDS] = level > high
            row[SWAP - NUM_CARDS] = bool(can_swap)
    table[
        TRUMP * 16 : TRUMP * 16 + 16, TRUMP_CLUBS - NUM_CARDS : TRUMP_CLUBS - NUM_CARDS + NUM_SUITS
    ] = True
    return table


_ACTION_TAIL_BITS = (
    _action_tail_table().astype(np.uint64) << np.arange(NUM_CARDS, NUM_ACTIONS, dtype=np.uint64)
).sum(axis=1, dtype=np.uint64)  # uint64[64]: the table as action bits 24..33

_CARD_BLOCKS = 14  # hand, dead hand, 3 played-by, 6 tricks, 3 current-trick cards
assert OBS_OFFSETS["current_trick"][1] == _CARD_BLOCKS * NUM_CARDS
_REL_OF_SEAT = (
    np.arange(NUM_PLAYERS)[:, None] + np.arange(NUM_PLAYERS)
) % NUM_PLAYERS  # [r, observer] -> seat


def _relative_cells(seats, num_games):
    """int[3, N]: [r, i] indexes the seat view of an [N, 3] field at relative seat r of observer seats[i]."""
    return _REL_OF_SEAT.take(seats, axis=1) * num_games + game_index(num_games)


# The one-hot fields (swapper .. phase) are set as bits of one uint64 word per game
# (bit i = column FLAGS_START + i) and unpacked together with the card blocks,
# as two more 24-column blocks.
_FLAGS_START, _FLAGS_STOP = OBS_OFFSETS["swapper"][0], OBS_OFFSETS["phase"][1]
assert _FLAGS_START == _CARD_BLOCKS * NUM_CARDS and _FLAGS_STOP - _FLAGS_START <= 2 * NUM_CARDS
_SEAT_FIELDS = (
    "swapper",
    "declarer",
    "dealer",
    "leader",
    "bid 3",
    "bid 4",
    "bid 5",
    "moon",
)  # 3 columns each
assert OBS_OFFSETS["bids"][1] - _FLAGS_START == len(_SEAT_FIELDS) * NUM_PLAYERS


def _seat_flag_table():
    """uint64[8 * 12]: [field i, (seat + 1) * 3 + observer] -> the bit of the seat relative to the observer."""
    codes = relative_seat_codes(NUM_PLAYERS)
    return np.concatenate(
        [
            one_hot_bits(one_hot_table([NUM_PLAYERS]), field * NUM_PLAYERS)[codes]
            for field in range(len(_SEAT_FIELDS))
        ]
    )


def _pass_flag_table():
    """uint64[3 * 5]: [relative seat r, passed_at + 1] -> its bit in "passes" (none when it has not passed)."""
    start = OBS_OFFSETS["passes"][0] - _FLAGS_START
    return np.concatenate(
        [one_hot_bits(one_hot_table([4]), start + rel * 4) for rel in range(NUM_PLAYERS)]
    )


def _table_flag_table():
    """uint64[7 * 5 * 4]: [high bid 0..6, trump + 1, phase] -> the bits of contract, trump and phase."""
    bits = one_hot_bits(one_hot_table([4, NUM_SUITS, 3]), OBS_OFFSETS["contract"][0] - _FLAGS_START)
    contract = [0, 0, 0, 1, 2, 3, 4]  # high bid 0..6 -> contract digit (0: none)
    phase = {AUCTION: 1, TRUMP: 2, PLAY: 3, OVER: 0}  # phase -> phase digit (0: none)
    return np.array(
        [
            bits[contract[high] + 5 * suit + 25 * phase[game_phase]]
            for high in range(MOON_LEVEL + 1)
            for suit in range(NUM_SUITS + 1)
            for game_phase in (AUCTION, TRUMP, PLAY, OVER)
        ],
        np.uint64,
    )


_SEAT_FLAGS = _seat_flag_table()
_SEAT_FIELD_BASE = (np.arange(len(_SEAT_FIELDS), dtype=np.intp) * (NUM_PLAYERS + 1) * NUM_PLAYERS)[
    :, None
]
_PASS_FLAGS = _pass_flag_table()
_TABLE_FLAGS = _table_flag_table()
assert (OBS_OFFSETS["trump"][0], OBS_OFFSETS["phase"][0]) == tuple(
    OBS_OFFSETS["contract"][0] + k for k in (4, 8)
)  # contract, trump and phase are adjacent: one mixed-radix table


def _next_seat(seat):
    """int8[M]: the seat clockwise of each seat (int8[M], 0..2); arithmetic, cheaper than a lookup."""
    return seat + 1 - NUM_PLAYERS * (seat == NUM_PLAYERS - 1)


class GhostEuchre(BatchedGame[GhostRules, GhostState, GhostDealSummary]):
    """The rules of Ghost Hand Euchre over batches of games.

    ``GhostEuchre(episode="game", reward="points", **rules)``: episode "game"
    (deals until one player alone has target_score) or "deal" (one deal; an
    all-pass deal ends it with 0 points); reward "points" (each seat's score
    change, when a deal is scored) or "win" (at game end: +1 winner, -1/2 each
    other seat, 0 on truncation; needs episode="game"). Other keyword arguments
    are :class:`GhostRules`. Episodes, deals and game ends run on the skeleton
    :class:`core.BatchedGame`; this class holds the rules.
    """

    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    obs_size = OBS_SIZE
    hidden_size = HIDDEN_SIZE
    over_phase = OVER
    loss_reward = -0.5
    rules_type = GhostRules
    state_type = GhostState
    summary_type = GhostDealSummary
    score_column = np.arange(NUM_PLAYERS)  # every seat keeps its own score
    deal_keys = ("hands", "ghost")  # {"hands": [[6 ids] x 3], "ghost": [6 ids]}
    contract_kinds = ("3", "4", "5", "moon")  # the bid's level (BID_LEVELS)
    bid_actions = (BID_3, BID_4, BID_5, MOON)  # the auction's actions that take a contract
    hand_size = HAND_SIZE

    # ----------------------------------------------------------------- deals
    @staticmethod
    def _deal_row(hands, deal):
        """[3 hand masks, ghost mask] of a chosen deal."""
        return dealing.parse_deal(
            [*hands, deal["ghost"]], [HAND_SIZE] * 4, ["seat 0", "seat 1", "seat 2", "ghost"]
        )

    @staticmethod
    def _deal_rows(deck):
        """uint32[M, 4]: hands of seats 0..2 and the ghost hand, six consecutive cards of the deck each."""
        bits = CARD_BIT.take(deck).reshape(len(deck), 4, HAND_SIZE)
        return (
            bits[:, :, 0]
            | bits[:, :, 1]
            | bits[:, :, 2]
            | bits[:, :, 3]
            | bits[:, :, 4]
            | bits[:, :, 5]
        )

    @staticmethod
    def _open_deal(state, games, rows):
        """Give out the hands and the ghost hand; the auction opens left of the dealer."""
        put_rows(state.hands, games, rows[:, :NUM_PLAYERS])
        state.ghost[games] = rows[:, NUM_PLAYERS]
        state.phase[games] = AUCTION
        state.player[games] = _next_seat(state.dealer[games])

    # ---------------------------------------------------------------- decisions
    def _legal_cards(self, state, lanes):
        """uint32[N]: cards the player to act (bool[3, N] seat lanes) may play; 0 outside the play phase."""
        hand = at_seat(state.hands, lanes)
        if not self.rules.allow_renege:
            hand = playable_cards(hand, state.led_suit, state.trump)
        return hand * (state.phase == PLAY)

    def legal_bits(self, state):
        """uint64[N]: legal actions of the player to act as a bit set (bit a = action a; 0 when OVER)."""
        lanes = seat_lanes(state.player, NUM_PLAYERS)
        can_swap = (state.swapper < 0) & ~at_seat(state.acted, lanes)
        code = state.phase * 16 + state.high_bid * 2 + can_swap  # (NumPy's int8 shifts are slow)
        return self._legal_cards(state, lanes).astype(np.uint64) | _ACTION_TAIL_BITS.take(code)

    def _apply(self, state, action):
        """One decision in every game (int8[N]); returns the games whose deal was played out, then thrown in.

        Card plays, the bulk of the decisions, are applied to the whole batch at
        once; the auction and the naming of trump to the games concerned only.
        """
        phase = state.phase
        auction = (phase == AUCTION).nonzero()[0]  # all taken before any game moves on
        naming = (phase == TRUMP).nonzero()[0]
        playing = phase == PLAY
        scored = self._apply_play(state, action, playing) if playing.any() else _NO_GAMES
        thrown_in = (
            self._apply_auction(state, auction, action[auction]) if len(auction) else _NO_GAMES
        )
        if len(naming):
            self._apply_trump(state, naming, action[naming])
        return scored, thrown_in

    def _apply_auction(self, state, games, actions):
        """Swap, pass or bid; returns the games whose deal was thrown in (all passed)."""
        n = state.num_games
        seat = state.player[games]
        swap = actions == SWAP
        swappers, swapper_seat = games[swap], seat[swap]
        hands = seat_view(state.hands)
        cells = swapper_seat.astype(np.intp) * n + swappers
        old_hand = hands[cells]
        hands[cells] = state.ghost[swappers]
        state.ghost[swappers] = old_hand
        state.swapper[swappers] = swapper_seat

        games, seat, actions = games[~swap], seat[~swap], actions[~swap]
        cells = seat.astype(np.intp) * n + games
        seat_view(state.acted)[cells] = True
        passing = actions == PASS
        seat_view(state.passed_at)[cells[passing]] = _PASSED_INDEX.take(
            state.high_bid[games[passing]]
        )
        bidders, bidder_seat = games[~passing], seat[~passing]
        level = actions[~passing] - (BID_3 - 3)
        state.high_bid[bidders] = level
        state.declarer[bidders] = bidder_seat
        seat_view(state.bids)[(level - 3).astype(np.intp) * n + bidders] = bidder_seat

        declarer = state.declarer[games]
        if (
            self.rules.auction == "single_round"
        ):  # each seat acts once, clockwise from the dealer's left
            ended = (seat == state.dealer[games]) | (state.high_bid[games] == MOON_LEVEL)
            state.player[games] = _next_seat(seat)
        else:  # open: the seats that have not passed, but the high bidder, act in turn
            may_act = (take_rows(state.passed_at, games) < 0).reshape(-1)  # [M * 3]
            rows = np.arange(len(games)) * NUM_PLAYERS
            first = _next_seat(seat)
            second = _next_seat(first)
            first_may = may_act[rows + first] & (first != declarer)
            second_may = may_act[rows + second] & (second != declarer)
            ended = (state.high_bid[games] == MOON_LEVEL) | ~(first_may | second_may)
            state.player[games] = np.where(first_may, first, second)
        won = games[ended & (declarer >= 0)]
        state.phase[won] = TRUMP
        state.player[won] = state.declarer[won]
        return games[ended & (declarer < 0)]

    @staticmethod
    def _apply_trump(state, games, actions):
        state.trump[games] = actions - TRUMP_CLUBS
        state.phase[games] = PLAY
        state.leader[games] = state.declarer[games]
        state.player[games] = state.declarer[games]

    def _apply_play(self, state, cards, playing):
        """Play the card ``cards[g]`` in every game g with ``playing[g]`` (bool[N]), resolving full tricks.

        Whole-batch: each seat column is updated where that seat plays; the card's
        bit is 0 for the other games (their actions are not cards). Returns the
        games whose sixth trick ended.
        """
        seat = state.player
        bit = (
            HAND_DTYPE(1) << cards.astype(HAND_DTYPE)
        ) & ALL_CARDS  # 0 for non-card actions (24..33)
        on_seat = seat_lanes(seat, NUM_PLAYERS) & playing  # bool[3, N]: the seat that plays
        if self.rules.allow_renege:
            allowed = playable_cards(at_seat(state.hands, on_seat), state.led_suit, state.trump)
            reneges = state.reneges.T
            reneges += ((allowed & bit) == 0) & on_seat
        seat_bits = bit * on_seat  # uint32[3, N]
        hands, played, trick = state.hands.T, state.played_cards.T, state.trick.T  # [3, N] views
        hands &= ~seat_bits
        played |= seat_bits
        trick[...] = blend(on_seat, cards, trick)
        trick_cells = state.trick_number.astype(np.intp) * len(seat) + game_index(len(seat))
        seat_view(state.trick_cards)[trick_cells] |= bit
        leading = playing & (seat == state.leader)
        led = effective_suit(cards, state.trump)
        state.led_suit[:] = blend(leading, led, state.led_suit)
        next_seat = _next_seat(seat)
        state.player[:] = blend(playing, next_seat, seat)

        done = playing & (next_seat == state.leader)
        if not done.any():  # no trick ended (two plays in three, one game at a time)
            return _NO_GAMES
        winner = trick_winner(state.trick, state.trump, state.led_suit)
        tricks_won = state.tricks_won.T
        tricks_won += seat_lanes(winner, NUM_PLAYERS) & done
        state.trick_number += done
        state.leader[:] = blend(done, winner, state.leader)
        state.player[:] = blend(done, winner, state.player)
        cleared = -done.view(np.int8)  # -1 where the trick ended, else 0
        trick |= cleared
        state.led_suit |= cleared
        return (done & (state.trick_number == NUM_TRICKS)).nonzero()[0]

    def deal_points(self, state, games):
        """int32[M, 3]: points each seat scores for the finished deals ``games``."""
        rules = self.rules
        points = take_rows(state.tricks_won, games).astype(
            np.int32
        )  # a non-declarer scores its tricks
        rows = np.arange(len(games))
        declarer, bid, made = _contract(state, games)
        taken = points[rows, declarer]
        moon = bid == MOON_LEVEL
        points[rows, declarer] = np.where(
            made,
            np.where(moon, rules.moon_points, taken),
            np.where(moon, -rules.moon_set_penalty, -bid),
        )
        return points - take_rows(state.reneges, games).astype(np.int32) * rules.renege_penalty

    @staticmethod
    def _summary_fields(state, games):
        declarer, bid, made = _contract(state, games)
        return {
            "maker": declarer,
            "contract": np.searchsorted(BID_LEVELS, bid).astype(np.int8),
            "made": made,
            "alone": np.zeros(len(games), bool),
            "swapper": state.swapper[games],
            "bid": state.high_bid[games],
            "trump": state.trump[games],
            "reneges": take_rows(state.reneges, games),
        }

    def _game_won(self, scores):
        """bool[M]: one seat alone leads and has at least target_score (a tie at the top plays on)."""
        top = np.maximum(np.maximum(scores[:, 0], scores[:, 1]), scores[:, 2])
        leaders = scores == top[:, None]
        return (
            (leaders[:, 0] ^ leaders[:, 1] ^ leaders[:, 2])
            & ~(leaders[:, 0] & leaders[:, 1])
            & (top >= self.rules.target_score)
        )

    # ------------------------------------------------------------- observation
    def observe(self, state, seats):
        """float32[N, 390]: each game observed by seat ``seats[i]`` (int[N], 0..2).

        The card blocks (14 uint32 masks per game) and the one-hot fields (one
        uint64 word of flags) are unpacked in one call and written as floats in
        one pass; then the 7 fractional columns.
        """
        n = state.num_games
        seats = self._check_seats(seats, n)
        cells = _relative_cells(seats, n)
        blocks = np.empty((n, _CARD_BLOCKS + 2), HAND_DTYPE)
        blocks[:, 0] = seat_view(state.hands).take(cells[0])
        blocks[:, 1] = state.ghost * (state.swapper == seats)
        blocks[:, 2:5] = seat_view(state.played_cards).take(cells).T
        blocks[:, 5:11] = state.trick_cards
        blocks[:, 11:14] = CARD_BIT_OR_NONE.take(seat_view(state.trick).take(cells)).T

        seat_fields = np.empty((len(_SEAT_FIELDS), n), np.intp)  # absolute seat or -1
        seat_fields[0] = state.swapper
        seat_fields[1] = state.declarer
        seat_fields[2] = state.dealer
        seat_fields[3] = np.where(state.phase == PLAY, state.leader, NO_SEAT)
        seat_fields[4:] = state.bids.T
        seat_fields *= NUM_PLAYERS
        seat_fields += _SEAT_FIELD_BASE + NUM_PLAYERS
        seat_fields += seats
        flags = np.bitwise_or.reduce(_SEAT_FLAGS.take(seat_fields), axis=0)
        passed = (
            seat_view(state.passed_at).take(cells) + np.arange(1, 15, 5, dtype=np.int8)[:, None]
        )
        flags |= np.bitwise_or.reduce(_PASS_FLAGS.take(passed), axis=0)
        flags |= _TABLE_FLAGS.take(
            (state.high_bid * 5 + state.trump).astype(np.intp) * 4 + state.phase + 4
        )
        blocks[:, _CARD_BLOCKS] = flags & FLAG_BLOCK
        blocks[:, _CARD_BLOCKS + 1] = flags >> np.uint64(NUM_CARDS)

        obs = np.empty((n, OBS_SIZE), dtype=np.float32)
        unpack_masks_into(obs[:, : (_CARD_BLOCKS + 2) * NUM_CARDS], blocks)
        tricks = seat_view(state.tricks_won).take(cells) / np.float32(NUM_TRICKS)
        scores = seat_view(state.scores).take(cells) / np.float32(self.rules.target_score)
        for rel in range(
            NUM_PLAYERS
        ):  # column by column: a [N, 3] block write loops over the short axis
            obs[:, OBS_OFFSETS["tricks_won"][0] + rel] = tricks[rel]
            obs[:, OBS_OFFSETS["scores"][0] + rel] = scores[rel]
        obs[:, OBS_OFFSETS["deal_progress"][0]] = state.deal_number / np.float32(
            self.rules.max_deals
        )
        return obs

    def hidden_cards(self, state, seats):
        """float32[N, 72] (``HIDDEN_LAYOUT``): the hands of the seats after ``seats[i]``, then the ghost hand."""
        n = state.num_games
        cells = _relative_cells(self._check_seats(seats, n), n)
        blocks = np.empty((n, 3), HAND_DTYPE)
        blocks[:, :2] = seat_view(state.hands).take(cells[1:]).T
        blocks[:, 2] = state.ghost
        hidden = np.empty((n, HIDDEN_SIZE), np.float32)
        unpack_masks_into(hidden, blocks)
        return hidden
