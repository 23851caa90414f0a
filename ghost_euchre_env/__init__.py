"""Ghost Hand Euchre (3 players) and classic Euchre (4 players) on one batched NumPy engine."""

import gymnasium

from . import variants  # the descriptors; registering them gives each engine its game.variant
from .bidding import ClassicBiddingVec, GhostBiddingVec
from .classic import ClassicEuchre, ClassicRules
from .ghost import GhostEuchre, GhostRules
from .vector import ClassicEuchreVec, GhostEuchreVec

for _gym_id, _entry_point, _vector_entry_point in variants.gym_registrations():
    gymnasium.register(id=_gym_id, entry_point=_entry_point, vector_entry_point=_vector_entry_point)

# The shipped variants' Gymnasium ids, by the names they were published under
GYM_ENV_ID = variants.GHOST.doors.gym_id  # "GhostEuchre-v0"
BIDDING_GYM_ENV_ID = variants.GHOST.doors.auction_gym_id  # "GhostEuchreBidding-v0"
CLASSIC_GYM_ENV_ID = variants.CLASSIC.doors.gym_id  # "ClassicEuchre-v0"
CLASSIC_BIDDING_GYM_ENV_ID = variants.CLASSIC.doors.auction_gym_id  # "ClassicEuchreBidding-v0"

__all__ = [
    "BIDDING_GYM_ENV_ID",
    "CLASSIC_BIDDING_GYM_ENV_ID",
    "CLASSIC_GYM_ENV_ID",
    "GYM_ENV_ID",
    "ClassicBiddingVec",
    "ClassicEuchre",
    "ClassicEuchreVec",
    "ClassicRules",
    "GhostBiddingVec",
    "GhostEuchre",
    "GhostEuchreVec",
    "GhostRules",
    "variants",
]
__version__ = "0.2.0"
