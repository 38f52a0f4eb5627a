"""The shortest lane of a training step: ``loss.backward()`` of a 0-d loss goes straight to
the engine's lean loop (``engine.loss_backward``), a full ``sum`` computes on the arrays,
and nodes whose name depends on whether one option is None (``sum``, ``mean``, ``prod``,
``squeeze_``, ``round``) are named from the call's options. Each must give PyTorch's
nodes, values, strides and errors, and fall back to the general path where it does not
apply."""

import numpy as np
import pytest

import jtensor
from jtensor.autograd import engine
from tests.harness.spies import fast_path_spy

torch = pytest.importorskip("torch")

NAMED_CALLS = {
    "sum()": lambda x: x.sum(),
    "sum(0)": lambda x: x.sum(0),
    "sum(dim=1)": lambda x: x.sum(dim=1),
    "sum(-1, True)": lambda x: x.sum(-1, True),
    "sum((0, 1))": lambda x: x.sum((0, 1)),
    "mean()": lambda x: x.mean(),
    "mean(1)": lambda x: x.mean(1),
    "mean(dim=0, keepdim=True)": lambda x: x.mean(dim=0, keepdim=True),
    "prod()": lambda x: x.prod(),
    "prod(1)": lambda x: x.prod(1),
    "round()": lambda x: x.round(),
    "round(decimals=1)": lambda x: x.round(decimals=1),
    "squeeze_()": lambda x: (x * 1)[:1].squeeze_(),
    "squeeze_(0)": lambda x: (x * 1)[:1].squeeze_(0),
}


def _named(lib, call):
    x = lib.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], dtype=lib.float64, requires_grad=True)
    y = NAMED_CALLS[call](x)
    (y * lib.ones_like(y)).sum().backward()
    return y.grad_fn.name(), tuple(y.shape), x.grad.tolist()


@pytest.mark.parametrize("call", sorted(NAMED_CALLS))
def test_node_named_by_one_option(call):
    assert _named(jtensor, call) == _named(torch, call)


@pytest.mark.xfail(
    strict=True,
    reason="PyTorch names the node by the overload: x.sum(dim=None) is SumBackward1; "
    "jtensor's entry binds the default None and cannot tell it from an absent dim",
)
def test_explicit_none_dim_names_the_dim_overload():
    NAMED_CALLS["sum(dim=None)"] = lambda x: x.sum(dim=None)
    try:
        assert _named(jtensor, "sum(dim=None)") == _named(torch, "sum(dim=None)")
    finally:
        del NAMED_CALLS["sum(dim=None)"]


def test_repeated_calls_keep_their_names():
    # The name is chosen per call: a sum over all dims after one over a dim (and back).
    x = jtensor.ones(2, 3, requires_grad=True)
    names = [x.sum().grad_fn.name(), x.sum(0).grad_fn.name(), x.sum().grad_fn.name()]
    assert names == ["SumBackward0", "SumBackward1", "SumBackward0"]


def test_option_read_by_the_formula():
    # ``sum(x, 1)``'s backward reads ``dim`` and ``keepdim`` from the call's options.
    for keepdim in (False, True):
        results = []
        for lib in (jtensor, torch):
            x = lib.arange(6.0, dtype=lib.float64).reshape(2, 3).requires_grad_()
            w = lib.tensor([[2.0], [3.0]] if keepdim else [2.0, 3.0], dtype=lib.float64)
            (x.sum(1, keepdim) * w).sum().backward()
            results.append(x.grad.tolist())
        assert results[0] == results[1]


# ``sum`` of plain float tensors of any layout, over all dims or one: values, dtype, shape,
# strides as PyTorch's.
LAYOUTS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.transpose(0, 2),
    "permuted": lambda t: t.permute(1, 2, 0),
    "sliced": lambda t: t[:, ::2],
    "expanded": lambda t: t[:1].expand(3, -1, -1),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sum_fast_path_layouts(layout, dim, keepdim, dtype):
    data = np.random.default_rng(3).standard_normal((3, 4, 5)).astype(dtype)
    found = []
    for lib in (jtensor, torch):
        x = LAYOUTS[layout](lib.from_numpy(data.copy()))
        y = x.sum() if dim is None else x.sum(dim, keepdim)
        found.append((str(y.dtype), tuple(y.shape), y.stride(), y.is_contiguous(), y.numpy()))
    assert found[0][:4] == found[1][:4]
    # (the libraries add in different orders: a few units in the last place)
    tol = 1e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(found[0][4], found[1][4], rtol=tol, atol=tol)


def test_full_sum_is_a_fresh_zero_dim_tensor():
    x = jtensor.ones(3, 4)
    y = x.sum()
    assert y.shape == () and y.stride() == () and y.dtype == jtensor.float32
    assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    y += 1  # its own writable storage
    assert y.item() == 13.0 and x.sum().item() == 12.0


def _general_calls(monkeypatch):
    """One entry per call that leaves the lane for ``run_backward``."""
    return fast_path_spy(monkeypatch, engine, "run_backward")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_loss_backward_takes_the_lane(dtype, monkeypatch):
    calls = _general_calls(monkeypatch)
    grads = []
    for lib in (jtensor, torch):
        x = lib.tensor([1.0, -2.0, 3.0], dtype=getattr(lib, dtype), requires_grad=True)
        loss = (x * x).sum()
        loss.backward(retain_graph=True)
        loss.backward()  # the retained graph runs again
        grads.append((str(x.grad.dtype), x.grad.tolist()))
    assert grads[0] == grads[1]
    assert calls == []


def test_loss_backward_lane_frees_the_graph():
    x = jtensor.ones(3, requires_grad=True)
    loss = (x * x).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def _outside_the_lane(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().view(()).backward()  # a view of the loss
    (x.double() * 2).sum().backward()  # float64: in the lane
    (x.half() * 2).sum().backward()  # a half-precision loss
    with lib.autocast("cpu"):
        (x * x).sum().backward()  # autocast open
    with lib.autograd.detect_anomaly():
        (x * 3).sum().backward()  # anomaly mode
    return x.grad.tolist()


def test_other_calls_leave_the_lane(monkeypatch):
    calls = _general_calls(monkeypatch)
    assert _outside_the_lane(jtensor) == _outside_the_lane(torch)
    assert len(calls) == 4


def test_lane_errors_are_pytorchs():
    for lib in (jtensor, torch):
        leaf = lib.tensor(2.0)
        with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
            leaf.backward()
        v = lib.ones(3, requires_grad=True) * 2
        with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
            v.backward()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_overflowing_sums_where_warnings_are_errors(dtype):
    # The fast sum and mean compute with NumPy's error state as it is: where warnings are
    # errors, an overflow is redone silenced and gives PyTorch's inf, raising nothing.
    import warnings

    big = 3e38 if dtype == "float32" else 1.7e308
    found = []
    for lib in (jtensor, torch):
        x = lib.tensor([[big, big], [big, -big]], dtype=getattr(lib, dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            found.append([t.tolist() for t in (x.sum(), x.mean(), x.sum(1), x.mean(0, True))])
    assert found[0] == found[1]
