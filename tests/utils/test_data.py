"""``jtensor.utils.data``: datasets, samplers, collation and ``DataLoader`` (single process
and real worker processes), against PyTorch where it is installed.

Random orders come from jtensor's generator, so they are checked as permutations and for
reproducibility; everything deterministic (sequential batches, collate results, lengths,
errors) is compared with PyTorch."""

import collections
import os
import pickle
import time
import warnings

import numpy as np
import pytest

import jtensor
import jtensor.utils.data as jdata
from jtensor.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset,
                                IterableDataset, RandomSampler, SequentialSampler,
                                StackDataset, Subset, SubsetRandomSampler, TensorDataset,
                                WeightedRandomSampler, default_collate, default_convert,
                                get_worker_info, random_split)
from jtensor.utils.data._utils import worker as jworker

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

try:
    import torch
    import torch.utils.data as tdata
except ImportError:
    torch = tdata = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")

FORK = "fork" if "fork" in __import__("multiprocessing").get_all_start_methods() else None
needs_fork = pytest.mark.skipif(FORK is None, reason="the 'fork' start method is unavailable")

Point = collections.namedtuple("Point", ["x", "y"])


def plain(obj):
    """A library-neutral description of a (nested) result: tensors become
    ("T", dtype, shape, values); containers keep their kind."""
    if hasattr(obj, "dtype") and hasattr(obj, "tolist") and type(obj).__module__.split(".")[0] \
            in ("jtensor", "torch"):
        return ("T", str(obj.dtype), tuple(obj.shape), obj.tolist())
    if isinstance(obj, np.ndarray):
        return ("np", str(obj.dtype), obj.tolist())
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return ("namedtuple", type(obj).__name__, [plain(v) for v in obj])
    if isinstance(obj, tuple):
        return ("tuple", [plain(v) for v in obj])
    if isinstance(obj, list):
        return ("list", [plain(v) for v in obj])
    if isinstance(obj, dict):
        return (type(obj).__name__, {k: plain(v) for k, v in obj.items()})
    return (type(obj).__name__, obj)


def outcome(fn):
    """The result (plain) or (exception type name, message) of ``fn()``."""
    try:
        return ("ok", plain(fn()))
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        # jtensor's errors subclass the builtin PyTorch raises (TensorRuntimeError ...)
        builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
        return ("raise", builtin.__name__, str(e))


def lib_of(name):
    return (jtensor, jdata) if name == "jt" else (torch, tdata)


def both(build, message=True):
    """``build(lib, data)`` run with jtensor and with torch; outcomes must agree (for an
    error, its builtin type, and its message unless ``message=False``)."""
    ours = outcome(lambda: build(jtensor, jdata))
    theirs = outcome(lambda: build(torch, tdata))
    if not message and ours[0] == "raise":
        assert ours[:2] == theirs[:2]
        return ours
    assert ours == theirs
    return ours


# --------------------------------------------------------------------------- datasets

def test_tensor_dataset_indexes_every_tensor():
    ds = TensorDataset(jtensor.arange(6.).view(3, 2), jtensor.tensor([1, 2, 3]))
    assert len(ds) == 3
    x, y = ds[1]
    assert x.tolist() == [2.0, 3.0] and y.item() == 2
    assert [t.tolist() for t in ds[1:]] == [[[2.0, 3.0], [4.0, 5.0]], [2, 3]]
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(jtensor.zeros(3), jtensor.zeros(4))


@needs_torch
def test_tensor_dataset_matches_pytorch():
    both(lambda lib, d: list(d.TensorDataset(lib.arange(6.).view(3, 2), lib.arange(3))))
    both(lambda lib, d: d.TensorDataset(lib.zeros(3), lib.zeros(4)))
    both(lambda lib, d: d.TensorDataset(lib.arange(4))[-1])


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(f"index {i} out of range")
        return i * i


class Count(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


_COUNTERS = {}


def counter(d):
    """``Count`` built on ``d.IterableDataset`` (jtensor's or torch's)."""
    if d not in _COUNTERS:
        _COUNTERS[d] = type("Count", (d.IterableDataset,), {
            "__init__": Count.__init__, "__iter__": Count.__iter__, "__len__": Count.__len__})
    return _COUNTERS[d]


def test_concat_dataset_bisects_and_takes_negative_indices():
    ds = ConcatDataset([Squares(3), Squares(2), Squares(4)])
    assert len(ds) == 9 and ds.cumulative_sizes == [3, 5, 9]
    assert [ds[i] for i in range(9)] == [0, 1, 4, 0, 1, 0, 1, 4, 9]
    assert [ds[-i] for i in range(1, 10)] == [9, 4, 1, 0, 1, 0, 4, 1, 0]
    with pytest.raises(ValueError, match="absolute value of index"):
        ds[-10]
    with pytest.raises(IndexError):
        ds[9]
    assert len(Squares(2) + Squares(3)) == 5
    with pytest.raises(AssertionError, match="empty"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="IterableDataset"):
        ConcatDataset([Count(2)])
    with pytest.warns(FutureWarning):
        assert ds.cummulative_sizes == [3, 5, 9]


@needs_torch
def test_concat_subset_stack_chain_match_pytorch():
    def concat(lib, d, idx):
        ds = d.ConcatDataset([d.TensorDataset(lib.arange(3)), d.TensorDataset(lib.arange(10, 12))])
        return ds[idx]

    for idx in (0, 2, 3, 4, -1, -5, -6, 5):
        both(lambda lib, d, idx=idx: concat(lib, d, idx))
    both(lambda lib, d: d.ConcatDataset([]))
    both(lambda lib, d: d.ConcatDataset([d.TensorDataset(lib.arange(3))]).cumulative_sizes)
    both(lambda lib, d: [d.Subset(d.TensorDataset(lib.arange(5) * 2), [4, 0, 2])[i]
                         for i in range(3)])
    both(lambda lib, d: d.Subset(d.TensorDataset(lib.arange(5)), [4, 0]).__getitems__([1, 0]))
    both(lambda lib, d: d.StackDataset(lib.arange(3), lib.arange(3) + 5)[1])
    both(lambda lib, d: d.StackDataset(a=lib.arange(3), b=[7, 8, 9])[2])
    both(lambda lib, d: d.StackDataset(lib.arange(3), lib.arange(4)))
    both(lambda lib, d: d.StackDataset())
    both(lambda lib, d: d.StackDataset(lib.arange(3), b=lib.arange(3)))
    both(lambda lib, d: d.StackDataset(a=lib.arange(3), b=[7, 8, 9]).__getitems__([0, 2]))


def test_subset_getitems_and_subclass_rule():
    sub = Subset(Squares(6), [5, 1, 3])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [25, 1, 9]
    assert sub.__getitems__([2, 0]) == [9, 25]
    nested = Subset(TensorDataset(jtensor.arange(6)), [1, 2])
    assert [t.tolist() for t in nested[[0, 1]]] == [[1, 2]]

    class OnlyGetitem(Subset):
        def __getitem__(self, idx):
            return 0

    with pytest.raises(NotImplementedError, match="__getitems__"):
        OnlyGetitem(Squares(3), [0])


def test_chain_dataset_chains_iterables():
    ch = Count(2) + Count(3)
    assert isinstance(ch, ChainDataset)
    assert list(ch) == [0, 1, 0, 1, 2] and len(ch) == 5
    with pytest.raises(AssertionError, match="only supports IterableDataset"):
        list(ChainDataset([Squares(2)]))


def test_base_dataset_needs_getitem():
    with pytest.raises(NotImplementedError):
        Dataset()[0]
    with pytest.raises(NotImplementedError):
        iter(jdata.Sampler())


# --------------------------------------------------------------------------- random_split

@needs_torch
@pytest.mark.parametrize("n,lengths", [
    (10, [3, 7]), (30, [0.3, 0.3, 0.4]), (10, [0.25, 0.25, 0.5]), (7, [0.5, 0.5]),
    (5, [0.1, 0.9]), (3, [1 / 3, 1 / 3, 1 / 3]), (2, [0.2, 0.2, 0.6]), (10, [4, 4]),
    (10, [1.5, -0.5]), (10, [0.5, 0.6]), (0, [0.5, 0.5]), (10, [10]), (4, [1.0]),
])
def test_random_split_lengths_and_errors_match_pytorch(n, lengths):
    def build(lib, d):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            parts = d.random_split(range(n), lengths, generator=lib.Generator().manual_seed(0))
        return [len(p) for p in parts], sorted(str(w.message) for w in caught)

    both(build)


def test_random_split_partitions_reproducibly():
    a = random_split(range(20), [0.5, 0.3, 0.2], generator=jtensor.Generator().manual_seed(3))
    b = random_split(range(20), [0.5, 0.3, 0.2], generator=jtensor.Generator().manual_seed(3))
    parts = [list(p) for p in a]
    assert parts == [list(p) for p in b]
    assert [len(p) for p in parts] == [10, 6, 4]
    assert sorted(sum(parts, [])) == list(range(20))
    assert all(isinstance(p, Subset) for p in a)
    jtensor.manual_seed(5)
    c = [list(p) for p in random_split(range(20), [10, 10])]
    jtensor.manual_seed(5)
    assert c == [list(p) for p in random_split(range(20), [10, 10])]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(range(5), [2, 2])
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(range(5), [0.5, 1.2, -0.7])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(range(1), [0.2, 0.8])


# --------------------------------------------------------------------------- samplers

def test_random_sampler_permutations_and_reproducibility():
    data = range(10)
    order = list(RandomSampler(data, generator=jtensor.Generator().manual_seed(1)))
    assert sorted(order) == list(range(10))
    assert order == list(RandomSampler(data, generator=jtensor.Generator().manual_seed(1)))
    gen = jtensor.Generator().manual_seed(1)
    sampler = RandomSampler(data, generator=gen)
    assert list(sampler) != list(sampler)  # the generator advances between epochs
    jtensor.manual_seed(0)
    first = list(RandomSampler(data))
    jtensor.manual_seed(0)
    assert first == list(RandomSampler(data))

    long = list(RandomSampler(data, num_samples=25, generator=jtensor.Generator()))
    assert len(long) == 25
    counts = collections.Counter(long)
    assert all(counts[i] in (2, 3) for i in range(10))  # two full permutations + 5
    assert sorted(long[:10]) == list(range(10)) and sorted(long[10:20]) == list(range(10))
    assert len(set(long[20:])) == 5

    rep = list(RandomSampler(data, replacement=True, num_samples=70,
                             generator=jtensor.Generator().manual_seed(2)))
    assert len(rep) == 70 and all(0 <= i < 10 for i in rep) and len(set(rep)) < 70
    assert len(RandomSampler(data, replacement=True, num_samples=70)) == 70
    assert len(RandomSampler(data)) == 10


@needs_torch
def test_sampler_errors_and_lengths_match_pytorch():
    both(lambda lib, d: d.RandomSampler(range(3), replacement=1))
    both(lambda lib, d: d.RandomSampler(range(3), num_samples=0))
    both(lambda lib, d: d.RandomSampler(range(3), num_samples=2.0))
    both(lambda lib, d: d.RandomSampler(range(0)))
    both(lambda lib, d: len(d.RandomSampler(range(3), num_samples=7)))
    both(lambda lib, d: list(d.SequentialSampler(range(4))))
    both(lambda lib, d: len(d.SubsetRandomSampler([4, 5, 6])))
    both(lambda lib, d: sorted(d.SubsetRandomSampler([4, 5, 6])))
    both(lambda lib, d: d.WeightedRandomSampler([1.0, 2.0], 0))
    both(lambda lib, d: d.WeightedRandomSampler([1.0, 2.0], True))
    both(lambda lib, d: d.WeightedRandomSampler([1.0, 2.0], 2, replacement=0))
    both(lambda lib, d: d.WeightedRandomSampler([[1.0, 2.0]], 2))
    # jtensor's message adds the numbers: "... without replacement (3 > 2)"
    both(lambda lib, d: type(list(d.WeightedRandomSampler([1.0, 2.0], 3, replacement=False))),
         message=False)
    both(lambda lib, d: (len(d.WeightedRandomSampler([1, 2, 3], 5)),
                         str(d.WeightedRandomSampler([1, 2, 3], 5).weights.dtype)))
    both(lambda lib, d: sorted(d.WeightedRandomSampler([1.0, 0.0, 2.0], 2, replacement=False)))
    for bs in (1, 3, 4, 10, 11):
        for drop in (False, True):
            both(lambda lib, d, bs=bs, drop=drop: (list(d.BatchSampler(range(10), bs, drop)),
                                                   len(d.BatchSampler(range(10), bs, drop))))
    both(lambda lib, d: d.BatchSampler(range(10), 0, False))
    both(lambda lib, d: d.BatchSampler(range(10), -2, False))
    both(lambda lib, d: d.BatchSampler(range(10), True, False))
    both(lambda lib, d: d.BatchSampler(range(10), 2.0, False))
    both(lambda lib, d: d.BatchSampler(range(10), 2, 0))
    both(lambda lib, d: d.Sampler().__iter__())


def test_subset_and_weighted_samplers():
    order = list(SubsetRandomSampler([7, 3, 9], generator=jtensor.Generator().manual_seed(0)))
    assert sorted(order) == [3, 7, 9]
    w = WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 200, generator=jtensor.Generator())
    drawn = list(w)
    assert len(drawn) == 200 and set(drawn) <= {1, 3}
    assert collections.Counter(drawn)[3] > collections.Counter(drawn)[1]
    no_rep = list(WeightedRandomSampler([1.0, 1.0, 5.0], 3, replacement=False))
    assert sorted(no_rep) == [0, 1, 2]
    with pytest.raises(RuntimeError, match="without replacement"):
        list(WeightedRandomSampler([1.0, 1.0], 3, replacement=False))
    with pytest.raises(ValueError, match="1d sequence"):
        WeightedRandomSampler(np.ones((2, 2)), 2)
    assert list(BatchSampler(SequentialSampler(range(5)), 2, False)) == [[0, 1], [2, 3], [4]]
    with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
        BatchSampler(range(3), 0, False)


# --------------------------------------------------------------------------- collate

def collate_cases(lib):
    t = lib.tensor
    return [
        [t([1.0, 2.0]), t([3.0, 4.0])],
        [t([[1, 2]], dtype=lib.int32), t([[3, 4]], dtype=lib.int32)],
        [t(1.5), t(2.5)],
        [t([True]), t([False])],
        [np.array([1.0, 2.0], dtype=np.float32), np.array([3.0, 4.0], dtype=np.float32)],
        [np.array([[1, 2]]), np.array([[3, 4]])],
        [np.array(5, dtype=np.int16), np.array(6, dtype=np.int16)],
        [np.float64(1.5), np.float64(2.5)],
        [np.float32(1.5), np.float32(2.5)],
        [np.int32(1), np.int32(2)],
        [np.bool_(True), np.bool_(False)],
        [1, 2, 3],
        [1.0, 2.5],
        [True, False],
        [1, 2.5],
        ["a", "bc"],
        [b"x", b"y"],
        [(1, 2.0, "a"), (3, 4.0, "b")],
        [[1, 2], [3, 4]],
        [{"a": 1, "b": [1.0, 2.0]}, {"a": 2, "b": [3.0, 4.0]}],
        [collections.OrderedDict(x=t([1]), y=2), collections.OrderedDict(x=t([3]), y=4)],
        [Point(1, t([1.0])), Point(2, t([2.0]))],
        [{"img": t([[1.0]]), "label": 0, "meta": {"id": "u"}},
         {"img": t([[2.0]]), "label": 1, "meta": {"id": "v"}}],
        [(t([1.0]), 0), (t([2.0]), 1)],
        [[np.array([1.0]), "p"], [np.array([2.0]), "q"]],
        # errors
        [t([1.0, 2.0]), t([1.0])],
        [t([[1.0, 2.0]]), t([[1.0], [2.0]])],
        [[1, 2], [3]],
        [object(), object()],
        [np.array(["a"]), np.array(["b"])],
        [np.array([object()]), np.array([object()])],
        [None, None],
    ]


@needs_torch
@pytest.mark.parametrize("case", range(len(collate_cases(jtensor))))
def test_default_collate_matches_pytorch(case):
    def build(lib, d):
        result = d.default_collate(collate_cases(lib)[case])
        if isinstance(result, list) and result and isinstance(result[0], object) \
                and type(result[0]).__name__ == "object":
            return "objects"
        return result

    ours = outcome(lambda: build(jtensor, jdata))
    theirs = outcome(lambda: build(torch, tdata))
    if ours[0] == "raise" and "object at 0x" in ours[2]:
        assert ours[:2] == theirs[:2]
    else:
        assert ours == theirs


def test_default_collate_without_oracle():
    out = default_collate([jtensor.zeros(2), jtensor.ones(2)])
    assert out.shape == (2, 2) and out.dtype == jtensor.float32
    assert default_collate([1, 2]).dtype == jtensor.int64
    assert default_collate([1.0, 2.0]).dtype == jtensor.float64
    assert default_collate([True, False]).dtype == jtensor.bool
    assert default_collate([np.float64(1), np.float64(2)]).dtype == jtensor.float64
    assert default_collate(["a", "b"]) == ["a", "b"]
    p = default_collate([Point(0, 1.0), Point(1, 2.0)])
    assert type(p) is Point and p.x.tolist() == [0, 1] and p.y.dtype == jtensor.float64
    d = default_collate([{"k": (1, "a")}, {"k": (2, "b")}])
    assert d["k"][0].tolist() == [1, 2] and d["k"][1] == ("a", "b")
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        default_collate([jtensor.zeros(2), jtensor.zeros(3)])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal"):
        default_collate([[1, 2], [1]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
        default_collate([object()])


def test_collate_keeps_autograd_history():
    a = jtensor.ones(2, requires_grad=True)
    out = default_collate([a, a * 2])
    out.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


def convert_cases(lib):
    return [
        0, 1.5, "s", np.array([0, 1]), np.float64(2.0), np.int8(3),
        np.array(["a", "b"]), (np.array([1.0]), 2), [np.array([1]), np.array([2])],
        {"a": np.array([1, 2]), "b": "x"}, Point(np.array(0), np.array(1)),
        Point(0, 0), lib.tensor([1.0]), [[np.array([3])]], np.str_("z"),
    ]


@needs_torch
@pytest.mark.parametrize("case", range(len(convert_cases(jtensor))))
def test_default_convert_matches_pytorch(case):
    both(lambda lib, d: d.default_convert(convert_cases(lib)[case]))


def test_default_convert_without_oracle():
    assert default_convert(3) == 3
    out = default_convert({"a": np.array([1.0], dtype=np.float32), "b": [np.int64(2)]})
    assert out["a"].dtype == jtensor.float32 and out["b"][0].dtype == jtensor.int64
    assert default_convert((np.array(1), 2))[1] == 2


def test_collate_fn_map_extension():
    def tensor_as_list(batch, *, collate_fn_map):
        return [b.tolist() for b in batch]

    out = jdata.collate([jtensor.ones(1), jtensor.zeros(1)],
                        collate_fn_map={jtensor.Tensor: tensor_as_list})
    assert out == [[1.0], [0.0]]


# --------------------------------------------------------------------------- DataLoader

def make_ds(lib, n=10):
    return lib.utils.data.TensorDataset(lib.arange(float(n)).view(n, 1), lib.arange(n))


@needs_torch
@pytest.mark.parametrize("batch_size", [1, 3, 4, 10, 12, None])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sequential_loading_matches_pytorch(batch_size, drop_last):
    def build(lib, d):
        dl = d.DataLoader(make_ds(lib), batch_size=batch_size, drop_last=drop_last)
        return len(dl), list(dl), list(dl)

    both(build)


class DictData(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": np.full((2,), i, dtype=np.float32), "y": i, "name": f"s{i}",
                "p": (float(i), [i, -i])}


@needs_torch
def test_loader_variants_match_pytorch():
    def loader(**kw):
        def build(lib, d):
            opts = dict(kw)
            data = opts.pop("data", None)
            ds = make_ds(lib) if data is None else data(d) if callable(data) else data
            dl = d.DataLoader(ds, **opts)
            return len(dl), list(dl)

        return build

    both(loader(data=DictData(), batch_size=2))
    both(loader(data=DictData(), batch_size=None))
    both(loader(data=Squares(5), batch_size=2))
    both(loader(data=[1.0, 2.0, 3.0], batch_size=2))
    both(loader(data=list(range(5)), batch_sampler=[[3, 1], [0], [4, 2]]))
    both(loader(data=list(range(5)), sampler=[4, 3, 2, 1, 0], batch_size=2))
    both(loader(data=list(range(6)), sampler=[4, 3, 2, 1, 0], batch_size=2, drop_last=True))
    both(loader(data=list(range(5)), batch_size=2, collate_fn=lambda b: sum(b)))
    both(loader(data=lambda d: d.StackDataset(a=list(range(5)), b=DictData()), batch_size=3))
    both(loader(data=lambda d: d.Subset(DictData(), [4, 0, 2]), batch_size=2))
    both(loader(data=lambda d: d.ConcatDataset([Squares(2), DictData()]), batch_size=None))
    both(loader(data=list(range(5)), batch_size=None, collate_fn=lambda b: b * 10))
    both(loader(data=lambda d: counter(d)(7), batch_size=3))
    both(loader(data=lambda d: counter(d)(7), batch_size=3, drop_last=True))
    both(loader(data=lambda d: counter(d)(7), batch_size=None))


@needs_torch
def test_option_conflicts_match_pytorch():
    cases = [
        dict(sampler=[0, 1], shuffle=True),
        dict(batch_sampler=[[0]], batch_size=2),
        dict(batch_sampler=[[0]], shuffle=True),
        dict(batch_sampler=[[0]], sampler=[0]),
        dict(batch_sampler=[[0]], drop_last=True),
        dict(batch_size=None, drop_last=True),
        dict(num_workers=-1),
        dict(timeout=-1),
        dict(prefetch_factor=2),
        dict(num_workers=1, prefetch_factor=-1),
        dict(persistent_workers=True),
        dict(multiprocessing_context="fork"),
        dict(num_workers=1, multiprocessing_context="bogus"),
        dict(num_workers=1, multiprocessing_context=3),
        dict(batch_size=0),
        dict(batch_size=-1),
        dict(batch_size=2.5),
        dict(drop_last=1),
        dict(shuffle=True, sampler=None),
        dict(batch_sampler=[[0]], batch_size=1, shuffle=False, drop_last=False),
    ]
    for kw in cases:
        both(lambda lib, d, kw=kw: (d.DataLoader(list(range(4)), **kw).batch_size, "built"))
    for kw in [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]]),
               dict(shuffle=False)]:
        both(lambda lib, d, kw=kw: (d.DataLoader(counter(d)(3), **kw).batch_size, "built"))

    def set_attr(lib, d):
        dl = d.DataLoader(list(range(4)))
        dl.num_workers = 0
        dl.batch_size = 3

    both(set_attr)
    both(lambda lib, d: len(d.DataLoader(counter(d)(7), batch_size=None)))
    both(lambda lib, d: len(d.DataLoader(counter(d)(7), batch_size=2)))
    both(lambda lib, d: len(d.DataLoader(counter(d)(7), batch_size=2, drop_last=True)))
    both(lambda lib, d: list(d.DataLoader(counter(d)(5), batch_size=2)))


def test_option_errors_without_oracle():
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(list(range(3)), sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(list(range(3)), batch_sampler=[[0]], batch_size=2)
    with pytest.raises(ValueError, match="batch_size=None option disables auto-batching"):
        DataLoader(list(range(3)), batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Count(3), shuffle=True)
    with pytest.raises(ValueError, match="should not be set after DataLoader is initialized"):
        DataLoader(list(range(3))).batch_size = 2


def test_defaults_and_iterating_twice():
    dl = DataLoader(make_ds(jtensor, 5))
    assert dl.batch_size == 1 and dl.num_workers == 0 and dl.prefetch_factor is None
    assert dl.collate_fn is default_collate and isinstance(dl.sampler, SequentialSampler)
    assert isinstance(dl.batch_sampler, BatchSampler) and len(dl) == 5
    first = [(x.tolist(), y.tolist()) for x, y in dl]
    assert first == [(x.tolist(), y.tolist()) for x, y in dl]
    assert first[0] == ([[0.0]], [0])
    it = iter(dl)
    assert len(it) == 5 and iter(it) is it
    with pytest.raises(NotImplementedError):
        pickle.dumps(it)
    assert DataLoader(list(range(3)), batch_size=None).collate_fn is default_convert
    assert DataLoader(list(range(3)), num_workers=1).prefetch_factor == 2


def test_shuffle_is_a_permutation_and_reproducible():
    ds = make_ds(jtensor, 17)
    gen = jtensor.Generator().manual_seed(0)
    dl = DataLoader(ds, batch_size=4, shuffle=True, generator=gen)
    assert isinstance(dl.sampler, RandomSampler) and len(dl) == 5
    epoch1 = [y.tolist() for _, y in dl]
    epoch2 = [y.tolist() for _, y in dl]
    assert sorted(sum(epoch1, [])) == list(range(17)) == sorted(sum(epoch2, []))
    assert [len(b) for b in epoch1] == [4, 4, 4, 4, 1]
    assert epoch1 != epoch2  # reshuffled every epoch
    again = DataLoader(ds, batch_size=4, shuffle=True,
                       generator=jtensor.Generator().manual_seed(0))
    assert [y.tolist() for _, y in again] == epoch1
    jtensor.manual_seed(123)
    a = [y.tolist() for _, y in DataLoader(ds, batch_size=5, shuffle=True)]
    jtensor.manual_seed(123)
    assert a == [y.tolist() for _, y in DataLoader(ds, batch_size=5, shuffle=True)]
    for x, y in DataLoader(ds, batch_size=3, shuffle=True):
        assert x.view(-1).tolist() == [float(v) for v in y.tolist()]  # rows stay together


def test_pin_memory_is_accepted_on_cpu():
    ds = make_ds(jtensor, 4)
    with pytest.warns(UserWarning, match="no accelerator is found"):
        batches = list(DataLoader(ds, batch_size=2, pin_memory=True))
    assert [y.tolist() for _, y in batches] == [[0, 1], [2, 3]]
    assert batches[0][0].device.type == "cpu"


def test_iterable_dataset_length_warning():
    dl = DataLoader(Count(4), batch_size=None)
    assert len(dl) == 4

    class Lying(Count):
        def __len__(self):
            return 2

    dl = DataLoader(Lying(4), batch_size=None)
    assert len(dl) == 2
    with pytest.warns(UserWarning, match="was reported to be 2"):
        assert len(list(dl)) == 4


def test_tqdm_over_a_dataloader():
    dl = DataLoader(make_ds(jtensor, 10), batch_size=3)
    # what a progress bar needs: len() and iteration
    assert len(dl) == 4 and sum(1 for _ in dl) == 4
    tqdm = pytest.importorskip("tqdm")
    bar = tqdm.tqdm(dl, disable=False, file=open(os.devnull, "w"))
    assert bar.total == 4 and sum(1 for _ in bar) == 4


def test_get_worker_info_is_none_in_main_process():
    assert get_worker_info() is None


def test_tensors_pickle_across_processes():
    t = jtensor.arange(6.).view(2, 3).t()
    back = pickle.loads(pickle.dumps(t))
    assert back.tolist() == t.tolist() and back.dtype == t.dtype


def test_exception_wrapper_reraise_formats():
    try:
        {}["missing"]
    except KeyError:
        wrapped = jworker.ExceptionWrapper(where="in DataLoader worker process 3")
    wrapped = pickle.loads(pickle.dumps(wrapped))
    with pytest.raises(KeyError) as info:
        wrapped.reraise()
    assert str(info.value).startswith("Caught KeyError in DataLoader worker process 3.")
    assert "Original Traceback" in str(info.value)


@needs_torch
def test_worker_seed_hash_matches_pytorch():
    from torch.utils.data._utils.worker import _generate_state

    for base, wid in [(0, 0), (12345678901234, 3), (2 ** 63 - 1, 7)]:
        assert jworker._generate_state(base, wid) == _generate_state(base, wid)


# --------------------------------------------------------------------------- workers

class WhoLoads(Dataset):
    """Each sample says which worker produced it (and that worker's info)."""

    def __len__(self):
        return 12

    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "worker": info.id, "num_workers": info.num_workers,
                "seed": info.seed, "same_dataset": info.dataset is self,
                "pid": os.getpid(), "rand": float(jtensor.rand(()).item())}


class Failing(Dataset):
    def __init__(self, exc):
        self.exc = exc

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise self.exc
        return i


class Slow(Dataset):
    """Early indices are slow: results arrive out of order but must come back in order."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        time.sleep(0.05 if i % 2 == 0 else 0.0)
        return i


class Sharded(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        per = -(-(self.end - self.start) // info.num_workers)
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))


class Dies(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if get_worker_info().id == 1:
            os._exit(3)
        time.sleep(0.5)
        return i


class Sleepy(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(1.0)
        return i


def _record_init(worker_id):
    info = get_worker_info()
    info.dataset.init_ids = (worker_id, info.id)


class InitRecorder(Dataset):
    init_ids = None

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.init_ids


@needs_fork
def test_workers_give_the_same_batches_in_order():
    ds = make_ds(jtensor, 23)
    single = [(x.tolist(), y.tolist()) for x, y in DataLoader(ds, batch_size=4)]
    dl = DataLoader(ds, batch_size=4, num_workers=2, multiprocessing_context=FORK)
    assert [(x.tolist(), y.tolist()) for x, y in dl] == single
    assert [(x.tolist(), y.tolist()) for x, y in dl] == single  # a second epoch
    assert len(dl) == 6
    slow = DataLoader(Slow(), batch_size=1, num_workers=2, multiprocessing_context=FORK)
    assert [b.item() for b in slow] == list(range(8))
    unbatched = DataLoader(Slow(), batch_size=None, num_workers=2, prefetch_factor=1,
                           multiprocessing_context=FORK)
    assert [b for b in unbatched] == list(range(8))


@needs_fork
def test_workers_are_real_processes_with_worker_info():
    dl = DataLoader(WhoLoads(), batch_size=2, num_workers=2, multiprocessing_context=FORK,
                    generator=jtensor.Generator().manual_seed(7))
    batches = list(dl)
    assert [b["i"].tolist() for b in batches] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9],
                                                  [10, 11]]
    workers = [b["worker"].tolist() for b in batches]
    assert workers == [[0, 0], [1, 1], [0, 0], [1, 1], [0, 0], [1, 1]]  # round robin
    pids = {p for b in batches for p in b["pid"].tolist()}
    assert len(pids) == 2 and os.getpid() not in pids
    assert all(b["num_workers"].tolist() == [2, 2] for b in batches)
    assert all(all(b["same_dataset"].tolist()) for b in batches)  # info.dataset: the copy
    seeds = {w: s for b in batches
             for w, s in zip(b["worker"].tolist(), b["seed"].tolist(), strict=True)}
    assert seeds[1] == seeds[0] + 1  # base_seed + worker_id
    # the base seed comes from the loader's generator: same generator state, same seeds
    again = list(DataLoader(WhoLoads(), batch_size=2, num_workers=2,
                            multiprocessing_context=FORK,
                            generator=jtensor.Generator().manual_seed(7)))
    assert [b["seed"].tolist() for b in again] == [b["seed"].tolist() for b in batches]
    assert [b["rand"].tolist() for b in again] == [b["rand"].tolist() for b in batches]
    # workers are seeded differently, so their random streams differ
    assert batches[0]["rand"].tolist() != batches[1]["rand"].tolist()


@needs_fork
@pytest.mark.parametrize("exc,typ", [(ValueError("bad sample 5"), ValueError),
                                     (KeyError("k5"), KeyError),
                                     (IndexError("out of range"), IndexError)])
def test_worker_exception_is_reraised_with_worker_id(exc, typ):
    dl = DataLoader(Failing(exc), batch_size=2, num_workers=2, multiprocessing_context=FORK)
    got = []
    with pytest.raises(typ) as info:
        for batch in dl:
            got.append(batch.tolist())
    assert got == [[0, 1], [2, 3]]  # batch [4, 5] (task 2, worker 0) fails next
    msg = str(info.value)
    assert "Caught " + typ.__name__ + " in DataLoader worker process 0." in msg
    assert "Original Traceback" in msg and str(exc).strip("'") in msg


@needs_fork
def test_worker_init_fn_and_iterable_sharding():
    dl = DataLoader(InitRecorder(), batch_size=None, num_workers=2,
                    worker_init_fn=_record_init, multiprocessing_context=FORK)
    assert [tuple(x) for x in dl] == [(0, 0), (1, 1), (0, 0), (1, 1)]
    sharded = DataLoader(Sharded(3, 10), batch_size=2, num_workers=2,
                         multiprocessing_context=FORK)
    got = [b.tolist() for b in sharded]
    assert got == [[3, 4], [7, 8], [5, 6], [9]]  # worker 0 has 3..6, worker 1 has 7..9
    assert sorted(sum(got, [])) == list(range(3, 10))
    # without sharding each worker yields the whole dataset (the user's job, as in torch)
    dup = DataLoader(Count(3), batch_size=None, num_workers=2, multiprocessing_context=FORK)
    assert sorted(dup) == [0, 0, 1, 1, 2, 2]


@needs_fork
def test_worker_init_fn_error_is_reraised():
    def bad_init(worker_id):
        raise RuntimeError(f"init failed in {worker_id}")

    dl = DataLoader(Squares(4), num_workers=1, worker_init_fn=bad_init,
                    multiprocessing_context=FORK)
    with pytest.raises(RuntimeError, match="Caught RuntimeError in DataLoader worker process 0"):
        list(dl)


@needs_fork
def test_persistent_workers_survive_epochs():
    dl = DataLoader(WhoLoads(), batch_size=3, num_workers=2, persistent_workers=True,
                    multiprocessing_context=FORK)
    pids1 = {p for b in dl for p in b["pid"].tolist()}
    pids2 = {p for b in dl for p in b["pid"].tolist()}
    assert pids1 == pids2 and len(pids1) == 2
    assert [b["i"].tolist() for b in dl] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]
    sharded = DataLoader(Sharded(0, 5), batch_size=2, num_workers=2, persistent_workers=True,
                         multiprocessing_context=FORK)
    first = [b.tolist() for b in sharded]
    assert first == [[0, 1], [3, 4], [2]] == [b.tolist() for b in sharded]
    assert dl._iterator is iter(dl)  # one iterator, reset for each epoch


@needs_fork
def test_dead_worker_and_timeout_raise(monkeypatch):
    monkeypatch.setattr(jworker, "MP_STATUS_CHECK_INTERVAL", 0.2)
    dl = DataLoader(Dies(), batch_size=1, num_workers=2, multiprocessing_context=FORK)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited "
                                           "unexpectedly"):
        list(dl)
    dl = DataLoader(Sleepy(), batch_size=1, num_workers=1, timeout=0.2,
                    multiprocessing_context=FORK)
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.2 seconds"):
        list(dl)


@needs_fork
def test_out_of_order_delivery_when_asked():
    dl = DataLoader(Slow(), batch_size=None, num_workers=2, in_order=False,
                    multiprocessing_context=FORK)
    got = list(dl)
    assert sorted(got) == list(range(8))


def test_spawn_context_works():
    import multiprocessing

    if "spawn" not in multiprocessing.get_all_start_methods():
        pytest.skip("no spawn start method")
    ds = make_ds(jtensor, 5)
    dl = DataLoader(ds, batch_size=2, num_workers=1, multiprocessing_context="spawn")
    assert [y.tolist() for _, y in dl] == [[0, 1], [2, 3], [4]]


@needs_torch
@needs_fork
def test_worker_results_match_pytorch_workers():
    def build(lib, d):
        ds = d.TensorDataset(lib.arange(14.).view(7, 2), lib.arange(7))
        return list(d.DataLoader(ds, batch_size=3, num_workers=2,
                                 multiprocessing_context=FORK))

    both(build)

    def failing(lib, d):
        return list(d.DataLoader(Failing(ValueError("x")), batch_size=2, num_workers=1,
                                 multiprocessing_context=FORK))

    ours, theirs = outcome(lambda: failing(jtensor, jdata)), outcome(lambda: failing(torch,
                                                                                      tdata))
    assert ours[:2] == theirs[:2]
    assert ours[2].splitlines()[0] == theirs[2].splitlines()[0]


def test_too_many_workers_warns():
    with pytest.warns(UserWarning, match="This DataLoader will create 999 worker processes"):
        DataLoader(list(range(3)), num_workers=999)


@needs_torch
def test_warnings_match_pytorch():
    def build(lib, d):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            d.DataLoader(list(range(3)), num_workers=999)
            batches = list(d.DataLoader(list(range(3)), pin_memory=True,
                                        pin_memory_device="cuda"))
        return batches, [(w.category.__name__, str(w.message)) for w in caught]

    both(build)


def test_stack_dataset_in_a_loader():
    ds = StackDataset(x=jtensor.arange(4.), y=[10, 11, 12, 13])
    batches = list(DataLoader(ds, batch_size=3))
    assert [b["x"].tolist() for b in batches] == [[0.0, 1.0, 2.0], [3.0]]
    assert [b["y"].tolist() for b in batches] == [[10, 11, 12], [13]]


@pytest.mark.parametrize("name", ["jtensor.utils.data", "jtensor.utils.data.dataset",
                                  "jtensor.utils.data.sampler", "jtensor.utils.data.dataloader",
                                  "jtensor.utils.data._utils.collate",
                                  "jtensor.utils.data._utils.worker"])
def test_docstring_examples(name):
    # tests/test_docstrings.py does not reach sub-packages of jtensor.utils
    import doctest
    import importlib

    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0
