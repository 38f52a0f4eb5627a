"""``torch._C``: the names of PyTorch's C extension that user code reaches directly. Here
``_LinAlgError``, the class of ``torch.linalg.LinAlgError`` (``except
torch._C._LinAlgError`` catches what ``torch.linalg`` raises for singular or
non-positive-definite input)."""

from ._errors import TensorRuntimeError
from ._torch_function import (
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
)
from ._torch_function import is_torch_function_enabled as _is_torch_function_enabled


class _LinAlgError(TensorRuntimeError):
    """``torch.linalg.LinAlgError`` (``torch._C._LinAlgError``): a factorization or solve
    failed on the values of its input (singular, not positive-definite, non-finite). A
    ``RuntimeError``, as PyTorch's."""


__all__ = [
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "_LinAlgError",
    "_disabled_torch_function_impl",
    "_is_torch_function_enabled",
]
