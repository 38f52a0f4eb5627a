"""What the activation array-path tests share (``test_activation_fast``,
``test_activation_more_fast``): inputs with special values, everything observable of a call
and its backward passes, the general path's results, and PyTorch's."""

import numpy as np

import jtensor
from jtensor.nn._functional import activation
from tests.nn.norm_arrays import close


def values(shape, seed, special, specials, scale):
    """Normal values times ``scale``, the first ones ``specials`` where ``special``."""
    a = np.random.default_rng(seed).standard_normal(shape) * scale
    if special:
        flat = a.reshape(-1)
        n = min(len(specials), flat.size)
        flat[:n] = specials[:n]
    return a


def bits(t):
    """Everything a result shows, its bytes included."""
    return (tuple(t.shape), t.stride(), str(t.dtype), t._version, t.detach().numpy().tobytes())


def observe(call, make_values, dtype, shape, x_fn=None, special=False):
    """Everything observable of ``call(F, x)`` and two backward passes (a gradient of random
    values, and the expanded one of ``y.sum()``); ``make_values(shape, seed=, special=)``."""
    # (a fresh tensor's strides: ``tensor()`` of an empty array has strides 0, as PyTorch's)
    x = jtensor.empty(shape, dtype=getattr(jtensor, dtype))
    x.copy_(jtensor.tensor(make_values(shape, special=special)))
    x.requires_grad_()
    src = x if x_fn is None else x_fn(x)
    y = call(jtensor.nn.functional, src)
    saved = [s is src for s in y.grad_fn.saved_tensors]
    g = jtensor.tensor(make_values(tuple(y.shape), seed=1), dtype=x.dtype)
    (gx,) = jtensor.autograd.grad(y, x, g, retain_graph=True)
    (gs,) = jtensor.autograd.grad(y.sum(), x)
    return {
        "out": bits(y),
        "node": type(y.grad_fn).__name__,
        "view": y._base is not None,
        "saved": saved,
        "grads": [bits(gx), bits(gs)],
    }


def same_as_general(run, monkeypatch):
    """``run()`` with the array paths on and off gives the same; that result."""
    fast = run()
    monkeypatch.setattr(activation, "ARRAY_PATHS", False)
    general = run()
    monkeypatch.setattr(activation, "ARRAY_PATHS", True)
    assert fast == general
    return fast


def lib_run(lib, call, make_values, dtype, shape, x_fn=None):
    """``call(F, x)`` on ``make_values(shape)`` under ``lib`` (``x_fn`` lays the input out),
    and its backward with ``make_values(out shape, seed=1)``: output, input gradient, node
    name and version."""
    x = lib.tensor(make_values(shape), dtype=getattr(lib, dtype), requires_grad=True)
    src = x if x_fn is None else x_fn(x)
    y = call(lib.nn.functional, src)
    y.backward(lib.tensor(make_values(tuple(y.shape), seed=1), dtype=x.dtype))
    return {"out": y, "grad": x.grad, "node": type(y.grad_fn).__name__, "version": y._version}


def follows_torch(mine, theirs, node, tol):
    """``lib_run``'s results agree with PyTorch's: the node, a fresh output at version 0,
    values and gradients within ``tol``, strides."""
    assert mine["node"] == theirs["node"] == node
    assert mine["version"] == theirs["version"] == 0
    assert mine["out"]._base is None and theirs["out"]._base is None
    close(mine["out"], theirs["out"], tol)
    close(mine["grad"], theirs["grad"], tol)
