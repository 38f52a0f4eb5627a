"""The dispatcher's function-transform hook (what forward-mode AD and vmap build on): while a
transform is pushed, every op call, whether a function, a method or an operator, reaches its
``process`` exactly once, with the transform off the stack while it runs."""

import pytest

import jtensor
from jtensor import _dispatch

pytestmark = pytest.mark.devices


class Recorder:
    def __init__(self):
        self.seen = []
        self.depths = []

    def process(self, op, entry, args, kwargs):
        self.seen.append(op.name)
        self.depths.append(_dispatch.transforms.active)
        return entry(*args, **kwargs)


def test_every_kind_of_call_reaches_the_transform_once():
    x = jtensor.ones(2, 3)
    level = Recorder()
    _dispatch.push_transform(level)
    try:
        y = (x * 2 + 1)[0].sum()
        x.add_(1)
        z = jtensor.nn.functional.relu(-x)
        w = jtensor.matmul(x, x.t())
    finally:
        _dispatch.pop_transform(level)
    assert level.seen == ["mul", "add", "__getitem__", "sum", "add_", "neg", "relu", "t",
                          "matmul"]
    # The transform is off the stack while it processes a call: nothing recurses into it.
    assert set(level.depths) == {0}
    assert _dispatch.transforms.active == 0
    assert y.item() == 9.0 and z.sum().item() == 0.0 and w.shape == (2, 2)


def test_stack_is_restored_when_a_call_raises():
    level = Recorder()
    _dispatch.push_transform(level)
    try:
        with pytest.raises(RuntimeError):
            jtensor.ones(2) + jtensor.ones(3)
        assert _dispatch.transforms.active == 1
    finally:
        _dispatch.pop_transform(level)
    assert _dispatch.transforms.active == 0


def test_levels_must_be_left_innermost_first():
    outer, inner = Recorder(), Recorder()
    _dispatch.push_transform(outer)
    _dispatch.push_transform(inner)
    with pytest.raises(RuntimeError, match="out of order"):
        _dispatch.pop_transform(outer)
    _dispatch.pop_transform(inner)
    _dispatch.pop_transform(outer)
    assert _dispatch.transforms.active == 0
