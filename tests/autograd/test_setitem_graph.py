"""``x[key] = value`` with a basic key records PyTorch's steps on the value before the write
(``copy_to`` in PyTorch's indexing code): a value of another shape is viewed without its
leading 1s (``ViewBackward0``) and expanded to the selection where the shapes still differ
(``ExpandBackward0``); a value of the selection's shape, a 0-d CPU value and an advanced key
take none. A trace still shows the write as one event."""

import pytest

import jtensor

torch = pytest.importorskip("torch")


def _tree(fn, depth=0, out=None):
    out = [] if out is None else out
    out.append("  " * depth + type(fn).__name__)
    for n, _ in fn.next_functions:
        if n is not None:
            _tree(n, depth + 1, out)
    return out


WRITES = {
    "ellipsis-row": (lambda lib: Ellipsis, (3,)),
    "full-slice-row": (lambda lib: slice(None), (3,)),
    "same-shape": (lambda lib: (slice(None), 1), (2,)),
    "zero-dim": (lambda lib: 0, ()),
    "leading-ones": (lambda lib: 0, (1, 3)),
    "column-broadcast": (lambda lib: (slice(None), slice(1, None)), (2, 1)),
    "leading-ones-broadcast": (lambda lib: (slice(None), slice(1, None)), (1, 1, 2)),
    "index-tensor": (lambda lib: lib.tensor([1, 0]), (3,)),
}


def _graph(lib, name):
    key, shape = WRITES[name]
    a = lib.arange(6.0).reshape(2, 3).requires_grad_()
    v = lib.arange(1.0, 1.0 + max(1, int(lib.tensor(shape).prod()))).reshape(shape)
    v.requires_grad_()
    b = a * 1
    b[key(lib)] = v
    b.sum().backward()
    return _tree(b.grad_fn), a.grad.tolist(), v.grad.tolist(), v.grad.shape


@pytest.mark.parametrize("name", sorted(WRITES))
def test_setitem_records_pytorchs_value_steps(name):
    assert _graph(jtensor, name) == _graph(torch, name)


def test_a_traced_write_is_one_event():
    a = jtensor.zeros(2, 3, requires_grad=True) * 1
    v = jtensor.ones(3, requires_grad=True)
    with jtensor.trace.record() as t:
        a[...] = v
    assert [e.name for e in t.events if e.op_kind is not None] == ["__setitem__"]
    assert type(a.grad_fn.next_functions[1][0]).__name__ == "ExpandBackward0"
