"""``torch.func.linearize``, ``functionalize`` and ``replace_all_batch_norm_modules_``.

jtensor runs eagerly and traces nothing, so these are written on the eager transforms:
``linearize`` returns the value and a function evaluating the Jacobian-vector product at
the primals (by forward-mode AD on each call, where PyTorch traces the linear map once: the
values agree); ``functionalize`` checks its mode and runs the function as it is (PyTorch's
replaces mutations by out-of-place ops and copies the results back into mutated inputs, so
what a caller observes is the same).
"""

from .._errors import TensorRuntimeError, type_name
from .._tensor import Tensor
from . import _pytree
from ._forward import jvp


def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product of
    ``func`` at ``primals`` (tangents with the primals' structure, shapes and dtypes)."""
    output = func(*primals)
    flat_p, spec = _pytree.flatten(primals)

    def jvp_fn(*tangents):
        flat_t, t_spec = _pytree.flatten(tangents)
        if t_spec != spec:
            raise TensorRuntimeError(
                f"Expected the tangents {t_spec} to have the same argspec as the primals {spec}")
        for i, (p, t) in enumerate(zip(flat_p, flat_t, strict=True)):
            if not isinstance(t, Tensor):
                raise TensorRuntimeError(f"tangent:{i} is a {type_name(t)}, not a Tensor")
            if t.shape != p.shape:
                raise TensorRuntimeError(
                    f"tangent:{i} with shape {t.shape} in flattened pytree doesn't match the "
                    f"shape {p.shape} of the corresponding primal.")
            if t.dtype != p.dtype:
                raise TensorRuntimeError(
                    f"tangent:{i} with dtype {t.dtype} in flattened pytree doesn't match the "
                    f"dtype {p.dtype} of the corresponding primal.")
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


_REMOVE = ("mutations", "mutations_and_views")


def functionalize(func, *, remove="mutations"):
    """``func`` without in-place ops and ``out=`` (``remove="mutations"``), or without views
    too (``"mutations_and_views"``): the same results and the same effect on its inputs."""
    if remove not in _REMOVE:
        raise TensorRuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for "
            f"remove={remove}. Valid options are:\n"
            "     remove='mutations': all inplace and out= operators will be removed from the "
            "program, and replaced with their out-of-place equivalents.\n"
            "     remove='mutations_and_views': In addition to the above, all aliasing "
            "operators {view} will be replaced with their non-aliasing counterparts, "
            "{view}_copy.\n")

    def wrapped(*args, **kwargs):
        return func(*args, **kwargs)

    wrapped.__wrapped__ = func
    return wrapped


def replace_all_batch_norm_modules_(root):
    """Make every batch norm in ``root`` use batch statistics only (no running stats), as
    ``vmap`` over a model needs; returns ``root``, changed in place."""
    from ..nn.modules.batchnorm import _BatchNorm

    for module in root.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
