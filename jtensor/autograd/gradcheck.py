"""``gradcheck`` and ``gradgradcheck``: analytical gradients against central differences.

Each input element that requires grad is nudged by ``±eps`` in its own memory (so
non-contiguous inputs are checked as they are) and the outputs' change gives one column of
the numerical Jacobian; one backward pass per output element gives the analytical rows.
"""

import numpy as np

from .._api import ops as J
from .._errors import TensorRuntimeError
from .._layout import is_non_overlapping_and_dense
from .._tensor import Tensor


class GradcheckError(TensorRuntimeError):
    """Raised when analytical and numerical gradients disagree."""


def _as_tuple(x):
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _differentiable_outputs(outputs):
    return [o for o in outputs if isinstance(o, Tensor) and o._requires_grad]


def _numerical(func, inputs, diff_inputs, eps):
    """Columns of d(outputs)/d(input element), by central differences."""
    jac = []
    for x in diff_inputs:
        arr = x._array()
        cols = []
        for idx in np.ndindex(*x._shape):
            orig = arr[idx].copy()
            arr[idx] = orig + eps
            plus = _evaluate(func, inputs)
            arr[idx] = orig - eps
            minus = _evaluate(func, inputs)
            arr[idx] = orig
            cols.append(np.concatenate([(p - m) / (2 * eps)
                                        for p, m in zip(plus, minus, strict=True)])
                        if plus else np.zeros(0))
        jac.append(np.stack(cols, axis=1) if cols else np.zeros((0, 0)))
    return jac


def _float_outputs(out):
    return [o for o in _as_tuple(out) if isinstance(o, Tensor) and o.is_floating_point()]


def _evaluate(func, inputs):
    """The floating outputs of ``func(*inputs)`` as flat float64/complex128 NumPy copies."""
    return [o.detach()._host_array().astype(np.complex128 if o.is_complex() else np.float64)
            .ravel().copy() for o in _float_outputs(func(*inputs))]


def _analytical(func, inputs, diff_inputs):
    from ._backward import grad

    outputs = _float_outputs(func(*inputs))
    rows_per_input = [[] for _ in diff_inputs]
    for o in outputs:
        n = o.numel()
        for j in range(n):
            if not o._requires_grad:
                for k, x in enumerate(diff_inputs):
                    rows_per_input[k].append(np.zeros(x.numel()))
                continue
            go = J.zeros(n, dtype=o.dtype, device=o.device)
            go[j] = 1
            gs = grad(o, diff_inputs, go.reshape(o.shape), retain_graph=True,
                      allow_unused=True)
            for k, (x, g) in enumerate(zip(diff_inputs, gs, strict=True)):
                rows_per_input[k].append(
                    np.zeros(x.numel()) if g is None else
                    g.detach()._host_array().astype(np.float64).ravel().copy())
    return [np.stack(r, axis=0) if r else np.zeros((0, x.numel()))
            for r, x in zip(rows_per_input, diff_inputs, strict=True)]


def _forward_analytical(func, inputs, diff_inputs):
    """The Jacobian with respect to each input by forward mode: one call per input element,
    that input made dual with a one-hot tangent; the outputs' tangents are its columns."""
    from . import forward_ad as fwAD

    jac = []
    for x in diff_inputs:
        cols = []
        for j in range(x.numel()):
            # A nested level, so that gradcheck also works inside a user's dual level.
            level = fwAD._enter_dual_level(nested=True)
            try:
                tangent = J.zeros(x.numel(), dtype=x.dtype, device=x.device)
                tangent[j] = 1
                dual = fwAD.make_dual(x, tangent.reshape(x.shape), level=level)
                args = tuple(dual if a is x else a for a in inputs)
                parts = []
                for o in _float_outputs(func(*args)):
                    t = fwAD.unpack_dual(o, level=level).tangent
                    parts.append(np.zeros(o.numel()) if t is None else
                                 t.detach()._host_array().astype(np.float64).ravel().copy())
            finally:
                fwAD.exit_dual_level(level=level)
            cols.append(np.concatenate(parts) if parts else np.zeros(0))
        jac.append(np.stack(cols, axis=1) if cols else np.zeros((0, 0)))
    return jac


def _compare(numerical, analytical, what, rtol, atol, raise_exception):
    for k, (num, ana) in enumerate(zip(numerical, analytical, strict=True)):
        if num.shape != ana.shape:
            num = num.reshape(ana.shape) if num.size == ana.size else num
        if num.shape != ana.shape or not np.allclose(ana, num.real, rtol=rtol, atol=atol):
            if not raise_exception:
                return False
            raise GradcheckError(
                f"Jacobian {what}mismatch for output 0 with respect to input {k},\n"
                f"numerical:{num.real}\nanalytical:{ana}\n")
    return True


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """True when ``func``'s analytical gradients match finite differences for ``inputs``.

    Use float64 inputs (float32's rounding swamps ``eps``). Inputs that require grad must not
    overlap in memory (a stride of 0 would nudge many elements at once).
    ``check_backward_ad`` checks reverse mode (one backward pass per output element),
    ``check_forward_ad`` forward mode (``forward_ad``: one dual call per input element).
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError(
            "Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError(
            "Setting check_batched_grad=True requires check_backward_ad to be True")
    inputs = _as_tuple(inputs)
    diff_inputs = [x for x in inputs if isinstance(x, Tensor) and x._requires_grad]
    if not diff_inputs:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and x._requires_grad:
            if x._dtype.itemsize < 8 and x.is_floating_point():
                import warnings

                warnings.warn(
                    f"Input #{i} requires gradient and is not a double precision floating "
                    "point. This check will likely fail if all the inputs are not of double "
                    "precision floating point. ", UserWarning, stacklevel=2)
            if not is_non_overlapping_and_dense(x._shape, x._stride) and any(
                    s == 0 and n > 1 for n, s in zip(x._shape, x._stride, strict=True)):
                raise TensorRuntimeError(
                    f"The {i}th input has a dimension with stride 0. gradcheck only supports "
                    "inputs that are non-overlapping to be able to compute the numerical "
                    "gradients correctly. You should call .contiguous on the input before "
                    "passing it to gradcheck.")
    numerical = _numerical(func, inputs, diff_inputs, eps)
    if check_backward_ad and not _compare(
            numerical, _analytical(func, inputs, diff_inputs), "", rtol, atol, raise_exception):
        return False
    if check_forward_ad and not _compare(
            numerical, _forward_analytical(func, inputs, diff_inputs),
            "computed with forward mode ", rtol, atol, raise_exception):
        return False
    return True


def _uniform_like(o):
    out = J.empty(o.shape, dtype=o.dtype, device=o.device)
    (J.view_as_real(out) if out.is_complex() else out).uniform_(-1, 1)
    return out


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=False):
    """Second derivatives: ``gradcheck`` of the function ``inputs -> grad(func(inputs))``,
    built with ``create_graph=True``: ``check_rev_over_rev`` checks it by reverse mode,
    ``check_fwd_over_rev`` by forward mode (forward-over-reverse)."""
    from ._backward import grad

    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError(
            "Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(_as_tuple(func(*inputs)))
    if grad_outputs is None:
        # As PyTorch's (torch.testing.make_tensor, low=-1, high=1): uniform draws from the
        # default generator, so a program's later random numbers are PyTorch's too.
        grad_outputs = tuple(_uniform_like(o).requires_grad_() for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]

    def first_grads(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = _differentiable_outputs(_as_tuple(func(*ins)))
        gs = grad(outs, [ins[i] for i in diff_idx], gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_grads, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev)
