"""Forward-mode AD follow-ups against PyTorch: gradcheck's forward-mode checks, tangents
recorded by reverse mode (forward-over-reverse and reverse-over-forward), the forward-mode
Hessian's node, dual tensors' repr and tangents of another dtype than their primal."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

LIBS = [jtensor, torch]


def _np(t):
    return None if t is None else t.detach().cpu().numpy().copy()


def _exp_with_jvp(lib, factor=1.0, with_backward=False):
    """A Function defining forward and jvp (``factor`` scales jvp: 2 makes it wrong)."""

    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.r = x.exp()
            return ctx.r

        @staticmethod
        def jvp(ctx, g):
            return g * ctx.r * factor

    if with_backward:
        Exp.backward = staticmethod(lambda ctx, g: g * ctx.r)
    return Exp


def _x(lib, shape=(3,), seed=0):
    data = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(data, dtype=lib.float64, requires_grad=True)


# ----------------------------------------------------------------------------- gradcheck


@pytest.mark.parametrize("lib", LIBS, ids=["jtensor", "torch"])
def test_gradcheck_forward_only_function(lib):
    # No backward: check_backward_ad=False must not run reverse mode at all.
    fn = _exp_with_jvp(lib).apply
    assert lib.autograd.gradcheck(
        fn,
        (_x(lib),),
        check_forward_ad=True,
        check_backward_ad=False,
        check_undefined_grad=False,
        check_batched_grad=False,
    )


@pytest.mark.parametrize("lib", LIBS, ids=["jtensor", "torch"])
def test_gradcheck_forward_mode_finds_a_wrong_jvp(lib):
    fn = _exp_with_jvp(lib, factor=2.0, with_backward=True).apply
    x = _x(lib)
    # Reverse mode alone is right; forward mode is compared with finite differences.
    assert lib.autograd.gradcheck(fn, (x,), check_undefined_grad=False)
    assert not lib.autograd.gradcheck(
        fn, (x,), check_forward_ad=True, raise_exception=False, check_undefined_grad=False
    )
    with pytest.raises(RuntimeError, match="forward mode"):
        lib.autograd.gradcheck(
            fn, (x,), check_forward_ad=True, check_backward_ad=False, check_undefined_grad=False
        )


@pytest.mark.parametrize("lib", LIBS, ids=["jtensor", "torch"])
def test_gradcheck_flag_combinations_refused(lib):
    x = _x(lib)
    with pytest.raises(AssertionError, match="at least one"):
        lib.autograd.gradcheck(lib.sin, (x,), check_backward_ad=False)
    with pytest.raises(AssertionError, match="check_batched_grad"):
        lib.autograd.gradcheck(
            lib.sin,
            (x,),
            check_forward_ad=True,
            check_backward_ad=False,
            check_batched_grad=True,
            check_undefined_grad=False,
        )
    with pytest.raises(AssertionError, match="check_rev_over_rev"):
        lib.autograd.gradgradcheck(lib.sin, (x,), check_fwd_over_rev=True, check_rev_over_rev=False)


def _layer(lib):
    def f(x, w):
        return (w @ x).tanh().sum(0) * x[:2].sin()

    return f


@pytest.mark.parametrize("lib", LIBS, ids=["jtensor", "torch"])
def test_gradcheck_and_gradgradcheck_in_forward_mode(lib):
    x, w = _x(lib, (3, 2), 1), _x(lib, (2, 3), 2)
    f = _layer(lib)
    assert lib.autograd.gradcheck(f, (x, w), check_forward_ad=True)
    assert lib.autograd.gradgradcheck(f, (x, w), check_fwd_over_rev=True)
    assert lib.autograd.gradgradcheck(
        f, (x, w), check_fwd_over_rev=True, check_rev_over_rev=False, check_undefined_grad=False
    )

    def g(x):
        return lib.nn.functional.softmax(x, 0).log().cumsum(0)

    assert lib.autograd.gradgradcheck(
        g, (x,), check_fwd_over_rev=True, check_rev_over_rev=False, check_undefined_grad=False
    )
