"""Who sits where in a duplicate match, the teams it rates and the scores by seat.

ghost: every permutation of the players over the seats (3! = 6); classic: the 4
rotations of the table, partnerships kept as listed (players 1 and 3 against 2
and 4). See :mod:`ghost_euchre.arena.match`.
"""

import numpy as np

from ghost_euchre_env import variants
from ghost_euchre_env.core import check_int


def seatings(variant, games):
    """Duplicate seating plan for at least ``games`` games.

    ghost: all 3! = 6 permutations of the players over the seats; classic: the 4
    rotations of the table, so partnerships stay as listed (players 1 and 3
    against 2 and 4) and every player sits in every seat once. Returns
    (sequence int64[G], seat_player int64[G, S]): G = games rounded up to a
    multiple of the number of seatings; game g plays deal sequence g // K with
    seating g % K (seat_player[g, s] = index of the player at seat s).
    """
    orders = variants.make(variant).seatings()
    check_int("games", games, 1)
    num_sequences = -(-games // len(orders))
    total = num_sequences * len(orders)
    return np.arange(total) // len(orders), orders[np.arange(total) % len(orders)]


def match_teams(variant, seat_player, final_scores):
    """The teams of each game for rating: (members int[G, T, M], scores int[G, T]).

    ghost: three teams of one (the seats); classic: seats 0+2 against 1+3.
    seat_player: int[G, S] player index by seat; final_scores: int[G, S] by seat.
    """
    variant = variants.make(variant)
    return seat_player[:, variant.team_members], final_scores[:, : variant.num_teams]


def seat_scores(variant, scores):
    """Final scores by seat, int[G, S] (classic: the seat's team score)."""
    return scores[:, variants.make(variant).teams]
