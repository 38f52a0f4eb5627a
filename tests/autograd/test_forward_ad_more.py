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


# ----------------------------------------------------------------------------- recorded tangents


def _node(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def _weight_cases(lib):
    x = lib.tensor(np.random.default_rng(3).standard_normal((4, 3)))
    return {
        "matmul_T": lambda d: x @ d.T,
        "matmul_left": lambda d: d @ x.T,
        "mul_number": lambda d: d * 2,
        "mul_tensor": lambda d: d * x[:2],
        "sin": lambda d: d.sin(),
        "add": lambda d: d + x[:2],
        "sum": lambda d: d.sum(),
    }


@pytest.mark.parametrize("case", sorted(_weight_cases(jtensor)))
def test_tangent_recorded_when_the_primal_requires_grad(case):
    # PyTorch's formulas use the primals, so the tangent has a node exactly when one of
    # the terms involves a primal that requires grad (x @ dual(W).T: AddBackward0).
    seen = {}
    for lib in LIBS:
        fw = lib.autograd.forward_ad
        w = lib.tensor(np.random.default_rng(4).standard_normal((2, 3)), requires_grad=True)
        with fw.dual_level():
            out = _weight_cases(lib)[case](fw.make_dual(w, lib.ones(2, 3, dtype=lib.float64)))
            tangent = fw.unpack_dual(out).tangent
            seen[lib.__name__] = (_np(tangent), tangent.requires_grad, _node(tangent))
            if case == "matmul_T":
                assert _node(tangent[0]) == "SelectBackward0"
    got, want = seen["jtensor"], seen["torch"]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    assert got[1:] == want[1:]


@pytest.mark.parametrize("lib", LIBS, ids=["jtensor", "torch"])
def test_reverse_over_forward_through_a_layer(lib):
    # d/dW of a loss on the tangent and the primal of tanh(linear(x, W, b)).
    rng = np.random.default_rng(5)
    w = lib.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    b = lib.tensor(rng.standard_normal(2), requires_grad=True)
    x, v = lib.tensor(rng.standard_normal((4, 3))), lib.tensor(rng.standard_normal((2, 3)))
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        y = lib.nn.functional.linear(x, fw.make_dual(w, v), b).tanh()
        primal, tangent = fw.unpack_dual(y)
        gw, gb = lib.autograd.grad((tangent**2).sum() + primal.sum(), (w, b))
    # Reference: the same loss with the tangent written out by hand.
    w2 = lib.tensor(_np(w), requires_grad=True)
    b2 = lib.tensor(_np(b), requires_grad=True)
    z = x @ w2.T + b2
    loss = ((1 - z.tanh() ** 2) * (x @ v.T)).pow(2).sum() + z.tanh().sum()
    rw, rb = lib.autograd.grad(loss, (w2, b2))
    np.testing.assert_allclose(_np(gw), _np(rw), rtol=1e-10)
    np.testing.assert_allclose(_np(gb), _np(rb), rtol=1e-10)


def test_forward_mode_hessian_node_and_strides():
    # The forward-mode outer Jacobian stacks its columns first and moves them last, as
    # PyTorch's vmap does: same strides and a ReshapeAliasBackward0 node.
    def run(lib):
        def f(x, y):
            return (2 * x.pow(2)).sum() + 3 * y.pow(3).sum()

        h = lib.autograd.functional.hessian(
            f, (lib.ones(2), lib.ones(3)), vectorize=True, outer_jacobian_strategy="forward-mode"
        )
        return [[(_np(a), tuple(a.stride()), _node(a)) for a in row] for row in h]

    got, want = run(jtensor), run(torch)
    for grow, wrow in zip(got, want, strict=True):
        for g, w in zip(grow, wrow, strict=True):
            np.testing.assert_array_equal(g[0], w[0])
            assert g[1:] == w[1:] == (w[1], "ReshapeAliasBackward0")
    j = [
        lib.autograd.functional.jacobian(
            lambda x, lib=lib: (x**3).sum(1),
            lib.ones(2, 3),
            vectorize=True,
            strategy="forward-mode",
        )
        for lib in LIBS
    ]
    assert tuple(j[0].stride()) == tuple(j[1].stride()) == (1, 6, 2)


# ----------------------------------------------------------------------------- repr


def _dual_reprs(lib):
    fw = lib.autograd.forward_ad
    out = []
    with fw.dual_level():
        d = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]))
        out += [repr(d), repr(d * 2), str(d)]
        p = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        d64 = fw.make_dual(p, lib.tensor([3.0, 4.0], dtype=lib.float64))
        out += [repr(d64), repr(d64.sin()), repr(d64 * 2)]
        out.append(repr(fw.make_dual(lib.tensor(1.0), lib.tensor(2.0))))
        half = lib.tensor([1.0, 2.0], dtype=lib.float16)
        out.append(repr(fw.make_dual(half, half * 3)))
        wide = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0], dtype=lib.float64))
        out.append(repr(wide))
        out.append(repr(fw.unpack_dual(d).primal))
        out.append(repr(lib.tensor([5.0])))
    out.append(repr(d))  # the level is gone: a plain tensor again
    return out


def test_dual_tensor_repr():
    for got, want in zip(_dual_reprs(jtensor), _dual_reprs(torch), strict=True):
        assert got == want


# ----------------------------------------------------------------------------- tangent dtypes


@pytest.mark.parametrize(
    "name",
    ["sin", "prod", "cumsum", "std", "softmax", "view", "sort"],
)
def test_wider_tangent_gives_the_dtype_pytorch_gives(name):
    # make_dual keeps a float64 tangent on a float32 primal; the ops' tangents come out
    # float64 in both libraries and agree to float32's rounding of the primal's factors.
    fns = {
        "sin": lambda lib, x: lib.sin(x),
        "prod": lambda lib, x: x.prod(1),
        "cumsum": lambda lib, x: x.cumsum(1),
        "std": lambda lib, x: x.std(1),
        "softmax": lambda lib, x: x.softmax(1),
        "view": lambda lib, x: x.view(9),
        "sort": lambda lib, x: x.sort(1)[0],
    }
    rng = np.random.default_rng(6)
    a, v = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    seen = []
    for lib in LIBS:
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(lib.tensor(a, dtype=lib.float32), lib.tensor(v))
            assert fw.unpack_dual(d).tangent.dtype == lib.float64
            primal, tangent = fw.unpack_dual(fns[name](lib, d))
            seen.append((str(primal.dtype), str(tangent.dtype), _np(tangent)))
    assert seen[0][:2] == seen[1][:2] == ("torch.float32", "torch.float64")
    np.testing.assert_allclose(seen[0][2], seen[1][2], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["det", "cumprod", "inv"])
def test_generic_rule_computes_in_the_tangents_dtype(name):
    # Ops on the generic (double-vjp) rule: with a float64 tangent on a float32 primal the
    # JVP is computed in float64, so it equals the float64 JVP at the (float32) primal's
    # values far below float32's rounding.
    fns = {
        "det": jtensor.linalg.det,
        "cumprod": lambda x: x.cumprod(1),
        "inv": jtensor.linalg.inv,
    }
    rng = np.random.default_rng(7)
    a32 = rng.standard_normal((3, 3)).astype(np.float32)
    v = rng.standard_normal((3, 3))
    fw = jtensor.autograd.forward_ad
    with fw.dual_level():
        low = fw.make_dual(jtensor.tensor(a32), jtensor.tensor(v))
        high = fw.make_dual(jtensor.tensor(a32.astype(np.float64)), jtensor.tensor(v))
        got = fw.unpack_dual(fns[name](low))
        want = fw.unpack_dual(fns[name](high)).tangent
    assert got.primal.dtype == jtensor.float32 and got.tangent.dtype == jtensor.float64
    np.testing.assert_allclose(_np(got.tangent), _np(want), rtol=1e-12, atol=1e-12)


def test_normal_with_a_dual_mean_has_a_zero_tangent():
    # normal(mean, std) is not reparameterised: zero tangent, and the same draws as PyTorch.
    seen = []
    for lib in LIBS:
        fw = lib.autograd.forward_ad
        lib.manual_seed(0)
        with fw.dual_level():
            mean = fw.make_dual(lib.ones(3), lib.ones(3))
            primal, tangent = fw.unpack_dual(lib.normal(mean, lib.ones(3) * 2))
            seen.append((_np(primal), _np(tangent)))
    np.testing.assert_allclose(seen[0][0], seen[1][0], rtol=1e-6)
    np.testing.assert_array_equal(seen[0][1], seen[1][1])
    np.testing.assert_array_equal(seen[0][1], np.zeros(3))
