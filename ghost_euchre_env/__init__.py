"""Ghost Hand Euchre (3 players) and classic Euchre (4 players) on one batched NumPy engine."""

import gymnasium

from .classic import ClassicEuchre, ClassicRules
from .ghost import GhostEuchre, GhostRules
from .vector import ClassicEuchreVec, GhostEuchreVec

GYM_ENV_ID = "GhostEuchre-v0"
gymnasium.register(id=GYM_ENV_ID, entry_point="ghost_euchre_env.gym_env:GhostEuchreGymEnv")

__all__ = [
    "GYM_ENV_ID",
    "ClassicEuchre",
    "ClassicEuchreVec",
    "ClassicRules",
    "GhostEuchre",
    "GhostEuchreVec",
    "GhostRules",
]
__version__ = "0.1.0"
