"""``autograd.backward`` and ``autograd.grad`` (``autograd.functional`` is the higher-level
API built on them: ``jacobian``, ``hessian``, ``vjp``...)."""

import sys
import warnings

from .._api import ops as J
from .._tensor import Tensor
from .engine import run_backward
from .._errors import type_name


def _as_tuple(x, what):
    if isinstance(x, Tensor):
        return (x,)
    if x is None:
        return None
    try:
        return tuple(x)
    except TypeError:
        raise TypeError(f"{what} must be a Tensor or a sequence of Tensors, got "
                        f"{type_name(x)}") from None


def _grads_for(outputs, grad_outputs):
    if grad_outputs is None:
        return [None] * len(outputs)
    grads = _as_tuple(grad_outputs, "grad_tensors")
    if len(grads) != len(outputs):
        raise RuntimeError(
            f"got {len(outputs)} tensors and {len(grads)} gradients (they must pair up)")
    return list(grads)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate d(tensors)/d(leaf) into each leaf's ``.grad`` (only ``inputs``' when given).

    Non-scalar ``tensors`` need ``grad_tensors`` (the vector of the vector-Jacobian product).
    """
    outputs = _as_tuple(tensors, "tensors")
    if grad_tensors is None:
        grad_tensors = grad_variables
    inputs = _as_tuple(inputs, "inputs")
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("backward() received an empty list of inputs: pass None to "
                           "accumulate into every leaf, or the tensors to accumulate into")
    if create_graph and not _warned_create_graph_cycle:
        _warn_create_graph_cycle()
    run_backward(outputs, _grads_for(outputs, grad_tensors), retain_graph, create_graph,
                 inputs=inputs, accumulate=True)


_warned_create_graph_cycle = False


def _warn_create_graph_cycle():
    """PyTorch's once-per-process warning: ``.grad`` made with a graph refers back to the
    parameter through that graph, so the pair is only freed by the cycle collector."""
    global _warned_create_graph_cycle
    _warned_create_graph_cycle = True
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith("jtensor."):
        frame, level = frame.f_back, level + 1
    warnings.warn(
        "Using backward() with create_graph=True will create a reference cycle between the "
        "parameter and its gradient which can cause a memory leak. We recommend using "
        "autograd.grad when creating the graph to avoid this. If you have to use this "
        "function, make sure to reset the .grad fields of your parameters to None after use "
        "to break the cycle and avoid the leak.", UserWarning, stacklevel=level)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` fields
    are left alone). An input the outputs do not depend on is an error unless
    ``allow_unused=True`` (then its gradient is None, or zeros with ``materialize_grads``).
    """
    outs = _as_tuple(outputs, "outputs")
    ins = _as_tuple(inputs, "inputs")
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    grads = _grads_for(outs, grad_outputs)
    if is_grads_batched:
        result = _batched_grad(outs, ins, grads, retain_graph, create_graph, allow_unused)
    else:
        result = run_backward(outs, grads, retain_graph, create_graph, inputs=ins,
                              allow_unused=allow_unused, accumulate=False)
    if materialize_grads:
        result = tuple(J.zeros_like(i) if r is None else r
                       for r, i in zip(result, ins, strict=True))
    return result


# ``torch.func.vmap``, installed by ``jtensor.func`` (a layer above autograd; ``import
# jtensor`` always loads it): what ``is_grads_batched=True`` runs the backward pass under.
vmap = None


def _batched_grad(outs, ins, grads, retain_graph, create_graph, allow_unused):
    """``grad(..., is_grads_batched=True)``: the first dim of each grad_output is a batch of
    vectors; one backward pass under ``vmap`` gives every vector-Jacobian product (as
    PyTorch computes it), stacked along a new first dim of each result."""
    from .._size import Size

    for i, (out, g) in enumerate(zip(outs, grads, strict=True)):
        if isinstance(g, Tensor) and (g.dim() == 0 or tuple(g._shape[1:]) != tuple(out._shape)):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions are "
                "expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{i}] has a shape of {Size(g._shape)} (batch dimension "
                f"included) and output[{i}] has a shape of {Size(out._shape)}. If you only "
                "want some tensors in `grad_output` to be considered batched, consider using "
                "vmap.")
    batched = [i for i, g in enumerate(grads) if isinstance(g, Tensor)]

    unused = set()

    def vjp(*vectors):
        per_output = list(grads)
        for i, v in zip(batched, vectors, strict=True):
            per_output[i] = v
        found = run_backward(outs, per_output, retain_graph, create_graph, inputs=ins,
                             allow_unused=allow_unused, accumulate=False)
        # vmap returns tensors only: an unused input's None is carried by a placeholder.
        unused.update(k for k, r in enumerate(found) if r is None)
        return tuple(ins[k].new_zeros(()) if r is None else r for k, r in enumerate(found))

    result = vmap(vjp)(*(grads[i] for i in batched))   # (installed by jtensor.func)
    return tuple(None if k in unused else r for k, r in enumerate(result))
