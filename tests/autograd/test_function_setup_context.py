"""``autograd.Function`` in its newer form (``forward(*args)`` without ``ctx`` plus
``setup_context(ctx, inputs, output)``, the form ``torch.func`` documents), and
``Tensor.numpy()`` on a tensor that requires grad where grad mode is off (inside a
Function's forward, under ``no_grad``), against PyTorch."""

import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def _classes(lib):
    class Sort(lib.autograd.Function):
        @staticmethod
        def forward(x, dim):
            a = x.cpu().numpy()  # grad mode is off inside forward: allowed
            ind = np.argsort(a, axis=dim, kind="stable")
            inv = np.argsort(ind, axis=dim, kind="stable")
            return (
                lib.tensor(np.take_along_axis(a, ind, axis=dim)),
                lib.tensor(ind),
                lib.tensor(inv),
            )

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, dim = inputs
            _, ind, inv = output
            ctx.mark_non_differentiable(ind, inv)
            ctx.save_for_backward(ind, inv)
            ctx.dim = dim

        @staticmethod
        def backward(ctx, g, _0, _1):
            ind, inv = ctx.saved_tensors
            return g.gather(ctx.dim, inv), None

    class Cube(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x**3, 3 * x**2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0], output[1])

        @staticmethod
        def backward(ctx, g, g_dx):
            x, dx = ctx.saved_tensors
            return g * dx + g_dx * 6 * x

    return Sort, Cube


def _run(lib):
    Sort, Cube = _classes(lib)
    x = lib.tensor([[0.3, -1.2, 2.5], [1.1, 0.4, -0.7]], dtype=lib.float64, requires_grad=True)
    values, ind, inv = Sort.apply(x, 1)
    values.backward(lib.arange(6.0, dtype=lib.float64).reshape(2, 3))
    out = {
        "sorted": values.tolist(),
        "ind": (ind.tolist(), ind.requires_grad),
        "node": type(values.grad_fn).__name__,
        "grad": x.grad.tolist(),
    }
    x2 = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)
    out["func.grad"] = lib.func.grad(lambda t: Cube.apply(t)[0].sum())(x2).tolist()
    out["jacrev"] = lib.func.jacrev(lambda t: Cube.apply(t)[0])(x2).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # generate_vmap_rule: no performance warning
        out["vmap"] = lib.vmap(lambda t: Cube.apply(t)[0])(x2.reshape(3, 1)).tolist()
    out["func.grad sort"] = lib.func.grad(lambda t: Sort.apply(t, 0)[0].sum())(x2).tolist()
    return out


def test_setup_context_functions_match_pytorch():
    ours, theirs = _run(jtensor), _run(torch)
    assert ours == theirs


@pytest.mark.parametrize("form", ["numpy", "asarray"])
def test_numpy_of_a_grad_requiring_tensor_depends_on_grad_mode(form):
    for lib in (jtensor, torch):
        x = lib.ones(2, requires_grad=True)
        get = (lambda x=x: x.numpy()) if form == "numpy" else (lambda x=x: np.asarray(x))
        with pytest.raises(RuntimeError, match="Can't call numpy"):
            get()
        with lib.no_grad():
            assert get().tolist() == [1.0, 1.0]


def test_setup_context_default_raises_like_pytorch():
    for lib in (jtensor, torch):
        with pytest.raises(NotImplementedError, match="setup_context is not implemented"):
            lib.autograd.Function.setup_context(None, (), None)
