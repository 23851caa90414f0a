"""The PPO update: clipped PPO over the learner's decisions of all ranks, with the warm-up's imitation.

Read :func:`ppo_update` as CleanRL's update loop: epochs, minibatches, the clipped loss, one
optimizer step. What several ranks add is hidden in :class:`Shard` and :func:`minibatches`
(which rows of a minibatch are this rank's); each extra loss is one visible term.
"""

import dataclasses

import numpy as np
import torch

from ghost_euchre.agents.networks import mask_logits, masked_entropy, masked_log_probs, seen_rows


@dataclasses.dataclass(frozen=True)
class Shares:
    """What each rank brought to this update.

    decisions, lessons, deals: int64[world_size], each rank's learner decisions, warm-up lessons
    (the heuristic's auction decisions) and deals played, by rank.
    """

    decisions: np.ndarray
    lessons: np.ndarray
    deals: np.ndarray

    @classmethod
    def of_table(cls, table):
        """From int64[world_size, 3]: each rank's decisions, lessons and deals."""
        return cls(*np.asarray(table).T)

    @property
    def table(self):
        """int64[world_size, 3]: each rank's decisions, lessons and deals."""
        return np.stack([self.decisions, self.lessons, self.deals], axis=1)


@dataclasses.dataclass(frozen=True)
class Shard:
    """This rank's rows among all ranks' rows (rank 0's first, then rank 1's, and so on).

    They are rows ``first`` to ``first + count - 1`` of the ``total`` rows of all ranks.
    """

    first: int
    count: int
    total: int

    @classmethod
    def of(cls, counts, rank):
        """counts: int64[world_size], every rank's rows."""
        return cls(int(counts[:rank].sum()), int(counts[rank]), int(counts.sum()))

    def own(self, positions, device):
        """This rank's rows among ``positions`` (int[M] in all ranks' rows), as its own row numbers
        (a tensor on ``device``), in the order of ``positions``."""
        local = positions - self.first
        return torch.from_numpy(local[(local >= 0) & (local < self.count)]).to(device)


@dataclasses.dataclass(frozen=True)
class Minibatch:
    """One minibatch: ``number`` in its epoch, ``size`` rows over all ranks, this rank's ``rows``
    of the decisions, and this rank's ``lessons`` rows (None: no lesson in it) of ``lesson_size``."""

    number: int
    size: int
    rows: torch.Tensor
    lessons: torch.Tensor | None
    lesson_size: int


def batch_shares(run, buf, lessons, stats):
    """:class:`Shares` of this rollout; the run's counts of learner decisions and deals take all
    ranks' in."""
    lesson_count = sum(len(targets) for _, _, targets in lessons)
    shares = run.ranks.all_rows([buf.count, lesson_count, stats.counts["deals"]])
    run.learner_step += int(shares[:, 0].sum())
    run.deals += int(shares[:, 2].sum())
    return Shares.of_table(shares)


def share_mean(values, total):
    """This rank's part of the mean of ``total`` values over all ranks (the parts of all ranks sum to it)."""
    return values.mean() if len(values) == total else values.sum() / total


def advantage_statistics(run, advantages, order, shard):
    """float64[minibatches, 2]: mean and std of each minibatch's advantages over all ranks in one epoch.

    ``order`` (int[total]) is the epoch's order of all ranks' decisions; one collective for the
    whole epoch.
    """
    size = run.config.minibatch_size
    starts = range(0, len(order), size)
    parts = []
    for start in starts:
        mine = advantages[shard.own(order[start : start + size], advantages.device)]
        parts.append(torch.stack([mine.double().sum(), (mine.double() ** 2).sum()]))
    sums = run.ranks.all_sum(torch.stack(parts).cpu().numpy().reshape(-1)).reshape(-1, 2)
    total = np.minimum(size, len(order) - np.array(starts))
    mean = sums[:, 0] / total
    variance = np.maximum(sums[:, 1] - total * mean**2, 0.0) / np.maximum(total - 1, 1)
    return np.stack([mean, np.sqrt(variance)], axis=1)


def minibatches(run, decisions, lessons, device):
    """One epoch's minibatches (:class:`Minibatch`), drawn by ``run.minibatch_rng`` (the same on
    every rank) over all ranks' decisions (:class:`Shard` ``decisions``), each with its share of the
    lessons (:class:`Shard` ``lessons``). Returns (the epoch's order of the decisions, the iterator):
    the order is drawn before the first minibatch."""
    size = run.config.minibatch_size
    order = run.minibatch_rng.permutation(decisions.total)
    lesson_order = run.minibatch_rng.permutation(lessons.total) if lessons.total else None
    lesson_size = -(-lessons.total * size // max(decisions.total, 1))  # same share per minibatch

    def drawn():
        for number, start in enumerate(range(0, decisions.total, size)):
            positions = order[start : start + size]
            taught = (
                lesson_order[number * lesson_size : (number + 1) * lesson_size]
                if lesson_order is not None
                else order[:0]
            )
            rows = lessons.own(taught, device) if len(taught) else None
            yield Minibatch(
                number, len(positions), decisions.own(positions, device), rows, len(taught)
            )

    return order, drawn()


def normalised(advantages, minibatch, statistics):
    """The minibatch's advantages normalised over all ranks' rows of it (``statistics``: the epoch's
    :func:`advantage_statistics`, or None when one rank holds every row)."""
    if minibatch.size <= 1:
        return advantages
    if statistics is None:
        return (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    mean, std = statistics[minibatch.number]
    return (advantages - float(mean)) / float(std + 1e-8)


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


def heads_of_rows(model, seen, rows, precision):
    """(logits float32[M, A], value float32[M]) of the rows ``rows`` of a batch :meth:`see` returned,
    the network's passes under ``precision`` (a torch.autocast context)."""
    with precision:
        logits, value = model.from_seen(*seen_rows(seen, rows))
    return logits.float(), value.float()


def imitation_loss(model, lessons, rows, total, precision):
    """Cross-entropy of the network's masked logits against the lessons' target distributions
    (the heuristic's actions, one-hot, or a teacher's) on this rank's ``rows`` of the ``lessons``
    (seen observations, masks, targets), its share of the mean over the minibatch's ``total``
    lessons."""
    seen, mask, targets = lessons
    logits, _ = heads_of_rows(model, seen, rows, precision)
    losses = torch.nn.functional.cross_entropy(
        mask_logits(logits, mask[rows]), targets[rows], reduction="none"
    )
    return share_mean(losses, total)


def ppo_update(run, buf, advantages, returns, lessons, shares):
    """``update_epochs`` passes of clipped PPO over the learner's decisions of all ranks.

    Each rank computes its part of each minibatch's mean loss (advantages normalised over the
    whole minibatch) and the gradients are summed over the ranks before the step, so every rank
    takes the same step (``shares``: :func:`batch_shares`). During the warm-up each minibatch also
    takes its share of the lessons (imitation of the heuristic's auction decisions). With the
    oracle critic, the values come from it. Returns the last minibatch's losses (this rank's
    parts with several ranks) and the update's clip fraction.
    """
    config, model, optimizer, device = run.config, run.model, run.optimizer, run.device
    decisions = Shard.of(shares.decisions, run.ranks.rank)
    lesson_rows = Shard.of(shares.lessons, run.ranks.rank)
    count = decisions.count

    def tensor(array):
        return torch.from_numpy(array).to(device)

    # the suits are renamed once for all epochs (no parameters involved)
    b_seen = model.see(tensor(buf.obs[:count]))
    b_mask, b_actions = tensor(buf.mask[:count]), tensor(buf.action[:count])
    b_logprobs, b_values = tensor(buf.logprob[:count]), tensor(buf.value[:count])
    b_advantages, b_returns = tensor(advantages), tensor(returns)
    critic = run.critic  # the oracle critic sees the hidden cards too; renamed once as well
    critic_seen = (
        critic.see(tensor(buf.obs[:count]), tensor(buf.critic_extra[:count]))
        if critic is not None
        else None
    )
    taught = None  # the lessons: (seen observations, masks, target distributions)
    if lessons:
        lesson_obs, lesson_mask, lesson_targets = (
            tensor(np.concatenate(x)) for x in zip(*lessons, strict=True)
        )
        taught = (model.see(lesson_obs), lesson_mask, lesson_targets)

    precision = torch.autocast(
        device.type, torch.bfloat16, enabled=config.update_precision == "bfloat16"
    )
    zero = torch.zeros((), device=device)
    pg_loss, v_loss, entropy_loss, approx_kl, imitation = zero, zero, zero, zero, zero
    clipfracs = []
    for _epoch in range(config.update_epochs):
        order, epoch = minibatches(run, decisions, lesson_rows, device)
        statistics = (
            advantage_statistics(run, b_advantages, order, decisions)
            if config.norm_adv and run.ranks.world_size > 1
            else None
        )
        for mb in epoch:
            logits, new_value = heads_of_rows(model, b_seen, mb.rows, precision)
            if critic is not None and critic_seen is not None:
                with precision:
                    new_value = critic.from_seen(critic_seen[mb.rows]).float()
            log_probs = masked_log_probs(logits, b_mask[mb.rows])
            new_logprob = log_probs.gather(1, b_actions[mb.rows][:, None]).squeeze(1)
            entropy = masked_entropy(log_probs, b_mask[mb.rows])
            logratio = new_logprob - b_logprobs[mb.rows]
            ratio = logratio.exp()
            with torch.no_grad():  # sums of the approximate KL and of the clipped ratios
                kl_and_clipped = torch.stack(
                    [
                        ((ratio - 1) - logratio).sum(),
                        ((ratio - 1.0).abs() > config.clip_coef).to(ratio.dtype).sum(),
                    ]
                )
            mb_adv = b_advantages[mb.rows]
            if config.norm_adv:
                mb_adv = normalised(mb_adv, mb, statistics)
            loss, pg_loss, v_loss, entropy_loss = clipped_ppo_loss(
                config,
                ratio,
                mb_adv,
                new_value,
                b_values[mb.rows],
                b_returns[mb.rows],
                entropy,
                mb.size,
            )
            if mb.lessons is not None and taught is not None:
                imitation = imitation_loss(model, taught, mb.lessons, mb.lesson_size, precision)
                loss = loss + config.imitation_coef * imitation

            optimizer.zero_grad()
            loss.backward()
            kl_and_clipped = run.ranks.sum_gradients(run.trained_parameters(), kl_and_clipped)
            approx_kl = kl_and_clipped[0] / mb.size
            clipfracs.append(kl_and_clipped[1].item() / mb.size)
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
        "losses/imitation_loss": imitation.item(),
    }
