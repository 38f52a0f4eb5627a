"""Padding modules against PyTorch: repr, values and gradients."""

import numpy as np
import pytest

import jtensor
from tests.harness.training import assert_close, to_jt, to_torch

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

torch = pytest.importorskip("torch")

CASES = [
    ("ZeroPad1d", (2,), (2, 3, 5)), ("ZeroPad2d", ((1, 2, 0, 1),), (2, 3, 4, 4)),
    ("ZeroPad3d", (1,), (1, 2, 3, 3, 3)),
    ("ConstantPad1d", ((1, 2), 3.5), (2, 3, 5)), ("ConstantPad2d", (1, -1.0), (2, 3, 4, 4)),
    ("ConstantPad3d", ((1, 0, 0, 1, 1, 0), 2.0), (1, 2, 3, 3, 3)),
    ("ReflectionPad1d", (2,), (2, 3, 5)), ("ReflectionPad2d", ((1, 1, 2, 0),), (2, 3, 4, 4)),
    ("ReflectionPad3d", (1,), (1, 2, 3, 3, 3)),
    ("ReplicationPad1d", (3,), (2, 3, 5)), ("ReplicationPad2d", ((0, 1, 2, 1),), (2, 3, 4, 4)),
    ("ReplicationPad3d", (1,), (1, 2, 3, 3, 3)),
    ("CircularPad1d", (2,), (2, 3, 5)), ("CircularPad2d", (1,), (2, 3, 4, 4)),
    ("CircularPad3d", (1,), (1, 2, 3, 3, 3)),
]


@pytest.mark.parametrize("name,args,shape", CASES, ids=[c[0] + str(i) for i, c in enumerate(CASES)])
def test_padding_module_matches_pytorch(name, args, shape):
    ours, theirs = getattr(jtensor.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    x = np.random.default_rng(0).standard_normal(shape)
    j, t = to_jt(x, True), to_torch(x, True)
    jo, to = ours(j), theirs(t)
    assert_close(jo, to, what="output")
    g = np.random.default_rng(1).standard_normal(tuple(to.shape))
    jo.backward(jtensor.tensor(g))
    to.backward(torch.tensor(g))
    assert_close(j.grad, t.grad, what="input gradient")


def test_odd_padding_fails_when_used_as_in_pytorch():
    module = jtensor.nn.ZeroPad2d((1, 2, 3))
    assert repr(module) == repr(torch.nn.ZeroPad2d((1, 2, 3)))
    with pytest.raises(RuntimeError):
        module(jtensor.ones(1, 2, 2))
