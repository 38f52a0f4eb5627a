"""``cat``'s backward cuts its gradient with views made directly (``shapes._fast_pieces``,
issue 18) in a plain pass: each piece must be what ``narrow`` gives (values, shape, strides,
offset, a view of the gradient), and the inputs' gradients what the general path gives. The
fast path declines where a piece needs more than a narrow (PyTorch's legacy empty 1-D
inputs), and where the pass records (``create_graph``)."""

import numpy as np
import pytest

import jtensor
from jtensor.autograd.formulas import shapes as shapes_module
from tests.harness.spies import fast_path_spy

CASES = {
    "dim1": ([(2, 3), (2, 5), (2, 1)], 1),
    "dim0": ([(1, 4), (3, 4)], 0),
    "last_negative": ([(2, 2, 3), (2, 2, 2)], -1),
    "middle": ([(2, 1, 3), (2, 4, 3)], 1),
    "empty_piece": ([(2, 3), (2, 0), (2, 2)], 1),
    "one": ([(3, 2)], 0),
}


def _run(shapes, dim, transposed_grad, fast, monkeypatch):
    if not fast:
        monkeypatch.setattr(shapes_module, "_fast_pieces", lambda *a: None)
    gen = np.random.default_rng(0)
    leaves = [jtensor.tensor(gen.standard_normal(s), requires_grad=True) for s in shapes]
    # a non-leaf per input too: its node receives the piece itself
    middles = [x * 1.0 for x in leaves]
    pieces = []
    for m in middles:
        m.register_hook(lambda g, pieces=pieces: pieces.append(g))
    out = jtensor.cat(middles, dim)
    g = jtensor.tensor(gen.standard_normal(tuple(out.shape)[::-1])).permute(
        *range(out.dim() - 1, -1, -1)
    )
    out.backward(g if transposed_grad else g.contiguous())
    return leaves, pieces


@pytest.mark.parametrize("transposed_grad", [False, True], ids=["contiguous", "permuted"])
@pytest.mark.parametrize("case", list(CASES))
def test_pieces_are_narrows(monkeypatch, case, transposed_grad):
    shapes, dim = CASES[case]
    taken = fast_path_spy(monkeypatch, shapes_module, "_fast_pieces")
    leaves, pieces = _run(shapes, dim, transposed_grad, True, monkeypatch)
    assert taken == [True]
    with monkeypatch.context() as m:
        slow_leaves, slow_pieces = _run(shapes, dim, transposed_grad, False, m)
    for a, b in zip(pieces, slow_pieces, strict=True):
        assert a.shape == b.shape and a.stride() == b.stride()
        assert a.storage_offset() == b.storage_offset() and a._is_view() == b._is_view()
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for a, b in zip(leaves, slow_leaves, strict=True):
        assert a.grad.stride() == b.grad.stride()
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


def test_declines_legacy_empty_and_create_graph(monkeypatch):
    taken = fast_path_spy(monkeypatch, shapes_module, "_fast_pieces")
    a = jtensor.rand(2, 3, requires_grad=True)
    legacy = jtensor.zeros(0, requires_grad=True)  # a 1-D empty tensor joins any cat
    jtensor.cat([a, legacy], 1).sum().backward()
    assert taken == [False] and a.grad.shape == (2, 3) and legacy.grad.shape == (0,)
    b = jtensor.rand(2, 3, dtype=jtensor.float64, requires_grad=True)
    (g,) = jtensor.autograd.grad(jtensor.cat([b, b * 2], 0).pow(2).sum(), b, create_graph=True)
    assert g.requires_grad
    assert taken == [False, False]  # (a recorded pass: declined)
    assert jtensor.autograd.gradcheck(lambda x: jtensor.cat([x, x[:1] * 3], 0), (b,))
