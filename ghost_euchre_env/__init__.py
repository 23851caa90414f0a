"""Ghost Hand Euchre (3 players) and classic Euchre (4 players) on one batched NumPy engine."""

import gymnasium

from .bidding import ClassicBiddingVec, GhostBiddingVec
from .classic import ClassicEuchre, ClassicRules
from .ghost import GhostEuchre, GhostRules
from .vector import ClassicEuchreVec, GhostEuchreVec

GYM_ENV_ID = "GhostEuchre-v0"
gymnasium.register(id=GYM_ENV_ID, entry_point="ghost_euchre_env.gym_env:GhostEuchreGymEnv")
BIDDING_GYM_ENV_ID = "GhostEuchreBidding-v0"
gymnasium.register(
    id=BIDDING_GYM_ENV_ID, entry_point="ghost_euchre_env.gym_bidding:GhostEuchreBiddingGymEnv"
)

__all__ = [
    "BIDDING_GYM_ENV_ID",
    "GYM_ENV_ID",
    "ClassicBiddingVec",
    "ClassicEuchre",
    "ClassicEuchreVec",
    "ClassicRules",
    "GhostBiddingVec",
    "GhostEuchre",
    "GhostEuchreVec",
    "GhostRules",
]
__version__ = "0.1.0"
