"""PPO self-play for Ghost Hand and classic Euchre: the command line over :mod:`ghost_euchre.trainer`.

Usage::

    python train.py                                   # configs/default.yaml
    python train.py --config classic                  # configs/classic.yaml: classic Euchre
    python train.py --config configs/long.yaml --seed 3
    python train.py --total_steps 2_000_000 --num_envs 512 --rules "{auction: open}"
    python train.py --resume runs/NAME/checkpoints/update_000100.pt
    python train.py --model ghost_euchre.agents.cardset:CardSetNet  # another network (any nn.Module class)
    python train.py --opponents "{heuristic: 1, 'pimc:samples=8': 1}" --opponent_share 1
    torchrun --standalone --nproc_per_node=2 train.py   # 2 ranks, data-parallel
    python train.py --help                            # every config field, grouped by concern

The same command is ``python -m ghost_euchre.trainer``. How the trainer works, module by
module: :mod:`ghost_euchre.trainer` (its docstring) and the documentation's page "How the trainer works"
(docs/training.md).
"""

import sys

from ghost_euchre.commands import train_main

if __name__ == "__main__":
    sys.exit(train_main())
