"""The points of a played-out deal, as Numba kernels: one copy of each variant's score table.

Ghost Hand (``docs/RULES.md``, "Score of the deal" and "Reneging"): every seat
but the declarer scores a point a trick; a declarer who took at least the bid
scores its tricks (a moon: ``moon_points``), else loses the bid (a moon:
``moon_set_penalty``); each renege costs its seat ``renege_penalty``.

Classic (``docs/RULES.md``, "Score of the deal"): makers with 3 or 4 tricks
score 1, with all 5 score 2 (4 alone); makers with 2 or fewer are euchred and
the defenders score 2 (4 against a lone defender).
"""

import numpy as np
from numba import njit

GHOST_MOON = 6  # a moon bid ranks as six tricks
CLASSIC_TRICKS = 5


@njit(cache=True)
def ghost_seat_points(
    seat, tricks, reneges, maker, bid, moon_points, moon_set_penalty, renege_penalty
):
    """int: Ghost Hand deal points of ``seat`` (0..2).

    tricks, reneges: int[3] by seat for the whole deal; maker: seat; bid:
    3, 4, 5 or 6 (moon); the last three: the rules options of the same names.
    """
    taken = np.int32(tricks[seat])
    if seat == maker:
        if taken >= bid:
            points = np.int32(moon_points) if bid == GHOST_MOON else taken
        else:
            points = -np.int32(moon_set_penalty) if bid == GHOST_MOON else -np.int32(bid)
    else:
        points = taken
    return points - np.int32(reneges[seat]) * np.int32(renege_penalty)


@njit(cache=True)
def ghost_deal_points(tricks, reneges, maker, bid, moon_points, moon_set_penalty, renege_penalty):
    """int32[M, 3]: :func:`ghost_seat_points` of every seat of M deals.

    tricks, reneges: int8[M, 3]; maker, bid: int[M]; the options are ints.
    """
    num_deals = tricks.shape[0]
    points = np.empty((num_deals, 3), np.int32)
    for deal in range(num_deals):
        for seat in range(3):
            points[deal, seat] = ghost_seat_points(
                seat,
                tricks[deal],
                reneges[deal],
                maker[deal],
                bid[deal],
                moon_points,
                moon_set_penalty,
                renege_penalty,
            )
    return points


@njit(cache=True)
def classic_maker_points(maker_tricks, maker_alone, lone_defender):
    """int: classic deal points, positive to the makers' team, negative to the defenders'.

    maker_tricks: tricks of the makers' team (0..5); maker_alone, lone_defender: bools.
    """
    if maker_tricks < 3:  # euchred
        return -4 if lone_defender else -2
    if maker_tricks < CLASSIC_TRICKS:
        return 1
    return 4 if maker_alone else 2


@njit(cache=True)
def classic_team_points(tricks, maker, maker_alone, lone_defender, points):
    """points (int32[2], by team: seats 0 & 2, seats 1 & 3) = one classic deal's points.

    tricks: int[4] by seat; maker: its seat; maker_alone, lone_defender: bools.
    """
    team = maker & 1
    signed = classic_maker_points(tricks[team] + tricks[team + 2], maker_alone, lone_defender)
    points[team] = max(signed, 0)
    points[1 - team] = max(-signed, 0)


@njit(cache=True)
def classic_deal_points(tricks, maker, maker_alone, lone_defender):
    """int32[M, 2]: :func:`classic_team_points` of M classic deals.

    tricks: int8[M, 4] by seat; maker: int[M] seat; maker_alone, lone_defender: bool[M].
    """
    num_deals = tricks.shape[0]
    points = np.zeros((num_deals, 2), np.int32)
    for deal in range(num_deals):
        classic_team_points(
            tricks[deal], maker[deal], maker_alone[deal], lone_defender[deal], points[deal]
        )
    return points
