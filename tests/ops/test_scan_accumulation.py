"""Scans accumulate as PyTorch's CPU kernels do: ``cumsum``, ``cumprod`` and
``logcumsumexp`` of float32 (complex64) keep the running value in double (complex double) and
round each prefix once, so a DDPM ``alphas_cumprod`` schedule or a top-p ``cumsum`` mask
has PyTorch's exact bits. On CUDA PyTorch accumulates float32 in float32."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
DATA = RNG.standard_normal((5, 400)).astype(np.float32)

CASES = {
    "cumsum-tenths": lambda L: L.cumsum(L.full((1000,), 0.1), 0),
    "cumprod-schedule": lambda L: L.cumprod(1.0 - L.linspace(1e-4, 0.02, 200), 0),
    "logcumsumexp-constant": lambda L: L.logcumsumexp(L.full((1000,), -3.0), 0),
    "cumsum-rows": lambda L: L.tensor(DATA).cumsum(1),
    "cumsum-columns": lambda L: L.tensor(DATA).cumsum(0),
    "cumprod-rows": lambda L: L.tensor(DATA[:, :30]).cumprod(1),
    "logcumsumexp-rows": lambda L: L.tensor(DATA).logcumsumexp(1),
    "cumsum-complex64": lambda L: L.tensor((DATA + 1j * DATA[::-1]).astype(np.complex64)).cumsum(1),
    "cumsum-half": lambda L: L.tensor(DATA).half().cumsum(1),
    "cumsum-dtype-float32": lambda L: L.tensor(DATA.astype(np.float64)).cumsum(1, dtype=L.float32),
    "cumsum-method-out": lambda L: L.cumsum(L.tensor(DATA), 1, out=L.empty(5, 400)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_scans_have_pytorchs_bits(name):
    mine, theirs = CASES[name](jtensor), CASES[name](torch)
    assert str(mine.dtype) == str(theirs.dtype)
    assert mine.numpy().tobytes() == theirs.numpy().tobytes()


def test_the_tenths_sum_to_a_round_hundred():
    assert jtensor.cumsum(jtensor.full((1000,), 0.1), 0)[-1].item() == 100.0


def test_cuda_scans_accumulate_float32_in_float32(emulated_cuda):
    # PyTorch's CUDA scan uses acc_type<float, /*is_cuda=*/true>, which is float.
    x = jtensor.full((1000,), 0.1, device="cuda")
    assert x.cumsum(0)[-1].item() == float(np.cumsum(np.full(1000, 0.1, np.float32))[-1])

