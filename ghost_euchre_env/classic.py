"""Classic Euchre (4 players, 2 partnerships): the pure, batched rules engine.

Every rule of the Classic Euchre section of ``shared/RULES.md`` lives here; the
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

import numpy as np

from . import dealing
from .cards import (
    ALL_CARDS,
    CARD_BIT,
    HAND_DTYPE,
    NO_CARD,
    NO_SUIT,
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
    one_hot_bits,
    one_hot_table,
    put_rows,
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

BIDDING, DISCARD, ALONE, PLAY, OVER = 0, 1, 2, 3, 4
PHASE_NAMES = ("bidding", "discard", "alone", "play", "over")
NO_SEAT = -1
ALL_ACTIVE = 0b1111  # ``active`` bit s set = seat s plays this deal

SEATS = np.arange(NUM_PLAYERS, dtype=np.int8)
SEAT_TEAM = SEATS % NUM_TEAMS  # team of each seat: 0, 1, 0, 1


def action_name(action):
    """Readable name of an action id: 'J♥', 'pass', 'suit ♥', 'alone', 'partner'."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        if 0 <= action < NUM_CARDS:
            return card_name(action)
        if SUIT_CLUBS <= action < SUIT_CLUBS + NUM_SUITS:
            return "suit " + SUIT_SYMBOLS[action - SUIT_CLUBS]
        names = {PASS: "pass", GO_ALONE: "alone", WITH_PARTNER: "partner"}
        if action in names:
            return names[int(action)]
    raise ValueError(f"action must be an int 0..{NUM_ACTIONS - 1}, got {action!r}")


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

EPISODES = ("game", "deal")
REWARDS = ("points", "win")


@dataclasses.dataclass(frozen=True)
class ClassicRules:
    """Rules options of classic Euchre (defaults as in RULES.md and OpenSpiel).

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

    def __post_init__(self):
        for name in ("stick_the_dealer", "allow_lone_defender"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be a bool, got {getattr(self, name)!r}")
        check_int("target_score", self.target_score, 1)
        check_int("max_deals", self.max_deals, 1)


@dataclasses.dataclass
class ClassicState(BatchState):
    """N classic Euchre games. Seats are absolute (0..3); -1 means none.

    Hands and card sets are uint32 masks (bit c set = card c). [N, K] fields
    are stored seat-major (see :class:`core.BatchState`).
    """

    keys: np.ndarray  # uint64[N] dealing stream key of each game
    episode: np.ndarray  # int64[N] episodes started with this key
    episode_key: np.ndarray  # uint64[N] dealing key of the current episode (from keys and episode)
    chosen: np.ndarray  # uint32[N, K, 5] chosen deals: seat 0..3 hand masks, upcard id
    num_chosen: np.ndarray  # int32[N] how many of ``chosen`` this episode uses
    deal_number: np.ndarray  # int32[N] deals dealt this episode, redeals included
    dealer: np.ndarray  # int8[N]
    scores: np.ndarray  # int32[N, 2] game score by team
    hands: np.ndarray  # uint32[N, 4] cards each seat holds now
    held: np.ndarray  # uint32[N, 4] dealt hand + picked-up upcard - discard; played = held & ~hands
    upcard: np.ndarray  # int8[N] the card turned face up
    discard: np.ndarray  # int8[N] the dealer's discard, -1 none
    phase: np.ndarray  # int8[N] BIDDING, DISCARD, ALONE, PLAY or OVER
    player: np.ndarray  # int8[N] seat to act (-1 when OVER)
    passes: np.ndarray  # int8[N] passes this deal (0..8); calls 0..passes-1 were passes
    maker: np.ndarray  # int8[N] seat that ordered up or named trump
    trump: np.ndarray  # int8[N] suit 0..3, -1 before it is made
    alone: np.ndarray  # int8[N, 4] alone choice by seat: -1 none, 0 with partner, 1 alone
    lone_defender: np.ndarray  # int8[N]
    active: np.ndarray  # int8[N] bit s set = seat s plays this deal
    leader: np.ndarray  # int8[N] seat that led the current trick
    led_suit: np.ndarray  # int8[N] effective suit led in the current trick, -1 none
    trick: np.ndarray  # int8[N, 4] card each seat put in the current trick, -1 none
    trick_number: np.ndarray  # int8[N] tricks completed this deal
    trick_cards: (
        np.ndarray
    )  # uint32[N, 5] cards played in trick k this deal (the current one included)
    tricks_won: np.ndarray  # int8[N, 4]


@dataclasses.dataclass
class ClassicDealSummary:
    """Every deal that ended in one step; arrays have one row per such deal.

    game: int[M] game index; thrown_in: bool[M] eight passes (no play, 0 points);
    dealer, maker, lone_defender: int8[M] (-1 none); trump, upcard: int8[M];
    maker_alone: bool[M]; tricks: int8[M, 4] by seat; points: int32[M, 2] and
    scores (game scores after the deal): int32[M, 2] by team.
    """

    game: np.ndarray
    thrown_in: np.ndarray
    dealer: np.ndarray
    maker: np.ndarray
    trump: np.ndarray
    upcard: np.ndarray
    maker_alone: np.ndarray
    lone_defender: np.ndarray
    tricks: np.ndarray
    points: np.ndarray
    scores: np.ndarray


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


_CARD_BIT_OR_NONE = np.append(CARD_BIT, HAND_DTYPE(0))  # index -1 (no card) -> empty mask

_CARD_BLOCKS = 16  # hand, upcard, discard, 4 played-by, 5 tricks, 4 current-trick cards
assert OBS_OFFSETS["current_trick"][1] == _CARD_BLOCKS * NUM_CARDS
# _REL_SEAT_CODE[(seat + 1) * 4 + observer]: relative seat + 1, or 0 for no seat.
_REL_SEAT_CODE = np.array(
    [0] * 4 + [(s - o) % 4 + 1 for s in range(4) for o in range(4)], dtype=np.intp
)
_BASE_3 = 3 ** np.arange(NUM_PLAYERS)[:, None]
_ALONE_DIGIT = np.array(
    [2, 1, 0], dtype=np.intp
)  # alone choice 0 (with partner), 1 (alone), -1 (none)
_RELATIVE_SEATS = np.arange(NUM_PLAYERS, dtype=np.intp)[:, None]


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
_FLAG_BLOCK = np.uint64((1 << NUM_CARDS) - 1)


class ClassicEuchre(BatchedGame[ClassicRules]):
    """The rules of classic 4-player Euchre over batches of games.

    episode: "game" (deals until a team reaches target_score) or "deal" (one
    deal; eight passes end it with 0 points). reward: "points" (each seat gets
    its team's points when a deal is scored, 0 for the other team) or "win" (at
    game end: +1 each winner, -1 each loser, 0 on truncation; needs
    episode="game"). Other keyword arguments are :class:`ClassicRules`.
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
        known = [f.name for f in dataclasses.fields(ClassicRules)]
        unknown = set(rules) - set(known)
        if unknown:
            raise ValueError(f"unknown rules option(s) {sorted(unknown)}; expected some of {known}")
        self.episode = episode
        self.reward = reward
        self.rules = ClassicRules(**rules)
        self._tail = _tail_table(self.rules.stick_the_dealer)

    # ----------------------------------------------------------------- episodes
    def init(self, keys, options=None):
        """A new batch: one game per stream key (uint64[N]), first deal dealt.

        options: None, one dict for every game, or a list of N dicts (or None),
        each with optional ``dealer`` (0..3) and ``deals`` (list of
        ``{"hands": [[5 ids] x 4], "upcard": id}`` used in order; the three
        cards in neither are the rest of the kitty).
        """
        n = len(keys)
        i8 = lambda *shape: np.full((n, *shape), -1, dtype=np.int8)  # noqa: E731
        state = ClassicState(
            keys=np.asarray(keys, dtype=np.uint64).copy(),
            episode=np.zeros(n, np.int64),
            episode_key=np.zeros(n, np.uint64),
            chosen=np.zeros((n, 0, NUM_PLAYERS + 1), HAND_DTYPE),
            num_chosen=np.zeros(n, np.int32),
            deal_number=np.zeros(n, np.int32),
            dealer=i8(),
            scores=np.zeros((n, NUM_TEAMS), np.int32),
            hands=np.zeros((n, NUM_PLAYERS), HAND_DTYPE),
            held=np.zeros((n, NUM_PLAYERS), HAND_DTYPE),
            upcard=i8(),
            discard=i8(),
            phase=i8(),
            player=i8(),
            passes=np.zeros(n, np.int8),
            maker=i8(),
            trump=i8(),
            alone=i8(NUM_PLAYERS),
            lone_defender=i8(),
            active=np.full(n, ALL_ACTIVE, np.int8),
            leader=i8(),
            led_suit=i8(),
            trick=i8(NUM_PLAYERS),
            trick_number=np.zeros(n, np.int8),
            trick_cards=np.zeros((n, NUM_TRICKS), HAND_DTYPE),
            tricks_won=np.zeros((n, NUM_PLAYERS), np.int8),
        )
        self.start_episodes(state, np.arange(n), options)
        return state

    @staticmethod
    def _parse_deal(deal, game, number):
        """One ``{"hands": [[5 ids] x 4], "upcard": id}`` -> [4 hand masks, upcard id]."""
        where = f"game {game}, deal {number}"
        if not isinstance(deal, dict) or set(deal) != {"hands", "upcard"}:
            raise ValueError(
                f"{where}: a deal is a dict with keys 'hands' and 'upcard', got {deal!r}"
            )
        hands = deal["hands"]
        if not isinstance(hands, (list, tuple)) or not all(
            isinstance(h, (list, tuple, np.ndarray)) for h in hands
        ):
            raise ValueError(
                f"{where}: 'hands' must be a list of 4 lists of 5 card ids, got {hands!r}"
            )
        hands = [list(hand) for hand in hands]
        if len(hands) != NUM_PLAYERS:
            raise ValueError(f"{where}: 'hands' must hold 4 hands, got {len(hands)}")
        upcard = deal["upcard"]
        named = [card for hand in hands for card in hand] + [upcard]
        kitty = sorted(
            set(range(NUM_CARDS)) - {c for c in named if isinstance(c, (int, np.integer))}
        )
        try:
            masks = dealing.parse_deal(
                [*hands, [upcard], kitty],
                [HAND_SIZE] * NUM_PLAYERS + [1, 3],
                ["seat 0", "seat 1", "seat 2", "seat 3", "upcard", "rest of the kitty"],
            )
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
        return [*masks[:NUM_PLAYERS], int(upcard)]

    def _start_deals(self, state, games):
        """Deal the next deal in ``games`` and open its bidding."""
        number = state.deal_number[games]
        use_chosen = number < state.num_chosen[games]
        deck = dealing.random_deals(state.episode_key[games], number)
        dealt_cards = NUM_PLAYERS * HAND_SIZE
        bits = CARD_BIT.take(deck[:, :dealt_cards]).reshape(len(games), NUM_PLAYERS, HAND_SIZE)
        hands = bits[:, :, 0] | bits[:, :, 1] | bits[:, :, 2] | bits[:, :, 3] | bits[:, :, 4]
        upcard = deck[:, dealt_cards]
        if use_chosen.any():
            chosen = state.chosen[games[use_chosen], number[use_chosen]]
            hands[use_chosen] = chosen[:, :NUM_PLAYERS]
            upcard[use_chosen] = chosen[:, NUM_PLAYERS]
        state.deal_number[games] += 1
        put_rows(state.hands, games, hands)
        put_rows(state.held, games, hands)
        state.upcard[games] = upcard
        state.phase[games] = BIDDING
        state.player[games] = (state.dealer[games] + 1) % NUM_PLAYERS
        state.passes[games] = 0
        state.active[games] = ALL_ACTIVE
        state.trick_number[games] = 0
        fill_rows((state.tricks_won, state.trick_cards), games, 0)
        for field in (
            state.discard,
            state.maker,
            state.trump,
            state.lone_defender,
            state.leader,
            state.led_suit,
        ):
            field[games] = -1
        fill_rows((state.alone, state.trick), games, -1)

    # ---------------------------------------------------------------- decisions
    def legal_cards(self, state):
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
        return self.legal_cards(state) | self._tail.take(code)

    def step(self, state, actions, auto_reset=False) -> StepResult[ClassicDealSummary]:
        """Apply one legal action per game (int[N]), in place; returns a StepResult.

        Actions are not checked here (adapters check them once, with
        :func:`core.check_actions`); a finished game (phase OVER) must not be stepped.
        With ``auto_reset`` a game that ends starts its next episode in the same
        call (as :meth:`next_episodes` would); the result still reports its end.
        Passes and card plays, the bulk of the decisions, are applied to the whole
        batch with bit arithmetic; the rarer events (making trump, the discard,
        alone choices, the end of a trick) to the games concerned only.
        """
        n = len(state.player)
        action = np.asarray(actions).astype(np.int8)
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
        return self._end_deals(state, thrown_in, scored, auto_reset)

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

    def _end_deals(self, state, thrown_in, scored, auto_reset) -> StepResult[ClassicDealSummary]:
        """Score finished deals, decide game ends, deal again where play goes on."""
        n = len(state.player)
        rewards = np.zeros((n, NUM_PLAYERS), np.float32)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        ended = np.concatenate([scored, thrown_in])
        points = np.zeros((len(ended), NUM_TEAMS), np.int32)  # thrown-in deals score nothing
        if len(scored):
            team, team_points = self._deal_result(state, scored)
            seat_view(state.scores)[team.astype(np.intp) * n + scored] += team_points
            points[np.arange(len(scored)), team] = team_points
            if self.reward == "points":
                put_rows(rewards, scored, points[: len(scored), SEAT_TEAM])
        maker = state.maker[ended]
        summary = ClassicDealSummary(
            game=ended,
            thrown_in=np.arange(len(ended)) >= len(scored),
            dealer=state.dealer[ended],
            maker=maker,
            trump=state.trump[ended],
            upcard=state.upcard[ended],
            maker_alone=(maker >= 0)
            & (seat_view(state.alone).take((maker & 3).astype(np.intp) * n + ended) == 1),
            lone_defender=state.lone_defender[ended],
            tricks=take_rows(state.tricks_won, ended),
            points=points,
            scores=take_rows(state.scores, ended),
        )
        if not len(ended):
            return StepResult(rewards, terminated, truncated, summary)
        if self.episode == "deal":
            over = np.ones(len(ended), bool)
        else:
            scores = summary.scores
            over = np.maximum(scores[:, 0], scores[:, 1]) >= self.rules.target_score
            if self.reward == "win":
                winning_team = scores[over].argmax(axis=1)
                rewards[ended[over]] = np.where(SEAT_TEAM == winning_team[:, None], 1.0, -1.0)
        self._close_games(state, ended, over, terminated, truncated, auto_reset)
        return StepResult(rewards, terminated, truncated, summary)

    # ------------------------------------------------------------- observation
    def observe(self, state, seats):
        """float32[N, 464]: each game observed by seat ``seats[i]`` (int[N], 0..3).

        The card blocks (16 uint32 masks per game) and the one-hot fields (two
        uint64 words of flags) are unpacked in one call and written as floats in
        one pass; then the 7 fractional columns.
        """
        n = len(state.player)
        seats = self._check_seats(seats, n)
        rel_cells = ((seats + _RELATIVE_SEATS) & 3) * n + game_index(
            n
        )  # [r, i]: relative seat r of game i

        def by_rel(field):  # [N, 4] per absolute seat -> [4, N] per relative seat
            return seat_view(field).take(rel_cells)

        blocks = np.empty((n, _CARD_BLOCKS + 4), HAND_DTYPE)
        blocks[:, 0] = seat_view(state.hands).take(rel_cells[0])
        blocks[:, 1] = CARD_BIT.take(state.upcard)
        blocks[:, 2] = _CARD_BIT_OR_NONE.take(state.discard) * (state.dealer == seats)
        blocks[:, 3:7] = by_rel(state.held).T & ~by_rel(state.hands).T
        blocks[:, 7:12] = state.trick_cards
        blocks[:, 12:16] = _CARD_BIT_OR_NONE.take(by_rel(state.trick)).T

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
        blocks[:, _CARD_BLOCKS] = flags & _FLAG_BLOCK
        blocks[:, _CARD_BLOCKS + 1] = (flags >> np.uint64(NUM_CARDS)) & _FLAG_BLOCK
        blocks[:, _CARD_BLOCKS + 2] = (flags >> np.uint64(2 * NUM_CARDS)) | (
            (later << np.uint64(_WORD_A_BITS - 2 * NUM_CARDS)) & _FLAG_BLOCK
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
