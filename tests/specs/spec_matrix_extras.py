"""Specs of ``_ops/matrix_extras.py``: diagflat, fill_diagonal_, scalar_tensor, rsub and
gradient."""

from tests.harness.conformance import OpSpec, T, arr
from .spec_reductions import case, x234


def tall(lib):
    return T(lib, arr(7, 3))


def cube(lib):
    return T(lib, arr(3, 3, 3))


def v5(lib):
    return T(lib, arr(5))


def coords(lib):
    return T(lib, arr(3, 4)), lib.tensor([0.0, 1.0, 3.0]), lib.tensor([0.0, 0.5, 2.0, 2.5])


SPECS = [
    OpSpec(
        "diagflat",
        [
            case(lambda lib, x: lib.diagflat(x)),
            case(lambda lib, x: lib.diagflat(x, 2), name="above"),
            case(lambda lib, x: x.diagflat(-3), name="below-method"),
            case(lambda lib, x: lib.diagflat(x.t()), name="transposed"),
            case(lambda lib, x: lib.diagflat(x[0, 0]), name="0d"),
            case(lambda lib, x: lib.diagflat(x[:0]), name="empty"),
            case(lambda lib, x: lib.diagflat(x.int(), offset=1), name="int-keyword"),
            case(lambda lib, x: lib.diagflat(x > 0), name="bool"),
            case(lambda lib, x: lib.diagflat(x, 1.5), name="float-offset-error"),
            case(lambda lib, x: lib.diagflat(x.cfloat() * 1j, 1), name="complex"),
        ],
    ),
    OpSpec(
        "fill_diagonal_",
        [
            case(lambda lib, x: x.clone().fill_diagonal_(5)),
            case(lambda lib, x: x.clone().fill_diagonal_(-1.5, True), tall, "wrap-tall"),
            case(lambda lib, x: x.clone().fill_diagonal_(2, wrap=False), tall, "tall-no-wrap"),
            case(
                lambda lib, x: x[:4].clone().fill_diagonal_(2, wrap=True), tall, "not-tall-enough"
            ),
            case(lambda lib, x: x[:5].clone().fill_diagonal_(2, wrap=True), tall, "tall-by-two"),
            case(lambda lib, x: x.t().clone().fill_diagonal_(7, True), tall, "wide-wrap"),
            case(lambda lib, x: x.clone().fill_diagonal_(0), cube, "3d"),
            case(lambda lib, x: x.clone().fill_diagonal_(0), x234, "3d-unequal-error"),
            case(lambda lib, x: x[0].clone().fill_diagonal_(0), name="1d-error"),
            case(lambda lib, x: x.int().fill_diagonal_(2.7), name="int-truncates"),
            case(lambda lib, x: x.clone().fill_diagonal_(lib.tensor(3.0)), name="0d-tensor-value"),
            case(lambda lib, x: x.clone().fill_diagonal_(1j), name="complex-into-real-error"),
            case(lambda lib, x: x.clone().t().fill_diagonal_(4), name="transposed"),
            case(lambda lib, x: x.clone()[:, 1:].fill_diagonal_(4), name="view"),
            case(lambda lib, x: (x > 0).fill_diagonal_(True), name="bool"),
            case(lambda lib, x: x[:0, :0].clone().fill_diagonal_(1), name="empty"),
            case(lambda lib, x: x[:1].clone().fill_diagonal_(1, wrap=True), name="one-row-wrap"),
        ],
    ),
    OpSpec(
        "scalar_tensor",
        [
            case(lambda lib: lib.scalar_tensor(3), None),
            case(lambda lib: lib.scalar_tensor(2.5, dtype=lib.float64), None, "float64"),
            case(lambda lib: lib.scalar_tensor(7, dtype=lib.int64), None, "int64"),
            case(lambda lib: lib.scalar_tensor(True), None, "bool-value"),
            case(lambda lib: lib.scalar_tensor(1 + 2j, dtype=lib.complex64), None, "complex"),
            case(lambda lib: lib.scalar_tensor(1 + 2j), None, "complex-error"),
            case(lambda lib: lib.scalar_tensor(lib.tensor(2.0)), None, "0d-tensor"),
            case(lambda lib: lib.scalar_tensor(1.5, requires_grad=True), None, "requires_grad"),
            case(
                lambda lib: lib.scalar_tensor(1, dtype=lib.int32, requires_grad=True),
                None,
                "int-requires-grad-error",
            ),
            case(lambda lib: lib.scalar_tensor(s=4, device=None), None, "keywords"),
        ],
    ),
    OpSpec(
        "rsub",
        [
            case(lambda lib, x: lib.rsub(x, 2)),
            case(lambda lib, x: lib.rsub(x, x.t().contiguous().t()[0:1], alpha=2), name="tensor"),
            case(lambda lib, x: lib.rsub(x.int(), 2), name="int"),
            case(lambda lib, x: lib.rsub(x.int(), 2.5), name="int-float-promotes"),
            case(lambda lib, x: lib.rsub(x, x.double()), name="promote"),
            case(lambda lib, x: lib.rsub(x > 0, x > 0), name="bool-error"),
            case(lambda lib, x: lib.rsub(x > 0, 1), name="bool-number"),
            case(lambda lib, x: lib.rsub(x.int(), 2, alpha=1.5), name="int-float-alpha-error"),
            case(lambda lib, x: lib.rsub(2, x), name="number-input-error"),
            case(lambda lib, x: lib.rsub(input=x, other=1.5, alpha=-1), name="keywords"),
            case(lambda lib, x: lib.rsub(x.cdouble(), 2, alpha=1 + 1j), name="complex-alpha"),
            case(lambda lib, x: lib.rsub(x, 2, alpha=1j), name="complex-alpha-real-error"),
            case(lambda lib, x: lib.rsub(x.t(), x[0]), name="transposed-broadcast"),
        ],
    ),
    OpSpec(
        "gradient",
        [
            case(lambda lib, x: lib.gradient(x)),
            case(lambda lib, x: lib.gradient(x, spacing=2.0), name="scalar-spacing"),
            case(lambda lib, x: lib.gradient(x, spacing=[0.5, 3]), name="list-spacing"),
            case(lambda lib, x: lib.gradient(x, dim=1), name="dim"),
            case(lambda lib, x: lib.gradient(x, dim=[-1, 0], spacing=(2, 0.25)), name="dims"),
            case(lambda lib, x: lib.gradient(x, edge_order=2), name="edge2"),
            case(
                lambda lib, x: lib.gradient(x.double(), spacing=0.1, edge_order=2),
                name="edge2-double",
            ),
            case(lambda lib, x, a, b: lib.gradient(x, spacing=[a, b]), coords, "coordinates"),
            case(
                lambda lib, x, a, b: lib.gradient(x, spacing=[a, b], edge_order=2),
                coords,
                "coordinates-edge2",
                atol=1e-5,
            ),
            case(
                lambda lib, x, a, b: lib.gradient(x, spacing=[b], dim=1), coords, "coordinates-dim"
            ),
            case(
                lambda lib, x, a, b: lib.gradient(x, spacing=[a.long(), b.double()]),
                coords,
                "coordinates-dtypes",
            ),
            case(lambda lib, x: lib.gradient(x.int()), name="int"),
            case(lambda lib, x: lib.gradient(x.long(), edge_order=2, spacing=2), name="int-edge2"),
            case(lambda lib, x: lib.gradient(x.t()), name="transposed"),
            case(lambda lib, x: lib.gradient(x[:2]), name="size-2"),
            case(lambda lib, x: lib.gradient(x, spacing=lib.tensor(2.0)), name="0d-tensor-spacing"),
            case(lambda lib, x: lib.gradient(x, dim=[]), name="no-dims"),
            case(lambda lib, x: lib.gradient(x[0, 0]), name="0d"),
            case(lambda lib, x: lib.gradient(x, spacing=2j), name="complex-spacing", atol=1e-5),
            case(lambda lib, x: lib.gradient(x.cdouble() * (1 + 1j)), name="complex"),
            case(lambda lib, x: lib.gradient(x, spacing=(True, 1)), name="bool-spacing"),
            case(lambda lib, x: lib.gradient(x.half()), name="half", atol=1e-2, rtol=1e-2),
            case(lambda lib, x: lib.gradient(x), make=v5, name="1d"),
            case(
                lambda lib, x: lib.gradient(x, edge_order=2, spacing=[0.3]),
                make=v5,
                name="1d-edge2",
            ),
            case(lambda lib, x: lib.gradient(x, edge_order=3), name="edge-order-error"),
            case(lambda lib, x: lib.gradient(x, spacing=[2.0]), name="spacing-length-error"),
            case(
                lambda lib, x: lib.gradient(x, spacing=[2.0, 3], dim=1),
                name="spacing-dim-length-error",
            ),
            case(lambda lib, x: lib.gradient(x, dim=(1, 1)), name="repeated-dim-error"),
            case(lambda lib, x: lib.gradient(x, dim=3), name="dim-range-error"),
            case(lambda lib, x: lib.gradient(x[:2], edge_order=2), name="too-short-error"),
            case(lambda lib, x: lib.gradient(x.to(lib.uint8)), name="uint8-error"),
            case(lambda lib, x: lib.gradient(x > 0), name="bool-error"),
            case(
                lambda lib, x, a, b: lib.gradient(x, spacing=[a[None], b]),
                coords,
                "2d-coordinates-error",
            ),
            case(lambda lib, x, a, b: lib.gradient(x, spacing=[a, 2.0]), coords, "mixed-error"),
            case(
                lambda lib, x: lib.gradient(x, spacing=[lib.tensor(2.0), lib.tensor(1.0)]),
                name="0d-coordinates-error",
            ),
            case(lambda lib, x: lib.gradient(x, spacing=2), make=x234, name="3d"),
        ],
    ),
]
