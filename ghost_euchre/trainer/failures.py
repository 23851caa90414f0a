"""A run stopped by a plug-in: a user's network, bot or teacher that raised or returned something
unusable mid-run (:mod:`ghost_euchre.agents.checked`). The run stops with one line naming which, the update and
what came back, and where it resumes from (the last checkpoint, untouched)."""

import contextlib
import os
import re

from ghost_euchre.agents.checked import PlugInError, PolicyRaised


class TrainingStopped(Exception):
    """A run stopped by a plug-in: ``str()`` is the one line (``what`` happened, then how to resume
    from ``checkpoint``, the run's last: None when there is none yet); ``trace``: the user's
    traceback as text ('' when nothing raised: a bad value came back); ``status``: the exit status
    (2 bad output, 1 raised)."""

    def __init__(self, what, checkpoint=None, trace="", status=2):
        super().__init__(what, checkpoint, trace, status)
        self.what, self.checkpoint, self.trace, self.status = what, checkpoint, trace, status

    def __str__(self):
        if self.checkpoint is None:
            return f"{self.what}; no checkpoint yet (checkpoint_every)"
        return f"{self.what}; resume with --resume {self.checkpoint}"


_PERIODIC = re.compile(r"update_\d{6,}\.pt")


def saved_checkpoints(folder):
    """[name]: the periodic checkpoints ``update_NNNNNN.pt`` in ``folder`` (a run's checkpoints/), oldest
    first; [] when there is no folder. A write's temporary file (``.tmp-*``, ghost_euchre.plumbing.files.write_atomic)
    is never one of them."""
    if not os.path.isdir(folder):
        return []
    return sorted(n for n in os.listdir(folder) if _PERIODIC.fullmatch(n))


def remove_temporary(run_dir):
    """Remove what a killed write left in a run folder (``.tmp-*`` files beside its files and
    checkpoints: ghost_euchre.plumbing.files.write_atomic's temporaries); called when a run (re)starts there, the only
    writer of its folder."""
    for folder in (run_dir, os.path.join(run_dir, "checkpoints")):
        if os.path.isdir(folder):
            for name in os.listdir(folder):
                if name.startswith(".tmp-"):
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(os.path.join(folder, name))


def last_checkpoint(run_dir):
    """The newest checkpoint of a run folder (final.pt, else the last checkpoints/update_*.pt), or None."""
    final = os.path.join(run_dir, "final.pt")
    if os.path.isfile(final):
        return final
    folder = os.path.join(run_dir, "checkpoints")
    saved = saved_checkpoints(folder)
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
        what, resume = f"{where}: {error}", last_checkpoint(run_dir)
        if isinstance(error, PolicyRaised):
            raise TrainingStopped(what, resume, error.trace, 1) from None
        raise TrainingStopped(what, resume) from None
