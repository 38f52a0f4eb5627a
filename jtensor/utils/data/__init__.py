"""``jtensor.utils.data``: datasets, samplers, ``default_collate`` and ``DataLoader``, with
PyTorch's API (``torch.utils.data``).

>>> import jtensor as torch
>>> from jtensor.utils.data import DataLoader, TensorDataset
>>> loader = DataLoader(TensorDataset(torch.arange(6).view(3, 2)), batch_size=2)
>>> [batch[0].shape for batch in loader]
[torch.Size([2, 2]), torch.Size([1, 2])]
"""

from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset,
                      Subset, TensorDataset, random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)
from ._utils.collate import collate, default_collate, default_convert
from ._utils.worker import WorkerInfo, get_worker_info
from .dataloader import DataLoader, _DatasetKind  # noqa: F401
from .distributed import DistributedSampler
from . import _utils, distributed  # noqa: F401

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "WorkerInfo",
    "collate",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
