"""``python -m arena``: the evaluate command line (:mod:`arena.cli`)."""

import sys

from arena.cli import main

if __name__ == "__main__":  # not when a tool imports the module (the docs' API reference)
    sys.exit(main())
