"""The rules compiled once with Numba (``@njit(cache=True)``): loops over the games of a batch.

``cards`` holds the card primitives every variant shares (effective suit,
follow-suit, the winner of a trick) as scalar kernels plus their batch loops;
``scoring`` the points of a played-out deal in each variant; ``skeleton`` what
every variant's engine shares (dealing, episodes, the end of a game and
truncation, bit sets, action checks, observation blocks); ``ghost`` and
``classic`` each one variant's rules (the deal, the auction or bidding, the play,
the end of a deal and of a game, the legal masks and the observations).
Run with ``NUMBA_DISABLE_JIT=1`` they are plain Python, for debugging.

The compiled code is cached (``cache=True``) beside the source, in ``__pycache__``;
where that folder cannot be written (a read-only site-packages) Numba uses its
user-wide cache directory, and ``NUMBA_CACHE_DIR`` names another (see ``docs/speed.md``).
"""

import sys

from numba.core import event


class _SayCompiling(event.Listener):
    """Says once on a terminal's stderr that the project's kernels are being compiled.

    Numba compiles a kernel on its first call unless its compile cache holds it (after an
    install, an upgrade or a change of the source): then the first step takes seconds, not
    microseconds, and a user at a terminal is told why. Loading from the cache is no compile
    event, so a warm start prints nothing; nor does output that is not a terminal (tests, logs).
    """

    said = False

    def on_start(self, event):
        if self.said:
            return
        data = event.data if isinstance(event.data, dict) else {}
        function = getattr(data.get("dispatcher"), "py_func", None)
        if getattr(function, "__module__", "").startswith("ghost_euchre") and sys.stderr.isatty():
            self.said = True
            print(
                "ghost_euchre: compiling with Numba: each part's first use after an install or a "
                "change takes seconds (docs/speed.md, Start-up); cached for later runs",
                file=sys.stderr,
                flush=True,
            )

    def on_end(self, event):
        pass


event.register("numba:compile", _SayCompiling())
