"""``DistributedSampler`` against PyTorch's: the same indices for the same dataset size,
replicas, rank, seed, epoch, shuffle and drop_last (jtensor's ``randperm`` replays PyTorch's
generator), and PyTorch's errors."""

import itertools

import pytest

import jtensor
from jtensor.utils.data import DataLoader, TensorDataset
from jtensor.utils.data.distributed import DistributedSampler

torch = pytest.importorskip("torch")
from torch.utils.data.distributed import DistributedSampler as TorchSampler  # noqa: E402


def _both(size, **kwargs):
    return DistributedSampler(range(size), **kwargs), TorchSampler(range(size), **kwargs)


@pytest.mark.parametrize("shuffle", [True, False])
@pytest.mark.parametrize("drop_last", [False, True])
def test_indices_match_torch(shuffle, drop_last):
    for size, replicas in itertools.product((0, 1, 2, 3, 5, 7, 10, 16, 33, 100), (1, 2, 3, 4, 8)):
        for rank in range(replicas):
            for seed in (0, 1, 1234):
                ours, theirs = _both(
                    size,
                    num_replicas=replicas,
                    rank=rank,
                    shuffle=shuffle,
                    seed=seed,
                    drop_last=drop_last,
                )
                assert (len(ours), ours.num_samples, ours.total_size) == (
                    len(theirs),
                    theirs.num_samples,
                    theirs.total_size,
                )
                for epoch in (0, 1, 5):
                    ours.set_epoch(epoch)
                    theirs.set_epoch(epoch)
                    assert list(ours) == list(theirs), (size, replicas, rank, seed, epoch)


def test_ranks_cover_the_dataset_and_epochs_differ():
    samplers = [DistributedSampler(range(10), num_replicas=3, rank=r) for r in range(3)]
    first = [list(s) for s in samplers]
    assert set(sum(first, [])) == set(range(10))
    assert all(len(f) == 4 for f in first)
    for s in samplers:
        s.set_epoch(1)
    assert [list(s) for s in samplers] != first
    assert samplers[0].epoch == 1


def test_padding_repeats_when_dataset_smaller_than_replicas():
    ours, theirs = _both(3, num_replicas=8, rank=7, shuffle=False)
    assert list(ours) == list(theirs) == [1]
    ours, theirs = _both(3, num_replicas=8, rank=7, shuffle=False, drop_last=True)
    assert list(ours) == list(theirs) == [] and len(ours) == 0


def test_with_dataloader_matches_torch():
    data = jtensor.arange(20.0).view(10, 2)
    loader = DataLoader(
        TensorDataset(data),
        batch_size=3,
        sampler=DistributedSampler(range(10), num_replicas=2, rank=1, seed=7),
    )
    tloader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.arange(20.0).view(10, 2)),
        batch_size=3,
        sampler=TorchSampler(range(10), num_replicas=2, rank=1, seed=7),
    )
    assert [b[0].tolist() for b in loader] == [b[0].tolist() for b in tloader]


@pytest.mark.parametrize(
    "kwargs",
    [dict(num_replicas=2, rank=2), dict(num_replicas=2, rank=-1), dict(num_replicas=1, rank=5)],
)
def test_invalid_rank_errors_match_torch(kwargs):
    with pytest.raises(ValueError) as theirs:
        TorchSampler(range(4), **kwargs)
    with pytest.raises(ValueError) as ours:
        DistributedSampler(range(4), **kwargs)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("kwargs", [{}, dict(num_replicas=2), dict(rank=0)])
def test_no_process_group_errors_match_torch(kwargs):
    with pytest.raises(Exception) as theirs:
        TorchSampler(range(4), **kwargs)
    with pytest.raises(Exception) as ours:
        DistributedSampler(range(4), **kwargs)
    assert isinstance(ours.value, type(theirs.value))
    assert str(ours.value) == str(theirs.value)


def test_exposed_like_torch():
    import jtensor.utils.data as data

    assert data.DistributedSampler is DistributedSampler
    assert "DistributedSampler" in data.__all__ and "DistributedSampler" in torch.utils.data.__all__
    assert data.distributed.DistributedSampler is DistributedSampler
    assert isinstance(DistributedSampler(range(2), num_replicas=1, rank=0), data.Sampler)
