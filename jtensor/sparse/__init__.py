"""``torch.sparse``: functions on sparse COO tensors (``mm``, ``addmm``, ``sum``).

The representation and the kernels live in ``jtensor/_sparse/`` (``SparseCOOTensor``,
``sparse_coo_tensor``; ``mm``/``addmm`` in ``matmul``, ``sum`` in ``reductions``): this
namespace re-exports them beside the legacy tensor types and the invariants switch.

>>> import jtensor as torch
>>> import jtensor.sparse
>>> s = torch.tensor([[0., 2.], [3., 0.]]).to_sparse()
>>> torch.sparse.mm(s, torch.ones(2, 1))
tensor([[2.],
        [3.]])
"""

import warnings

from .. import _dtypes, _sparse
from .._sparse import sparse_coo, sparse_coo_empty, sparse_coo_tensor
from .._sparse.matmul import addmm, mm
from .._sparse.reductions import sum
from .._size import Size
from .._tensor import Tensor

__all__ = [
    "DoubleTensor",
    "FloatTensor",
    "LongTensor",
    "addmm",
    "check_sparse_tensor_invariants",
    "mm",
    "sparse_coo",
    "sparse_coo_tensor",
    "sum",
]


class check_sparse_tensor_invariants:
    """``torch.sparse.check_sparse_tensor_invariants``: a context manager (and global
    switch) making ``sparse_coo_tensor`` check index bounds by default."""

    def __init__(self, enable=True):
        self.state = enable
        self.saved = None

    @staticmethod
    def is_enabled():
        return _sparse._CHECK_INVARIANTS[0]

    @staticmethod
    def enable():
        _sparse._CHECK_INVARIANTS[0] = True

    @staticmethod
    def disable():
        _sparse._CHECK_INVARIANTS[0] = False

    def __enter__(self):
        self.saved = _sparse._CHECK_INVARIANTS[0]
        _sparse._CHECK_INVARIANTS[0] = bool(self.state)

    def __exit__(self, *exc):
        _sparse._CHECK_INVARIANTS[0] = self.saved


_WARNED = set()


def _legacy_message(args):
    """PyTorch's deprecation warning for a legacy sparse constructor call: it names the
    generic ``torch.sparse.SparseTensor`` form the arguments fit, whatever the typed name."""
    if not args:
        return ("torch.sparse.SparseTensor() is deprecated.  Please use "
                "torch.sparse_coo_tensor((0,), dtype=).")
    if (len(args) == 1 and isinstance(args[0], (tuple, list))) \
            or all(isinstance(a, int) for a in args):
        form, new = "shape, *, device=", "shape, dtype=, device="
    elif len(args) == 2:
        form, new = "indices, values, *, device=", "indices, values, dtype=, device="
    else:
        form, new = "indices, values, shape, *, device=", "indices, values, shape, dtype=, device="
    return (f"torch.sparse.SparseTensor({form}) is deprecated.  Please use "
            f"torch.sparse_coo_tensor({new}).")


def _legacy(dtype, name):
    def construct(*args, device=None):
        message = _legacy_message(args)
        if message not in _WARNED:   # (PyTorch warns once a process for each form)
            _WARNED.add(message)
            warnings.warn(message, UserWarning, stacklevel=2)
        if not args:   # (an empty sparse vector, shape (0,))
            return sparse_coo_empty((0,), dtype=dtype, device=device)
        if len(args) == 1 and isinstance(args[0], (tuple, list)):
            if args[0].__class__ is not Size:   # (PyTorch reads another sequence as data)
                raise TypeError(
                    "torch.sparse.SparseTensor(sequence) only accepts sizes.  Please use "
                    "torch.sparse_coo_tensor() or construct a strided tensor and convert it to "
                    "sparse via to_sparse.")
            return sparse_coo_empty(args[0], dtype=dtype, device=device)
        if args and all(isinstance(a, int) for a in args):
            return sparse_coo_empty(args, dtype=dtype, device=device)
        if len(args) in (2, 3):
            # (PyTorch's legacy form keeps the values' dtype whatever the typed name:
            # ``torch.sparse.FloatTensor(i, float64_values, size)`` is float64)
            if not isinstance(args[0], Tensor) or not isinstance(args[1], Tensor):
                raise TypeError(
                    f"torch.sparse.{name}(indices, values[, size]) takes tensors of indices and "
                    f"values (got {type(args[0]).__name__} and {type(args[1]).__name__}); "
                    "torch.sparse_coo_tensor() takes other sequences")
            return sparse_coo_tensor(*args, device=device)
        raise TypeError(f"torch.sparse.{name}: expected (indices, values[, size]) or a size")

    construct.__name__ = name
    construct.__doc__ = (
        f"Legacy ``torch.sparse.{name}(indices, values, size)`` constructor "
        f"(deprecated; a sparse COO tensor of the values' dtype, or an empty {dtype} one of a "
        f"size)."
    )
    return construct


FloatTensor = _legacy(_dtypes.float32, "FloatTensor")
DoubleTensor = _legacy(_dtypes.float64, "DoubleTensor")
LongTensor = _legacy(_dtypes.int64, "LongTensor")
