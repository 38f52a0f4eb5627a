"""``einsum`` as PyTorch computes it (``_ops/products.einsum_steps``).

PyTorch's ``einsum`` is no kernel of its own: ATen aligns each operand (diagonals for
repeated labels, unsqueezes for missing ones, one permute), contracts the operands left to
right, each pair as one ``bmm`` of permuted and reshaped operands (``mul`` when nothing is
summed), and views the contracted dims away. Autograd records each of those ops, so the
graph a learner draws is theirs node for node, and the result is a view where PyTorch's is.
Checked against PyTorch for fixed equations and for generated ones: every node (name,
saved sizes and dims, edge order), the result's shape, strides, offset and whether it is a
view, the values, and float64 gradients; then gradcheck, the sublist form, errors, dtypes,
the no-grad path and the trace."""

import random

import numpy as np
import pytest

import jtensor
from jtensor.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")

SAVED = ("_saved_self_sym_sizes", "_saved_dims", "_saved_dim", "_saved_keepdim")

FIXED = {
    "matmul": ("ij,jk->ik", [(3, 4), (4, 5)]),
    "matmul_transposed_out": ("ij,jk->ki", [(3, 4), (4, 5)]),
    "attention_scores": ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    "outer": ("i,j->ij", [(3,), (4,)]),
    "transpose": ("ij->ji", [(3, 4)]),
    "column_sums": ("ij->j", [(3, 4)]),
    "total": ("ij->", [(3, 4)]),
    "diagonal": ("ii->i", [(3, 3)]),
    "trace": ("ii", [(3, 3)]),
    "hadamard": ("ij,ij->ij", [(3, 4), (3, 4)]),
    "dot": ("i,i->", [(3,), (3,)]),
    "batched": ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    "ellipsis_broadcast": ("...ij,...jk", [(2, 3, 4), (4, 5)]),
    "ellipsis_out_first": ("...ij,jk->...ik", [(2, 1, 3, 4), (4, 5)]),
    "ellipsis_summed": ("...i,...i->i", [(2, 3, 4), (3, 4)]),
    "chain_of_three": ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
    "bilinear": ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    "implicit": ("ij,jk", [(3, 4), (4, 5)]),
    "upper_and_lower": ("Ab,bC->CA", [(3, 4), (4, 2)]),
    "size_one_broadcast": ("ij,ij->i", [(3, 1), (1, 4)]),
    "repeated_in_both": ("iij,jj->i", [(3, 3, 4), (4, 4)]),
    "empty": ("ij,jk->ik", [(0, 4), (4, 5)]),
}


def _describe(fn):
    """Every node reached from ``fn``, depth first in edge order, with its saved sizes and
    dims."""
    if fn is None:
        return ["None"]
    out = [fn.name()]
    for key in SAVED:
        try:
            value = getattr(fn, key)
        except (AttributeError, RuntimeError):
            continue
        out.append(f"{key}={tuple(value) if isinstance(value, (list, tuple)) else value}")
    if fn.name().endswith("AccumulateGrad"):
        return out
    for nxt, nr in fn.next_functions:
        out.append(f"-> {nr}")
        out.extend(_describe(nxt))
    return out


def _operands(lib, shapes, needs=None, dtype="float64", seed=0):
    gen = np.random.default_rng(seed)
    needs = needs or [True] * len(shapes)
    return [
        lib.tensor(gen.standard_normal(s), dtype=getattr(lib, dtype)).requires_grad_(n)
        for s, n in zip(shapes, needs, strict=True)
    ]


def _outcome(lib, equation, shapes, needs=None):
    ops = _operands(lib, shapes, needs)
    r = lib.einsum(equation, *ops)
    meta = (
        tuple(r.shape),
        r.stride(),
        r.storage_offset(),
        r.is_contiguous(),
        r._base is None,
        _describe(r.grad_fn),
    )
    grads = None
    if r.requires_grad and r.numel():
        r.backward(lib.tensor(np.linspace(-1, 2, r.numel()).reshape(tuple(r.shape))))
        grads = [None if t.grad is None else (t.grad.numpy(), t.grad.stride()) for t in ops]
    return meta, r.detach().numpy(), grads


def _strides_that_matter(grad):
    values, strides = grad
    return [st for size, st in zip(values.shape, strides, strict=True) if size != 1]


def _compare(equation, shapes, needs=None):
    mine, theirs = (_outcome(lib, equation, shapes, needs) for lib in (jtensor, torch))
    assert mine[0] == theirs[0]
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-12, atol=1e-12)
    assert (mine[2] is None) == (theirs[2] is None)
    for m, t in zip(mine[2] or (), theirs[2] or (), strict=True):
        assert (m is None) == (t is None)
        if m is not None:
            np.testing.assert_allclose(m[0], t[0], rtol=1e-12, atol=1e-12)
            # (the strides of size-1 dims may differ: PyTorch keeps a gradient whose
            # strides match the leaf's on the other dims, whatever they are on those)
            assert _strides_that_matter(m) == _strides_that_matter(t)


@needs_torch
@pytest.mark.parametrize("case", list(FIXED))
@pytest.mark.parametrize("needs", ["all", "first_only", "none"])
def test_fixed_equations_are_pytorchs(case, needs):
    equation, shapes = FIXED[case]
    pattern = {
        "all": [True] * len(shapes),
        "first_only": [True] + [False] * (len(shapes) - 1),
        "none": [False] * len(shapes),
    }[needs]
    _compare(equation, shapes, pattern)


def _generated(seed, count):
    """Random equations of 1-3 operands over 5 labels of sizes 1-4 (size-1 dims broadcast),
    with a random explicit output: the contraction order, the early sums and PyTorch's
    operand swap inside each pair all get exercised."""
    rnd = random.Random(seed)
    cases = []
    while len(cases) < count:
        sizes = {c: rnd.choice([1, 2, 3, 4]) for c in "abcde"}
        terms = [
            "".join(rnd.sample("abcde", rnd.randint(1, 4))) for _ in range(rnd.choice([1, 2, 2, 3]))
        ]
        used = sorted(set("".join(terms)))
        out = rnd.sample(used, rnd.randint(0, len(used)))
        cases.append(
            (",".join(terms) + "->" + "".join(out), [tuple(sizes[c] for c in t) for t in terms])
        )
    return cases


@needs_torch
@pytest.mark.parametrize("block", range(4))
def test_generated_equations_are_pytorchs(block):
    for equation, shapes in _generated(block, 60):
        _compare(equation, shapes)


@pytest.mark.parametrize(
    "equation,shapes",
    [
        FIXED[k]
        for k in ("matmul", "batched", "chain_of_three", "diagonal", "repeated_in_both", "bilinear")
    ],
)
def test_gradcheck_first_and_second_order(equation, shapes):
    ops = _operands(jtensor, shapes)
    assert gradcheck(lambda *xs: jtensor.einsum(equation, *xs), tuple(ops))
    assert gradgradcheck(lambda *xs: jtensor.einsum(equation, *xs), tuple(ops))


def test_no_grad_gives_the_same_bits_and_layout():
    for equation, shapes in FIXED.values():
        ops = _operands(jtensor, shapes, dtype="float32")
        recorded = jtensor.einsum(equation, *ops)
        with jtensor.no_grad():
            plain = jtensor.einsum(equation, *ops)
        assert plain.grad_fn is None
        assert (plain.shape, plain.stride()) == (recorded.shape, recorded.stride())
        np.testing.assert_array_equal(plain.detach().numpy(), recorded.detach().numpy())


def test_one_trace_event():
    a = jtensor.rand(3, 4, requires_grad=True)
    b = jtensor.rand(4, 5, requires_grad=True)
    with jtensor.trace.record() as t:
        r = jtensor.einsum("ij,jk->ik", a, b)
    events = [e for e in t.events if e.kind != "notice"]
    assert [e.name for e in events] == ["einsum"]
    assert events[0].outputs[0].grad_fn == "ViewBackward0" == r.grad_fn.name()


@needs_torch
def test_one_operand_only_permuted_is_a_view_of_it():
    for lib in (torch, jtensor):
        b = lib.rand(4, 5)
        v = lib.einsum("ij->ji", b)
        d = lib.einsum("ii->i", b[:, :4])
        b[1, 1] = 7.0
        assert v._base is b and v[1, 1] == 7.0 and d[1] == 7.0


@needs_torch
@pytest.mark.parametrize(
    "args",
    [
        lambda L, a, b: (a, [0, 1], b, [1, 2], [0, 2]),
        lambda L, a, b: (a, [0, 1], b, [1, 2]),
        lambda L, a, b: (a, [Ellipsis, 1], b, [1, 2], [Ellipsis, 2]),
        lambda L, a, b: (a, [26, 27], b, [27, 28]),
        lambda L, a, b: ("ij,jk", [a, b]),
        lambda L, a, b: ("ij,jk", (a, b)),
    ],
    ids=["explicit", "implicit", "ellipsis", "lowercase", "list", "tuple"],
)
def test_call_forms_are_pytorchs(args):
    results = []
    for lib in (torch, jtensor):
        a, b = _operands(lib, [(3, 4), (4, 5)])
        r = lib.einsum(*args(lib, a, b))
        results.append((tuple(r.shape), r.stride(), _describe(r.grad_fn), r.detach().numpy()))
    assert results[0][:3] == results[1][:3]
    np.testing.assert_allclose(results[0][3], results[1][3], rtol=1e-12)


ERRORS = {
    "no_operands": lambda L: L.einsum("ij"),
    "sublist_out_of_range": lambda L: L.einsum(L.ones(2, 3), [0, 60]),
    "ellipsis_sizes": lambda L: L.einsum("...ij,...jk", L.ones(2, 3, 4), L.ones(5, 4, 6)),
    "label_sizes": lambda L: L.einsum("i,i", L.ones(3), L.ones(4)),
    "repeated_sizes": lambda L: L.einsum("ii", L.ones(3, 4)),
    "too_few_operands": lambda L: L.einsum("ij,jk", L.ones(2, 3)),
    "too_many_operands": lambda L: L.einsum("ij", L.ones(2, 3), L.ones(3)),
    "batch_sizes": lambda L: L.einsum("bij,bjk->bik", L.ones(2, 3, 4), L.ones(3, 4, 5)),
    "bad_label": lambda L: L.einsum("i1", L.ones(2, 3)),
    "output_twice": lambda L: L.einsum("ij->ii", L.ones(2, 3)),
    "output_unknown": lambda L: L.einsum("ij->k", L.ones(2, 3)),
    "dtypes": lambda L: L.einsum("ij,jk", L.ones(2, 3), L.ones(3, 2, dtype=L.float64)),
    "bool_product": lambda L: L.einsum(
        "ij,jk->ik", L.ones(2, 3, dtype=L.bool), L.ones(3, 2, dtype=L.bool)
    ),
    "not_a_tensor": lambda L: L.einsum("ij", [[1.0]]),
}


@needs_torch
@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_are_pytorchs(case):
    raised = []
    for lib in (torch, jtensor):
        with pytest.raises(Exception) as info:  # noqa: PT011 (the type is compared below)
            ERRORS[case](lib)
        raised.append((type(info.value).__name__, str(info.value).splitlines()[0]))
    assert raised[1][0] == raised[0][0]
    if case not in ("dtypes", "not_a_tensor", "bool_product"):
        assert raised[1][1] == raised[0][1]


@needs_torch
@pytest.mark.parametrize(
    "equation,shapes,dtype",
    [
        ("ij,jk->ik", [(2, 3), (3, 4)], "int64"),
        ("i,j->ij", [(2,), (3,)], "bool"),
        ("ij->", [(2, 3)], "bool"),
        ("ij,jk->ik", [(2, 3), (3, 4)], "float16"),
        ("ij,jk->ik", [(2, 3), (3, 4)], "complex128"),
        ("ij->j", [(2, 3)], "int32"),
    ],
)
def test_dtypes_are_pytorchs(equation, shapes, dtype):
    results = []
    for lib in (torch, jtensor):
        gen = np.random.default_rng(1)
        ops = [
            lib.tensor(gen.integers(-2, 3, s) + (1j if dtype == "complex128" else 0))
            for s in shapes
        ]
        ops = [t.to(getattr(lib, dtype)) for t in ops]
        r = lib.einsum(equation, *ops)
        results.append((str(r.dtype).split(".")[-1], tuple(r.shape), r.stride(), r.tolist()))
    assert results[0] == results[1]
