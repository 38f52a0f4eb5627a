"""Helpers for comparing jtensor's nn (modules, functional, optim, data) with PyTorch's.

``to_torch(x)`` / ``to_jt(x)`` convert tensors (values, dtype, requires_grad) through NumPy;
``copy_weights(jt_module, torch_module)`` copies PyTorch's initial parameters and buffers into
the jtensor module so both compute from the same numbers; ``assert_close(a, b)`` compares
tensors from the two libraries (shape, dtype name and values); ``assert_same_training``
runs a forward, a backward with a fixed gradient, and compares outputs, input gradients
and parameter gradients.

Device-agnostic: jtensor tensors are made on the run's default device (``cuda`` under
``pytest --device cuda``) and come back with ``.cpu()``; PyTorch stays on the CPU.
"""

import numpy as np

import jtensor

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None


def to_numpy(t):
    """A host array of a jtensor or PyTorch tensor (from any device), or of a plain value."""
    return t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)


def to_jt(t, requires_grad=None):
    arr = to_numpy(t)
    out = jtensor.tensor(arr)
    req = t.requires_grad if requires_grad is None and hasattr(t, "requires_grad") else \
        bool(requires_grad)
    return out.requires_grad_() if req else out


def to_torch(t, requires_grad=None):
    arr = to_numpy(t)
    out = torch.tensor(arr)
    req = t.requires_grad if requires_grad is None and hasattr(t, "requires_grad") else \
        bool(requires_grad)
    return out.requires_grad_() if req else out


def copy_weights(jt_module, torch_module):
    """Load ``torch_module``'s state (parameters and buffers) into ``jt_module``."""
    state = {k: jtensor.tensor(v.detach().cpu().numpy())
             for k, v in torch_module.state_dict().items()}
    jt_module.load_state_dict(state)
    return jt_module


def assert_close(ours, theirs, rtol=1e-5, atol=1e-6, what="value"):
    if theirs is None or ours is None:
        assert ours is None and theirs is None, f"{what}: one side is None ({ours!r}, {theirs!r})"
        return
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs), f"{what}: lengths differ"
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_close(a, b, rtol, atol, f"{what}[{i}]")
        return
    assert tuple(ours.shape) == tuple(theirs.shape), \
        f"{what}: shape {tuple(ours.shape)} != {tuple(theirs.shape)}"
    assert str(ours.dtype) == str(theirs.dtype), f"{what}: dtype {ours.dtype} != {theirs.dtype}"
    np.testing.assert_allclose(to_numpy(ours).astype(np.float64) if ours.dtype.is_floating_point
                               else to_numpy(ours),
                               to_numpy(theirs).astype(np.float64) if theirs.dtype.is_floating_point
                               else to_numpy(theirs), rtol=rtol, atol=atol, err_msg=what)


def assert_same_training(jt_module, torch_module, *inputs, rtol=1e-5, atol=1e-6, seed=0):
    """Same weights, same inputs: equal outputs, input grads and parameter grads."""
    copy_weights(jt_module, torch_module)
    j_in = [to_jt(x) if hasattr(x, "detach") else x for x in inputs]
    t_in = [to_torch(x) if hasattr(x, "detach") else x for x in inputs]
    j_out = jt_module(*j_in)
    t_out = torch_module(*t_in)
    assert_close(j_out, t_out, rtol, atol, "output")
    if t_out.requires_grad:
        g = np.random.default_rng(seed).standard_normal(tuple(t_out.shape)).astype(
            to_numpy(t_out).dtype)
        j_out.backward(jtensor.tensor(g))
        t_out.backward(torch.tensor(g))
        for i, (a, b) in enumerate(zip(j_in, t_in, strict=True)):
            if hasattr(b, "grad") and b.requires_grad:
                assert_close(a.grad, b.grad, rtol, atol, f"grad of input {i}")
        j_params = dict(jt_module.named_parameters())
        for name, p in torch_module.named_parameters():
            assert_close(j_params[name].grad, p.grad, rtol, atol, f"grad of {name}")
    return j_out, t_out


def assert_same_error(call):
    """``call(torch)`` and ``call(jtensor)`` raise: the same builtin type, the same message."""
    import pytest

    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(jtensor)
    assert str(ours.value) == str(theirs.value)
