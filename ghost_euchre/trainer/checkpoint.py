"""Checkpoints: everything a run needs to continue exactly, written atomically by rank 0 (weights only)."""

import dataclasses
import os

import numpy as np
import torch

from ghost_euchre.agents.networks import fit_weights, load_file, torch_forward
from ghost_euchre.plumbing.files import write_atomic
from ghost_euchre.trainer.failures import saved_checkpoints
from ghost_euchre.trainer.run import start_games

CHECKPOINT_FORMAT = "ghost-euchre-train-v1"
CHECKPOINT_KEYS = (  # what save_checkpoint writes and restore reads
    "config", "model", "model_config", "optimizer", "pool", "pool_added", "env_state", "roles", "rng",
    "update", "global_step", "learner_step",
)  # fmt: skip


def state_to_tensors(state):
    """The env's batch state as {field: (dtype, shape, uint8 tensor of the bytes)}: loads with weights_only."""
    out = {}
    for name, array in state.arrays().items():
        array = np.ascontiguousarray(array)
        out[name] = (
            array.dtype.str,
            list(array.shape),
            torch.from_numpy(array.reshape(-1).view(np.uint8).copy()),
        )
    return out


def state_from_tensors(state_class, saved):
    """Inverse of :func:`state_to_tensors`."""
    return state_class.from_arrays(
        {
            name: tensor.numpy().view(np.dtype(dtype)).reshape(shape)
            for name, (dtype, shape, tensor) in saved.items()
        }
    )


def read_checkpoint(path):
    """The dict saved by :func:`save_checkpoint` (weights only: no arbitrary objects are unpickled)."""
    payload = load_file(path, "training checkpoint")
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path!r} is not a training checkpoint (format {CHECKPOINT_FORMAT!r})")
    missing = [key for key in CHECKPOINT_KEYS if key not in payload]
    if missing:
        raise ValueError(f"checkpoint {path!r} is missing the key(s) {missing}")
    return payload


def _generator_state(policy):
    """The state of a policy's numpy generator ``rng`` (ghost_euchre.agents.base.Policy), None if it has none."""
    rng = getattr(policy, "rng", None)
    return rng.bit_generator.state if isinstance(rng, np.random.Generator) else None


def _set_generator_state(policy, state):
    if state is not None:
        policy.rng.bit_generator.state = state


def rank_state(run):
    """What is this rank's own: its games, seat roles and random generators."""
    rng = {
        "numpy": run.np_rng.bit_generator.state,
        "sample": run.sample_rng.bit_generator.state,
        "torch": torch.get_rng_state(),
    }
    if run.ranks.world_size > 1:
        rng["minibatch"] = run.minibatch_rng.bit_generator.state
    if run.heuristic is not None:
        rng["heuristic"] = run.heuristic.rng.bit_generator.state
    if run.partner is not None:
        rng["partner"] = _generator_state(run.partner)
    own = [p for p in run.opponents if p is not None and p is not run.heuristic]
    if own:  # the opponents' mix's own policies (the heuristic's is above)
        rng["opponents"] = [_generator_state(policy) for policy in own]
    return {
        "env_state": state_to_tensors(run.venv.state),
        "roles": torch.from_numpy(run.roles.copy()),
        "rng": rng,
    }


def restore(run, checkpoint):
    """Continue ``run`` (set up from the checkpoint's config, same world size) where ``checkpoint`` left it."""
    what = f"checkpoint of {run.config.name!r}"
    fit_weights(run.model, checkpoint["model"], f"the network of the {what}")
    for slot, weights in zip(run.pool, checkpoint["pool"], strict=True):
        fit_weights(slot, weights, f"the opponent pool of the {what}")
    if run.critic is not None:
        fit_weights(run.critic, checkpoint["critic"], f"the oracle critic of the {what}")
    run.optimizer.load_state_dict(checkpoint["optimizer"])
    run.pool_added = checkpoint["pool_added"]
    run.pool_players = [torch_forward(slot) for slot in run.pool]
    mine = checkpoint["other_ranks"][run.ranks.rank - 1] if run.ranks.rank else checkpoint
    state = state_from_tensors(type(run.venv.state), mine["env_state"])
    run.obs, run.mask, run.player = start_games(run.venv, state)
    run.roles = mine["roles"].numpy().copy()
    run.np_rng.bit_generator.state = mine["rng"]["numpy"]
    if run.ranks.world_size > 1:
        run.minibatch_rng.bit_generator.state = mine["rng"]["minibatch"]
    if isinstance(mine["rng"]["sample"], dict):  # a torch generator's state before NumPy sampled
        run.sample_rng.bit_generator.state = mine["rng"]["sample"]
    torch.set_rng_state(mine["rng"]["torch"])
    if run.heuristic is not None and "heuristic" in mine["rng"]:
        run.heuristic.rng.bit_generator.state = mine["rng"]["heuristic"]
    if run.partner is not None and "partner" in mine["rng"]:
        _set_generator_state(run.partner, mine["rng"]["partner"])
    own = [p for p in run.opponents if p is not None and p is not run.heuristic]
    for policy, state in zip(own, mine["rng"].get("opponents", [None] * len(own)), strict=True):
        _set_generator_state(policy, state)
    run.deals = checkpoint.get("deals", 0)
    run.update = checkpoint["update"]
    run.global_step = checkpoint["global_step"]
    run.learner_step = checkpoint["learner_step"]


def save_torch(payload, path):
    """torch.save ``payload`` to ``path``, atomically."""
    write_atomic(path, lambda handle: torch.save(payload, handle), binary=True)


def save_checkpoint(run, path):
    """Write everything :func:`restore` needs to ``path``, atomically: rank 0 writes, every rank takes part.

    The top level holds rank 0's games, roles and generators (a single-process
    checkpoint has nothing else); ``other_ranks`` those of ranks 1, 2, ...
    """
    every = run.ranks.all_objects(rank_state(run), "gathering the ranks' states for a checkpoint")
    if run.ranks.rank:
        return
    payload = {
        "format": CHECKPOINT_FORMAT,
        "config": dataclasses.asdict(run.config),
        "model": run.model.state_dict(),
        "model_config": dict(run.model.config),
        "optimizer": run.optimizer.state_dict(),
        **({"critic": run.critic.state_dict()} if run.critic is not None else {}),
        "pool": [slot.state_dict() for slot in run.pool],
        "pool_added": run.pool_added,
        **every[0],
        "update": run.update,
        "global_step": run.global_step,
        "learner_step": run.learner_step,
        "deals": run.deals,
    }
    if run.ranks.world_size > 1:
        payload["world_size"] = run.ranks.world_size
        payload["other_ranks"] = every[1:]
    save_torch(payload, path)


def periodic_checkpoint(run, run_dir):
    """Every ``checkpoint_every`` updates (not the last): :func:`update_checkpoint`."""
    config = run.config
    if (
        config.checkpoint_every
        and run.update % config.checkpoint_every == 0
        and run.update < run.num_updates
    ):
        update_checkpoint(run, run_dir)


def update_checkpoint(run, run_dir):
    """checkpoints/update_NNNNNN.pt of the update just played, the oldest beyond ``keep_checkpoints``
    pruned (every rank takes part, rank 0 writes); returns its path."""
    folder = os.path.join(run_dir, "checkpoints")
    path = os.path.join(folder, f"update_{run.update:06d}.pt")
    save_checkpoint(run, path)
    if run.ranks.rank:
        return path
    keep = run.config.keep_checkpoints
    for old in saved_checkpoints(folder)[:-keep] if keep else []:
        os.remove(os.path.join(folder, old))
    return path
