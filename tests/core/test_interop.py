"""NumPy / DLPack / PyTorch interop: which conversions share memory, and writes both ways."""

import warnings

import numpy as np
import pytest

import jtensor
from jtensor._ops import creation

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) not installed")


def test_from_numpy_shares_both_ways():
    a = np.arange(6.0).reshape(2, 3)
    t = jtensor.from_numpy(a)
    a[0, 1] = 100
    assert t[0, 1].item() == 100
    t[1, 2] = -5
    assert a[1, 2] == -5


@pytest.mark.parametrize("view, stride", [
    (lambda a: a.T, (1, 6)),
    (lambda a: a[1:, 1:], (6, 1)),
    (lambda a: a[:, ::2], (6, 2)),
    (lambda a: a[::2, 1::3], (12, 3)),
])
def test_from_numpy_non_contiguous_shares_with_torch_strides(view, stride):
    base = np.arange(24.0).reshape(4, 6)
    v = view(base)
    t = jtensor.from_numpy(v)
    assert t.stride() == stride and t.storage_offset() == 0
    assert t.tolist() == v.tolist()
    t.mul_(2) if hasattr(t, "mul_") else t.copy_(jtensor.tensor(v * 2))
    assert np.array_equal(v, view(np.arange(24.0).reshape(4, 6)) * 2)
    v[...] = 7
    assert all(x == 7 for row in t.tolist() for x in row)


def test_from_numpy_refuses_negative_strides_and_warns_readonly():
    with pytest.raises(ValueError):
        jtensor.from_numpy(np.arange(4)[::-1])
    a = np.arange(3)
    a.flags.writeable = False
    creation._WARNED_READONLY.clear()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        jtensor.from_numpy(a)
        jtensor.from_numpy(a)
        jtensor.as_tensor(a)
    # once a process, as PyTorch's TORCH_WARN_ONCE, and saying so (corpus 21's Glow)
    assert [str(x.message).endswith("suppressed for the rest of this program.") for x in w] == [
        True
    ]
    assert w[0].filename == __file__


def test_numpy_method_shares():
    t = jtensor.zeros(2, 3)
    a = t.numpy()
    a[0, 0] = 9
    assert t[0, 0].item() == 9
    t.t().numpy()[0, 1] = 4
    assert t[1, 0].item() == 4


def test_array_protocol():
    t = jtensor.arange(6).view(2, 3)
    a = np.asarray(t)
    assert a.dtype == np.int64 and a.shape == (2, 3)
    a[0, 0] = 42
    assert t[0, 0].item() == 42  # np.asarray shares like PyTorch
    assert np.asarray(t, dtype=np.float32).dtype == np.float32
    with pytest.raises(RuntimeError):
        np.asarray(jtensor.ones(2, requires_grad=True))


def test_as_tensor_shares_numpy_and_copies_on_cast():
    a = np.ones(4, dtype=np.float32)
    t = jtensor.as_tensor(a)
    a[0] = 3
    assert t[0].item() == 3
    c = jtensor.as_tensor(a, dtype=jtensor.float64)
    a[1] = 5
    assert c[1].item() == 1
    x = jtensor.ones(3)
    assert jtensor.as_tensor(x) is x
    assert jtensor.asarray(x) is x


def test_asarray_copy_flags():
    a = np.arange(3.0)
    assert jtensor.asarray(a).untyped_storage().data_ptr() == a.__array_interface__["data"][0]
    c = jtensor.asarray(a, copy=True)
    a[0] = 10
    assert c[0].item() == 0
    with pytest.raises(ValueError):
        jtensor.asarray(a, dtype=jtensor.float32, copy=False)
    with pytest.raises(ValueError):
        jtensor.asarray([1, 2], copy=False)


def test_tensor_always_copies_and_warns_on_tensor():
    a = np.arange(3.0)
    t = jtensor.tensor(a)
    a[0] = 5
    assert t[0].item() == 0
    src = jtensor.ones(2)
    with pytest.warns(UserWarning, match=r"sourceTensor.detach\(\).clone\(\)"):
        copy = jtensor.tensor(src)
    copy.add_(1) if hasattr(copy, "add_") else None
    assert src.tolist() == [1.0, 1.0]


def test_dlpack_numpy_round_trip_shares():
    a = np.arange(6.0).reshape(2, 3)
    t = jtensor.from_dlpack(a)
    a[0, 0] = 11
    assert t[0, 0].item() == 11
    back = np.from_dlpack(t)
    # NOTE: NumPy marks the result read-only because Tensor.__dlpack__ (in _tensor.py) does
    # not forward max_version; sharing is checked by writing through the tensor instead.
    t[1, 1] = -1
    assert back[1, 1] == -1 and a[1, 1] == -1
    assert t.__dlpack_device__()[0] == 1


@needs_torch
def test_dlpack_torch_round_trip_shares():
    tt = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    j = jtensor.from_dlpack(tt)
    assert j.shape == (2, 3) and j.dtype is jtensor.float32
    tt[0, 0] = 50
    assert j[0, 0].item() == 50
    j[1, 2] = -7
    assert tt[1, 2].item() == -7
    back = torch.from_dlpack(j)
    back[0, 1] = 33
    assert j[0, 1].item() == 33 and tt[0, 1].item() == 33
    nc = torch.arange(12.0).reshape(3, 4).t()
    jn = jtensor.from_dlpack(nc)
    assert jn.stride() == nc.stride() and jn.tolist() == nc.tolist()


def test_dlpack_of_jtensor_is_alias():
    x = jtensor.arange(4.0)
    y = jtensor.from_dlpack(x)
    y[0] = 9
    assert x[0].item() == 9 and y is not x


def test_legacy_constructor_aliases_tensor():
    x = jtensor.arange(3)
    y = jtensor.Tensor(x)
    assert y.dtype is jtensor.int64
    assert y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert jtensor.Tensor([1, 2]).dtype is jtensor.float32
    assert jtensor.Tensor(2, 3).shape == (2, 3)
    with pytest.raises(TypeError):
        jtensor.Tensor(2.5)


def test_default_dtype_drives_factories():
    old = jtensor.get_default_dtype()
    try:
        jtensor.set_default_dtype(jtensor.float64)
        assert jtensor.tensor([1.5]).dtype is jtensor.float64
        assert jtensor.tensor(1j).dtype is jtensor.complex128
        assert jtensor.zeros(2).dtype is jtensor.float64
        assert jtensor.ones(2).dtype is jtensor.float64
        assert jtensor.empty(2).dtype is jtensor.float64
        assert jtensor.full((2,), 1.5).dtype is jtensor.float64
        assert jtensor.arange(0.5, 2).dtype is jtensor.float64
        assert jtensor.arange(3).dtype is jtensor.int64
        assert jtensor.linspace(0, 1, 3).dtype is jtensor.float64
        assert jtensor.eye(2).dtype is jtensor.float64
        assert jtensor.rand(2).dtype is jtensor.float64
        assert jtensor.tensor([]).dtype is jtensor.float64
        assert repr(jtensor.tensor([1.5])) == "tensor([1.5000])"
        assert repr(jtensor.tensor([1.5], dtype=jtensor.float32)) == \
            "tensor([1.5000], dtype=torch.float32)"
    finally:
        jtensor.set_default_dtype(old)
    assert jtensor.zeros(2).dtype is old


def test_factories_one_trace_event_each(monkeypatch):
    from jtensor import _dispatch

    names = []
    monkeypatch.setattr(_dispatch, "trace_hook", lambda op, *a: names.append(op.name))
    jtensor.tensor(jtensor.ones(2) if False else [1, 2])
    jtensor.zeros_like(np.ones(2) if False else jtensor.tensor([1.0]))
    jtensor.as_tensor(np.ones(3))
    jtensor.asarray(np.ones(3), copy=True)
    jtensor.linspace(0, 1, 3, out=jtensor.empty(3))
    jtensor.normal(jtensor.zeros(2), 1.0)
    monkeypatch.setattr(_dispatch, "trace_hook", None)
    assert names == ["tensor", "tensor", "zeros_like", "as_tensor", "asarray", "empty",
                     "linspace", "zeros", "normal"]


def test_numpy_ufuncs_on_tensors_give_tensors_like_pytorch():
    if torch is None:
        pytest.skip("needs the PyTorch oracle")
    for make in (lambda lib: np.exp(lib.tensor([1.0, 2.0])),
                 lambda lib: np.greater(lib.tensor([1.0, 2.0]), 1.5),
                 lambda lib: np.sqrt(lib.tensor([1, 4])),
                 lambda lib: np.exp(lib.tensor(1.0))):
        mine, theirs = make(jtensor), make(torch)
        assert isinstance(mine, jtensor.Tensor)
        assert str(mine.dtype) == str(theirs.dtype) and mine.tolist() == pytest.approx(
            theirs.tolist())


_ZERO_DIM_RESULTS = {
    "reciprocal-of-sum": lambda lib: 1.0 / lib.tensor([2.0, 2.0]).sum(),
    "product-of-0d": lambda lib: lib.tensor(2.0) * 3,
    "exp-of-0d": lambda lib: lib.tensor(1.0).exp(),
    "count": lambda lib: (lib.tensor([1, 2, 3]) == lib.tensor([1, 0, 3])).sum(),
}


@needs_torch
@pytest.mark.parametrize("make", list(_ZERO_DIM_RESULTS.values()), ids=list(_ZERO_DIM_RESULTS))
def test_zero_dim_results_are_real_tensors(make):
    """A 0-d result converts with np.asarray, is written in place, and serves as a number
    (alpha=, +=) as PyTorch's does; NumPy's 0-d computations return scalars, not arrays."""
    seen = []
    for lib in (jtensor, torch):
        r = make(lib)
        as_array = np.asarray(r)
        r.add_(1)
        total = 0.0
        total += r
        x = lib.ones(3)
        x.add_(lib.ones(3), alpha=1.0 / r)
        seen.append((as_array.shape, round(float(as_array), 5), round(float(r), 5),
                     round(float(total), 5), [round(v, 5) for v in x.tolist()]))
    assert seen[0] == seen[1]


_SCALAR_WARNINGS = """
import sys, warnings
lib = __import__(sys.argv[1])
x = lib.tensor(2.5, requires_grad=True)
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    int(x), x.item(), bool(x), float(x.detach())
    with lib.no_grad():
        float(x)  # no warning while grad mode is off
    float(x * 2), float(x)
for w in seen:
    print(w.category.__name__, str(w.message).split(" (Triggered")[0].replace(chr(10), " "))
"""


@needs_torch
def test_float_of_a_tensor_that_requires_grad_warns_once_as_pytorch():
    import subprocess
    import sys

    printed = [subprocess.run([sys.executable, "-c", _SCALAR_WARNINGS, lib], check=True,
                              capture_output=True, text=True).stdout
               for lib in ("jtensor", "torch")]
    assert printed[0] == printed[1]
    assert printed[0].count("UserWarning") == 1
