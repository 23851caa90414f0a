"""What the matches and the trainer both use, below both: nothing here knows a match or a run.

- :mod:`ghost_euchre.plumbing.files`: ``write_atomic`` (the one atomic file write of the
  project) and the checks that a file can be written.
- :mod:`ghost_euchre.plumbing.commands`: the two commands named as the user started them.
- :mod:`ghost_euchre.plumbing.cli`: the one-line argument parser and ``--rule`` items.
- :mod:`ghost_euchre.plumbing.workers`: a job's independent tasks on worker processes or a Ray
  cluster, one progress bar (``Workers``, ``ProgressBar``).
"""
