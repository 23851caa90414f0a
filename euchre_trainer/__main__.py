"""``python -m euchre_trainer``: the trainer's command line (the same as ``python train.py``)."""

import sys

from euchre_trainer.cli import main

sys.exit(main())
