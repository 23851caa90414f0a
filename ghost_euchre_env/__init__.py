"""Ghost Hand Euchre (3 players) and classic Euchre (4 players) on one batched NumPy engine."""

from .ghost import GhostEuchre, GhostRules
from .vector import GhostEuchreVec

__all__ = ["GhostEuchre", "GhostRules", "GhostEuchreVec"]
__version__ = "0.1.0"
