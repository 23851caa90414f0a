"""Classic Euchre (4 players, 2 partnerships): the pure, batched rules engine.

Every rule of the Classic Euchre section of ``docs/RULES.md`` lives in the
kernels of :mod:`ghost_euchre_env.kernels.classic` (compiled once with Numba);
this module is the batch API over them, and the adapters (vector API,
``classic_euchre_v0``) hold none. Seats 0 & 2 (team 0) play against seats 1 & 3
(team 1). A batch of N games is a :class:`ClassicState`, one record a game;
:meth:`ClassicEuchre.step` advances every game by one decision in one
kernel call and mutates the state in place. Card tables, follow-suit and trick
resolution are the shared ones of :mod:`ghost_euchre_env.kernels.cards`.

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
from .cards import HAND_DTYPE, NO_CARD, NUM_CARDS, NUM_SUITS
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
from .kernels import classic as rules
from .kernels import scoring
from .kernels.classic import (
    GO_ALONE,
    HAND_SIZE,
    NUM_ACTIONS,
    NUM_PLAYERS,
    NUM_TEAMS,
    NUM_TRICKS,
    PASS,
    SUIT_CLUBS,
    WITH_PARTNER,
)


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
# The observation's phases ("phase" field), as the observation tells them: bidding's two rounds
# apart; the engine's phase of each (VIEW_PHASE_STATE). Over: no phase bit set.
VIEW_PHASES = ("round 1", "round 2", "discard", "alone", "play", "over")
VIEW_PHASE_STATE = (BIDDING, BIDDING, DISCARD, ALONE, PLAY, OVER)
VIEW_OVER = VIEW_PHASES.index("over")

SEATS = np.arange(NUM_PLAYERS, dtype=np.int8)
SEAT_TEAM = SEATS % NUM_TEAMS  # team of each seat: 0, 1, 0, 1


_ACTION_NAMES = {PASS: "pass", GO_ALONE: "alone", WITH_PARTNER: "partner"}


def action_name(action):
    """Readable name of an action id: 'J♥', 'pass', 'suit ♥', 'alone', 'partner'.

    ValueError for anything but an int 0..30.
    """
    return name_action(action, NUM_ACTIONS, _ACTION_NAMES, SUIT_CLUBS, "suit")


class ClassicActions(Actions):
    """Classic's actions: PASS, GO_ALONE, WITH_PARTNER, ``suit(suit)`` (order up / name), ``card(card)``."""

    num_actions = NUM_ACTIONS
    PASS = PASS
    GO_ALONE = GO_ALONE
    WITH_PARTNER = WITH_PARTNER
    SUITS = tuple(range(SUIT_CLUBS, SUIT_CLUBS + NUM_SUITS))  # order up / name C, D, H, S

    suit_method = "suit"

    def suit(self, suit):
        """Action id that orders up (round 1) or names (round 2) ``suit`` trump."""
        return SUIT_CLUBS + parse_suit(suit)


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
_SEAT = ("seat", {})
OBS_KINDS = {  # how each field of OBS_LAYOUT decodes: (kind, options) of views.Field
    "hand": ("cards", {}),
    "upcard": ("card", {}),
    "discard": ("card", {}),
    "played_by": ("cards", {"shape": (NUM_PLAYERS,)}),
    "played_in_trick": ("cards", {"shape": (NUM_TRICKS,)}),
    "current_trick": ("cards", {"shape": (NUM_PLAYERS,)}),
    "dealer": _SEAT,
    "maker": _SEAT,
    "leader": _SEAT,
    "calls": ("flags", {"shape": (2, NUM_PLAYERS, 1 + NUM_SUITS)}),
    "alone": ("flags", {"shape": (NUM_PLAYERS, 2)}),
    "sitting_out": ("flags", {"shape": (NUM_PLAYERS,)}),
    "trump": ("choice", {"values": tuple(range(NUM_SUITS))}),
    "phase": ("choice", {"values": tuple(range(VIEW_OVER)), "none": VIEW_OVER}),
    "tricks_won": ("count", {"shape": (NUM_PLAYERS,), "scale": NUM_TRICKS}),
    "scores": ("fraction", {"shape": (NUM_TEAMS,)}),
    "deal_progress": ("fraction", {}),
}
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


class ClassicState(EpisodeState):
    """N classic Euchre games: the fields of :class:`core.EpisodeState` and these. Seats are absolute (0..3); -1 means none.

    Hands and card sets are uint32 masks (bit c set = card c). The deal's fields are
    written afresh when a deal starts (the kernel ``start_deals``).
    """

    deal_width = NUM_PLAYERS + 1  # a chosen deal: seat 0..3 hand masks, upcard id
    score_width = NUM_TEAMS  # game score by team

    hands = Field(HAND_DTYPE, NUM_PLAYERS)  # cards each seat holds now
    held = Field(
        HAND_DTYPE, NUM_PLAYERS
    )  # dealt + picked-up upcard - discard; played: held & ~hands
    upcard = Field(np.int8, fill=NO_CARD)  # the card turned face up
    # the deal's fields:
    discard = Field(np.int8)  # the dealer's discard (-1 none)
    passes = Field(np.int8)  # passes this deal (0..8); calls 0..passes-1 were passes
    maker = Field(np.int8)  # ordered up or named trump (-1 none)
    trump = Field(np.int8)  # suit 0..3, -1 before it is made
    alone = Field(np.int8, NUM_PLAYERS)  # alone choice by seat: -1 none, 0 with partner, 1 alone
    lone_defender = Field(np.int8)  # -1 none
    active = Field(np.int8)  # bit s set = seat s plays
    leader = Field(np.int8)  # led the current trick (-1 none)
    led_suit = Field(np.int8)  # effective suit led, -1 none
    trick = Field(np.int8, NUM_PLAYERS)  # card each seat put in the current trick, -1 none
    trick_number = Field(np.int8)  # tricks completed this deal
    trick_cards = Field(
        HAND_DTYPE, NUM_TRICKS
    )  # played in trick k this deal (the current included)
    tricks_won = Field(np.int8, NUM_PLAYERS)


@dataclasses.dataclass
class ClassicDealSummary(DealSummary):
    """Every deal that ended in one step (see :class:`core.DealSummary`: game, thrown_in, dealer, tricks by seat, points and scores by team).

    thrown_in: eight passes; the shared ``contract`` indexes ``contract_kinds``
    ("ordered up", "named", "alone"), ``made``: the maker's team took three
    tricks or more, ``alone``: the maker played alone; lone_defender: int8[M]
    (-1 none); trump, upcard: int8[M]; ordered_up: bool[M] trump was made in
    round 1 (the upcard's suit), alone or not.
    """

    seats = NUM_PLAYERS  # columns of ``tricks``
    score_width = NUM_TEAMS  # columns of ``points`` and ``scores``

    trump: np.ndarray = column(np.int8)
    upcard: np.ndarray = column(np.int8)
    lone_defender: np.ndarray = column(np.int8)
    ordered_up: np.ndarray = column(bool)


assert tuple(Phase) == (rules.BIDDING, rules.DISCARD, rules.ALONE, rules.PLAY, rules.OVER)
assert [OBS_OFFSETS[name][0] for name, _, _ in OBS_LAYOUT] == [
    rules.O_HAND,
    rules.O_UPCARD,
    rules.O_DISCARD,
    rules.O_PLAYED_BY,
    rules.O_IN_TRICK,
    rules.O_CURRENT,
    rules.O_DEALER,
    rules.O_MAKER,
    rules.O_LEADER,
    rules.O_CALLS,
    rules.O_ALONE,
    rules.O_SITTING_OUT,
    rules.O_TRUMP,
    rules.O_PHASE,
    rules.O_TRICKS,
    rules.O_SCORES,
    rules.O_PROGRESS,
] and (OBS_SIZE, HIDDEN_SIZE) == (rules.OBS_SIZE, rules.HIDDEN_SIZE)


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
    kernels = rules
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

    # ---------------------------------------------------------------- decisions
    def deal_points(self, state, games):
        """int32[M, 2]: points each team scores for the finished deals ``games``."""
        maker = state.maker[games]
        maker_alone = state.alone[games][np.arange(len(games)), maker & 3] == 1
        return scoring.classic_deal_points(
            state.tricks_won[games],
            maker,
            maker_alone,
            state.lone_defender[games] >= 0,
        )

    # ------------------------------------------------------------- observation
    def observe(self, state, seats, games=None):
        """float32[N, 464]: each game observed by seat ``seats[i]`` (int[N], 0..3).

        games: None, or int[M] with seats int[M]: row i is game ``games[i]`` seen by ``seats[i]``.
        """
        return self._observe_rows(state, *self._observed(state, seats, games))

    def hidden_cards(self, state, seats):
        """float32[N, 72] (``HIDDEN_LAYOUT``): the hands of the three seats after ``seats[i]``."""
        return rules.hidden(self._check_seats(seats, state.num_games), state.records)


def score_bounds(rules):
    """(low, high) of the scores columns under ``rules`` (a ClassicRules).

    A team below target_score scores at most 4 in a deal, and the game (or the deal) then ends.
    """
    return 0.0, (rules.target_score + 3) / rules.target_score


NO_DEAL = {  # the doors' ``last_deal`` while no deal has ended (copied, never handed out itself)
    "deal": 0,
    "thrown_in": False,
    "dealer": -1,
    "maker": -1,
    "trump": -1,
    "upcard": -1,
    "maker_alone": False,
    "lone_defender": -1,
    "tricks": (0,) * NUM_PLAYERS,
    "points": (0,) * NUM_TEAMS,
    "scores": (0,) * NUM_TEAMS,
}


def deal_details(deals):
    """Maker, upcard and alone choices of the one deal of a ClassicDealSummary."""
    return {
        "maker": int(deals.maker[0]),
        "upcard": int(deals.upcard[0]),
        "maker_alone": bool(deals.alone[0]),
        "lone_defender": int(deals.lone_defender[0]),
    }


def cards_per_trick(last_deal):
    """Four cards a trick, one fewer for each seat a lone hand sits out (``last_deal``: as
    ``NO_DEAL``)."""
    return NUM_PLAYERS - bool(last_deal["maker_alone"]) - (last_deal["lone_defender"] >= 0)


DOOR_DOCS = {  # what the doors of this variant say beyond what every variant's say
    "auction_game": """A classic Euchre engine whose decisions are ordering up, naming trump, alone or partner and
the dealer's discard. ``ClassicAuctionGame(card_play, episode="deal", reward="points", **rules)``:
as :class:`AuctionGame`; reward "points" gives each seat its team's points, "margin" its team's
points minus the other team's; rules: :class:`~ghost_euchre_env.classic.ClassicRules`.""",
    "auction_vector": """N classic Euchre games seen from the auction: the vector API over :class:`ClassicAuctionGame`.

``ClassicBiddingVec(num_envs, card_play, seed=None, episode="deal", reward="points", **rules)``;
the contract of ``ClassicEuchreVec`` (obs float32[N, 464], mask bool[N, 31], rewards
float32[N, 4] by absolute seat, a seat's being its team's). Every decision returned is made
before the deal's first card; the card play in between is made by ``card_play``. Same seed,
same cards as ``ClassicEuchreVec``.""",
    "gym": """``ClassicEuchreGymEnv(learner=0, opponents=None, render_mode=None, episode="game",
reward="points", illegal_action="raise", illegal_action_penalty=-1.0, **rules)``;
see the module docstring and ``GhostEuchreGymEnv``.""",
    "auction_gym": """``ClassicEuchreBiddingGymEnv(learner=0, opponents="heuristic", card_play="heuristic", ...)``:
classic Euchre's auction (the learner's team against the other; its partner played as
``opponents`` says); arguments as :class:`GhostEuchreBiddingGymEnv`, rules:
:class:`~ghost_euchre_env.classic.ClassicRules`.""",
    "gym_vector": """``ClassicEuchre-v0``'s vector entry point: N games of
:class:`ghost_euchre_env.gym_classic.ClassicEuchreGymEnv` (the learner's partner is one of
the ``opponents``: a dict names it by seat, e.g. ``{2: "heuristic"}`` for seat 0's). An
episode that ends before the learner's first decision is skipped, as the single env does.""",
    "auction_gym_vector": """``ClassicEuchreBidding-v0``'s vector entry point: N games of classic's auction view
(:class:`ghost_euchre_env.gym_bidding.ClassicEuchreBiddingGymEnv`).""",
}


def solver_position(engine, state, games):
    """The solver's rows of classic positions (:class:`~ghost_euchre_env.core.Solving`): the seats
    that play (a lone maker's partner sits out) and what scores the maker's team."""
    del engine  # no rules option changes a classic deal's points
    maker = state.maker[games]
    return {
        "active": state.active[games],
        "maker": maker,
        "maker_alone": state.alone[games, maker] == 1,
        "lone_defender": state.lone_defender[games] >= 0,
    }


DECLARATION = VariantDeclaration(
    name="classic",
    title="classic Euchre",
    engine=ClassicEuchre,
    actions=ClassicActions(action_name),
    layout=OBS_LAYOUT,
    kinds=OBS_KINDS,
    phases=VIEW_PHASES,
    state_phase_of_view=VIEW_PHASE_STATE,
    state_phases=PHASE_NAMES,
    play_phase=PLAY,
    contract_labels=ClassicEuchre.contract_kinds,
    render="ghost_euchre_env.render:render_classic",
    action_table=ACTION_TABLE,
    doors=Doors(
        pettingzoo="ghost_euchre_env.classic_euchre_v0",
        auction_pettingzoo="ghost_euchre_env.classic_bidding_v0",
        gym_id="ClassicEuchre-v0",
        auction_gym_id="ClassicEuchreBidding-v0",
        vector="ghost_euchre_env.vector:ClassicEuchreVec",
        auction_game="ghost_euchre_env.bidding:ClassicAuctionGame",
        auction_vector="ghost_euchre_env.bidding:ClassicBiddingVec",
        gym="ghost_euchre_env.gym_classic:ClassicEuchreGymEnv",
        auction_gym="ghost_euchre_env.gym_bidding:ClassicEuchreBiddingGymEnv",
        gym_vector="ghost_euchre_env.gym_vector:classic_vector_env",
        auction_gym_vector="ghost_euchre_env.gym_vector:classic_bidding_vector_env",
        docs=DOOR_DOCS,
    ),
    score_bounds=score_bounds,
    no_deal=NO_DEAL,
    deal_details=deal_details,
    seat_can_sit_out=True,  # a seat whose partner goes alone plays no card
    cards_per_trick=cards_per_trick,
    solving=Solving(
        team_scoring=True,
        position=solver_position,
        concept="team points",
        meaning="the mover's team's points minus the other team's",
    ),
    networks=(
        ShippedNetwork(
            "classic",
            "classic_ppo.pt",
            "the classic Euchre agent (all four seats): 118M + 59M decisions, 70.3% for its team against the heuristics', 53.6% against pimc's",
        ),
        ShippedNetwork(
            "classic-bidder",
            "classic_bidder.pt",
            "a classic Euchre bidder: the network orders up, names trump, goes alone and discards, the heuristic plays the cards",
        ),
    ),
)  # this variant's descriptor (ghost_euchre_env.variants builds it)
