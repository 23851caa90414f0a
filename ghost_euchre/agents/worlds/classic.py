"""Classic Euchre's worlds: what a seat knows (:class:`ClassicKnowledge`), sampled deals, states and replays.

See :mod:`ghost_euchre.agents.worlds` for the places and the seats (relative: 0 is the observer).
"""

import dataclasses

import numpy as np

from ghost_euchre_env import classic, variants
from ghost_euchre_env.cards import ALL_CARDS, CARD_BIT, HAND_DTYPE, NUM_CARDS, mask_to_bool

from .places import (
    CARD_BIT_OR_NONE,
    FROM_WORLD,
    NO_ACTION,
    allowed_places,
    index_or_none,
    led_suit,
    replay_tricks,
    sample_places,
    times,
)

VARIANT = "classic"  # the descriptor's name of the variant these worlds are of
CLASSIC_OUT = 4  # place index of the out-of-play cards (after seats 0..3)


@dataclasses.dataclass
class ClassicKnowledge:
    """What the observing seat knows in N classic positions; seats relative (0 = observer).

    hand: uint32[N] own cards; upcard: int8[N]; ordered: bool[N] the upcard was
    ordered up (the dealer picked it up); own_discard: int8[N] the observer's
    discard if it is the dealer and has discarded, else -1; discard_hidden:
    bool[N] the dealer discarded a card the observer did not see; played:
    uint32[N, 4] cards each seat has played this deal; trick_cards: uint32[N, 5]
    cards of trick k; trick_leaders: int8[N, 5] seat that led trick k (-1 not
    led yet); trick: int8[N, 4] card each seat put in the current trick (-1 none); trick_number: int8[N] tricks completed; leader, led_suit: int8[N]
    of the current trick (-1 none); dealer, maker, lone_defender: int8[N] (-1
    none); passes: int8[N] passes this deal; alone: int8[N, 4] the seat's
    alone choice (-1 none, 0 with partner, 1 alone); active: int8[N] bit s set =
    seat s plays this deal; trump: int8[N] (-1 not made); phase: int8[N] the
    engine's phase; tricks_won: int8[N, 4]; scores: int32[N, 2] own team, other
    team; deal_number: int32[N]; voids: bool[N, 4, 4] seat has shown it holds no
    card of effective suit s; fixed: uint32[N, 4] cards the observer knows are
    in another seat's hand (the picked-up upcard at the dealer); unseen:
    uint32[N] cards the observer cannot place; sizes: int64[N, 5] number of
    unseen cards in each place (seat 0 always 0, seats 1..3, out of play).
    """

    hand: np.ndarray
    upcard: np.ndarray
    ordered: np.ndarray
    own_discard: np.ndarray
    discard_hidden: np.ndarray
    played: np.ndarray
    trick_cards: np.ndarray
    trick_leaders: np.ndarray
    trick: np.ndarray
    trick_number: np.ndarray
    leader: np.ndarray
    led_suit: np.ndarray
    dealer: np.ndarray
    maker: np.ndarray
    lone_defender: np.ndarray
    passes: np.ndarray
    alone: np.ndarray
    active: np.ndarray
    trump: np.ndarray
    phase: np.ndarray
    tricks_won: np.ndarray
    scores: np.ndarray
    deal_number: np.ndarray
    voids: np.ndarray
    fixed: np.ndarray
    unseen: np.ndarray
    sizes: np.ndarray

    @classmethod
    def read(cls, view, game):
        """The knowledge in classic observations (their view) of ``game``."""
        n = len(view)
        rules = game.rules
        seats = classic.NUM_PLAYERS
        rows = np.arange(n)
        hand, upcard, own_discard = view.mask("hand"), view.upcard, view.discard
        played, trick_cards = view.mask("played_by"), view.mask("played_in_trick")
        trick = index_or_none(view.current_trick)
        dealer, maker, trump = view.dealer, view.maker, view.trump
        phase = variants.CLASSIC.state_phase_of_view[view.phase]
        passes = view.calls[..., 0].sum(axis=(1, 2)).astype(np.int8)
        choice = view.alone  # [N, seat, (alone, with partner)]
        alone = np.select([choice[..., 0], choice[..., 1]], [1, 0], -1).astype(np.int8)
        plays = ~view.sitting_out  # bool[N, 4]
        active = (plays << np.arange(seats)).sum(axis=1).astype(np.int8)
        defender = (np.arange(seats) - maker[:, None]) % 2 == 1
        lone_defender = index_or_none((alone == 1) & defender & (maker[:, None] >= 0))

        playing = phase == classic.PLAY
        leader = np.where(playing, view.leader, -1)
        leader = leader.astype(np.int8)
        first_leader = (
            dealer.astype(np.int64) + 1
        ) % seats  # the first seat left of the dealer that plays
        for _ in range(seats - 1):
            first_leader = np.where(
                plays[rows, first_leader], first_leader, (first_leader + 1) % seats
            )
        voids, trick_number, trick_leaders = replay_tricks(
            played,
            trick_cards,
            np.where(playing, first_leader, -1),
            trump,
            plays.sum(axis=1),
            infer_voids=True,
        )

        ordered = (maker >= 0) & (passes < seats)
        upcard_bit = CARD_BIT_OR_NONE[upcard]
        all_played = np.bitwise_or.reduce(played, axis=1)
        fixed = np.zeros((n, seats), HAND_DTYPE)
        at_dealer = ordered & (dealer > 0) & (all_played & upcard_bit == 0)
        fixed[at_dealer, dealer[at_dealer]] = upcard_bit[at_dealer]
        unseen = ALL_CARDS & ~(hand | all_played | upcard_bit | CARD_BIT_OR_NONE[own_discard])
        sizes = np.zeros((n, CLASSIC_OUT + 1), np.int64)
        sizes[:, 1:seats] = (
            classic.HAND_SIZE - np.bitwise_count(played[:, 1:]) - np.bitwise_count(fixed[:, 1:])
        )
        sizes[:, CLASSIC_OUT] = np.bitwise_count(unseen) - sizes[:, 1:seats].sum(axis=1)
        return cls(
            hand=hand,
            upcard=upcard,
            ordered=ordered,
            own_discard=own_discard,
            discard_hidden=ordered & (dealer != 0) & (phase != classic.DISCARD),
            played=played,
            trick_cards=trick_cards,
            trick_leaders=trick_leaders,
            trick=trick,
            trick_number=trick_number,
            leader=leader,
            led_suit=led_suit(trick, leader, trump),
            dealer=dealer,
            maker=maker,
            lone_defender=lone_defender,
            passes=passes,
            alone=alone,
            active=active,
            trump=trump,
            phase=phase,
            tricks_won=view.tricks_won,
            scores=times(view.scores, rules.target_score, np.int32),
            deal_number=times(view.deal_progress, rules.max_deals, np.int32),
            voids=voids,
            fixed=fixed,
            unseen=unseen,
            sizes=sizes,
        )

    def sample(self, num_worlds, rng):
        """(hands uint32[N, W, 4], out_of_play uint32[N, W], discard int8[N, W]): see :func:`ghost_euchre.agents.worlds.sample_worlds`."""
        kn = self
        n = len(kn.hand)
        places = sample_places(
            allowed_places(kn, [1, 2, 3]), kn.sizes[:, 1:], num_worlds, rng
        )  # seats 1..3, out of play
        hands = np.empty((n, num_worlds, classic.NUM_PLAYERS), HAND_DTYPE)
        hands[:, :, 0] = kn.hand[:, None]
        hands[:, :, 1:] = places[..., :3] | kn.fixed[:, None, 1:]
        out = places[..., 3]
        discard = np.repeat(kn.own_discard[:, None], num_worlds, axis=1)
        if kn.discard_hidden.any():  # any out-of-play card is equally likely to be the discard
            keys = np.where(mask_to_bool(out), rng.random((n, num_worlds, NUM_CARDS)), -1.0)
            discard = np.where(kn.discard_hidden[:, None], keys.argmax(axis=2), discard)
        out_of_play = out | CARD_BIT_OR_NONE[kn.own_discard][:, None]
        return hands, out_of_play, discard.astype(np.int8)

    @staticmethod
    def truth(state, seat):
        """The real world of M games' ``state`` as seen from ``seat`` (int[M]), in :meth:`sample`'s
        shapes with W = 1: hands uint32[M, 1, 4] relative to the seat, the cards out of play (the
        kitty and the discard) uint32[M, 1] and the discard int8[M, 1]."""
        relative = (seat[:, None] + np.arange(classic.NUM_PLAYERS)) % classic.NUM_PLAYERS
        hands = np.take_along_axis(state.hands, relative, axis=1)
        dealt = np.bitwise_or.reduce(state.held, axis=1) | CARD_BIT_OR_NONE[state.upcard]
        out = (ALL_CARDS & ~dealt) | CARD_BIT_OR_NONE[state.discard]
        return hands[:, None], out[:, None], state.discard.astype(np.int8)[:, None]

    def state_fields(self, rows, hands, out_of_play, discard):
        """ClassicState fields of classic worlds (the kitty, ``out_of_play``, is not engine state)."""
        del out_of_play
        return {
            "deal_number": self.deal_number[rows],
            "dealer": self.dealer[rows],
            "scores": self.scores[rows],
            "hands": hands,
            "held": hands | self.played[rows],
            "upcard": self.upcard[rows],
            "discard": discard,
            "phase": self.phase[rows],
            "player": np.zeros(len(rows)),
            "passes": self.passes[rows],
            "maker": self.maker[rows],
            "trump": self.trump[rows],
            "alone": self.alone[rows],
            "lone_defender": self.lone_defender[rows],
            "active": self.active[rows],
            "leader": self.leader[rows],
            "led_suit": self.led_suit[rows],
            "trick": self.trick[rows],
            "trick_number": self.trick_number[rows],
            "trick_cards": self.trick_cards[rows],
            "tricks_won": self.tricks_won[rows],
        }

    def deal_start_fields(self, rows, worlds, hands):
        """The ClassicState fields of worlds as dealt (see :func:`ghost_euchre.agents.worlds.deal_start_states`) besides
        the shared ones: the dealer's pick-up undone (in ``hands``, the cards each seat has held: in place)."""
        discard = worlds[2]
        ordered = np.flatnonzero(self.ordered[rows])
        picked_up = self.dealer[rows][ordered]
        hands[ordered, picked_up] = (
            hands[ordered, picked_up] & ~CARD_BIT[self.upcard[rows[ordered]]]
        ) | CARD_BIT_OR_NONE[discard[ordered]]
        return {"held": hands, "upcard": self.upcard[rows], "phase": classic.BIDDING}

    def auction_actions(self, game):
        """[int16[N, k]]: the passes, the call, the discard and the alone choices (-1: none)."""
        del game
        n = len(self.hand)
        seats = classic.NUM_PLAYERS
        passes = np.where(np.arange(2 * seats) < self.passes[:, None], classic.PASS, NO_ACTION)
        call = np.where(self.maker >= 0, classic.SUIT_CLUBS + self.trump, NO_ACTION)
        discarded = self.ordered & ((self.own_discard >= 0) | self.discard_hidden)
        discard = np.where(discarded, FROM_WORLD, NO_ACTION)
        maker = np.maximum(self.maker, 0).astype(np.intp)
        # defenders are asked from the dealer's left: the first is the defender after the dealer
        first_defender = (
            np.where((self.dealer + 1 - maker) % 2 == 1, self.dealer + 1, self.dealer + 2) % seats
        )
        rows = np.arange(n)
        choices = [
            self.alone[rows, seat] for seat in (maker, first_defender, (first_defender + 2) % seats)
        ]
        alone = [
            np.select([c == 1, c == 0], [classic.GO_ALONE, classic.WITH_PARTNER], NO_ACTION)
            for c in choices
        ]
        return [passes, np.stack([call, discard, *alone], axis=1)]

    @staticmethod
    def world_actions(actions, worlds):
        """The deal's actions int16[M, T] in each of M worlds: the dealer's hidden discard is each world's own."""
        return np.where(actions == FROM_WORLD, worlds[2][:, None], actions)
