"""Datasets: ``Dataset``, ``IterableDataset``, ``TensorDataset``, ``StackDataset``,
``ConcatDataset``, ``ChainDataset``, ``Subset`` and ``random_split``, with PyTorch's
behaviour and errors (``torch.utils.data.dataset``).

>>> import jtensor as torch
>>> from jtensor.utils.data import TensorDataset, ConcatDataset
>>> ds = TensorDataset(torch.arange(4), torch.arange(4) * 10)
>>> ds[1]
(tensor(1), tensor(10))
>>> both = ConcatDataset([ds, ds])
>>> len(both), both[-1]
(8, (tensor(3), tensor(30)))
"""

import bisect
import itertools
import math
import warnings
# typing's Iterable, not collections.abc's: as a base next to Generic (IterableDataset) the
# latter can fail with an inconsistent MRO (PyTorch keeps typing's for the same reason).
from typing import Generic, Iterable, TypeVar  # noqa: UP035

from ..._api import ops as _J
from ...random import default_generator

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "StackDataset",
    "ConcatDataset",
    "ChainDataset",
    "Subset",
    "random_split",
]

_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """An abstract map-style dataset: subclasses implement ``__getitem__`` (and usually
    ``__len__``, which samplers and ``DataLoader`` use). ``__getitems__(indices)`` may be
    added to fetch a whole batch at once. ``ds1 + ds2`` is a ``ConcatDataset``."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co], Iterable[_T_co]):
    """An iterable-style dataset: subclasses implement ``__iter__``.

    With ``num_workers > 0`` each worker iterates its own copy; splitting the work between
    workers (``get_worker_info()`` in ``__iter__`` or in ``worker_init_fn``) is the dataset's
    job, as in PyTorch. ``a + b`` is a ``ChainDataset``.
    """

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are ``tuple(t[index] for t in tensors)``; all tensors share their first size.

    >>> import jtensor as torch
    >>> TensorDataset(torch.zeros(3, 2), torch.zeros(4))
    Traceback (most recent call last):
    ...
    AssertionError: Size mismatch between tensors
    """

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Several datasets of one length side by side: ``StackDataset(a, b)[i] == (a[i], b[i])``,
    ``StackDataset(x=a, y=b)[i] == {"x": a[i], "y": b[i]}``."""

    def __init__(self, *args, **kwargs):
        if args:
            if kwargs:
                raise ValueError(
                    "Supported either ``tuple``- (via ``args``) or"
                    "``dict``- (via ``kwargs``) like input/output, but both types are given.")
            self._length = len(args[0])
            if any(self._length != len(dataset) for dataset in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets = args
        elif kwargs:
            tmp = list(kwargs.values())
            self._length = len(tmp[0])
            if any(self._length != len(dataset) for dataset in tmp):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def _column(self, dataset, indices):
        if callable(getattr(dataset, "__getitems__", None)):
            items = dataset.__getitems__(indices)
            if len(items) != len(indices):
                raise ValueError("Nested dataset's output size mismatch."
                                 f" Expected {len(indices)}, got {len(items)}")
            return items
        return [dataset[idx] for idx in indices]

    def __getitems__(self, indices):
        if isinstance(self.datasets, dict):
            batch = [{} for _ in indices]
            for k, dataset in self.datasets.items():
                for data, sample in zip(self._column(dataset, indices), batch, strict=True):
                    sample[k] = data
            return batch
        batch = [[] for _ in indices]
        for dataset in self.datasets:
            for data, sample in zip(self._column(dataset, indices), batch, strict=True):
                sample.append(data)
        return [tuple(sample) for sample in batch]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after the other; indices (negative ones too) are located
    with a bisection over ``cumulative_sizes``."""

    @staticmethod
    def cumsum(sequence):
        """Running totals of the datasets' lengths."""
        r, s = [], 0
        for e in sequence:
            n = len(e)
            r.append(n + s)
            s += n
        return r

    def __init__(self, datasets):
        super().__init__()
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        if dataset_idx == 0:
            sample_idx = idx
        else:
            sample_idx = idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]

    @property
    def cummulative_sizes(self):
        """Deprecated spelling of ``cumulative_sizes``."""
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`",
                      FutureWarning, stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Iterable datasets chained one after the other (lazily)."""

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices`` (``Subset(ds, idx)[i] == ds[idx[i]]``).

    A subclass that overrides ``__getitem__`` must override ``__getitems__`` too (PyTorch
    raises ``NotImplementedError`` otherwise, since ``DataLoader`` prefers ``__getitems__``).
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        if (type(self).__getitem__ is not Subset.__getitem__
                and type(self).__getitems__ is Subset.__getitems__):
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=default_generator):
    """Split ``dataset`` at random into non-overlapping ``Subset`` s of the given ``lengths``.

    Fractions summing to 1 become ``floor(frac * len(dataset))`` items each, the remainder
    handed out one by one round-robin from the first split (PyTorch's rule). The order comes
    from ``randperm`` with ``generator`` (PyTorch's stream: the same split for the same seed).

    >>> import jtensor as torch
    >>> [len(s) for s in random_split(range(10), [0.25, 0.25, 0.5])]
    [3, 2, 5]
    >>> random_split(range(10), [3, 3])
    Traceback (most recent call last):
    ...
    ValueError: Sum of input lengths does not equal the length of the input dataset!
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. "
                              f"This might result in an empty dataset.", stacklevel=2)

    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")

    indices = _J.randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths, strict=True)]

