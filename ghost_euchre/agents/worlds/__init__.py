"""Hidden worlds as seen by one seat: reading observations, sampling deals, engine states.

Both variants, one module each behind one interface (:mod:`ghost_euchre.agents.worlds.ghost`,
:mod:`ghost_euchre.agents.worlds.classic`; what they share is :mod:`ghost_euchre.agents.worlds.places`). A
seat's observation is read back into its variant's knowledge record
(:class:`SeatKnowledge` for Ghost Hand, :class:`ClassicKnowledge` for classic
Euchre), chosen once by the game's descriptor: the public history of the deal, the seat's own cards and the suits the
other seats have shown void in. :func:`sample_worlds` deals the cards the seat
cannot see over the places they can be, uniformly over every deal consistent
with that knowledge (:func:`sample_places`, exact), and :func:`world_states`
turns sampled worlds into engine states that the engine can play on.

Seats here are *relative to the observer*: seat 0 is the observing seat, seat 1
the next seat clockwise, and so on. A world's engine state uses the relative
seats as its absolute seats, so the observer always sits at seat 0. The games
are symmetric under rotation of the seats, so nothing is lost.

The only hard constraints a seat can know are the cards it has seen and shown
voids: a seat that did not follow the led (effective) suit holds none of it
(with Ghost Hand's ``allow_renege`` a failure to follow proves nothing, so no
voids are inferred). Bids, passes and calls are not used here (soft
information): every consistent world is equally likely, and
:mod:`ghost_euchre.agents.inference` weights the worlds by them. No card the seat cannot
see is ever fixed.

Ghost Hand: unseen cards go to the hands of seats 1 and 2 (six minus the cards
each has played) and, unless the observer itself swapped, the six face-down
cards out of play (the ghost hand while nobody has swapped; the dead hand of
whoever swapped).

Classic: unseen cards go to the hands of seats 1 to 3 (five minus the cards
each has played; a partner sitting out a lone hand keeps five, shows no void
and plays none) and out of play: the three face-down cards of the kitty, plus
the dealer's discard when the upcard was ordered up and the observer is not
the dealer. The upcard is seen by all: face up during round 1, turned down
after it, and once ordered up it is in the dealer's hand until the dealer
plays it (a place known to every seat, so it is fixed there, not sampled). The
dealer knows its own discard; every other seat samples it uniformly from the
out-of-play cards.
"""

import numpy as np

from . import classic, ghost
from .classic import CLASSIC_OUT, ClassicKnowledge
from .ghost import OUT_OF_PLAY, SeatKnowledge
from .places import FROM_WORLD, NO_ACTION, card_of, engine_states, sample_places

__all__ = [
    "CLASSIC_OUT",
    "FROM_WORLD",
    "NO_ACTION",
    "OUT_OF_PLAY",
    "ClassicKnowledge",
    "SeatKnowledge",
    "card_of",
    "deal_start_states",
    "read_knowledge",
    "sample_places",
    "sample_worlds",
    "true_worlds",
    "world_states",
]

KNOWLEDGE = {ghost.VARIANT: SeatKnowledge, classic.VARIANT: ClassicKnowledge}
"""Each variant's knowledge record, by the descriptor's name: the one place a variant is chosen."""


def read_knowledge(obs, game):
    """Read observations float32[N, D] of the seats to act into the variant's knowledge.

    game: the ``GhostEuchre`` or ``ClassicEuchre`` whose rules produced the
    observations (its rules options are used). Returns a :class:`SeatKnowledge`
    or a :class:`ClassicKnowledge`.
    """
    obs = np.asarray(obs, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1] != game.obs_size:
        raise ValueError(f"observations must be float32[N, {game.obs_size}], got shape {obs.shape}")
    variant = game.variant
    return KNOWLEDGE[variant.name].read(variant.view(obs), game)


def sample_worlds(knowledge, num_worlds, rng):
    """Deal the unseen cards, uniformly over the worlds consistent with ``knowledge``.

    rng: numpy Generator or :class:`ghost_euchre.agents.streams.RowRandom` of N rows (the only randomness used). Ghost Hand
    (:class:`SeatKnowledge`) returns (hands uint32[N, W, 3], out_of_play
    uint32[N, W]): every seat's current hand (seat 0's is its own) and the
    face-down hand (the observer's own dead hand if it swapped). Classic
    (:class:`ClassicKnowledge`) returns (hands uint32[N, W, 4], out_of_play
    uint32[N, W], discard int8[N, W]): the hands (the dealer's holds the
    picked-up upcard), the kitty and the dealer's discard, and the discard
    (-1 when there is none yet). Unseen cards may go to a seat unless it has
    shown void in their effective suit, and always out of play.
    """
    return knowledge.sample(num_worlds, rng)


def true_worlds(game, state, seat):
    """The real world of M games' engine ``state`` seen from ``seat`` (int[M]), shaped as
    :func:`sample_worlds` returns one world per position (W = 1): what a perfect-information
    reference searches (:mod:`ghost_euchre.agents.oracle`), never a legal player."""
    return KNOWLEDGE[game.variant.name].truth(state, np.asarray(seat, np.int64))


def world_states(game, knowledge, *worlds, rows=None):
    """Engine states (observer at seat 0) for sampled worlds.

    game: the engine that will play them (``GhostEuchre`` or ``ClassicEuchre``);
    worlds: M worlds as :func:`sample_worlds` returns them, one row each (Ghost
    Hand: hands uint32[M, 3], out_of_play uint32[M]; classic: hands uint32[M, 4],
    out_of_play uint32[M], discard int8[M]); rows: int[M] position of each world
    in ``knowledge`` (default 0..M-1). Fields that only matter between deals
    (dealing keys, chosen deals) are those of a fresh game: a world is played to
    the end of its deal only.
    """
    rows = np.arange(len(worlds[0])) if rows is None else np.asarray(rows)
    return engine_states(game, knowledge.state_fields(rows, *worlds), len(rows))


def deal_start_states(game, knowledge, *worlds, rows=None):
    """Engine states of sampled worlds as their deal was dealt, before anybody acted.

    Arguments as :func:`world_states`. Each seat holds the cards it was dealt:
    its current hand and the cards it has played, with a Ghost Hand swap
    undone (the swapper's dead hand back in its hand, its cards back in the
    ghost hand) and, in classic, the dealer's pick-up undone (the upcard back
    on the table, the discard back in the hand). Replaying the deal's actions
    from these states (:mod:`ghost_euchre.agents.inference`) reaches :func:`world_states`.
    """
    rows = np.arange(len(worlds[0])) if rows is None else np.asarray(rows)
    hands = worlds[0] | knowledge.played[rows]  # the cards each seat has held this deal
    dealer = knowledge.dealer[rows]
    fields = {
        "deal_number": knowledge.deal_number[rows],
        "dealer": dealer,
        "scores": knowledge.scores[rows],
        "hands": hands,
        **knowledge.deal_start_fields(rows, worlds, hands),
        "player": (dealer + 1) % game.num_players,
    }
    return engine_states(game, fields, len(rows))
