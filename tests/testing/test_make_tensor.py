"""``jtensor.testing.make_tensor`` against ``torch.testing.make_tensor``: under the same seed
the same values, dtype, strides and flags; the same errors."""

import pytest

import jtensor
import jtensor.testing

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

CASES = [
    ((3, 4), {"dtype": "float32"}),
    ([2, 3], {"dtype": "float64", "low": -1, "high": 1}),
    ((5,), {"dtype": "int64"}),
    ((4,), {"dtype": "int8", "low": -200}),
    ((3,), {"dtype": "uint8"}),
    ((3, 3), {"dtype": "bool"}),
    ((2, 2), {"dtype": "complex64"}),
    ((2, 2), {"dtype": "complex128", "low": 0, "high": 1}),
    ((2, 3), {"dtype": "float32", "noncontiguous": True}),
    ((1,), {"dtype": "float32", "noncontiguous": True}),
    ((2, 3, 4, 5), {"dtype": "float32", "memory_format": "channels_last"}),
    ((6,), {"dtype": "int32", "low": 0, "high": 2, "exclude_zero": True}),
    ((6,), {"dtype": "float32", "low": 0, "high": 1e-30, "exclude_zero": True}),
    ((3,), {"dtype": "float16", "requires_grad": True}),
    ((3,), {"dtype": "bfloat16"}),
    ((), {"dtype": "float32"}),
]


def _make(lib, T, shape, kwargs):
    kw = dict(kwargs)
    kw["dtype"] = getattr(T, kw["dtype"])
    if "memory_format" in kw:
        kw["memory_format"] = getattr(T, kw["memory_format"])
    T.manual_seed(7)
    args = (shape,) if isinstance(shape, list) else shape
    r = lib.make_tensor(*args, device="cpu", **kw)
    values = r.detach().cpu()
    values = values.to(T.complex128 if values.is_complex() else T.float64).tolist()
    return values, tuple(r.shape), r.stride(), str(r.dtype), r.requires_grad


@pytest.mark.parametrize("shape,kwargs", CASES, ids=[str(i) for i in range(len(CASES))])
def test_make_tensor_matches_pytorch(shape, kwargs):
    assert _make(jtensor.testing, jtensor, shape, kwargs) == _make(
        torch.testing, torch, shape, kwargs
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"dtype": "float32", "low": 1, "high": 0},
        {"dtype": "float32", "low": float("nan")},
        {"dtype": "int64", "requires_grad": True},
        {"dtype": "float32", "noncontiguous": True, "memory_format": "channels_last"},
        {"dtype": "uint8", "low": -20, "high": -10},
    ],
)
def test_make_tensor_errors_match_pytorch(kwargs):
    outcomes = []
    for lib, T in ((jtensor.testing, jtensor), (torch.testing, torch)):
        try:
            _make(lib, T, (2, 3, 4, 5), kwargs)
            outcomes.append("ok")
        except Exception as exc:  # noqa: BLE001 - compared below
            outcomes.append((type(exc).__name__, str(exc)))
    assert outcomes[0] == outcomes[1]


def test_make_tensor_needs_dtype_and_device():
    with pytest.raises(TypeError):
        jtensor.testing.make_tensor(2, 3)
