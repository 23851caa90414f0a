"""Where a run reports: TensorBoard, the progress bar or printed lines, the run's config.yaml, SPS."""

import collections
import dataclasses
import math
import os
import sys
import time

import yaml

from ghost_euchre.plumbing.commands import command_name
from ghost_euchre.plumbing.files import write_atomic
from ghost_euchre.trainer.failures import last_checkpoint


def write_config(config, path):
    """The run's config as YAML (``--config PATH`` runs it again), atomically."""
    values = {
        k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(config).items()
    }
    text = yaml.safe_dump(values, sort_keys=False, default_flow_style=None)
    header = f"# the config of this run (fields: {command_name('train')} --help)\n"
    write_atomic(path, lambda handle: handle.write(header + text))


def taken_run_names(runs_dir, name):
    """[``name``, ``name-2``, ...]: those with a folder (or file) in ``runs_dir``, up to the first free one."""
    taken = []
    while os.path.exists(
        os.path.join(runs_dir, free := f"{name}-{len(taken) + 1}" if taken else name)
    ):
        taken.append(free)
    return taken


def free_run_name(runs_dir, name):
    """``name``, or the first of ``name-2``, ``name-3``, ... with no folder in ``runs_dir``."""
    taken = taken_run_names(runs_dir, name)
    return f"{name}-{len(taken) + 1}" if taken else name


def check_run_folder(runs_dir, name, resume=None):
    """ValueError (one line) unless the run folder ``runs_dir/name`` is free (missing or empty) or is the
    folder of the checkpoint being resumed (``resume``: its path): a run never writes into another's
    folder (its config.yaml, checkpoints and TensorBoard events would mix with this one's)."""
    run_dir = os.path.join(runs_dir, name)
    if not os.path.isdir(run_dir) and not os.path.lexists(run_dir):
        return
    inside = resume is not None and os.path.commonpath(
        [os.path.realpath(run_dir), os.path.realpath(resume)]
    ) == os.path.realpath(run_dir)
    if inside or (os.path.isdir(run_dir) and not os.listdir(run_dir)):
        return
    found = last_checkpoint(run_dir)
    again = f"continue it with --resume {run_dir}" if found else "it holds no checkpoint to resume"
    raise ValueError(
        f"run folder {run_dir} holds another run already; {again}, or name this one "
        f"--name {free_run_name(runs_dir, name)} (nothing was written)"
    )


def machine_load():
    """'load L on C cores' when the machine's 1-minute load average exceeds its cores, else ''."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # not offered on this system (Windows)
        return ""
    return f"load {load:.1f} on {cores} cores" if load > cores + 0.5 else ""


class Log:
    """Where a run reports: TensorBoard, the progress bar or printed lines, config.yaml, the SPS clocks.

    Rank 0 alone writes and prints (``active``); every rank keeps the clocks.
    """

    RECENT = 10  # updates in the progress bar's recent decisions/s

    def __init__(self, run_dir, run, resumed):
        self.train_time, self.start_step, self.start_deals = 0.0, run.global_step, run.deals
        # seconds of this process's rollouts, updates and periodic evaluations; learner decisions updated
        self.rollout_time = self.update_time = self.eval_time = 0.0
        self.learner_decisions = 0
        self.curve = []  # (update, decisions, wall seconds, eval row vs heuristic) per evaluation
        self.start_update, self.start_learner_step = (
            run.update,
            run.learner_step,
        )  # 0, 0 unless resumed
        self.start_time = time.perf_counter()
        self.recent = collections.deque(maxlen=self.RECENT)  # (decisions, seconds) per update
        self.bar = None
        self.active = run.ranks.rank == 0
        if not self.active:
            return
        from torch.utils.tensorboard import SummaryWriter

        config = run.config
        os.makedirs(run_dir, exist_ok=True)
        write_config(config, os.path.join(run_dir, "config.yaml"))
        self.writer = SummaryWriter(run_dir)
        self.writer.add_text(
            "hyperparameters",
            "|param|value|\n|-|-|\n"
            + "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(config).items()),
            run.global_step,
        )
        ranks = run.ranks
        print(
            f"run {run_dir}: {run.num_updates} update{'s' * (run.num_updates != 1)} of "
            f"{run.batch_size} decisions"
            + (f" on {ranks.world_size} ranks" if ranks.world_size > 1 else "")
            + f" ({ranks.device})"
            + (f", resuming after update {run.update}" if resumed else ""),
            flush=True,
        )
        if config.progress:
            from tqdm import tqdm

            self.bar = tqdm(
                total=run.num_updates,
                initial=run.update,
                unit="update",
                dynamic_ncols=True,
                file=sys.stdout,
            )

    def timed(self, decisions, learner_decisions, rollout_seconds, update_seconds):
        """Count one update's rollout time (``decisions`` of every seat played) and its PPO update's
        (``learner_decisions`` trained on)."""
        seconds = rollout_seconds + update_seconds
        self.train_time += seconds
        self.rollout_time += rollout_seconds
        self.update_time += update_seconds
        self.learner_decisions += learner_decisions
        self.recent.append((decisions, seconds))

    def evaluated(self, run, seconds, row):
        """Count a periodic evaluation of ``seconds``; keep its ``row`` against the heuristic for the
        closing learning curve."""
        self.eval_time += seconds
        self.curve.append((run.update, run.global_step, time.perf_counter() - self.start_time, row))

    def time_shares(self, run):
        """{scalar: value}: decisions per second of the rollouts (every seat's decisions) and of the updates
        (the learner's decisions trained on), the seconds of each part so far."""
        decisions = run.global_step - self.start_step
        return {
            "time/rollout_decisions_per_s": decisions / max(self.rollout_time, 1e-9),
            "time/update_decisions_per_s": self.learner_decisions / max(self.update_time, 1e-9),
            "time/rollout_s": self.rollout_time,
            "time/update_s": self.update_time,
            "time/evaluation_s": self.eval_time,
        }

    def learning_curve(self):
        """The closing table's lines: each periodic evaluation's win rate against the heuristic, with the
        decisions and the wall time it came at ([] without periodic evaluations)."""
        if not self.curve:
            return []
        rows = [["update", "decisions", "wall", "win rate vs heuristic [95% CI]"]]
        for update, decisions, wall, row in self.curve:
            low, high = row["win_rate_ci95"]
            rows.append(
                [
                    str(update),
                    f"{decisions:,}",
                    f"{wall / 60:.1f} min",
                    f"{row['win_rate']:6.1%} [{low:.1%}, {high:.1%}]",
                ]
            )
        return rows

    def sps(self, run):
        """decisions per second of rollouts and updates since this process started"""
        return int((run.global_step - self.start_step) / self.train_time)

    def recent_sps(self):
        """decisions per second over the last RECENT updates"""
        decisions, seconds = map(sum, zip(*self.recent, strict=True))
        return int(decisions / seconds)

    def write(self, line):
        """Print a line without breaking the progress bar."""
        if self.bar is not None:
            self.bar.write(line, file=sys.stdout)
        else:
            print(line, flush=True)

    def update(self, run, scalars, evaluated):
        """Record one update's scalars; move the bar (or print every 10th update and evaluations)."""
        if not self.active:
            return
        scalars = {
            "charts/learning_rate": run.optimizer.param_groups[0]["lr"],
            "charts/SPS": self.sps(run),
            "charts/deals_per_s": int((run.deals - self.start_deals) / self.train_time),
            "charts/SPS_wall": int(
                (run.global_step - self.start_step) / (time.perf_counter() - self.start_time)
            ),
            **self.time_shares(run),
            **scalars,
        }
        for key, value in scalars.items():
            if not math.isnan(value):  # a rate of nothing counted (no games ended) is no point
                self.writer.add_scalar(key, value, run.global_step)
        progress = {
            "SPS": self.recent_sps(),
            "pts/deal": f"{scalars['euchre/points_per_deal']:.2f}",
        }
        busy = machine_load()
        if busy:  # why the estimate grows: other processes share the cores
            progress["busy"] = busy
        if evaluated:
            progress["win_vs_heuristic"] = f"{scalars['eval/win_rate_vs_heuristic']:.3f}"
            progress["win_vs_random"] = f"{scalars['eval/win_rate_vs_random']:.3f}"
        if self.bar is not None:
            self.bar.set_postfix(progress, refresh=False)
            self.bar.update(1)
        elif evaluated or run.update % 10 == 0:
            print(
                f"update {run.update}/{run.num_updates}, {run.global_step} decisions: "
                + ", ".join(f"{k} {v}" for k, v in progress.items()),
                flush=True,
            )

    def close(self):
        if self.bar is not None:
            self.bar.close()
            self.bar = None
