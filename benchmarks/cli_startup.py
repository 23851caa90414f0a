"""Seconds from ``python train.py`` with a bad config to its one-line error, against peers, same run.

Each round times three commands, start to exit (the error line is the last
thing a failing train.py writes): ``python -c pass`` (the interpreter alone),
``python train.py --num_envs many`` (a command-line value of the wrong type;
the command line and config are checked before torch is imported) and
``python -c "import torch"`` (what any check after torch's import would wait
for). The table gives the medians and the load average before and after.

Usage: ``python benchmarks/cli_startup.py [--rounds 5]``
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "train.py --num_envs many": [sys.executable, "train.py", "--num_envs", "many"],
    'python -c "import torch"': [sys.executable, "-c", "import torch"],
}


def seconds(command):
    """Wall seconds of one run of ``command`` (its exit status is checked: train.py's must be 2)."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    expected = 2 if "train.py" in command else 0
    if result.returncode != expected or (expected and result.stderr.count("\n") != 1):
        sys.exit(f"{' '.join(command)}: exit status {result.returncode}: {result.stderr[-500:]}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    times = {name: [] for name in COMMANDS}
    for _ in range(args.rounds):  # interleaved, so that a change of load hits every command alike
        for name, command in COMMANDS.items():
            times[name].append(seconds(command))
    for name, values in times.items():
        rounds = ", ".join(f"{v:.2f}" for v in values)
        print(f"{name:<28} median {statistics.median(values):6.2f} s  (rounds: {rounds})")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
