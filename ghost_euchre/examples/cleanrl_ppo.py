"""CleanRL-style PPO with invalid-action masking on the native vector env, in one file.

    python -m ghost_euchre.examples.cleanrl_ppo --env-id GhostEuchre-v0 --num-envs 256 --total-timesteps 2000000

``gymnasium.make_vec(env_id, num_envs)`` is the batched engine (one engine call
per step for all games, the other seats played by ``--opponents``, a policy
spec). The learner masks its logits with ``infos["action_mask"]``; the env is
made with ``autoreset_mode=SAME_STEP``, so ``next_done`` marks the step that
ended an episode and the observation after it is already the next episode's
(truncations are bootstrapped as terminations, as CleanRL's ppo.py does).
Copy it and change what you like; ``tests/test_interop_cleanrl.py`` runs it at
a tiny budget.
"""

import argparse
import time

import gymnasium
import numpy as np
import torch
from gymnasium.vector import AutoresetMode
from torch import nn
from torch.distributions import Categorical

import ghost_euchre_env  # noqa: F401  (registers the env ids)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description="CleanRL-style PPO on the native vector env")
    parser.add_argument("--env-id", default="GhostEuchre-v0")
    parser.add_argument("--opponents", default="heuristic", help="policy spec of the other seats")
    parser.add_argument("--episode", default="deal", choices=("deal", "game"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--total-timesteps", type=int, default=2_000_000)
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--num-steps", type=int, default=64, help="steps per env per rollout")
    parser.add_argument("--learning-rate", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--num-minibatches", type=int, default=8)
    parser.add_argument("--update-epochs", type=int, default=4)
    parser.add_argument("--clip-coef", type=float, default=0.2)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--hidden", type=int, default=256)
    return parser.parse_args(argv)


def layer(inputs, outputs, std=2**0.5):
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    def __init__(self, obs_size, num_actions, hidden):
        super().__init__()
        self.critic = nn.Sequential(
            layer(obs_size, hidden),
            nn.Tanh(),
            layer(hidden, hidden),
            nn.Tanh(),
            layer(hidden, 1, 1.0),
        )
        self.actor = nn.Sequential(
            layer(obs_size, hidden),
            nn.Tanh(),
            layer(hidden, hidden),
            nn.Tanh(),
            layer(hidden, num_actions, 0.01),
        )

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, mask, action=None):
        logits = self.actor(x).masked_fill(~mask, -1e9)  # illegal actions: probability 0
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(x)


def main(argv=None):
    args = parse_args(argv)
    batch_size = args.num_envs * args.num_steps
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)
    torch.manual_seed(args.seed)
    envs = gymnasium.make_vec(
        args.env_id,
        num_envs=args.num_envs,
        opponents=args.opponents,
        episode=args.episode,
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    obs_size = envs.single_observation_space.shape[0]  # pyright: ignore[reportOptionalSubscript]
    num_actions = int(envs.single_action_space.n)  # pyright: ignore[reportAttributeAccessIssue]
    agent = Agent(obs_size, num_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((args.num_steps, args.num_envs, obs_size))
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    global_step, start = 0, time.time()
    next_obs, info = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.from_numpy(next_obs), torch.from_numpy(info["action_mask"])
    next_done = torch.zeros(args.num_envs)
    returns, episode_return = [], np.zeros(args.num_envs)
    for iteration in range(1, num_iterations + 1):
        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step], actions[step], logprobs[step] = value.flatten(), action, logprob
            next_obs, reward, terminated, truncated, info = envs.step(action.numpy())
            done = terminated | truncated
            episode_return += reward
            returns.extend(episode_return[done].tolist())
            episode_return[done] = 0.0
            rewards[step] = torch.from_numpy(reward)
            next_obs, next_mask = torch.from_numpy(next_obs), torch.from_numpy(info["action_mask"])
            next_done = torch.from_numpy(done.astype(np.float32))

        with torch.no_grad():  # generalized advantage estimation
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            last = 0.0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    not_done, following = 1.0 - next_done, next_value
                else:
                    not_done, following = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * following * not_done - values[t]
                last = delta + args.gamma * args.gae_lambda * not_done * last
                advantages[t] = last
            targets = advantages + values

        b_obs, b_masks = obs.reshape(-1, obs_size), masks.reshape(-1, num_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_targets = advantages.reshape(-1), targets.reshape(-1)
        for _epoch in range(args.update_epochs):
            order = torch.randperm(batch_size)
            for begin in range(0, batch_size, minibatch_size):
                mb = order[begin : begin + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_masks[mb], b_actions[mb]
                )
                ratio = (newlogprob - b_logprobs[mb]).exp()
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(
                    -mb_adv * ratio,
                    -mb_adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef),
                ).mean()
                v_loss = 0.5 * ((newvalue.flatten() - b_targets[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        recent = np.mean(returns[-500:]) if returns else float("nan")
        print(
            f"iteration {iteration}/{num_iterations}: {global_step} steps, "
            f"{global_step / (time.time() - start):.0f} steps/s, mean return {recent:.3f}"
        )
    envs.close()
    return agent, returns


if __name__ == "__main__":
    main()
