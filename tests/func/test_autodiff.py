"""``grad``, ``grad_and_value``, ``vjp``, ``jacrev`` (and their compositions with ``vmap``)
against PyTorch's ``torch.func``: values, shapes, dtypes, requires_grad, which calls raise;
per-sample gradients against a Python loop."""

import numpy as np
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


def cubic(v):
    return (v**3).sum()


def sinx(v):
    return v.sin() * v


CASES = {
    "grad": (lambda lib, x: fn(lib).grad(cubic)(x), x3),
    "grad_argnums_tuple": (
        lambda lib, x: fn(lib).grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x, x + 1),
        x3,
    ),
    "grad_argnums_negative": (
        lambda lib, x: fn(lib).grad(lambda a, b: (a * b.exp()).sum(), argnums=-1)(x, x + 1),
        x3,
    ),
    "grad_dict_argument": (
        lambda lib, x: sorted(
            fn(lib).grad(lambda p: (p["a"] * p["b"]).sum())({"a": x, "b": x * 2}).items()
        ),
        x3,
    ),
    "grad_has_aux": (lambda lib, x: fn(lib).grad(lambda v: (cubic(v), v * 2), has_aux=True)(x), x3),
    "grad_and_value": (lambda lib, x: fn(lib).grad_and_value(cubic)(x), x3),
    "grad_and_value_aux": (
        lambda lib, x: fn(lib).grad_and_value(
            lambda v: (cubic(v), {"k": v.sum()}["k"]), has_aux=True
        )(x),
        x3,
    ),
    "grad_unused_input": (lambda lib, x: fn(lib).grad(lambda v, w: w.sum(), argnums=0)(x, x), x3),
    "grad_constant_output": (
        lambda lib, x: fn(lib).grad(lambda v: lib.ones((), dtype=v.dtype))(x),
        x3,
    ),
    "grad_of_grad": (lambda lib, x: fn(lib).grad(lambda v: fn(lib).grad(cubic)(v).sum())(x), x3),
    "grad_requires_grad_input": (lambda lib, x: fn(lib).grad(cubic)(x.requires_grad_()), x3),
    "grad_non_scalar": (lambda lib, x: fn(lib).grad(lambda v: v)(x), x3),
    "grad_tuple_output": (lambda lib, x: fn(lib).grad(lambda v: (v.sum(),))(x), x3),
    "grad_float_output": (lambda lib, x: fn(lib).grad(lambda v: 3.0)(x), x3),
    "grad_bad_argnum": (lambda lib, x: fn(lib).grad(cubic, argnums=1)(x), x3),
    "grad_repeated_argnums": (lambda lib, x: fn(lib).grad(cubic, argnums=(0, 0))(x), x3),
    "grad_float_argnums": (lambda lib, x: fn(lib).grad(cubic, argnums=1.0)(x), x3),
    "grad_aux_not_pair": (lambda lib, x: fn(lib).grad(cubic, has_aux=True)(x), x3),
    "grad_non_tensor_input": (lambda lib, x: fn(lib).grad(cubic)(3.0), x3),
    "grad_integer_input": (lambda lib, x: fn(lib).grad(lambda v: v.sum())(lib.arange(3)), x3),
    "vjp": (lambda lib, x: fn(lib).vjp(sinx, x)[1](lib.ones_like(x)), x3),
    "vjp_two_primals": (
        lambda lib, x: fn(lib).vjp(lambda a, b: a * b, x, x + 1)[1](lib.ones(3, dtype=x.dtype)),
        x3,
    ),
    "vjp_tree_output": (
        lambda lib, x: fn(lib).vjp(lambda a: (a * 2, [a.sum()]), x)[1](
            (lib.ones_like(x), [lib.ones((), dtype=x.dtype)])
        ),
        x3,
    ),
    "vjp_output": (lambda lib, x: fn(lib).vjp(sinx, x)[0], x3),
    "vjp_aux": (lambda lib, x: fn(lib).vjp(lambda a: (a * 2, a.sum()), x, has_aux=True)[2], x3),
    "vjp_wrong_shape": (lambda lib, x: fn(lib).vjp(sinx, x)[1](lib.ones(4, dtype=x.dtype)), x3),
    "vjp_wrong_structure": (lambda lib, x: fn(lib).vjp(sinx, x)[1]((lib.ones_like(x),)), x3),
    "vjp_non_tensor_output": (lambda lib, x: fn(lib).vjp(lambda v: 3, x), x3),
    "vjp_non_tensor_primal": (lambda lib, x: fn(lib).vjp(sinx, 3.0), x3),
    "jacrev": (lambda lib, x: fn(lib).jacrev(sinx)(x), x3),
    "jacrev_matrix_in_out": (lambda lib, x: fn(lib).jacrev(lambda m: m @ m.t())(x), x43),
    "jacrev_argnums": (
        lambda lib, x: fn(lib).jacrev(lambda a, b: a * b.sum(), argnums=(0, 1))(x, x + 1),
        x3,
    ),
    "jacrev_tree_output": (lambda lib, x: fn(lib).jacrev(lambda a: (a.exp(), a.sum()))(x), x3),
    "jacrev_has_aux": (
        lambda lib, x: fn(lib).jacrev(lambda a: (a.exp(), a.sum()), has_aux=True)(x),
        x3,
    ),
    "jacrev_chunked": (
        lambda lib, x: fn(lib).jacrev(lambda m: m.softmax(-1), chunk_size=2)(x),
        x43,
    ),
    "jacrev_of_jacrev": (
        lambda lib, x: fn(lib).jacrev(
            fn(lib).jacrev(
                lambda v: (
                    v.sin() * v.roll(1) if lib is torch else v.sin() * lib.cat([v[-1:], v[:-1]])
                ).sum()
            )
        )(x),
        x3,
    ),
    "jacrev_through_ops": (
        lambda lib, x: fn(lib).jacrev(
            lambda m: lib.nn.functional.layer_norm(
                m[:, :2].relu() @ m[:2] + m.narrow(0, 1, 2).sum(0), (3,)
            )
        )(x),
        x43,
    ),
    "jacrev_bad_chunk": (lambda lib, x: fn(lib).jacrev(sinx, chunk_size=0)(x), x3),
    "vmap_grad": (lambda lib, x: fn(lib).vmap(fn(lib).grad(lambda v: (v.sin() * v).sum()))(x), x43),
    "vmap_jacrev": (lambda lib, x: fn(lib).vmap(fn(lib).jacrev(sinx))(x), x43),
    "jacrev_of_vmap": (lambda lib, x: fn(lib).jacrev(fn(lib).vmap(sinx))(x), x43),
    "vmap_vjp": (lambda lib, x: fn(lib).vmap(lambda v: fn(lib).vjp(sinx, v)[1](v))(x), x43),
    "vmap_of_vmap_grad": (
        lambda lib, x: fn(lib).vmap(
            fn(lib).vmap(fn(lib).grad(lambda s, w: (s * w).sin()), in_dims=(0, None)),
            in_dims=(None, 0),
        )(x[0], x[:, 0]),
        x43,
    ),
    "vmap_grad_unbatched_weight": (
        lambda lib, x: fn(lib).vmap(
            fn(lib).grad(lambda w, v: (v @ w).tanh().sum()), in_dims=(None, 0)
        )(x[:3], x),
        x43,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_transform_matches_pytorch(name):
    check_against_torch(torch, *CASES[name], atol=1e-8, rtol=1e-7)


def _mlp(lib):
    F = lib.nn.functional

    def loss(params, x, y):
        h = F.gelu(F.linear(x, params["w1"], params["b1"]))
        return F.cross_entropy(F.linear(h, params["w2"], params["b2"]), y)

    return loss


def test_per_sample_gradients_equal_a_python_loop_and_pytorch():
    rng = np.random.default_rng(0)
    arrays = {
        "w1": rng.standard_normal((8, 5)),
        "b1": rng.standard_normal(8),
        "w2": rng.standard_normal((3, 8)),
        "b2": rng.standard_normal(3),
    }
    xs, ys = rng.standard_normal((6, 5)), rng.integers(0, 3, 6)
    results = {}
    for lib in (jtensor, torch):
        params = {k: lib.tensor(v) for k, v in arrays.items()}
        x, y = lib.tensor(xs), lib.tensor(ys)
        loss = _mlp(lib)
        results[lib] = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, x, y)
        if lib is jtensor:
            loop = [lib.func.grad(loss)(params, x[i], y[i]) for i in range(6)]
            for k in arrays:
                np.testing.assert_allclose(
                    results[lib][k].cpu().numpy(),
                    np.stack([g[k].cpu().numpy() for g in loop]),
                    rtol=1e-10,
                    atol=1e-12,
                )
    for k in arrays:
        np.testing.assert_allclose(
            results[jtensor][k].cpu().numpy(), results[torch][k].numpy(), rtol=1e-9, atol=1e-12
        )


def test_per_sample_gradients_of_a_cnn_with_functional_call():
    jtensor.manual_seed(0)
    model = jtensor.nn.Sequential(
        jtensor.nn.Conv2d(1, 2, 3),
        jtensor.nn.ReLU(),
        jtensor.nn.MaxPool2d(2),
        jtensor.nn.Flatten(),
        jtensor.nn.Linear(8, 3),
    )
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = jtensor.randn(4, 1, 6, 6)
    y = jtensor.tensor([0, 2, 1, 1])

    def loss(p, xi, yi):
        out = jtensor.func.functional_call(model, p, (xi.unsqueeze(0),))
        return jtensor.nn.functional.cross_entropy(out, yi.unsqueeze(0))

    g = jtensor.func.vmap(jtensor.func.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    for i in range(4):
        gi = jtensor.func.grad(loss)(params, x[i], y[i])
        for k in params:
            np.testing.assert_allclose(
                g[k][i].cpu().numpy(), gi[k].cpu().numpy(), rtol=1e-4, atol=1e-6
            )


def test_grad_composes_with_ordinary_autograd():
    x = jtensor.tensor([1.0, -2.0, 0.5], requires_grad=True)
    g = jtensor.func.grad(lambda v: (v**3).sum())(x)
    assert g.requires_grad
    g.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), (6 * x).detach().cpu().numpy())


def test_second_derivatives_by_gradcheck():
    x = jtensor.randn(3, dtype=jtensor.float64, requires_grad=True)
    assert jtensor.autograd.gradcheck(
        lambda v: jtensor.func.grad(lambda u: (u.sin() * u).sum())(v), (x,)
    )
    assert jtensor.autograd.gradcheck(
        lambda v: jtensor.func.jacrev(lambda u: u.exp() * u.sum())(v), (x,)
    )
