"""Building sparse COO tensors: ``sparse_coo_tensor`` (with the invariants checks and their
default, ``_CHECK_INVARIANTS``), ``sparse_coo_empty``, and the dense tensor's
``to_sparse``/``sparse_mask`` methods."""

import numpy as np

from .. import _dtypes
from .._device import device as _device, resolve_device
from .._errors import TensorNotImplementedError, TensorRuntimeError, TensorTypeError
from .._ops.creation import tensor as _tensor, zeros as _zeros
from .._registry import tensor_method
from .._tensor import Tensor, sparse_coo
from .autograd_nodes import _named
from .indices import _linear_index
from .tensor import SparseCOOTensor


# The default of ``check_invariants`` (``torch.sparse.check_sparse_tensor_invariants``).
_CHECK_INVARIANTS = [False]


def _as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor):
        if isinstance(data, SparseCOOTensor):
            raise TensorTypeError("expected a dense tensor for indices/values, got a sparse one")
        if dtype is not None and data._dtype is not dtype:
            data = data.to(dtype)
        if device is not None and data.device != _device(device):
            data = data.to(_device(device))
        return data
    return _tensor(data, dtype=dtype, device=device)


# ---------------------------------------------------------------------- construction
def sparse_coo_tensor(
    indices=None,
    values=None,
    size=None,
    *,
    dtype=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    check_invariants=None,
    is_coalesced=None,
):
    """Construct a sparse COO tensor from ``indices`` (sparse_dim x nnz, int64) and
    ``values`` (nnz x dense dims); ``size`` is inferred (max index + 1) when omitted.

    As in PyTorch, index bounds are checked only with ``check_invariants=True`` (or when the
    size is inferred, where negative indices are refused). ``is_coalesced=True`` declares
    the indices sorted and unique without checking.

    >>> from jtensor._sparse import sparse_coo_tensor
    >>> sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3., 4., 5.])
    tensor(indices=tensor([[0, 1, 1],
                           [2, 0, 2]]),
           values=tensor([3., 4., 5.]),
           size=(2, 3), nnz=3, layout=torch.sparse_coo)
    """
    if values is None:
        # sparse_coo_tensor(size) / sparse_coo_tensor(size=...): an empty tensor.
        shape = size if size is not None else indices
        if shape is None or isinstance(shape, Tensor):
            raise TensorTypeError("sparse_coo_tensor() expects (indices, values[, size]) or a size")
        result = sparse_coo_empty(shape, dtype=dtype, device=device)
        return result.requires_grad_(True) if requires_grad else result
    # As PyTorch: the values first (a tensor keeps its device unless ``device`` is given, or
    # a default device other than the CPU is set, which PyTorch's default-device mode passes
    # as ``device``), then the indices on the values' device.
    if device is None and resolve_device(None).type != "cpu":
        device = resolve_device(None)
    vals = _as_tensor(values, dtype=dtype, device=device)
    idx = _as_tensor(indices, device=device if device is not None else vals.device)
    if idx._dtype is not _dtypes.int64:  # PyTorch converts other index dtypes to int64
        idx = idx.to(_dtypes.int64)
    idx = idx.detach() if idx.requires_grad else idx
    if idx.dim() == 0:
        raise TensorRuntimeError("indices must be sparse_dim x nnz, but got: []")
    if idx.dim() == 1:
        sparse_dim, nnz = idx._shape[0], 1
    elif idx.dim() == 2:
        sparse_dim, nnz = idx._shape
    else:
        sparse_dim, nnz = idx._shape[0], None
    if vals.dim() == 0:
        raise TensorRuntimeError(
            f"indices and values must have same nnz, but got nnz from indices: "
            f"{idx._shape[1] if idx.dim() >= 2 else nnz}, nnz from values: 1"
        )
    dense_dim = vals.dim() - 1
    if size is not None:
        size = tuple(int(s) for s in (size if not isinstance(size, int) else (size,)))
        if len(size) != sparse_dim + dense_dim:
            raise TensorRuntimeError(
                f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = "
                f"{len(size)}, sparse_dim = {sparse_dim}, dense_dim = {dense_dim}"
            )
    if idx.dim() != 2:
        raise TensorRuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx._shape)}")
    if vals._shape[0] != nnz:
        raise TensorRuntimeError(
            f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz "
            f"from values: {vals._shape[0]}"
        )
    idx_np = np.asarray(Tensor._host_array(idx), dtype=np.int64)
    if size is None:
        for d in range(sparse_dim):
            if nnz and idx_np[d].min() < 0:
                raise TensorRuntimeError(f"found negative index {int(idx_np[d].min())} for dim {d}")
        sparse_size = tuple(int(idx_np[d].max()) + 1 if nnz else 0 for d in range(sparse_dim))
        size = sparse_size + tuple(vals._shape[1:])
    else:
        if tuple(vals._shape[1:]) != size[sparse_dim:]:
            raise TensorRuntimeError(
                f"values has incorrect size, expected {[nnz] + list(size[sparse_dim:])}, got "
                f"{list(vals._shape)}"
            )
        if check_invariants is None:
            check_invariants = _CHECK_INVARIANTS[0]
        if check_invariants:
            for d in range(sparse_dim):
                if nnz == 0:
                    break
                low, high = int(idx_np[d].min()), int(idx_np[d].max())
                if low < 0:
                    raise TensorRuntimeError(f"found negative index {low} for dim {d}")
                if high >= size[d]:
                    raise TensorRuntimeError(
                        f"size is inconsistent with indices: for dim {d}, size is {size[d]} "
                        f"but found index {high}"
                    )
    if any(s < 0 for s in size):
        raise TensorRuntimeError(f"Trying to create tensor with negative dimension: {list(size)}")
    coalesced = bool(is_coalesced) if is_coalesced is not None else nnz <= 1
    if requires_grad:
        if vals._dtype.category < _dtypes.FLOATING:
            raise TensorRuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients")
        vals = vals.detach().requires_grad_(True)
    elif vals.requires_grad:
        # Built from values with history: a non-leaf, as PyTorch's
        # SparseCooTensorWithDimsAndTensorsBackward0 (gradients pass through to values).
        vals = _named("SparseCooTensorWithDimsAndTensorsBackward0", vals)
    return SparseCOOTensor._create(idx, vals, size, coalesced)


def sparse_coo_empty(size, dtype=None, device=None, sparse_dim=None):
    """An empty (nnz = 0) sparse tensor of ``size`` (all dims sparse unless told)."""
    size = (size,) if isinstance(size, int) else tuple(int(s) for s in size)
    sd = len(size) if sparse_dim is None else sparse_dim
    idx = _zeros((sd, 0), dtype=_dtypes.int64, device=device)
    vals = _zeros((0,) + size[sd:], dtype=dtype, device=device)
    return SparseCOOTensor._create(idx, vals, size, True)


@tensor_method("to_sparse")
def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """The sparse COO form of a dense tensor: entries whose (dense part) is not all zero,
    indices sorted, coalesced. ``sparse_dim`` leading dims become sparse (default: all).

    >>> import jtensor as torch
    >>> import jtensor.sparse
    >>> torch.tensor([[0., 1.], [2., 0.]]).to_sparse()
    tensor(indices=tensor([[0, 1],
                           [1, 0]]),
           values=tensor([1., 2.]),
           size=(2, 2), nnz=2, layout=torch.sparse_coo)
    """
    if layout is not None and layout is not sparse_coo:
        raise TensorRuntimeError(f"to_sparse: layout {layout} is not supported (only sparse_coo)")
    ndim = self.dim()
    if sparse_dim is None:
        sparse_dim = ndim
    if not 0 <= sparse_dim <= ndim:
        raise TensorRuntimeError(
            f"dense_to_sparse: sparse_dim argument must be in [0,{ndim}] range, but "
            f"{sparse_dim} is given"
        )
    if sparse_dim == 0 and ndim > 0:
        raise TensorRuntimeError(
            "dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0"
        )
    dev = self.device
    if ndim == 0:
        idx = _zeros((0, 1), dtype=_dtypes.int64, device=dev)
        return SparseCOOTensor._create(idx, _named("ToSparseBackward1", self.reshape(1)), (), True)
    arr = np.asarray(Tensor._host_array(self.detach()))
    mask = arr != 0
    if sparse_dim < ndim:
        mask = mask.reshape(arr.shape[:sparse_dim] + (-1,)).any(axis=-1)
    nz = np.nonzero(mask)
    idx_np = np.stack(nz).astype(np.int64) if nz else np.zeros((0, 0), np.int64)
    idx = _tensor(idx_np.reshape(sparse_dim, -1), dtype=_dtypes.int64, device=dev)
    values = self[tuple(_tensor(row, dtype=_dtypes.int64, device=dev) for row in idx_np)]
    return SparseCOOTensor._create(
        idx, _named("ToSparseBackward1", values), tuple(self._shape), True
    )


@tensor_method("sparse_mask")
def sparse_mask(self, mask):
    """The entries of this dense tensor at ``mask``'s stored positions, as a sparse tensor
    with ``mask``'s indices (and coalesced flag); differentiable w.r.t. ``self``.

    >>> import jtensor as torch
    >>> import jtensor.sparse
    >>> m = torch.tensor([[0., 1.], [1., 0.]]).to_sparse()
    >>> torch.tensor([[5., 6.], [7., 8.]]).sparse_mask(m).to_dense()
    tensor([[0., 6.],
            [7., 0.]])
    """
    if not isinstance(mask, SparseCOOTensor):
        raise TensorNotImplementedError(
            "Could not run 'aten::sparse_mask' with arguments from the 'CPU' backend: the "
            "mask must be a sparse COO tensor (convert it with .to_sparse())"
        )
    if tuple(self._shape) != tuple(mask._shape):
        raise TensorRuntimeError(
            f"sparse_mask(): operands have incompatible sizes; self has size "
            f"{list(self._shape)} but mask has size {list(mask._shape)}"
        )
    idx = mask._sp_indices
    _linear_index(mask)  # bounds check
    if mask._nnz() == 0:
        values = _zeros(
            (0,) + tuple(self._shape[mask.sparse_dim() :]), dtype=self._dtype, device=self.device
        )
    else:
        values = self[tuple(idx.unbind(0))]
    return SparseCOOTensor._create(
        idx, _named("SparseMaskBackward0", values), self._shape, mask._sp_coalesced
    )
