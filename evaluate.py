"""Matches, leagues, replays, the web page and ``exploit`` from a clone.

The command line is :mod:`ghost_euchre.arena.cli`; its ``exploit`` subcommand, which trains,
is :mod:`ghost_euchre.trainer.exploit` (above arena in the layers), so this script
starts at :func:`ghost_euchre.commands.evaluate_main`, which hands every other
command to :func:`ghost_euchre.arena.cli.main`.
"""

import sys

from ghost_euchre.commands import evaluate_main

if __name__ == "__main__":
    sys.exit(evaluate_main())
