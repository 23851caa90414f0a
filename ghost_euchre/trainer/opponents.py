"""Who sits at the table: seat roles (the learner, a snapshot of the pool, a fixed opponent of the
opponents' mix), the opponents' decisions, and the pool's snapshots.

roles: int8[N, S] per game and seat, drawn at the start of every episode.
"""

import numpy as np

from ghost_euchre.agents import make_policy
from ghost_euchre.agents.checked import CheckedPolicy
from ghost_euchre.agents.forward import probabilities, sampled_actions
from ghost_euchre.agents.networks import torch_forward
from ghost_euchre.trainer.config import POOL, read_spec
from ghost_euchre_env import variants

LEARNER = 0
"""seat role of the network being trained; 1..pool_size: pool slot + 1; pool_size + 1 + k: the mix's k-th
fixed opponent (every entry but 'pool', in order); after those (in ``role_now`` only, never drawn): the
learner's seat while ``run.partner`` decides for it (learn='play', :func:`partner_role`), then while the
warm-up's heuristic does (:func:`warmup_role`)"""


def fixed_specs(config):
    """The specs of the opponents' mix other than 'pool', in order (role pool_size + 1 + k is spec k)."""
    return [spec for spec, _ in config.opponent_mix() if spec != POOL]


def partner_role(config):
    """The role that stands for the learn='play' partner (the ``bidding`` policy) at the learner's seat."""
    return config.pool_size + 1 + len(fixed_specs(config))


def warmup_role(config):
    """The role that stands for the warm-up's heuristic at the learner's seat (the one after partner_role)."""
    return partner_role(config) + 1


def kind_names(config):
    """The kinds of player a learner meets, for its statistics: 'learner', each fixed spec, 'pool'."""
    mix = config.opponent_mix()
    return ["learner", *fixed_specs(config), *([POOL] if mix[-1][0] == POOL else [])]


def kind_of_role(config):
    """int64[partner_role]: the index in :func:`kind_names` of each seat role."""
    fixed = len(fixed_specs(config))
    pool_kind = len(kind_names(config)) - 1
    return np.array([0] + [pool_kind] * config.pool_size + list(range(1, fixed + 1)), np.int64)


def build_opponents(config, engine, heuristic, seed):
    """[Policy or None] of the fixed specs (:func:`fixed_specs`) for ``engine``; the warm-up's heuristic
    (``heuristic``, None when unused) plays 'heuristic', a spec of weight 0 (the default mix's heuristic
    when heuristic_share is 0) is None; the others are checked (:class:`ghost_euchre.agents.checked.CheckedPolicy`).
    A spec that cannot be built: ValueError naming opponents."""
    weights = dict(config.opponent_mix())
    policies = []
    for k, spec in enumerate(fixed_specs(config)):
        if not weights[spec] or not config.opponent_share:
            policies.append(None)  # never drawn
        elif spec == "heuristic" and heuristic is not None:
            policies.append(heuristic)
        else:
            try:
                policy = make_policy(read_spec(spec), engine, seed=seed + 2 + k)
            except ValueError as error:
                raise ValueError(f"opponents: {error}") from None
            policies.append(CheckedPolicy(policy, f"opponent {spec!r}"))
    return policies


def assign_roles(roles, games, config, pool_filled, rng):
    """Draw the roles of the S seats of ``games`` (int[M]) for their new episode, in place.

    roles: int8[N, S]. Each seat is an opponent with probability opponent_share
    (one seat per game stays the learner); an opponent is an entry of the
    opponents' mix with probability its weight (normalised), 'pool' a
    uniformly chosen snapshot of the pool. In classic Euchre a learner's partner
    is drawn like any other seat: the learner or an opponent (opponent_seats
    'other_team': the learner, both seats of the other team opponents).
    """
    count, seats = len(games), roles.shape[1]
    opponent = rng.random((count, seats)) < config.opponent_share
    keep = rng.integers(seats, size=count)
    opponent[np.arange(count), keep] &= ~opponent.all(axis=1)
    if config.opponent_seats == "other_team":  # classic: the kept seat's team learns
        team = variants.make(config.variant).teams
        opponent = team[None, :] != team[keep][:, None]
    weights = np.array([weight for _, weight in config.opponent_mix()], np.float64)
    bounds = np.cumsum(weights) / weights.sum()  # entry k when bounds[k - 1] <= draw < bounds[k]
    entry = np.searchsorted(bounds[:-1], rng.random((count, seats)), side="right")
    slot = rng.integers(pool_filled, size=(count, seats)) + 1
    fixed = len(fixed_specs(config))
    kind = np.where(entry < fixed, config.pool_size + 1 + entry, slot)
    roles[games] = np.where(opponent, kind, LEARNER)


def act_opponents(actions, roles_now, obs, mask, run):
    """Fill ``actions`` for the games whose acting seat is not the network (roles_now int[N] != LEARNER).

    Each snapshot of the pool decides on its rows by its forward pass without torch
    (``run.pool_players``), each fixed opponent in one call on its rows, as do ``run.partner`` (the
    ``bidding`` policy of learn='play') at the learner's seats (:func:`partner_role`)
    and the warm-up's heuristic (the role after it).
    """
    config = run.config
    for slot, player in enumerate(run.pool_players):
        games = np.flatnonzero(roles_now == slot + 1)
        if not len(games):
            continue
        if config.opponent_sample:
            chances = probabilities(player.logits(obs[games]), mask[games])
            actions[games] = sampled_actions(chances, run.sample_rng.random(len(games)))
        else:
            actions[games] = player.greedy(obs[games], mask[games])
    players = [*run.opponents, run.partner, run.heuristic]
    for role, policy in enumerate(players, config.pool_size + 1):
        games = np.flatnonzero(roles_now == role)
        if len(games):
            assert policy is not None  # a role is drawn only for a policy that exists
            actions[games] = policy.act(obs[games], mask[games])


def take_snapshot(run):
    """Every ``snapshot_every`` updates the network joins the opponent pool (oldest slot replaced)."""
    if run.update % run.config.snapshot_every == 0:
        slot = run.pool_added % run.config.pool_size
        run.pool[slot].load_state_dict(run.model.state_dict())
        run.pool_players[slot] = torch_forward(run.pool[slot])
        run.pool_added += 1
