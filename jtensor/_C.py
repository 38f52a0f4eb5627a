"""``torch._C``: the names of PyTorch's C extension that user code reaches directly. Here
``_LinAlgError``, the class of ``torch.linalg.LinAlgError`` (``except
torch._C._LinAlgError`` catches what ``torch.linalg`` raises for singular or
non-positive-definite input)."""

from ._errors import TensorRuntimeError


class _LinAlgError(TensorRuntimeError):
    """``torch.linalg.LinAlgError`` (``torch._C._LinAlgError``): a factorization or solve
    failed on the values of its input (singular, not positive-definite, non-finite). A
    ``RuntimeError``, as PyTorch's."""


__all__ = ["_LinAlgError"]
