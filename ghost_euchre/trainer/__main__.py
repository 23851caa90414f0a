"""``python -m ghost_euchre.trainer``: the trainer's command line (the same as ``python train.py``)."""

import sys

from ghost_euchre.commands import train_main

sys.exit(train_main())
