"""Ghost Hand Euchre (3 players): the pure, batched rules engine.

Every rule of the Ghost Hand section of ``shared/RULES.md`` lives here and
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

import numpy as np

from . import dealing
from .cards import (
    ALL_CARDS,
    CARD_BIT,
    HAND_DTYPE,
    NUM_CARDS,
    NUM_SUITS,
    SUIT_SYMBOLS,
    card_name,
    effective_suit,
    playable_cards,
    trick_winner,
    unpack_masks_into,
)
from .core import (
    BatchedGame,
    BatchState,
    StepResult,
    at_seat,
    blend,
    check_choice,
    check_int,
    fill_rows,
    game_index,
    layout_offsets,
    layout_table,
    put_rows,
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


def action_name(action):
    """Readable name of an action id: 'J♥', 'pass', 'trump ♥', 'bid 4', 'moon', 'swap'."""
    if 0 <= action < NUM_CARDS:
        return card_name(action)
    if TRUMP_CLUBS <= action < TRUMP_CLUBS + NUM_SUITS:
        return "trump " + SUIT_SYMBOLS[action - TRUMP_CLUBS]
    names = {
        PASS: "pass",
        BID_3: "bid 3",
        BID_4: "bid 4",
        BID_5: "bid 5",
        MOON: "moon",
        SWAP: "swap",
    }
    if action in names:
        return names[action]
    raise ValueError(f"action must be an int 0..{NUM_ACTIONS - 1}, got {action!r}")


AUCTION, TRUMP, PLAY, OVER = 0, 1, 2, 3
PHASE_NAMES = ("auction", "trump", "play", "over")
NO_SEAT = -1

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

EPISODES = ("game", "deal")
REWARDS = ("points", "win")
AUCTIONS = ("single_round", "open")


@dataclasses.dataclass(frozen=True)
class GhostRules:
    """Rules options of Ghost Hand Euchre (defaults as in RULES.md).

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

    def __post_init__(self):
        check_choice("auction", self.auction, AUCTIONS)
        if not isinstance(self.allow_renege, (bool, np.bool_)):
            raise ValueError(f"allow_renege must be a bool, got {self.allow_renege!r}")
        check_int("renege_penalty", self.renege_penalty, 0)
        check_int("moon_points", self.moon_points, 0)
        check_int("moon_set_penalty", self.moon_set_penalty, 0)
        check_int("target_score", self.target_score, 1)
        check_int("max_deals", self.max_deals, 1)


@dataclasses.dataclass
class GhostState(BatchState):
    """N Ghost Hand games. Seats are absolute (0..2); -1 means none.

    Hands are uint32 card masks (bit c set = card c held). [N, K] fields are
    stored seat-major (see :class:`core.BatchState`).
    """

    keys: np.ndarray  # uint64[N] dealing stream key of each game
    episode: np.ndarray  # int64[N] episodes started with this key
    episode_key: np.ndarray  # uint64[N] dealing key of the current episode
    chosen: np.ndarray  # uint32[N, K, 4] chosen deals (seat 0..2 hands, ghost)
    num_chosen: np.ndarray  # int32[N] how many of ``chosen`` this episode uses
    deal_number: np.ndarray  # int32[N] deals dealt this episode, redeals included
    dealer: np.ndarray  # int8[N]
    scores: np.ndarray  # int32[N, 3] game score by seat
    hands: np.ndarray  # uint32[N, 3] cards held by each seat
    ghost: np.ndarray  # uint32[N] the ghost hand; after a swap, the dead hand
    phase: np.ndarray  # int8[N] AUCTION, TRUMP, PLAY or OVER
    player: np.ndarray  # int8[N] seat to act (-1 when OVER)
    swapper: np.ndarray  # int8[N] seat that took the ghost hand
    acted: np.ndarray  # bool[N, 3] seat has bid or passed this deal
    passed_at: (
        np.ndarray
    )  # int8[N, 3] -1, else the high bid index (0 none, 1..3 = 3..5) when it passed
    bids: np.ndarray  # int8[N, 4] seat that bid 3, 4, 5, moon
    high_bid: np.ndarray  # int8[N] 0 (none), 3, 4, 5 or 6 (moon)
    declarer: np.ndarray  # int8[N]
    trump: np.ndarray  # int8[N] suit 0..3, -1 before it is named
    leader: np.ndarray  # int8[N] seat that led the current trick
    led_suit: np.ndarray  # int8[N] effective suit led in the current trick, -1 none
    trick: np.ndarray  # int8[N, 3] card each seat put in the current trick, -1 none
    trick_number: np.ndarray  # int8[N] tricks completed this deal
    played_cards: np.ndarray  # uint32[N, 3] cards each seat has played this deal
    trick_cards: np.ndarray  # uint32[N, 6] cards played in trick k
    tricks_won: np.ndarray  # int8[N, 3]
    reneges: np.ndarray  # int8[N, 3] plays that broke the follow-suit rule this deal


@dataclasses.dataclass
class GhostDealSummary:
    """Every deal that ended in one step; arrays have one row per such deal.

    game: int[M] game index; thrown_in: bool[M] all passed (no play, 0 points);
    dealer, declarer, swapper: int8[M] (-1 none); bid: int8[M] 0 none, 3..5, 6 moon;
    trump: int8[M]; tricks, reneges: int8[M, 3] and points: int32[M, 3] by seat;
    scores: int32[M, 3] game scores after the deal.
    """

    game: np.ndarray
    thrown_in: np.ndarray
    dealer: np.ndarray
    declarer: np.ndarray
    swapper: np.ndarray
    bid: np.ndarray
    trump: np.ndarray
    tricks: np.ndarray
    reneges: np.ndarray
    points: np.ndarray
    scores: np.ndarray


_NO_GAMES = np.zeros(0, dtype=np.int64)
_NO_DEALS = GhostDealSummary(
    **{
        f.name: np.zeros(
            (0, NUM_PLAYERS) if f.name in ("tricks", "reneges", "points", "scores") else 0, np.int8
        )
        for f in dataclasses.fields(GhostDealSummary)
    }
)  # the summary of a step in which no deal ended (read-only by convention)


def _passed_index_table():
    """int8[7]: high bid (0, 3..6) -> index stored in ``passed_at``."""
    table = np.zeros(MOON_LEVEL + 1, dtype=np.int8)
    table[3:6] = [1, 2, 3]
    return table


_PASSED_INDEX = _passed_index_table()


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
_CARD_BIT_OR_NONE = np.append(CARD_BIT, HAND_DTYPE(0))  # index -1 (no card) -> empty mask
_REL_OF_SEAT = (
    np.arange(NUM_PLAYERS)[:, None] + np.arange(NUM_PLAYERS)
) % NUM_PLAYERS  # [r, observer] -> seat

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
    table = np.zeros((len(_SEAT_FIELDS), NUM_PLAYERS + 1, NUM_PLAYERS), np.uint64)
    for field in range(len(_SEAT_FIELDS)):
        for seat in range(NUM_PLAYERS):
            for observer in range(NUM_PLAYERS):
                table[field, seat + 1, observer] = 1 << (
                    field * NUM_PLAYERS + (seat - observer) % NUM_PLAYERS
                )
    return table.reshape(-1)


def _pass_flag_table():
    """uint64[3 * 5]: [relative seat r, passed_at + 1] -> its bit in "passes" (none when it has not passed)."""
    table = np.zeros((NUM_PLAYERS, 5), np.uint64)
    start = OBS_OFFSETS["passes"][0] - _FLAGS_START
    for rel in range(NUM_PLAYERS):
        for passed in range(4):
            table[rel, passed + 1] = 1 << (start + rel * 4 + passed)
    return table.reshape(-1)


def _table_flag_table():
    """uint64[7 * 5 * 4]: [high bid 0..6, trump + 1, phase] -> the bits of contract, trump and phase."""
    table = np.zeros((MOON_LEVEL + 1, NUM_SUITS + 1, 4), np.uint64)
    contract, trump, phase = (
        OBS_OFFSETS[name][0] - _FLAGS_START for name in ("contract", "trump", "phase")
    )
    for high in range(MOON_LEVEL + 1):
        for suit in range(-1, NUM_SUITS):
            for game_phase in (AUCTION, TRUMP, PLAY, OVER):
                bits = 0
                if high >= 3:
                    bits |= 1 << (contract + high - 3)
                if suit >= 0:
                    bits |= 1 << (trump + suit)
                if game_phase != OVER:
                    bits |= 1 << (phase + game_phase)
                table[high, suit + 1, game_phase] = bits
    return table.reshape(-1)


_SEAT_FLAGS = _seat_flag_table()
_SEAT_FIELD_BASE = (np.arange(len(_SEAT_FIELDS), dtype=np.intp) * (NUM_PLAYERS + 1) * NUM_PLAYERS)[
    :, None
]
_PASS_FLAGS = _pass_flag_table()
_TABLE_FLAGS = _table_flag_table()
_FLAG_BLOCK = np.uint64((1 << NUM_CARDS) - 1)


def _next_seat(seat):
    """int8[M]: the seat clockwise of each seat (int8[M], 0..2); arithmetic, cheaper than a lookup."""
    return seat + 1 - NUM_PLAYERS * (seat == NUM_PLAYERS - 1)


class GhostEuchre(BatchedGame[GhostRules]):
    """The rules of Ghost Hand Euchre over batches of games.

    episode: "game" (deals until a player wins at target_score) or "deal" (one
    deal; an all-pass deal ends it with 0 points). reward: "points" (each seat's
    score change, when a deal is scored) or "win" (at game end: +1 winner, -1/2
    each other seat, 0 on truncation; needs episode="game"). Other keyword
    arguments are :class:`GhostRules`.
    """

    num_players = NUM_PLAYERS
    num_actions = NUM_ACTIONS
    obs_size = OBS_SIZE
    over_phase = OVER

    def __init__(self, episode="game", reward="points", **rules):
        check_choice("episode", episode, EPISODES)
        check_choice("reward", reward, REWARDS)
        if reward == "win" and episode != "game":
            raise ValueError("reward='win' needs episode='game' (a single deal has no winner)")
        unknown = set(rules) - {f.name for f in dataclasses.fields(GhostRules)}
        if unknown:
            raise ValueError(
                f"unknown rules option(s) {sorted(unknown)}; "
                f"expected some of {[f.name for f in dataclasses.fields(GhostRules)]}"
            )
        self.episode = episode
        self.reward = reward
        self.rules = GhostRules(**rules)

    # ----------------------------------------------------------------- episodes
    def init(self, keys, options=None):
        """A new batch: one game per stream key (uint64[N]), first deal dealt.

        options: None, one dict for every game, or a list of N dicts (or None),
        each with optional ``dealer`` (0..2) and ``deals`` (list of
        ``{"hands": [[6 ids] x 3], "ghost": [6 ids]}`` used in order).
        """
        n = len(keys)
        i8 = lambda *shape: np.full((n, *shape), -1, dtype=np.int8)  # noqa: E731
        state = GhostState(
            keys=np.asarray(keys, dtype=np.uint64).copy(),
            episode=np.zeros(n, np.int64),
            episode_key=np.zeros(n, np.uint64),
            chosen=np.zeros((n, 0, 4), HAND_DTYPE),
            num_chosen=np.zeros(n, np.int32),
            deal_number=np.zeros(n, np.int32),
            dealer=i8(),
            scores=np.zeros((n, NUM_PLAYERS), np.int32),
            hands=np.zeros((n, NUM_PLAYERS), HAND_DTYPE),
            ghost=np.zeros(n, HAND_DTYPE),
            phase=i8(),
            player=i8(),
            swapper=i8(),
            acted=np.zeros((n, NUM_PLAYERS), bool),
            passed_at=i8(NUM_PLAYERS),
            bids=i8(len(BID_LEVELS)),
            high_bid=np.zeros(n, np.int8),
            declarer=i8(),
            trump=i8(),
            leader=i8(),
            led_suit=i8(),
            trick=i8(NUM_PLAYERS),
            trick_number=np.zeros(n, np.int8),
            played_cards=np.zeros((n, NUM_PLAYERS), HAND_DTYPE),
            trick_cards=np.zeros((n, NUM_TRICKS), HAND_DTYPE),
            tricks_won=np.zeros((n, NUM_PLAYERS), np.int8),
            reneges=np.zeros((n, NUM_PLAYERS), np.int8),
        )
        self.start_episodes(state, np.arange(n), options)
        return state

    @staticmethod
    def _parse_deal(deal, game, number):
        where = f"game {game}, deal {number}"
        if not isinstance(deal, dict) or set(deal) != {"hands", "ghost"}:
            raise ValueError(
                f"{where}: a deal is a dict with keys 'hands' and 'ghost', got {deal!r}"
            )
        hands = list(deal["hands"])
        if len(hands) != NUM_PLAYERS:
            raise ValueError(f"{where}: 'hands' must hold 3 hands, got {len(hands)}")
        try:
            return dealing.parse_deal(
                [*hands, deal["ghost"]], [HAND_SIZE] * 4, ["seat 0", "seat 1", "seat 2", "ghost"]
            )
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None

    def _start_deals(self, state, games):
        """Deal the next deal in ``games`` and open its auction."""
        number = state.deal_number[games]
        use_chosen = number < state.num_chosen[games]
        deck = dealing.random_deals(state.episode_key[games], number)
        bits = CARD_BIT.take(deck).reshape(len(games), 4, HAND_SIZE)
        dealt = (
            bits[:, :, 0]
            | bits[:, :, 1]
            | bits[:, :, 2]
            | bits[:, :, 3]
            | bits[:, :, 4]
            | bits[:, :, 5]
        )
        if use_chosen.any():
            rows = games[use_chosen]
            dealt[use_chosen] = state.chosen[rows, number[use_chosen]]
        state.deal_number[games] += 1
        put_rows(state.hands, games, dealt[:, :NUM_PLAYERS])
        state.ghost[games] = dealt[:, NUM_PLAYERS]
        state.phase[games] = AUCTION
        state.player[games] = _next_seat(state.dealer[games])
        for field in (state.high_bid, state.trick_number):
            field[games] = 0
        for field in (state.swapper, state.declarer, state.trump, state.leader, state.led_suit):
            field[games] = -1
        fill_rows(
            (state.acted, state.tricks_won, state.reneges, state.played_cards, state.trick_cards),
            games,
            0,
        )
        fill_rows((state.passed_at, state.bids, state.trick), games, -1)

    # ---------------------------------------------------------------- decisions
    def legal_cards(self, state):
        """uint32[N]: cards the player to act may play (0 outside the play phase)."""
        return self._legal_cards(state, seat_lanes(state.player, NUM_PLAYERS))

    def _legal_cards(self, state, lanes):
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

    def step(self, state, actions, auto_reset=False) -> StepResult[GhostDealSummary]:
        """Apply one legal action per game (int[N]), in place; returns a StepResult.

        Actions are not checked here (adapters check them once, with
        :func:`core.check_actions`); a finished game (phase OVER) must not be stepped.
        With ``auto_reset`` a game that ends starts its next episode in the same
        call (as :meth:`next_episodes` would); the result still reports its end.
        Card plays, the bulk of the decisions, are applied to the whole batch at
        once; the auction and the naming of trump to the games concerned only.
        """
        action = np.asarray(actions).astype(np.int8)
        phase = state.phase
        auction = np.flatnonzero(phase == AUCTION)  # all taken before any game moves on
        naming = np.flatnonzero(phase == TRUMP)
        scored = self._apply_play(state, action, phase == PLAY)
        thrown_in = (
            self._apply_auction(state, auction, action[auction]) if len(auction) else _NO_GAMES
        )
        if len(naming):
            self._apply_trump(state, naming, action[naming])
        if len(thrown_in) or len(scored):
            return self._end_deals(state, thrown_in, scored, auto_reset)
        n = state.num_games
        zeros = np.zeros(n, bool)
        return StepResult(np.zeros((n, NUM_PLAYERS), np.float32), zeros, zeros.copy(), _NO_DEALS)

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
        winner = trick_winner(state.trick, state.trump, state.led_suit)
        tricks_won = state.tricks_won.T
        tricks_won += seat_lanes(winner, NUM_PLAYERS) & done
        state.trick_number += done
        state.leader[:] = blend(done, winner, state.leader)
        state.player[:] = blend(done, winner, state.player)
        cleared = -done.view(np.int8)  # -1 where the trick ended, else 0
        trick |= cleared
        state.led_suit |= cleared
        return np.flatnonzero(done & (state.trick_number == NUM_TRICKS))

    def deal_points(self, state, games):
        """int32[M, 3]: points each seat scores for the finished deals ``games``."""
        rules = self.rules
        points = take_rows(state.tricks_won, games).astype(
            np.int32
        )  # a non-declarer scores its tricks
        rows = np.arange(len(games))
        declarer = state.declarer[games]
        bid = state.high_bid[games].astype(np.int32)
        taken = points[rows, declarer]
        made = taken >= bid
        moon = bid == MOON_LEVEL
        points[rows, declarer] = np.where(
            made,
            np.where(moon, rules.moon_points, taken),
            np.where(moon, -rules.moon_set_penalty, -bid),
        )
        return points - take_rows(state.reneges, games).astype(np.int32) * rules.renege_penalty

    def _end_deals(self, state, thrown_in, scored, auto_reset) -> StepResult[GhostDealSummary]:
        """Score finished deals, decide game ends, deal again where play goes on."""
        n = state.num_games
        rewards = np.zeros((n, NUM_PLAYERS), np.float32)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        points = self.deal_points(state, scored)
        put_rows(state.scores, scored, take_rows(state.scores, scored) + points)
        if self.reward == "points":
            put_rows(rewards, scored, points)
        ended = np.concatenate([scored, thrown_in])
        all_points = np.concatenate([points, np.zeros((len(thrown_in), NUM_PLAYERS), np.int32)])
        summary = GhostDealSummary(
            game=ended,
            thrown_in=np.arange(len(ended)) >= len(scored),
            dealer=state.dealer[ended],
            declarer=state.declarer[ended],
            swapper=state.swapper[ended],
            bid=state.high_bid[ended],
            trump=state.trump[ended],
            tricks=take_rows(state.tricks_won, ended),
            reneges=take_rows(state.reneges, ended),
            points=all_points,
            scores=take_rows(state.scores, ended),
        )
        if self.episode == "deal":
            over = np.ones(len(ended), bool)
        else:
            scores = summary.scores
            top = np.maximum(np.maximum(scores[:, 0], scores[:, 1]), scores[:, 2])
            leaders = scores == top[:, None]
            over = (
                (leaders[:, 0] ^ leaders[:, 1] ^ leaders[:, 2])
                & ~(leaders[:, 0] & leaders[:, 1])
                & (top >= self.rules.target_score)
            )
            if self.reward == "win":
                rewards[ended[over]] = np.where(leaders[over], 1.0, -0.5)
        self._close_games(state, ended, over, terminated, truncated, auto_reset)
        return StepResult(rewards, terminated, truncated, summary)

    # ------------------------------------------------------------- observation
    def observe(self, state, seats):
        """float32[N, 390]: each game observed by seat ``seats[i]`` (int[N], 0..2).

        The card blocks (14 uint32 masks per game) and the one-hot fields (one
        uint64 word of flags) are unpacked in one call and written as floats in
        one pass; then the 7 fractional columns.
        """
        n = state.num_games
        seats = self._check_seats(seats, n)
        # cells[r, i]: index into the seat view of an [N, 3] field of relative seat r in game i.
        cells = _REL_OF_SEAT.take(seats, axis=1) * n + game_index(n)
        blocks = np.empty((n, _CARD_BLOCKS + 2), HAND_DTYPE)
        blocks[:, 0] = seat_view(state.hands).take(cells[0])
        blocks[:, 1] = state.ghost * (state.swapper == seats)
        blocks[:, 2:5] = seat_view(state.played_cards).take(cells).T
        blocks[:, 5:11] = state.trick_cards
        blocks[:, 11:14] = _CARD_BIT_OR_NONE.take(seat_view(state.trick).take(cells)).T

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
        blocks[:, _CARD_BLOCKS] = flags & _FLAG_BLOCK
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
