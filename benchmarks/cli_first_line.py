"""Time to the first line of an evaluate.py error, against two peers in the same run.

The case: a classic Euchre network named in a Ghost Hand match
(``ppo:ghost_euchre/agents/pretrained/classic_ppo.pt heuristic heuristic``), whose error is
told from the file before torch is imported. Peers: an unknown spec (an error
that never needs torch: the floor of a Python start plus the command line's
imports) and ``python -c "import torch"`` (what telling it after torch costs
on top). Each command starts a fresh Python; the commands take turns, and the
median of the repeats is reported. The page cache is warm after the first
round: from a cold disk torch's import takes much longer (the issue saw ~20 s).

Run from the repository root: ``python -m benchmarks.cli_first_line [--quick]``;
``--repo DIR`` (repeatable) times those checkouts' evaluate.py instead, e.g.
``--repo . --repo ../main`` for before and after in one run.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

CASES = {
    "classic network in a ghost match": [
        "evaluate.py",
        "ppo:ghost_euchre/agents/pretrained/classic_ppo.pt",
        "heuristic",
        "heuristic",
        "--quiet",
    ],
    "peer: unknown spec (no torch)": [
        "evaluate.py",
        "nonsense",
        "heuristic",
        "heuristic",
        "--quiet",
    ],
    "peer: import torch": ["-c", "import sys, torch; sys.stderr.write('imported\\n')"],
}


def first_line_seconds(argv, cwd):
    """Seconds from starting ``python argv`` in ``cwd`` to its first line on stderr, and that line."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, *argv],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert process.stderr is not None
    line = process.stderr.readline().strip()
    seconds = time.perf_counter() - start
    process.communicate()
    return seconds, line


def main(argv=None):
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help="3 repeats")
    parser.add_argument("--repo", action="append", help="checkout to run in (default: .)")
    args = parser.parse_args(argv)
    repeats = 3 if args.quick else args.repeats
    repos = [os.path.abspath(r) for r in args.repo or ["."]]
    runs = [(repo, name) for repo in repos for name in CASES if name != "peer: import torch"]
    runs.append((repos[0], "peer: import torch"))
    times = {run: [] for run in runs}
    lines = {}
    for _ in range(repeats + 1):  # the first round warms the page cache and is not counted
        for run in runs:
            seconds, lines[run] = first_line_seconds(CASES[run[1]], run[0])
            times[run].append(seconds)
    with open("/proc/loadavg") as load:
        print(f"load average: {' '.join(load.read().split()[:3])}; median of {repeats} runs")
    for (repo, name), values in times.items():
        median = statistics.median(values[1:])
        print(f"{median:6.2f} s  {name}  [{repo}]")
        print(f"          {lines[repo, name][:150]}")


if __name__ == "__main__":
    main()
