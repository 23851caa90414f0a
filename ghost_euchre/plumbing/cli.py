"""What both commands' parsers share: errors in one line, and ``--rule KEY=VALUE`` items read."""

import argparse

from ghost_euchre.agents.specs import parse_value
from ghost_euchre.plumbing.commands import program_name


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: ``PROG: error: MESSAGE (see PROG --help)``.

    command: "evaluate" (the default) or "train", the command whose name heads the line
    (:func:`ghost_euchre.plumbing.commands.program_name`); the ``--help`` named is this
    parser's own (a subcommand's included).
    """

    def __init__(self, *args, command="evaluate", **kwargs):
        super().__init__(*args, **kwargs)
        self.command = command

    def error(self, message):
        self.exit(2, f"{program_name(self.command)}: error: {message} (see {self.prog} --help)\n")


def parse_rules(items):
    """{key: value} of ``--rule KEY=VALUE`` items (values read as YAML); ValueError for a bad one."""
    rules = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--rule {item!r}: expected KEY=VALUE, e.g. auction=open")
        rules[key.strip()] = parse_value(value.strip())
    return rules
