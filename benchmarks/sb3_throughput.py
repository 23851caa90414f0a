"""MaskablePPO on the native vector env against a DummyVecEnv of single envs; then against the trainer.

``throughput`` (default): sb3-contrib's ``MaskablePPO``, the same ``n_envs``
and hyperparameters, learning on ``SB3VecEnv`` (the native env: one engine
call per step for all games, batched heuristic opponents) and on a
``DummyVecEnv`` of ``gymnasium.make("GhostEuchre-v0")`` (the heuristic asked
one game at a time). Both learn from ``episode="deal"`` with heuristic
opponents; learner decisions per second of ``learn`` (rollouts and updates),
in alternating rounds of whole rollouts. Target: >= 10x.

``--equal-time SECONDS``: the project's trainer (``python train.py``, the
default config but ``total_steps``) runs first and its wall time T is
measured; then MaskablePPO on the native env learns for T seconds; each is
then played against two heuristics (``ghost_euchre.arena.run_match``, duplicate games).
Both sides' decisions per second are printed: the trainer counts every
seat's decisions (its ``total_steps`` unit), MaskablePPO its learner's.

Run from the repository root: ``python -m benchmarks.sb3_throughput``.
"""

import argparse
import pathlib
import subprocess
import sys
import tempfile
import time

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import DummyVecEnv

import ghost_euchre_env  # noqa: F401  (registers the env ids)
from ghost_euchre.agents import Policy, make_policy
from ghost_euchre.arena.match import run_match
from ghost_euchre_env import GhostEuchre
from ghost_euchre_env.gym_bidding import as_callable
from ghost_euchre_env.interop.sb3 import SB3VecEnv

HYPERPARAMETERS = {"n_steps": 16, "batch_size": 1024, "n_epochs": 2, "learning_rate": 3e-4}


def native_env(n_envs, episode="deal"):
    return SB3VecEnv("GhostEuchre-v0", num_envs=n_envs, opponents="heuristic", episode=episode)


def dummy_env(n_envs, episode="deal"):
    heuristic = as_callable(make_policy("heuristic", GhostEuchre()))
    return DummyVecEnv(
        [lambda: gymnasium.make("GhostEuchre-v0", opponents=heuristic, episode=episode)] * n_envs
    )


def model_on(env, seed=0):
    return MaskablePPO("MlpPolicy", env, seed=seed, device="cpu", **HYPERPARAMETERS)


def throughput(n_envs, rounds, rollouts):
    """Learner decisions/s of MaskablePPO (native, dummy), alternating rounds of whole rollouts."""
    models = {"native": model_on(native_env(n_envs)), "dummy": model_on(dummy_env(n_envs))}
    spent = dict.fromkeys(models, 0.0)
    steps = dict.fromkeys(models, 0)
    per_rollout = n_envs * HYPERPARAMETERS["n_steps"]
    for _ in range(rounds):
        for name, model in models.items():
            count = rollouts if name == "native" else 1
            before = model.num_timesteps
            start = time.perf_counter()
            model.learn(count * per_rollout, reset_num_timesteps=False)
            spent[name] += time.perf_counter() - start
            steps[name] += model.num_timesteps - before
    return {name: steps[name] / spent[name] for name in models}


class StopAfter(BaseCallback):
    """Stops ``learn`` once ``seconds`` of wall time have passed."""

    def __init__(self, seconds):
        super().__init__()
        self.deadline = time.perf_counter() + seconds

    def _on_step(self):
        return time.perf_counter() < self.deadline


class MaskablePPOPolicy(Policy):
    """A trained MaskablePPO model as a batched policy (its most likely legal action)."""

    name = "maskable_ppo"

    def __init__(self, game, seed=None, model=None):
        super().__init__(game, seed)
        self.model = model

    def act(self, obs, mask):
        assert self.model is not None, "MaskablePPOPolicy needs a model"
        actions, _ = self.model.predict(obs, action_masks=mask, deterministic=True)
        return np.asarray(actions, np.int64)


def win_rate(policy, games, seed):
    result = run_match([policy, "heuristic", "heuristic"], games=games, seed=seed)
    row = result.players[0]
    return row["win_rate"], row["win_rate_ci95"]


def equal_time(total_steps, games, n_envs):
    """Trainer for total_steps decisions (wall time T), then MaskablePPO for T; both vs two heuristics."""
    with tempfile.TemporaryDirectory() as runs:
        command = [sys.executable, "train.py", "--total_steps", str(total_steps)]
        command += ["--runs_dir", runs, "--name", "run", "--eval_every", "0"]
        command += ["--final_eval_games", "6", "--torch_threads", "1"]
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        trainer_seconds = time.perf_counter() - start
        checkpoints = sorted(pathlib.Path(runs, "run").rglob("*.pt"))
        trainer = make_policy(f"ppo:{checkpoints[-1]}", GhostEuchre())
        trainer_win = win_rate(trainer, games, 1)
    env = native_env(n_envs)
    model = model_on(env)
    start = time.perf_counter()
    model.learn(10**12, callback=StopAfter(trainer_seconds))
    sb3_seconds = time.perf_counter() - start
    sb3_win = win_rate(MaskablePPOPolicy(GhostEuchre(), model=model), games, 1)
    print(
        f"trainer: {total_steps:,} decisions (all seats) in {trainer_seconds:.0f} s "
        f"({total_steps / trainer_seconds:,.0f}/s, final evaluation included), "
        f"win rate vs two heuristics {trainer_win[0]:.3f} [{trainer_win[1][0]:.3f}, {trainer_win[1][1]:.3f}]"
    )
    print(
        f"MaskablePPO on SB3VecEnv(n_envs={n_envs}): {model.num_timesteps:,} learner decisions in "
        f"{sb3_seconds:.0f} s ({model.num_timesteps / sb3_seconds:,.0f}/s), "
        f"win rate vs two heuristics {sb3_win[0]:.3f} [{sb3_win[1][0]:.3f}, {sb3_win[1][1]:.3f}]"
    )


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--n-envs", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rollouts", type=int, default=4, help="native rollouts per round")
    parser.add_argument(
        "--equal-time",
        type=int,
        default=0,
        metavar="TOTAL_STEPS",
        help="run the equal-wall-time comparison, the trainer for this many decisions",
    )
    parser.add_argument("--games", type=int, default=600, help="duplicate games per evaluation")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.equal_time:
        equal_time(args.equal_time, args.games, args.n_envs)
        return
    rates = throughput(args.n_envs, args.rounds, args.rollouts)
    print(
        f"MaskablePPO, n_envs={args.n_envs}, {HYPERPARAMETERS}, episode='deal', heuristic opponents"
    )
    print(f"native SB3VecEnv: {rates['native']:,.0f} learner decisions/s")
    print(f"DummyVecEnv:      {rates['dummy']:,.0f} learner decisions/s")
    print(f"ratio: {rates['native'] / rates['dummy']:.1f}x (target 10x)")


if __name__ == "__main__":
    main()
