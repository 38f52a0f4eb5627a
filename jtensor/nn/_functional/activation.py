"""Activations of ``jtensor.nn.functional``: relu, leaky_relu, gelu, sigmoid, tanh, silu, elu,
softplus, hardtanh, relu6, logsigmoid, softmax, log_softmax, softmin, one_hot.

Activations that have no core op are small ``autograd.Function``s: the forward is one
expression of public jtensor ops, the backward is written in public ops too (so
``create_graph=True`` differentiates it again), and the node carries PyTorch's name
(``LeakyReluBackward0``, ``GeluBackward0``...).
"""

import math
import warnings

from ... import _dtypes
from ..._api import ops as J
from ..._errors import TensorRuntimeError, TensorValueError, not_implemented
from ...autograd.function import Function
from ...autograd.grad_mode import enable_grad, is_grad_enabled
from ._op import nn_op

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


# ------------------------------------------------------------------------------- relu
def relu(input, inplace=False):
    """``max(x, 0)`` element-wise (``inplace=True`` overwrites ``input``)."""
    return input.relu_() if inplace else J.relu(input)


def relu_(input):
    """In-place ``relu``."""
    return input.relu_()


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
        return grad * ((out > lo) & (out < hi)), None, None, None


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
        return J.where(input > 0, input, input * slope)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return J.where(x > 0, grad, grad * ctx.slope), None


class _LeakyReluInplace(_LeakyRelu):
    # The backward reads the output: it has the input's sign (the slope is not negative).
    _node_name = "LeakyReluBackward1"

    @staticmethod
    def forward(ctx, input, slope):
        ctx.slope = slope
        # x > 0 ? x : x * slope in the input's own precision (a where() of two numbers would
        # make the slope a float32 and round it, as 0.20000000298 for a float64 input).
        input.copy_(J.where(input > 0, input, input * slope))
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
        if tanh_approx:
            return _lowp(lambda x: x * 0.5 * (J.tanh(
                (x + x * x * x * 0.044715) * _SQRT_2_OVER_PI) + 1), input)
        return _lowp(lambda x: x * 0.5 * (J.erf(x / _SQRT_2) + 1), input)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return _lowp(_Gelu.derivative_tanh if ctx.tanh_approx else _Gelu.derivative,
                     grad, x), None

    @staticmethod
    def derivative_tanh(grad, x):
        x2 = x * x
        t = J.tanh((x + x2 * x * 0.044715) * _SQRT_2_OVER_PI)
        d_inner = (x2 * (3 * 0.044715) + 1) * _SQRT_2_OVER_PI
        return grad * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * d_inner)

    @staticmethod
    def derivative(grad, x):
        return grad * ((J.erf(x / _SQRT_2) + 1) * 0.5 +
                       x * J.exp(x * x * -0.5) * _INV_SQRT_2PI)


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
    return x * J.sigmoid(x)


def _silu_backward(grad, x):
    s = J.sigmoid(x)
    return grad * (s * (x * (1 - s) + 1))


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
    return J.where(x > 0, x, J.expm1(x) * alpha)


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
        return _lowp(lambda g, x: J.where(x > 0, g, g * J.exp(x) * alpha), grad, x), None


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
            bx = x * beta
            # log1p(exp(bx)) overflows past the threshold, where it equals bx anyway.
            return J.where(bx > threshold, x, J.log1p(J.exp(bx.clamp(max=threshold))) / beta)

        return _lowp(f, input)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        beta, threshold = ctx.params

        def f(g, x):
            bx = x * beta
            return J.where(bx > threshold, g, g * J.sigmoid(bx))

        return _lowp(f, grad, x), None, None


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
        # Stable for both signs: min(x, 0) - log1p(exp(-|x|)).
        return _lowp(lambda x: x.clamp(max=0) - J.log1p(J.exp(-x.abs())), input)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        dtype = x.dtype

        def f(g, x):
            # PyTorch's formula, with exp(-|x|) kept in the input dtype as its forward
            # buffer is (this matters in float16/bfloat16 only).
            z = J.exp(-x.abs()).to(dtype).to(x.dtype)
            q = z / (z + 1)
            return g * J.where(x < 0, 1 - q, q)

        return _lowp(f, grad, x)


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
    return J.log_softmax(input, dim, dtype=dtype)


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
    if tensor.dtype != _dtypes.int64:
        raise TensorRuntimeError(
            f"one_hot is only applicable to index tensor of type LongTensor (got "
            f"{tensor.dtype}); convert it with .long().")
    if tensor.numel() == 0:
        if num_classes == -1:
            raise TensorRuntimeError("Can not infer total number of classes from empty tensor.")
        return J.zeros(tuple(tensor.shape) + (num_classes,), dtype=_dtypes.int64,
                       device=tensor.device)
    lo = int(tensor.min())
    hi = int(tensor.max())
    if lo < 0:
        raise TensorRuntimeError(f"Class values must be non-negative (got {lo}).")
    if num_classes == -1:
        num_classes = hi + 1
    elif hi >= num_classes:
        raise TensorRuntimeError(
            f"Class values must be smaller than num_classes (got class {hi} with "
            f"num_classes={num_classes}).")
    out = J.zeros(tuple(tensor.shape) + (num_classes,), dtype=_dtypes.int64, device=tensor.device)
    return out.scatter_(-1, tensor.unsqueeze(-1), 1)
