"""Differences real programs found in ``torch.func``, each against PyTorch: ``vmap`` of
``hessian``, ``jacrev`` through a convolution's weight gradient (jtensor's fused
``autograd.Function`` kernels under a batched cotangent), ``jvp`` under ``vmap`` with a
tangent laid out unlike its primal, and ``vmap(grad)`` through ``dot``: the gradient's
node (PyTorch's ``MulBackward0``) and the sign of a zero gradient behind ``relu``."""

import warnings

import numpy as np
import pytest

import jtensor
from tests.func._oracle import check_against_torch
from tests.harness.conformance import T, arr

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.devices


def _quiet(call):
    """Run ``call`` without the fallback's performance warning (a loop is still correct)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return call()


def test_vmap_of_hessian_keeps_the_batch():
    def run(lib, x):
        return lib.func.vmap(lib.func.hessian(lambda v: (v.sin() * v).sum()))(x)

    check_against_torch(torch, run, lambda lib: (T(lib, arr(2, 3, dtype="float64")),))


@pytest.mark.parametrize("wrt", ["weight", "input", "bias"])
def test_jacrev_through_conv2d_matches_torch(wrt):
    def run(lib, x, w, b):
        conv = lib.nn.functional.conv2d

        def f(v):
            args = {"input": x, "weight": w, "bias": b}
            args[wrt] = v
            return conv(args["input"], args["weight"], args["bias"], padding=1).flatten()

        return _quiet(lambda: lib.func.jacrev(f)({"input": x, "weight": w, "bias": b}[wrt]))

    def make(lib):
        return (
            T(lib, arr(1, 2, 3, 3, dtype="float64")),
            T(lib, arr(3, 2, 2, 2, dtype="float64", seed=1)),
            T(lib, arr(3, dtype="float64", seed=2)),
        )

    check_against_torch(torch, run, make)


def test_jacrev_conv2d_weight_gradient_of_the_report():
    # The reported program: output channel 0's entries do not depend on filter 1.
    x = jtensor.arange(9.0).reshape(1, 1, 3, 3)
    w = jtensor.ones(2, 1, 2, 2)
    jac = _quiet(
        lambda: jtensor.func.jacrev(lambda v: jtensor.nn.functional.conv2d(x, v).flatten())(w)
    )
    assert float(jac[4:, 0].abs().sum()) == 0.0
    assert float(jac[:4, 1].abs().sum()) == 0.0


def test_jacrev_conv1d_under_vmap_is_per_sample():
    def run(lib, x, w):
        jac = lib.func.jacrev(lambda v, s: lib.nn.functional.conv1d(s, v).sum(-1))
        return _quiet(lambda: lib.func.vmap(jac, in_dims=(None, 0))(w, x))

    def make(lib):
        return (
            T(lib, arr(3, 1, 2, 5, dtype="float64")),
            T(lib, arr(2, 2, 3, dtype="float64", seed=3)),
        )

    check_against_torch(torch, run, make)


@pytest.mark.parametrize("mode", ["constant", "reflect"])
def test_jacrev_through_pad_reads_every_cotangent(mode):
    # A fused kernel's raw backward would read one sample of the batched cotangent.
    def run(lib, x):
        f = lib.nn.functional.pad
        return _quiet(lambda: lib.func.jacrev(lambda v: f(v, (1, 1), mode=mode))(x))

    check_against_torch(torch, run, lambda lib: (T(lib, arr(1, 2, 2, 3, dtype="float64")),))


def test_jvp_under_vmap_with_a_transposed_tangent():
    def run(lib, x, t):
        def f(u):
            return lib.func.jvp(lib.sin, (x,), (u.T,))[1]

        return lib.func.vmap(f)(t)

    def make(lib):
        return T(lib, arr(2, 3, dtype="float64")), T(lib, arr(4, 3, 2, dtype="float64", seed=1))

    check_against_torch(torch, run, make)


def _loss(w, x):
    return (x.dot(w).relu() - 1.0) ** 2


def test_vmap_grad_through_dot_has_torchs_node():
    for lib in (jtensor, torch):
        w = lib.tensor([0.5, -1.0, 2.0, 0.25, 1.0], requires_grad=True)
        out = lib.func.vmap(lib.func.grad(_loss), in_dims=(None, 0))(w, -lib.ones(3, 5))
        assert type(out.grad_fn).__name__ == "MulBackward0", lib.__name__
        assert out.requires_grad

    def run(lib, w, x):
        return lib.func.vmap(lib.func.grad(_loss), in_dims=(None, 0))(w, x)

    def make(lib):
        return T(lib, arr(5, dtype="float64"), requires_grad=True), T(lib, arr(3, 5, seed=4))

    check_against_torch(torch, run, lambda lib: (make(lib)[0], make(lib)[1].double()))


def test_vmap_grad_keeps_the_sign_of_zero_behind_relu():
    results = []
    for lib in (jtensor, torch):
        x = lib.tensor([[1.0, -2.0], [-1.0, 3.0]])
        w = lib.tensor([-5.0, -5.0])
        out = lib.func.vmap(lib.func.grad(_loss), in_dims=(None, 0))(w, x)
        results.append(out.detach().cpu().numpy())
    mine, theirs = results
    np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(np.signbit(mine), np.signbit(theirs))
    assert np.signbit(mine[1, 0])  # -0.: relu's zero gradient times -1


def test_vmap_dot_values_and_errors_match_torch():
    def run(lib, a, b):
        return lib.vmap(lib.dot)(a, b), lib.vmap(lib.dot, in_dims=(0, None))(a, b[0])

    def make(lib):
        return T(lib, arr(4, 3)), T(lib, arr(4, 3, seed=1))

    check_against_torch(torch, run, make)

    def mixed(lib, a, b):
        return lib.vmap(lib.dot)(a, b.double())

    check_against_torch(torch, mixed, make)
