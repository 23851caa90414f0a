"""Thread layouts and worker counts on a quiet machine and with one core busy: which default holds in both.

A default must not collapse when other work shares the machine (a browser on a
laptop, another job on a cluster node). Each round measures every layout twice,
once as the machine is and once while this script keeps one core busy itself
(a Python busy loop pinned to the last usable core, started before and stopped
after each busy measurement); the order of the two alternates between rounds.

Layouts (the default config, no evaluations or checkpoints, ``--total_steps``
of ``--updates`` rollouts; rate: the decisions/s train.py prints, rollouts
and updates, start-up left out):

- train: ``--torch_threads 1``; the default (no thread flag: the usable cores,
  threads that sleep at a barrier, as the command line sets
  ``OMP_WAIT_POLICY=PASSIVE``); ``--torch_threads 2`` with OpenMP's own
  policy (libgomp's threads spin a while before they sleep: the trainer before
  it set the policy); ``--torch_threads 2 --rollout_threads 2``; and two
  one-thread ranks (``torchrun --standalone --nproc_per_node=2``; ``--ranks 1``
  leaves it out);
- exploit: the same trainer against ``heuristic`` in every other seat
  (``evaluate.py exploit``'s training: ``opponents: {heuristic: 1}``,
  ``opponent_share: 1``, ``pool_size: 1``): one thread, the default, two
  spinning threads;
- evaluate: ``evaluate.py ppo:ghost heuristic heuristic --games G`` with
  ``--workers`` 1 and 2 (rate: decisions over the match's time as printed, the
  workers' start included).

The table gives each layout's median rate, quiet and busy, and its share of the
best layout of its group in that condition; ``*`` marks the layouts within 10%
of the best in both. The load average before and after is printed: on a shared
machine "quiet" is only as quiet as the others leave it.

Usage: ``python benchmarks/load_defaults.py [--rounds 2] [--updates 2] [--games 60] [--ranks 2]
[--groups train,exploit,evaluate]``
"""

import argparse
import contextlib
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAIN_RATE = re.compile(r"^\d+ decisions .* rollouts and updates: ([\d,]+) decisions/s", re.M)
MATCH = re.compile(r"^\w+, \d+ games .*, (\d+) decisions, ([\d.]+) s$", re.M)
ROLLOUT = 1024 * 32  # decisions of one rollout of the default config
QUIET = ("--eval_every", "0", "--final_eval_games", "0", "--checkpoint_every", "0")
EXPLOIT = ("--opponents", "{heuristic: 1}", "--opponent_share", "1", "--pool_size", "1")


def layouts(ranks, games):
    """[(group, label, command, environment changes)] of every measurement."""
    train = [sys.executable, os.path.join(ROOT, "train.py"), "--progress", "false", *QUIET]
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    torchrun += [f"--nproc_per_node={ranks}", os.path.join(ROOT, "train.py"), "--progress", "false"]
    spinning = {"OMP_WAIT_POLICY": ""}  # OpenMP's own policy (libgomp: spin, then sleep): set, so
    # the trainer's command line leaves it; libgomp warns that it is invalid and uses its default
    two = ["--torch_threads", "2"]
    cores = len(os.sched_getaffinity(0))
    found = [
        ("train", "torch_threads 1", [*train, "--torch_threads", "1"], {}),
        ("train", f"default ({cores} threads)", train, {}),
        ("train", "torch_threads 2, spinning", [*train, *two], spinning),
        ("train", "torch_threads 2, rollout 2", [*train, *two, "--rollout_threads", "2"], {}),
    ]
    if ranks > 1:
        ranked = [*torchrun, *QUIET, "--torch_threads", "1"]
        found.append(("train", f"{ranks} ranks x 1 thread", ranked, {}))
    found += [
        ("exploit", "torch_threads 1", [*train, *EXPLOIT, "--torch_threads", "1"], {}),
        ("exploit", f"default ({cores} threads)", [*train, *EXPLOIT], {}),
        ("exploit", "torch_threads 2, spinning", [*train, *EXPLOIT, *two], spinning),
    ]
    evaluate = [sys.executable, os.path.join(ROOT, "evaluate.py"), "ppo:ghost", "heuristic"]
    evaluate += ["heuristic", "--games", str(games), "--seed", "0", "--quiet"]
    found += [("evaluate", f"workers {w}", [*evaluate, "--workers", str(w)], {}) for w in (1, 2)]
    return found


def rate(group, command, environment, runs_dir, updates):
    """Decisions per second of one run of ``command`` (``environment``: variables set for it)."""
    if group != "evaluate":
        command = [*command, "--runs_dir", runs_dir, "--total_steps", str(updates * ROLLOUT)]
    environment = {**os.environ, **environment}
    result = subprocess.run(
        command, cwd=ROOT, env=environment, capture_output=True, text=True, check=False
    )
    if group == "evaluate":
        found = MATCH.search(result.stdout)
        value = found and int(found.group(1)) / float(found.group(2))
    else:
        found = TRAIN_RATE.search(result.stdout)
        value = found and float(found.group(1).replace(",", ""))
    if result.returncode or not value:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout[-1000:]}{result.stderr[-2000:]}")
    return value


@contextlib.contextmanager
def busy_core():
    """One core kept busy (a Python busy loop pinned to the last usable core) while inside."""
    core = max(os.sched_getaffinity(0))
    code = f"import os\nos.sched_setaffinity(0, {{{core}}})\nwhile True:\n    pass\n"
    spinner = subprocess.Popen([sys.executable, "-c", code])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()


def load():
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--updates", type=int, default=2, help="rollouts of 32,768 decisions a run")
    parser.add_argument("--games", type=int, default=60, help="games of the evaluate measurement")
    parser.add_argument(
        "--ranks", type=int, default=2, help="ranks of the torchrun layout (1: none)"
    )
    parser.add_argument("--groups", default="train,exploit,evaluate", help="the groups to measure")
    args = parser.parse_args()
    groups = args.groups.split(",")
    measured = [layout for layout in layouts(args.ranks, args.games) if layout[0] in groups]
    rates = {(label, group, c): [] for group, label, *_ in measured for c in ("quiet", "busy")}
    print(f"{len(os.sched_getaffinity(0))} usable cores; before: {load()}", flush=True)
    with tempfile.TemporaryDirectory() as runs_dir:
        for number in range(args.rounds):
            order = ("quiet", "busy") if number % 2 == 0 else ("busy", "quiet")
            for group, label, command, environment in measured:
                for condition in order:
                    with busy_core() if condition == "busy" else contextlib.nullcontext():
                        value = rate(group, command, environment, runs_dir, args.updates)
                    rates[label, group, condition].append(value)
                    print(
                        f"round {number + 1} {group:8} {label:28} {condition:5} {value:10,.0f}/s",
                        flush=True,
                    )
    print(f"after: {load()}")
    medians = {key: statistics.median(values) for key, values in rates.items()}
    print(
        f"\n{'group':8} {'layout':28} {'quiet/s':>10} {'of best':>8} {'busy/s':>10} {'of best':>8}"
    )
    for group in dict.fromkeys(g for g, *_ in measured):
        labels = [label for g, label, *_ in measured if g == group]
        best = {c: max(medians[label, group, c] for label in labels) for c in ("quiet", "busy")}
        for label in labels:
            shares = {c: medians[label, group, c] / best[c] for c in best}
            mark = "*" if min(shares.values()) >= 0.9 else ""
            print(
                f"{group:8} {label:28} {medians[label, group, 'quiet']:10,.0f} {shares['quiet']:8.0%} "
                f"{medians[label, group, 'busy']:10,.0f} {shares['busy']:8.0%} {mark}"
            )
    print("* within 10% of the best layout of its group, quiet and busy (medians)")


if __name__ == "__main__":
    main()
