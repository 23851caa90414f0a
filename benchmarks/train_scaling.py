"""Decisions per second of train.py on 1 rank against 2 ranks (torchrun, gloo), same config, same run.

Each round runs ``python train.py`` and then ``torchrun --standalone
--nproc_per_node=2 train.py`` with the same options (the default config, one
torch thread per rank, no evaluations or checkpoints) and reads the rate train.py
prints at the end: all ranks' decisions (every seat of every game) per second of
rollouts and updates, start-up left out. The table gives each round's rates and
their ratio, then the medians; the machine's load average is printed before and
after, since other jobs on the machine take cores from the 2-rank run first.

Usage: ``python benchmarks/train_scaling.py [--rounds 3] [--total_steps 1_000_000] [--ranks 2]``
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RATE = re.compile(r"rollouts and updates: ([\d,]+) decisions/s")


def decisions_per_second(launcher, options, runs_dir):
    """The decisions/s that train.py reports when started by ``launcher`` (a list of program words)."""
    command = [*launcher, os.path.join(ROOT, "train.py"), "--runs_dir", runs_dir, *options]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    found = RATE.search(result.stdout)
    if result.returncode or not found:
        sys.exit(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
    return float(found.group(1).replace(",", ""))


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--total_steps", default="1_000_000", help="decisions per run")
    parser.add_argument("--ranks", type=int, default=2, help="ranks of the data-parallel run")
    args = parser.parse_args()
    options = [
        "--total_steps", args.total_steps, "--torch_threads", "1", "--eval_every", "0",
        "--final_eval_games", "0", "--checkpoint_every", "0", "--progress", "false",
        "--device", "cpu",
    ]  # fmt: skip
    single = [sys.executable]
    parallel = [sys.executable, "-m", "torch.distributed.run", "--standalone",
                f"--nproc_per_node={args.ranks}"]  # fmt: skip
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'round':>5} {'1 rank dec/s':>14} {f'{args.ranks} ranks dec/s':>15} {'ratio':>7}")
    rows = []
    with tempfile.TemporaryDirectory() as runs_dir:
        for number in range(1, args.rounds + 1):
            one = decisions_per_second(single, options, runs_dir)
            many = decisions_per_second(parallel, options, runs_dir)
            rows.append((one, many, many / one))
            print(f"{number:>5} {one:>14,.0f} {many:>15,.0f} {many / one:>6.2f}x", flush=True)
    one, many, ratio = (statistics.median(column) for column in zip(*rows, strict=True))
    print(f"{'median':>5} {one:>14,.0f} {many:>15,.0f} {ratio:>6.2f}x")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
