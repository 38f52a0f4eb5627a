"""Specs of the NumPy-style splits and index helpers (``_ops/splitting.py``): hsplit, vsplit,
dsplit, split_with_sizes, unravel_index and row_stack (vstack's other name)."""

from tests.harness.conformance import OpSpec, T, arr
from .spec_reductions import case, x234


def x46(lib):
    return T(lib, arr(4, 6))


def x226(lib):
    return T(lib, arr(2, 2, 6))


def idx(lib):
    return lib.tensor([4, 7, 0, -1, 9])


SPECS = [
    OpSpec(
        "hsplit",
        [
            case(lambda lib, x: lib.hsplit(x, 2), x46),
            case(lambda lib, x: lib.hsplit(x, [1, 3]), x46, "indices"),
            case(lambda lib, x: x.hsplit(1, 3), x46, "method-separate-ints"),
            case(lambda lib, x: x.hsplit([4, 2]), x46, "unordered"),
            case(lambda lib, x: lib.hsplit(x, sections=3), x46, "sections-keyword"),
            case(lambda lib, x: lib.hsplit(x, indices=(2, 9)), x46, "indices-keyword-past-end"),
            case(lambda lib, x: lib.hsplit(x[0], 2), x46, "1d"),
            case(lambda lib, x: lib.hsplit(x.t(), 2), x46, "transposed"),
            case(lambda lib, x: lib.hsplit(x, 4), x46, "indivisible-error"),
            case(lambda lib, x: lib.hsplit(x, 0), x46, "zero-error"),
            case(lambda lib, x: lib.hsplit(x, -1), x46, "negative-error"),
            case(lambda lib, x: lib.hsplit(x[0, 0], 2), x46, "0d-error"),
            case(lambda lib, x: lib.hsplit(x, 2.0), x46, "float-error"),
            case(lambda lib, x: lib.hsplit(x, 2), x234, "3d"),
        ],
    ),
    OpSpec(
        "vsplit",
        [
            case(lambda lib, x: lib.vsplit(x, 2), x46),
            case(lambda lib, x: x.vsplit([1]), x46, "indices"),
            case(lambda lib, x: x.vsplit(1, 2), x46, "method-separate-ints"),
            case(lambda lib, x: lib.vsplit(x, 3), x46, "indivisible-error"),
            case(lambda lib, x: lib.vsplit(x[0], 2), x46, "1d-error"),
            case(lambda lib, x: lib.vsplit(x[:, 1:], 4), x46, "strided"),
        ],
    ),
    OpSpec(
        "dsplit",
        [
            case(lambda lib, x: lib.dsplit(x, 2), x226),
            case(lambda lib, x: lib.dsplit(x, [2]), x226, "indices"),
            case(lambda lib, x: x.dsplit(1, 5), x226, "method-separate-ints"),
            case(lambda lib, x: lib.dsplit(x, 4), x226, "indivisible-error"),
            case(lambda lib, x: lib.dsplit(x, 2), x46, "2d-error"),
            case(lambda lib, x: lib.dsplit(x.transpose(0, 2), 3), x226, "transposed"),
        ],
    ),
    OpSpec(
        "split_with_sizes",
        [
            case(lambda lib, x: lib.split_with_sizes(x, [1, 3])),
            case(lambda lib, x: x.split_with_sizes([2, 4], 1), x46, "method-dim"),
            case(lambda lib, x: x.split_with_sizes([0, 6, 0], dim=-1), x46, "zero-sizes"),
            case(
                lambda lib, x: lib.split_with_sizes(x, split_sizes=(3, 1), dim=0), x46, "keywords"
            ),
            case(lambda lib, x: x.split_with_sizes([2, 3], 1), x46, "bad-sum-error"),
            case(lambda lib, x: x.split_with_sizes([-1, 5]), x46, "negative-error"),
            case(lambda lib, x: lib.split_with_sizes(x, 4), x46, "int-error"),
            case(lambda lib, x: lib.split_with_sizes(x[0, 0], [1]), x46, "0d-error"),
            case(lambda lib, x: x.t().split_with_sizes([1, 5]), x46, "transposed"),
        ],
    ),
    OpSpec(
        "row_stack",
        [
            case(lambda lib, x: lib.row_stack([x, x[0]])),
            case(lambda lib, x: lib.row_stack((x[0], x[1]), out=lib.empty(0)), name="out"),
            case(lambda lib, x: lib.row_stack([x.int(), x[0].double()]), name="promote"),
            case(lambda lib: lib.row_stack([]), None, "empty-error"),
        ],
    ),
    OpSpec(
        "unravel_index",
        [
            case(lambda lib, i: lib.unravel_index(i, (2, 4)), idx),
            case(lambda lib, i: lib.unravel_index(i, 5), idx, "int-shape"),
            case(lambda lib, i: lib.unravel_index(i.int(), [3, 1, 2]), idx, "int32"),
            case(lambda lib, i: lib.unravel_index(i.reshape(5, 1)[::2], (3, 3)), idx, "2d"),
            case(lambda lib, i: lib.unravel_index(i[0], (2, 4)), idx, "0d"),
            case(lambda lib, i: lib.unravel_index(i, ()), idx, "empty-shape"),
            case(lambda lib, i: lib.unravel_index(i[:0], (0, 3)), idx, "empty-zero-size"),
            case(lambda lib, i: lib.unravel_index(i.float(), (2, 4)), idx, "float-error"),
            case(lambda lib, i: lib.unravel_index(i > 0, (2, 4)), idx, "bool-error"),
            case(lambda lib, i: lib.unravel_index(i, (-2, 4)), idx, "negative-error"),
            case(lambda lib, i: lib.unravel_index(i, (2.0, 4)), idx, "float-shape-error"),
            case(lambda lib, i: lib.unravel_index(i, (0, 3)), idx, "zero-size-error"),
            case(lambda lib, i: lib.unravel_index(i.abs().to(lib.uint8), (2, 5)), idx, "uint8"),
        ],
    ),
]
