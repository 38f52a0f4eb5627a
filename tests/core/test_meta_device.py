"""The ``meta`` device: tensors with shape, dtype and strides and no data, against PyTorch."""

import copy

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def both(fn):
    """``fn(lib)`` run with jtensor and with torch."""
    return fn(jtensor), fn(torch)


def meta_facts(t):
    return (
        t.device.type,
        t.is_meta,
        tuple(t.shape),
        t.stride(),
        t.storage_offset(),
        str(t.dtype),
        t.requires_grad,
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.empty(2, 3, device="meta"),
        lambda L: L.zeros(4, dtype=L.int64, device="meta"),
        lambda L: L.ones((), device="meta", requires_grad=True),
        lambda L: L.randn(3, 5, device="meta"),
        lambda L: L.arange(5, device="meta"),
        lambda L: L.tensor([1.0, 2.0], device="meta"),
        lambda L: L.full((2, 2), 7, device="meta"),
        lambda L: L.zeros(2, 3, dtype=L.float64).to("meta"),
        lambda L: L.ones(2, 3).t().to("meta"),
        lambda L: L.empty_like(L.ones(2, 3), device="meta"),
        lambda L: L.zeros_like(L.empty(3, device="meta")),
        lambda L: L.empty(3, device="meta").new_empty(2, 2),
    ],
    ids=range(12),
)
def test_creation_gives_meta_tensors_with_pytorch_metadata_and_repr(make):
    mine, theirs = both(make)
    assert meta_facts(mine) == meta_facts(theirs)
    assert repr(mine) == repr(theirs)
    assert mine.untyped_storage().nbytes() == theirs.untyped_storage().nbytes()
    assert mine.data_ptr() == theirs.data_ptr() == 0


@pytest.mark.parametrize(
    "op",
    [
        lambda x: x.view(3, 8),
        lambda x: x.t(),
        lambda x: x[1:, ::2],
        lambda x: x[2],
        lambda x: x.unsqueeze(0).expand(5, 4, 6),
        lambda x: x.permute(1, 0).contiguous(),
        lambda x: x.permute(1, 0).clone(),
        lambda x: x.reshape(-1),
        lambda x: x.t().reshape(-1),
        lambda x: x.sum(0),
        lambda x: x.mean(),
        lambda x: x * 2 + 1,
        lambda x: x.exp().relu(),
        lambda x: x @ x.t(),
        lambda x: x.to(jtensor.float64 if isinstance(x, jtensor.Tensor) else torch.float64),
        lambda x: x.chunk(2, 1)[1],
    ],
    ids=range(16),
)
def test_views_and_ops_compute_metadata_only(op):
    mine, theirs = both(lambda L: op(L.empty(4, 6, device="meta")))
    assert meta_facts(mine) == meta_facts(theirs)


def test_in_place_ops_and_copies_into_meta_keep_it_meta():
    for L in (jtensor, torch):
        x = L.zeros(2, 3, device="meta")
        assert x.add_(1).is_meta
        assert x.copy_(L.ones(2, 3)).is_meta
        assert repr(x) == "tensor(..., device='meta', size=(2, 3))"


@pytest.mark.parametrize(
    "access",
    [
        lambda x: x[0, 0].item(),
        lambda x: x.tolist(),
        lambda x: x.numpy(),
        lambda x: x.cpu(),
        lambda x: x.to("cpu"),
        lambda x: np.asarray(x),
        lambda x: float(x.sum()),
        lambda x: bool(x.sum()),
        lambda x: None if isinstance(x, torch.Tensor) else jtensor.zeros(2, 3).copy_(x),
    ],
    ids=range(9),
)
def test_reading_values_raises_pytorch_errors(access):
    if access(torch.empty(2, 3)) is None:  # the copy_ case, written for each library below
        for L in (jtensor, torch):
            with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
                L.zeros(2, 3).copy_(L.empty(2, 3, device="meta"))
        return
    outcomes = []
    for L in (jtensor, torch):
        with pytest.raises(Exception) as info:
            access(L.empty(2, 3, device="meta"))
        outcomes.append((type(info.value), str(info.value)))
    assert outcomes[0] == outcomes[1]


def test_mixing_a_meta_and_a_cpu_tensor_raises_but_a_cpu_scalar_tensor_broadcasts():
    x = jtensor.empty(2, 3, device="meta")
    with pytest.raises(RuntimeError, match="meta"):
        x + jtensor.ones(2, 3)
    assert (x + jtensor.tensor(1.0)).is_meta


def test_backward_on_meta_gives_a_meta_gradient():
    for L in (jtensor, torch):
        a = L.ones(3, device="meta", requires_grad=True)
        (a * 2).sum().backward()
        assert a.grad.is_meta and tuple(a.grad.shape) == (3,)


def test_meta_factories_and_initialisers_leave_the_cpu_generator_alone():
    def after(L):
        L.manual_seed(0)
        L.randn(5, device="meta")
        L.empty(3, device="meta").uniform_()
        L.nn.Linear(3, 4, device="meta")
        L.randint(3, (4,), device="meta")
        L.randperm(4, device="meta")
        return L.randn(3).numpy()

    mine, theirs = both(after)
    np.testing.assert_allclose(mine, theirs, rtol=1e-6)


def test_module_to_meta_then_to_empty():
    def run(L):
        model = copy.deepcopy(L.nn.Sequential(L.nn.Linear(3, 2), L.nn.BatchNorm1d(2)))
        model = model.to("meta")
        facts = [meta_facts(t) for t in model.state_dict().values()]
        out = model(L.empty(4, 3, device="meta"))
        with pytest.raises(NotImplementedError) as info:
            model.to("cpu")
        model.to_empty(device="cpu", recurse=False)  # Sequential holds nothing itself
        still = model[0].weight.is_meta
        model.to_empty(device="cpu")
        after = [(t.device.type, tuple(t.shape), str(t.dtype)) for t in model.state_dict().values()]
        return (
            facts,
            meta_facts(out),
            str(info.value),
            still,
            after,
            type(model[0].weight).__name__,
            repr(model[0].bias)[:26],
        )

    mine, theirs = both(run)
    assert mine[:6] == theirs[:6]
    assert mine[6] == theirs[6] == "Parameter containing:\ntens"


def test_functional_call_with_real_parameters_on_a_meta_module():
    def run(L):
        L.manual_seed(0)
        source = L.nn.Linear(3, 2)
        shell = copy.deepcopy(source).to("meta")
        params = {k: v.detach() for k, v in source.named_parameters()}
        return L.func.functional_call(shell, params, (L.ones(4, 3),)).numpy()

    mine, theirs = both(run)
    np.testing.assert_allclose(mine, theirs, rtol=1e-6)


def test_the_default_device_can_be_meta():
    for L in (jtensor, torch):
        with L.device("meta"):
            layer = L.nn.Linear(3, 4)
        assert layer.weight.is_meta and not L.ones(1).is_meta
        assert repr(layer.weight) == (
            "Parameter containing:\ntensor(..., device='meta', size=(4, 3), requires_grad=True)"
        )


def test_meta_factories_allocate_nothing_whatever_the_size():
    for L in (jtensor, torch):
        for make in (L.empty, L.rand, L.randn):
            big = make(2**10, 3, 2**16, 2**16, device="meta")
            assert big.is_meta and tuple(big.shape) == (2**10, 3, 2**16, 2**16)


@pytest.mark.parametrize(
    "make",
    [
        lambda L: L.nn.functional.conv2d(
            L.rand(2**10, 3, 2**16, 2**16, device="meta"), L.rand(5, 3, 2, 2, device="meta")
        ),
        lambda L: L.nn.Conv2d(3, 5, 2, stride=2, padding=1, device="meta")(
            L.rand(2, 3, 10, 10, device="meta")
        ),
        lambda L: L.nn.Conv1d(4, 6, 3, dilation=2, device="meta")(
            L.rand(2, 4, 2**40, device="meta")
        ),
        lambda L: L.nn.Conv1d(4, 6, 3, device="meta")(L.rand(4, 9, device="meta")),
        lambda L: L.nn.Conv3d(2, 3, (1, 2, 3), groups=1, device="meta")(
            L.rand(1, 2, 5, 6, 7, device="meta")
        ),
        lambda L: L.nn.Conv2d(4, 4, 3, groups=2, padding="same", device="meta")(
            L.rand(2, 4, 8, 8, device="meta").to(memory_format=L.channels_last)
        ),
    ],
)
def test_convolutions_on_meta_compute_shapes_only(make):
    """The "reasoning about shapes" recipe: a convolution of a meta tensor of 2**45 elements
    costs nothing (PyTorch's meta kernel); jtensor used to gather its columns. (The output
    is contiguous on meta even from a channels_last input, as PyTorch's.)"""
    ours, theirs = both(make)
    assert meta_facts(ours) == meta_facts(theirs)


def test_a_meta_convolution_differentiates_to_meta_gradients():
    def run(L):
        conv = L.nn.Conv2d(3, 5, 2, device="meta")
        conv(L.rand(2, 3, 10, 10, device="meta")).sum().backward()
        return conv.weight.grad, conv.bias.grad

    ours, theirs = both(run)
    for a, b in zip(ours, theirs, strict=True):
        assert meta_facts(a) == meta_facts(b)
