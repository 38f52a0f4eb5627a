"""Complex matrix products round as PyTorch's CPU kernels do: a Hermitian product's diagonal is
exactly real (a single fused complex gemm leaves 1e-17 imaginary parts there)."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

PRODUCTS = {
    "matmul": lambda L, a: a @ a.mH,
    "mm": lambda L, a: L.mm(a, a.mH),
    "bmm": lambda L, a: L.bmm(a[None], a.mH[None])[0],
    "addmm": lambda L, a: L.addmm(L.zeros(a.shape[0], a.shape[0], dtype=a.dtype), a, a.mH),
    "batched": lambda L, a: (a.expand(3, *a.shape) @ a.mH)[1],
}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(2, 2), (4, 7), (9, 3)])
@pytest.mark.parametrize("name", list(PRODUCTS))
def test_hermitian_product_has_an_exactly_real_diagonal(name, shape, dtype):
    rng = np.random.default_rng(1)
    values = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    mine = PRODUCTS[name](jtensor, jtensor.tensor(values)).cpu()
    theirs = PRODUCTS[name](torch, torch.tensor(values))
    assert (mine.imag.diagonal() == 0).all()
    assert (theirs.imag.diagonal() == 0).all()
    tol = 1e-5 if dtype == "complex64" else 1e-12
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=tol, atol=tol)
    assert str(mine.dtype) == str(theirs.dtype)


def test_a_hermitian_matrix_prints_as_pytorch_prints_it():
    values = np.array([[0.3 - 1.1j, 0.7 + 0.2j], [-0.4 + 0.9j, 1.3 - 0.6j]])
    mine = jtensor.tensor(values)
    theirs = torch.tensor(values)
    assert repr((mine @ mine.mH).cpu()) == repr(theirs @ theirs.mH)


def test_mixed_real_and_complex_products_still_refuse_as_pytorch():
    for lib in (jtensor, torch):
        with pytest.raises(RuntimeError):
            lib.ones(2, 2, dtype=lib.complex64) @ lib.ones(2, 2)
