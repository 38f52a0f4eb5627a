"""Specs of the products (``_ops/products.py``): every matmul rank combination, dtype rules,
shape errors."""

import numpy as np

from tests.harness.conformance import Case, OpSpec, T, arr
from .spec_softmax import case as auto  # make=None when the run takes only lib

NAN = float("nan")
INF = float("inf")


def R(lib, *shape, dtype="float32", seed=0):
    if dtype in ("float16", "bfloat16"):
        return T(lib, arr(*shape, seed=seed), dtype=dtype)
    return T(lib, arr(*shape, dtype=dtype, seed=seed))


def mk(*shapes, dtype="float32"):
    """A ``make`` building one input per shape (different seeds)."""
    return lambda lib: tuple(R(lib, *s, dtype=dtype, seed=i) for i, s in enumerate(shapes))


def case(run, make, name="", **kw):
    return Case(run, make=make, name=name, **kw)


def mat(lib, a, b):
    return lib.matmul(a, b)


MATMUL = [
    case(mat, mk((3,), (3,)), "1d-1d-dot"),
    case(mat, mk((3,), (4,)), "1d-1d-mismatch"),
    case(mat, mk((2, 3), (3,)), "2d-1d"),
    case(mat, mk((2, 3), (4,)), "2d-1d-mismatch"),
    case(mat, mk((3,), (3, 4)), "1d-2d"),
    case(mat, mk((3,), (2, 4)), "1d-2d-mismatch"),
    case(mat, mk((3, 4), (4, 5)), "2d-2d"),
    case(mat, mk((3, 4), (5, 6)), "2d-2d-mismatch"),
    case(mat, mk((10, 3, 4), (4, 5)), "3d-2d"),
    case(mat, mk((10, 3, 4), (5, 6)), "3d-2d-mismatch"),
    case(mat, mk((10, 3, 4), (4,)), "3d-1d"),
    case(mat, mk((10, 3, 4), (5,)), "3d-1d-mismatch"),
    case(mat, mk((4,), (10, 4, 5)), "1d-3d"),
    case(mat, mk((3,), (10, 4, 5)), "1d-3d-mismatch"),
    case(mat, mk((6, 5), (6, 5, 7)), "2d-3d-broadcast"),
    case(mat, mk((3, 4), (10, 5, 5)), "2d-3d-mismatch"),
    case(mat, mk((5, 3, 4), (5, 4, 6)), "3d-3d"),
    case(mat, mk((2, 1, 3, 4), (5, 4, 6)), "4d-3d-broadcast"),
    case(mat, mk((2, 1, 3, 4), (5, 5, 6)), "4d-3d-mismatch"),
    case(mat, mk((2, 3, 4), (5, 4, 6)), "batch-mismatch"),
    case(mat, mk((1, 3, 4), (2, 1, 4, 2)), "batch-broadcast-both"),
    case(mat, mk((3, 4), (4, 5), dtype="int64"), "int64"),
    case(mat, mk((3, 4), (4, 5), dtype="int32"), "int32"),
    case(mat, mk((2, 3, 4), (4,), dtype="int64"), "int-3d-1d"),
    case(mat, mk((3, 4), (4, 5), dtype="bool"), "bool-error"),
    case(mat, mk((3,), (3,), dtype="bool"), "bool-dot-error"),
    case(mat, mk((3, 4), (4, 5), dtype="float16"), "float16", atol=2e-2, rtol=1e-2),
    case(mat, mk((3, 4), (4, 5), dtype="bfloat16"), "bfloat16", atol=1e-1, rtol=2e-2),
    case(mat, mk((3, 4), (4, 5), dtype="float64"), "float64"),
    case(lambda lib, a, b: lib.matmul(a, b.double()), mk((3, 4), (4, 5)), "f32-f64-error"),
    case(lambda lib, a, b: lib.matmul(a, b.double()), mk((3,), (3,)), "dot-dtype-error"),
    case(lambda lib, a, b: lib.matmul(a, b.double()), mk((2, 3, 4), (4,)), "mv-dtype-error"),
    case(lambda lib, a, b: lib.matmul(a, b.to(lib.complex64)), mk((3, 4), (4, 5)),
         "complex-mix-error"),
    case(lambda lib, a, b: lib.matmul(a.to(lib.complex64), b.to(lib.complex64)),
         mk((3, 4), (4, 5)), "complex", atol=1e-5),
    case(lambda lib, a, b: lib.matmul(a[0, 0], b), mk((3, 4), (4,)), "0d-error"),
    case(lambda lib, a, b: lib.matmul(a, b[0]), mk((3,), (4,)), "0d-right-error"),
    case(lambda lib, a, b: a.t() @ b.t(), mk((4, 3), (5, 4)), "transposed"),
    case(lambda lib, a, b: a.transpose(1, 2) @ b, mk((10, 4, 3), (4, 5)), "3d-transposed"),
    case(lambda lib, a, b: a[:, ::2] @ b[::2], mk((3, 8), (8, 5)), "strided"),
    case(lambda lib, a, b: a.expand(4, 3, 4) @ b, mk((3, 4), (4, 5)), "expanded"),
    case(lambda lib, a, b: a @ b[:, None].expand(4, 5, 2), mk((3, 4), (4, 5)),
         "expanded-right"),
    case(lambda lib, a, b: a[:0] @ b, mk((3, 4), (4, 5)), "empty-rows"),
    case(lambda lib, a, b: a[:, :0] @ b[:0], mk((3, 4), (4, 5)), "empty-inner"),
    case(lambda lib, a, b: a[:0] @ b, mk((3, 3, 4), (4, 5)), "empty-batch"),
    case(lambda lib, a, b: lib.matmul(a, b, out=lib.empty(0)), mk((3, 4), (4, 5)), "out"),
    case(lambda lib, a, b: lib.matmul(a, b, out=lib.empty(7)), mk((3, 4), (4, 5)),
         "out-resized"),
    case(lambda lib, a, b: a.matmul(b), mk((3, 4), (4, 5)), "method"),
    case(lambda lib, a, b: a.__rmatmul__(b), mk((3, 4), (5, 3)), "rmatmul"),
    case(lambda lib, a, b: a @ [1.0, 2.0, 3.0, 4.0], mk((3, 4), (4,)), "list-operand"),
    case(lambda lib, a, b: [[1.0, 2.0, 3.0]] @ a, mk((3, 4), (4,)), "list-left-operand"),
    case(lambda lib, a, b: lib.matmul(a, [1.0, 2.0]), mk((3, 4), (4,)), "list-arg"),
]

SPECS = [
    OpSpec("matmul", MATMUL),
    OpSpec("mm", [
        case(lambda lib, a, b: lib.mm(a, b), mk((3, 4), (4, 5))),
        case(lambda lib, a, b: a.mm(b), mk((3, 4), (4, 5)), "method"),
        case(lambda lib, a, b: lib.mm(a.t(), b.t()), mk((4, 3), (5, 4)), "transposed"),
        case(lambda lib, a, b: lib.mm(a, b), mk((3, 4), (4,)), "1d-error"),
        case(lambda lib, a, b: lib.mm(a, b), mk((2, 3, 4), (4, 5)), "3d-error"),
        case(lambda lib, a, b: lib.mm(a, b), mk((3, 4), (5, 6)), "mismatch"),
        case(lambda lib, a, b: lib.mm(a, b.double()), mk((3, 4), (4, 5)), "dtype-error"),
        case(lambda lib, a, b: lib.mm(a, b), mk((3, 4), (4, 5), dtype="int64"), "int"),
        case(lambda lib, a, b: lib.mm(a, b), mk((3, 4), (4, 5), dtype="bool"), "bool-error"),
        case(lambda lib, a, b: lib.mm(a, b), mk((3, 4), (4, 5), dtype="float16"), "float16",
             atol=2e-2, rtol=1e-2),
        case(lambda lib, a, b: lib.mm(a, b, out=lib.empty(0)), mk((3, 4), (4, 5)), "out"),
        case(lambda lib, a, b: lib.mm(a, b, out=lib.empty(0, dtype=lib.float64)),
             mk((3, 4), (4, 5)), "out-dtype-error"),
        # torch.spmm: mm under its sparse name (dense operands too; no method form). Its
        # sparse operands are tested in tests/sparse/test_sparse_products_dispatch.py.
        case(lambda lib, a, b: lib.spmm(a, b), mk((3, 4), (4, 5)), "spmm"),
        case(lambda lib, a, b: lib.spmm(a.t(), b.t()), mk((4, 3), (5, 4)), "spmm-transposed"),
        case(lambda lib, a, b: lib.spmm(a, b, out=lib.empty(0)), mk((3, 4), (4, 5)), "spmm-out"),
        case(lambda lib, a, b: lib.spmm(a, b), mk((3, 4), (5, 6)), "spmm-mismatch"),
        case(lambda lib, a, b: lib.spmm(a, b.double()), mk((3, 4), (4, 5)), "spmm-dtype-error"),
        case(lambda lib, a, b: lib.spmm(a, b), mk((3, 4), (4, 5), dtype="int64"), "spmm-int"),
        case(lambda lib, a, b: lib.spmm(input=a, mat2=b), mk((3, 4), (4, 5)), "spmm-keywords"),
    ]),
    OpSpec("bmm", [
        case(lambda lib, a, b: lib.bmm(a, b), mk((2, 3, 4), (2, 4, 5))),
        case(lambda lib, a, b: a.bmm(b.transpose(1, 2)), mk((2, 3, 4), (2, 5, 4)), "transposed"),
        case(lambda lib, a, b: lib.bmm(a, b), mk((3, 4), (4, 5)), "2d-error"),
        case(lambda lib, a, b: lib.bmm(a, b), mk((2, 3, 4), (4, 5)), "2d-right-error"),
        case(lambda lib, a, b: lib.bmm(a, b), mk((2, 3, 4), (3, 4, 5)), "batch-mismatch"),
        case(lambda lib, a, b: lib.bmm(a, b), mk((2, 3, 4), (2, 5, 5)), "size-mismatch"),
        case(lambda lib, a, b: lib.bmm(a, b), mk((1, 3, 4), (2, 4, 5)), "no-broadcast"),
        case(lambda lib, a, b: lib.bmm(a, b.double()), mk((2, 3, 4), (2, 4, 5)), "dtype-error"),
        case(lambda lib, a, b: lib.bmm(a, b), mk((2, 3, 4), (2, 4, 5), dtype="int32"), "int"),
        case(lambda lib, a, b: lib.bmm(a[:0], b[:0]), mk((2, 3, 4), (2, 4, 5)), "empty"),
        case(lambda lib, a, b: lib.bmm(a, b, out=lib.empty(0)), mk((2, 3, 4), (2, 4, 5)), "out"),
    ]),
    OpSpec("dot", [
        case(lambda lib, a, b: lib.dot(a, b), mk((5,), (5,))),
        case(lambda lib, a, b: a.dot(b), mk((5,), (5,), dtype="int64"), "int"),
        case(lambda lib, a, b: lib.dot(a[::2], b[1::2]), mk((6,), (6,)), "strided"),
        case(lambda lib, a, b: lib.dot(a, b.double()), mk((5,), (5,)), "dtype-error"),
        case(lambda lib, a, b: lib.dot(a, b), mk((5, 1), (5,)), "2d-error"),
        case(lambda lib, a, b: lib.dot(a, b), mk((5,), (4,)), "size-error"),
        case(lambda lib, a, b: lib.dot(a, b), mk((5,), (5,), dtype="bool"), "bool-error"),
        case(lambda lib, a, b: lib.dot(a[:0], b[:0]), mk((5,), (5,)), "empty"),
        case(lambda lib, a, b: lib.dot(a, b), mk((5,), (5,), dtype="float16"), "float16",
             atol=1e-2, rtol=1e-2),
    ]),
    OpSpec("vdot", [
        case(lambda lib, a, b: lib.vdot(a, b), mk((5,), (5,))),
        case(lambda lib, a, b: lib.vdot(a.to(lib.complex64) * (1 + 2j), b.to(lib.complex64)),
             mk((5,), (5,)), "complex-conjugates", atol=1e-5),
        case(lambda lib, a, b: lib.vdot(a, b.double()), mk((5,), (5,)), "dtype-error"),
        case(lambda lib, a, b: lib.vdot(a, b), mk((5,), (4,)), "size-error"),
    ]),
    OpSpec("outer", [
        case(lambda lib, a, b: lib.outer(a, b), mk((3,), (4,))),
        case(lambda lib, a, b: lib.ger(a, b), mk((3,), (4,)), "ger"),
        case(lambda lib, a, b: a.outer(b.int()), mk((3,), (4,)), "promotes"),
        case(lambda lib, a, b: lib.outer(a, b.double()), mk((3,), (4,)), "promotes-f64"),
        case(lambda lib, a, b: lib.outer(a, b), mk((3,), (4,), dtype="bool"), "bool"),
        case(lambda lib, a, b: lib.outer(a, b), mk((3, 1), (4,)), "2d-error"),
        case(lambda lib, a, b: lib.outer(a, b), mk((3,), (4, 1)), "2d-right-error"),
        case(lambda lib, a, b: lib.outer(a[::2], b[:0]), mk((6,), (4,)), "strided-empty"),
    ]),
    OpSpec("mv", [
        case(lambda lib, a, b: lib.mv(a, b), mk((3, 4), (4,))),
        case(lambda lib, a, b: a.t().mv(b), mk((4, 3), (4,)), "transposed"),
        case(lambda lib, a, b: lib.mv(a, b), mk((3, 4), (5,)), "mismatch"),
        case(lambda lib, a, b: lib.mv(a, b), mk((3, 4), (4, 1)), "2d-vec-error"),
        case(lambda lib, a, b: lib.mv(a, b.double()), mk((3, 4), (4,)), "dtype-error"),
        case(lambda lib, a, b: lib.mv(a, b), mk((3, 4), (4,), dtype="int64"), "int"),
    ]),
    OpSpec("addmm", [
        case(lambda lib, c, a, b: lib.addmm(c, a, b), mk((5,), (3, 4), (4, 5)), "broadcast"),
        case(lambda lib, c, a, b: lib.addmm(c, a, b, beta=0.5, alpha=2), mk((3, 5), (3, 4), (4, 5)),
             "beta-alpha"),
        case(lambda lib, c, a, b: c.addmm(a, b, beta=0), mk((3, 5), (3, 4), (4, 5)), "beta0"),
        case(lambda lib, c, a, b: lib.addmm(c * float("nan"), a, b, beta=0),
             mk((3, 5), (3, 4), (4, 5)), "beta0-ignores-nan"),
        case(lambda lib, c, a, b: lib.addmm(c, a, b), mk((4,), (3, 4), (4, 5)), "bad-input"),
        case(lambda lib, c, a, b: lib.addmm(c, a, b), mk((5,), (3, 4), (5, 5)), "mismatch"),
        case(lambda lib, c, a, b: lib.addmm(c.double(), a, b), mk((5,), (3, 4), (4, 5)),
             "dtype-error"),
        case(lambda lib, c, a, b: lib.addmm(c, a, b), mk((5,), (3, 4), (4,)), "1d-error"),
        case(lambda lib, c, a, b: lib.addmm(c, a, b), mk((3, 5), (3, 4), (4, 5), dtype="int64"),
             "int"),
        case(lambda lib, c, a, b: lib.addmm(c, a, b, out=lib.empty(0)), mk((5,), (3, 4), (4, 5)),
             "out"),
    ]),
    OpSpec("baddbmm", [
        case(lambda lib, c, a, b: lib.baddbmm(c, a, b), mk((5,), (2, 3, 4), (2, 4, 5))),
        case(lambda lib, c, a, b: c.baddbmm(a, b, beta=2, alpha=0.5), mk((2, 3, 5), (2, 3, 4),
                                                                        (2, 4, 5)), "scaled"),
        case(lambda lib, c, a, b: lib.baddbmm(c, a, b), mk((5,), (2, 3, 4), (3, 4, 5)),
             "batch-mismatch"),
        case(lambda lib, c, a, b: lib.baddbmm(c, a, b), mk((4,), (2, 3, 4), (2, 4, 5)),
             "bad-input"),
    ]),
    OpSpec("trace", [
        case(lambda lib, a: lib.trace(a), mk((3, 4))),
        case(lambda lib, a: a.trace(), mk((4, 3)), "tall"),
        case(lambda lib, a: a.t().trace(), mk((4, 3)), "transposed"),
        case(lambda lib, a: a.trace(), mk((3, 4), dtype="int32"), "int-to-int64"),
        case(lambda lib, a: a.trace(), mk((3, 4), dtype="float16"), "float16", atol=1e-2),
        case(lambda lib, a: a.trace(), mk((3, 4), dtype="bool"), "bool-error"),
        case(lambda lib, a: a.trace(), mk((3,)), "1d-error"),
        case(lambda lib, a: a[:0].trace(), mk((3, 4)), "empty"),
    ]),
    OpSpec("kron", [
        case(lambda lib, a, b: lib.kron(a, b), mk((2, 3), (4, 5))),
        case(lambda lib, a, b: lib.kron(a, b.long()), mk((2, 3), (5,)), "mixed-rank-dtype"),
        case(lambda lib, a, b: a.kron(b), mk((2,), (2, 2, 2)), "rank-pad"),
        # PyTorch 2.13 raises a view error for kron of a transposed input (its bug; jtensor
        # returns the product), so only a contiguous slice is compared here.
        case(lambda lib, a, b: lib.kron(a[1:], b), mk((3, 3), (2, 2)), "sliced"),
    ]),
    OpSpec("tensordot", [
        case(lambda lib, a, b: lib.tensordot(a, b), mk((3, 4, 5), (4, 5, 6))),
        case(lambda lib, a, b: lib.tensordot(a, b, 1), mk((3, 4, 5), (5, 6)), "dims1"),
        case(lambda lib, a, b: lib.tensordot(a, b, 0), mk((3,), (2,)), "dims0-outer"),
        case(lambda lib, a, b: lib.tensordot(a, b, ([0, 1], [1, 0])), mk((3, 4, 5), (4, 3, 6)),
             "lists"),
        case(lambda lib, a, b: lib.tensordot(a, b, dims=([1], [0])), mk((3, 4), (4, 5)),
             "kw-lists"),
        case(lambda lib, a, b: lib.tensordot(a, b, ([0], [0])), mk((3, 4, 5), (4, 6)),
             "mismatch"),
        case(lambda lib, a, b: lib.tensordot(a, b, 3), mk((3, 4), (4, 5)), "too-many"),
        case(lambda lib, a, b: lib.tensordot(a, b, -1), mk((3, 4), (4, 5)), "negative"),
        case(lambda lib, a, b: lib.tensordot(a, b, ([0], [0, 1])), mk((3, 4), (3, 5)),
             "uneven-lists"),
        case(lambda lib, a, b: lib.tensordot(a, b.double(), 1), mk((3, 4), (4, 6)),
             "dtype-error"),
    ]),
    OpSpec("einsum", [
        case(lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), mk((3, 4), (4, 5)), "matmul"),
        case(lambda lib, a, b: lib.einsum("ij,jk", a, b), mk((3, 4), (4, 5)), "implicit"),
        case(lambda lib, a, b: lib.einsum("ij,jk->ik", [a, b]), mk((3, 4), (4, 5)), "list"),
        case(lambda lib, a, b: lib.einsum("bij,bjk->bik", a, b), mk((2, 3, 4), (2, 4, 5)),
             "batched"),
        case(lambda lib, a, b: lib.einsum("...ij,...jk->...ik", a, b), mk((2, 3, 4), (2, 4, 5)),
             "ellipsis"),
        case(lambda lib, a, b: lib.einsum("...ij,...jk", a, b), mk((2, 3, 4), (1, 4, 5)),
             "ellipsis-broadcast-implicit"),
        case(lambda lib, a, b: lib.einsum("i,j->ij", a, b), mk((3,), (4,)), "outer"),
        case(lambda lib, a, b: lib.einsum("i,i->", a, b), mk((3,), (3,)), "dot"),
        case(lambda lib, a, b: lib.einsum("ij,ij->i", a, b), mk((3, 4), (3, 4)), "rowwise"),
        case(lambda lib, a, b: lib.einsum("ij,kj->ik", a, b), mk((3, 4), (5, 4)), "abT"),
        case(lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), mk((3, 1), (4, 5)),
             "size1-broadcast"),
        case(lambda lib, a: lib.einsum("ij->ji", a), mk((3, 4)), "transpose-view"),
        case(lambda lib, a: lib.einsum("ii->i", a), mk((3, 3)), "diagonal-view"),
        case(lambda lib, a: lib.einsum("ba", a), mk((3, 4)), "implicit-transpose"),
        case(lambda lib, a: lib.einsum("ij->", a), mk((3, 4)), "sum-all"),
        case(lambda lib, a: lib.einsum("ijk->ki", a), mk((2, 3, 4)), "sum-permute"),
        case(lambda lib, a: lib.einsum("ii", a), mk((3, 3)), "trace"),
        case(lambda lib, a: lib.einsum("i j -> j i", a), mk((3, 4)), "spaces"),
        case(lambda lib, a: lib.einsum("...j->j...", a), mk((2, 3, 4)), "ellipsis-move"),
        case(lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), mk((3, 4), (4, 5), dtype="int64"),
             "int"),
        case(lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), mk((3, 4), (4, 5),
                                                               dtype="float16"),
             "float16", atol=2e-2, rtol=1e-2),
        case(lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), mk((3, 4), (5, 5)), "size-error"),
        case(lambda lib, a: lib.einsum("ij,jk", a), mk((3, 4)), "too-few-operands"),
        case(lambda lib, a, b: lib.einsum("ij", a, b), mk((3, 4), (4, 5)), "too-many-operands"),
        case(lambda lib, a: lib.einsum("ijk", a), mk((3, 4)), "too-many-subscripts"),
        case(lambda lib, a: lib.einsum("ij->ik", a), mk((3, 4)), "unknown-output"),
        case(lambda lib, a: lib.einsum("ij->ii", a), mk((3, 4)), "repeated-output"),
        case(lambda lib, a: lib.einsum("i1", a), mk((3, 4)), "bad-char"),
        case(lambda lib, a: lib.einsum("ii->i", a), mk((3, 4)), "diagonal-size-error"),
        case(lambda lib, a: lib.einsum("ij->i..", a), mk((3, 4)), "bad-dots"),
        case(lambda lib, a, b: lib.einsum("ij,jk->ik", a, b.double()), mk((3, 4), (4, 5)),
             "dtype-error"),
    ]),
]


# ---------------------------------------------------------------------- addmv, addbmm, addr
def addmv_cases():
    return [
        case(lambda lib, c, a, b: lib.addmv(c, a, b), mk((3,), (3, 4), (4,)), "basic"),
        case(lambda lib, c, a, b: lib.addmv(c, a, b), mk((1,), (3, 4), (4,)), "broadcast"),
        case(lambda lib, c, a, b: lib.addmv(c, a, b), mk((), (3, 4), (4,)), "0d-input"),
        case(lambda lib, c, a, b: c.addmv(a, b, beta=0.5, alpha=2), mk((3,), (3, 4), (4,)),
             "method-scaled"),
        case(lambda lib, c, a, b: lib.addmv(c * NAN, a, b, beta=0), mk((3,), (3, 4), (4,)),
             "beta0-ignores-nan"),
        case(lambda lib, c, a, b: lib.addmv(c, a.t(), b[::2]), mk((3,), (4, 3), (8,)),
             "layouts"),
        case(lambda lib, c, a, b: lib.addmv(c, a, b), mk((3,), (3, 4), (4,), dtype="int64"),
             "int"),
        case(lambda lib, c, a, b: lib.addmv(c, a, b), mk((3,), (3, 4), (4,), dtype="float64"),
             "float64"),
        case(lambda lib, c, a, b: lib.addmv(c, a, b), mk((3,), (3, 4), (4,), dtype="float16"),
             "float16", atol=2e-2, rtol=1e-2),
        case(lambda lib, c, a, b: lib.addmv(c, a, b), mk((3,), (3, 4), (5,)), "mismatch"),
        case(lambda lib, c, a, b: lib.addmv(c, a, b), mk((2,), (3, 4), (4,)), "bad-input"),
        case(lambda lib, c, a, b: lib.addmv(c.double(), a, b), mk((3,), (3, 4), (4,)),
             "dtype-error"),
        case(lambda lib, c, a, b: lib.addmv(c, a, b), mk((3,), (3, 4), (4, 1)), "2d-vec-error"),
        case(lambda lib, c, a, b: lib.addmv(c, a, b, out=lib.empty(0)), mk((3,), (3, 4), (4,)),
             "out"),
    ]


def addmv__cases():
    return [
        case(lambda lib, c, a, b: c.addmv_(a, b), mk((3,), (3, 4), (4,)), "method"),
        case(lambda lib, c, a, b: lib.addmv_(c, a, b, beta=2, alpha=0.5),
             mk((3,), (3, 4), (4,)), "function-scaled"),
        case(lambda lib, c, a, b: c[::2].addmv_(a, b), mk((6,), (3, 4), (4,)), "strided-self"),
        case(lambda lib, c, a, b: c.addmv_(a, b), mk((1,), (3, 4), (4,)), "shape-error"),
        case(lambda lib, c, a, b: c.addmv_(a, b), mk((3,), (3, 4), (5,)), "mismatch"),
    ]


def addbmm_cases():
    return [
        case(lambda lib, c, a, b: lib.addbmm(c, a, b), mk((3, 5), (2, 3, 4), (2, 4, 5)),
             "basic"),
        case(lambda lib, c, a, b: lib.addbmm(c, a, b), mk((5,), (2, 3, 4), (2, 4, 5)),
             "broadcast"),
        case(lambda lib, c, a, b: c.addbmm(a, b, beta=2, alpha=0.5),
             mk((3, 5), (2, 3, 4), (2, 4, 5)), "method-scaled"),
        case(lambda lib, c, a, b: lib.addbmm(c * NAN, a, b, beta=0),
             mk((3, 5), (2, 3, 4), (2, 4, 5)), "beta0-ignores-nan"),
        case(lambda lib, c, a, b: lib.addbmm(c, a.transpose(1, 2), b),
             mk((3, 5), (2, 4, 3), (2, 4, 5)), "transposed"),
        case(lambda lib, c, a, b: lib.addbmm(c, a, b), mk((3, 5), (0, 3, 4), (0, 4, 5)),
             "empty-batch"),
        case(lambda lib, c, a, b: lib.addbmm(c, a, b),
             mk((3, 5), (2, 3, 4), (2, 4, 5), dtype="int64"), "int"),
        case(lambda lib, c, a, b: lib.addbmm(c, a, b),
             mk((3, 5), (2, 3, 4), (2, 4, 5), dtype="float16"), "float16", atol=5e-2,
             rtol=1e-2),
        case(lambda lib, c, a, b: lib.addbmm(c, a, b), mk((3, 5), (2, 3, 4), (3, 4, 5)),
             "batch-mismatch"),
        case(lambda lib, c, a, b: lib.addbmm(c, a, b), mk((3, 5), (2, 3, 4), (2, 3, 5)),
             "inner-mismatch"),
        case(lambda lib, c, a, b: lib.addbmm(c, a, b), mk((4,), (2, 3, 4), (2, 4, 5)),
             "bad-input"),
        case(lambda lib, c, a, b: lib.addbmm(c, a, b), mk((3, 5), (3, 4), (2, 4, 5)),
             "2d-error"),
        case(lambda lib, c, a, b: lib.addbmm(c, a, b, out=lib.empty(0)),
             mk((3, 5), (2, 3, 4), (2, 4, 5)), "out"),
    ]


def addbmm__cases():
    return [
        case(lambda lib, c, a, b: c.addbmm_(a, b), mk((3, 5), (2, 3, 4), (2, 4, 5)), "basic"),
        case(lambda lib, c, a, b: c.t().addbmm_(a, b, alpha=2),
             mk((5, 3), (2, 3, 4), (2, 4, 5)), "transposed-self"),
        case(lambda lib, c, a, b: c.addbmm_(a, b), mk((5,), (2, 3, 4), (2, 4, 5)),
             "resizes-self"),
        case(lambda lib, c, a, b: c.addbmm_(a, b), mk((4, 5), (2, 3, 4), (2, 4, 5)),
             "shape-error"),
    ]


def addr_cases():
    return [
        case(lambda lib, c, a, b: lib.addr(c, a, b), mk((3, 4), (3,), (4,)), "basic"),
        case(lambda lib, c, a, b: lib.addr(c, a, b), mk((4,), (3,), (4,)), "broadcast"),
        case(lambda lib, c, a, b: c.addr(a, b, beta=0.5, alpha=2), mk((3, 4), (3,), (4,)),
             "method-scaled"),
        case(lambda lib, c, a, b: lib.addr(c * NAN, a, b, beta=0), mk((3, 4), (3,), (4,)),
             "beta0-ignores-nan"),
        case(lambda lib, c, a, b: lib.addr(c, a[::2], b), mk((3, 4), (6,), (4,)), "strided"),
        case(lambda lib, c, a, b: lib.addr(c, a, b), mk((3, 4), (3,), (4,), dtype="int64"),
             "int"),
        case(lambda lib, c, a, b: lib.addr(c, a.double(), b), mk((3, 4), (3,), (4,)),
             "promote"),
        case(lambda lib, c, a, b: lib.addr(c, a, b), mk((3, 4), (3,), (4,), dtype="bool"),
             "bool"),
        case(lambda lib, c, a, b: lib.addr(c, a, b), mk((3, 5), (3,), (4,)), "bad-input"),
        case(lambda lib, c, a, b: lib.addr(c, a, b), mk((3, 4), (3, 1), (4,)), "2d-error"),
        case(lambda lib, c, a, b: lib.addr(c, a, b, out=lib.empty(0)), mk((3, 4), (3,), (4,)),
             "out"),
    ]


def addr__cases():
    return [
        case(lambda lib, c, a, b: c.addr_(a, b), mk((3, 4), (3,), (4,)), "basic"),
        case(lambda lib, c, a, b: c.t().addr_(a, b, beta=2), mk((4, 3), (3,), (4,)),
             "transposed-self"),
        case(lambda lib, c, a, b: c.addr_(a, b), mk((4,), (3,), (4,)), "shape-error"),
        case(lambda lib, c, a, b: c.addr_(a, b), mk((1, 4), (3,), (4,)), "broadcast-error"),
        case(lambda lib, c, a, b: c.long().addr_(a, b), mk((3, 4), (3,), (4,)),
             "cast-error"),
    ]


SPECS += [
    OpSpec("addmv", addmv_cases()),
    OpSpec("addmv_", addmv__cases()),
    OpSpec("addbmm", addbmm_cases()),
    OpSpec("addbmm_", addbmm__cases()),
    OpSpec("addr", addr_cases()),
    OpSpec("addr_", addr__cases()),
]


# ------------------------------------------------------------ cross, cdist, inner, chain_matmul
def a43(lib):
    return T(lib, arr(4, 3)), T(lib, arr(4, 3, seed=1))


def c32(lib):
    return T(lib, arr(3, 2)), T(lib, arr(4, 2, seed=1))


SPECS += [
    OpSpec("cross", [
        auto(lambda lib, a, b: lib.cross(a, b, dim=1), make=a43, name="dim1"),
        auto(lambda lib, a, b: lib.cross(a, b), make=a43, name="default_dim"),
        auto(lambda lib, a, b: a.cross(b, -1), make=a43, name="method"),
        auto(lambda lib, a, b: lib.cross(a.t(), b.t(), dim=0), make=a43, name="transposed"),
        auto(lambda lib, a, b: lib.cross(a, b[:1], dim=1), make=a43, name="broadcast"),
        auto(lambda lib, a, b: lib.cross(a[::2], b[1::2], dim=1), make=a43, name="strided"),
        auto(lambda lib: lib.cross(T(lib, arr(3, 3, 4)), T(lib, arr(3, 3, 4, seed=1))),
             name="default_first_dim"),
        auto(lambda lib, a, b: lib.cross(a.double(), b.double(), dim=1), make=a43,
             name="float64"),
        auto(lambda lib, a, b: lib.cross(a.long(), b.long(), dim=1), make=a43, name="int64"),
        auto(lambda lib, a, b: lib.cross(a.half(), b.half(), dim=1), make=a43, name="float16",
             atol=1e-2, rtol=1e-2),
        auto(lambda lib, a, b: lib.cross(a, b, dim=1, out=lib.empty(0)), make=a43, name="out"),
        auto(lambda lib: lib.cross(T(lib, arr(4, 5)), T(lib, arr(4, 5))), name="no_size3_error"),
        auto(lambda lib, a, b: lib.cross(a, b, dim=0), make=a43, name="dim_size_error"),
        auto(lambda lib, a, b: lib.cross(a, b[0], dim=1), make=a43, name="ndim_error"),
        auto(lambda lib, a, b: lib.cross(a, b.double(), dim=1), make=a43, name="dtype_error"),
        auto(lambda lib, a, b: lib.cross(a.bool(), b.bool(), dim=1), make=a43, name="bool_error"),
        auto(lambda lib, a, b: lib.cross(a, b, dim=5), make=a43, name="dim_range_error"),
    ]),
    OpSpec("cdist", [
        auto(lambda lib, a, b: lib.cdist(a, b), make=c32, name="p2"),
        auto(lambda lib, a, b: lib.cdist(a, b, p=1), make=c32, name="p1"),
        auto(lambda lib, a, b: lib.cdist(a, b, p=0), make=c32, name="p0"),
        auto(lambda lib, a, b: lib.cdist(a, b, p=3.5), make=c32, name="p3.5"),
        auto(lambda lib, a, b: lib.cdist(a, b, p=0.5), make=c32, name="p0.5", rtol=1e-4),
        auto(lambda lib, a, b: lib.cdist(a, b, p=float("inf")), make=c32, name="pinf"),
        auto(lambda lib, a, b: lib.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
             make=c32, name="compute_mode"),
        auto(lambda lib: lib.cdist(T(lib, arr(2, 3, 2)), T(lib, arr(4, 2, seed=1))),
             name="batch_error_2d"),
        auto(lambda lib: lib.cdist(T(lib, arr(2, 3, 2)), T(lib, arr(1, 4, 2, seed=1))),
             name="batch_broadcast"),
        auto(lambda lib: lib.cdist(T(lib, arr(2, 3)).t(), T(lib, arr(2, 4, seed=1)).t()),
             name="transposed"),
        auto(lambda lib, a, b: lib.cdist(a.double(), b.double()), make=c32, name="float64"),
        auto(lambda lib: lib.cdist(T(lib, arr(0, 2)), T(lib, arr(4, 2))), name="empty_rows"),
        auto(lambda lib: lib.cdist(T(lib, arr(3, 0)), T(lib, arr(4, 0))), name="empty_cols"),
        auto(lambda lib: lib.cdist(T(lib, arr(3, 2)), T(lib, arr(4, 3))), name="cols_error"),
        auto(lambda lib, a, b: lib.cdist(a, b, p=-1), make=c32, name="p_error"),
        auto(lambda lib, a, b: lib.cdist(a.long(), b.long()), make=c32, name="int_error"),
        auto(lambda lib, a, b: lib.cdist(a, b.double()), make=c32, name="dtype_error"),
        auto(lambda lib, a, b: lib.cdist(a.half(), b.half()), make=c32, name="half_error"),
        auto(lambda lib, a, b: lib.cdist(a[0], b[0]), make=c32, name="1d_error"),
    ]),
    OpSpec("inner", [
        auto(lambda lib, a, b: lib.inner(a, b), make=c32, name="2d"),
        auto(lambda lib, a, b: a.inner(b), make=c32, name="method"),
        auto(lambda lib, a, b: lib.inner(a[0], b), make=c32, name="1d_2d"),
        auto(lambda lib, a, b: lib.inner(a[0], b[0]), make=c32, name="1d_1d"),
        auto(lambda lib, a, b: lib.inner(a[0, 0], b), make=c32, name="scalar"),
        auto(lambda lib, a, b: lib.inner(T(lib, np.array(2)), b), make=c32, name="int_scalar"),
        auto(lambda lib, a, b: lib.inner(a.t().contiguous().t(), T(lib, arr(2, 4)).t()),
             make=c32, name="noncontig"),
        auto(lambda lib: lib.inner(T(lib, arr(3, 2, 5)), T(lib, arr(4, 5, seed=1))),
             name="3d"),
        auto(lambda lib: lib.inner(T(lib, arr(5, 3)).t(), T(lib, arr(4, 5, seed=1))),
             name="transposed"),
        auto(lambda lib, a, b: lib.inner(a.long(), b.long()), make=c32, name="int64"),
        auto(lambda lib, a, b: lib.inner(a, b, out=lib.empty(0)), make=c32, name="out"),
        auto(lambda lib: lib.inner(T(lib, arr(3, 2)), T(lib, arr(4, 3))), name="shape_error"),
        auto(lambda lib, a, b: lib.inner(a, b.double()), make=c32, name="dtype_error"),
        auto(lambda lib, a, b: lib.inner(a.long(), b), make=c32, name="int_float_error"),
        auto(lambda lib, a, b: lib.inner(a.bool(), b.bool()), make=c32, name="bool_error"),
    ]),
    OpSpec("chain_matmul", [
        auto(lambda lib: lib.chain_matmul(T(lib, arr(2, 3)), T(lib, arr(3, 4, seed=1)),
                                          T(lib, arr(4, 1, seed=2))), name="three"),
        auto(lambda lib: lib.chain_matmul(T(lib, arr(2, 3)), T(lib, arr(4, 3, seed=1)).t()),
             name="transposed"),
        auto(lambda lib, x: lib.chain_matmul(x), name="one"),
        auto(lambda lib, x: lib.chain_matmul(x.t()), name="one_transposed"),
        auto(lambda lib: lib.chain_matmul(T(lib, arr(2, 3, dtype="int64")),
                                          T(lib, arr(3, 2, dtype="int64", seed=1))),
             name="int64"),
        auto(lambda lib: lib.chain_matmul(T(lib, arr(2, 3, dtype="float64")),
                                          T(lib, arr(3, 2, dtype="float64", seed=1)),
                                          out=lib.empty(0, dtype=lib.float64)), name="out"),
        auto(lambda lib: lib.chain_matmul(), name="none_error"),
        auto(lambda lib: lib.chain_matmul(T(lib, arr(3))), name="1d_error"),
        auto(lambda lib: lib.chain_matmul(T(lib, arr(2, 3)), T(lib, arr(3))),
             name="1d_second_error"),
        auto(lambda lib: lib.chain_matmul(T(lib, arr(2, 3)), T(lib, arr(4, 1))),
             name="shape_error"),
        auto(lambda lib: lib.chain_matmul(T(lib, arr(2, 3)), T(lib, arr(3, 1, dtype="float64"))),
             name="dtype_error"),
    ]),
]
