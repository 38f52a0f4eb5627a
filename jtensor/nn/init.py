"""``jtensor.nn.init``: PyTorch's parameter initialisers.

Every function fills its tensor in place without recording history (under ``no_grad``) and
returns it. Bounds and standard deviations follow PyTorch's formulas exactly
(``calculate_gain``, ``_calculate_fan_in_and_fan_out``) and so do the draws: the same seed
gives PyTorch's values (pass ``generator=`` for a private stream).
"""

import math
import warnings

from .._errors import TensorValueError

__all__ = [
    "calculate_gain",
    "constant_",
    "dirac_",
    "eye_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "orthogonal_",
    "sparse_",
    "trunc_normal_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]


def _no_grad():
    from ..autograd.grad_mode import no_grad

    return no_grad()


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity: 1 for linear/conv/sigmoid, 5/3 for tanh,
    sqrt(2) for relu, sqrt(2 / (1 + slope**2)) for leaky_relu (slope ``param``, default
    0.01), 3/4 for selu.

    >>> import jtensor as torch
    >>> torch.nn.init.calculate_gain("tanh")
    1.6666666666666667
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise TensorValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise TensorValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise TensorValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    for s in tuple(tensor.shape)[2:]:
        receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise TensorValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill ``tensor`` with values drawn from U(a, b)."""
    with _no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill ``tensor`` with values drawn from N(mean, std**2)."""
    with _no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill ``tensor`` from N(mean, std**2) truncated to [a, b], drawing as PyTorch 2.13
    does: when more than 30% of the mass lies in [a, b], normal samples redrawn where they
    fall outside; otherwise uniform proposals on [a, b] accepted by a Gaussian-ratio test,
    redrawn until all are accepted."""

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with _no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            lo = tensor.new_tensor(a, device="cpu").item()
            hi = tensor.new_tensor(b, device="cpu").item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                fresh = tensor.new_empty(tensor.shape).normal_(mean, std, generator=generator)
                result = fresh.where(mask, result)
            if tensor is not result:
                tensor.copy_(result)
            return tensor
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2
        candidates = tensor.new_empty(tensor.shape)
        accept_buf = tensor.new_empty(tensor.shape)
        tensor.uniform_(a, b, generator=generator)
        candidates.copy_(tensor)
        candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        pending = accept_buf.uniform_(generator=generator).log_().gt(candidates)
        if pending.any():
            result = tensor
            while True:
                candidates.uniform_(a, b, generator=generator)
                result = candidates.where(pending, result)
                candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
                pending = accept_buf.uniform_(generator=generator).log_().gt(
                    candidates).where(pending, pending)
                if not pending.any():
                    break
            tensor.copy_(result)
        return tensor


def constant_(tensor, val):
    """Fill ``tensor`` with ``val``."""
    with _no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fill ``tensor`` with ones."""
    with _no_grad():
        return tensor.fill_(1)


def zeros_(tensor):
    """Fill ``tensor`` with zeros."""
    with _no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fill a 2-D ``tensor`` with the identity matrix (ones on the main diagonal)."""
    if tensor.dim() != 2:
        raise TensorValueError("Only tensors with 2 dimensions are supported")
    with _no_grad():
        tensor.zero_()
        n = min(tensor.shape)
        if n:
            tensor.diagonal().fill_(1)
        return tensor


def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D ``tensor`` with the Dirac delta (identity convolution), per
    group."""
    dimensions = tensor.dim()
    if dimensions not in (3, 4, 5):
        raise TensorValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise TensorValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    with _no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                index = (g * out_chans_per_grp + d, d) + tuple(s // 2 for s in sizes[2:])
                tensor[index] = 1
        return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    return gain / math.sqrt(fan)


def _zero_element(tensor):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return True
    return False


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: U(-bound, bound) with bound = gain(nonlinearity, a) * sqrt(3 / fan)
    (``mode`` picks fan_in or fan_out)."""
    if _zero_element(tensor):
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    with _no_grad():
        return tensor.uniform_(-bound, bound, generator=generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std**2) with std = gain(nonlinearity, a) / sqrt(fan)."""
    if _zero_element(tensor):
        return tensor
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    with _no_grad():
        return tensor.normal_(0, std, generator=generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill ``tensor`` (2-D or more, trailing dims flattened) with a (semi-)orthogonal matrix
    from the QR decomposition of a normal matrix, scaled by ``gain``."""
    if tensor.dim() < 2:
        raise TensorValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    from .. import linalg
    from .._api import ops as J

    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with _no_grad():
        flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
        if rows < cols:
            flattened = flattened.t()
        q, r = linalg.qr(flattened)
        ph = J.diagonal(r, 0).sign()
        q = q * ph
        if rows < cols:
            q = q.t()
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
        return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D ``tensor`` from N(0, std**2), then zero ``ceil(sparsity * rows)`` random
    entries of every column."""
    if tensor.dim() != 2:
        raise TensorValueError("Only tensors with 2 dimensions are supported")
    from .._api import ops as J

    rows, cols = tuple(tensor.shape)
    num_zeros = math.ceil(sparsity * rows)
    with _no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):
            row_indices = J.randperm(rows, generator=generator)
            zero_indices = row_indices[:num_zeros]
            tensor[zero_indices, col_idx] = 0
        return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"""Deprecated alias of ``{new_name}`` (warns, as PyTorch)."""
    deprecated_init.__name__ = old_name
    return deprecated_init


# PyTorch's old names (no trailing underscore): still callable, with a FutureWarning.
uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
__all__ += [
    "constant",
    "dirac",
    "eye",
    "kaiming_normal",
    "kaiming_uniform",
    "normal",
    "orthogonal",
    "sparse",
    "uniform",
    "xavier_normal",
    "xavier_uniform",
]
