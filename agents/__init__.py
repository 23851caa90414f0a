"""Policies (bots) for Ghost Hand and classic Euchre, named by spec strings.

``make_policy(spec, game, seed=None)`` builds one; see :mod:`agents.specs` for the
spec grammar and :mod:`agents.base` for the interface every policy implements.
"""

from .base import Policy
from .specs import make_policy

__all__ = ["Policy", "make_policy"]
