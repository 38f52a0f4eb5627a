"""Specs of ``torch.linalg`` (``jtensor.linalg``) and the top-level det/logdet/slogdet/inverse.

Decompositions whose factors are fixed only up to sign or phase (qr, eigh's eigenvectors,
svd's U and Vh) are compared through reconstructions, plus a layout-only case
(``check_values=False``).
"""

import math

from tests.harness.conformance import Case, OpSpec, T, arr


def R(lib, *shape, dtype="float32", seed=0):
    return T(lib, arr(*shape, dtype=dtype, seed=seed))


def mk(*shapes, dtype="float32"):
    return lambda lib: tuple(R(lib, *s, dtype=dtype, seed=i) for i, s in enumerate(shapes))


def spd(*shape, dtype="float64"):
    """A batch of symmetric positive-definite matrices."""
    def make(lib):
        a = R(lib, *shape, dtype=dtype)
        n = shape[-1]
        return (a @ a.mT + n * lib.eye(n, dtype=a.dtype),)
    return make


def cplx(*shape, dtype="complex128"):
    def make(lib):
        data = arr(*shape, dtype="float64") + 1j * arr(*shape, dtype="float64", seed=1)
        return (T(lib, data.astype(dtype)),)
    return make


def herm(*shape):
    def make(lib):
        (a,) = cplx(*shape)(lib)
        n = shape[-1]
        return (a @ a.mH + n * lib.eye(n, dtype=a.dtype),)
    return make


def case(run, make, name="", **kw):
    return Case(run, make=make, name=name, **kw)


def singular(lib):
    return (T(lib, [[1.0, 2.0], [2.0, 4.0]]),)


F64 = {"atol": 1e-9, "rtol": 1e-7}
F32 = {"atol": 1e-4, "rtol": 1e-4}

SPECS = [
    OpSpec("linalg_vector_norm", [
        case(lambda lib, a: lib.linalg.vector_norm(a), mk((3, 4)), "default"),
        case(lambda lib, a: lib.linalg.vector_norm(a, 1, dim=1), mk((3, 4)), "l1-dim"),
        case(lambda lib, a: lib.linalg.vector_norm(a, math.inf, dim=(0, 2), keepdim=True),
             mk((2, 3, 4)), "inf-keepdim"),
        case(lambda lib, a: lib.linalg.vector_norm(a, -math.inf), mk((3, 4)), "-inf"),
        case(lambda lib, a: lib.linalg.vector_norm(a, 0), mk((3, 4)), "l0"),
        case(lambda lib, a: lib.linalg.vector_norm(a, 3.5, dim=-1), mk((3, 4)), "p3.5", **F32),
        case(lambda lib, a: lib.linalg.vector_norm(a, -1, dim=-1), mk((3, 4)), "p-1", **F32),
        case(lambda lib, a: lib.linalg.vector_norm(a, dtype=lib.float64), mk((3, 4)),
             "dtype"),
        case(lambda lib, a: lib.linalg.vector_norm(a), cplx(3, 4), "complex"),
        case(lambda lib, a: lib.linalg.vector_norm(a), mk((3, 4), dtype="float64"), "f64"),
        case(lambda lib, a: lib.linalg.vector_norm(a[0, 0]), mk((3, 4)), "0d"),
        case(lambda lib, a: lib.linalg.vector_norm(a), mk((3, 4), dtype="int64"),
             "int-error"),
        case(lambda lib, a: lib.linalg.vector_norm(a.half()), mk((3, 4)), "half",
             atol=1e-2, rtol=1e-2),
        case(lambda lib, a: lib.linalg.vector_norm(a, dim=2), mk((3, 4)), "bad-dim"),
        case(lambda lib, a: lib.linalg.vector_norm(a[:0], math.inf), mk((3, 4)),
             "empty-inf-error"),
        case(lambda lib, a: lib.linalg.vector_norm(a[:0], math.inf, dim=1), mk((3, 4)),
             "empty-inf-other-dim"),
        case(lambda lib, a: lib.linalg.vector_norm(a[:0]), mk((3, 4)), "empty-2"),
        # dtype= only widens, and keeps the input's kind (real/complex).
        case(lambda lib, a: lib.linalg.vector_norm(a, dtype=lib.float32),
             mk((3, 4), dtype="float64"), "dtype-narrowing-error"),
        case(lambda lib, a: lib.linalg.vector_norm(a, dtype=lib.float16), mk((3, 4)),
             "dtype-half-narrowing-error"),
        case(lambda lib, a: lib.linalg.vector_norm(a.half(), dtype=lib.bfloat16), mk((3, 4)),
             "dtype-half-to-bfloat16-error"),
        case(lambda lib, a: lib.linalg.vector_norm(a.half(), dtype=lib.float32), mk((3, 4)),
             "dtype-half-widened"),
        case(lambda lib, a: lib.linalg.vector_norm(a, dtype=lib.float64),
             mk((3, 4), dtype="float64"), "dtype-same"),
        case(lambda lib, a: lib.linalg.vector_norm(a, dtype=lib.complex64), mk((3, 4)),
             "dtype-complex-for-real-error"),
        case(lambda lib, a: lib.linalg.vector_norm(a, dtype=lib.float64), cplx(3, 4),
             "dtype-real-for-complex-error"),
        case(lambda lib, a: lib.linalg.vector_norm(a, dtype=lib.complex128), cplx(3, 4),
             "dtype-complex-widened"),
        case(lambda lib, a: lib.linalg.vector_norm(a.to(lib.complex128), dtype=lib.complex64),
             cplx(3, 4), "dtype-complex-narrowing-error"),
        case(lambda lib, a: lib.linalg.vector_norm(a, dtype=lib.int64), mk((3, 4)),
             "dtype-int-error"),
    ]),
    OpSpec("linalg_matrix_norm", [
        case(lambda lib, a: lib.linalg.matrix_norm(a), mk((2, 3, 4)), "fro"),
        case(lambda lib, a: lib.linalg.matrix_norm(a, "nuc"), mk((2, 3, 4)), "nuc", **F32),
        case(lambda lib, a: lib.linalg.matrix_norm(a, 2), mk((3, 4)), "2", **F32),
        case(lambda lib, a: lib.linalg.matrix_norm(a, -2), mk((3, 4)), "-2", **F32),
        case(lambda lib, a: lib.linalg.matrix_norm(a, 1), mk((3, 4)), "1"),
        case(lambda lib, a: lib.linalg.matrix_norm(a, -1), mk((3, 4)), "-1"),
        case(lambda lib, a: lib.linalg.matrix_norm(a, math.inf), mk((3, 4)), "inf"),
        case(lambda lib, a: lib.linalg.matrix_norm(a, -math.inf), mk((3, 4)), "-inf"),
        case(lambda lib, a: lib.linalg.matrix_norm(a, 1, dim=(2, 0), keepdim=True),
             mk((2, 3, 4)), "dims-keepdim"),
        case(lambda lib, a: lib.linalg.matrix_norm(a), cplx(3, 4), "complex"),
        case(lambda lib, a: lib.linalg.matrix_norm(a), mk((4,)), "1d-error"),
        case(lambda lib, a: lib.linalg.matrix_norm(a, 3), mk((3, 4)), "bad-ord"),
        case(lambda lib, a: lib.linalg.matrix_norm(a), mk((3, 4), dtype="int64"), "int-error"),
        case(lambda lib, a: lib.linalg.matrix_norm(a, dtype=lib.float32),
             mk((3, 4), dtype="float64"), "dtype-narrowing-error"),
        case(lambda lib, a: lib.linalg.matrix_norm(a, dtype=lib.float64), mk((3, 4)),
             "dtype-widened"),
    ]),
    OpSpec("linalg_norm", [
        case(lambda lib, a: lib.linalg.norm(a), mk((2, 3, 4)), "flat"),
        case(lambda lib, a: lib.linalg.norm(a, 1), mk((4,)), "vector-ord"),
        case(lambda lib, a: lib.linalg.norm(a, 1), mk((3, 4)), "matrix-ord"),
        case(lambda lib, a: lib.linalg.norm(a, "fro"), mk((3, 4)), "fro"),
        case(lambda lib, a: lib.linalg.norm(a, "nuc", dim=(0, 1)), mk((3, 4, 2)), "nuc-dim",
             **F32),
        case(lambda lib, a: lib.linalg.norm(a, dim=1, keepdim=True), mk((3, 4)), "dim"),
        case(lambda lib, a: lib.linalg.norm(a, math.inf, dim=(1, 2)), mk((2, 3, 4)),
             "inf-dims"),
        case(lambda lib, a: lib.linalg.norm(a, 2), mk((2, 3, 4)), "3d-ord-error"),
        case(lambda lib, a: lib.linalg.norm(a, "fro", dim=1), mk((3, 4)), "fro-vector-error"),
        case(lambda lib, a: lib.linalg.norm(a), mk((3, 4), dtype="int32"), "int-error"),
        case(lambda lib, a: lib.linalg.norm(a), cplx(3, 4), "complex"),
        case(lambda lib, a: lib.linalg.norm(a, dtype=lib.float32), mk((4,), dtype="float64"),
             "dtype-narrowing-error"),
        case(lambda lib, a: lib.linalg.norm(a, "fro", dtype=lib.float32),
             mk((3, 4), dtype="float64"), "matrix-dtype-narrowing-error"),
    ]),
    OpSpec("linalg_det", [
        case(lambda lib, a: lib.linalg.det(a), mk((3, 3)), "2d", **F32),
        case(lambda lib, a: lib.linalg.det(a), mk((2, 4, 4), dtype="float64"), "batched", **F64),
        case(lambda lib, a: lib.linalg.det(a), singular, "singular"),
        case(lambda lib, a: lib.linalg.det(a), cplx(3, 3), "complex", **F64),
        case(lambda lib, a: lib.linalg.det(a), mk((3, 4)), "non-square"),
        case(lambda lib, a: lib.linalg.det(a), mk((3,)), "1d"),
        case(lambda lib, a: lib.linalg.det(a), mk((3, 3), dtype="int64"), "int-error"),
    ]),
    OpSpec("det", [
        case(lambda lib, a: lib.det(a), mk((2, 3, 3), dtype="float64"), "function", **F64),
        case(lambda lib, a: a.det(), mk((3, 3), dtype="float64"), "method", **F64),
        case(lambda lib, a: lib.det(a), mk((3, 4)), "non-square"),
    ]),
    OpSpec("linalg_slogdet", [
        case(lambda lib, a: lib.linalg.slogdet(a), mk((2, 3, 3), dtype="float64"), "batched",
             **F64),
        case(lambda lib, a: lib.linalg.slogdet(a).logabsdet, mk((3, 3), dtype="float64"),
             "field", **F64),
        case(lambda lib, a: lib.linalg.slogdet(a), cplx(3, 3), "complex", **F64),
        case(lambda lib, a: lib.linalg.slogdet(a), singular, "singular"),
        case(lambda lib, a: lib.linalg.slogdet(a), mk((3, 4)), "non-square"),
        case(lambda lib, a: type(lib.linalg.slogdet(a)).__name__, mk((3, 3)), "type-name"),
    ]),
    OpSpec("slogdet", [
        case(lambda lib, a: lib.slogdet(a), mk((2, 3, 3), dtype="float64"), "function", **F64),
        case(lambda lib, a: a.slogdet().sign, mk((3, 3), dtype="float64"), "method"),
        case(lambda lib, a: type(lib.slogdet(a)).__name__, mk((3, 3)), "type-name"),
        case(lambda lib, a: tuple(lib.slogdet(a, out=(lib.empty(0, dtype=lib.float64),
                                                      lib.empty(5, dtype=lib.float64)))),
             mk((2, 3, 3), dtype="float64"), "out", **F64),
        case(lambda lib, a: lib.slogdet(a, out=[lib.empty(0), lib.empty(0)]).logabsdet,
             mk((3, 3)), "out-list", **F32),
        case(lambda lib, a: lib.slogdet(a, out=(lib.empty(0), lib.empty(0))),
             mk((3, 3), dtype="float64"), "out-dtype-error"),
        case(lambda lib, a: lib.slogdet(a, out=(lib.empty(0),)), mk((3, 3)), "out-one-error"),
        case(lambda lib, a: lib.slogdet(a, out=lib.empty(0)), mk((3, 3)), "out-tensor-error"),
    ]),
    OpSpec("logdet", [
        case(lambda lib, a: lib.logdet(a), spd(2, 3, 3), "spd", **F64),
        case(lambda lib, a: a.logdet(), mk((4, 3, 3), dtype="float64"), "negative-nan", **F64),
        case(lambda lib, a: lib.logdet(a), singular, "singular-inf"),
        case(lambda lib, a: lib.logdet(a), cplx(3, 3), "complex", **F64),
        case(lambda lib, a: lib.logdet(a), mk((3, 3), dtype="int64"), "int-error"),
    ]),
    OpSpec("linalg_inv", [
        case(lambda lib, a: lib.linalg.inv(a), mk((3, 3), dtype="float64"), "2d", **F64),
        case(lambda lib, a: lib.linalg.inv(a), mk((2, 4, 4), dtype="float64"), "batched",
             **F64),
        case(lambda lib, a: lib.linalg.inv(a), mk((3, 3)), "float32", **F32),
        case(lambda lib, a: lib.linalg.inv(a), cplx(3, 3), "complex", **F64),
        case(lambda lib, a: lib.linalg.inv(a), singular, "singular-error"),
        case(lambda lib, a: lib.linalg.inv(a), mk((3, 4)), "non-square"),
        case(lambda lib, a: lib.linalg.inv(a), mk((3, 3), dtype="int64"), "int-error"),
        case(lambda lib, a: lib.linalg.inv(a.mT), mk((3, 3), dtype="float64"), "transposed",
             **F64),
    ]),
    OpSpec("inverse", [
        case(lambda lib, a: lib.inverse(a), mk((2, 3, 3), dtype="float64"), "function", **F64),
        case(lambda lib, a: a.inverse(), mk((3, 3), dtype="float64"), "method", **F64),
        case(lambda lib, a: lib.inverse(a), singular, "singular-error"),
        case(lambda lib, a: lib.inverse(a, out=lib.empty(0, dtype=lib.float64)),
             mk((2, 3, 3), dtype="float64"), "out", **F64),
        case(lambda lib, a: lib.inverse(a, out=lib.empty(3, 3, 2, dtype=lib.float64).permute(
            2, 0, 1)), mk((2, 3, 3), dtype="float64"), "out-permuted", **F64),
        case(lambda lib, a: lib.inverse(a, out=lib.empty(3, 3, dtype=lib.float64)),
             mk((3, 3), dtype="float64"), "out-row-major", **F64),
        case(lambda lib, a: lib.inverse(a, out=lib.empty(7, dtype=lib.float64)),
             mk((3, 3), dtype="float64"), "out-resized", **F64),
        case(lambda lib, a: lib.inverse(a, out=lib.empty(0)), mk((3, 3), dtype="float64"),
             "out-dtype-error"),
        case(lambda lib, a: lib.inverse(a, out=lib.empty(0)), singular, "out-singular-error"),
    ]),
    OpSpec("linalg_solve", [
        case(lambda lib, a, b: lib.linalg.solve(a, b), mk((3, 3), (3, 2), dtype="float64"),
             "matrix", **F64),
        case(lambda lib, a, b: lib.linalg.solve(a, b), mk((3, 3), (3,), dtype="float64"),
             "vector", **F64),
        case(lambda lib, a, b: lib.linalg.solve(a, b), mk((2, 3, 3), (2, 3), dtype="float64"),
             "batched-vector", **F64),
        case(lambda lib, a, b: lib.linalg.solve(a, b), mk((4, 2, 3, 3), (4, 2, 3),
                                                           dtype="float64"),
             "batched-vector-4d", **F64),
        case(lambda lib, a, b: lib.linalg.solve(a, b), mk((1, 3, 3), (5, 1, 3),
                                                           dtype="float64"),
             "vector-shape-error"),
        case(lambda lib, a, b: lib.linalg.solve(a, b), mk((2, 3, 3), (3, 4), dtype="float64"),
             "broadcast", **F64),
        case(lambda lib, a, b: lib.linalg.solve(a, b, left=False),
             mk((3, 3), (2, 3), dtype="float64"), "right", **F64),
        case(lambda lib, a, b: lib.linalg.solve(a, b), mk((3, 3), (4, 2), dtype="float64"),
             "shape-error"),
        # left=False: a B shaped like a vector (batch) is a k x 1 column, so it doesn't fit.
        case(lambda lib, a, b: lib.linalg.solve(a, b, left=False),
             mk((2, 3, 3), (2, 3), dtype="float64"), "right-batched-vector-error"),
        case(lambda lib, a, b: lib.linalg.solve(a, b, left=False),
             mk((3, 3), (3,), dtype="float64"), "right-vector-error"),
        case(lambda lib, a, b: lib.linalg.solve(a, b, left=False),
             mk((2, 1, 1), (2, 1), dtype="float64"), "right-vector-1x1-error"),
        case(lambda lib, a, b: lib.linalg.solve(a, b, left=False),
             mk((2, 3, 3), (2, 4, 3), dtype="float64"), "right-batched", **F64),
        case(lambda lib, a, b: lib.linalg.solve(a, b, left=False),
             mk((2, 3, 3), (3, 2, 3), dtype="float64"), "right-batch-mismatch-error"),
        case(lambda lib, a, b: lib.linalg.solve(a, b), mk((3, 3), ()), "0d-b-error"),
        case(lambda lib, a, b: lib.linalg.solve(a, b), mk((3, 3), (3, 2)), "float32", **F32),
        case(lambda lib, a, b: lib.linalg.solve(a, b.double()), mk((3, 3), (3, 2)),
             "dtype-error"),
        case(lambda lib, a, b: lib.linalg.solve(a * 0, b), mk((3, 3), (3, 2)),
             "singular-error"),
        case(lambda lib, a, b: lib.linalg.solve(a, b), mk((3, 3), (3, 2), dtype="int64"),
             "int-error"),
    ]),
    OpSpec("linalg_cholesky", [
        case(lambda lib, a: lib.linalg.cholesky(a), spd(3, 3), "2d", **F64),
        case(lambda lib, a: lib.linalg.cholesky(a), spd(2, 4, 4), "batched", **F64),
        case(lambda lib, a: lib.linalg.cholesky(a, upper=True), spd(3, 3), "upper", **F64),
        case(lambda lib, a: lib.linalg.cholesky(a), herm(3, 3), "complex", **F64),
        case(lambda lib, a: lib.linalg.cholesky(a), lambda lib: (-lib.eye(3),), "not-pd"),
        case(lambda lib, a: lib.linalg.cholesky(a), mk((3, 4)), "non-square"),
    ]),
    OpSpec("linalg_qr", [
        case(lambda lib, a: lib.linalg.qr(a), mk((2, 4, 3), dtype="float64"), "layout",
             check_values=False),
        case(lambda lib, a: lib.linalg.qr(a, mode="complete"), mk((4, 3), dtype="float64"),
             "complete-layout", check_values=False),
        case(lambda lib, a: lib.linalg.qr(a, mode="r")[0], mk((4, 3)), "r-mode-empty-q"),
        case(lambda lib, a: lib.linalg.qr(a, mode="r")[1].abs(), mk((4, 3), dtype="float64"),
             "r-mode", **F64),
        case(lambda lib, a: (lambda q, r: q @ r)(*lib.linalg.qr(a)),
             mk((2, 4, 3), dtype="float64"), "reconstruct", **F64),
        case(lambda lib, a: (lambda q, r: q @ r)(*lib.linalg.qr(a, mode="complete")),
             mk((3, 5), dtype="float64"), "reconstruct-wide", **F64),
        case(lambda lib, a: (lambda q, r: q.mT @ q)(*lib.linalg.qr(a)),
             mk((5, 3), dtype="float64"), "orthonormal", **F64),
        case(lambda lib, a: lib.linalg.qr(a)[1].abs(), mk((4, 3), dtype="float64"),
             "r-abs", **F64),
        case(lambda lib, a: (lambda q, r: q @ r)(*lib.linalg.qr(a)), cplx(4, 3),
             "complex-reconstruct", **F64),
        case(lambda lib, a: lib.linalg.qr(a, mode="bad"), mk((4, 3)), "bad-mode"),
        case(lambda lib, a: lib.linalg.qr(a), mk((4,)), "1d-error"),
        case(lambda lib, a: lib.linalg.qr(a), mk((4, 3), dtype="int64"), "int-error"),
        case(lambda lib, a: type(lib.linalg.qr(a)).__name__, mk((4, 3)), "type-name"),
    ]),
    OpSpec("linalg_eigh", [
        case(lambda lib, a: lib.linalg.eigh(a), spd(2, 3, 3), "layout", check_values=False),
        case(lambda lib, a: lib.linalg.eigh(a).eigenvalues, spd(2, 4, 4), "eigenvalues",
             **F64),
        case(lambda lib, a: (lambda w, v: (v * w[..., None, :]) @ v.mT)(*lib.linalg.eigh(a)),
             spd(2, 4, 4), "reconstruct", **F64),
        case(lambda lib, a: lib.linalg.eigh(a, UPLO="U")[0], mk((4, 4), dtype="float64"),
             "upper-triangle", **F64),
        case(lambda lib, a: (lambda w, v: (v * w[..., None, :]) @ v.mH)(*lib.linalg.eigh(a)),
             herm(3, 3), "complex-reconstruct", **F64),
        case(lambda lib, a: lib.linalg.eigh(a)[0], herm(3, 3), "complex-real-values", **F64),
        case(lambda lib, a: lib.linalg.eigh(a, UPLO="X"), spd(3, 3), "bad-uplo"),
        case(lambda lib, a: lib.linalg.eigh(a), mk((3, 4)), "non-square"),
        case(lambda lib, a: lib.linalg.eigh(a), mk((3, 3), dtype="int64"), "int-error"),
        case(lambda lib, a: type(lib.linalg.eigh(a)).__name__, spd(3, 3), "type-name"),
    ]),
    OpSpec("linalg_eigvalsh", [
        case(lambda lib, a: lib.linalg.eigvalsh(a), spd(2, 4, 4), "batched", **F64),
        case(lambda lib, a: lib.linalg.eigvalsh(a, UPLO="U"), mk((4, 4), dtype="float64"),
             "upper", **F64),
        case(lambda lib, a: lib.linalg.eigvalsh(a), herm(3, 3), "complex", **F64),
        case(lambda lib, a: lib.linalg.eigvalsh(a), mk((3, 3), dtype="int64"), "int-error"),
    ]),
    OpSpec("linalg_svd", [
        case(lambda lib, a: lib.linalg.svd(a), mk((2, 4, 3), dtype="float64"), "layout",
             check_values=False),
        case(lambda lib, a: lib.linalg.svd(a, full_matrices=False), mk((4, 3), dtype="float64"),
             "reduced-layout", check_values=False),
        case(lambda lib, a: lib.linalg.svd(a)[1], mk((2, 4, 3), dtype="float64"), "S", **F64),
        case(lambda lib, a: (lambda u, s, vh: (u * s[..., None, :]) @ vh)(
            *lib.linalg.svd(a, full_matrices=False)), mk((2, 4, 3), dtype="float64"),
             "reconstruct", **F64),
        case(lambda lib, a: (lambda u, s, vh: (u * s[..., None, :]) @ vh)(
            *lib.linalg.svd(a, full_matrices=False)), cplx(3, 5), "complex-reconstruct",
             **F64),
        case(lambda lib, a: (lambda u, s, vh: u.mT @ u)(*lib.linalg.svd(a)),
             mk((4, 3), dtype="float64"), "orthonormal-U", **F64),
        case(lambda lib, a: lib.linalg.svd(a), mk((4,)), "1d-error"),
        case(lambda lib, a: lib.linalg.svd(a), mk((4, 3), dtype="int64"), "int-error"),
        case(lambda lib, a: type(lib.linalg.svd(a)).__name__, mk((4, 3)), "type-name"),
    ]),
    OpSpec("linalg_svdvals", [
        case(lambda lib, a: lib.linalg.svdvals(a), mk((2, 4, 3), dtype="float64"), "batched",
             **F64),
        case(lambda lib, a: lib.linalg.svdvals(a), mk((3, 5)), "float32", **F32),
        case(lambda lib, a: lib.linalg.svdvals(a), cplx(3, 4), "complex", **F64),
        case(lambda lib, a: lib.linalg.svdvals(a), mk((3, 4), dtype="int64"), "int-error"),
    ]),
    OpSpec("linalg_matrix_rank", [
        case(lambda lib, a: lib.linalg.matrix_rank(a), mk((2, 4, 3)), "full"),
        case(lambda lib, a: lib.linalg.matrix_rank(a), singular, "singular"),
        case(lambda lib, a: lib.linalg.matrix_rank(a @ a.mT), mk((5, 2), dtype="float64"),
             "low-rank"),
        case(lambda lib, a: lib.linalg.matrix_rank(a, atol=3.0), mk((4, 4), dtype="float64"),
             "atol"),
        case(lambda lib, a: lib.linalg.matrix_rank(a, rtol=0.5), mk((4, 4), dtype="float64"),
             "rtol"),
        case(lambda lib, a: lib.linalg.matrix_rank(a, hermitian=True), spd(2, 3, 3),
             "hermitian"),
        case(lambda lib, a: lib.linalg.matrix_rank(a), mk((3, 3), dtype="int64"), "int-error"),
    ]),
    OpSpec("linalg_pinv", [
        case(lambda lib, a: lib.linalg.pinv(a), mk((2, 4, 3), dtype="float64"), "batched",
             **F64),
        case(lambda lib, a: lib.linalg.pinv(a), singular, "singular", **F32),
        case(lambda lib, a: lib.linalg.pinv(a, hermitian=True), spd(3, 3), "hermitian", **F64),
        case(lambda lib, a: lib.linalg.pinv(a, atol=2.0), mk((4, 4), dtype="float64"), "atol",
             **F64),
        case(lambda lib, a: lib.linalg.pinv(a), cplx(3, 4), "complex", **F64),
        case(lambda lib, a: lib.linalg.pinv(a), mk((3, 3), dtype="int64"), "int-error"),
    ]),
    OpSpec("linalg_matrix_power", [
        case(lambda lib, a: lib.linalg.matrix_power(a, 3), mk((2, 3, 3), dtype="float64"),
             "3", **F64),
        case(lambda lib, a: lib.linalg.matrix_power(a, 0), mk((2, 3, 3)), "0"),
        case(lambda lib, a: lib.linalg.matrix_power(a, 1), mk((3, 3)), "1"),
        case(lambda lib, a: lib.linalg.matrix_power(a, -2), mk((3, 3), dtype="float64"), "-2",
             **F64),
        case(lambda lib, a: lib.linalg.matrix_power(a, 2), mk((3, 3), dtype="int64"), "int"),
        case(lambda lib, a: lib.linalg.matrix_power(a, -1), mk((3, 3), dtype="int64"),
             "int-negative-error"),
        case(lambda lib, a: lib.linalg.matrix_power(a, 2), mk((3, 4)), "non-square"),
    ]),
    OpSpec("linalg_multi_dot", [
        case(lambda lib, a, b, c: lib.linalg.multi_dot([a, b, c]),
             mk((3, 4), (4, 5), (5, 2), dtype="float64"), "matrices", **F64),
        case(lambda lib, a, b, c: lib.linalg.multi_dot([a, b, c]),
             mk((4,), (4, 5), (5,), dtype="float64"), "vectors-ends", **F64),
        case(lambda lib, a, b: lib.linalg.multi_dot((a, b)), mk((3, 4), (4,)), "two", **F32),
        case(lambda lib, a, b: lib.linalg.multi_dot([a, b]), mk((3, 4), (5, 2)),
             "shape-error"),
        case(lambda lib, a: lib.linalg.multi_dot([a]), mk((3, 4)), "one-error"),
        case(lambda lib, a, b, c: lib.linalg.multi_dot([a, b, c]),
             mk((3, 4), (4,), (4, 2)), "middle-1d-error"),
        case(lambda lib, a, b: lib.linalg.multi_dot([a, b]), mk((3, 4), (4, 5), dtype="int64"),
             "int"),
    ]),
    OpSpec("linalg_vecdot", [
        case(lambda lib, a, b: lib.linalg.vecdot(a, b), mk((3, 4), (3, 4)), "2d", **F32),
        case(lambda lib, a, b: lib.linalg.vecdot(a, b, dim=0), mk((3, 4), (3, 1)),
             "broadcast-dim", **F32),
        case(lambda lib, a: lib.linalg.vecdot(a, a.flip(-1)), cplx(2, 3), "complex",
             **F64),
        case(lambda lib, a, b: lib.linalg.vecdot(a, b), mk((3, 4), (3, 4), dtype="int64"),
             "int-error"),
        case(lambda lib, a, b: lib.linalg.vecdot(a, b.double()), mk((3, 4), (3, 4)),
             "dtype-error"),
    ]),
    OpSpec("linalg_cross", [
        case(lambda lib, a, b: lib.linalg.cross(a, b), mk((4, 3), (4, 3)), "2d", **F32),
        case(lambda lib, a, b: lib.linalg.cross(a, b, dim=0), mk((3, 4), (3, 1)),
             "broadcast-dim", **F32),
        case(lambda lib, a, b: lib.linalg.cross(a, b), mk((2, 3), (2, 3), dtype="int64"),
             "int"),
        case(lambda lib, a, b: lib.linalg.cross(a, b), mk((4, 2), (4, 2)), "size-error"),
        case(lambda lib, a, b: lib.linalg.cross(a, b.double()), mk((4, 3), (4, 3)),
             "dtype-error"),
    ]),
    # ---------------------------------------------------------------- _ex variants
    OpSpec("linalg_inv_ex", [
        case(lambda lib, a: lib.linalg.inv_ex(a), mk((2, 3, 3), dtype="float64"), "batched",
             **F64),
        case(lambda lib, a: lib.linalg.inv_ex(a), singular, "singular-info"),
        case(lambda lib, a: lib.linalg.inv_ex(a).info, lambda lib: (lib.zeros(2, 3, 3),),
             "zero-info"),
        case(lambda lib, a: lib.linalg.inv_ex(a, check_errors=True), singular,
             "check-errors"),
        case(lambda lib, a: type(lib.linalg.inv_ex(a)).__name__, mk((3, 3)), "type-name"),
        case(lambda lib, a: lib.linalg.inv_ex(a), mk((3, 3), dtype="int64"), "int-error"),
    ]),
    OpSpec("linalg_cholesky_ex", [
        case(lambda lib, a: lib.linalg.cholesky_ex(a), spd(2, 3, 3), "batched", **F64),
        case(lambda lib, a: lib.linalg.cholesky_ex(a, upper=True), spd(3, 3), "upper", **F64),
        case(lambda lib, a: lib.linalg.cholesky_ex(a),
             lambda lib: (T(lib, [[1.0, 2.0], [2.0, 1.0]]),), "not-pd-info"),
        case(lambda lib, a: lib.linalg.cholesky_ex(a).info,
             lambda lib: (T(lib, [[[4.0, 0, 0], [0, 1, 0], [0, 0, -1]],
                                  [[1.0, 0, 0], [0, 1, 0], [0, 0, 1]]]),), "info-3"),
        case(lambda lib, a: lib.linalg.cholesky_ex(a, check_errors=True), singular,
             "check-errors"),
        case(lambda lib, a: lib.linalg.cholesky_ex(a), mk((3, 4)), "non-square"),
    ]),
    OpSpec("linalg_solve_ex", [
        case(lambda lib, a, b: lib.linalg.solve_ex(a, b), mk((3, 3), (3, 2), dtype="float64"),
             "matrix", **F64),
        case(lambda lib, a, b: lib.linalg.solve_ex(a, b, left=False),
             mk((2, 3, 3), (2, 4, 3), dtype="float64"), "right", **F64),
        case(lambda lib, a, b: lib.linalg.solve_ex(a * 0, b), mk((3, 3), (3, 2)),
             "singular-info"),
        case(lambda lib, a, b: lib.linalg.solve_ex(a * 0, b, check_errors=True),
             mk((3, 3), (3, 2)), "check-errors"),
        case(lambda lib, a, b: lib.linalg.solve_ex(a, b), mk((3, 3), (4, 2)), "shape-error"),
    ]),
]
