"""Ctrl-C during training: the run stops at the end of the update being played, writes a checkpoint
and says how to resume it (exit status 130); a second Ctrl-C stops at once, without a checkpoint.

The first SIGINT only sets a flag (:class:`CtrlC`), so the checkpoint holds a whole update: the
resumed run makes exactly the decisions the uninterrupted run would have made.
"""

import signal
import threading
import time

INTERRUPTED_STATUS = 130
"""the exit status of a command stopped by Ctrl-C (128 + SIGINT), as a shell reports it"""


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C: ``str()`` is the one line (where it stopped, what was saved, how to
    resume). A KeyboardInterrupt, so that a caller of the trainer that stops on Ctrl-C (exploit)
    still does."""

    def __init__(self, where, checkpoint, saved):
        super().__init__(where, checkpoint, saved)
        self.where, self.checkpoint, self.saved = where, checkpoint, saved

    def __str__(self):
        if self.checkpoint is None:
            return f"stopped by Ctrl-C {self.where}; no checkpoint yet, nothing to resume"
        wrote = "saved" if self.saved else "the last checkpoint is"
        return (
            f"stopped by Ctrl-C {self.where}; {wrote} {self.checkpoint}: "
            f"resume with --resume {self.checkpoint}"
        )


class CtrlC:
    """A context in which the first SIGINT asks the run to stop (:attr:`requested`, and ``say`` is
    called with a line) and a second, a second or more later, raises KeyboardInterrupt as usual. Outside the main thread, or
    when SIGINT is not Python's default handler (a caller's own), nothing is changed."""

    AGAIN_AFTER_S = 1.0
    """a SIGINT this soon after the first is the same Ctrl-C (torchrun forwards the terminal's to
    its workers, which had it already), not a second one"""

    def __init__(self, say):
        self.say, self.requested, self._previous, self._first = say, False, None, 0.0

    def _handle(self, signum, frame):
        if self.requested:
            if time.monotonic() - self._first >= self.AGAIN_AFTER_S:
                raise KeyboardInterrupt
            return
        self.requested, self._first = True, time.monotonic()
        self.say(
            "Ctrl-C: stopping after this update, once its checkpoint is written "
            "(Ctrl-C again stops at once, without one)"
        )

    def __enter__(self):
        if (
            threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        ):
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
        return False

    def stop(self, ranks):
        """Whether to stop now: a rank asked (with several ranks, every rank learns it in the same
        update, so they stop together)."""
        if ranks.world_size == 1:
            return self.requested
        return bool(ranks.all_sum([float(self.requested)])[0] > 0)
