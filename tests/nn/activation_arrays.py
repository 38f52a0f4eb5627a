"""What the activation array-path tests share (``test_activation_fast``,
``test_activation_more_fast``): running an activation under either library, and comparing
its output and gradient with PyTorch's."""

import numpy as np


def bits(t):
    """Everything a result shows, its bytes included."""
    return (tuple(t.shape), t.stride(), str(t.dtype), t._version, t.detach().numpy().tobytes())


def lib_run(lib, call, values, dtype, shape, x_fn=None):
    """``call(F, x)`` on ``values(shape)`` under ``lib`` (``x_fn`` lays the input out), and
    its backward with ``values(out shape, seed=1)``: output, input gradient, node name and
    version."""
    x = lib.tensor(values(shape), dtype=getattr(lib, dtype), requires_grad=True)
    src = x if x_fn is None else x_fn(x)
    y = call(lib.nn.functional, src)
    y.backward(lib.tensor(values(tuple(y.shape), seed=1), dtype=x.dtype))
    return {"out": y, "grad": x.grad, "node": type(y.grad_fn).__name__, "version": y._version}


def close(mine, theirs, tol):
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert mine.stride() == theirs.stride()
    np.testing.assert_allclose(
        mine.detach().double().numpy(), theirs.detach().double().numpy(), rtol=tol, atol=tol
    )


def follows_torch(mine, theirs, node, tol):
    """``lib_run``'s results agree with PyTorch's: the node, a fresh output at version 0,
    values and gradients within ``tol``, strides."""
    assert mine["node"] == theirs["node"] == node
    assert mine["version"] == theirs["version"] == 0
    assert mine["out"]._base is None and theirs["out"]._base is None
    close(mine["out"], theirs["out"], tol)
    close(mine["grad"], theirs["grad"], tol)
