"""Activations of ``jtensor.nn.functional``: relu, leaky_relu, gelu, sigmoid, tanh, silu, elu,
softplus, hardtanh, relu6, logsigmoid, softmax, log_softmax, softmin, one_hot.

Activations that have no core op are small ``autograd.Function``s: the forward is one
expression of public jtensor ops, the backward is written in public ops too (so
``create_graph=True`` differentiates it again), and the node carries PyTorch's name
(``LeakyReluBackward0``, ``GeluBackward0``...).

GELU, SiLU, leaky ReLU and ELU (issue 18: every GPT/LLaMA MLP block, GAN discriminators)
compute their common call on the arrays: ``_array_forward`` and ``_array_backward`` run the
array calls the expression's public ops would make, in their order and dtypes, when the
tensor is a plain contiguous CPU float32/float64 one and nothing listens (as layer norm's
``normalization._array_forward``), so every result is the general path's bit for bit
(``tests/nn/test_activation_fast.py``). They decline (None) for anything else, the backward
under ``create_graph`` too, and ``ARRAY_PATHS = False`` turns them off. float16/bfloat16
inputs are computed in float32 by ``_lowp``, whose float32 call takes the arrays. Softplus,
log-sigmoid and hardtanh's backward here, and hardswish, hardsigmoid, mish, selu/celu, the
shrinkages and threshold in ``activation_more.py`` do the same (a layer zoo put them at 4-6x
PyTorch's time; ``tests/nn/test_activation_more_fast.py``). ``one_hot`` of a plain CPU
int64 tensor fills its result on the arrays (``_one_hot_arrays``).
"""

import math
import warnings

import numpy as np

from ... import _autocast, _dtypes
from ..._api import ops as J
from ..._arraymod import exp_rounded_once as _exp, tanh_rounded_once as _tanh
from ..._device import CPU_BACKEND
from ..._dispatch import grad_mode
from ..._elementwise import run_quietly, select
from ..._errors import (TensorRuntimeError, TensorTypeError, TensorValueError, not_implemented,
                        type_name)
from ..._layout import contiguous_strides
from ..._ops.unary import _FLOATING_MATH, _ERF_COMPUTE
from ..._tensor import ARRAY_FLOATS, DENSE_CLASSES, Tensor, fresh_tensor
from ...autograd.function import Function
from ...autograd.grad_mode import enable_grad, is_grad_enabled
from ._op import nn_op
from .normalization import _listened, _plain

__all__ = ["relu", "relu_", "leaky_relu", "leaky_relu_", "gelu", "sigmoid", "tanh", "silu",
           "elu", "elu_", "softplus", "hardtanh", "hardtanh_", "relu6", "logsigmoid",
           "softmax", "log_softmax", "softmin", "one_hot"]


def _floating_only(input, kernel):
    if not input.dtype.is_floating_point:
        raise not_implemented(kernel, input.dtype)


def _check_inplace(input):
    if input.requires_grad and input.is_leaf and is_grad_enabled():
        raise TensorRuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation. "
            "Use the out-of-place form (inplace=False) or work on a clone.")


def _lowp(fn, *tensors):
    """``fn(*tensors)``, computed in float32 for float16/bfloat16 inputs and rounded back
    once, as PyTorch's CPU kernels do (chaining ops in low precision would round at each
    step)."""
    dtype = tensors[-1].dtype
    if dtype.itemsize >= 4:
        return fn(*tensors)
    return fn(*(t.float() for t in tensors)).to(dtype)


# ---------------------------------------------------------------------- on the arrays
# Whether the activations below may compute on the arrays (``_array_forward``/
# ``_array_backward``); the tests switch it off to get the general path's results.
ARRAY_PATHS = True
_PARAM_TYPES = (float, int)   # the numbers the element-wise fast path takes as they are
# The computations of the public ops these activations use, as those ops run them: erf's
# (``_ERF_COMPUTE``: float32's own kernel, float64's series) and sigmoid's
# ``1 / (1 + exp(-x))``.
_SIGMOID = next(compute for name, compute, *_ in _FLOATING_MATH if name == "sigmoid")
# ``1 - t``: ``Tensor.__rsub__`` goes to the general element-wise runner, whose operand the
# number is as a 0-d array of the computation's dtype.
_ONE = {np.dtype(np.float32): np.asarray(1, np.float32),
        np.dtype(np.float64): np.asarray(1, np.float64)}


def _standard(t, dtype):
    """Whether ``t`` is a plain CPU tensor of ``dtype`` with standard contiguous strides
    (where a number beside it takes the element-wise fast path, whose result is a fresh
    contiguous array: what the array path makes)."""
    return _plain(t, dtype) and t._stride == contiguous_strides(t._shape)


def _array_forward(compute, x, *params):
    """``compute(a, *params)`` (``a``: ``x``'s array; ``params``: Python numbers) as a fresh
    tensor, when the public ops it stands for would compute exactly that: ``x`` a plain
    CPU float32/float64 tensor of at least one dim with standard contiguous strides, nothing
    recording it, nothing listening (``normalization._listened``). Returns None (nothing
    done) otherwise."""
    dtype = x._dtype
    if not ARRAY_PATHS or dtype not in ARRAY_FLOATS or not x._shape \
            or not _standard(x, dtype) or (x._requires_grad and grad_mode.record) \
            or _listened():
        return None
    for p in params:
        if p.__class__ not in _PARAM_TYPES:
            return None
    out = run_quietly(compute, x._array(), *params)
    return fresh_tensor(Tensor, out, x._shape, dtype, x._storage.device, CPU_BACKEND)


def _array_backward(compute, g, x, *params):
    """A plain backward's (no ``create_graph``) ``compute(g, a, *params)`` on the arrays of
    the incoming gradient ``g`` and the saved input ``x``, under ``_array_forward``'s
    conditions; ``g`` has ``x``'s dtype and shape, with standard contiguous strides or all
    strides 0 (a number expanded: ``y.sum().backward()``), where the public ops' result is
    a fresh contiguous tensor too. Returns the gradient, or None (nothing done)."""
    dtype = x._dtype
    shape = x._shape
    if not ARRAY_PATHS or grad_mode.enabled or dtype not in ARRAY_FLOATS or not shape \
            or not _standard(x, dtype) or g._dtype is not dtype or g._shape != shape \
            or g.__class__ not in DENSE_CLASSES or g._storage._backend is not CPU_BACKEND \
            or (g._stride != x._stride and any(g._stride)) or _listened():
        return None
    for p in params:
        if p.__class__ not in _PARAM_TYPES:
            return None
    out = run_quietly(compute, g._array(), x._array(), *params)
    if not out.flags.c_contiguous:
        out = np.ascontiguousarray(out)
    return fresh_tensor(Tensor, out, shape, dtype, x._storage.device, CPU_BACKEND)


# ------------------------------------------------------------------------------- relu
def relu(input, inplace=False):
    """``max(x, 0)`` element-wise (``inplace=True`` overwrites ``input``)."""
    return J.relu_(input) if inplace else J.relu(input)


def relu_(input):
    """In-place ``relu``."""
    return J.relu_(input)


# ------------------------------------------------------------------------- hardtanh
class _Hardtanh(Function):
    _node_name = "HardtanhBackward0"

    @staticmethod
    def forward(ctx, input, min_val, max_val, inplace):
        if inplace:
            out = input.clamp_(min_val, max_val)
            ctx.mark_dirty(input)
        else:
            out = input.clamp(min_val, max_val)
        # The mask is the same read from the input or the clamped output.
        ctx.save_for_backward(out)
        ctx.bounds = (min_val, max_val)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        lo, hi = ctx.bounds
        g = _array_backward(_hardtanh_grad_arrays, grad, out, lo, hi)
        if g is not None:
            return g, None, None, None
        return grad * ((out > lo) & (out < hi)), None, None, None


def _hardtanh_grad_arrays(g, a, lo, hi):
    inside = np.logical_and(np.greater(a, lo), np.less(a, hi))  # (out > lo) & (out < hi)
    return np.multiply(g, inside.astype(g.dtype))                 # grad * inside


@nn_op(inplace="inplace")
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp to ``[min_val, max_val]``; the gradient is 0 outside the open interval."""
    if min_val > max_val:
        raise TensorValueError(f"min_val cannot be greater than max_val "
                               f"(got min_val={min_val}, max_val={max_val})")
    if inplace:
        _check_inplace(input)
    if not input.dtype.is_floating_point:
        # Integer inputs keep their dtype (a float bound would promote clamp's result).
        lo, hi = int(min_val), int(max_val)
        return input.clamp_(lo, hi) if inplace else input.clamp(lo, hi)
    return _Hardtanh.apply(input, min_val, max_val, bool(inplace))


@nn_op(inplace=True)
def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place ``hardtanh``."""
    return hardtanh(input, min_val, max_val, inplace=True)


@nn_op(inplace="inplace")
def relu6(input, inplace=False):
    """``min(max(x, 0), 6)`` (PyTorch's node: ``HardtanhBackward0``)."""
    return hardtanh(input, 0.0, 6.0, inplace)


# ------------------------------------------------------------------------ leaky_relu
class _LeakyRelu(Function):
    _node_name = "LeakyReluBackward0"

    @staticmethod
    def forward(ctx, input, slope):
        ctx.slope = slope
        ctx.save_for_backward(input)
        return _leaky_relu_forward(input, slope)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        slope = ctx.slope
        out = _array_backward(_leaky_relu_grad_arrays, grad, x, slope)
        if out is None:
            out = J.where(x > 0, grad, grad * slope)
        return out, None


def _leaky_relu_forward(x, slope):
    out = _array_forward(_leaky_relu_arrays, x, slope)
    return J.where(x > 0, x, x * slope) if out is None else out


def _leaky_relu_arrays(a, slope):
    scaled = np.multiply(a, slope)                                # x * slope
    if 0 < slope <= 1:
        # where(x > 0, x, scaled) is the larger of the two there, ties being the same bits
        # (signed zeros included), and ``scaled`` is NaN exactly where ``x`` is: the
        # maximum with ``scaled`` first (NumPy returns the first of two NaNs, the one
        # ``where`` picks) is the same selection in two vector passes (issue 18).
        return np.maximum(scaled, a, out=scaled)
    return select(np.greater(a, 0), a, scaled)                   # where(x > 0, x, scaled)


def _leaky_relu_grad_arrays(g, a, slope):
    return select(np.greater(a, 0), g, np.multiply(g, slope))    # where(x > 0, g, g * slope)


class _LeakyReluInplace(_LeakyRelu):
    # The backward reads the output: it has the input's sign (the slope is not negative).
    _node_name = "LeakyReluBackward1"

    @staticmethod
    def forward(ctx, input, slope):
        ctx.slope = slope
        # x > 0 ? x : x * slope in the input's own precision (a where() of two numbers would
        # make the slope a float32 and round it, as 0.20000000298 for a float64 input).
        input.copy_(_leaky_relu_forward(input, slope))
        ctx.mark_dirty(input)
        ctx.save_for_backward(input)
        return input


def _with_parameter(fn, fn_inplace, input, param, inplace, kernel, negative_message):
    """``fn`` (or, with ``inplace``, ``fn_inplace``) applied to ``input`` and ``param``; the
    in-place form's backward reads the output, which needs ``param >= 0`` when ``input``
    requires grad."""
    _floating_only(input, kernel)
    if inplace:
        _check_inplace(input)
        if input.requires_grad and param < 0:
            raise TensorRuntimeError(negative_message)
        return fn_inplace.apply(input, param)
    return fn.apply(input, param)


@nn_op(inplace="inplace")
def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x`` where ``x > 0`` else ``negative_slope * x``."""
    return _with_parameter(
        _LeakyRelu, _LeakyReluInplace, input, negative_slope, inplace, "leaky_relu_cpu",
        "In-place leakyReLu backward calculation is triggered with a negative slope "
        "which is not supported. This is caused by calling in-place forward function "
        "with a negative slope, please call out-of-place version instead.")


@nn_op(inplace=True)
def leaky_relu_(input, negative_slope=0.01):
    """In-place ``leaky_relu``."""
    return leaky_relu(input, negative_slope, inplace=True)


# ------------------------------------------------------------------------------ gelu
_SQRT_2 = math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


class _Gelu(Function):
    _node_name = "GeluBackward0"

    @staticmethod
    def forward(ctx, input, tanh_approx):
        ctx.tanh_approx = tanh_approx
        ctx.save_for_backward(input)
        return _lowp(_gelu_tanh if tanh_approx else _gelu_erf, input)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return _lowp(_Gelu.derivative_tanh if ctx.tanh_approx else _Gelu.derivative,
                     grad, x), None

    @staticmethod
    def derivative_tanh(grad, x):
        out = _array_backward(_gelu_tanh_grad_arrays, grad, x)
        if out is not None:
            return out
        x2 = x * x
        t = J.tanh((x + x2 * x * 0.044715) * _SQRT_2_OVER_PI)
        d_inner = (x2 * (3 * 0.044715) + 1) * _SQRT_2_OVER_PI
        return grad * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * d_inner)

    @staticmethod
    def derivative(grad, x):
        out = _array_backward(_gelu_erf_grad_arrays, grad, x)
        if out is not None:
            return out
        return grad * ((J.erf(x / _SQRT_2) + 1) * 0.5 +
                       x * J.exp(x * x * -0.5) * _INV_SQRT_2PI)


_THREE_C = 3 * 0.044715   # (the float the general path's ``3 * 0.044715`` folds to)


def _gelu_erf(x):
    out = _array_forward(_gelu_erf_arrays, x)
    return x * 0.5 * (J.erf(x / _SQRT_2) + 1) if out is None else out


def _gelu_tanh(x):
    out = _array_forward(_gelu_tanh_arrays, x)
    if out is not None:
        return out
    return x * 0.5 * (J.tanh((x + x * x * x * 0.044715) * _SQRT_2_OVER_PI) + 1)


def _erf_array(a):
    """``J.erf``'s result for array ``a``: the series in float64, rounded once to ``a``'s
    dtype."""
    e = _ERF_COMPUTE(np, a)
    return e if e.dtype == a.dtype else e.astype(a.dtype)


# The array calls of the expressions above, one public op a line, in Python's order.
def _gelu_erf_arrays(a):
    half = np.multiply(a, 0.5)                                    # x * 0.5
    e = _erf_array(np.true_divide(a, _SQRT_2))                    # erf(x / _SQRT_2)
    return np.multiply(half, np.add(e, 1))                        # half * (e + 1)


def _gelu_tanh_arrays(a):
    half = np.multiply(a, 0.5)                                    # x * 0.5
    cube = np.multiply(np.multiply(a, a), a)                      # x * x * x
    inner = np.add(a, np.multiply(cube, 0.044715))                # x + cube * 0.044715
    t = _tanh(np, np.multiply(inner, _SQRT_2_OVER_PI))            # tanh(inner * c)
    return np.multiply(half, np.add(t, 1))                        # half * (t + 1)


def _gelu_erf_grad_arrays(g, a):
    e = _erf_array(np.true_divide(a, _SQRT_2))                    # erf(x / _SQRT_2)
    cdf = np.multiply(np.add(e, 1), 0.5)                          # (e + 1) * 0.5
    ex = _exp(np, np.multiply(np.multiply(a, a), -0.5))           # exp(x * x * -0.5)
    pdf = np.multiply(np.multiply(a, ex), _INV_SQRT_2PI)          # x * ex * _INV_SQRT_2PI
    return np.multiply(g, np.add(cdf, pdf))                       # grad * (cdf + pdf)


def _gelu_tanh_grad_arrays(g, a):
    x2 = np.multiply(a, a)                                        # x2 = x * x
    inner = np.add(a, np.multiply(np.multiply(x2, a), 0.044715))  # x + x2 * x * 0.044715
    t = _tanh(np, np.multiply(inner, _SQRT_2_OVER_PI))            # t = tanh(inner * c)
    d_inner = np.multiply(np.add(np.multiply(x2, _THREE_C), 1), _SQRT_2_OVER_PI)
    left = np.multiply(np.add(t, 1), 0.5)                         # (t + 1) * 0.5
    right = np.multiply(a, 0.5)                                   # x * 0.5
    right = np.multiply(right, np.subtract(_ONE[t.dtype], np.multiply(t, t)))  # * (1 - t*t)
    right = np.multiply(right, d_inner)                           # * d_inner
    return np.multiply(g, np.add(left, right))                    # grad * (left + right)


@nn_op()
def gelu(input, approximate="none"):
    """Gaussian error linear unit: ``x * Phi(x)``; ``approximate='tanh'`` uses the tanh
    formula."""
    if approximate not in ("none", "tanh"):
        raise TensorRuntimeError(
            f"approximate argument must be either none or tanh (got {approximate!r}).")
    _floating_only(input, "GeluKernelImpl")
    return _Gelu.apply(input, approximate == "tanh")


# ---------------------------------------------------------------------- sigmoid/tanh
def sigmoid(input):
    """``1 / (1 + exp(-x))`` element-wise."""
    return J.sigmoid(input)


def tanh(input):
    """Hyperbolic tangent element-wise."""
    return J.tanh(input)


# ------------------------------------------------------------------------------ silu
class _Silu(Function):
    _node_name = "SiluBackward0"

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return _lowp(_silu_forward, input)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return _lowp(_silu_backward, grad, x)


def _silu_forward(x):
    out = _array_forward(_silu_arrays, x)
    return x * J.sigmoid(x) if out is None else out


def _silu_backward(grad, x):
    out = _array_backward(_silu_grad_arrays, grad, x)
    if out is not None:
        return out
    s = J.sigmoid(x)
    return grad * (s * (x * (1 - s) + 1))


def _silu_arrays(a):
    return np.multiply(a, _SIGMOID(np, a))                        # x * sigmoid(x)


def _silu_grad_arrays(g, a):
    s = _SIGMOID(np, a)                                           # s = sigmoid(x)
    inner = np.multiply(a, np.subtract(_ONE[s.dtype], s))         # x * (1 - s)
    return np.multiply(g, np.multiply(s, np.add(inner, 1)))       # grad * (s * (inner + 1))


class _SiluInplace(_Silu):
    @staticmethod
    def forward(ctx, input):
        # silu is not invertible: keep the input's value from before the write (as PyTorch
        # does for silu_). The copy is recorded (forward runs with grad off), so that the
        # backward, built from this copy, is differentiated again into the input's history.
        with enable_grad():
            before = input.clone()
        ctx.save_for_backward(before)
        input.copy_(_lowp(_silu_forward, before))
        ctx.mark_dirty(input)
        return input


@nn_op(inplace="inplace")
def silu(input, inplace=False):
    """``x * sigmoid(x)`` (a.k.a. swish)."""
    _floating_only(input, "silu_cpu")
    if inplace:
        _check_inplace(input)
        return _SiluInplace.apply(input)
    return _Silu.apply(input)


# ------------------------------------------------------------------------------- elu
def _elu_forward(x, alpha):
    out = _array_forward(_elu_arrays, x, alpha)
    return J.where(x > 0, x, J.expm1(x) * alpha) if out is None else out


def _elu_grad(g, x, alpha):
    out = _array_backward(_elu_grad_arrays, g, x, alpha)
    return J.where(x > 0, g, g * J.exp(x) * alpha) if out is None else out


def _elu_arrays(a, alpha):
    c = np.greater(a, 0)                                          # x > 0
    return select(c, a, np.multiply(np.expm1(a), alpha))         # where(c, x, expm1(x) * alpha)


def _elu_grad_arrays(g, a, alpha):
    c = np.greater(a, 0)                                          # x > 0
    return select(c, g, np.multiply(np.multiply(g, _exp(np, a)), alpha))  # g * exp(x) * alpha


class _Elu(Function):
    _node_name = "EluBackward0"

    @staticmethod
    def forward(ctx, input, alpha):
        ctx.alpha = alpha
        ctx.save_for_backward(input)
        return _lowp(lambda x: _elu_forward(x, alpha), input)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        alpha = ctx.alpha
        return _lowp(lambda g, x: _elu_grad(g, x, alpha), grad, x), None


class _EluInplace(Function):
    _node_name = "EluBackward1"

    @staticmethod
    def forward(ctx, input, alpha):
        ctx.alpha = alpha
        input.copy_(_lowp(lambda x: _elu_forward(x, alpha), input))
        ctx.mark_dirty(input)
        ctx.save_for_backward(input)
        return input

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        # For x <= 0, out = alpha * (exp(x) - 1), so alpha * exp(x) = out + alpha.
        return J.where(out > 0, grad, grad * (out + ctx.alpha)), None


@nn_op(inplace="inplace")
def elu(input, alpha=1.0, inplace=False):
    """``x`` where ``x > 0`` else ``alpha * (exp(x) - 1)``."""
    return _with_parameter(
        _Elu, _EluInplace, input, alpha, inplace, "elu_cpu",
        "In-place elu backward calculation is triggered with a negative slope which "
        "is not supported. Call the out-of-place version instead.")


@nn_op(inplace=True)
def elu_(input, alpha=1.0):
    """In-place ``elu``."""
    return elu(input, alpha, inplace=True)


# -------------------------------------------------------------------------- softplus
class _Softplus(Function):
    _node_name = "SoftplusBackward0"

    @staticmethod
    def forward(ctx, input, beta, threshold):
        ctx.params = (beta, threshold)
        ctx.save_for_backward(input)

        def f(x):
            out = _array_forward(_softplus_arrays, x, beta, threshold)
            if out is not None:
                return out
            bx = x * beta
            # log1p(exp(bx)) overflows past the threshold, where it equals bx anyway.
            return J.where(bx > threshold, x, J.log1p(J.exp(bx.clamp(max=threshold))) / beta)

        return _lowp(f, input)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        beta, threshold = ctx.params

        def f(g, x):
            out = _array_backward(_softplus_grad_arrays, g, x, beta, threshold)
            if out is not None:
                return out
            bx = x * beta
            return J.where(bx > threshold, g, g * J.sigmoid(bx))

        return _lowp(f, grad, x), None, None


def _bound(a, value):
    """A number clamp bound as the general runner hands it to the kernel: a 0-d array of
    the computation's dtype."""
    return np.asarray(value, a.dtype)


def _softplus_arrays(a, beta, threshold):
    bx = np.multiply(a, beta)                                     # bx = x * beta
    c = np.greater(bx, threshold)                                 # bx > threshold
    e = _exp(np, np.minimum(_bound(bx, threshold), bx))           # exp(bx.clamp(max=...))
    return select(c, a, np.true_divide(np.log1p(e), beta))       # where(c, x, log1p(e) / beta)


def _softplus_grad_arrays(g, a, beta, threshold):
    bx = np.multiply(a, beta)                                     # bx = x * beta
    c = np.greater(bx, threshold)                                 # bx > threshold
    return select(c, g, np.multiply(g, _SIGMOID(np, bx)))        # where(c, g, g * sigmoid(bx))


@nn_op()
def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""
    _floating_only(input, "softplus_cpu")
    return _Softplus.apply(input, beta, threshold)


# ------------------------------------------------------------------------ logsigmoid
class _LogSigmoid(Function):
    _node_name = "LogSigmoidBackward0"

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        out = _lowp(_logsigmoid, input)
        # PyTorch's kernel writes a contiguous output whatever the input's layout.
        return out if out.is_contiguous() else out.contiguous()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        dtype = x.dtype

        def f(g, x):
            if x._dtype is dtype:   # (no rounding to a lower dtype in between)
                out = _array_backward(_logsigmoid_grad_arrays, g, x)
                if out is not None:
                    return out
            # PyTorch's formula, with exp(-|x|) kept in the input dtype as its forward
            # buffer is (this matters in float16/bfloat16 only).
            z = J.exp(-x.abs()).to(dtype).to(x.dtype)
            q = z / (z + 1)
            return g * J.where(x < 0, 1 - q, q)

        return _lowp(f, grad, x)


def _logsigmoid(x):
    out = _array_forward(_logsigmoid_arrays, x)
    if out is not None:
        return out
    # Stable for both signs: min(x, 0) - log1p(exp(-|x|)).
    return x.clamp(max=0) - J.log1p(J.exp(-x.abs()))


def _logsigmoid_arrays(a):
    m = np.minimum(np.asarray(0, a.dtype), a)                     # x.clamp(max=0)
    e = _exp(np, np.negative(np.abs(a)))                          # exp(-|x|)
    return np.subtract(m, np.log1p(e))                            # m - log1p(e)


def _logsigmoid_grad_arrays(g, a):
    z = _exp(np, np.negative(np.abs(a)))                          # z = exp(-|x|)
    q = np.true_divide(z, np.add(z, 1))                           # z / (z + 1)
    w = select(np.less(a, 0), np.subtract(_ONE[q.dtype], q), q)  # where(x < 0, 1 - q, q)
    return np.multiply(g, w)                                      # g * w


@nn_op()
def logsigmoid(input):
    """``log(sigmoid(x))``, computed stably."""
    _floating_only(input, "log_sigmoid_cpu")
    return _LogSigmoid.apply(input)


# --------------------------------------------------------------------------- softmax
def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  f"to include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (stable at huge logits); ``dtype`` casts the
    input first."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return J.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``x - logsumexp(x)`` along ``dim`` (stable at huge logits)."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    if dtype is None and _recorded_on_the_arrays(input, dim):
        # The classifier's ``F.nll_loss(F.log_softmax(x, 1), y)`` (issue 18): the node
        # cross_entropy records (LogSoftmaxBackward0, the same saved result and values),
        # which keeps its exponentials for the backward and takes nll_loss's gradient as
        # the positions it has, one pass in all.
        from .loss import _LogSoftmax

        return _LogSoftmax.apply(input, dim)
    return J.log_softmax(input, dim, dtype=dtype)


def _recorded_on_the_arrays(input, dim):
    """Whether a ``log_softmax`` call records its node on a plain contiguous CPU
    float32/float64 tensor of at least one element, along a valid int dim, with nothing
    listening, transforming or casting (its public op would give the same everywhere)."""
    if not ARRAY_PATHS or input.__class__ not in DENSE_CLASSES or dim.__class__ is not int \
            or not (input._requires_grad and grad_mode.record) or _autocast.active:
        return False
    shape = input._shape
    return (input._dtype in ARRAY_FLOATS and bool(shape) and -len(shape) <= dim < len(shape)
            and _plain(input, input._dtype) and 0 not in shape and not _listened())


@nn_op()
def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x)`` along ``dim``."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is None:
        return J.softmax(-input, dim)
    return J.softmax(-input.to(dtype), dim)


# --------------------------------------------------------------------------- one_hot
@nn_op(differentiable=False)
def one_hot(tensor, num_classes=-1):
    """``int64`` tensor with a trailing class dimension holding 1 at each index.
    ``num_classes=-1`` uses ``max(tensor) + 1``."""
    if not isinstance(tensor, Tensor):
        raise TensorTypeError(f"one_hot(): argument 'input' (position 1) must be Tensor, not "
                              f"{type_name(tensor)}")
    if tensor.dtype != _dtypes.int64:
        raise TensorRuntimeError(
            f"one_hot is only applicable to index tensor of type LongTensor (got "
            f"{tensor.dtype}); convert it with .long().")
    out = _one_hot_arrays(tensor, num_classes)
    if out is not None:
        return out
    if tensor.numel() == 0:
        if num_classes == -1:
            raise TensorRuntimeError("Can not infer total number of classes from empty tensor.")
        return J.zeros(tuple(tensor.shape) + (num_classes,), dtype=_dtypes.int64,
                       device=tensor.device)
    num_classes = _classes(int(tensor.min()), int(tensor.max()), num_classes)
    out = J.zeros(tuple(tensor.shape) + (num_classes,), dtype=_dtypes.int64, device=tensor.device)
    out.scatter_(-1, tensor.unsqueeze(-1), 1)
    out._version_counter.value = 2   # (PyTorch's one_hot writes twice: zeros, then scatter_)
    return out


def _classes(lo, hi, num_classes):
    """``one_hot``'s class count from the smallest and largest class (checked in that
    order, as PyTorch checks them)."""
    if lo < 0:
        raise TensorRuntimeError(f"Class values must be non-negative (got {lo}).")
    if num_classes == -1:
        return hi + 1
    if hi >= num_classes:
        raise TensorRuntimeError(
            f"Class values must be smaller than num_classes (got class {hi} with "
            f"num_classes={num_classes}).")
    return num_classes


def _one_hot_arrays(tensor, num_classes):
    """``one_hot`` of a plain CPU int64 tensor of at least one element (0-d too) with nothing
    listening, on its array: the general path's checks in its order (the smallest class,
    then the largest against ``num_classes``; ``int`` of a NumPy integer, as of a tensor
    element), then the zeros with a one at each index, a fresh contiguous tensor at version
    2 (PyTorch's zeros then ``scatter_``). Returns None (nothing done) otherwise."""
    if not ARRAY_PATHS or tensor.__class__ not in DENSE_CLASSES \
            or tensor._storage._backend is not CPU_BACKEND \
            or num_classes.__class__ is not int or _listened():
        return None
    a = tensor._array()
    if not a.size:
        return None
    num_classes = _classes(int(a.min()), int(a.max()), num_classes)
    shape = tensor._shape + (num_classes,)
    out = np.zeros(shape, np.int64)
    rows = out.reshape(-1, num_classes)
    rows[np.arange(a.size), a.reshape(-1)] = 1
    result = fresh_tensor(Tensor, out, shape, _dtypes.int64, tensor._storage.device,
                          CPU_BACKEND)
    result._version_counter.value = 2
    return result
