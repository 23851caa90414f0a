"""The training loop: set up or resume a run, then rollout, update, log and checkpoint until the end."""

import dataclasses
import os
import sys
import time

import torch
import torch.distributed as dist

from ghost_euchre.agents.networks import policy_payload
from ghost_euchre.arena.report import format_rows
from ghost_euchre.plumbing.commands import program_name
from ghost_euchre.trainer.checkpoint import (
    periodic_checkpoint,
    read_checkpoint,
    restore,
    save_checkpoint,
    save_torch,
    update_checkpoint,
)
from ghost_euchre.trainer.distill import choice_targets, teacher_lessons
from ghost_euchre.trainer.evaluation import final_evaluation, periodic_evaluation
from ghost_euchre.trainer.failures import last_checkpoint, remove_temporary, stopped_by_plug_ins
from ghost_euchre.trainer.interrupt import CtrlC, Interrupted
from ghost_euchre.trainer.log import Log, check_run_folder, free_run_name
from ghost_euchre.trainer.opponents import take_snapshot
from ghost_euchre.trainer.ranks import default_threads, same_config_on_every_rank, start_ranks
from ghost_euchre.trainer.rollout import RolloutBuffer, advantages_and_returns, collect_rollout
from ghost_euchre.trainer.run import setup
from ghost_euchre.trainer.stats import update_scalars
from ghost_euchre.trainer.update import batch_shares, ppo_update


def finish(run, log, run_dir):
    """The final checkpoint, then on rank 0: the policy file and the summary line."""
    save_checkpoint(run, os.path.join(run_dir, "final.pt"))
    if not log.active:
        return
    config = run.config
    partner_spec = {"auction": config.card_play, "play": config.bidding}.get(config.learn)
    save_torch(
        policy_payload(run.model, config.learn, partner_spec), os.path.join(run_dir, "policy.pt")
    )
    decisions, deals = run.global_step - log.start_step, run.deals - log.start_deals
    learner = run.learner_step - log.start_learner_step
    seconds = max(log.train_time, 1e-9)
    resumed = f"resumed after update {log.start_update}: " if log.start_update else ""
    whole = (  # a resumed run: the run's totals apart from what this process played
        f"; the run in all: {run.global_step} decisions ({run.learner_step} by the learner), "
        f"{run.deals} deals"
        if resumed
        else ""
    )
    print(
        f"{resumed}{decisions} decisions ({learner} by the learner) in {log.train_time:.0f} s of "
        f"rollouts and updates: {decisions / seconds:,.0f} decisions/s; {deals} deals, "
        f"{deals / seconds:,.0f} deals/s{whole}; saved {run_dir}/final.pt and policy.pt"
    )
    shares = log.time_shares(run)
    print(
        f"where the time went: rollouts {log.rollout_time:.0f} s "
        f"({shares['time/rollout_decisions_per_s']:,.0f} decisions/s of every seat), updates "
        f"{log.update_time:.0f} s ({shares['time/update_decisions_per_s']:,.0f} learner decisions/s), "
        f"periodic evaluations {log.eval_time:.0f} s; {time.perf_counter() - log.start_time:.0f} s wall"
    )
    curve = log.learning_curve()
    if curve:
        print("\nlearning curve: the greedy network against two heuristics at each evaluation")
        print("\n".join(format_rows(curve)))


def play_update(run, buf, log):
    """One update: the rollout of every game, the PPO update, the snapshot, the logs and evaluation."""
    config = run.config
    tick, step_before, learner_before = time.perf_counter(), run.global_step, run.learner_step
    if config.anneal_lr:
        run.optimizer.param_groups[0]["lr"] = config.learning_rate * (
            1.0 - run.update / run.num_updates
        )
    # --- rollout (each rank plays its own games)
    torch.set_num_threads(config.rollout_threads)
    stats, lessons = collect_rollout(run, buf)
    advantages, returns = advantages_and_returns(run, buf)
    taught = [
        (obs, mask, choice_targets(actions, mask.shape[1])) for obs, mask, actions in lessons
    ] + teacher_lessons(run, buf)
    # --- update (minibatches over all ranks' decisions, gradients summed over the ranks)
    torch.set_num_threads(config.torch_threads)
    played = time.perf_counter()
    shares = batch_shares(run, buf, taught, stats)
    losses = ppo_update(run, buf, advantages, returns, taught, shares)
    run.update += 1
    log.timed(
        run.global_step - step_before,
        run.learner_step - learner_before,
        played - tick,
        time.perf_counter() - played,
    )
    take_snapshot(run)
    # --- log
    scalars = update_scalars(run, buf, returns, stats, lessons, losses)
    evaluation = periodic_evaluation(run, log)
    log.update(run, {**scalars, **evaluation}, evaluated=bool(evaluation))


def whole_rollouts(config):
    """(config, line): ``total_steps`` rounded up to whole rollouts (``num_envs * num_steps`` decisions
    each; the rounded count is the run's, in its config.yaml and checkpoints), and the line that says so
    ('' when it is a multiple already). Up, not refused: a run plays at least what was asked, without a
    user computing multiples of the rollout for every num_envs."""
    batch = config.num_envs * config.num_steps
    updates = -(-config.total_steps // batch)
    if updates * batch == config.total_steps:
        return config, ""
    line = (
        f"total_steps {config.total_steps:,} is not a whole number of rollouts ({batch:,} decisions each): "
        f"running {updates} updates, {updates * batch:,} decisions"
    )
    return dataclasses.replace(config, total_steps=updates * batch), line


def train(config, resume, config_stem):
    """Train ``config`` (one process, or one rank of a torchrun job), from the checkpoint ``resume`` (a path)
    if given; ``config_stem`` names a run without a name. Returns the run's folder."""
    checkpoint = read_checkpoint(resume) if resume else None
    if not config.name:
        stamped = f"{config_stem}__{config.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
        config = dataclasses.replace(config, name=free_run_name(config.runs_dir, stamped))
    try:
        check_run_folder(config.runs_dir, config.name, resume)
    except ValueError as error:
        print(f"{program_name('train')}: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None

    if not config.torch_threads:  # the number used is the run's (results depend on it)
        config = dataclasses.replace(config, torch_threads=default_threads())
    config, rounded = whole_rollouts(config)
    # --- setup or resume
    ranks = start_ranks(config)
    config = same_config_on_every_rank(config, ranks)
    run_dir = os.path.join(config.runs_dir, config.name)
    try:
        run = setup(config, ranks)
        if checkpoint is not None:
            restore(run, checkpoint)
    except ValueError as error:  # a spec or network that cannot be built, weights that do not fit
        print(f"{program_name('train')}: error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    log = Log(run_dir, run, resumed=checkpoint is not None)
    if rounded and log.active:
        log.write(rounded)
    game = run.game
    buf = RolloutBuffer(
        run.num_envs * config.num_steps,
        game.obs_size,
        game.num_actions,
        run.num_envs,
        game.num_players,
        run.critic.extra_size if run.critic is not None else 0,
    )

    remove_temporary(
        run_dir
    )  # what a killed checkpoint write left (this run is its folder's writer)
    ctrl_c = CtrlC(log.write if log.active else lambda line: None)  # rank 0 says it
    try:
        with ctrl_c, stopped_by_plug_ins(run, run_dir, log):  # a plug-in that fails: one line
            while run.update < run.num_updates:
                play_update(run, buf, log)
                if ctrl_c.stop(run.ranks) and run.update < run.num_updates:
                    log.close()
                    saved = update_checkpoint(run, run_dir)
                    raise Interrupted(f"after update {run.update}", saved, saved=True)
                periodic_checkpoint(run, run_dir)
            log.close()
            finish(run, log, run_dir)
        if (
            ctrl_c.requested
        ):  # asked during the last update: the run is whole, its evaluation skipped
            final = os.path.join(run_dir, "final.pt")
            raise Interrupted(f"after the last update {run.update}", final, saved=True)
        with stopped_by_plug_ins(run, run_dir, log):  # here a first Ctrl-C stops at once
            if log.active and config.final_eval_games:
                final_evaluation(run, log)
    except Interrupted:
        raise
    except KeyboardInterrupt:  # a second Ctrl-C, or one during the final evaluation: at once
        log.close()
        where = (
            f"during update {run.update + 1}"
            if run.update < run.num_updates
            else "during the final evaluation"
        )
        raise Interrupted(where, last_checkpoint(run_dir), saved=False) from None
    finally:
        if log.active:
            log.writer.close()
    if ranks.world_size > 1:
        dist.destroy_process_group()
    return run_dir
