"""``kron`` takes its result's layout, and its refusals, from PyTorch's steps: ATen views both
inputs with interleaved size-1 dims, multiplies the views (TensorIterator lays the product
out like the inputs) and reads the product with ``_unsafe_view``. A transposed input gives
a product that no view can flatten, and PyTorch raises ``view``'s error; other layouts give
a result whose strides follow the inputs'. Recorded, the same steps leave PyTorch's nodes."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def _layout(lib, shape, kind, dtype=None):
    n = int(np.prod(shape))
    arange = lambda *bounds: lib.arange(*bounds, dtype=dtype)  # noqa: E731
    if kind == "contiguous":
        return arange(1.0, n + 1).reshape(shape)
    if kind == "transposed":
        return arange(1.0, n + 1).reshape(shape[::-1]).mT
    if kind == "sliced":
        return arange(1.0, 2 * n + 1).reshape(*shape[:-1], 2 * shape[-1])[..., ::2]
    if kind == "expanded":
        return arange(1.0, shape[-1] + 1).expand(*shape)
    if kind == "overlapping":
        return arange(1.0, n + 1).as_strided(shape, (1,) * len(shape))
    if kind == "permuted3":
        return arange(1.0, n + 1).reshape(shape[1], shape[2], shape[0]).permute(2, 0, 1)
    raise AssertionError(kind)


def _outcome(lib, make):
    try:
        r = make()
    except RuntimeError as e:
        return "raises", str(e).split(" (")[0].split("Use .reshape")[0]
    return tuple(r.shape), tuple(r.stride()), np.asarray(r.tolist()).tobytes()


CASES = [
    ((2, 3), "contiguous", (2, 2), "contiguous"),
    ((2, 3), "transposed", (2, 2), "contiguous"),
    ((2, 2), "contiguous", (3, 2), "transposed"),
    ((2, 3), "sliced", (2, 2), "contiguous"),
    ((2, 3), "expanded", (2, 2), "contiguous"),
    ((2, 3), "overlapping", (2, 2), "contiguous"),
    ((2, 3, 2), "permuted3", (2,), "contiguous"),
    ((3,), "contiguous", (2, 2), "transposed"),
    ((1, 3), "transposed", (2, 2), "contiguous"),
    ((2, 1), "contiguous", (2, 3), "sliced"),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[1]}{c[0]}-{c[3]}{c[2]}" for c in CASES])
@pytest.mark.parametrize("grad", [False, True], ids=["plain", "recorded"])
def test_kron_layouts_match_pytorch(case, grad):
    shape_a, kind_a, shape_b, kind_b = case

    def make(lib):
        a, b = _layout(lib, shape_a, kind_a), _layout(lib, shape_b, kind_b)
        if grad:
            a = a.detach().requires_grad_()  # (a leaf of the same layout)
        return lambda: lib.kron(a, b)

    assert _outcome(jtensor, make(jtensor)) == _outcome(torch, make(torch))


def test_a_recorded_kron_leaves_pytorchs_nodes():
    def nodes(lib):
        a = lib.arange(1.0, 7.0).reshape(2, 3).requires_grad_()
        b = lib.arange(1.0, 5.0).reshape(2, 2).requires_grad_()
        r = lib.kron(a, b)
        mul = r.grad_fn.next_functions[0][0]
        return r.grad_fn.name(), mul.name(), [n.name() for n, _ in mul.next_functions]

    assert (
        nodes(jtensor)
        == nodes(torch)
        == ("UnsafeViewBackward0", "MulBackward0", ["UnsafeViewBackward0", "UnsafeViewBackward0"])
    )


@pytest.mark.parametrize(
    "layout",
    [lambda x: x[:, ::2], lambda x: x[0, :3].expand(2, 3), lambda x: x[:, 1:4]],
    ids=["sliced", "expanded", "offset"],
)
def test_kron_gradients_through_strided_inputs(layout):
    x = jtensor.arange(1.0, 13.0, dtype=jtensor.float64).reshape(2, 6).requires_grad_()
    b = jtensor.arange(1.0, 5.0, dtype=jtensor.float64).reshape(2, 2).requires_grad_()
    assert jtensor.autograd.gradcheck(lambda x, b: jtensor.kron(b, layout(x)), (x, b))
