"""Rollouts: every game's acting seat decides once per step; the learner's decisions, linked per seat
(:class:`RolloutBuffer`), and GAE over each seat's own sequence."""

import numpy as np
import torch

from ghost_euchre.agents.forward import probabilities, sampled_actions
from ghost_euchre.agents.networks import masked_log_probs
from ghost_euchre.trainer.opponents import (
    LEARNER,
    act_opponents,
    assign_roles,
    kind_names,
    kind_of_role,
    partner_role,
    warmup_role,
)
from ghost_euchre.trainer.stats import deal_stats, margins


def before_card_play(run, obs):
    """bool[N]: the decision every game waits for (observations float32[N, D]) comes before the card
    play (what the warm-up teaches): the auction and trump; classic: ordering up, naming trump,
    going alone and the dealer's discard."""
    return ~run.variant.card_play(obs)


class RolloutBuffer:
    """The learner's decisions of one rollout, linked into one sequence per (game, seat).

    Rows are appended step by step (``add``); ``next[i]`` is the row of the same
    seat's next decision in the same game (-1: none yet), ``reward[i]`` sums what
    that seat was paid from decision i until its next one, ``done[i]`` says the
    game ended before it decided again. Sequences still open when the rollout
    ends are bootstrapped (``set_bootstrap``) with the value of that seat's state.
    """

    def __init__(self, capacity, obs_size, num_actions, num_envs, num_seats=3, extra_size=0):
        self.obs = np.zeros((capacity, obs_size), np.float32)
        # the oracle critic's extra input (no columns without it)
        self.critic_extra = np.zeros((capacity, extra_size), np.float32)
        self.mask = np.zeros((capacity, num_actions), bool)
        self.action = np.zeros(capacity, np.int64)
        self.logprob = np.zeros(capacity, np.float32)
        self.value = np.zeros(capacity, np.float32)
        self.reward = np.zeros(capacity, np.float32)
        self.done = np.zeros(capacity, bool)
        self.next = np.zeros(capacity, np.int64)
        self.bootstrap = np.zeros(capacity, np.float32)
        self.last_row = np.zeros((num_envs, num_seats), np.int64)
        self.clear()

    def clear(self):
        self.count = 0
        self.step_starts = [0]  # rows of step t are step_starts[t]:step_starts[t + 1]
        self.reward[:] = 0.0
        self.done[:] = False
        self.next[:] = -1
        self.bootstrap[:] = 0.0
        self.last_row[:] = -1  # latest row of each (game, seat), -1 none

    def add(self, games, seats):
        """Append one row per learner decision of this step (games, seats: int[M]); returns their slice."""
        rows = np.arange(self.count, self.count + len(games))
        previous = self.last_row[games, seats]
        linked = previous >= 0
        self.next[previous[linked]] = rows[linked]
        self.last_row[games, seats] = rows
        self.count += len(games)
        self.step_starts.append(self.count)
        return slice(rows[0] if len(rows) else self.count, self.count)

    def add_rewards(self, rewards):
        """Credit rewards float[N, S] (by absolute seat) to each seat's latest decision."""
        open_rows = self.last_row >= 0
        self.reward[self.last_row[open_rows]] += rewards[open_rows]

    def close(self, games):
        """Close the sequences of every seat of the games ``games`` (int[M]): they ended (or, with
        return_horizon 'deal', their deal did); a seat's next decision starts a new sequence."""
        closed = self.last_row[games]
        self.done[closed[closed >= 0]] = True
        self.last_row[games] = -1

    def pending(self):
        """(games, seats) int[P] of the sequences still open (they need a bootstrap value)."""
        return np.nonzero(self.last_row >= 0)

    def set_bootstrap(self, games, seats, values):
        self.bootstrap[self.last_row[games, seats]] = values

    def advantages(self, gamma, gae_lambda):
        """GAE along each (game, seat) sequence -> (advantages, returns) float32[count].

        Steps are processed from the last, so a row's successor (always at a
        later step) is ready when the row is computed.
        """
        values, rewards = self.value[: self.count], self.reward[: self.count]
        advantages = np.zeros(self.count, np.float32)
        for t in range(len(self.step_starts) - 2, -1, -1):
            rows = np.arange(self.step_starts[t], self.step_starts[t + 1])
            nxt = self.next[rows]
            has_next = nxt >= 0
            follow = np.where(has_next, nxt, 0)
            alive = ~self.done[rows]
            next_value = np.where(has_next, values[follow], self.bootstrap[rows]) * alive
            next_advantage = np.where(has_next, advantages[follow], 0.0) * alive
            delta = rewards[rows] + gamma * next_value - values[rows]
            advantages[rows] = delta + gamma * gae_lambda * next_advantage
        return advantages, advantages + values


def collect_rollout(run, buf):
    """Play ``num_steps`` steps of every game: each game's acting seat decides once per step.

    The learner's decisions go to ``buf`` (cleared first). Returns the deal statistics
    (:func:`ghost_euchre.trainer.stats.deal_stats`) of the deals that ended and the warm-up
    lessons: a list of (obs, mask, action) per step of the heuristic's choices in the learner's
    auction decisions (empty after the warm-up). learn='all': the heuristic makes
    those decisions and the network imitates them; learn='auction' (the card
    play is already sensible): the network makes them and also imitates the
    heuristic's choice; learn='play': ``bidding`` makes them, no warm-up.
    """
    config, device = run.config, run.device
    stats = deal_stats(config.variant, kind_names(config), kind_of_role(config))
    lessons = []
    buf.clear()
    game_index = np.arange(run.num_envs)
    for _ in range(config.num_steps):
        obs, mask, player = run.obs, run.mask, run.player
        role_now = run.roles[game_index, player]
        warming_up = run.warming_up
        own_auction = (role_now == LEARNER) & before_card_play(run, obs)
        taught = game_index[:0]
        if config.learn == "play":  # the bidding policy makes the learner's auction decisions
            role_now = np.where(own_auction, partner_role(config), role_now)
        elif warming_up and config.learn == "all":  # the heuristic bids and names trump for it
            taught = np.flatnonzero(own_auction)
            role_now = np.where(own_auction, warmup_role(config), role_now)
        learning = role_now == LEARNER
        forced = (  # one legal action: played as it is, not a decision of the batch
            np.flatnonzero(learning & (mask.sum(axis=1) == 1))
            if config.skip_forced
            else game_index[:0]
        )
        learning[forced] = False
        learners = np.flatnonzero(learning)
        rows = buf.add(learners, player[learners])
        buf.obs[rows] = obs[learners]
        buf.mask[rows] = mask[learners]
        if run.critic is not None:
            deciding = run.venv.state.take(learners)
            buf.critic_extra[rows] = run.critic.extra(run.engine, deciding, player[learners])
        actions = np.zeros(run.num_envs, np.int64)
        with torch.no_grad():
            if len(learners):
                logits, value = run.model(torch.from_numpy(buf.obs[rows]).to(device))
                if run.critic is not None:
                    value = run.critic(
                        torch.from_numpy(buf.obs[rows]).to(device),
                        torch.from_numpy(buf.critic_extra[rows]).to(device),
                    )
                log_probs = masked_log_probs(logits, torch.from_numpy(buf.mask[rows]).to(device))
                chances = probabilities(logits.cpu().numpy(), buf.mask[rows])
                chosen = sampled_actions(chances, run.sample_rng.random(len(learners)))
                chosen_t = torch.from_numpy(chosen).to(device)
                buf.logprob[rows] = log_probs.gather(1, chosen_t[:, None]).squeeze(1).cpu().numpy()
                buf.value[rows] = value.cpu().numpy()
                actions[learners] = chosen
            act_opponents(actions, role_now, obs, mask, run)
        actions[forced] = mask[forced].argmax(axis=1)
        buf.action[rows] = actions[learners]
        if warming_up and config.learn == "auction":
            lessons.append(
                (obs[learners], mask[learners], run.heuristic.act(obs[learners], mask[learners]))
            )
        elif warming_up and config.imitate_card_play:  # and its choices in the network's card play
            both = np.concatenate([taught, learners])
            choice = np.concatenate(
                [actions[taught], run.heuristic.act(obs[learners], mask[learners])]
            )
            lessons.append((obs[both], mask[both], choice))
        elif warming_up:
            lessons.append((obs[taught], mask[taught], actions[taught]))

        run.obs, run.mask, run.player, rewards, done = run.venv.step(actions)
        run.global_step += config.num_envs  # all ranks' games
        if config.reward == "margin":
            rewards = margins(rewards, run.variant)
        buf.add_rewards(rewards * config.reward_scale)
        result = run.venv.last_result
        assert result is not None  # set by every step
        if len(result.deals.game):
            stats.add_deals(result.deals, run.roles)
            if config.return_horizon == "deal":
                buf.close(result.deals.game)
        if done.any():
            stats.add_game_ends(result.deals, run.roles, done & ~run.venv.truncated)
            ended = np.flatnonzero(done)
            buf.close(ended)
            assign_roles(
                run.roles, ended, config, min(run.pool_added, config.pool_size), run.np_rng
            )
    return stats, lessons


def advantages_and_returns(run, buf):
    """GAE over the rollout in ``buf`` -> (advantages, returns) float32[count].

    The sequences still open are bootstrapped with the value of that seat's current observation.
    """
    pending_games, pending_seats = buf.pending()
    if len(pending_games):
        pending = run.venv.state.take(pending_games)
        pending_obs = torch.from_numpy(run.game.observe(pending, pending_seats)).to(run.device)
        with torch.no_grad():
            if run.critic is None:
                values = run.model.value(pending_obs)
            else:
                extra = run.critic.extra(run.engine, pending, pending_seats)
                values = run.critic(pending_obs, torch.from_numpy(extra).to(run.device))
        buf.set_bootstrap(pending_games, pending_seats, values.cpu().numpy())
    return buf.advantages(run.config.gamma, run.config.gae_lambda)
