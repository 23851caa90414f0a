"""Ghost Hand Euchre (3 players) and classic Euchre (4 players) on one batched NumPy engine."""

import gymnasium

from . import variants  # the descriptors; registering them gives each engine its game.variant
from .bidding import ClassicBiddingVec, GhostBiddingVec
from .classic import ClassicEuchre, ClassicRules
from .ghost import GhostEuchre, GhostRules
from .vector import ClassicEuchreVec, GhostEuchreVec

GYM_ENV_ID = "GhostEuchre-v0"
gymnasium.register(
    id=GYM_ENV_ID,
    entry_point="ghost_euchre_env.gym_env:GhostEuchreGymEnv",
    vector_entry_point="ghost_euchre_env.gym_vector:ghost_vector_env",
)
BIDDING_GYM_ENV_ID = "GhostEuchreBidding-v0"
gymnasium.register(
    id=BIDDING_GYM_ENV_ID,
    entry_point="ghost_euchre_env.gym_bidding:GhostEuchreBiddingGymEnv",
    vector_entry_point="ghost_euchre_env.gym_vector:bidding_vector_env",
)
CLASSIC_BIDDING_GYM_ENV_ID = "ClassicEuchreBidding-v0"
gymnasium.register(
    id=CLASSIC_BIDDING_GYM_ENV_ID,
    entry_point="ghost_euchre_env.gym_bidding:ClassicEuchreBiddingGymEnv",
    vector_entry_point="ghost_euchre_env.gym_vector:classic_bidding_vector_env",
)
CLASSIC_GYM_ENV_ID = "ClassicEuchre-v0"
gymnasium.register(
    id=CLASSIC_GYM_ENV_ID,
    entry_point="ghost_euchre_env.gym_classic:ClassicEuchreGymEnv",
    vector_entry_point="ghost_euchre_env.gym_vector:classic_vector_env",
)

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
