"""``heuristic``: scripted players, computed with array operations over the batch.

One module a variant, as :mod:`ghost_euchre.agents.worlds` is: the Ghost Hand player's rules,
in the order it applies them, are :mod:`ghost_euchre.agents.heuristic.ghost`'s, the classic
player's :mod:`ghost_euchre.agents.heuristic.classic`'s; what they share (card tables, hand
evaluation, trick reading, card costs) is :mod:`ghost_euchre.agents.heuristic.common`. Each
player reads only the observation and the legal mask.

How it runs: each variant's rules are one Numba kernel (``@njit(cache=True)``),
a loop over the games of the batch with one branch per phase, reading the
observation's columns by the variant's layout; ``act`` is one kernel call, for
one game or thousands. Hand values are float32 sums over the cards in card-id
order, compared with the thresholds in float64. ``NUMBA_DISABLE_JIT=1`` runs the
same functions as plain Python. ``playout()`` gives the kernel that plays whole
playouts with these rules inside the engine's loop (``ghost_playout``,
``classic_playout``: ``pimc``'s playouts, one call until a deal ends); ``replay(floor)``
the kernel that weighs a deal's actions by these rules (``ghost_replay``,
``classic_replay`` with ``ghost_weigh``, ``classic_weigh``: ``search``'s inference, one call).
"""

from ghost_euchre_env import variants

from . import classic, ghost
from .classic import ClassicHeuristic, classic_actions, classic_playout, classic_replay
from .common import cards_played, hand_evaluation, hand_value, is_moon_ready, moon_ready
from .ghost import GhostHeuristic, ghost_actions, ghost_playout, ghost_replay

__all__ = [
    "HEURISTICS",
    "ClassicHeuristic",
    "GhostHeuristic",
    "cards_played",
    "classic_actions",
    "classic_playout",
    "classic_replay",
    "ghost_actions",
    "ghost_playout",
    "ghost_replay",
    "hand_evaluation",
    "hand_value",
    "heuristic_policy",
    "is_moon_ready",
    "moon_ready",
]

HEURISTICS = {ghost.VARIANT: GhostHeuristic, classic.VARIANT: ClassicHeuristic}
"""Each variant's heuristic, by the descriptor's name: the one place the heuristic is chosen."""


def heuristic_policy(game, seed=None):
    """The heuristic for ``game``'s variant (spec ``heuristic``); TypeError for another engine,
    ValueError for a variant with no heuristic of its own."""
    name = variants.of(game).name
    if name not in HEURISTICS:
        raise ValueError(f"no heuristic plays the variant {name!r}; heuristics: {list(HEURISTICS)}")
    return HEURISTICS[name](game, seed)
