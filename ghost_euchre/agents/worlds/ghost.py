"""Ghost Hand's worlds: what a seat knows (:class:`SeatKnowledge`), sampled deals, states and replays.

See :mod:`ghost_euchre.agents.worlds` for the places and the seats (relative: 0 is the observer).
"""

import dataclasses

import numpy as np

from ghost_euchre_env import ghost
from ghost_euchre_env.cards import ALL_CARDS, HAND_DTYPE

from .places import (
    NO_ACTION,
    allowed_places,
    index_or_none,
    led_suit,
    replay_tricks,
    sample_places,
    times,
)

VARIANT = "ghost"  # the descriptor's name of the variant these worlds are of
OUT_OF_PLAY = 3  # place index of the face-down hand (after seats 0..2)


@dataclasses.dataclass
class SeatKnowledge:
    """What the observing seat knows in N Ghost Hand positions; seats relative (0 = observer).

    hand: uint32[N] own cards; dead_hand: uint32[N] own old hand if the observer
    swapped, else 0; played: uint32[N, 3] cards each seat has played this deal;
    trick_cards: uint32[N, 6] cards of trick k; trick_leaders: int8[N, 6] seat
    that led trick k (-1 not led yet); trick: int8[N, 3] card each seat put in
    the current trick (-1 none); trick_number: int8[N] tricks completed;
    leader, led_suit: int8[N] of the current trick (-1 none); swapper, maker,
    dealer: int8[N] (-1 none); bids: int8[N, 4] seat that bid 3, 4, 5, moon;
    passed_at: int8[N, 3] high-bid index (0 none, 1..3) when the seat passed, -1;
    high_bid: int8[N] 0, 3..6; trump: int8[N] (-1 not named); phase: int8[N];
    tricks_won: int8[N, 3]; scores: int32[N, 3]; deal_number: int32[N];
    voids: bool[N, 3, 4] seat has shown it holds no card of effective suit s;
    unseen: uint32[N] cards the observer cannot place; sizes: int64[N, 4] number
    of unseen cards in each place (seat 0 always 0, seats 1 and 2, out of play).
    """

    hand: np.ndarray
    dead_hand: np.ndarray
    played: np.ndarray
    trick_cards: np.ndarray
    trick_leaders: np.ndarray
    trick: np.ndarray
    trick_number: np.ndarray
    leader: np.ndarray
    led_suit: np.ndarray
    swapper: np.ndarray
    maker: np.ndarray
    dealer: np.ndarray
    bids: np.ndarray
    passed_at: np.ndarray
    high_bid: np.ndarray
    trump: np.ndarray
    phase: np.ndarray
    tricks_won: np.ndarray
    scores: np.ndarray
    deal_number: np.ndarray
    voids: np.ndarray
    unseen: np.ndarray
    sizes: np.ndarray

    @classmethod
    def read(cls, view, game):
        """The knowledge in Ghost Hand observations (their view) of ``game``."""
        n = len(view)
        rules = game.rules
        hand, dead_hand = view.mask("hand"), view.mask("dead_hand")
        played, trick_cards = view.mask("played_by"), view.mask("played_in_trick")
        trick = index_or_none(view.current_trick)
        phase, trump, maker = view.phase, view.trump, view.maker
        playing = phase == ghost.PLAY
        leader = np.where(playing, view.leader, -1).astype(np.int8)
        voids, trick_number, trick_leaders = replay_tricks(
            played,
            trick_cards,
            np.where(playing, maker, -1),
            trump,
            np.full(n, ghost.NUM_PLAYERS),
            infer_voids=not rules.allow_renege,
        )
        swapper = view.swapper
        unseen = ALL_CARDS & ~(hand | dead_hand | np.bitwise_or.reduce(played, axis=1))
        sizes = np.zeros((n, 4), np.int64)
        sizes[:, 1:3] = ghost.HAND_SIZE - np.bitwise_count(played[:, 1:3])
        sizes[:, OUT_OF_PLAY] = np.where(swapper == 0, 0, ghost.HAND_SIZE)
        return cls(
            hand=hand,
            dead_hand=dead_hand,
            played=played,
            trick_cards=trick_cards,
            trick_leaders=trick_leaders,
            trick=trick,
            trick_number=trick_number,
            leader=leader,
            led_suit=led_suit(trick, leader, trump),
            swapper=swapper,
            maker=maker,
            dealer=view.dealer,
            bids=index_or_none(view.bids),
            passed_at=index_or_none(view.passes),
            high_bid=view.contract,
            trump=trump,
            phase=phase,
            tricks_won=view.tricks_won,
            scores=times(view.scores, rules.target_score, np.int32),
            deal_number=times(view.deal_progress, rules.max_deals, np.int32),
            voids=voids,
            unseen=unseen,
            sizes=sizes,
        )

    def sample(self, num_worlds, rng):
        """(hands uint32[N, W, 3], out_of_play uint32[N, W]): see :func:`ghost_euchre.agents.worlds.sample_worlds`."""
        hands = np.empty((len(self.hand), num_worlds, ghost.NUM_PLAYERS), HAND_DTYPE)
        hands[:, :, 0] = self.hand[:, None]
        places = sample_places(
            allowed_places(self, [1, 2]), self.sizes[:, 1:], num_worlds, rng
        )  # seats 1, 2, out of play
        hands[:, :, 1:] = places[..., :2]
        return hands, places[..., 2] | self.dead_hand[:, None]

    @staticmethod
    def truth(state, seat):
        """The real world of M games' ``state`` as seen from ``seat`` (int[M]), in :meth:`sample`'s
        shapes with W = 1: (hands uint32[M, 1, 3] relative to the seat, face-down hand uint32[M, 1])."""
        relative = (seat[:, None] + np.arange(ghost.NUM_PLAYERS)) % ghost.NUM_PLAYERS
        hands = np.take_along_axis(state.hands, relative, axis=1)
        return hands[:, None], state.ghost[:, None]

    def state_fields(self, rows, hands, out_of_play):
        """GhostState fields of Ghost Hand worlds. Past reneges are not known to the
        observer and are set to 0 (they only shift points already lost)."""
        acted = (self.passed_at[rows] >= 0) | (self.bids[rows, :, None] == np.arange(3)).any(axis=1)
        return {
            "deal_number": self.deal_number[rows],
            "dealer": self.dealer[rows],
            "scores": self.scores[rows],
            "hands": hands,
            "ghost": out_of_play,
            "phase": self.phase[rows],
            "player": np.zeros(len(rows)),
            "swapper": self.swapper[rows],
            "acted": acted,
            "passed_at": self.passed_at[rows],
            "bids": self.bids[rows],
            "high_bid": self.high_bid[rows],
            "maker": self.maker[rows],
            "trump": self.trump[rows],
            "leader": self.leader[rows],
            "led_suit": self.led_suit[rows],
            "trick": self.trick[rows],
            "trick_number": self.trick_number[rows],
            "played_cards": self.played[rows],
            "trick_cards": self.trick_cards[rows],
            "tricks_won": self.tricks_won[rows],
            "reneges": np.zeros((len(rows), ghost.NUM_PLAYERS)),
        }

    def deal_start_fields(self, rows, worlds, hands):
        """The GhostState fields of worlds as dealt (see :func:`ghost_euchre.agents.worlds.deal_start_states`) besides
        the shared ones: the swap undone (in ``hands``, the cards each seat has held: in place)."""
        ghost_hand = worlds[1].copy()
        swapper = self.swapper[rows]
        swapped = np.flatnonzero(swapper >= 0)
        seat = swapper[swapped]
        ghost_hand[swapped] = hands[swapped, seat]
        hands[swapped, seat] = worlds[1][swapped]
        return {"ghost": ghost_hand, "phase": ghost.AUCTION}

    def auction_actions(self, game):
        """[int16[N, k]]: each seat's swap and bid or pass in speaking order, then trump (-1: none).

        ValueError for the open auction (inference reads the single round's order).
        """
        if game.rules.auction != "single_round":
            raise ValueError(
                "inference reads the auction in single-round order; "
                f"got auction={game.rules.auction!r}"
            )
        n = len(self.hand)
        parts = []
        for turn in range(ghost.NUM_PLAYERS):
            seat = ((self.dealer + 1 + turn) % ghost.NUM_PLAYERS).astype(np.intp)
            passed = self.passed_at[np.arange(n), seat] >= 0
            bid_at = self.bids == seat[:, None]  # [N, 4]: the seat bid level 3, 4, 5, moon
            bid = np.select(
                [passed, bid_at.any(axis=1)], [ghost.PASS, ghost.BID_3 + bid_at.argmax(axis=1)], -1
            )
            parts += [np.where(self.swapper == seat, ghost.SWAP, NO_ACTION), bid]
        parts.append(np.where(self.trump >= 0, ghost.TRUMP_CLUBS + self.trump, NO_ACTION))
        return [np.stack(parts, axis=1).astype(np.int16)]

    @staticmethod
    def world_actions(actions, worlds):
        """The deal's actions int16[M, T] in each of M worlds: every action is public in Ghost Hand."""
        del worlds
        return actions
