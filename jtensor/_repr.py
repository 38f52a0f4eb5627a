"""``repr``/``str`` of tensors in PyTorch's format."""

import numpy as np

from . import _dtypes


def _format_array(array, dtype):
    if dtype is _dtypes.bfloat16 or dtype is _dtypes.float16:
        array = array.astype(np.float32)
    return np.array2string(array, separator=", ", prefix="tensor(")


def tensor_repr(t):
    body = _format_array(t._host_array(), t._dtype)
    extras = []
    if t.device.type != "cpu":
        extras.append(f"device='{t.device}'")
    default_int = t._dtype is _dtypes.int64
    default_float = t._dtype is _dtypes.get_default_dtype()
    if not (default_int or default_float or t._dtype is _dtypes.bool_) or t.numel() == 0:
        extras.append(f"dtype={t._dtype}")
    if t.grad_fn is not None:
        extras.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        extras.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + e for e in extras) + ")"
