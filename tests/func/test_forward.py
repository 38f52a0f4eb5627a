"""``jvp``, ``jacfwd`` and ``hessian`` against PyTorch's ``torch.func``: values, shapes,
dtypes, requires_grad, trees, argnums, has_aux, compositions with vmap and reverse mode,
which calls raise."""

import pytest

import jtensor
from tests.func._oracle import check_against_torch
from tests.harness.conformance import T, arr

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.devices


def fn(lib):
    return lib.func


def x3(lib):
    return T(lib, arr(3, dtype="float64"))


def x43(lib):
    return T(lib, arr(4, 3, dtype="float64", seed=1))


def sinx(v):
    return v.sin() * v


CASES = {
    "jvp": (lambda lib, x: fn(lib).jvp(sinx, (x,), (lib.ones_like(x),)), x3),
    "jvp_two_primals": (
        lambda lib, x: fn(lib).jvp(lambda a, b: a * b.exp(), (x, x + 1), (x * 0 + 1, x)),
        x3,
    ),
    "jvp_tree": (
        lambda lib, x: fn(lib).jvp(
            lambda d: (d["a"] @ d["b"], [d["a"].sum()]),
            ({"a": x, "b": x.t()},),
            ({"a": lib.ones_like(x), "b": x.t()},),
        ),
        x43,
    ),
    "jvp_has_aux": (
        lambda lib, x: fn(lib).jvp(lambda v: (v.exp(), v * 2), (x,), (x,), has_aux=True),
        x3,
    ),
    "jvp_output_independent": (lambda lib, x: fn(lib).jvp(lambda v: x.sum(), (x,), (x,)), x3),
    "jvp_requires_grad_primal": (
        lambda lib, x: fn(lib).jvp(sinx, (x.requires_grad_(),), (x.detach(),)),
        x3,
    ),
    "jvp_not_tuple": (lambda lib, x: fn(lib).jvp(sinx, x, x), x3),
    "jvp_structure": (lambda lib, x: fn(lib).jvp(sinx, (x,), (x, x)), x3),
    "jvp_empty": (lambda lib, x: fn(lib).jvp(sinx, (), ()), x3),
    "jvp_non_tensor": (lambda lib, x: fn(lib).jvp(sinx, (3.0,), (x,)), x3),
    "jvp_int_tangent": (lambda lib, x: fn(lib).jvp(sinx, (x,), (lib.arange(3),)), x3),
    "jvp_wrong_size": (lambda lib, x: fn(lib).jvp(sinx, (x,), (x[:2],)), x3),
    "jvp_non_tensor_output": (lambda lib, x: fn(lib).jvp(lambda v: 3, (x,), (x,)), x3),
    "jvp_aux_not_pair": (lambda lib, x: fn(lib).jvp(sinx, (x,), (x,), has_aux=True), x3),
    "jvp_of_jvp": (
        lambda lib, x: fn(lib).jvp(
            lambda v: fn(lib).jvp(sinx, (v,), (lib.ones_like(v),))[1], (x,), (x,)
        ),
        x3,
    ),
    "jvp_of_grad": (
        lambda lib, x: fn(lib).jvp(fn(lib).grad(lambda v: (v.sin() * v).sum()), (x,), (x,)),
        x3,
    ),
    "vmap_jvp": (
        lambda lib, x: fn(lib).vmap(lambda v, t: fn(lib).jvp(sinx, (v,), (t,)))(x, x * 2),
        x43,
    ),
    "jacfwd": (lambda lib, x: fn(lib).jacfwd(sinx)(x), x3),
    "jacfwd_matrix": (lambda lib, x: fn(lib).jacfwd(lambda m: (m @ m.t()).softmax(-1))(x), x43),
    "jacfwd_argnums": (
        lambda lib, x: fn(lib).jacfwd(lambda a, b: a * b.sum(), argnums=(0, 1))(x, x + 1),
        x3,
    ),
    "jacfwd_tree_output": (lambda lib, x: fn(lib).jacfwd(lambda a: (a.exp(), a.sum()))(x), x3),
    "jacfwd_has_aux": (
        lambda lib, x: fn(lib).jacfwd(lambda a: (a.exp(), a.sum() * 2), has_aux=True)(x),
        x3,
    ),
    "jacfwd_random_error": (lambda lib, x: fn(lib).jacfwd(lambda v: lib.rand(3) * v)(x), x3),
    "jacfwd_repeated_argnums": (lambda lib, x: fn(lib).jacfwd(sinx, argnums=(0, 0))(x), x3),
    "vmap_jacfwd": (lambda lib, x: fn(lib).vmap(fn(lib).jacfwd(sinx))(x), x43),
    "jacfwd_of_jacrev": (lambda lib, x: fn(lib).jacfwd(fn(lib).jacrev(sinx))(x), x3),
    "hessian": (lambda lib, x: fn(lib).hessian(lambda v: (v.sin() * v.exp().sum()).sum())(x), x3),
    "hessian_matrix_input": (
        lambda lib, x: fn(lib).hessian(lambda m: (m.tanh() @ m.t()).sum())(x),
        x43,
    ),
    "hessian_argnums": (
        lambda lib, x: fn(lib).hessian(lambda a, b: (a * a * b).sum(), argnums=1)(x, x + 1),
        x3,
    ),
}


def _f(lib):
    return lambda v: (v.sin() * v.exp().sum()).sum()


CASES |= {
    "vmap_hessian": (lambda lib, x: fn(lib).vmap(fn(lib).hessian(_f(lib)))(x), x43),
    "hessian_of_offset_view": (lambda lib, x: fn(lib).hessian(_f(lib))(x[1]), x43),
    "vmap_jacrev_jacrev": (
        lambda lib, x: fn(lib).vmap(fn(lib).jacrev(fn(lib).jacrev(_f(lib))))(x),
        x43,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_transform_matches_pytorch(name):
    check_against_torch(torch, *CASES[name], atol=1e-8, rtol=1e-7)


def test_jacfwd_same_randomness():
    x = jtensor.randn(3)
    jac = jtensor.func.jacfwd(lambda v: jtensor.rand(3) * v, randomness="same")(x)
    assert jac.shape == (3, 3)
    assert (jac - jac.diag().diag()).abs().max().item() == 0.0


def test_reverse_inside_forward_under_vmap_refuses_instead_of_losing_the_tangent():
    x = jtensor.randn(2, 3, dtype=jtensor.float64)
    g = jtensor.func.grad(lambda v: (v.sin() * v).sum())
    with pytest.raises(RuntimeError, match="tangent would be lost"):
        jtensor.func.vmap(jtensor.func.jvp, in_dims=(None, 0, 0))(g, (x,), (x,))
