"""Graphs of ops PyTorch composes from others (``autograd/_composites.py``).

PyTorch records ``matmul`` as the ops its ``_matmul_impl`` calls: expand, reshape (a view,
or clone + ``_unsafe_view``), ``bmm``/``mm``/``mv``, ``_unsafe_view``; 1-D @ 2-D as unsqueeze,
``mm`` and an in-place squeeze; the folded 2-D @ 3-D with transposes and ``contiguous()``.
The whole graph (every node's name, in edge order) must be PyTorch's, the gradients too
(float64, first and second order), the result's metadata, the saved attributes and the
errors; a trace still shows one ``matmul`` event. A ``reshape`` (``flatten``, ``reshape_as``)
that cannot view is a clone and its ``_unsafe_view``, two nodes, as in PyTorch."""

import numpy as np
import pytest

import jtensor
from jtensor.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")

SHAPES = {
    "1d@2d": ((4,), (4, 5)),
    "3d@3d": ((2, 3, 4), (2, 4, 5)),
    "3d@2d": ((2, 3, 4), (4, 5)),
    "2d@3d": ((3, 4), (2, 4, 5)),
    "4d@4d": ((2, 2, 3, 4), (2, 2, 4, 5)),
    "4d@3d": ((2, 2, 3, 4), (2, 4, 5)),
    "3d@1d": ((2, 3, 4), (4,)),
    "1d@3d": ((4,), (2, 4, 5)),
    "batch1@3d": ((1, 3, 4), (2, 4, 5)),
    "3d@batch1": ((2, 3, 4), (1, 4, 5)),
    "4d@2d": ((2, 2, 3, 4), (4, 5)),
    "2d@4d": ((3, 4), (2, 2, 4, 5)),
    "1x1": ((1, 1, 4), (4, 1)),
    "empty_batch": ((0, 3, 4), (4, 5)),
    "2d@2d": ((3, 4), (4, 5)),
    "2d@1d": ((3, 4), (4,)),
    "1d@1d": ((4,), (4,)),
}
# which operands require grad
NEEDS = {"both": (True, True), "left": (True, False), "right": (False, True)}


def _graph(fn, seen=None):
    """Every node reached from ``fn`` (depth first, in edge order) by name."""
    if fn is None:
        return ["None"]
    names = [fn.name()]
    if fn.name().endswith("AccumulateGrad"):
        return names
    for nxt, nr in fn.next_functions:
        names.append(f"-> {nr}")
        names.extend(_graph(nxt))
    return names


def _operands(lib, shapes, needs, dtype="float32", transposed=False):
    gen = np.random.default_rng(0)
    out = []
    for shape, need in zip(shapes, needs, strict=True):
        values = gen.standard_normal(shape)
        t = lib.tensor(values, dtype=getattr(lib, dtype))
        if transposed and t.dim() >= 2:
            t = t.mT.contiguous().mT  # the same values, column-major matrices
        out.append(t.requires_grad_(need))
    return out


@needs_torch
@pytest.mark.parametrize("needs", list(NEEDS), ids=list(NEEDS))
@pytest.mark.parametrize("case", list(SHAPES), ids=list(SHAPES))
@pytest.mark.parametrize("transposed", [False, True], ids=["rowmajor", "colmajor"])
def test_graph_and_result_are_pytorchs(case, needs, transposed):
    results = {}
    for lib in (torch, jtensor):
        a, b = _operands(lib, SHAPES[case], NEEDS[needs], transposed=transposed)
        r = a @ b
        results[lib.__name__] = (
            _graph(r.grad_fn),
            tuple(r.shape),
            r.stride(),
            r.is_contiguous(),
            r._base is None,
            r.requires_grad,
            r.detach().numpy(),
        )
    mine, theirs = results["jtensor"], results["torch"]
    assert mine[:-1] == theirs[:-1]
    np.testing.assert_allclose(mine[-1], theirs[-1], rtol=1e-5, atol=1e-6)


@needs_torch
@pytest.mark.parametrize("needs", list(NEEDS), ids=list(NEEDS))
@pytest.mark.parametrize("case", list(SHAPES), ids=list(SHAPES))
def test_gradients_are_pytorchs(case, needs):
    grads = {}
    for lib in (torch, jtensor):
        a, b = _operands(lib, SHAPES[case], NEEDS[needs], dtype="float64")
        r = a @ b
        g = lib.tensor(np.linspace(-1, 2, r.numel()).reshape(tuple(r.shape)))
        r.backward(g)
        grads[lib.__name__] = [
            None if t.grad is None else (t.grad.numpy(), t.grad.stride()) for t in (a, b)
        ]
    for m, t in zip(grads["jtensor"], grads["torch"], strict=True):
        assert (m is None) == (t is None)
        if m is not None:
            np.testing.assert_allclose(m[0], t[0], rtol=1e-12, atol=1e-12)
            assert m[1] == t[1]


@pytest.mark.parametrize("case", [c for c in SHAPES if c != "empty_batch"])
def test_gradcheck_first_and_second_order(case):
    a, b = _operands(jtensor, SHAPES[case], (True, True), dtype="float64")
    assert gradcheck(lambda x, y: x @ y, (a, b))
    assert gradgradcheck(lambda x, y: x @ y, (a, b))


def test_one_trace_event():
    a = jtensor.rand(2, 3, 4, requires_grad=True)
    b = jtensor.rand(4, 5).t().contiguous().t()  # the folded path's non-viewable case too
    with jtensor.trace.record() as t:
        r = a @ b
    ops = [e.name for e in t.events if e.kind != "notice"]
    assert ops == ["matmul"]
    event = [e for e in t.events if e.kind != "notice"][0]
    assert event.outputs[0].grad_fn == "UnsafeViewBackward0"
    assert event.filename == __file__
    assert r.grad_fn.name() == "UnsafeViewBackward0"


@needs_torch
def test_saved_sizes():
    for lib in (torch, jtensor):
        a = lib.rand(2, 3, 4, requires_grad=True)
        r = a @ lib.rand(2, 4, 5)
        assert r.grad_fn._saved_self_sym_sizes == (2, 3, 5)
        assert r.grad_fn.next_functions[0][0].name() == "BmmBackward0"


ERRORS = {
    "shapes": lambda L, a: a @ L.rand(2, 5, 4),
    "batch": lambda L, a: a @ L.rand(3, 4, 5),
    "dtype": lambda L, a: a @ L.rand(2, 4, 5, dtype=L.float64),
    "dtype_folded": lambda L, a: a @ L.rand(4, 5, dtype=L.float64, requires_grad=True),
    "zero_dim": lambda L, a: a @ L.tensor(2.0),
    "out": lambda L, a: L.matmul(a, L.rand(2, 4, 5), out=L.empty(2, 3, 5)),
}


@needs_torch
@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_while_recording(case):
    outcomes = []
    for lib in (torch, jtensor):
        a = lib.rand(2, 3, 4, requires_grad=True)
        try:
            ERRORS[case](lib, a)
            outcomes.append(None)
        except Exception as exc:  # noqa: BLE001 (the type is what is compared)
            outcomes.append(type(exc).__name__)
    assert outcomes[0] == outcomes[1] and outcomes[0] is not None


def test_no_grad_is_one_product(monkeypatch):
    """Without recording (and for 2-D @ 2-D) matmul stays one op, never the steps: the same
    values as recorded."""
    from jtensor.autograd import _composites

    steps = []
    real = _composites.matmul_steps
    monkeypatch.setattr(_composites, "matmul_steps", lambda *a: steps.append(a) or real(*a))
    a, b = _operands(jtensor, SHAPES["4d@3d"], (True, True), dtype="float64")
    with jtensor.no_grad():
        plain = a @ b
    m, w = _operands(jtensor, SHAPES["2d@2d"], (True, True))
    assert (m @ w).grad_fn.name() == "MmBackward0"
    assert steps == []
    recorded = a @ b
    assert len(steps) == 1
    np.testing.assert_array_equal(plain.numpy(), recorded.detach().numpy())


RESHAPES = {
    "t_reshape": lambda a, b: a.t().reshape(-1),
    "t_flatten": lambda a, b: a.t().flatten(),
    "t_flatten_dims": lambda a, b: a.t().flatten(0, 1),
    "t_reshape_as": lambda a, b: a.t().reshape_as(b),
    "view_then_reshape": lambda a, b: a.t().view(4, 3).reshape(12),
    "expand_reshape": lambda a, b: a.expand(2, 3, 4).reshape(6, 4),
    "transpose_flatten": lambda a, b: a[None].expand(2, 3, 4).transpose(0, 1).flatten(1),
    "viewable_permute": lambda a, b: a[None].permute(2, 0, 1).reshape(4, 3),
    "contiguous": lambda a, b: a.reshape(4, 3),
    "flatten_nothing": lambda a, b: a.t().flatten(1, 1),
    "unflatten": lambda a, b: a.t().unflatten(0, (2, 2)),
}


@needs_torch
@pytest.mark.parametrize("case", list(RESHAPES))
def test_reshape_graph_is_pytorchs(case):
    results = []
    for lib in (torch, jtensor):
        a = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        b = lib.zeros(12)
        r = RESHAPES[case](a, b)
        r.backward(lib.tensor(np.linspace(-1, 1, r.numel()).reshape(tuple(r.shape))))
        results.append(
            (
                _graph(r.grad_fn),
                tuple(r.shape),
                r.stride(),
                r._base is None,
                r.detach().numpy().tolist(),
                a.grad.numpy().tolist(),
            )
        )
    assert results[0] == results[1]


def test_reshape_copy_is_one_event_and_gradchecks():
    a = jtensor.rand(3, 4, dtype=jtensor.float64, requires_grad=True)
    with jtensor.trace.record() as t:
        a.t().reshape(-1)
    events = [e for e in t.events if e.kind != "notice"]
    assert [e.name for e in events] == ["t", "reshape"]
    assert events[1].info.get("copied") is True
    assert gradcheck(lambda x: x.t().reshape(-1), (a,))
    assert gradgradcheck(lambda x: x.t().flatten(), (a,))


OTHERS = {
    "outer": lambda L, a, b, x: L.outer(a, b),
    "outer_constant": lambda L, a, b, x: L.outer(a, b.detach()),
    "ger": lambda L, a, b, x: a.ger(b),
    "diff": lambda L, a, b, x: x.diff(),
    "diff_dim0": lambda L, a, b, x: L.diff(x, dim=0),
    "diff_n2": lambda L, a, b, x: L.diff(x, n=2),
    "diff_past_length": lambda L, a, b, x: L.diff(x, n=7),
    "diff_prepend_append": lambda L, a, b, x: L.diff(
        x, prepend=L.zeros(3, 1, dtype=L.float64), append=x[:, :2] * 2
    ),
    "diff_bool": lambda L, a, b, x: (x > 0).diff(),
    "diff_n0": lambda L, a, b, x: L.diff(x, n=0),
}


@needs_torch
@pytest.mark.parametrize("case", list(OTHERS))
def test_outer_and_diff_are_pytorchs(case):
    results = []
    for lib in (torch, jtensor):
        gen = np.random.default_rng(1)
        a, b = (lib.tensor(gen.standard_normal(s), requires_grad=True) for s in ((3,), (4,)))
        x = lib.tensor(gen.standard_normal((3, 5)), requires_grad=True)
        r = OTHERS[case](lib, a, b, x)
        row = [_graph(r.grad_fn), tuple(r.shape), r.stride(), str(r.dtype).split(".")[-1]]
        row.append(r.detach().numpy().tolist())
        if r.requires_grad:
            r.backward(lib.tensor(np.linspace(-1, 1, r.numel()).reshape(tuple(r.shape))))
            row.append([None if t.grad is None else t.grad.numpy().tolist() for t in (a, b, x)])
        results.append(row)
    assert results[0] == results[1]


@needs_torch
@pytest.mark.parametrize(
    "call",
    [
        lambda L, x: L.diff(x, n=-1),
        lambda L, x: L.diff(x, prepend=L.zeros(2, 1)),
        lambda L, x: L.diff(x, dim=3),
        lambda L, x: L.outer(x, x[0]),
    ],
)
def test_errors_while_recording_outer_diff(call):
    outcomes = []
    for lib in (torch, jtensor):
        x = lib.rand(3, 5, requires_grad=True)
        try:
            call(lib, x)
            outcomes.append(None)
        except Exception as exc:  # noqa: BLE001 (the type and message are compared)
            outcomes.append((type(exc).__name__, str(exc).split("\n")[0][:40]))
    assert outcomes[0] == outcomes[1] and outcomes[0] is not None


def test_outer_and_diff_are_one_event_and_gradcheck():
    x = jtensor.rand(3, 5, dtype=jtensor.float64, requires_grad=True)
    a = jtensor.rand(3, dtype=jtensor.float64, requires_grad=True)
    with jtensor.trace.record() as t:
        jtensor.diff(x, n=2)
        jtensor.outer(a, a)
    assert [e.name for e in t.events if e.kind != "notice"] == ["diff", "outer"]
    assert gradcheck(lambda y: jtensor.diff(y, n=2, append=y[:, :1]), (x,))
    assert gradgradcheck(lambda u: jtensor.outer(u, u * 2), (a,))
