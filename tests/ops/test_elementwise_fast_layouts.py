"""The element-wise fast path (issue 18) takes strided operands whose dims stay in order (a
slice of a matrix's columns, an LSTM's gate chunk): the result must have PyTorch's layout and
values, as the general path gives them, for every layout it does or does not take."""

import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

LAYOUTS = {
    "columns": lambda x: x[:, :3],
    "every_other": lambda x: x[:, ::2],
    "window": lambda x: x[1:, 2:5],
    "chunk": lambda x: x.chunk(4, 1)[2],
    "transposed_slice": lambda x: x.t()[:, :2],
    "size_one_dim": lambda x: x.reshape(4, 1, 8)[:, :, :3],
    "expanded": lambda x: x[:1].expand(4, 8),
    "row": lambda x: x[2],
}

CALLS = {
    "sigmoid": lambda v, w: v.sigmoid(),
    "tanh": lambda v, w: v.tanh(),
    "exp": lambda v, w: v.exp(),
    "mul_contiguous": lambda v, w: v * w.contiguous(),
    "add_both_strided": lambda v, w: w + v,
    "scalar": lambda v, w: v * 2.5,
    "sub_scalar": lambda v, w: 1.5 - v,
}


def _run(lib, layout, call):
    x = lib.linspace(-3, 3, 32, dtype=lib.float32).reshape(4, 8)
    y = lib.linspace(2, -1, 32, dtype=lib.float32).reshape(4, 8)
    v, w = LAYOUTS[layout](x), LAYOUTS[layout](y)
    return CALLS[call](v, w)


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_strided_operands_give_torchs_layout_and_values(layout, call):
    mine, theirs = _run(jtensor, layout, call), _run(torch, layout, call)
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert mine.stride() == theirs.stride()
    assert mine.is_contiguous() == theirs.is_contiguous()
    np.testing.assert_allclose(mine.cpu().numpy(), theirs.numpy(), rtol=1e-6, atol=1e-7)


def test_fast_unary_ops_stay_silent_where_warnings_are_errors():
    # (The fast path has no error-state switch: run_compute redoes a warning call silenced.)
    values = [[-1.0, 0.0], [float("inf"), float("nan")]]
    x, tx = jtensor.tensor(values), torch.tensor(values)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for pick in (lambda v: v, lambda v: v.t(), lambda v: v[:, :1]):
            for name in ("log", "sqrt", "reciprocal", "rsqrt", "exp"):
                mine = getattr(pick(x), name)()
                theirs = getattr(pick(tx), name)()
                np.testing.assert_allclose(mine.cpu().numpy(), theirs.numpy(), rtol=1e-6)
