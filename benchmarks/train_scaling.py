"""Decisions per second of train.py on 1 rank against 2 ranks (torchrun, gloo), same config, same run.

Each round runs ``python train.py`` and then ``torchrun --standalone
--nproc_per_node=2 train.py`` with the same options (the default config with no
thread flag: each rank takes the cores divided by the ranks, ``torch_threads: 0``;
no evaluations or checkpoints) and reads the rate train.py
prints at the end: all ranks' decisions (every seat of every game) per second of
rollouts and updates, start-up left out. The table gives each round's rates and
their ratio, then the medians, and the machine's load average before and after:
other jobs on the machine take cores from the 2-rank run first.

A second figure does not depend on free cores: decisions per CPU second of all
the job's processes, from the CPU time of a full run minus that of a one-update
run with the same launcher (start-up and the first update cancel out). Its
ratio (2 ranks / 1 rank) is the parallel efficiency: the speed-up 2 free cores
would give is about twice it.

A third figure is the ceiling: as many independent one-thread ``python
train.py`` runs as ranks, started at once, their rates summed (no
communication, but the same shared caches and memory): the last column is the
ranks' rate as a share of it. The ranks cannot beat that ceiling, so the
ceiling over one process's rate bounds their speed-up (one process with two
threads already uses both cores in its updates; only its rollouts are
single-threaded).

Usage: ``python benchmarks/train_scaling.py [--rounds 3] [--total_steps 1_500_000] [--ranks 2]
[--torch_threads N]`` (N: the same explicit thread count for both runs; without it, the default)
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

from cpu_time import children_seconds

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RATE = re.compile(r"^(\d+) decisions .* rollouts and updates: ([\d,]+) decisions/s", re.M)
UPDATE = 1024 * 32  # decisions of one update of the default config


def run_train(launcher, options, runs_dir, total_steps):
    """(decisions, decisions/s, CPU seconds) of one train.py run started by ``launcher``."""
    command = [*launcher, os.path.join(ROOT, "train.py"), "--runs_dir", runs_dir, *options]
    command += ["--total_steps", str(total_steps)]
    cpu = children_seconds()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    cpu = children_seconds() - cpu
    found = RATE.search(result.stdout)
    if result.returncode or not found:
        sys.exit(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
    return int(found.group(1)), float(found.group(2).replace(",", "")), cpu


def measure(launcher, options, runs_dir, total_steps):
    """(decisions per second, decisions per CPU second) of ``launcher``'s job."""
    decisions, rate, cpu = run_train(launcher, options, runs_dir, total_steps)
    first, _, start_cpu = run_train(launcher, options, runs_dir, UPDATE)
    return rate, (decisions - first) / (cpu - start_cpu)


def ceiling(options, runs_dir, total_steps, copies):
    """Summed decisions/s of ``copies`` independent one-thread ``python train.py`` runs at once: what
    that many single-threaded processes get from this machine without any communication (shared
    caches and memory bandwidth included), the most a run of that many one-thread ranks can reach."""
    command = [sys.executable, os.path.join(ROOT, "train.py"), "--runs_dir", runs_dir, *options]
    command += ["--total_steps", str(total_steps), "--torch_threads", "1"]
    runs = [
        subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(copies)
    ]
    total = 0.0
    for run in runs:
        stdout, stderr = run.communicate()
        found = RATE.search(stdout)
        if run.returncode or not found:
            sys.exit(f"{' '.join(command)} failed:\n{stderr[-2000:]}")
        total += float(found.group(2).replace(",", ""))
    return total


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--total_steps", type=int, default=1_500_000, help="decisions per run")
    parser.add_argument("--ranks", type=int, default=2, help="ranks of the data-parallel run")
    parser.add_argument("--torch_threads", type=int, help="threads per rank (default: train.py's)")
    args = parser.parse_args()
    options = [
        "--eval_every", "0", "--final_eval_games", "0",
        "--checkpoint_every", "0", "--progress", "false", "--device", "cpu",
    ]  # fmt: skip
    if args.torch_threads is not None:
        options += ["--torch_threads", str(args.torch_threads)]
    single = [sys.executable]
    parallel = [sys.executable, "-m", "torch.distributed.run", "--standalone",
                f"--nproc_per_node={args.ranks}"]  # fmt: skip
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"{'round':>6} {'1 rank dec/s':>13} {f'{args.ranks} ranks dec/s':>15} {'speed-up':>9}"
        f" {'1 rank dec/CPU-s':>17} {f'{args.ranks} ranks dec/CPU-s':>19} {'efficiency':>11}"
        f" {f'{args.ranks} x 1 thread dec/s':>20} {'of that':>8}"
    )
    rows = []
    with tempfile.TemporaryDirectory() as runs_dir:
        for number in range(1, args.rounds + 1):
            one, one_cpu = measure(single, options, runs_dir, args.total_steps)
            many, many_cpu = measure(parallel, options, runs_dir, args.total_steps)
            most = ceiling(options, runs_dir, args.total_steps, args.ranks)
            rows.append(
                (one, many, many / one, one_cpu, many_cpu, many_cpu / one_cpu, most, many / most)
            )
            print(f"{number:>6} " + format_row(rows[-1]), flush=True)
    medians = [statistics.median(column) for column in zip(*rows, strict=True)]
    print(f"{'median':>6} " + format_row(medians))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def format_row(row):
    one, many, speedup, one_cpu, many_cpu, efficiency, most, share = row
    return (
        f"{one:>13,.0f} {many:>15,.0f} {speedup:>8.2f}x {one_cpu:>17,.0f} {many_cpu:>19,.0f}"
        f" {efficiency:>10.2f}x {most:>20,.0f} {share:>7.0%}"
    )


if __name__ == "__main__":
    main()
