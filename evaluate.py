"""Matches, leagues, replays and the web page from a clone: the command line is :mod:`arena.cli`."""

import sys

from arena.cli import main

if __name__ == "__main__":
    sys.exit(main())
