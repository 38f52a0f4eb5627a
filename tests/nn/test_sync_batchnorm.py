"""``nn.SyncBatchNorm`` (found missing by the twentieth corpus's Barlow Twins): in one process
it normalizes as the batch norms do, as PyTorch's does without a process group;
``convert_sync_batchnorm`` swaps a model's batch norms for it, keeping their parameters,
running statistics and mode. And the type aliases optimizers annotate with."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 4), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_normalizes_as_pytorchs(shape, training):
    data = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    found = []
    for lib in (jtensor, torch):
        m = lib.nn.SyncBatchNorm(3, momentum=0.3)
        m.train(training)
        x = lib.from_numpy(data.copy()).requires_grad_()
        y = m(x)
        (y * lib.arange(y.numel()).reshape(y.shape)).sum().backward()
        found.append(
            [t.detach().numpy() for t in (y, x.grad, m.weight.grad, m.running_mean, m.running_var)]
        )
        found[-1].append(int(m.num_batches_tracked))
        found[-1].append(repr(m))
    for mine, theirs in zip(*found, strict=True):
        if isinstance(mine, np.ndarray):
            np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-5)
        else:
            assert mine == theirs


@pytest.mark.parametrize("shape", [(3,), (4, 0, 2)])
def test_refuses_as_pytorch(shape):
    found = []
    for lib in (jtensor, torch):
        with pytest.raises(ValueError) as info:
            lib.nn.SyncBatchNorm(shape[1] if len(shape) > 1 else 3)(lib.zeros(shape))
        found.append(str(info.value))
    assert found[0] == found[1]


def test_convert_sync_batchnorm_keeps_parameters_statistics_and_mode():
    shown = []
    for lib in (jtensor, torch):
        nn = lib.nn
        net = nn.Sequential(
            nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Sequential(nn.BatchNorm2d(2, affine=False))
        )
        net[2][0].eval()
        with lib.no_grad():
            net[1].weight.fill_(2.0)
            net[1].running_mean.fill_(0.5)
        weight, mean = net[1].weight, net[1].running_mean
        converted = nn.SyncBatchNorm.convert_sync_batchnorm(net)
        assert converted is net  # (a container is changed in place)
        bn = converted[1]
        assert type(bn) is nn.SyncBatchNorm and bn.weight is weight
        assert bn.running_mean is mean and bn.process_group is None
        assert not converted[2][0].training and converted[2][0].weight is None
        single = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(5), process_group="g")
        assert type(single) is nn.SyncBatchNorm and single.process_group == "g"
        no_bias = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(2, bias=False))
        assert no_bias.bias is None
        shown.append(repr(converted) + repr(no_bias))
    assert shown[0] == shown[1]


def test_optimizer_type_aliases():
    from jtensor.optim import optimizer as mine
    from torch.optim import optimizer as theirs

    for name in ("ParamsT", "Args", "Kwargs", "StateDict"):
        assert repr(getattr(mine, name)).replace("jtensor", "torch") == repr(getattr(theirs, name))
