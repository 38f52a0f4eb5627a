"""``nn.utils.clip_grad_norm_`` and ``clip_grad_value_``: rescale or clamp the gradients of
parameters in place, as PyTorch does (``foreach`` is accepted and ignored)."""

import types
import warnings

from ... import linalg
from ..._api import ops as J
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "get_total_norm",
]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of the norms of ``tensors`` (as if they were concatenated);
    ``inf`` gives the largest absolute value. An empty list gives ``tensor(0.)``."""
    with no_grad():
        if isinstance(tensors, Tensor):
            tensors = [tensors]
        else:
            tensors = list(tensors)
        norm_type = float(norm_type)
        if len(tensors) == 0:
            return J.tensor(0.0)
        first_device = tensors[0].device
        _refuse_sparse(tensors, "linalg_vector_norm")
        norms = [linalg.vector_norm(g, norm_type) for g in tensors]
        total_norm = linalg.vector_norm(J.stack([n.to(first_device) for n in norms]), norm_type)
        if error_if_nonfinite and bool(total_norm.isnan() | total_norm.isinf()):
            raise _runtime_error(
                f"The total norm of order {norm_type} for gradients from `parameters` is "
                "non-finite, so it cannot be clipped. To disable this error and scale the "
                "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
        return total_norm


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients of ``parameters`` by ``min(1, max_norm / (total_norm + 1e-6))``."""
    with no_grad():
        if isinstance(parameters, Tensor):
            parameters = [parameters]
        grads = [p.grad for p in parameters if p.grad is not None]
        max_norm = float(max_norm)
        if len(grads) == 0:
            return
        clip_coef = max_norm / (total_norm + 1e-6)
        clip_coef_clamped = J.clamp(clip_coef, max=1.0)
        for g in grads:
            g.mul_(clip_coef_clamped.to(g.device))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Clip the gradient norm of ``parameters`` (a tensor or an iterable of tensors) in place
    so that the total ``norm_type``-norm is at most ``max_norm``; returns the total norm
    before clipping. ``error_if_nonfinite=True`` raises ``RuntimeError`` on a nan/inf norm.

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.zeros(2))
    >>> w.grad = torch.tensor([3.0, 4.0])
    >>> torch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
    tensor(5.)
    >>> w.grad
    tensor([0.6000, 0.8000])
    """
    with no_grad():
        if isinstance(parameters, Tensor):
            parameters = [parameters]
        else:
            is_generator = isinstance(parameters, types.GeneratorType)
            parameters = list(parameters)
            if is_generator and len(parameters) == 0:
                warnings.warn("`parameters` is an empty generator, no gradient clipping will "
                              "occur.", stacklevel=3)
        grads = [p.grad for p in parameters if p.grad is not None]
        total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
        clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
        return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    """Deprecated alias of ``clip_grad_norm_`` (warns ``FutureWarning``)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp the gradients of ``parameters`` in place to ``[-clip_value, clip_value]``.

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.zeros(3))
    >>> w.grad = torch.tensor([-3.0, 0.5, 4.0])
    >>> torch.nn.utils.clip_grad_value_(w, 1.0)
    >>> w.grad
    tensor([-1.0000,  0.5000,  1.0000])
    """
    with no_grad():
        if isinstance(parameters, Tensor):
            parameters = [parameters]
        clip_value = float(clip_value)
        parameters = list(parameters)
        _refuse_sparse([p.grad for p in parameters if p.grad is not None], "clamp_min_")
        for p in parameters:
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)


def _refuse_sparse(tensors, op):
    """PyTorch has no norm or clamp kernel for sparse COO gradients
    (``nn.Embedding(sparse=True)``): raise its ``NotImplementedError`` before touching any
    gradient."""
    from ..._errors import TensorNotImplementedError
    from ..._sparse import SparseCOOTensor

    for i, t in enumerate(tensors):
        if t.__class__ is SparseCOOTensor:
            raise TensorNotImplementedError(
                f"Could not run 'aten::{op}' with arguments from the 'SparseCPU' backend: "
                f"gradient {i} is a sparse COO tensor (nn.Embedding(sparse=True)) and "
                "gradient clipping is not implemented for sparse tensors (as in PyTorch); "
                "clip a dense copy (grad.to_dense()) or use sparse=False")


def _runtime_error(msg):
    from ..._errors import TensorRuntimeError

    return TensorRuntimeError(msg)
