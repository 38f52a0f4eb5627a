"""Weight normalization, the hook form (deprecated in PyTorch in favour of
``parametrizations.weight_norm``): ``weight = g * v / ||v||``, with ``weight_g`` and
``weight_v`` the learnt parameters and the norm taken over every dimension but ``dim``
(``dim=None``: over the whole tensor, PyTorch's ``-1``)."""

import warnings

from ... import linalg as _linalg
from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim"]


def _other_dims(v, dim):
    return tuple(d for d in range(v.dim()) if d != dim) if dim != -1 else tuple(range(v.dim()))


def norm_except_dim(v, pow=2, dim=0):
    """``||v||_pow`` over every dimension but ``dim`` (kept, with size 1 elsewhere);
    ``dim=-1``: over the whole tensor, a 0-d result."""
    if dim == -1:
        return _linalg.vector_norm(v, pow)
    return _linalg.vector_norm(v, pow, dim=_other_dims(v, dim), keepdim=True)


class _WeightNormFn(Function):
    """``g * v / ||v||`` (PyTorch's ``_weight_norm``: node ``WeightNormInterfaceBackward0``);
    the backward is written in public ops, so it is differentiable again."""

    _node_name = "WeightNormInterfaceBackward0"

    @staticmethod
    def forward(ctx, v, g, dim):
        ctx.dim = dim
        ctx.save_for_backward(v, g)
        return v * (g / norm_except_dim(v, 2, dim))

    @staticmethod
    def backward(ctx, grad):
        v, g = ctx.saved_tensors
        # recomputed from v (not saved from the forward): under create_graph the norm is then
        # part of the graph and the second derivatives are right
        norm = norm_except_dim(v, 2, ctx.dim)
        dims = _other_dims(v, ctx.dim)
        keep = ctx.dim != -1
        dot = (grad * v).sum(dims, keepdim=keep)
        grad_g = dot / norm
        grad_v = (g / norm) * (grad - v * (dot / (norm * norm)))
        return grad_v, grad_g, None


def _weight_norm(v, g, dim=0):
    """``v * (g / norm_except_dim(v, 2, dim))`` with PyTorch's node."""
    return _WeightNormFn.apply(v, g, dim)


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g`` and
    ``<name>_v`` before each call."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        """``g * v / ||v||`` from the module's two parameters."""
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        """Replace ``module.<name>`` by ``<name>_g``/``<name>_v`` and register the hook."""
        warnings.warn(
            "`torch.nn.utils.weight_norm` is deprecated in favor of "
            "`torch.nn.utils.parametrizations.weight_norm`.",
            FutureWarning,
            stacklevel=3,
        )
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}"
                )
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        with no_grad():
            module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, dim)))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        """Put back ``module.<name>`` as one parameter holding the current weight."""
        with no_grad():
            weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (a forward pre-hook; deprecated
    in PyTorch: warns)."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo ``weight_norm``: ``module.<name>`` is a plain parameter again."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
