"""Ghost Hand Euchre (3 players): the pure, batched rules engine.

Every rule of the Ghost Hand section of ``docs/RULES.md`` lives in the
kernels of :mod:`ghost_euchre_env.kernels.ghost` (compiled once with Numba) and
nowhere else; this module is the batch API over them, and the vector,
PettingZoo and Gymnasium APIs are thin adapters. A batch of N games is a
:class:`GhostState`, one record a game; :meth:`GhostEuchre.step`
advances every game by one decision in one kernel call and mutates the state
in place.

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
from .cards import HAND_DTYPE, NUM_CARDS, NUM_SUITS
from .core import (
    Actions,
    BatchedGame,
    DealSummary,
    Doors,
    EpisodeState,
    Field,
    Rules,
    ShippedNetwork,
    Solving,
    VariantDeclaration,
    column,
    layout_offsets,
    layout_table,
    name_action,
    parse_suit,
)
from .kernels import ghost as rules
from .kernels import scoring
from .kernels.ghost import (
    AUCTIONS,
    BID_3,
    BID_4,
    BID_5,
    HAND_SIZE,
    MOON,
    MOON_LEVEL,
    NUM_ACTIONS,
    NUM_PLAYERS,
    NUM_TRICKS,
    PASS,
    SWAP,
    TRUMP_CLUBS,
)

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


class GhostActions(Actions):
    """Ghost Hand's actions: PASS, SWAP, MOON, ``bid(3..5 or 6 = moon)``, ``trump(suit)``, ``card(card)``."""

    num_actions = NUM_ACTIONS
    PASS = PASS
    SWAP = SWAP
    MOON = MOON
    BIDS = (BID_3, BID_4, BID_5, MOON)  # by level 3, 4, 5, moon
    _BY_LEVEL: ClassVar[dict[int, int]] = dict(zip(BID_LEVELS, BIDS, strict=True))
    SUITS = tuple(range(TRUMP_CLUBS, TRUMP_CLUBS + NUM_SUITS))  # name trump C, D, H, S

    def bid(self, level):
        """Action id of a bid of ``level`` tricks (3, 4, 5; 6 or 'moon': the moon)."""
        if isinstance(level, str) and level == "moon":
            level = MOON_LEVEL
        is_int = isinstance(level, (int, np.integer)) and not isinstance(level, bool)
        action = self._BY_LEVEL.get(int(level)) if is_int else None
        if action is None:
            raise ValueError(f"not a bid: {level!r}; expected 3, 4, 5, 6 or 'moon'")
        return action

    suit_method = "trump"

    def spellings(self):
        return dict(
            sorted(
                {
                    **super().spellings(),
                    **{self.bid(b): f"actions.bid({b})" for b in (3, 4, 5)},
                }.items()
            )
        )

    def trump(self, suit):
        """Action id that names ``suit`` trump ('H', '♥', 'hearts' or 0..3)."""
        return TRUMP_CLUBS + parse_suit(suit)


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
    ("maker", 3, "relative seat of the highest bidder (all 0: no bid yet)"),
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
_SEAT = ("seat", {})
OBS_KINDS = {  # how each field of OBS_LAYOUT decodes: (kind, options) of views.Field
    "hand": ("cards", {}),
    "dead_hand": ("cards", {}),
    "played_by": ("cards", {"shape": (NUM_PLAYERS,)}),
    "played_in_trick": ("cards", {"shape": (NUM_TRICKS,)}),
    "current_trick": ("cards", {"shape": (NUM_PLAYERS,)}),
    "swapper": _SEAT,
    "maker": _SEAT,
    "dealer": _SEAT,
    "leader": _SEAT,
    "bids": ("flags", {"shape": (len(BID_LEVELS), NUM_PLAYERS)}),
    "passes": ("flags", {"shape": (NUM_PLAYERS, 4)}),
    "contract": ("choice", {"values": BID_LEVELS, "none": 0}),
    "trump": ("choice", {"values": tuple(range(NUM_SUITS))}),
    "phase": ("choice", {"values": (AUCTION, TRUMP, PLAY), "none": OVER}),
    "tricks_won": ("count", {"shape": (NUM_PLAYERS,), "scale": NUM_TRICKS}),
    "scores": ("fraction", {"shape": (NUM_PLAYERS,)}),
    "deal_progress": ("fraction", {}),
}
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


class GhostState(EpisodeState):
    """N Ghost Hand games: the fields of :class:`core.EpisodeState` and these. Seats are absolute (0..2); -1 means none.

    Hands are uint32 card masks (bit c set = card c held). The deal's fields are written
    afresh when a deal starts (the kernel ``start_deals``).
    """

    deal_width = 4  # a chosen deal: seat 0..2 hands, ghost
    score_width = NUM_PLAYERS  # game score by seat

    hands = Field(HAND_DTYPE, NUM_PLAYERS)  # cards held by each seat
    ghost = Field(HAND_DTYPE)  # the ghost hand; after a swap, the dead hand
    # the deal's fields:
    swapper = Field(np.int8)  # took the ghost hand (-1 none)
    acted = Field(bool, NUM_PLAYERS)  # seat has bid or passed
    passed_at = Field(np.int8, NUM_PLAYERS)  # -1, else the high bid (0 none, 1..3 = 3..5) passed at
    bids = Field(np.int8, len(BID_LEVELS))  # seat that bid 3, 4, 5, moon
    high_bid = Field(np.int8)  # 0 (none), 3, 4, 5 or 6 (moon)
    maker = Field(np.int8)  # the highest bidder, the declarer (-1 none)
    trump = Field(np.int8)  # suit 0..3, -1 before it is named
    leader = Field(np.int8)  # led the current trick (-1 none)
    led_suit = Field(np.int8)  # effective suit led, -1 none
    trick = Field(np.int8, NUM_PLAYERS)  # card each seat put in the current trick (-1 none)
    trick_number = Field(np.int8)  # tricks completed this deal
    played_cards = Field(HAND_DTYPE, NUM_PLAYERS)  # played this deal
    trick_cards = Field(HAND_DTYPE, NUM_TRICKS)  # played in trick k
    tricks_won = Field(np.int8, NUM_PLAYERS)
    reneges = Field(np.int8, NUM_PLAYERS)  # plays that broke follow-suit


@dataclasses.dataclass
class GhostDealSummary(DealSummary):
    """Every deal that ended in one step (see :class:`core.DealSummary`: game, thrown_in, dealer, tricks, points and scores by seat).

    The shared ``maker`` is the declarer, ``contract`` the bid's index in
    ``BID_LEVELS`` ("3", "4", "5", "moon"); ``alone`` is never set. swapper:
    int8[M] (-1 none); bid: int8[M] 0 none, 3..5, 6 moon; trump: int8[M];
    reneges: int8[M, 3] by seat.
    """

    seats = NUM_PLAYERS  # columns of ``tricks`` (and ``reneges``)
    score_width = NUM_PLAYERS  # columns of ``points`` and ``scores``

    swapper: np.ndarray = column(np.int8)
    bid: np.ndarray = column(np.int8)
    trump: np.ndarray = column(np.int8)
    reneges: np.ndarray = column(np.int8, "seats")


assert (Phase.AUCTION, Phase.TRUMP, Phase.PLAY, Phase.OVER) == (
    rules.AUCTION,
    rules.TRUMP,
    rules.PLAY,
    rules.OVER,
)
assert [OBS_OFFSETS[name][0] for name, _, _ in OBS_LAYOUT] == [
    rules.O_HAND,
    rules.O_DEAD,
    rules.O_PLAYED_BY,
    rules.O_IN_TRICK,
    rules.O_CURRENT,
    rules.O_SWAPPER,
    rules.O_MAKER,
    rules.O_DEALER,
    rules.O_LEADER,
    rules.O_BIDS,
    rules.O_PASSES,
    rules.O_CONTRACT,
    rules.O_TRUMP,
    rules.O_PHASE,
    rules.O_TRICKS,
    rules.O_SCORES,
    rules.O_PROGRESS,
] and (OBS_SIZE, HIDDEN_SIZE) == (rules.OBS_SIZE, rules.HIDDEN_SIZE)


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
    kernels = rules
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

    # ---------------------------------------------------------------- scoring
    def deal_points(self, state, games):
        """int32[M, 3]: points each seat scores for the finished deals ``games``."""
        return scoring.ghost_deal_points(
            state.tricks_won[games],
            state.reneges[games],
            state.maker[games],
            state.high_bid[games],
            self.rules.moon_points,
            self.rules.moon_set_penalty,
            self.rules.renege_penalty,
        )

    # ------------------------------------------------------------- observation
    def observe(self, state, seats, games=None):
        """float32[N, 390]: each game observed by seat ``seats[i]`` (int[N], 0..2).

        games: None, or int[M] with seats int[M]: row i is game ``games[i]`` seen by ``seats[i]``.
        """
        return self._observe_rows(state, *self._observed(state, seats, games))

    def hidden_cards(self, state, seats):
        """float32[N, 72] (``HIDDEN_LAYOUT``): the hands of the seats after ``seats[i]``, then the ghost hand."""
        return rules.hidden(self._check_seats(seats, state.num_games), state.records)


def score_bounds(rules):
    """(low, high) of the scores columns under ``rules`` (a GhostRules).

    A game can push a score, per deal and for at most ``max_deals`` deals, from
    -(a set bid + 6 reneges) to a made moon.
    """
    reneges = NUM_TRICKS * rules.renege_penalty if rules.allow_renege else 0
    worst_deal = max(5, rules.moon_set_penalty) + reneges
    best_deal = max(NUM_TRICKS, rules.moon_points)
    return (
        -rules.max_deals * worst_deal / rules.target_score,
        rules.max_deals * best_deal / rules.target_score,
    )


NO_DEAL = {  # the doors' ``last_deal`` while no deal has ended (copied, never handed out itself)
    "deal": 0,
    "thrown_in": False,
    "dealer": -1,
    "maker": -1,
    "swapper": -1,
    "bid": 0,
    "trump": -1,
    "tricks": (0,) * NUM_PLAYERS,
    "reneges": (0,) * NUM_PLAYERS,
    "points": (0,) * NUM_PLAYERS,
    "scores": (0,) * NUM_PLAYERS,
}


def deal_details(deals):
    """Declarer, swapper, bid (0 none, 3..5, 6 moon) and reneges of the one deal of a GhostDealSummary."""
    return {
        "maker": int(deals.maker[0]),
        "swapper": int(deals.swapper[0]),
        "bid": int(deals.bid[0]),
        "reneges": tuple(deals.reneges[0].tolist()),
    }


DOOR_DOCS = {  # what the doors of this variant say beyond what every variant's say
    "auction_game": """A Ghost Hand engine whose decisions are the auction and trump ones only.

``AuctionGame(card_play, episode="deal", reward="points", **rules)``:
card_play makes every card play (see the module docstring); episode as the
engine's ("deal" by default: an all-pass deal ends the episode with 0
points); reward "points" (each seat's deal points), "margin" (a seat's
points minus the mean of the other two seats') or "win" (the engine's, with
episode="game"); rules: :class:`GhostRules`. A variant's subclass sets
``ENGINE`` (the engine class), ``PLAY`` (its card-play phase) and
``margin`` (its zero-sum reward).
It has the engine's interface (``init``, ``start_episodes``,
``next_episodes``, ``legal_bits``, ``legal_mask``, ``observe``, ``step``,
and the unchecked ``_observe_rows`` and ``_step_observe_live`` of the vector API),
so the adapters of the engine run on it unchanged. ``engine`` is the
wrapped ``GhostEuchre``; ``last_plays`` lists the card plays of the latest
step as (games int[M], seats int8[M], cards int64[M]) per play round.""",
    "auction_vector": """N Ghost Hand games seen from the auction: the vector API over :class:`AuctionGame`.

``GhostBiddingVec(num_envs, card_play, seed=None, episode="deal", reward="points", **rules)``.
Same contract as ``GhostEuchreVec``: ``reset(seed, options) -> (obs
float32[N, 390], mask bool[N, 34], player int64[N])``; ``step(actions) ->
(obs, mask, player, rewards float32[N, 3] by absolute seat, done bool[N])``
with automatic resets, chosen deals, ``truncated`` and ``last_result.deals``
(every deal that ended in the step). Every decision returned is an auction
or trump one; the card play in between is made by ``card_play``. Same seed,
same cards as ``GhostEuchreVec``.""",
    "gym": """``GhostEuchreGymEnv(learner=0, opponents=None, render_mode=None, episode="game",
reward="points", illegal_action="raise", illegal_action_penalty=-1.0,
mask_in_observation=False, policy_seed=None, **rules)``: the options of
:mod:`ghost_euchre_env.options`.

learner: seat 0..2 or agent name. With ``illegal_action="terminate"`` an
illegal learner action ends the episode with the penalty as its reward.""",
    "auction_gym": """``GhostEuchreBiddingGymEnv(learner=0, opponents="heuristic", card_play="heuristic",
render_mode=None, episode="deal", reward="points", illegal_action="raise",
illegal_action_penalty=-1.0, mask_in_observation=False, policy_seed=None, **rules)``; see
the module docstring.""",
    "gym_vector": """``GhostEuchre-v0``'s vector entry point: N games of :class:`ghost_euchre_env.gym_env.GhostEuchreGymEnv`.

given: the options of :mod:`ghost_euchre_env.options` (the single env's, and
``autoreset_mode``); policy_seed seeds the policies built from specs.""",
    "auction_gym_vector": """``GhostEuchreBidding-v0``'s vector entry point: N games of the auction view
(:class:`ghost_euchre_env.gym_bidding.GhostEuchreBiddingGymEnv`); seats not named in an
``opponents`` dict play the heuristic, as there.""",
}


def solver_position(engine, state, games):
    """The solver's rows of Ghost Hand positions (:class:`~ghost_euchre_env.core.Solving`): every
    seat plays; the declarer's bid and the rules' points score the deal, reneges included."""
    rules = engine.rules
    return {
        "reneges": state.reneges[games],
        "active": (1 << NUM_PLAYERS) - 1,
        "maker": state.maker[games],
        "bid": state.high_bid[games],
        "moon_points": rules.moon_points,
        "moon_set": rules.moon_set_penalty,
        "renege_penalty": rules.renege_penalty,
        "allow_renege": rules.allow_renege,
    }


DECLARATION = VariantDeclaration(
    name="ghost",
    title="Ghost Hand Euchre",
    engine=GhostEuchre,
    actions=GhostActions(action_name),
    layout=OBS_LAYOUT,
    kinds=OBS_KINDS,
    phases=PHASE_NAMES,  # the observation shows the engine's own phases
    state_phase_of_view=(AUCTION, TRUMP, PLAY, OVER),
    state_phases=PHASE_NAMES,
    play_phase=PLAY,
    contract_labels=("bid 3", "bid 4", "bid 5", "bid moon"),
    render="ghost_euchre_env.render:render_ghost",
    action_table=ACTION_TABLE,
    doors=Doors(
        pettingzoo="ghost_euchre_env.ghost_euchre_v0",
        auction_pettingzoo="ghost_euchre_env.ghost_bidding_v0",
        gym_id="GhostEuchre-v0",
        auction_gym_id="GhostEuchreBidding-v0",
        vector="ghost_euchre_env.vector:GhostEuchreVec",
        auction_game="ghost_euchre_env.bidding:AuctionGame",
        auction_vector="ghost_euchre_env.bidding:GhostBiddingVec",
        gym="ghost_euchre_env.gym_env:GhostEuchreGymEnv",
        auction_gym="ghost_euchre_env.gym_bidding:GhostEuchreBiddingGymEnv",
        gym_vector="ghost_euchre_env.gym_vector:ghost_vector_env",
        auction_gym_vector="ghost_euchre_env.gym_vector:bidding_vector_env",
        docs=DOOR_DOCS,
    ),
    score_bounds=score_bounds,
    no_deal=NO_DEAL,
    deal_details=deal_details,
    seat_can_sit_out=False,  # every seat bids in every deal
    solving=Solving(
        team_scoring=False,
        position=solver_position,
        concept="relative",  # what pimc plays for; the analysis's values
        meaning="the mover's points minus the mean of the other two seats' (solver concept "
        "'relative')",
    ),
    networks=(
        ShippedNetwork(
            "ghost",
            "ghost_ppo.pt",
            "the Ghost Hand agent: 280M decisions of self-play, 59.1% against two heuristics",
        ),
        ShippedNetwork(
            "ghost-bidder",
            "ghost_bidder.pt",
            "a Ghost Hand bidder: the network bids and names trump, the heuristic plays the cards",
        ),
        ShippedNetwork(
            "ghost-180m",
            "ghost_ppo_180m.pt",
            "the Ghost Hand agent after 180M decisions (shipped before; configs/bidding.yaml starts from it)",
        ),
    ),
)  # this variant's descriptor (ghost_euchre_env.variants builds it)
