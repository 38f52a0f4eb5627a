"""Which operand wins a tie, and where a NaN goes, in the ops that choose between values:
``threshold`` replaces ``x <= threshold`` (so a NaN is kept and its gradient passes), the
shrinkages keep a NaN (with no gradient) and clamp's number bounds keep an element equal to
a bound. Compared with PyTorch bit for bit, values and gradients.

The tensors have 64 elements: all of them lie in PyTorch's vector loop, whatever the CPU's
vector width. Its scalar loop over a tensor's last few elements breaks some ties the other
way: ``maximum``/``minimum`` of ``-0.0`` and ``0.0`` return the first operand there (the
second in the vector loop), softshrink returns ``-0.0`` for ``-0.0``, and the shrinkages
pass a NaN's gradient. jtensor follows the vector loop, which computes most elements of a
real tensor."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

VALUES = [-0.0, 0.0, float("nan"), 1.0, -1.0, 0.5, -0.5, 0.25, -0.25, 3.0, float("-inf")]
OTHERS = [0.0, -0.0, 1.0, float("nan"), -0.0, 0.5, 0.0, -0.25, 0.25, 3.0, 0.0]

CASES = {
    "maximum": lambda lib, x, y: lib.maximum(x, y),
    "minimum": lambda lib, x, y: lib.minimum(x, y),
    "maximum_reversed": lambda lib, x, y: lib.maximum(y, x),
    "threshold": lambda lib, x, y: lib.nn.functional.threshold(x, 0.0, -7.0),
    "threshold_zero": lambda lib, x, y: lib.nn.functional.threshold(x, -0.0, 0.0),
    "threshold_inplace": lambda lib, x, y: lib.nn.functional.threshold(x * 1, 0.25, 2.0, True),
    "hardshrink": lambda lib, x, y: lib.nn.functional.hardshrink(x, 0.25),
    "softshrink": lambda lib, x, y: lib.nn.functional.softshrink(x, 0.25),
    "softshrink_zero": lambda lib, x, y: lib.nn.functional.softshrink(x, 0.0),
    "clamp": lambda lib, x, y: x.clamp(-0.0, 0.5),
    "clamp_min": lambda lib, x, y: x.clamp(min=0.0),
}


def _bits(t):
    # (every NaN written as one: a NaN's payload bits are no part of either library's rules)
    a = np.array(t.detach().numpy())
    a[np.isnan(a)] = np.nan
    return a.tobytes()


def _run(lib, name, dtype):
    x = lib.tensor((VALUES * 6)[:64], dtype=getattr(lib, dtype), requires_grad=True)
    y = lib.tensor((OTHERS * 6)[:64], dtype=getattr(lib, dtype), requires_grad=True)
    out = CASES[name](lib, x, y)
    grads = lib.autograd.grad(out, (x, y), lib.ones_like(out), allow_unused=True)
    return [out] + [g for g in grads if g is not None]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_ties_and_nans_match_pytorch(name, dtype):
    mine, theirs = _run(jtensor, name, dtype), _run(torch, name, dtype)
    assert len(mine) == len(theirs)
    for m, t in zip(mine, theirs, strict=True):
        assert _bits(m) == _bits(t), (m, t)


@pytest.mark.parametrize(
    "values",
    [
        [0.0, -0.0, 1.0, 1.0],
        [-0.0, 0.0, 2.0],
        [1.0, -0.0, 3.0, 0.0, 3.0],
        [[0.0, -0.0], [-0.0, 0.0]],
    ],
    ids=str,
)
def test_mode_reports_the_element_at_its_index(values):
    # Of equal values (-0.0 and 0.0) mode reports the one at the index it gives.
    found = []
    for lib in (jtensor, torch):
        m = lib.tensor(values).mode()
        found.append((_bits(m.values), m.indices.tolist()))
    assert found[0] == found[1]
