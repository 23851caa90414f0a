"""Seat roles: who plays each seat of each game (the learner, a snapshot of the pool, the heuristic).

roles: int8[N, S] per game and seat, drawn at the start of every episode.
"""

import numpy as np
import torch

from agents.ppo import mask_logits, masked_log_probs, pool_logits, sample_actions

LEARNER = 0  # seat role; 1..pool_size = snapshot slot + 1; pool_size + 1 = heuristic; pool_size + 2 = partner


def assign_roles(roles, games, config, pool_filled, rng):
    """Draw the roles of the S seats of ``games`` (int[M]) for their new episode, in place.

    roles: int8[N, S]. Each seat is an opponent with probability opponent_share
    (one seat per game stays the learner); an opponent is the heuristic with
    probability heuristic_share, else a uniformly chosen snapshot of the pool.
    In classic Euchre a learner's partner is drawn like any other seat: the
    learner, a snapshot or the heuristic.
    """
    count, seats = len(games), roles.shape[1]
    opponent = rng.random((count, seats)) < config.opponent_share
    keep = rng.integers(seats, size=count)
    opponent[np.arange(count), keep] &= ~opponent.all(axis=1)
    heuristic = rng.random((count, seats)) < config.heuristic_share
    slot = rng.integers(pool_filled, size=(count, seats)) + 1
    roles[games] = np.where(opponent, np.where(heuristic, config.pool_size + 1, slot), LEARNER)


def act_opponents(actions, roles_now, obs, mask, run):
    """Fill ``actions`` for the games whose acting seat is not the network (roles_now int[N] != LEARNER).

    The pool's snapshots decide in one batch (:func:`agents.ppo.pool_logits`).
    Role pool_size + 2 is the learner's seat when ``run.partner`` (the
    ``bidding`` policy of learn='play') makes its decision.
    """
    config = run.config
    pooled = np.flatnonzero((roles_now > LEARNER) & (roles_now <= config.pool_size))
    if len(pooled):
        mask_t = torch.from_numpy(mask[pooled]).to(run.device)
        logits = pool_logits(
            run.pool, roles_now[pooled] - 1, torch.from_numpy(obs[pooled]).to(run.device)
        )
        if config.opponent_sample:
            chosen = sample_actions(masked_log_probs(logits, mask_t), run.sample_gen)
        else:
            chosen = mask_logits(logits, mask_t).argmax(-1)
        actions[pooled] = chosen.cpu().numpy()
    for role, policy in (
        (config.pool_size + 1, run.heuristic),
        (config.pool_size + 2, run.partner),
    ):
        games = np.flatnonzero(roles_now == role)
        if len(games):
            assert policy is not None  # a role is drawn only for a policy that exists
            actions[games] = policy.act(obs[games], mask[games])


def take_snapshot(run):
    """Every ``snapshot_every`` updates the network joins the opponent pool (oldest slot replaced)."""
    if run.update % run.config.snapshot_every == 0:
        run.pool[run.pool_added % run.config.pool_size].load_state_dict(run.model.state_dict())
        run.pool_added += 1
