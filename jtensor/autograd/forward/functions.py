"""``autograd.Function`` under forward-mode AD.

``Function.apply`` is not an op, so the dispatcher's transforms do not see it: it calls
``apply_under_transforms`` whenever a transform is active. With a dual input, as PyTorch:
``forward`` runs without tangents (its ops see no dual level), then

- a Function with its own ``jvp(ctx, *tangents)`` gets one tangent per ``forward``
  argument (zeros for a tensor without one, None for anything else) and returns the
  outputs' tangents; ``ctx.saved_tensors`` there are the ``ctx.save_for_forward`` ones;
- a user's Function without ``jvp`` raises PyTorch's ``NotImplementedError``;
- jtensor's own Functions (the fused ``nn`` kernels) take the generic rule: the double vjp
  through their backward, which they all support (``create_graph=True``).

An output written in place (``ctx.mark_dirty``) has its tangent updated in place.
"""

from ... import _dispatch
from ..._api import ops as J
from ..._errors import TensorNotImplementedError, TensorRuntimeError
from ..._tensor import Tensor
from . import tangents as T
from .rules import GENERIC, Call, _share_with_saved_output


class _FunctionOp:
    """What the generic rule reads of an op (its name, for messages and caches)."""

    __slots__ = ("name", "impl", "kind", "backward", "generated_rule")

    def __init__(self, cls):
        self.name = f"{cls.__module__}.{cls.__qualname__}"
        self.impl = cls.forward
        self.kind = "function"
        self.backward = None
        # ``generate_vmap_rule = True``: vmap's per-sample run is the rule asked for.
        self.generated_rule = bool(getattr(cls, "generate_vmap_rule", False))


def _dual_tangents(args, kwargs):
    """The innermost dual level with a tangent among the arguments, and those tangents."""
    from ..forward_ad import DualLevel, _note

    values = (*args, *kwargs.values()) if kwargs else args
    for level in reversed(_dispatch.transforms.stack):
        if not isinstance(level, DualLevel):
            continue
        found = None
        for a in values:
            if isinstance(a, Tensor):
                found = _note(level, a, found)
        if found is not None:
            return level, found
    return None, None


class _Popped:
    """Takes one transform off the stack (wherever it is) for a block."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        stack = _dispatch.transforms.stack
        self.index = stack.index(self.level)
        del stack[self.index]
        _dispatch.transforms.active = len(stack)

    def __exit__(self, *exc):
        stack = _dispatch.transforms.stack
        stack.insert(self.index, self.level)
        _dispatch.transforms.active = len(stack)
        return False


def _size_error(output, tangent):
    return TensorRuntimeError(
        "Trying to set a forward gradient that has a different size than that of the "
        f"original Tensor, this is not supported. Tensor is of size {list(output._shape)} "
        f"while the given forward gradient is of size {list(tangent._shape)}."
    )


def _records(*primals):
    """Whether a forward formula over ``primals`` is recorded by reverse mode."""
    return _dispatch.grad_mode.enabled and any(
        isinstance(p, Tensor) and p._requires_grad for p in primals)


def _convolution_jvp(cls, args, tangents):
    """``conv(x, w) + b`` (the ``_Convolution`` Function of ``F.conv1d/2d/3d``): bilinear in
    ``x`` and ``w``, each term the same convolution. The terms are applied as the Function
    again, below the dual level, so a vmap level there batches them (the generic rule would
    read one sample's arrays of a batched input)."""
    x, w, bias, meta, squeeze, batched, channels_last = args
    tx, tw, tb = tangents[:3]
    if (tx is None or tw is None) and _records(x, w):
        tx = J.zeros_like(x) if tx is None else tx
        tw = J.zeros_like(w) if tw is None else tw
    out = None
    for a, b in ((tx, w), (x, tw)):
        if a is not None and b is not None:
            term = cls.apply(a, b, None, meta, squeeze, batched, channels_last)
            out = term if out is None else out + term
    if tb is not None:
        spatial = meta[5][1:] if squeeze else meta[5]
        tb = tb.reshape((1, -1) + (1,) * len(spatial))
        if out is None:
            tb = tb.expand((x.shape[0], w.shape[0]) + tuple(spatial))
        out = tb if out is None else out + tb
    return out


# jtensor's hottest Functions get their forward formula directly (``jvp``'s job for a
# user's Function); the others take the generic rule.
FUNCTION_JVPS = {
    "jtensor.nn._functional.conv._Convolution": _convolution_jvp,
}


_EXTENDING = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


def _check_vmap_support(cls):
    """PyTorch's refusals for a user's ``autograd.Function`` under ``vmap``: it needs the
    ``setup_context`` form, and either ``generate_vmap_rule = True`` or a ``vmap``
    staticmethod (jtensor runs the forward once per sample either way: the rule a
    generated one stands for, and what a correct hand-written rule computes)."""
    from ..function import Function

    if cls.setup_context is Function.setup_context:
        raise TensorRuntimeError(
            "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
            "jacrev, ...), it must override the setup_context staticmethod. " + _EXTENDING)
    own_rule = cls.vmap is not Function.vmap
    if cls.generate_vmap_rule and own_rule:
        raise TensorRuntimeError(
            f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True "
            "and an overridden vmap staticmethod. Please set generate_vmap_rule=False or delete "
            "the overridden vmap staticmethod to avoid ambiguity. " + _EXTENDING)
    if not cls.generate_vmap_rule and not own_rule:
        raise TensorRuntimeError(
            f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
            "override and implement the vmap staticmethod or set generate_vmap_rule=True. "
            + _EXTENDING)


def _vmap_below():
    """Whether a vmap level is active under the (popped) dual level."""
    from ..forward_ad import DualLevel

    return any(not isinstance(lv, DualLevel) for lv in _dispatch.transforms.stack)


def apply_under_transforms(cls, args, kwargs):
    """``cls.apply(*args, **kwargs)`` while a function transform is active."""
    from ..function import Function

    if not cls.__module__.startswith("jtensor.") and _vmap_below():
        _check_vmap_support(cls)
    level, found = _dual_tangents(args, kwargs)
    if level is None:
        if _vmap_below():
            # A vmap level is active: ``forward`` reads its arguments' arrays, which for a
            # batched tensor would be one sample's, so the levels take the call as one op
            # (vmap runs it once per sample when an argument is batched at its level).
            return _dispatch.call_transformed(_FunctionOp(cls), cls.apply, args, kwargs)
        return cls._record(args, kwargs)[0]
    own_jvp = cls.jvp is not Function.jvp
    if not own_jvp and not cls.__module__.startswith("jtensor."):
        raise TensorNotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )
    with _Popped(level):
        if own_jvp:
            outputs, ctx = cls._record(args, kwargs)
            grads = [
                (found.get(id(a)) if id(a) in found else J.zeros_like(a))
                if isinstance(a, Tensor)
                else None
                for a in args
            ]
            ctx._in_jvp = True
            try:
                tangents = cls.jvp(ctx, *grads)
            finally:
                ctx._in_jvp = False
            dirty = ctx._dirty
        elif f"{cls.__module__}.{cls.__qualname__}" in FUNCTION_JVPS and not kwargs:
            if _vmap_below():
                # ``forward`` reads its arguments' arrays, one sample's for a tensor batched
                # by a vmap level below this one: the primal goes through the levels, as
                # ``apply`` sends it there (jtensor's own Functions write no input in place).
                outputs, dirty = cls.apply(*args), ()
            else:
                outputs, ctx = cls._record(args, kwargs)
                dirty = ctx._dirty
            direct = FUNCTION_JVPS[f"{cls.__module__}.{cls.__qualname__}"]
            tangents = direct(
                cls,
                args, [found.get(id(a)) if isinstance(a, Tensor) else None for a in args]
            )
        else:

            def run(*a, **k):
                return cls._record(a, k)[0]

            c = Call(_FunctionOp(cls), run, args, kwargs, level, found)
            tangents = GENERIC.jvp_same_draws(c, None, clone_all=True)
            outputs, ctx = cls._record(args, kwargs)
            dirty = ctx._dirty
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        tangents = (tangents,) if not isinstance(tangents, (tuple, list)) else tangents
        for o, t in zip(outs, tangents, strict=False):
            if (
                not isinstance(o, Tensor)
                or not isinstance(t, Tensor)
                or not (o.is_floating_point() or o.is_complex())
            ):
                continue
            if t._shape != o._shape:
                raise _size_error(o, t)
            if any(o is d for d in dirty):
                T.update_in_place(level, o, t)
            else:
                T.set_output_tangent(level, o, t)
                _share_with_saved_output(level, o)
    return outputs
