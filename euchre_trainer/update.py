"""The PPO update: clipped PPO over the learner's decisions of all ranks, with the warm-up's imitation."""

import numpy as np
import torch

from agents.networks import seen_rows
from agents.ppo import mask_logits, masked_entropy, masked_log_probs


def batch_shares(run, buf, lessons, stats):
    """int64[world_size, 3]: every rank's learner decisions, warm-up lessons and deals played in this
    rollout (by rank); the run's counts of learner decisions and deals take all ranks' in."""
    lesson_count = sum(len(actions) for _, _, actions in lessons)
    shares = run.ranks.all_rows([buf.count, lesson_count, stats.counts["deals"]])
    run.learner_step += int(shares[:, 0].sum())
    run.deals += int(shares[:, 2].sum())
    return shares


def own_rows(positions, first, count, device):
    """This rank's rows among ``positions`` (int[M] in the batch of all ranks, where this rank's ``count``
    rows start at ``first``), as its own row numbers, in the order of ``positions``."""
    local = positions - first
    return torch.from_numpy(local[(local >= 0) & (local < count)]).to(device)


def share_mean(values, total):
    """This rank's part of the mean of ``total`` values over all ranks (the parts of all ranks sum to it)."""
    return values.mean() if len(values) == total else values.sum() / total


def advantage_statistics(run, advantages, order, first, count):
    """float64[minibatches, 2]: mean and std of each minibatch's advantages over all ranks in one epoch.

    ``order`` (int[total]) is the epoch's order of all ranks' decisions, this rank's
    ``count`` rows starting at ``first``; one collective for the whole epoch.
    """
    size = run.config.minibatch_size
    starts = range(0, len(order), size)
    parts = []
    for start in starts:
        mine = advantages[own_rows(order[start : start + size], first, count, advantages.device)]
        parts.append(torch.stack([mine.double().sum(), (mine.double() ** 2).sum()]))
    sums = run.ranks.all_sum(torch.stack(parts).cpu().numpy().reshape(-1)).reshape(-1, 2)
    total = np.minimum(size, len(order) - np.array(starts))
    mean = sums[:, 0] / total
    variance = np.maximum(sums[:, 1] - total * mean**2, 0.0) / np.maximum(total - 1, 1)
    return np.stack([mean, np.sqrt(variance)], axis=1)


def clipped_ppo_loss(config, ratio, advantages, new_value, old_value, returns, entropy, total):
    """CleanRL's PPO loss of one minibatch: (loss, policy loss, value loss, entropy).

    ratio, advantages (normalised as config says), new_value, old_value, returns,
    entropy: float[M], this rank's rows of a minibatch of ``total`` rows; each term is
    this rank's share of its mean over the minibatch (:func:`share_mean`).
    """
    pg_loss = share_mean(
        torch.max(
            -advantages * ratio,
            -advantages * ratio.clamp(1 - config.clip_coef, 1 + config.clip_coef),
        ),
        total,
    )
    if config.clip_vloss:
        clipped = old_value + (new_value - old_value).clamp(-config.clip_coef, config.clip_coef)
        squares = torch.max((new_value - returns) ** 2, (clipped - returns) ** 2)
    else:
        squares = (new_value - returns) ** 2
    v_loss = 0.5 * share_mean(squares, total)
    entropy_loss = share_mean(entropy, total)
    loss = pg_loss - config.ent_coef * entropy_loss + config.vf_coef * v_loss
    return loss, pg_loss, v_loss, entropy_loss


def ppo_update(run, buf, advantages, returns, lessons, shares):
    """``update_epochs`` passes of clipped PPO over the learner's decisions of all ranks.

    The minibatches are drawn over the decisions of all ranks (rank 0's rows, then
    rank 1's, ...: ``shares`` from :func:`batch_shares`) by ``minibatch_rng``, the
    same on every rank; each rank computes its part of each minibatch's mean loss
    (advantages normalised over the whole minibatch) and the gradients are summed
    over the ranks before the step, so every rank takes the same step. During the
    warm-up each minibatch also takes its share of the lessons (imitation of the
    heuristic's auction decisions, cross-entropy). Returns the last minibatch's
    losses (this rank's parts with several ranks) and the update's clip fraction.
    """
    config, model, optimizer, device = run.config, run.model, run.optimizer, run.device
    rank = run.ranks.rank
    count, total = buf.count, int(shares[:, 0].sum())
    first = int(shares[:rank, 0].sum())
    lesson_count, lesson_total = int(shares[rank, 1]), int(shares[:, 1].sum())
    lesson_first = int(shares[:rank, 1].sum())
    # the suits are renamed once for all epochs (no parameters involved)
    b_seen = model.see(torch.from_numpy(buf.obs[:count]).to(device))
    b_mask = torch.from_numpy(buf.mask[:count]).to(device)
    b_actions = torch.from_numpy(buf.action[:count]).to(device)
    b_logprobs = torch.from_numpy(buf.logprob[:count]).to(device)
    b_values = torch.from_numpy(buf.value[:count]).to(device)
    b_advantages = torch.from_numpy(advantages).to(device)
    b_returns = torch.from_numpy(returns).to(device)
    critic, critic_seen = run.critic, None  # the oracle critic's inputs, renamed once too
    if critic is not None:
        b_hidden = torch.from_numpy(buf.hidden[:count]).to(device)
        critic_seen = critic.see(torch.from_numpy(buf.obs[:count]).to(device), b_hidden)
    lesson_obs, lesson_mask, lesson_actions = (
        torch.from_numpy(np.concatenate(x)).to(device) for x in zip(*lessons, strict=True)
    ) if lessons else (None, None, None)  # fmt: skip
    lesson_seen = model.see(lesson_obs) if lesson_obs is not None else None
    lesson_size = -(
        -lesson_total * config.minibatch_size // max(total, 1)
    )  # same share per minibatch
    zero = torch.zeros((), device=device)
    pg_loss, v_loss, entropy_loss, approx_kl, imitation_loss = zero, zero, zero, zero, zero
    clipfracs = []
    for _epoch in range(config.update_epochs):
        order = run.minibatch_rng.permutation(total)
        lesson_order = run.minibatch_rng.permutation(lesson_total) if lesson_total else None
        adv_stats = (
            advantage_statistics(run, b_advantages, order, first, count)
            if config.norm_adv and run.ranks.world_size > 1
            else None
        )
        for number, start in enumerate(range(0, total, config.minibatch_size)):
            positions = order[start : start + config.minibatch_size]
            mb = own_rows(positions, first, count, device)
            logits, new_value = model.from_seen(*seen_rows(b_seen, mb))
            if critic is not None and critic_seen is not None:
                new_value = critic.from_seen(critic_seen[mb])
            log_probs = masked_log_probs(logits, b_mask[mb])
            new_logprob = log_probs.gather(1, b_actions[mb][:, None]).squeeze(1)
            entropy = masked_entropy(log_probs, b_mask[mb])
            logratio = new_logprob - b_logprobs[mb]
            ratio = logratio.exp()
            with torch.no_grad():  # sums of the approximate KL and of the clipped ratios
                kl_and_clipped = torch.stack(
                    [
                        ((ratio - 1) - logratio).sum(),
                        ((ratio - 1.0).abs() > config.clip_coef).to(ratio.dtype).sum(),
                    ]
                )
            mb_adv = b_advantages[mb]
            if config.norm_adv and len(positions) > 1:
                if adv_stats is None:  # one rank holds the whole minibatch
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                else:
                    mean, std = adv_stats[number]
                    mb_adv = (mb_adv - float(mean)) / float(std + 1e-8)
            loss, pg_loss, v_loss, entropy_loss = clipped_ppo_loss(
                config,
                ratio,
                mb_adv,
                new_value,
                b_values[mb],
                b_returns[mb],
                entropy,
                len(positions),
            )
            if lesson_order is not None:
                lesson_positions = lesson_order[number * lesson_size : (number + 1) * lesson_size]
                if len(lesson_positions):
                    assert lesson_seen is not None and lesson_mask is not None
                    assert lesson_actions is not None
                    lb = own_rows(lesson_positions, lesson_first, lesson_count, device)
                    lesson_logits, _ = model.from_seen(*seen_rows(lesson_seen, lb))
                    imitation_loss = share_mean(
                        torch.nn.functional.cross_entropy(
                            mask_logits(lesson_logits, lesson_mask[lb]),
                            lesson_actions[lb],
                            reduction="none",
                        ),
                        len(lesson_positions),
                    )
                    loss = loss + config.imitation_coef * imitation_loss
            optimizer.zero_grad()
            loss.backward()
            kl_and_clipped = run.ranks.sum_gradients(run.trained_parameters(), kl_and_clipped)
            approx_kl = kl_and_clipped[0] / len(positions)
            clipfracs.append(kl_and_clipped[1].item() / len(positions))
            torch.nn.utils.clip_grad_norm_(run.trained_parameters(), config.max_grad_norm)
            optimizer.step()
        if config.target_kl is not None and approx_kl > config.target_kl:
            break
    return {
        "losses/policy_loss": pg_loss.item(),
        "losses/value_loss": v_loss.item(),
        "losses/entropy": entropy_loss.item(),
        "losses/approx_kl": approx_kl.item(),
        "losses/clipfrac": float(np.mean(clipfracs)) if clipfracs else float("nan"),
        "losses/imitation_loss": imitation_loss.item(),
    }
