"""``torch.linalg``'s composite functions (cond, tensorinv, tensorsolve, vander, diagonal,
matmul) against PyTorch: values, dtypes, shapes, strides, errors and gradients (float64
gradcheck and gradgradcheck of the compositions)."""

import math

import numpy as np
import pytest

import jtensor
from jtensor.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

RNG = np.random.default_rng(0)
SQUARE = RNG.standard_normal((2, 3, 3))
WIDE = RNG.standard_normal((2, 3))
TENSOR4 = RNG.standard_normal((2, 3, 6))
NAN = math.nan
T4D = RNG.standard_normal((4, 6, 8, 3))
A236 = RNG.standard_normal((2, 3, 6))
B23 = RNG.standard_normal((2, 3))
A623 = RNG.standard_normal((6, 2, 3))
B6 = RNG.standard_normal((6,))
A234 = RNG.standard_normal((2, 3, 4))

CASES = {
    "cond-default": lambda L, T: L.cond(T(SQUARE)),
    "cond-wide": lambda L, T: L.cond(T(WIDE)),
    "cond-2": lambda L, T: L.cond(T(SQUARE), 2),
    "cond--2": lambda L, T: L.cond(T(SQUARE), -2),
    "cond-fro": lambda L, T: L.cond(T(SQUARE), "fro"),
    "cond-nuc": lambda L, T: L.cond(T(SQUARE), "nuc"),
    "cond-1": lambda L, T: L.cond(T(SQUARE), 1),
    "cond--1": lambda L, T: L.cond(T(SQUARE), -1),
    "cond-inf": lambda L, T: L.cond(T(SQUARE), math.inf),
    "cond--inf": lambda L, T: L.cond(T(SQUARE), -math.inf),
    "cond-singular-fro": lambda L, T: L.cond(T([[1.0, 2.0], [2.0, 4.0]]), "fro"),
    "cond-zero": lambda L, T: L.cond(T(np.zeros((2, 2))), 1),
    "cond-nan": lambda L, T: L.cond(T([[1.0, NAN], [2.0, 3.0]]), math.inf),
    "cond-empty": lambda L, T: L.cond(T(np.zeros((0, 0)))),
    "cond-complex": lambda L, T: L.cond(T(SQUARE[0] + 1j * SQUARE[1]), "fro"),
    "cond-bad-p": lambda L, T: L.cond(T(SQUARE), 3),
    "cond-bad-str": lambda L, T: L.cond(T(SQUARE), "foo"),
    "cond-nonsquare-1": lambda L, T: L.cond(T(WIDE), 1),
    "cond-1d": lambda L, T: L.cond(T([1.0, 2.0])),
    "tensorinv": lambda L, T: L.tensorinv(T(T4D), ind=2),
    "tensorinv-ind1": lambda L, T: L.tensorinv(T(SQUARE.reshape(3, 2, 3)), ind=1),
    "tensorinv-bad-ind": lambda L, T: L.tensorinv(T(SQUARE[0]), ind=0),
    "tensorinv-shape": lambda L, T: L.tensorinv(T(TENSOR4), ind=1),
    "tensorinv-singular": lambda L, T: L.tensorinv(T(np.zeros((2, 2, 4))), ind=2),
    "tensorsolve": lambda L, T: L.tensorsolve(T(A236), T(B23)),
    "tensorsolve-dims": lambda L, T: L.tensorsolve(T(A623), T(B6), dims=(0,)),
    "tensorsolve-shape": lambda L, T: L.tensorsolve(T(A234), T(B23)),
    "vander": lambda L, T: L.vander(T([1.0, 2.0, 3.0])),
    "vander-N": lambda L, T: L.vander(T([1.0, 2.0, 3.0]), N=5),
    "vander-int32": lambda L, T: L.vander(T(np.array([[1, 2], [3, 4]], dtype=np.int32))),
    "vander-complex": lambda L, T: L.vander(T(np.array([1 + 1j, 2]))),
    "vander-N1": lambda L, T: L.vander(T([1.0, 2.0]), N=1),
    "vander-bool": lambda L, T: L.vander(T(np.array([True, False]))),
    "diagonal": lambda L, T: L.diagonal(T(SQUARE), offset=1),
    "diagonal-dims": lambda L, T: L.diagonal(T(TENSOR4), dim1=0, dim2=2),
    "matmul": lambda L, T: L.matmul(T(SQUARE), T(WIDE.T)),
}


def _run(lib, case):
    def make(data):
        return lib.tensor(np.asarray(data))

    try:
        return case(lib.linalg, make)
    except Exception as exc:  # noqa: BLE001 - compared below
        return exc


@pytest.mark.parametrize("name", list(CASES))
def test_composition_matches_pytorch(name):
    theirs = _run(torch, CASES[name])
    mine = _run(jtensor, CASES[name])
    if isinstance(theirs, Exception):
        assert isinstance(mine, Exception), f"PyTorch raised {theirs!r}; jtensor gave {mine!r}"
        assert isinstance(mine, RuntimeError) == isinstance(theirs, RuntimeError)
        assert str(mine) == str(theirs)
        return
    assert not isinstance(mine, Exception), mine
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert str(mine.dtype) == str(theirs.dtype)
    assert mine.stride() == theirs.stride()
    np.testing.assert_allclose(
        mine.cpu().numpy(), theirs.numpy(), rtol=1e-7, atol=1e-9, equal_nan=True
    )


def _leaf(shape, seed):
    data = np.random.default_rng(seed).uniform(-2, 2, shape)
    return jtensor.tensor(data, dtype=jtensor.float64, requires_grad=True)


def _well(a):
    return a + 3 * jtensor.eye(a.shape[-1], dtype=a.dtype)


GRADS = {
    "cond": (lambda a: jtensor.linalg.cond(_well(a)), [(3, 3)]),
    "cond-fro": (lambda a: jtensor.linalg.cond(_well(a), "fro"), [(2, 3, 3)]),
    "cond-1": (lambda a: jtensor.linalg.cond(_well(a), 1), [(3, 3)]),
    "tensorinv": (lambda a: jtensor.linalg.tensorinv(_well(a).reshape(2, 2, 4), ind=2), [(4, 4)]),
    "tensorsolve": (
        lambda a, b: jtensor.linalg.tensorsolve(_well(a).reshape(2, 3, 6), b),
        [(6, 6), (2, 3)],
    ),
    "vander": (lambda x: jtensor.linalg.vander(x, N=4), [(2, 3)]),
    "diagonal": (lambda a: jtensor.linalg.diagonal(a, offset=-1), [(3, 4)]),
    "matmul": (lambda a, b: jtensor.linalg.matmul(a, b), [(2, 3), (3,)]),
}


@pytest.mark.parametrize("name", list(GRADS))
def test_composition_gradients(name):
    fn, shapes = GRADS[name]
    inputs = [_leaf(s, i) for i, s in enumerate(shapes)]
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_out_arguments():
    A = jtensor.tensor(SQUARE[0])
    out = jtensor.empty(0, dtype=jtensor.float64)
    assert jtensor.linalg.cond(A, out=out) is out
    np.testing.assert_allclose(out.cpu().numpy(), np.linalg.cond(SQUARE[0]))
    out = jtensor.empty(0, dtype=jtensor.float64)
    jtensor.linalg.tensorinv(A, ind=1, out=out)
    np.testing.assert_allclose(out.cpu().numpy(), np.linalg.inv(SQUARE[0]), rtol=1e-10)


KEYWORDS = {
    "solve_triangular": lambda L, x, b: L.solve_triangular(input=x, B=b, upper=True),
    "lstsq": lambda L, x, b: L.lstsq(input=x, b=b).solution,
    "householder_product": lambda L, x, b: L.householder_product(input=x, tau=b[:, 0]),
    "eig": lambda L, x, b: L.eig(input=x).eigenvalues,
    "eigvals": lambda L, x, b: L.eigvals(input=x),
    "matrix_exp": lambda L, x, b: L.matrix_exp(input=x),
    "ldl_factor": lambda L, x, b: L.ldl_factor(input=x + x.mT).LD,
    "ldl_factor_ex": lambda L, x, b: L.ldl_factor_ex(input=x + x.mT).LD,
    "cholesky": lambda L, x, b: L.cholesky(input=x @ x.mT),
    "cholesky_ex": lambda L, x, b: L.cholesky_ex(input=x @ x.mT).L,
    "eigh": lambda L, x, b: L.eigh(input=x + x.mT).eigenvalues,
    "eigvalsh": lambda L, x, b: L.eigvalsh(input=x + x.mT),
    "inv_ex": lambda L, x, b: L.inv_ex(A=x).inverse,
    "solve_ex": lambda L, x, b: L.solve_ex(A=x, B=b).result,
    "lu_factor": lambda L, x, b: L.lu_factor(A=x).LU,
    "lu_solve": lambda L, x, b: L.lu_solve(LU=x, pivots=L.lu_factor(x).pivots, B=b),
    "pinv": lambda L, x, b: L.pinv(input=x),
    "matrix_rank": lambda L, x, b: L.matrix_rank(input=x),
    "matrix_power": lambda L, x, b: L.matrix_power(input=x, n=2),
    "matrix_norm": lambda L, x, b: L.matrix_norm(input=x, ord="nuc"),
    "norm": lambda L, x, b: L.norm(input=x),
    "vector_norm": lambda L, x, b: L.vector_norm(input=x, ord=3),
    "vector_norm-x": lambda L, x, b: L.vector_norm(x=x),
    "cond": lambda L, x, b: L.cond(input=x),
    "tensorinv": lambda L, x, b: L.tensorinv(input=x, ind=1),
    "tensorsolve": lambda L, x, b: L.tensorsolve(input=x, other=b[:, 0]),
}


@pytest.mark.parametrize("name", list(KEYWORDS))
def test_keyword_names_are_pytorchs(name):
    """``torch.linalg``'s keyword names (``input`` for some functions, ``A`` for others)."""
    data = SQUARE[0] + 3 * np.eye(3)
    rhs = RNG.standard_normal((3, 2))
    mine = KEYWORDS[name](jtensor.linalg, jtensor.tensor(data), jtensor.tensor(rhs))
    theirs = KEYWORDS[name](torch.linalg, torch.tensor(data), torch.tensor(rhs))
    np.testing.assert_allclose(mine.cpu().numpy(), theirs.numpy(), rtol=1e-7, atol=1e-9)
