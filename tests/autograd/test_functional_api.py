"""``torch.autograd.functional`` (jacobian, hessian, vjp, jvp, hvp, vhp) against PyTorch:
values, the nesting of tensor/tuple results, create_graph, strict mode and the errors."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

X = [0.5, 1.0, 2.0]
Y = [1.0, -1.0, 3.0]
V = [1.0, 0.5, -1.0]


def _f(x):
    return x**2 * x.sin()


def _g(x, y):
    return (x * y).sum() + (x**3).sum(), x.exp() * 2


def _s(x):
    return (x**3).sum() + x.prod()


def _s2(x, y):
    return (x * y.exp()).sum() + (x**2).sum()


def _mat(x):
    return (x @ x.t()).tanh()


CALLS = {
    "jacobian": lambda lib, AF, x, y, v: AF.jacobian(_f, x),
    "jacobian_tuple": lambda lib, AF, x, y, v: AF.jacobian(_g, (x, y)),
    "jacobian_matrix": lambda lib, AF, x, y, v: AF.jacobian(_mat, x.reshape(3, 1) * y),
    "jacobian_vectorize": lambda lib, AF, x, y, v: AF.jacobian(_g, (x, y), vectorize=True),
    "jacobian_forward": lambda lib, AF, x, y, v: AF.jacobian(
        _g, (x, y), vectorize=True, strategy="forward-mode"
    ),
    "jacobian_tuple_of_one": lambda lib, AF, x, y, v: AF.jacobian(lambda a: (a * 2,), (x,)),
    "jacobian_unused_input": lambda lib, AF, x, y, v: AF.jacobian(lambda a, b: a * 2, (x, y)),
    "hessian": lambda lib, AF, x, y, v: AF.hessian(_s, x),
    "hessian_tuple": lambda lib, AF, x, y, v: AF.hessian(_s2, (x, y)),
    "hessian_forward": lambda lib, AF, x, y, v: AF.hessian(
        _s, x, vectorize=True, outer_jacobian_strategy="forward-mode"
    ),
    "hessian_forward_tuple": lambda lib, AF, x, y, v: AF.hessian(
        _s2, (x, y), vectorize=True, outer_jacobian_strategy="forward-mode"
    ),
    "jacobian_forward_matrix": lambda lib, AF, x, y, v: AF.jacobian(
        _mat, x.reshape(3, 1) * y, vectorize=True, strategy="forward-mode"
    ),
    "vjp": lambda lib, AF, x, y, v: AF.vjp(_f, x, v),
    "vjp_scalar": lambda lib, AF, x, y, v: AF.vjp(lambda a: a.sum(), x),
    "vjp_tuple": lambda lib, AF, x, y, v: AF.vjp(_g, (x, y), (v.sum(), v)),
    "jvp": lambda lib, AF, x, y, v: AF.jvp(_f, x, v),
    "jvp_tuple": lambda lib, AF, x, y, v: AF.jvp(_g, (x, y), (v, v * 2)),
    "jvp_scalar_input": lambda lib, AF, x, y, v: AF.jvp(lambda a: a * x, x[:1].sum()),
    "hvp": lambda lib, AF, x, y, v: AF.hvp(_s, x, v),
    "vhp": lambda lib, AF, x, y, v: AF.vhp(_s, x, v),
    "hvp_tuple": lambda lib, AF, x, y, v: AF.hvp(_s2, (x, y), (v, v)),
    "vhp_tuple": lambda lib, AF, x, y, v: AF.vhp(_s2, (x, y), (v, v)),
    # errors
    "strict_independent": lambda lib, AF, x, y, v: AF.jacobian(
        lambda a, b: a * 2, (x, y), strict=True
    ),
    "strict_detached": lambda lib, AF, x, y, v: AF.jacobian(lambda a: a.detach(), x, strict=True),
    "strict_vjp_linear_ok": lambda lib, AF, x, y, v: AF.vjp(lambda a: a * 2, x, v, strict=True),
    "strict_jvp_linear": lambda lib, AF, x, y, v: AF.jvp(lambda a: a * 2, x, v, strict=True),
    "strict_hvp_linear": lambda lib, AF, x, y, v: AF.hvp(
        lambda a: (a * 2).sum(), x, v, strict=True
    ),
    "strict_vhp_linear": lambda lib, AF, x, y, v: AF.vhp(
        lambda a: (a * 2).sum(), x, v, strict=True
    ),
    "strict_vectorize": lambda lib, AF, x, y, v: AF.jacobian(_f, x, strict=True, vectorize=True),
    "strict_forward": lambda lib, AF, x, y, v: AF.jacobian(
        _f, x, strict=True, strategy="forward-mode"
    ),
    "forward_without_vectorize": lambda lib, AF, x, y, v: AF.jacobian(
        _f, x, strategy="forward-mode"
    ),
    "forward_create_graph": lambda lib, AF, x, y, v: AF.jacobian(
        _f, x, create_graph=True, vectorize=True, strategy="forward-mode"
    ),
    "bad_strategy": lambda lib, AF, x, y, v: AF.jacobian(_f, x, strategy="sideways"),
    "vjp_needs_v": lambda lib, AF, x, y, v: AF.vjp(_f, x),
    "jvp_v_length": lambda lib, AF, x, y, v: AF.jvp(_f, x, (v, v)),
    "jvp_v_size": lambda lib, AF, x, y, v: AF.jvp(_g, (x, y), (v, v[:2])),
    "hessian_not_scalar": lambda lib, AF, x, y, v: AF.hessian(_f, x),
    "hessian_tuple_output": lambda lib, AF, x, y, v: AF.hessian(lambda a: (a.sum(),), x),
    "inputs_list": lambda lib, AF, x, y, v: AF.jacobian(_f, [x]),
    "inputs_number": lambda lib, AF, x, y, v: AF.jacobian(_f, (x, 2.0)),
    "output_number": lambda lib, AF, x, y, v: AF.vjp(lambda a: 2.0, x, v),
}


def _run(lib, name):
    x, y, v = (lib.tensor(a, dtype=lib.float64) for a in (X, Y, V))
    try:
        return "ok", CALLS[name](lib, lib.autograd.functional, x, y, v)
    except Exception as e:  # noqa: BLE001 (the type and message are compared)
        return "raise", (type(e), str(e))


def _structure(r):
    if isinstance(r, (tuple, list)):
        return type(r).__name__, tuple(_structure(e) for e in r)
    return ("T", tuple(r.shape), str(r.dtype), r.requires_grad)


def _values(r):
    if isinstance(r, (tuple, list)):
        return [v for e in r for v in _values(e)]
    return [r.detach().cpu().numpy()]


def _builtin(cls):
    return next(c for c in cls.__mro__ if c.__module__ == "builtins")


@pytest.mark.parametrize("name", sorted(CALLS))
def test_functional_matches_pytorch(name):
    ours, theirs = _run(jtensor, name), _run(torch, name)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "raise":
        assert _builtin(ours[1][0]) is _builtin(theirs[1][0])
        assert ours[1][1] == theirs[1][1]
        return
    assert _structure(ours[1]) == _structure(theirs[1])
    for a, b in zip(_values(ours[1]), _values(theirs[1]), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("fn", ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"])
def test_create_graph_keeps_results_differentiable(fn):
    """With create_graph=True the result depends on the inputs' history (a third derivative
    through a Hessian-vector product...), as PyTorch's."""

    def run(lib):
        AF = lib.autograd.functional
        x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
        v = lib.tensor(V, dtype=lib.float64)
        call = {
            "jacobian": lambda: AF.jacobian(_f, x, create_graph=True),
            "hessian": lambda: AF.hessian(_s, x, create_graph=True),
            "vjp": lambda: AF.vjp(_f, x, v, create_graph=True)[1],
            "jvp": lambda: AF.jvp(_f, x, v, create_graph=True)[1],
            "hvp": lambda: AF.hvp(_s, x, v, create_graph=True)[1],
            "vhp": lambda: AF.vhp(_s, x, v, create_graph=True)[1],
        }[fn]
        out = call()
        assert out.requires_grad
        (g,) = lib.autograd.grad((out * out).sum(), x)
        plain = {
            "jacobian": lambda: AF.jacobian(_f, x),
            "hessian": lambda: AF.hessian(_s, x),
            "vjp": lambda: AF.vjp(_f, x, v)[1],
            "jvp": lambda: AF.jvp(_f, x, v)[1],
            "hvp": lambda: AF.hvp(_s, x, v)[1],
            "vhp": lambda: AF.vhp(_s, x, v)[1],
        }[fn]()
        assert not plain.requires_grad
        return g.detach().cpu().numpy()

    np.testing.assert_allclose(run(jtensor), run(torch), rtol=1e-12)


def test_inputs_are_not_modified_and_grad_mode_is_restored():
    x = jtensor.tensor(X, dtype=jtensor.float64)
    with jtensor.no_grad():
        jac = jtensor.autograd.functional.jacobian(_f, x)
        assert not jtensor.is_grad_enabled()
    assert not x.requires_grad and x.grad is None and not jac.requires_grad
