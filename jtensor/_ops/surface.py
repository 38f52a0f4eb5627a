"""In-place and copy forms PyTorch has beside ops jtensor already computes (issue 15's
``dir(torch.Tensor)`` coverage): ``addmm_``, ``baddbmm_``, ``cumsum_``, ``cumprod_``.

Each runs the out-of-place implementation, then writes its result into ``self`` with
PyTorch's in-place checks (the result must have ``self``'s shape and dtype: no broadcasting
``self`` up, no type promotion), so values, errors and the derivative (borrowed from the
out-of-place op by ``autograd.formulas.finalize``: ``AddmmBackward0``, ``CumsumBackward0``...)
are the out-of-place op's.
"""

import inspect

from .._dispatch import check_inplace, grad_mode
from .._errors import TensorRuntimeError
from .._registry import OPS, register
from ._selection_common import _write_out
from .reductions import _c_name, write_out

__all__ = []


def _write_result(input, result):
    """``self`` takes ``result``: PyTorch's "Bad in-place call" checks, then one write."""
    if tuple(result._shape) != tuple(input._shape):
        raise TensorRuntimeError(
            f"Bad in-place call: input tensor size {list(input._shape)} and output tensor size "
            f"{list(result._shape)} should match"
        )
    if result._dtype is not input._dtype:
        raise TensorRuntimeError(
            f"Bad in-place call: input tensor dtype {_c_name(input._dtype)} and output tensor "
            f"dtype {_c_name(result._dtype)} should match"
        )
    check_inplace(input)
    write_out(input, result._array())
    return input


@register("inplace", function=False)
def addmm_(input, mat1, mat2, *, beta=1, alpha=1):
    """In-place ``addmm``: ``self = beta * self + alpha * (mat1 @ mat2)``; ``self`` must
    already have the product's shape."""
    return _write_result(input, OPS["addmm"].impl(input, mat1, mat2, beta=beta, alpha=alpha))


@register("inplace", function=False)
def baddbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    """In-place ``baddbmm``: ``self = beta * self + alpha * bmm(batch1, batch2)``."""
    return _write_result(input, OPS["baddbmm"].impl(input, batch1, batch2, beta=beta, alpha=alpha))


@register("inplace", function=False)
def cumsum_(input, dim, *, dtype=None):
    """In-place ``cumsum`` along ``dim`` (``dtype``, if given, must be ``self``'s)."""
    return _write_result(input, OPS["cumsum"].impl(input, dim, dtype=dtype))


@register("inplace", function=False)
def cumprod_(input, dim, *, dtype=None):
    """In-place ``cumprod`` along ``dim`` (``dtype``, if given, must be ``self``'s)."""
    return _write_result(input, OPS["cumprod"].impl(input, dim, dtype=dtype))


# ----------------------------------------------------------------------- *_copy ops
# PyTorch's functionalization variants of the view ops: the view's values as a fresh
# contiguous tensor that shares nothing with the input. The derivative is the view's, under
# PyTorch's node name with a ``_copy`` suffix (``ViewBackward0_copy``); jtensor.autograd
# attaches it (see jtensor/_surface.py), the layer above this one.
COPY_OF_VIEW = {
    "alias_copy": "alias",
    "as_strided_copy": "as_strided",
    "detach_copy": "detach",
    "diagonal_copy": "diagonal",
    "expand_copy": "expand",
    "permute_copy": "permute",
    "select_copy": "select",
    "split_copy": "split",
    "split_with_sizes_copy": "split_with_sizes",
    "squeeze_copy": "squeeze",
    "t_copy": "t",
    "transpose_copy": "transpose",
    "unbind_copy": "unbind",
    "unfold_copy": "unfold",
    "unsqueeze_copy": "unsqueeze",
    "view_as_complex_copy": "view_as_complex",
    "view_as_real_copy": "view_as_real",
    "view_copy": "view",
}

# PyTorch has no derivative for these (a complex output of a copy op): it refuses the call
# when the input requires grad.
REFUSES_GRAD = {"view_as_complex_copy"}


# Arguments the *_copy op names differently from its view op: {op: {theirs: ours}}.
_RENAMED_ARGS = {"split_copy": {"split_size": "split_size_or_sections"}}
_THEIR_NAME = {
    (op, ours): theirs for op, names in _RENAMED_ARGS.items() for theirs, ours in names.items()
}


def _fresh(t):
    from .._tensor import contiguous_format

    return OPS["clone"].impl(t, memory_format=contiguous_format)


def _define_copy(name, view_name):
    view_impl = OPS[view_name].impl
    renamed = _RENAMED_ARGS.get(name, {})

    def impl(*args, out=None, **kwargs):
        for theirs, ours in renamed.items():
            if theirs in kwargs:
                kwargs[ours] = kwargs.pop(theirs)
        result = _copy_of_view(*args, **kwargs)
        if out is None:
            return result
        if isinstance(result, tuple):
            if not isinstance(out, (list, tuple)) or len(out) != len(result):
                raise TensorRuntimeError(
                    f"{name}: expected out to be a list of {len(result)} tensors"
                )
            return tuple(_write_out(o, r, name) for o, r in zip(out, result, strict=True))
        return _write_out(out, result, name)

    def _copy_of_view(*args, **kwargs):
        if name in REFUSES_GRAD and grad_mode.enabled and args[0].requires_grad:
            raise TensorRuntimeError(
                f"{name} does not support automatic differentiation for outputs with complex dtype."
            )
        if name == "view_copy":
            # Any layout: PyTorch's view_copy reshapes a copy, so a view its input's strides
            # could not express (x.t().view(4, 3)) is still made.
            result = view_impl(_fresh(args[0]), *args[1:], **kwargs)
        else:
            result = view_impl(*args, **kwargs)
        if isinstance(result, (tuple, list)):
            return tuple(_fresh(t) for t in result)
        return _fresh(result)

    # PyTorch's signature: the view's, its renamed arguments, and ``out=``.
    sig = inspect.signature(view_impl)
    params = [
        p.replace(name=_THEIR_NAME.get((name, p.name), p.name))
        for p in sig.parameters.values()
        if p.name != "out"
    ]
    params.append(inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
    impl.__signature__ = sig.replace(parameters=params)
    impl.__name__ = impl.__qualname__ = name
    impl.__doc__ = (
        f"``{view_name}``'s result as a fresh contiguous tensor (PyTorch's "
        f"``torch.{name}``): nothing is shared with the input."
    )
    register("copy", name, method=False)(impl)


for _name, _view in COPY_OF_VIEW.items():
    _define_copy(_name, _view)
del _name, _view


@register("copy", method=False)
def fill(input, value):
    """``torch.fill(input, value)``: a new tensor of ``input``'s shape, dtype and layout filled
    with ``value`` (a number or a 0-d tensor), ``fill_`` on a fresh copy that keeps a dense
    input's strides (as ``clone``'s preserve_format: ``fill(x.t(), 1)`` is column-major)."""
    return OPS["fill_"].impl(OPS["clone"].impl(input), value)
