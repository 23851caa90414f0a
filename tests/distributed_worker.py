"""One rank of a torchrun job for test_train_distributed.py: ghost_euchre.trainer.cli.main, watched or broken on purpose.

python tests/distributed_worker.py MODE OUT [train.py options]
  record: save what every ppo_update of this rank received and left (OUT/rank{R}_update{U}.pt)
  die:    exit abruptly (no goodbye to the other ranks) at the second rollout
  hang:   stop answering (sleep) at the second rollout
"""

import copy
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from ghost_euchre.trainer import cli, loop


def record(out):
    """Wrap the loop's ppo_update so that each call's inputs and resulting parameters are saved."""
    update = loop.ppo_update

    def recorded(run, buf, advantages, returns, lessons, shares):
        count = buf.count
        before = {
            "model": copy.deepcopy(run.model.state_dict()),
            "optimizer": copy.deepcopy(run.optimizer.state_dict()),
            "minibatch_rng": copy.deepcopy(run.minibatch_rng.bit_generator.state),
            "obs": buf.obs[:count].copy(),
            "mask": buf.mask[:count].copy(),
            "action": buf.action[:count].copy(),
            "logprob": buf.logprob[:count].copy(),
            "value": buf.value[:count].copy(),
            "advantages": advantages.copy(),
            "returns": returns.copy(),
            "lessons": [tuple(part.copy() for part in lesson) for lesson in lessons],
            "shares": shares.table,
        }
        result = update(run, buf, advantages, returns, lessons, shares)
        before["after"] = copy.deepcopy(run.model.state_dict())
        torch.save(before, os.path.join(out, f"rank{run.ranks.rank}_update{run.update + 1}.pt"))
        return result

    loop.ppo_update = recorded


def fail_at_second_rollout(how):
    collect = loop.collect_rollout

    def failing(run, buf):
        if run.update == 1 and run.ranks.rank == 1:
            if how == "die":
                os._exit(1)
            time.sleep(3600)  # the test ends this process once rank 0 has given up
        return collect(run, buf)

    loop.collect_rollout = failing


if __name__ == "__main__":
    mode, out, *options = sys.argv[1:]
    if mode == "record":
        record(out)
    else:
        fail_at_second_rollout(mode)
    cli.main(options)
