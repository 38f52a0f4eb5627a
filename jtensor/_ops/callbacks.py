"""Python-callback in-place ops: ``Tensor.apply_`` and ``Tensor.map_`` run a Python callable on
every element (CPU only, slow; refused on tensors that require grad, as PyTorch). Everything
is validated before any write.
"""

import numpy as np

from .. import _dtypes
from .._dispatch import check_inplace
from .._errors import TensorRuntimeError, TensorTypeError
from .._layout import broadcast_shapes
from .._registry import register
from ._selection_common import _check_tensor, _xp


# ---------------------------------------------------------------------- Python callbacks
def _check_cpu(self, name):
    if self.device.type != "cpu":
        raise TensorTypeError(f"{name} is only implemented on CPU tensors")


def _check_no_grad(self, name, other=None):
    # PyTorch's apply_/map_ run a Python callback autograd can't see: refused outright.
    if self.requires_grad or (other is not None and other.requires_grad):
        raise TensorRuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use "
            f"var.detach().{name}() instead.")


def _store(self, values):
    """Write the callback's Python results into ``self`` (cast as PyTorch's scalar writes)."""
    out = np.array(values, dtype=object).reshape(tuple(self._shape))
    with np.errstate(all="ignore"):
        if self._dtype.category == _dtypes.INTEGRAL:
            out = np.vectorize(int, otypes=[np.int64])(out) if out.size else out
        arr = np.asarray(out.tolist() if out.size else out, dtype=self._dtype.numpy) \
            if self._dtype is not _dtypes.bfloat16 else np.asarray(
                out.tolist(), dtype=np.float32).astype(self._dtype.numpy)
    xp = _xp(self)
    self._array()[...] = xp.asarray(arr.reshape(tuple(self._shape)))


@register("inplace", function=False)
def apply_(self, callable):
    """Replace every element ``x`` by ``callable(x)`` (a Python number). CPU only; slow.
    Refused on a tensor that requires grad, even under ``no_grad`` (as PyTorch)."""
    _check_no_grad(self, "apply_")
    _check_cpu(self, "apply_")
    check_inplace(self)
    values = [callable(v) for v in np.asarray(self._array()).reshape(-1).tolist()]
    _store(self, values)
    return self


@register("inplace", function=False)
def map_(self, other, callable):
    """Replace every element ``x`` of ``self`` by ``callable(x, y)``, ``y`` from ``other``
    broadcast to ``self``'s shape (same dtype required). CPU only; slow. Refused when
    ``self`` or ``other`` requires grad, even under ``no_grad`` (as PyTorch)."""
    _check_tensor(other, "map_", "other")
    _check_no_grad(self, "map_", other)
    _check_cpu(self, "map_")
    if other._dtype is not self._dtype:
        raise TensorTypeError(
            f"map_: expected torch.{self._dtype._torch_name}Tensor for 'other' (got "
            f"torch.{other._dtype._torch_name}Tensor)")
    shape = tuple(self._shape)
    other_shape = tuple(other._shape)
    try:
        ok = tuple(broadcast_shapes(other_shape, shape)) == shape
    except RuntimeError:
        ok = False
    if not ok:
        mine = (1,) * (len(shape) - len(other_shape)) + other_shape
        for i in range(len(shape) - 1, -1, -1):
            if i < len(mine) and mine[i] != 1 and mine[i] != shape[i]:
                raise TensorRuntimeError(
                    f"The expanded size of the other ({shape[i]}) must match the existing "
                    f"size ({mine[i]}) at non-singleton dimension {i}.  Target sizes: "
                    f"{list(shape)}.  Tensor sizes: {list(other_shape)}")
        raise TensorRuntimeError(
            f"expand: the shape {list(other_shape)} cannot be broadcast to {list(shape)}")
    check_inplace(self)
    xs = np.asarray(self._array()).reshape(-1).tolist()
    ys = np.broadcast_to(np.asarray(other._array()), shape).reshape(-1).tolist()
    _store(self, [callable(x, y) for x, y in zip(xs, ys, strict=True)])
    return self
