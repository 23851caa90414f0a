"""The entry points of both console commands.

``ghost-euchre-train`` is :func:`train_main` (the trainer's command line,
:mod:`ghost_euchre.trainer.cli`). ``ghost-euchre-evaluate`` is :func:`evaluate_main`:
its ``exploit`` subcommand trains (:mod:`ghost_euchre.trainer.exploit`), ``benchmark`` is
:mod:`ghost_euchre.arena.benchmark_cli` given the trainer's robustness section
(:func:`ghost_euchre.trainer.exploit.robustness`), every other command is
:func:`ghost_euchre.arena.cli.main` (arena never imports the trainer).

This module imports nothing heavy: the engine, Numba and torch load inside the entry points, where
a Ctrl-C while they load is one line and status 130, as it is once a command runs.
"""

import sys

from ghost_euchre.plumbing.commands import program_name


def train_main(argv=None):
    """``ghost-euchre-train`` (``train.py``): the exit status of :func:`ghost_euchre.trainer.cli.main`."""
    return _needing_extras("train", _train, argv)


def _train(argv):
    from ghost_euchre.trainer.cli import main

    return main(argv)


def evaluate_main(argv=None):
    """``ghost-euchre-evaluate`` (``evaluate.py``): ``exploit ...`` trains a best response, every
    other command is a match, a league, a replay or the web page."""
    return _needing_extras("evaluate", _evaluate, argv)


def _needing_extras(command, main, argv):
    """``main(argv)``; an optional dependency that is not installed is one line naming its extra
    (:mod:`ghost_euchre.agents.extras`), exit status 2; Ctrl-C before the command's own handler
    (while its modules load) one line, status 130."""
    try:
        return main(argv)
    except KeyboardInterrupt:
        print(f"\n{program_name(command)}: stopped by Ctrl-C", file=sys.stderr)
        return 130
    except ImportError as error:
        from ghost_euchre.agents.extras import missing_extra

        missing = missing_extra(error)
        if missing is None:
            raise
        print(f"{program_name(command)}: error: {missing}", file=sys.stderr)
        return 2


def _evaluate(argv):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["exploit"]:
        from ghost_euchre.trainer.exploit import main

        return main(argv[1:])
    if argv[:1] == ["benchmark"]:  # arena's command, given the trainer for its robustness section
        from ghost_euchre.arena.benchmark_cli import main

        if "--robustness" not in argv:  # the trainer (and torch) only when the section trains
            return main(argv[1:], None)
        from ghost_euchre.agents.extras import require
        from ghost_euchre.trainer.exploit import robustness

        require("torch")  # it trains: said before anything is played
        return main(argv[1:], robustness)
    from ghost_euchre.arena.cli import main

    return main(argv)
