"""Policies (bots) for Ghost Hand and classic Euchre, named by spec strings.

``make_policy(spec, game, seed=None)`` builds one; see :mod:`ghost_euchre.agents.specs` for the
spec grammar and :mod:`ghost_euchre.agents.base` for the interface every policy implements.
"""

if __name__ != "ghost_euchre.agents":  # one import name per module: one Policy class
    raise ImportError(
        f"the bots import as ghost_euchre.agents, not as {__name__!r} "
        "(the repository's agents/ folder is the package ghost_euchre.agents)"
    )

from .base import Policy
from .specs import make_policy

__all__ = ["Policy", "make_policy"]
