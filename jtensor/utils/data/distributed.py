"""``DistributedSampler`` (``torch.utils.data.distributed``): each of ``num_replicas``
processes loads its own share of a map-style dataset, the same every run for the same
``seed`` and epoch. The indices are PyTorch's (jtensor's ``randperm`` replays PyTorch's
generator), so a program split across ranks visits the data in PyTorch's order.

>>> from jtensor.utils.data.distributed import DistributedSampler
>>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
[1, 3, 0]
"""

import math

from ..._api import ops as _J
from ...random import Generator
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """The indices of ``dataset`` that rank ``rank`` of ``num_replicas`` loads: a permutation
    drawn from a generator seeded with ``seed + epoch`` (``shuffle=True``) or ``0 ..
    len - 1``, made a multiple of ``num_replicas`` long by repeating indices from its start
    (``drop_last=False``) or dropping its tail (``drop_last=True``), then every
    ``num_replicas``-th from ``rank``. Call ``set_epoch(epoch)`` before each epoch for a new
    order. ``num_replicas`` and ``rank`` default to the process group's world size and rank;
    jtensor runs no process group, so without them PyTorch's error for an uninitialised one
    is raised."""

    def __init__(
        self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False
    ):
        if num_replicas is None or rank is None:
            from ... import distributed as dist

            # (jtensor's process-group functions raise PyTorch's ValueError for a group that
            # was never initialised, as ``torch.distributed`` does in a single process)
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        size = len(dataset)
        if drop_last and size % num_replicas != 0:
            # the largest multiple of num_replicas that fits: every rank gets as many
            self.num_samples = math.ceil((size - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(size / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        size = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = _J.randperm(size, generator=g).tolist()
        else:
            indices = list(range(size))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[: self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(
                f"Number of indices ({len(indices)}) does not match total_size ({self.total_size})"
            )
        indices = indices[self.rank : self.total_size : self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(
                f"Number of subsampled indices ({len(indices)}) does not match num_samples "
                f"({self.num_samples})"
            )
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Set the epoch: with ``shuffle=True`` each epoch has its own order (the same on
        every rank)."""
        self.epoch = epoch
