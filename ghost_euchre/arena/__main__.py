"""``python -m ghost_euchre.arena``: the evaluate command, the same as ``ghost-euchre-evaluate`` and ``python evaluate.py``.

A script, like ``evaluate.py``: it starts at :func:`ghost_euchre.commands.evaluate_main`, which
runs ``exploit`` (it trains) and hands every other command to :func:`ghost_euchre.arena.cli.main`.
"""

import sys

from ghost_euchre.commands import evaluate_main

if __name__ == "__main__":  # not when a tool imports the module (the docs' API reference)
    sys.exit(evaluate_main())
