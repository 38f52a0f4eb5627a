"""More activations of ``jtensor.nn.functional``: prelu, selu, celu, glu, hardswish,
hardsigmoid, mish, softsign, softshrink, hardshrink, tanhshrink, threshold, rrelu and their
in-place forms.

As in ``activation.py``, each one without a core op is a small ``autograd.Function`` whose
forward and backward are expressions of public jtensor ops (so ``create_graph=True``
differentiates the backward again) and whose node carries PyTorch's name. The in-place forms
whose PyTorch backward reads the result (``EluBackward1``, ``CeluBackward1``,
``ThresholdBackward1``, ``RreluWithNoiseBackward1``) save the written tensor, as PyTorch does.

Hardswish, hardsigmoid, mish, selu/celu, the shrinkages and threshold compute their common
call on the arrays (issue 18) through ``activation._array_forward``/``_array_backward``: the
array calls of their public ops' expressions, in order, so every result is the general
path's bit for bit (``tests/nn/test_activation_more_fast.py``).
"""

import math
import warnings

import numpy as np

from ... import _dtypes, _mt19937
from ..._api import ops as J
from ..._elementwise import select
from ..._errors import TensorRuntimeError
from ..._tensor import contiguous_format
from ...autograd.function import Function
from ...autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ...random import _rng
from ._op import nn_op
from .activation import (_ONE, _SIGMOID, _array_backward, _array_forward, _check_inplace,
                         _exp, _floating_only, _lowp, _tanh)

__all__ = [
    "prelu",
    "selu",
    "selu_",
    "celu",
    "celu_",
    "glu",
    "hardswish",
    "hardsigmoid",
    "mish",
    "softsign",
    "softshrink",
    "hardshrink",
    "tanhshrink",
    "threshold",
    "threshold_",
    "rrelu",
    "rrelu_",
    "gumbel_softmax",
]

# SELU's constants (Klambauer et al. 2017), as PyTorch spells them.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _inplace_or_not(fn, fn_inplace, input, inplace, *args):
    """``fn.apply(input, *args)``, or the in-place Function after PyTorch's leaf check."""
    if inplace:
        _check_inplace(input)
        return fn_inplace.apply(input, *args)
    return fn.apply(input, *args)


def _into_out(name, out, input, compute):
    """``compute()`` written into ``out`` (resized as PyTorch's ``out=``); refused, as
    PyTorch, when autograd would have to see through the write."""
    if is_grad_enabled() and (input.requires_grad or out.requires_grad):
        raise TensorRuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            f"differentiation, but one of the arguments requires grad."
        )
    return J.add(compute(), 0, out=out)


# ------------------------------------------------------------------ elu family
def _elu_value(x, alpha, scale, input_scale):
    """PyTorch's generalised elu: ``scale * x`` for ``x > 0``, else
    ``alpha * scale * (exp(input_scale * x) - 1)``."""
    out = _array_forward(_elu_value_arrays, x, alpha, scale, input_scale)
    if out is not None:
        return out
    neg = J.expm1(x * input_scale) * (alpha * scale)
    return J.where(x > 0, x * scale if scale != 1 else x, neg)


class _EluGeneral(Function):
    """The generalised elu of selu (``EluBackward0``) and celu (``CeluBackward0``)."""

    @staticmethod
    def forward(ctx, input, alpha, scale, input_scale):
        ctx.params = (alpha, scale, input_scale)
        ctx.save_for_backward(input)
        return _lowp(lambda x: _elu_value(x, alpha, scale, input_scale), input)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        alpha, scale, input_scale = ctx.params

        def f(g, x):
            out = _array_backward(_elu_grad_arrays, g, x, alpha, scale, input_scale)
            if out is not None:
                return out
            neg = g * J.exp(x * input_scale) * (alpha * scale * input_scale)
            return J.where(x > 0, g * scale if scale != 1 else g, neg)

        return _lowp(f, grad, x), None, None, None


# The array calls of ``_elu_value`` and ``_EluGeneral``'s gradient (issue 18), one public op
# a line; the Python products of the parameters as there.
def _elu_value_arrays(a, alpha, scale, input_scale):
    neg = np.multiply(np.expm1(np.multiply(a, input_scale)), alpha * scale)
    pos = np.multiply(a, scale) if scale != 1 else a              # x * scale
    return select(np.greater(a, 0), pos, neg)                    # where(x > 0, pos, neg)


def _elu_grad_arrays(g, a, alpha, scale, input_scale):
    e = _exp(np, np.multiply(a, input_scale))                     # exp(x * input_scale)
    neg = np.multiply(np.multiply(g, e), alpha * scale * input_scale)
    pos = np.multiply(g, scale) if scale != 1 else g              # g * scale
    return select(np.greater(a, 0), pos, neg)                    # where(x > 0, pos, neg)


class _EluGeneralInplace(Function):
    """In-place generalised elu: the backward reads the result (``EluBackward1``)."""

    @staticmethod
    def forward(ctx, input, alpha, scale, input_scale):
        ctx.params = (alpha, scale, input_scale)
        input.copy_(_lowp(lambda x: _elu_value(x, alpha, scale, input_scale), input))
        ctx.mark_dirty(input)
        ctx.save_for_backward(input)
        return input

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        alpha, scale, input_scale = ctx.params
        # For x <= 0, out = alpha*scale*(exp(is*x) - 1): alpha*scale*exp(is*x) = out + a*s.
        neg = grad * (out + alpha * scale) * input_scale
        return J.where(out > 0, grad * scale if scale != 1 else grad, neg), None, None, None


class _Selu(_EluGeneral):
    _node_name = "EluBackward0"


class _SeluInplace(_EluGeneralInplace):
    _node_name = "EluBackward1"


class _Celu(_EluGeneral):
    _node_name = "CeluBackward0"


class _CeluInplace(_EluGeneralInplace):
    _node_name = "CeluBackward1"


@nn_op(inplace="inplace", function=True)
def selu(input, inplace=False):
    """Scaled elu: ``scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))`` with SELU's fixed
    ``alpha`` and ``scale``."""
    _floating_only(input, "elu_cpu")
    return _inplace_or_not(_Selu, _SeluInplace, input, inplace, _SELU_ALPHA, _SELU_SCALE, 1.0)


@nn_op(inplace=True, function=True)
def selu_(input):
    """In-place ``selu``."""
    return selu(input, inplace=True)


@nn_op(inplace="inplace", function=True)
def celu(input, alpha=1.0, inplace=False):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``; ``alpha`` must not be 0."""
    if alpha == 0:
        raise TensorRuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _floating_only(input, "elu_cpu")
    return _inplace_or_not(_Celu, _CeluInplace, input, inplace, alpha, 1.0, 1.0 / alpha)


@nn_op(inplace=True, function=True)
def celu_(input, alpha=1.0):
    """In-place ``celu``."""
    return celu(input, alpha, inplace=True)


# ------------------------------------------------------------------------ prelu
class _Prelu(Function):
    _node_name = "PreluKernelBackward0"

    @staticmethod
    def forward(ctx, input, weight):
        ctx.save_for_backward(input, weight)
        return J.where(input > 0, input, input * weight)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        positive = x > 0
        gx = J.where(positive, grad, grad * w) if ctx.needs_input_grad[0] else None
        gw = None
        if ctx.needs_input_grad[1]:
            # The engine sums the broadcast weight gradient back to the weight's shape.
            gw = J.where(positive, J.zeros_like(x), grad * x)
        return gx, gw


@nn_op(function=True)
def prelu(input, weight):
    """``x`` where ``x > 0`` else ``weight * x``; ``weight`` has one element or one per
    channel (dimension 1 of an input of two or more dimensions)."""
    channels = input.shape[1] if input.dim() >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise TensorRuntimeError(
            f"Mismatch of parameter numbers and input channel size. Found parameter numbers "
            f"= {weight.numel()} and channel size = {channels}."
        )
    if weight.dim() > 1:
        raise TensorRuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}"
        )
    _floating_only(input, "prelu_cpu")
    if weight.numel() == 1 or input.dim() < 2:
        w = weight.reshape(())
    else:
        w = weight.reshape((channels,) + (1,) * (input.dim() - 2))
    return _Prelu.apply(input, w)


# -------------------------------------------------------------------------- glu
class _Glu(Function):
    _node_name = "GluBackward0"

    @staticmethod
    def forward(ctx, input, dim):
        ctx.dim = dim
        ctx.save_for_backward(input)
        a, b = input.chunk(2, dim)
        return a * J.sigmoid(b)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        a, b = x.chunk(2, ctx.dim)
        s = J.sigmoid(b)
        return J.cat([grad * s, grad * a * s * (1 - s)], ctx.dim), None


@nn_op()
def glu(input, dim=-1):
    """Gated linear unit: ``a * sigmoid(b)`` where ``a, b`` are the halves of ``input``
    along ``dim``."""
    if input.dim() == 0:
        raise TensorRuntimeError("glu does not support scalars because halving size must be even")
    ndim = input.dim()
    if not -ndim <= dim < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of "
            f"[{-ndim}, {ndim - 1}], but got {dim})"
        )
    wrapped = dim % ndim
    if input.shape[wrapped] % 2:
        raise TensorRuntimeError(
            f"Halving dimension must be even, but dimension {wrapped} is size "
            f"{input.shape[wrapped]}"
        )
    _floating_only(input, "glu_cpu")
    return _Glu.apply(input, wrapped)


# --------------------------------------------------------------------- hard family
class _Hardswish(Function):
    _node_name = "HardswishBackward0"

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return _lowp(_hardswish, input)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors

        def f(g, x):
            out = _array_backward(_hardswish_grad_arrays, g, x)
            if out is not None:
                return out
            # PyTorch's kernel: 0 below -3, x/3 + 1/2 up to and including 3, 1 above.
            mid = J.where(x <= 3, g * (x / 3 + 0.5), g)
            return J.where(x < -3, J.zeros_like(g), mid)

        return _lowp(f, grad, x)


def _hardswish(x):
    out = _array_forward(_hardswish_arrays, x)
    return x * (x + 3).clamp(0, 6) / 6 if out is None else out


class _Hardsigmoid(Function):
    _node_name = "HardsigmoidBackward0"

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return _lowp(_hardsigmoid, input)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return _lowp(_hardsigmoid_grad, grad, x)


def _hardsigmoid(x):
    out = _array_forward(_hardsigmoid_arrays, x)
    return (x + 3).clamp(0, 6) / 6 if out is None else out


# PyTorch's hardsigmoid backward multiplies by 1/6 rounded to float32, in float64 too
# (its kernel's ``one_sixth(1.0f / 6.0f)``): a float32 gradient rounds once per element as
# PyTorch's, a float64 one is off 1/6 by 3e-8 relative, as PyTorch's is.
_ONE_SIXTH = float(np.float32(1 / 6))


def _hardsigmoid_grad(g, x):
    out = _array_backward(_hardsigmoid_grad_arrays, g, x)
    return J.where((x > -3) & (x < 3), g * _ONE_SIXTH, J.zeros_like(g)) if out is None else out


def _softplus(x):
    # log1p(exp(x)) overflows past 20, where it equals x to working precision (PyTorch's
    # default threshold).
    return J.where(x > 20, x, J.log1p(J.exp(x.clamp(max=20))))


class _Mish(Function):
    _node_name = "MishBackward0"

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return _lowp(_mish, input)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors

        def f(g, x):
            out = _array_backward(_mish_grad_arrays, g, x)
            if out is not None:
                return out
            t = J.tanh(_softplus(x))
            return g * (t + x * J.sigmoid(x) * (1 - t * t))

        return _lowp(f, grad, x)


def _mish(x):
    out = _array_forward(_mish_arrays, x)
    return x * J.tanh(_softplus(x)) if out is None else out


# The array calls of the expressions above (issue 18: ``activation._array_forward`` and
# ``_array_backward`` run them where the public ops would compute exactly these), one
# public op a line, in Python's order; a number clamp bound is a 0-d array of the dtype.
def _relu6_arrays(a):
    t = np.add(a, 3)                                              # x + 3
    return np.minimum(np.asarray(6, a.dtype), np.maximum(np.asarray(0, a.dtype), t))


def _hardswish_arrays(a):
    return np.true_divide(np.multiply(a, _relu6_arrays(a)), 6)    # x * relu6(x + 3) / 6


def _hardswish_grad_arrays(g, a):
    d = np.add(np.true_divide(a, 3), 0.5)                         # x / 3 + 0.5
    mid = select(np.less_equal(a, 3), np.multiply(g, d), g)      # where(x <= 3, g * d, g)
    return select(np.less(a, -3), np.zeros_like(mid), mid)       # where(x < -3, 0, mid)


def _hardsigmoid_arrays(a):
    return np.true_divide(_relu6_arrays(a), 6)                    # relu6(x + 3) / 6


def _hardsigmoid_grad_arrays(g, a):
    c = np.logical_and(np.greater(a, -3), np.less(a, 3))          # (x > -3) & (x < 3)
    q = np.multiply(g, _ONE_SIXTH)                                # g * _ONE_SIXTH
    return select(c, q, np.zeros_like(q))                        # where(c, g * .., 0)


def _softplus_arrays(a):
    c = np.greater(a, 20)                                         # x > 20
    e = _exp(np, np.minimum(np.asarray(20, a.dtype), a))          # exp(x.clamp(max=20))
    return select(c, a, np.log1p(e))                             # where(c, x, log1p(e))


def _mish_arrays(a):
    return np.multiply(a, _tanh(np, _softplus_arrays(a)))         # x * tanh(softplus(x))


def _mish_grad_arrays(g, a):
    t = _tanh(np, _softplus_arrays(a))                            # t = tanh(softplus(x))
    xs = np.multiply(a, _SIGMOID(np, a))                          # x * sigmoid(x)
    u = np.subtract(_ONE[t.dtype], np.multiply(t, t))             # 1 - t * t
    return np.multiply(g, np.add(t, np.multiply(xs, u)))          # g * (t + xs * u)


def _through_clone(fn):
    """The in-place form of ``fn`` as PyTorch's hardswish_/hardsigmoid_/mish_: the same
    node (their backward reads the input from before the write, kept as a copy). The copy
    is recorded (forward runs with grad off) so that a double backward reaches the input's
    history through it, as PyTorch's saved ``original_self``."""

    class _InplaceForm(fn):
        @staticmethod
        def forward(ctx, input):
            with enable_grad():
                before = input.clone()
            input.copy_(fn.forward(ctx, before))
            ctx.mark_dirty(input)
            return input

    return _InplaceForm


_INPLACE_FORMS = {fn: _through_clone(fn) for fn in (_Hardswish, _Hardsigmoid, _Mish)}


def _inplace_through_clone(fn, input, inplace):
    """``fn`` applied to ``input``, or its in-place form after PyTorch's leaf check."""
    return _inplace_or_not(fn, _INPLACE_FORMS[fn], input, inplace)


@nn_op(inplace="inplace")
def hardswish(input, inplace=False):
    """``x * relu6(x + 3) / 6``."""
    _floating_only(input, "hardswish_cpu")
    return _inplace_through_clone(_Hardswish, input, inplace)


@nn_op(inplace="inplace")
def hardsigmoid(input, inplace=False):
    """``relu6(x + 3) / 6``."""
    _floating_only(input, "hardsigmoid_cpu")
    return _inplace_through_clone(_Hardsigmoid, input, inplace)


@nn_op(inplace="inplace")
def mish(input, inplace=False):
    """``x * tanh(softplus(x))``."""
    _floating_only(input, "mish_cpu")
    return _inplace_through_clone(_Mish, input, inplace)


# -------------------------------------------------------------------- shrinkage
def _check_lambd(lambd, dtype):
    limit = float(np.finfo(np.float32 if dtype.itemsize <= 4 else np.float64).max)
    if not 0 <= lambd <= limit:
        raise TensorRuntimeError(
            f"lambda must be in range [0, {limit:g}] for input dtype "
            f"{dtype._torch_name}, but found {lambd:g}"
        )


class _Shrink(Function):
    """Soft or hard shrinkage: 0 inside ``[-lambd, lambd]``, the gradient passes where
    ``|x| > lambd``. A NaN stays NaN, and gets no gradient.

    (PyTorch's vector loop, which computes all but the tail of a tensor, is followed here:
    its scalar loop over the last few elements returns ``x * 0`` inside, a negative zero for
    ``-0.0``, and passes a NaN's gradient.)"""

    @staticmethod
    def forward(ctx, input, lambd, soft):
        ctx.lambd = lambd
        ctx.save_for_backward(input)
        out = _array_forward(_soft_shrink_arrays if soft else _hard_shrink_arrays, input, lambd)
        if out is not None:
            return out
        inside = input.abs() <= lambd
        value = J.where(input > lambd, input - lambd, input + lambd) if soft else input
        return J.where(inside, J.zeros_like(input), value)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        out = _array_backward(_shrink_grad_arrays, grad, x, ctx.lambd)
        if out is not None:
            return out, None, None
        return J.where(x.abs() > ctx.lambd, grad, J.zeros_like(grad)), None, None


# ``_Shrink``'s array calls (issue 18; float32/float64 only: the shrinkages compute a
# float16 input in its own dtype, which the array paths leave to the public ops).
def _soft_shrink_arrays(a, lambd):
    inside = np.less_equal(np.abs(a), lambd)                      # |x| <= lambd
    value = select(np.greater(a, lambd), np.subtract(a, lambd), np.add(a, lambd))
    return select(inside, np.zeros_like(a), value)               # where(inside, 0, value)


def _hard_shrink_arrays(a, lambd):
    inside = np.less_equal(np.abs(a), lambd)                      # |x| <= lambd
    return select(inside, np.zeros_like(a), a)                   # where(inside, 0, x)


def _shrink_grad_arrays(g, a, lambd):
    keep = np.greater(np.abs(a), lambd)                           # |x| > lambd
    return select(keep, g, np.zeros(a.shape, g.dtype))           # where(keep, g, 0)


class _Softshrink(_Shrink):
    _node_name = "SoftshrinkBackward0"


class _Hardshrink(_Shrink):
    _node_name = "HardshrinkBackward0"


@nn_op()
def softshrink(input, lambd=0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between."""
    _floating_only(input, "softshrink_cpu")
    _check_lambd(lambd, input.dtype)
    return _Softshrink.apply(input, lambd, True)


@nn_op(function=True, inplace="out")
def hardshrink(input, lambd=0.5, *, out=None):
    """``x`` where ``|x| > lambd``, else 0 (``out=``: as ``torch.hardshrink``)."""
    _floating_only(input, "hardshrink_cpu")
    if out is not None:
        return _into_out("hardshrink", out, input, lambda: _Hardshrink.apply(input, lambd, False))
    return _Hardshrink.apply(input, lambd, False)


@nn_op()
def tanhshrink(input):
    """``x - tanh(x)`` (a composition, as PyTorch's: node ``SubBackward0``)."""
    return input - J.tanh(input)


@nn_op()
def softsign(input):
    """``x / (1 + |x|)`` (a composition, as PyTorch's: node ``DivBackward0``)."""
    return input / (input.abs() + 1)


# -------------------------------------------------------------------- threshold
class _Threshold(Function):
    _node_name = "ThresholdBackward0"

    @staticmethod
    def forward(ctx, input, threshold, value):
        # PyTorch's kernel replaces ``x <= threshold``: a NaN is kept, its gradient passes.
        ctx.threshold = threshold
        ctx.save_for_backward(input)
        # (a finite value beyond float32's range is full_like's overflow error: general)
        if input._dtype is not _dtypes.float32 or not _FLOAT32_EDGE <= abs(value) < math.inf:
            out = _array_forward(_threshold_arrays, input, threshold, value)
            if out is not None:
                return out
        return J.where(input <= threshold, J.full_like(input, value), input)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        out = _array_backward(_threshold_grad_arrays, grad, x, ctx.threshold)
        if out is not None:
            return out, None, None
        return J.where(x <= ctx.threshold, J.zeros_like(grad), grad), None, None


_FLOAT32_EDGE = 3.4e38   # (below float32's largest finite value, 3.4028e38)


def _threshold_arrays(a, threshold, value):
    return select(np.less_equal(a, threshold), np.full_like(a, value), a)


def _threshold_grad_arrays(g, a, threshold):
    return select(np.less_equal(a, threshold), np.zeros(a.shape, g.dtype), g)


class _ThresholdInplace(Function):
    # PyTorch's threshold_ backward compares the input from before the write with the
    # threshold (a replaced element may hold a value above it): keep that mask.
    _node_name = "ThresholdBackward1"

    @staticmethod
    def forward(ctx, input, threshold, value):
        keep = ~(input <= threshold)   # (a NaN is kept: see _Threshold)
        ctx.keep = keep
        input.copy_(J.where(keep, input, J.full_like(input, value)))
        ctx.mark_dirty(input)
        return input

    @staticmethod
    def backward(ctx, grad):
        return J.where(ctx.keep, grad, J.zeros_like(grad)), None, None


def _threshold_written(args, kwargs):
    out = kwargs.get("out")
    if out is not None:
        return out
    inplace = args[3] if len(args) > 3 else kwargs.get("inplace", False)
    return (args[0] if args else kwargs.get("input")) if inplace else None


@nn_op(inplace=_threshold_written, function=True)
def threshold(input, threshold, value, inplace=False, *, out=None):
    """``x`` where ``x > threshold``, else ``value`` (``out=``: as ``torch.threshold``)."""
    if out is not None:
        return _into_out("threshold", out, input, lambda: _Threshold.apply(input, threshold, value))
    return _inplace_or_not(_Threshold, _ThresholdInplace, input, inplace, threshold, value)


@nn_op(inplace=True, function=True)
def threshold_(input, threshold, value):
    """In-place ``threshold``."""
    return _inplace_or_not(_Threshold, _ThresholdInplace, input, True, threshold, value)


# ------------------------------------------------------------------------ rrelu
class _Rrelu(Function):
    _node_name = "RreluWithNoiseBackward0"

    @staticmethod
    def forward(ctx, input, noise):
        ctx.save_for_backward(noise)
        return input * noise

    @staticmethod
    def backward(ctx, grad):
        (noise,) = ctx.saved_tensors
        return grad * noise, None


class _RreluInplace(_Rrelu):
    _node_name = "RreluWithNoiseBackward1"

    @staticmethod
    def forward(ctx, input, noise):
        ctx.save_for_backward(noise)
        input.mul_(noise)
        ctx.mark_dirty(input)
        return input


def _rrelu_noise(input, lower, upper, training, generator=None):
    """The per-element slope: 1 where ``x > 0``; elsewhere ``(lower + upper) / 2`` in eval,
    or in training one double ``uniform(lower, upper)`` per non-positive element drawn in
    row-major order from the default generator (ATen's CPU kernel, draw for draw)."""
    with no_grad():
        x = input.detach()
        if not training:
            slope = (lower + upper) / 2
            return J.where(x > 0, J.ones_like(x), J.full_like(x, slope))
        host = x.cpu().numpy().reshape(-1)
        negative = ~(host > 0)
        values = np.ones(host.shape, dtype=host.dtype)
        if host.dtype != np.float64:
            # ATen holds the bounds in the op's math type (float) before the double draw.
            lower, upper = float(np.float32(lower)), float(np.float32(upper))
        draws = _mt19937.uniform(
            _rng(generator, input.device), int(negative.sum()), np.float64, lower, upper
        )
        values[negative] = draws.astype(host.dtype)
        return J.tensor(values.reshape(tuple(x.shape)), dtype=x.dtype, device=x.device)


@nn_op(inplace="inplace", function=True)
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False, *, generator=None):
    """Randomized leaky ReLU: in training, each non-positive element is scaled by a slope
    drawn uniformly from ``[lower, upper]``; in eval by their mean."""
    if lower > upper:
        raise TensorRuntimeError("Lower bound should be less than or equal to the upper bound")
    _floating_only(input, "rrelu_with_noise_cpu")
    if inplace:
        _check_inplace(input)
    noise = _rrelu_noise(input, lower, upper, training, generator)
    return _inplace_or_not(_Rrelu, _RreluInplace, input, inplace, noise)


@nn_op(inplace=True, function=True)
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, *, generator=None):
    """In-place ``rrelu``."""
    return rrelu(input, lower, upper, training, inplace=True, generator=generator)


# ---------------------------------------------------------------- gumbel softmax
@nn_op()
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax (Concrete) distribution over ``dim``: ``softmax((logits
    + g) / tau)`` with Gumbel noise ``g = -log(Exponential(1))`` drawn as PyTorch; ``hard``
    returns the one-hot argmax with the soft sample's gradient (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=3)
    gumbels = -J.empty_like(logits, memory_format=contiguous_format).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = J.zeros_like(logits, memory_format=contiguous_format).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
