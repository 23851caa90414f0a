"""The project's two commands named as the user started them, for usage lines, messages and headers.

Each command can be started three ways: the console command of an install
(``ghost-euchre-evaluate``, ``ghost-euchre-train``), a package run as a module
(``python -m ghost_euchre.arena``, ``python -m ghost_euchre.trainer``) or a clone's script
(``python evaluate.py``, ``python train.py``). A message that names a command
names it the way this process was started, so that what it says can be typed
as it is. In a process started some other way (a test, a notebook, your own
script) the clone's script is named when this is a clone, else the console
command.
"""

import os
import sys

# command -> (console command, package run with -m, the clone's script)
COMMANDS = {
    "evaluate": ("ghost-euchre-evaluate", "ghost_euchre.arena", "evaluate.py"),
    "train": ("ghost-euchre-train", "ghost_euchre.trainer", "train.py"),
}
CLONE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def start_style():
    """How this process was started: "installed", "module" or "script" (see the module docstring)."""
    started = os.path.normpath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.basename(started) in {console for console, _, _ in COMMANDS.values()}:
        return "installed"
    if any(
        started.endswith(os.path.join(*p.split("."), "__main__.py"))
        for _, p, _ in COMMANDS.values()
    ):
        return "module"
    if os.path.basename(started) in {script for _, _, script in COMMANDS.values()}:
        return "script"
    clone = os.path.isfile(os.path.join(CLONE_ROOT, COMMANDS["evaluate"][2]))
    return "script" if clone else "installed"


def command_name(command="evaluate"):
    """``command`` ("evaluate" or "train") as the user types it: ``ghost-euchre-evaluate``,
    ``python -m ghost_euchre.arena`` or ``python evaluate.py``."""
    console, package, script = COMMANDS[command]
    return {
        "installed": console,
        "module": f"python -m {package}",
        "script": f"python {script}",
    }[start_style()]


def program_name(command="evaluate"):
    """The name at the head of usage and error lines: :func:`command_name`, but a clone's script
    by its file name alone (``evaluate.py: error: ...``, argparse's own convention)."""
    return (
        command_name(command).removeprefix("python ")
        if start_style() == "script"
        else command_name(command)
    )
