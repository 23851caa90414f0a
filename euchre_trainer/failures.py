"""A run stopped by a plug-in: a user's network, bot or teacher that raised or returned something
unusable mid-run (:mod:`agents.checked`). The run stops with one line naming which, the update and
what came back, and where it resumes from (the last checkpoint, untouched)."""

import contextlib
import os

from agents.checked import PlugInError, PolicyRaised


class TrainingStopped(Exception):
    """A run stopped by a plug-in: ``str()`` is the one line; ``trace``: the user's traceback as text
    ('' when nothing raised: a bad value came back); ``status``: the exit status (2 bad output,
    1 raised)."""

    def __init__(self, message, trace="", status=2):
        super().__init__(message, trace, status)
        self.message, self.trace, self.status = message, trace, status

    def __str__(self):
        return self.message


def last_checkpoint(run_dir):
    """The newest checkpoint of a run folder (final.pt, else the last checkpoints/update_*.pt), or None."""
    final = os.path.join(run_dir, "final.pt")
    if os.path.isfile(final):
        return final
    folder = os.path.join(run_dir, "checkpoints")
    saved = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    return os.path.join(folder, saved[-1]) if saved else None


@contextlib.contextmanager
def stopped_by_plug_ins(run, run_dir, log):
    """Turn a plug-in's failure inside the block into :class:`TrainingStopped` naming the update
    (``run.update + 1``, the one being played; after the last: the final evaluation) and the
    checkpoint the run resumes from; ``log`` (its progress bar) is closed first."""
    try:
        yield
    except (PlugInError, PolicyRaised) as error:
        log.close()
        where = f"update {run.update + 1}" if run.update < run.num_updates else "final evaluation"
        resume = last_checkpoint(run_dir)
        hint = (
            f"resume with --resume {resume}" if resume else "no checkpoint yet (checkpoint_every)"
        )
        message = f"{where}: {error}; {hint}"
        if isinstance(error, PolicyRaised):
            raise TrainingStopped(message, error.trace, 1) from None
        raise TrainingStopped(message) from None
