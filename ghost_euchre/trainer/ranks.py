"""Data-parallel ranks under torchrun: this process's place in the job, its device and the collectives.

A plain ``ghost-euchre-train`` is rank 0 of 1, where every collective is the identity.
"""

import dataclasses
import datetime
import os

import numpy as np
import torch
import torch.distributed as dist


class RankFailure(RuntimeError):
    """A collective with the other ranks failed: one of them stopped, or did not answer in time."""


def pick_device(setting, local_rank, cuda_available):
    """The torch.device of the config's ``device`` ('auto', 'cpu' or 'cuda') for the rank on GPU ``local_rank``."""
    if setting == "cuda" and not cuda_available:
        raise ValueError(
            "device is 'cuda', but torch sees no GPU (torch.cuda.is_available() is False)"
        )
    if setting == "cpu" or not cuda_available:
        return torch.device("cpu")
    return torch.device("cuda", local_rank)


def backend_for(device):
    """The torch.distributed backend between ranks on ``device``: NCCL for GPUs, gloo for CPUs."""
    return "nccl" if device.type == "cuda" else "gloo"


@dataclasses.dataclass(frozen=True)
class Ranks:
    """This process's place in a torchrun job (a plain ``ghost-euchre-train`` is rank 0 of 1) and its collectives.

    Each collective is the identity with one rank; with several, a failure or a
    wait longer than ``timeout`` seconds raises :class:`RankFailure`.
    """

    rank: int
    world_size: int
    device: torch.device
    timeout: float

    def _collective(self, what, call):
        try:
            return call()
        except RuntimeError as error:
            detail = (str(error).splitlines() or [type(error).__name__])[0]
            raise RankFailure(
                f"rank {self.rank} of {self.world_size}: stopping: {what} with the other ranks failed "
                f"(a rank stopped, or did not answer within collective_timeout={self.timeout:g} s): {detail}"
            ) from None

    def all_sum(self, values):
        """float64[M] summed over the ranks."""
        values = np.asarray(values, np.float64)
        if self.world_size == 1:
            return values
        tensor = torch.from_numpy(values).to(self.device)
        self._collective("summing metrics", lambda: dist.all_reduce(tensor))
        return tensor.cpu().numpy()

    def all_rows(self, counts):
        """int64[world_size, M]: every rank's ``counts`` (int[M]), by rank."""
        mine = torch.tensor(counts, dtype=torch.int64, device=self.device)
        if self.world_size == 1:
            return mine[None].cpu().numpy()
        every = [torch.zeros_like(mine) for _ in range(self.world_size)]
        self._collective("sharing batch sizes", lambda: dist.all_gather(every, mine))
        return torch.stack(every).cpu().numpy()

    def all_objects(self, value, what):
        """[value of rank 0, ..., value of rank world_size - 1] (picklable values)."""
        if self.world_size == 1:
            return [value]
        every = [None] * self.world_size
        self._collective(what, lambda: dist.all_gather_object(every, value))
        return every

    def sum_gradients(self, parameters, extra):
        """Replace each parameter's gradient by its sum over the ranks and return ``extra`` (float[M]) summed
        over the ranks too, all in one all-reduce (the gradients and a minibatch's statistics travel together).
        """
        if self.world_size == 1:
            return extra
        grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in parameters]
        sizes = [g.numel() for g in grads]
        flat = torch.cat([*(g.reshape(-1) for g in grads), extra.to(grads[0].dtype)])
        self._collective("averaging gradients", lambda: dist.all_reduce(flat))
        for parameter, piece in zip(parameters, flat.split([*sizes, len(extra)])[:-1], strict=True):
            parameter.grad = piece.view_as(parameter)
        return flat[-len(extra) :]


def default_threads():
    """Torch threads per rank for ``torch_threads: 0``: the cores this process may run on divided by the
    ranks on this machine (torchrun's LOCAL_WORLD_SIZE; 1 without torchrun), at least 1."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) // int(os.environ.get("LOCAL_WORLD_SIZE", "1")))


def start_ranks(config):
    """The :class:`Ranks` of this process; under torchrun (WORLD_SIZE > 1) it joins the job's process group."""
    rank, world_size = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
    device = pick_device(
        config.device, int(os.environ.get("LOCAL_RANK", "0")), torch.cuda.is_available()
    )
    if device.type == "cuda":
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # cuBLAS reproducible
        torch.cuda.set_device(device)
    if world_size > 1 and not dist.is_initialized():
        dist.init_process_group(
            backend_for(device),
            timeout=datetime.timedelta(seconds=config.collective_timeout),
            device_id=device if device.type == "cuda" else None,
        )
    return Ranks(rank, world_size, device, config.collective_timeout)


def same_config_on_every_rank(config, ranks):
    """``config`` with rank 0's run name; every rank must have been given the same config."""
    every = ranks.all_objects(dataclasses.asdict(config), "comparing configs")
    differ = sorted(
        k for values in every for k in values if k != "name" and values[k] != every[0][k]
    )
    if differ:
        raise ValueError(f"the ranks were given different configs: {differ} differ")
    return dataclasses.replace(config, name=every[0]["name"])


def rank_seed(seed, ranks):
    """The seed of this rank's games, roles and sampling: ``seed`` itself with one rank, else one drawn from
    (seed, rank), so the ranks' streams differ."""
    if ranks.world_size == 1:
        return seed
    return int(np.random.SeedSequence((seed, ranks.rank)).generate_state(1, np.uint64)[0] >> 1)
