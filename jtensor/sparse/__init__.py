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


def _legacy(dtype, name):
    def construct(*args, device=None):
        warnings.warn(
            f"torch.sparse.{name}(indices, values, shape, *, device=) is deprecated.  Please "
            "use torch.sparse_coo_tensor(indices, values, shape, dtype=, device=).",
            UserWarning,
            stacklevel=2,
        )
        if (
            len(args) == 1
            and isinstance(args[0], (tuple, list))
            and all(isinstance(a, int) for a in args[0])
        ):
            return sparse_coo_empty(args[0], dtype=dtype, device=device)
        if args and all(isinstance(a, int) for a in args):
            return sparse_coo_empty(args, dtype=dtype, device=device)
        if len(args) in (2, 3):
            return sparse_coo_tensor(*args, dtype=dtype, device=device)
        raise TypeError(f"torch.sparse.{name}: expected (indices, values[, size]) or a size")

    construct.__name__ = name
    construct.__doc__ = (
        f"Legacy ``torch.sparse.{name}(indices, values, size)`` constructor "
        f"(deprecated; builds a {dtype} sparse COO tensor)."
    )
    return construct


FloatTensor = _legacy(_dtypes.float32, "FloatTensor")
DoubleTensor = _legacy(_dtypes.float64, "DoubleTensor")
LongTensor = _legacy(_dtypes.int64, "LongTensor")
