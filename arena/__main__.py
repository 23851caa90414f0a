"""``python -m arena``: the evaluate command line (:mod:`arena.cli`)."""

import sys

from arena.cli import main

sys.exit(main())
