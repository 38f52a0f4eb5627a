"""nn.utils added for issue 15 against PyTorch: parameters_to_vector/vector_to_parameters,
the hook forms of weight_norm/spectral_norm, parametrize (register, chain, cached, assign,
remove), parametrizations (weight_norm, spectral_norm, orthogonal), fusion, skip_init."""

import sys
import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _np(t):
    return t.detach().cpu().numpy()


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


def _both(build):
    """``build(lib)`` for each library after the same seed."""
    out = []
    for lib in (jtensor, torch):
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            out.append(build(lib))
    return out


def test_parameters_to_vector_round_trip():
    def build(lib):
        m = lib.nn.Linear(3, 2)
        v = lib.nn.utils.parameters_to_vector(m.parameters())
        lib.nn.utils.vector_to_parameters(v * 2, m.parameters())
        return v, m.weight, m.bias

    for a, b in zip(*_both(build), strict=True):
        _close(a, b)
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        jtensor.nn.utils.vector_to_parameters([1.0], [jtensor.zeros(1)])


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_hook_form(dim):
    def build(lib):
        m = lib.nn.utils.weight_norm(lib.nn.Linear(4, 3), dim=dim)
        x = lib.linspace(-1, 1, 8).reshape(2, 4)
        y = m(x)
        (y * y).sum().backward()
        names = list(m.state_dict())
        grads = (m.weight_g.grad, m.weight_v.grad)
        lib.nn.utils.remove_weight_norm(m)
        return y, names, grads, m.weight, list(m.state_dict()), y.grad_fn.name()

    (y1, n1, g1, w1, s1, f1), (y2, n2, g2, w2, s2, f2) = _both(build)
    _close(y1, y2)
    assert n1 == n2 and s1 == s2 and f1 == f2
    for a, b in zip(g1, g2, strict=True):
        _close(a, b)
    _close(w1, w2)


def test_weight_norm_warns_and_refuses_twice():
    m = jtensor.nn.Linear(2, 2)
    with pytest.warns(FutureWarning, match="deprecated"):
        jtensor.nn.utils.weight_norm(m)
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            jtensor.nn.utils.weight_norm(m)
    with pytest.raises(ValueError, match="not found"):
        jtensor.nn.utils.remove_weight_norm(jtensor.nn.Linear(2, 2))


def test_weight_norm_gradients_of_any_order():
    fn = sys.modules["jtensor.nn.utils.weight_norm"]._weight_norm
    v = jtensor.randn(3, 4, dtype=jtensor.float64, requires_grad=True)
    g = jtensor.rand(1, 4, dtype=jtensor.float64, requires_grad=True)
    assert jtensor.autograd.gradcheck(lambda v, g: fn(v, g, 1), (v, g))
    assert jtensor.autograd.gradgradcheck(lambda v, g: fn(v, g, 1), (v, g))
    assert jtensor.autograd.gradgradcheck(
        lambda v, g: fn(v, g, -1), (v, g.sum().detach().requires_grad_())
    )


@pytest.mark.parametrize("parametrized", [False, True])
def test_spectral_norm_over_training_steps(parametrized):
    def build(lib):
        conv = lib.nn.Conv2d(2, 3, 3)
        sn = (
            lib.nn.utils.parametrizations.spectral_norm
            if parametrized
            else lib.nn.utils.spectral_norm
        )
        m = sn(conv)
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        x = lib.linspace(-1, 1, 2 * 2 * 5 * 5).reshape(2, 2, 5, 5)
        outs = []
        for _ in range(3):
            y = m(x)
            opt.zero_grad()
            (y * y).mean().backward()
            opt.step()
            outs.append(y.detach())
        m.eval()
        outs.append(m(x).detach())
        state = {k: v.clone() for k, v in m.state_dict().items()}
        return outs, state, repr(m)

    (o1, s1, r1), (o2, s2, r2) = _both(build)
    assert r1 == r2 and list(s1) == list(s2)
    for a, b in zip(o1, o2, strict=True):
        _close(a, b, 1e-4)
    for k in s1:
        _close(s1[k], s2[k], 1e-4)


def test_remove_spectral_norm():
    def build(lib):
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(3, 4))
        m(lib.ones(1, 3))
        lib.nn.utils.remove_spectral_norm(m)
        return m.weight, list(m.state_dict()), isinstance(m.weight, lib.nn.Parameter)

    (w1, s1, p1), (w2, s2, p2) = _both(build)
    _close(w1, w2)
    assert s1 == s2 and p1 and p2


class _Symmetric:
    """A parametrization (built per library): the upper triangle mirrored."""

    @staticmethod
    def make(lib):
        class Symmetric(lib.nn.Module):
            def forward(self, X):
                return X.triu() + X.triu(1).transpose(-1, -2)

            def right_inverse(self, A):
                return A.triu()

        return Symmetric()


def test_parametrize_register_chain_cache_assign_remove():
    def build(lib):
        P = lib.nn.utils.parametrize
        m = lib.nn.Linear(3, 3)
        P.register_parametrization(m, "weight", _Symmetric.make(lib))
        first = m.weight.detach().clone()

        class Double(lib.nn.Module):
            def forward(self, X):
                return X * 2

            def right_inverse(self, X):
                return X / 2

        P.register_parametrization(m, "weight", Double())
        with P.cached():
            same = m.weight is m.weight
        x = lib.ones(2, 3)
        y = m(x)
        y.sum().backward()
        grad = m.parametrizations.weight.original.grad
        text = repr(m)
        name = type(m).__name__
        before = P.type_before_parametrizations(m).__name__
        m.weight = lib.eye(3) * 4  # goes through right_inverse
        assigned = m.parametrizations.weight.original.detach().clone()
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
        return (
            first,
            same,
            y,
            grad,
            text,
            name,
            before,
            assigned,
            m.weight,
            type(m).__name__,
            list(m.state_dict()),
            P.is_parametrized(m),
        )

    r1, r2 = _both(build)
    for a, b in zip(r1, r2, strict=True):
        if hasattr(a, "shape"):
            _close(a, b)
        else:
            assert a == b


def test_parametrize_errors_match_pytorch():
    def expect(fn):
        try:
            fn(torch)
        except Exception as e:  # noqa: BLE001 (the oracle decides)
            with pytest.raises(type(e)):
                fn(jtensor)
        else:
            fn(jtensor)

    def get(lib):
        return lib.nn.utils.parametrize

    expect(
        lambda lib: get(lib).register_parametrization(
            lib.nn.Linear(2, 2), "nope", _Symmetric.make(lib)
        )
    )
    expect(lambda lib: get(lib).remove_parametrizations(lib.nn.Linear(2, 2), "weight"))

    def shape_change(lib):
        class Row(lib.nn.Module):
            def forward(self, X):
                return X[0]

        get(lib).register_parametrization(lib.nn.Linear(2, 2), "weight", Row())

    expect(shape_change)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder", None])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3)])
def test_orthogonal(orthogonal_map, shape):
    def build(lib):
        m = lib.nn.Linear(shape[1], shape[0])
        lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map)
        w = m.weight
        y = m(lib.ones(2, shape[1]))
        y.sum().backward()
        return w, m.parametrizations.weight.original.grad

    (w1, g1), (w2, g2) = _both(build)
    _close(w1, w2, 1e-4)
    _close(g1, g2, 1e-4)
    q = w1 if shape[0] >= shape[1] else w1.mT
    _close(q.mT @ q, jtensor.eye(q.shape[1]), 1e-5)


def test_fusion_matches_pytorch():
    def build(lib):
        conv, bn = lib.nn.Conv2d(2, 3, 3), lib.nn.BatchNorm2d(3)
        lin, bn1 = lib.nn.Linear(4, 3), lib.nn.BatchNorm1d(3)
        x = lib.linspace(-2, 2, 2 * 2 * 4 * 4).reshape(2, 2, 4, 4)
        bn.train()
        bn(conv(x))  # move the running statistics
        bn1(lin(lib.linspace(-1, 1, 20).reshape(5, 4)))
        for m in (conv, bn, lin, bn1):
            m.eval()
        fused = lib.nn.utils.fuse_conv_bn_eval(conv, bn)
        fused_lin = lib.nn.utils.fuse_linear_bn_eval(lin, bn1)
        xl = lib.linspace(-1, 1, 8).reshape(2, 4)
        return (fused(x), bn(conv(x)), fused_lin(xl), bn1(lin(xl)), fused.weight, fused_lin.bias)

    r1, r2 = _both(build)
    _close(r1[0], r1[1], 1e-5)
    _close(r1[2], r1[3], 1e-5)
    for a, b in zip(r1, r2, strict=True):
        _close(a, b, 1e-5)
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        jtensor.nn.utils.fuse_conv_bn_eval(jtensor.nn.Conv2d(1, 1, 1), jtensor.nn.BatchNorm2d(1))


def test_skip_init_keeps_the_random_stream():
    def build(lib):
        m = lib.nn.utils.skip_init(lib.nn.Linear, 5, 3)
        return m.weight.shape, lib.rand(3)

    (s1, r1), (s2, r2) = _both(build)
    assert s1 == s2
    _close(r1, r2)
    with pytest.raises(RuntimeError, match="Expected a Module"):
        jtensor.nn.utils.skip_init(int)
