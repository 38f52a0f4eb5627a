"""A recorded ``reshape`` is PyTorch's node for its input's layout: ``ViewBackward0`` of a
contiguous input, ``ReshapeAliasBackward0`` of a non-contiguous one whose strides still
allow a view, ``CloneBackward0`` then ``UnsafeViewBackward0`` otherwise. The decision is
read from the remembered view geometry (``views.reshape_views``) once the same reshape has
been seen: the first and the repeated call of each case must record the same nodes."""

import numpy as np
import pytest

import jtensor

from ..harness.graphs import node_names

torch = pytest.importorskip("torch")

# (layout of a (2, 4, 3) leaf, target shapes): views, viewable non-contiguous layouts
# (a split dim), layouts that must copy (merged dims that are not adjacent in memory), and a
# shape that fits no layout.
CASES = {
    "contiguous": (lambda t: t, [(-1,), (4, 6), (3, 2, 4)]),
    "transposed": (lambda t: t.transpose(0, 1), [(4, 6), (2, 2, 2, 3), (8, 3), (5, 5)]),
    "sliced": (lambda t: t[:, :, :2], [(2, 2, 2, 2), (-1,), (4, 4)]),
    "expanded": (lambda t: t[:, :1].expand(-1, 4, -1), [(2, 2, 2, 3), (-1,), (2, 4, 3)]),
    "batched-transpose": (lambda t: t.transpose(-2, -1), [(6, 4), (2, 3, 2, 2), (2, 12)]),
}
LAYOUTS = {name: layout for name, (layout, _) in CASES.items()}
PARAMS = [(name, shape) for name, (_, shapes) in CASES.items() for shape in shapes]


def _run(lib, layout, shape):
    x = lib.from_numpy(np.arange(24, dtype=np.float64).reshape(2, 4, 3)).requires_grad_()
    v = LAYOUTS[layout](x)
    try:
        y = v.reshape(shape)
    except RuntimeError as e:
        return type(e).__name__, str(e).split(",")[0]
    weights = lib.from_numpy(np.arange(y.numel(), dtype=np.float64).reshape(y.shape))
    (y * weights).sum().backward()
    names = dict(node_names([y]))
    return names, y.grad_fn.name(), tuple(y.shape), y.stride(), x.grad.numpy().tolist()


@pytest.mark.parametrize(("layout", "shape"), PARAMS, ids=[f"{n}-{s}" for n, s in PARAMS])
def test_recorded_reshape_nodes_match_torch(layout, shape):
    expected = _run(torch, layout, shape)
    first = _run(jtensor, layout, shape)
    again = _run(jtensor, layout, shape)  # (the view geometry is remembered by now)
    assert first == again
    if isinstance(expected, tuple) and isinstance(expected[0], str):
        assert first[0] == expected[0]  # both refuse the shape: the same kind of error
        return
    assert first == expected


def test_the_cases_cover_each_node():
    names = set()
    for layout, shape in PARAMS:
        got = _run(torch, layout, shape)
        names.add(got[1] if isinstance(got[0], dict) else got[0])
    assert names == {
        "ViewBackward0",
        "ReshapeAliasBackward0",
        "UnsafeViewBackward0",
        "RuntimeError",
    }
