"""Sparse COO tensors (``torch.sparse_coo``): the representation and its methods.

Design. ``SparseCOOTensor`` is a *subclass* of ``Tensor`` so that ``isinstance(s, Tensor)``,
``torch.is_tensor(s)``, ``s.shape``/``size()``/``dim()``/``numel()``/``dtype``/``device`` behave as
in PyTorch. It holds two ordinary dense tensors:

* ``_sp_indices``: int64, shape ``(sparse_dim, nnz)``;
* ``_sp_values``: shape ``(nnz, *dense_dims)`` (hybrid tensors have dense dims);

plus the ``_sp_coalesced`` flag. The ``Tensor`` slots carry the metadata only: ``_shape`` is the
sparse tensor's full shape, ``_storage`` is the values' storage (so ``device`` works), and
``_array()`` raises PyTorch's ``NotImplementedError`` ("Could not run ... with arguments from
the 'SparseCPU' backend"), so a dense op that is not supported on sparse tensors fails as in
PyTorch instead of reading meaningless memory.

Autograd: a sparse tensor's history is the history of its values. Every sparse op here is
written with public (differentiable) jtensor ops on the values (``index_add``, ``mul``, ...),
so gradients flow to whatever produced the values; ``requires_grad``/``grad_fn``/``is_leaf``
are the values'. ``s.grad`` of a leaf sparse tensor is a coalesced sparse tensor holding the
gradient at each distinct stored position (``sparse_mask`` of the dense gradient, as PyTorch).
``jtensor.sparse.mm`` is an ``autograd.Function`` (differentiable w.r.t. the dense matrix and
the sparse values). The ``grad_fn`` names are those of the dense ops used (for example
``IndexAddBackward0`` where PyTorch says ``ToDenseBackward0``).

Index bookkeeping (sorting, uniqueness, merging) is host-side NumPy on the int64 indices.

>>> import jtensor as torch
>>> from jtensor._sparse import sparse_coo_tensor
>>> s = sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3., 4., 5.], (2, 3))
>>> s.to_dense()
tensor([[0., 0., 3.],
        [4., 0., 5.]])
"""

import operator

import numpy as np

from . import _dtypes
from ._errors import (
    TensorIndexError,
    TensorNotImplementedError,
    TensorRuntimeError,
    TensorTypeError,
    TensorValueError,
)
from ._argparse import bind_operands, operands
from ._registry import FUNCTIONS, OPS, tensor_method
from ._tensor import Tensor, sparse_coo

__all__ = ["SparseCOOTensor", "sparse_coo", "sparse_coo_tensor"]



# The default of ``check_invariants`` (``torch.sparse.check_sparse_tensor_invariants``).
_CHECK_INVARIANTS = [False]


def _J():
    import jtensor

    return jtensor


def _not_supported(op):
    return TensorNotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the 'SparseCPU' backend: this "
        "operation is not implemented for sparse COO tensors. Convert with .to_dense() first.")


def _as_tensor(data, dtype=None, device=None):
    J = _J()
    if isinstance(data, Tensor):
        if isinstance(data, SparseCOOTensor):
            raise TensorTypeError("expected a dense tensor for indices/values, got a sparse one")
        if dtype is not None and data._dtype is not dtype:
            data = data.to(dtype)
        if device is not None and data.device != J.device(device):
            data = data.to(J.device(device))
        return data
    return J.tensor(data, dtype=dtype, device=device)


class SparseCOOTensor(Tensor):
    """A sparse tensor in COO format (``layout=torch.sparse_coo``). Build it with
    ``sparse_coo_tensor(indices, values, size)`` or ``dense.to_sparse()``."""

    # ------------------------------------------------------------------ construction
    @classmethod
    def _create(cls, indices, values, shape, coalesced):
        self = object.__new__(cls)
        self._storage = values._storage
        self._shape = tuple(int(s) for s in shape)
        self._stride = (0,) * len(self._shape)
        self._offset = 0
        self._dtype = values._dtype
        self._cached_array = None
        self._cached_generation = 0
        self._contiguous = False
        self._version_counter = values._version_counter
        self._sp_indices = indices
        self._sp_values = values
        self._sp_coalesced = bool(coalesced)
        return self

    def _with_values(self, values, coalesced=None):
        return SparseCOOTensor._create(self._sp_indices, values, self._shape,
                                       self._sp_coalesced if coalesced is None else coalesced)

    # ------------------------------------------------------------------ dense access is refused
    def _array(self):
        raise TensorNotImplementedError(
            "Could not run this operation with arguments from the 'SparseCPU' backend: it "
            "reads dense (strided) data and this tensor is sparse COO. Convert with "
            ".to_dense() first, or use the sparse forms (torch.sparse.mm, dense + sparse).")

    _host_array = _array

    def numpy(self, *, force=False):
        """Refused (TypeError), as PyTorch: convert with ``to_dense()`` first."""
        raise TensorTypeError(
            "can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype=None, copy=None):
        return self.numpy()

    def _set_metadata(self, shape, stride, offset):
        raise _not_supported("set_")

    # ------------------------------------------------------------------ metadata
    @property
    def is_sparse(self):
        """True: this is a sparse COO tensor."""
        return True

    @property
    def layout(self):
        """``torch.sparse_coo``."""
        return sparse_coo

    def is_contiguous(self, memory_format=None):
        """Always False for a sparse tensor."""
        return False

    def stride(self, dim=None):
        """All zeros, as PyTorch reports for sparse tensors (``(0, 0)``; ``stride(d)`` is 0)."""
        if dim is None:
            return self._stride
        if not self._shape:
            raise TensorIndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._stride[_wrap(dim, len(self._shape))]

    def untyped_storage(self):
        """Refused (NotImplementedError): indices and values live in two dense tensors."""
        raise TensorNotImplementedError(
            "Cannot access storage of SparseTensorImpl: a sparse tensor has no storage of its "
            "own; use ._indices() and ._values() (or .to_dense())")

    storage = untyped_storage

    def data_ptr(self):
        """Refused (RuntimeError): a sparse tensor has no storage to point into."""
        raise TensorRuntimeError(
            "Cannot access data pointer of Tensor that doesn't have storage (this tensor is "
            "sparse COO: use ._values().data_ptr() or ._indices().data_ptr())")

    @property
    def nbytes(self):
        """Refused (RuntimeError), as PyTorch."""
        raise TensorRuntimeError(
            "nbytes is not defined for sparse tensors.  If you want the size of the constituent "
            "tensors, add the nbytes of the indices and values.  If you want the size of the  "
            "equivalent dense tensor, multiply numel() by element_size()")

    def sparse_dim(self):
        """Number of sparse dimensions (rows of ``indices``)."""
        return self._sp_indices._shape[0]

    def dense_dim(self):
        """Number of dense dimensions (trailing dims of ``values``)."""
        return len(self._sp_values._shape) - 1

    def _nnz(self):
        """Number of stored entries (duplicates included when uncoalesced)."""
        return self._sp_values._shape[0]

    def is_coalesced(self):
        """Whether the indices are known sorted and unique (set by ``coalesce()``)."""
        return self._sp_coalesced

    def _coalesced_(self, coalesced):
        """Set the coalesced flag without checking (PyTorch's ``_coalesced_``)."""
        self._sp_coalesced = bool(coalesced)
        return self

    def _indices(self):
        """The stored indices, ``(sparse_dim, nnz)``, without the coalesced check."""
        return self._sp_indices

    def _values(self):
        """The stored values, ``(nnz, *dense_dims)``, without the coalesced check (an alias
        outside autograd, as PyTorch's: use ``values()`` to differentiate)."""
        return self._sp_values.detach()

    def indices(self):
        """The indices of a coalesced tensor (RuntimeError when uncoalesced, as PyTorch)."""
        if not self._sp_coalesced:
            raise TensorRuntimeError(
                "Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._sp_indices

    def values(self):
        """The values of a coalesced tensor (RuntimeError when uncoalesced, as PyTorch)."""
        if not self._sp_coalesced:
            raise TensorRuntimeError(
                "Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return _named("ValuesBackward0", self._sp_values)

    # ------------------------------------------------------------------ autograd (the values')
    @property
    def requires_grad(self):
        """Whether the values take part in autograd."""
        return self._sp_values.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._sp_values.requires_grad = value

    def requires_grad_(self, requires_grad=True):
        """Make the values a leaf that requires grad (in place); returns self."""
        self._sp_values.requires_grad_(requires_grad)
        return self

    @property
    def _requires_grad(self):
        return self._sp_values._requires_grad

    @property
    def grad_fn(self):
        """The backward node that produced the values (None for a leaf)."""
        return self._sp_values.grad_fn

    @property
    def is_leaf(self):
        """Whether the values are a leaf of the autograd graph."""
        return self._sp_values.is_leaf

    @property
    def grad(self):
        """A leaf's gradient as a sparse tensor: one entry per distinct stored position."""
        g = self._sp_values.grad
        if g is None:
            return None
        # Every stored duplicate of one position received the same gradient (the dense
        # gradient there): keep one per distinct position, as PyTorch's sparse_mask does.
        _, first, _ = _unique_positions(self)
        J = _J()
        idx = J.tensor(np.asarray(first, dtype=np.int64))
        values = g.detach().index_select(0, idx)
        indices = self._sp_indices.index_select(1, idx)
        # Sorted and unique, but PyTorch leaves the flag unset on gradients: so do we.
        return SparseCOOTensor._create(indices, values, self._shape, False)

    @grad.setter
    def grad(self, value):
        if value is None:
            self._sp_values.grad = None
            return
        raise TensorRuntimeError("assigning .grad of a sparse tensor is not supported")

    def detach(self):
        """A sparse tensor sharing indices and values, cut from the graph."""
        return self._with_values(self._sp_values.detach())

    def clone(self, *, memory_format=None):
        """A copy of indices and values (the coalesced flag is kept)."""
        return SparseCOOTensor._create(self._sp_indices.clone(), self._sp_values.clone(),
                                       self._shape, self._sp_coalesced)

    # ------------------------------------------------------------------ conversions
    def to(self, *args, **kwargs):
        """Cast the values' dtype and/or move to a device (``to(dtype)``, ``to(device)``)."""
        J = _J()
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("copy", None)
        if kwargs:
            raise TensorTypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, _dtypes.dtype):
                dtype = a
            elif isinstance(a, (str, J.device)):
                device = a
            elif isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            elif isinstance(a, bool):
                continue
            else:
                raise TensorTypeError(f"to() received an invalid argument {a!r}")
        values = self._sp_values
        indices = self._sp_indices
        if dtype is not None and dtype is not values._dtype:
            values = values.to(dtype)
        if device is not None and J.device(device) != values.device:
            values = values.to(device)
            indices = indices.to(device)
        if values is self._sp_values and indices is self._sp_indices:
            return self
        return SparseCOOTensor._create(indices, values, self._shape, self._sp_coalesced)

    def type(self, dtype=None):
        """The type name (``torch.sparse.FloatTensor``) or a cast to ``dtype``."""
        if dtype is None:
            return "torch.sparse." + self._dtype._torch_name + "Tensor"
        return self.to(dtype)

    def double(self):
        """Values cast to float64."""
        return self.to(_dtypes.float64)

    def float(self):
        """Values cast to float32."""
        return self.to(_dtypes.float32)

    def half(self):
        """Values cast to float16."""
        return self.to(_dtypes.float16)

    def bfloat16(self):
        """Values cast to bfloat16."""
        return self.to(_dtypes.bfloat16)

    def long(self):
        """Values cast to int64."""
        return self.to(_dtypes.int64)

    def int(self):
        """Values cast to int32."""
        return self.to(_dtypes.int32)

    def bool(self):
        """Values cast to bool."""
        return self.to(_dtypes.bool_)

    def cpu(self):
        """This tensor on the CPU."""
        return self.to("cpu")

    def to_dense(self, dtype=None, *, masked_grad=None):
        """The dense tensor: duplicate entries are summed (differentiable w.r.t. values)."""
        if dtype is not None:
            raise TensorRuntimeError("dtype argument is not supported by sparse_to_dense")
        J = _J()
        sd = self.sparse_dim()
        sparse_shape = self._shape[:sd]
        dense_shape = self._shape[sd:]
        values = self._sp_values
        n = 1
        for s in sparse_shape:
            n *= s
        if self._nnz() == 0:
            return J.zeros(self._shape, dtype=self._dtype, device=self.device)
        linear = J.tensor(_linear_index(self), device=self.device)
        if self._dtype is _dtypes.bool_:
            flat = J.zeros((n,) + dense_shape, dtype=self._dtype, device=self.device)
            # index_add has no bool kernel: an accumulating index_put ORs the entries in
            flat.index_put_((linear,), values, accumulate=True)
        else:
            # One allocation of the result, filled in place (an out-of-place index_add
            # would allocate the dense size a second time).
            flat = J.zeros((n,) + dense_shape, dtype=self._dtype, device=self.device)
            flat.index_add_(0, linear, values)
        return _named("ToDenseBackward0", flat.view(self._shape))

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        """A sparse tensor is returned unchanged (``sparse_dim`` must equal its own)."""
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise TensorRuntimeError(
                "to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                "!=self.sparse_dim() is not supported")
        return self

    def coalesce(self):
        """Sort the indices lexicographically and sum duplicate entries.

        >>> from jtensor._sparse import sparse_coo_tensor
        >>> s = sparse_coo_tensor([[1, 0, 1], [2, 0, 2]], [1., 2., 3.], (2, 3)).coalesce()
        >>> s.indices(), s.values()
        (tensor([[0, 1],
                [0, 2]]), tensor([2., 4.]))
        """
        if self._sp_coalesced:
            return self
        J = _J()
        nnz = self._nnz()
        if nnz <= 1:
            return SparseCOOTensor._create(self._sp_indices, self._sp_values, self._shape, True)
        inverse, first, count = _unique_positions(self)
        indices = self._sp_indices.index_select(
            1, J.tensor(np.asarray(first, dtype=np.int64), device=self.device))
        inv = J.tensor(inverse, device=self.device)
        values = self._sp_values
        dense_shape = tuple(values._shape[1:])
        if self._dtype is _dtypes.bool_:
            acc = J.zeros((count,) + dense_shape, dtype=_dtypes.int64, device=self.device)
            new_values = acc.index_add_(0, inv, values.long()) != 0
        else:
            # Summed in place into the one new values tensor (no second full-size copy).
            new_values = J.zeros((count,) + dense_shape, dtype=self._dtype, device=self.device)
            new_values.index_add_(0, inv, values)
        return SparseCOOTensor._create(indices, _named("CoalesceBackward0", new_values),
                                       self._shape, True)

    # ------------------------------------------------------------------ shape ops
    def t(self):
        """Transpose of a 2-D sparse tensor (swaps the index rows; result is uncoalesced)."""
        sd, dd = self.sparse_dim(), self.dense_dim()
        if sd > 2 or dd != 0:
            raise TensorRuntimeError(
                f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                f"{sd} sparse and {dd} dense dimensions")
        if sd < 2:
            return self._with_values(_named("TBackward0", self._sp_values))
        result = self.transpose(0, 1)
        result._sp_values = _named("TBackward0", self._sp_values)
        return result

    def t_(self):
        """In-place transpose of a 2-D sparse tensor."""
        result = self.t()
        self._sp_indices = result._sp_indices
        self._shape = result._shape
        self._stride = result._stride
        self._sp_coalesced = result._sp_coalesced
        return self

    def transpose(self, dim0, dim1):
        """Swap two sparse dims (swapping dense dims is not supported)."""
        J = _J()
        ndim = len(self._shape)
        d0, d1 = _wrap(dim0, ndim), _wrap(dim1, ndim)
        sd = self.sparse_dim()
        if d0 == d1:
            return self._with_values(self._sp_values)
        if d0 >= sd or d1 >= sd:
            raise TensorRuntimeError(
                "transpose of the dense dims of a hybrid sparse tensor is not supported")
        order = list(range(sd))
        order[d0], order[d1] = order[d1], order[d0]
        indices = self._sp_indices.index_select(0, J.tensor(order, device=self.device))
        shape = list(self._shape)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        return SparseCOOTensor._create(indices, _named("TransposeBackward0", self._sp_values),
                                       tuple(shape), False)

    # ------------------------------------------------------------------ products
    def mm(self, mat2):
        """``sparse @ dense`` (see ``jtensor.sparse.mm``)."""
        from .sparse import mm as _mm

        return _named("MmBackward0", _mm(self, mat2))

    def matmul(self, other):
        """``sparse @ dense`` for a 2-D sparse matrix and a dense matrix or vector."""
        from .sparse import mm as _mm

        if isinstance(other, Tensor) and not isinstance(other, SparseCOOTensor) \
                and other.dim() == 1:
            return _named("MvBackward0", _mm(self, other.unsqueeze(1)).squeeze(1))
        return _named("MmBackward0", _mm(self, other))

    __matmul__ = matmul

    def __rmatmul__(self, other):
        from .sparse import mm as _mm

        if isinstance(other, Tensor) and not isinstance(other, SparseCOOTensor):
            if other.dim() == 1:
                return _mm(other.unsqueeze(0), self).squeeze(0)
            return _named("MmBackward0", _mm(other, self))
        return NotImplemented

    # ------------------------------------------------------------------ arithmetic
    def add(self, other, *, alpha=1):
        """sparse + sparse (merged, PyTorch's order) or sparse + dense (refused, as PyTorch:
        write dense + sparse)."""
        if isinstance(other, SparseCOOTensor):
            return _add_sparse(self, other, alpha)
        if isinstance(other, Tensor):
            raise TensorRuntimeError(
                "add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
        raise _not_supported("add.Scalar")

    __add__ = add

    def __radd__(self, other):
        if isinstance(other, Tensor) and not isinstance(other, SparseCOOTensor):
            return add_dense_sparse(other, self)
        return NotImplemented

    def sub(self, other, *, alpha=1):
        """sparse - sparse."""
        if isinstance(other, SparseCOOTensor):
            return _add_sparse(self, other, -alpha, -1)
        if isinstance(other, Tensor):
            raise TensorRuntimeError(
                "sub(sparse, dense) is not supported. Use sub(dense, sparse) instead.")
        raise _not_supported("sub.Scalar")

    __sub__ = sub

    def __rsub__(self, other):
        if isinstance(other, Tensor) and not isinstance(other, SparseCOOTensor):
            return add_dense_sparse(other, self, alpha=-1)
        return NotImplemented

    def mul(self, other):
        """Multiply by a scalar (or a 0-d dense tensor): scales the values; by a sparse
        tensor: element-wise, as PyTorch (see ``_mul_sparse``)."""
        if isinstance(other, SparseCOOTensor):
            return _mul_sparse(self, other)
        if isinstance(other, Tensor) and other.dim() != 0:
            return _mul_sparse_dense(self, other)
        return self._with_values(self._sp_values * other)

    __mul__ = mul
    __rmul__ = mul
    multiply = mul

    def div(self, other, *, rounding_mode=None):
        """Divide by a scalar (or a 0-d dense tensor)."""
        if isinstance(other, Tensor) and (isinstance(other, SparseCOOTensor) or other.dim()):
            raise _not_supported("div.Tensor")
        if rounding_mode is None:
            return self._with_values(self._sp_values / other)
        return self._with_values(self._sp_values.div(other, rounding_mode=rounding_mode))

    __truediv__ = div

    def neg(self):
        """Negate the values."""
        return self._with_values(-self._sp_values)

    __neg__ = neg

    # ------------------------------------------------------------------ in place
    def _become(self, other):
        # In place: the tensor now reads ``other``'s values, whose counter continues this
        # tensor's (one write more), as PyTorch's single counter would.
        version = self._version_counter.value + 1
        counter = other._sp_values._version_counter
        counter.value = max(counter.value, version)
        self._sp_indices = other._sp_indices
        self._sp_values = other._sp_values
        self._sp_coalesced = other._sp_coalesced
        self._storage = other._sp_values._storage
        self._dtype = other._sp_values._dtype
        self._version_counter = other._sp_values._version_counter
        return self

    def add_(self, other, *, alpha=1):
        """In-place sparse + sparse (indices and values are replaced by the sum, computed by
        ``_add_sparse``; the result is cast back to this tensor's dtype when allowed)."""
        if not isinstance(other, SparseCOOTensor):
            if isinstance(other, Tensor):
                raise TensorRuntimeError(
                    "add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
            raise _not_supported("add_.Scalar")
        result = _add_sparse(self, other, alpha)
        if result._dtype is not self._dtype:
            if not _dtypes.can_cast(result._dtype, self._dtype):
                raise TensorRuntimeError(
                    f"Can't convert result type {result._dtype._torch_name} to output "
                    f"{self._dtype._torch_name} in add operation")
            result = SparseCOOTensor._create(result._sp_indices,
                                             result._sp_values.to(self._dtype),
                                             result._shape, result._sp_coalesced)
        return self._become(result)

    def sub_(self, other, *, alpha=1):
        """In-place sparse - sparse."""
        return self.add_(other, alpha=-alpha) if isinstance(other, SparseCOOTensor) else \
            self.add_(other)

    def mul_(self, other):
        """In-place scaling of the values (clears the coalesced flag, as PyTorch does), or
        in-place element-wise product with a sparse tensor."""
        if isinstance(other, SparseCOOTensor):
            result = _mul_sparse(self, other)
            if result._dtype is not self._dtype:
                if not _dtypes.can_cast(result._dtype, self._dtype):
                    raise TensorRuntimeError(
                        f"Can't convert result type {result._dtype._torch_name} to output "
                        f"{self._dtype._torch_name}")
                result = result.to(self._dtype)
            if tuple(result._shape) != tuple(self._shape):
                raise TensorRuntimeError(
                    f"output with shape {list(self._shape)} doesn't match the broadcast shape "
                    f"{list(result._shape)}")
            return self._become(result)
        if isinstance(other, Tensor) and other.dim():
            result = _mul_sparse_dense(self, other)
            if tuple(result._shape) != tuple(self._shape):
                raise TensorRuntimeError(
                    f"output with shape {list(self._shape)} doesn't match the broadcast shape "
                    f"{list(result._shape)}")
            if result._dtype is not self._dtype:
                if not _dtypes.can_cast(result._dtype, self._dtype):
                    raise TensorRuntimeError(
                        f"Can't convert result type {result._dtype._torch_name} to output "
                        f"{self._dtype._torch_name}")
                result = result._with_values(result._sp_values.to(self._dtype))
            return self._become(result)
        self._sp_values.mul_(other)
        self._sp_coalesced = False
        return self

    def div_(self, other, *, rounding_mode=None):
        """In-place division of the values by a scalar."""
        if isinstance(other, Tensor) and (isinstance(other, SparseCOOTensor) or other.dim()):
            raise _not_supported("div_.Tensor")
        self._sp_values.div_(other, rounding_mode=rounding_mode)
        return self

    def zero_(self):
        """Remove every entry (nnz becomes 0; the tensor is then coalesced)."""
        J = _J()
        sd = self.sparse_dim()
        self._sp_indices = J.zeros((sd, 0), dtype=_dtypes.int64, device=self.device)
        values = J.zeros((0,) + tuple(self._sp_values._shape[1:]), dtype=self._dtype,
                         device=self.device)
        self._sp_values = values
        self._storage = values._storage
        self._version_counter = values._version_counter
        self._sp_coalesced = True
        return self

    def sum(self, dim=None, keepdim=False, dtype=None):
        """Sum of all elements (a dense 0-d tensor) or over ``dim`` (see ``sparse.sum``)."""
        if keepdim:
            raise TensorRuntimeError("sum on a sparse tensor does not support keepdim=True")
        from .sparse import sum as _sum

        return _sum(self, dim, dtype=dtype)

    def __len__(self):
        if not self._shape:
            raise TensorTypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __bool__(self):
        if self.numel() != 1:
            raise TensorRuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.to_dense().item())

    # ------------------------------------------------------------------ indexing
    def __getitem__(self, index):
        """Integers, ``None``, ``...`` and full ``:`` slices, as PyTorch: each integer is a
        ``select`` (sparse while sparse dims remain, dense once the last one is indexed),
        each ``None`` an ``unsqueeze``. Partial slices (a strided view), masks and index
        tensors are refused as PyTorch refuses them.

        >>> from jtensor._sparse import sparse_coo_tensor
        >>> s = sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3., 4., 5.], (2, 3))
        >>> s[1].to_dense(), s[1, 2]
        (tensor([4., 0., 5.]), tensor(5.))
        """
        if isinstance(index, slice):
            # A lone slice is always a narrow (a strided view), even ``s[:]``.
            raise _not_supported("as_strided")
        items = [_index_item(i) for i in (index if isinstance(index, tuple) else (index,))]
        ndim = self.dim()
        specified = sum(i is not None and i is not Ellipsis for i in items)
        if specified and ndim == 0:
            raise TensorIndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        if specified > ndim:
            raise TensorIndexError(f"too many indices for tensor of dimension {ndim}")
        # Intermediate sparse results are not given PyTorch's non-differentiable nodes:
        # only the final one is (a dense final result is differentiable, as in PyTorch).
        result, dim, real_dim, last = self, 0, 0, None   # real_dim: the dim of self
        for item in items:
            if item is Ellipsis:
                dim, real_dim = dim + ndim - specified, real_dim + ndim - specified
            elif item is None:
                if isinstance(result, SparseCOOTensor):
                    result, last = result._unsqueeze(dim, False), ("Unsqueeze", "as_strided")
                else:
                    result = result.unsqueeze(dim)
                dim += 1
            elif isinstance(item, slice):
                start, stop, step = (None if v is None else _int_arg(v, "slice index")
                                     for v in (item.start, item.stop, item.step))
                if step is not None and step <= 0:
                    raise TensorValueError("step must be greater than zero")
                # PyTorch skips a slice only when it is literally the whole dim (no
                # negative start or stop is resolved first); any other is a strided view.
                if start not in (None, 0) or step not in (None, 1) or \
                        (stop is not None and stop < result.shape[dim]):
                    raise _not_supported("as_strided")
                dim, real_dim = dim + 1, real_dim + 1
            else:
                size = result.shape[dim]
                if not -size <= item < size:
                    raise TensorIndexError(
                        f"index {item} is out of bounds for dimension {real_dim} with size "
                        f"{size}")
                real_dim += 1
                if isinstance(result, SparseCOOTensor):
                    result, last = result._select(dim, item, False), ("Select", "select_backward")
                else:
                    result = result.select(dim, item)
        if last is None:
            # PyTorch answers with an alias of the whole tensor, which needs its storage.
            raise TensorNotImplementedError(
                "Cannot access storage of SparseTensorImpl: indexing a sparse tensor with only "
                "':' and '...' would alias it; use the tensor itself (or .clone())")
        if isinstance(result, SparseCOOTensor):
            result._sp_values = _no_backward(last[0] + "Backward0", last[1], result._sp_values)
        return result

    def __setitem__(self, index, value):
        raise TensorTypeError(
            "Cannot assign to a sparse tensor (convert it with .to_dense(), assign, and "
            ".to_sparse() again)")

    def select(self, dim, index):
        """Slice at ``index`` along ``dim``. A sparse dim keeps the entries stored there
        (the result is dense once no sparse dim is left: duplicates summed); a dense dim
        selects inside the values. The coalesced flag is set only for nnz <= 1, as PyTorch.
        """
        return self._select(dim, index, True)

    def _select(self, dim, index, refuse):
        wrap = _no_backward if refuse else (lambda name, op, values: values)
        ndim = self.dim()
        if ndim == 0:
            raise TensorIndexError("select() cannot be applied to a 0-dim tensor.")
        d = _wrap(dim, ndim)
        size = self._shape[d]
        index = _int_arg(index, "index")
        if not -size <= index < size:
            raise TensorIndexError(
                f"select(): index {index} out of range for tensor of size {list(self._shape)} "
                f"at dimension {d}")
        index %= size
        J = _J()
        sd = self.sparse_dim()
        shape = self._shape[:d] + self._shape[d + 1:]
        if d >= sd:
            values = self._sp_values.select(d - sd + 1, index)
            return SparseCOOTensor._create(
                self._sp_indices, wrap("SelectBackward0", "select_backward", values),
                shape, self._nnz() <= 1)
        idx = _indices_np(self)
        keep = np.nonzero(idx[d] == index)[0]
        values = self._sp_values.index_select(0, J.tensor(keep, device=self.device))
        if sd == 1:
            # No sparse dim left: the dense slice, duplicates summed (in the tensor's dtype).
            dense = values.sum(0)
            if dense._dtype is not self._dtype:
                dense = dense.to(self._dtype)
            return _named("SelectBackward0", dense)
        rows = [r for r in range(sd) if r != d]
        indices = J.tensor(np.ascontiguousarray(idx[rows][:, keep]), device=self.device)
        return SparseCOOTensor._create(
            indices, wrap("SelectBackward0", "select_backward", values), shape,
            len(keep) <= 1)

    def narrow(self, dim, start, length):
        """Refused as PyTorch refuses it (a narrowed sparse tensor would be a strided
        view), after PyTorch's argument checks."""
        from ._ops.views import narrow_range

        narrow_range(self, dim, _int_arg(start, "start"), _int_arg(length, "length"))
        raise _not_supported("as_strided")

    def reshape(self, *shape):
        """Refused (RuntimeError), as PyTorch."""
        raise TensorRuntimeError(
            "reshape is not implemented for sparse tensors (convert with .to_dense() first)")

    def flatten(self, start_dim=0, end_dim=-1):
        """Refused (RuntimeError): PyTorch flattens by reshaping, which sparse tensors lack."""
        raise TensorRuntimeError(
            "reshape is not implemented for sparse tensors (flatten reshapes; convert with "
            ".to_dense() first)")

    def unsqueeze(self, dim):
        """A size-1 dim at ``dim``: a sparse dim (a row of zeros in the indices) when
        ``dim <= sparse_dim()``, else a dense dim of the values."""
        return self._unsqueeze(dim, True)

    def _unsqueeze(self, dim, refuse):
        J = _J()
        d = _wrap(dim, self.dim() + 1)
        sd = self.sparse_dim()
        shape = self._shape[:d] + (1,) + self._shape[d:]
        values = self._sp_values
        indices = self._sp_indices
        if d <= sd:
            indices = J.tensor(np.insert(_indices_np(self), d, 0, axis=0), device=self.device)
        else:
            values = values.unsqueeze(d - sd + 1)
        if refuse:
            values = _no_backward("UnsqueezeBackward0", "as_strided", values)
        return SparseCOOTensor._create(indices, values, shape, self._nnz() <= 1)

    def index_select(self, dim, index):
        """The slices at ``index`` along ``dim`` (repeats allowed; negative indices count
        from the end on sparse dims). Entries come out in PyTorch's order; the result is
        coalesced only when nnz <= 1.

        >>> from jtensor._sparse import sparse_coo_tensor
        >>> import jtensor as torch
        >>> s = sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3., 4., 5.], (2, 3))
        >>> s.index_select(0, torch.tensor([1, 1])).to_dense()
        tensor([[4., 0., 5.],
                [4., 0., 5.]])
        """
        ndim = self.dim()
        if ndim == 0:
            raise TensorIndexError("index_select() cannot be applied to a 0-dim tensor.")
        if not isinstance(index, Tensor):
            raise TensorTypeError(
                f"index_select(): argument 'index' (position 2) must be Tensor, not "
                f"{type(index).__name__}")
        if isinstance(index, SparseCOOTensor) or index.dim() != 1 \
                or index._dtype is not _dtypes.int64:
            raise TensorIndexError(
                "index_select() argument index must be 1-D strided (non-sparse) long-tensor.")
        d = _wrap(dim, ndim)
        J = _J()
        size, sd = self._shape[d], self.sparse_dim()
        shape = list(self._shape)
        shape[d] = index._shape[0]
        sel = np.asarray(Tensor._host_array(index), dtype=np.int64)
        if d >= sd:
            bad = sel[(sel < 0) | (sel >= size)]
            if bad.size:
                raise TensorRuntimeError(
                    f"index {int(bad[0])} is out of bounds for dimension {d - sd + 1} with "
                    f"size {size}")
            values = self._sp_values.index_select(d - sd + 1, index)
            return SparseCOOTensor._create(
                self._sp_indices, _no_backward("IndexSelectBackward0", "index_add_", values),
                shape, self._nnz() <= 1)
        bad = sel[(sel < -size) | (sel >= size)]
        if bad.size:
            raise TensorIndexError(
                f"index_select(): index contains {int(bad[0])} that is out of range for tensor "
                f"of size {list(self._shape)} at dimension {d}")
        sel = np.where(sel < 0, sel + size, sel)
        idx = _indices_np(self)
        src, out = _index_select_plan(idx[d], sel, size, self._sp_coalesced and d == 0)
        new_idx = idx[:, src]
        new_idx[d] = out
        values = self._sp_values.index_select(0, J.tensor(src, device=self.device))
        return SparseCOOTensor._create(
            J.tensor(new_idx, device=self.device),
            _no_backward("IndexSelectBackward0", "index_add_", values), shape, len(src) <= 1)

    def __reduce_ex__(self, protocol):
        return (_rebuild_sparse, (self._sp_indices, self._sp_values, self._shape,
                                  self._sp_coalesced))

    def __deepcopy__(self, memo):
        return self.clone()

    # ------------------------------------------------------------------ printing
    def __repr__(self):
        from . import _repr

        indent = len("tensor(")
        suffixes = ["size=" + str(tuple(self._shape)), "nnz=" + str(self._nnz())]
        default = _dtypes.get_default_dtype()
        if self._dtype not in (default, _dtypes.default_complex_dtype(), _dtypes.int64,
                               _dtypes.bool_):
            suffixes.append("dtype=" + str(self._dtype))
        if self.device.type != "cpu":
            suffixes.insert(0, "device='" + str(self.device) + "'")
        indices = self._sp_indices.detach()
        prefix = "indices=tensor("
        indices_str = _repr._tensor_str(indices, indent + len(prefix))
        if indices.numel() == 0:
            indices_str += ", size=" + str(tuple(indices._shape))
        values = self._sp_values.detach()
        vprefix = "values=tensor("
        values_str = _repr._tensor_str(values, indent + len(vprefix))
        if values.numel() == 0:
            values_str += ", size=" + str(tuple(values._shape))
        body = (prefix + indices_str + "),\n" + " " * indent + vprefix + values_str + ")")
        suffixes.append("layout=" + str(sparse_coo))
        grad_fn = self.grad_fn
        if grad_fn is not None:
            suffixes.append(f"grad_fn=<{_repr._grad_fn_name(grad_fn)}>")
        elif self.requires_grad:
            suffixes.append("requires_grad=True")
        return _repr._add_suffixes("tensor(" + body, suffixes, indent, force_newline=True)

    __str__ = __repr__

    def __format__(self, spec):
        return repr(self)


def _rebuild_sparse(indices, values, shape, coalesced):
    return SparseCOOTensor._create(indices, values, shape, coalesced)


def _wrap(dim, ndim):
    if not -max(ndim, 1) <= dim < max(ndim, 1):
        raise TensorIndexError(
            f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, "
            f"{max(ndim, 1) - 1}], but got {dim})")
    return dim % max(ndim, 1)


def _indices_np(s):
    """The indices as a host int64 NumPy array (sparse_dim, nnz)."""
    return np.asarray(Tensor._host_array(s._sp_indices), dtype=np.int64)


def _check_in_bounds(idx, sparse_shape):
    for d, size in enumerate(sparse_shape):
        row = idx[d]
        if row.size and (row.min() < 0 or row.max() >= size):
            bad = row[(row < 0) | (row >= size)][0]
            raise TensorRuntimeError(
                f"sparse tensor index {int(bad)} is out of bounds for dim {d} of size {size}: "
                "the tensor violates its invariants (build it with check_invariants=True "
                "to catch this at construction)")


def _linear_index(s):
    """Row-major linear position of each entry over the sparse dims (host int64 array)."""
    idx = _indices_np(s)
    sd = idx.shape[0]
    sparse_shape = s._shape[:sd]
    _check_in_bounds(idx, sparse_shape)
    if sd == 0:
        return np.zeros(idx.shape[1], dtype=np.int64)
    linear = np.zeros(idx.shape[1], dtype=np.int64)
    for d in range(sd):
        linear = linear * sparse_shape[d] + idx[d]
    return linear


def _unique_positions(s):
    """Lexicographic sort of the entries: (inverse, first, count).

    ``inverse[k]`` is the rank of entry k's position among the distinct positions,
    ``first[r]`` the index of one entry holding the r-th distinct position.
    """
    linear = _linear_index(s)
    uniq, first, inverse = np.unique(linear, return_index=True, return_inverse=True)
    return inverse.reshape(-1).astype(np.int64), first.astype(np.int64), len(uniq)



# ---------------------------------------------------------------------- indexing helpers
def _int_arg(value, name):
    try:
        return operator.index(value)
    except TypeError:
        raise TensorTypeError(
            f"{name} must be an integer, got {type(value).__name__} ({value!r})") from None


def _index_item(item):
    """One element of an index: an int, a slice, ``None`` or ``...``; raise what PyTorch
    raises for the rest on a sparse tensor (masks and index tensors are not supported)."""
    if item is None or item is Ellipsis or isinstance(item, slice):
        return item
    if isinstance(item, bool):
        raise _not_supported("fill_.Scalar" if item else "index.Tensor")
    if isinstance(item, Tensor):
        if isinstance(item, SparseCOOTensor) or item.dim() != 0 or item._dtype.category > 1:
            raise _not_supported("index.Tensor")
        if item._dtype is _dtypes.bool_:
            raise _not_supported("fill_.Scalar" if item.item() else "index.Tensor")
        return int(item.item())
    if isinstance(item, (list, tuple, np.ndarray)):
        raise _not_supported("index.Tensor")
    if isinstance(item, str):
        raise TensorTypeError(f"new(): invalid data type 'str' (got the index {item!r})")
    try:
        return operator.index(item)
    except TypeError:
        raise TensorIndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
            f"are valid indices (got {type(item).__name__})") from None


def _matches(queries, keys):
    """Every pair (q, k) with ``queries[q] == keys[k]``, ordered by q, then by k."""
    order = np.argsort(keys, kind="stable")
    ranked = keys[order]
    lo = np.searchsorted(ranked, queries, "left")
    counts = np.searchsorted(ranked, queries, "right") - lo
    q = np.repeat(np.arange(len(queries), dtype=np.int64), counts)
    starts = np.cumsum(counts) - counts
    k = order[np.repeat(lo - starts, counts) + np.arange(int(counts.sum()), dtype=np.int64)]
    return q, k.astype(np.int64)


def _index_select_plan(dim_indices, index, size, sorted_dim0):
    """(entry taken, output position) for each result entry of a sparse index_select, in
    PyTorch's order. Its kernel loops over the index then the entries, or the other way
    round, by a size heuristic (for large inputs PyTorch also weighs its thread count;
    this follows the single-thread choice)."""
    nnz, n = len(dim_indices), len(index)
    limit = 1 << 15
    if nnz <= limit and n <= limit and nnz * n <= limit:
        by_index = nnz >= n   # the brute-force double loop: entries in the inner loop
    elif nnz <= size:
        by_index = nnz <= n or (sorted_dim0 and n * np.log2(max(nnz, 1))
                                <= (nnz + n) * np.log2(max(n, 1)))
    else:
        by_index = False      # counting: one pass over the entries
    if by_index:
        out, src = _matches(index, dim_indices)
    else:
        src, out = _matches(dim_indices, index)
    return src, out


_NO_BACKWARD = {}


def _no_backward(node_name, aten_op, tensor):
    """``tensor`` through an identity node named ``node_name`` whose backward raises
    PyTorch's NotImplementedError: PyTorch records these sparse ops but its backward needs
    ``aten_op`` on a sparse gradient, which it does not have."""
    if not tensor._requires_grad:
        return tensor
    fn = _NO_BACKWARD.get(node_name)
    if fn is None:
        from .autograd import function as _function

        def backward(ctx, grad):
            raise TensorNotImplementedError(
                f"Could not run 'aten::{aten_op}' with arguments from the 'SparseCPU' backend: "
                f"PyTorch records {node_name.removesuffix('Backward0')} on a sparse tensor but "
                "cannot differentiate it. Differentiate through .to_dense() and dense ops "
                "instead.")

        fn = type(node_name.removesuffix("Backward0"), (_function.Function,), {
            "forward": staticmethod(lambda ctx, x: x), "backward": staticmethod(backward)})
        _function._NODE_CLASSES[fn] = type(node_name, (_function.BackwardCFunction,),
                                           {"_function": fn})
        _NO_BACKWARD[node_name] = fn
    return fn.apply(tensor)


# ---------------------------------------------------------------------- sparse * sparse
# PyTorch accumulates the products of duplicate matches in this type, then rounds once.
_ACC = {_dtypes.float32: _dtypes.float64, _dtypes.float16: _dtypes.float32,
        _dtypes.bfloat16: _dtypes.float32, _dtypes.complex64: _dtypes.complex128}


def _mul_sparse(a, b):
    """Element-wise product of two sparse tensors, with PyTorch's result layout.

    Both coalesced (same shape): the common positions only, coalesced. Otherwise PyTorch's
    intersection kernel: the result keeps every entry of one operand (the "source": the
    uncoalesced one, or the one with fewer entries) and multiplies it by the sum of the
    other's entries at that position (0 where it has none); the coalesced flag is the
    source's. Differentiable w.r.t. both operands' values.
    """
    if a.dim() == 0 or b.dim() == 0:
        scalar, other = (a, b) if a.dim() == 0 else (b, a)
        return other._with_values(_named("MulBackward0", other._sp_values * scalar.to_dense()))
    sd = a.sparse_dim()
    if tuple(a._shape) != tuple(b._shape) or sd != b.sparse_dim():
        if a.dim() != b.dim() or sd != b.sparse_dim() or a._shape[:sd] != b._shape[:sd]:
            raise TensorRuntimeError(
                "sparse_binary_op_intersection_cpu(): expects sparse inputs with equal "
                "dimensionality, number of sparse dimensions, and shape of sparse dimensions "
                f"(got sizes {list(a._shape)} with {sd} sparse dims and {list(b._shape)} with "
                f"{b.sparse_dim()})")
        from ._layout import broadcast_shapes

        shape = a._shape[:sd] + tuple(broadcast_shapes(a._shape[sd:], b._shape[sd:]))
        return _intersect_mul(a, b, shape)
    if a._nnz() == 0 or b._nnz() == 0:
        values = a._sp_values.narrow(0, 0, 0) * b._sp_values.narrow(0, 0, 0)
        return SparseCOOTensor._create(a._sp_indices.narrow(1, 0, 0).clone(),
                                       _named("MulBackward0", values), a._shape, True)
    if not (a._sp_coalesced and b._sp_coalesced):
        return _intersect_mul(a, b, a._shape)
    J = _J()
    _, ia, ib = np.intersect1d(_linear_index(a), _linear_index(b), assume_unique=True,
                               return_indices=True)
    ia, ib = J.tensor(ia, device=a.device), J.tensor(ib, device=a.device)
    values = a._sp_values.index_select(0, ia) * b._sp_values.index_select(0, ib)
    return SparseCOOTensor._create(a._sp_indices.index_select(1, ia),
                                   _named("MulBackward0", values), a._shape, True)


def _mul_sparse_dense(s, d):
    """``sparse * dense`` (either order), as PyTorch: when the dense operand broadcasts to
    the sparse tensor's shape, each stored entry is multiplied by the dense element(s) at its
    position (same indices, nnz and coalesced flag; explicit zeros stay stored); when
    broadcasting enlarges the shape, the dense product is converted back to sparse
    (coalesced, zeros dropped)."""
    from ._layout import broadcast_shapes

    J = _J()
    shape = tuple(broadcast_shapes(tuple(s._shape), tuple(d._shape)))
    if shape != tuple(s._shape):
        # The stored positions repeat over the broadcast dims (explicit zeros included):
        # the result is coalesced, with every dim sparse.
        product = s.to_dense() * d
        marks = s._with_values(J.ones(s._sp_values._shape, dtype=_dtypes.bool_,
                                      device=s.device)).to_dense().expand(shape)
        indices = marks.nonzero().t()
        values = product[tuple(indices.unbind(0))]
        return SparseCOOTensor._create(indices.contiguous(), _named("MulBackward0", values),
                                       shape, True)
    sd = s.sparse_dim()
    dense = d.expand(shape)
    if s._nnz() == 0:
        gathered = J.zeros((0,) + shape[sd:], dtype=d._dtype, device=d.device)
    else:
        _linear_index(s)  # bounds check before indexing the dense operand
        gathered = dense[tuple(s._sp_indices.unbind(0))]
    return SparseCOOTensor._create(s._sp_indices, _named("MulBackward0", s._sp_values * gathered),
                                   s._shape, s._sp_coalesced)


def _intersect_mul(x, y, shape):
    J = _J()
    if x._sp_coalesced != y._sp_coalesced:
        searched, source = (x, y) if x._sp_coalesced else (y, x)
    else:
        searched, source = (x, y) if x._nnz() >= y._nnz() else (y, x)
        cells = int(np.prod(searched._shape[:searched.sparse_dim()]))
        if cells and searched._nnz() // cells > 50:
            searched = searched.coalesce()  # PyTorch coalesces a heavily duplicated operand
    src, found = _matches(_linear_index(source), _linear_index(searched))
    dtype = _dtypes.promote_types(x._dtype, y._dtype)
    dev = source.device
    sv = source._sp_values.to(dtype).index_select(0, J.tensor(src, device=dev))
    pv = searched._sp_values.to(dtype).index_select(0, J.tensor(found, device=dev))
    dense_shape = tuple(shape[source.sparse_dim():])
    slots = J.tensor(src, device=dev)
    if dtype is _dtypes.bool_:
        acc = J.zeros((source._nnz(),) + dense_shape, dtype=_dtypes.int64, device=dev)
        values = acc.index_add(0, slots, (sv & pv).long()) != 0
    else:
        acc_dtype = _ACC.get(dtype, _dtypes.int64 if dtype.category < 2 else dtype)
        acc = J.zeros((source._nnz(),) + dense_shape, dtype=acc_dtype, device=dev)
        values = acc.index_add(0, slots, sv.to(acc_dtype) * pv.to(acc_dtype)).to(dtype)
    return SparseCOOTensor._create(source._sp_indices.clone(), _named("MulBackward0", values),
                                   shape, source._sp_coalesced)


# ---------------------------------------------------------------------- sparse + sparse
def _add_sparse(a, b, alpha, alpha_sign=1):
    J = _J()
    if tuple(a._shape) != tuple(b._shape):
        raise TensorRuntimeError(
            f"add: expected sizes of 'self' and 'other' to match, but {list(a._shape)} != "
            f"{list(b._shape)}")
    if a.sparse_dim() != b.sparse_dim():
        raise TensorRuntimeError(
            f"add: expected 'self' and 'other' to have same sparse dimensions, but got "
            f"{a.sparse_dim()} and {b.sparse_dim()}")
    if a.dense_dim() != b.dense_dim():
        raise TensorRuntimeError(
            f"add: expected 'self' and 'other' to have same dense dimensions, but got "
            f"{a.dense_dim()} and {b.dense_dim()}")
    dtype = _dtypes.promote_types(a._dtype, b._dtype)
    av = a._sp_values if a._dtype is dtype else a._sp_values.to(dtype)
    bv = b._sp_values if b._dtype is dtype else b._sp_values.to(dtype)
    if alpha != 1:
        bv = bv * alpha
    if b._nnz() == 0:  # PyTorch: a copy of ``a`` (checked before ``a``'s emptiness)
        return SparseCOOTensor._create(a._sp_indices.clone(), av.clone() if av is a._sp_values
                                       else av, a._shape, a._sp_coalesced)
    if a._nnz() == 0:  # ``alpha * b`` on a copy of ``b``'s indices
        return SparseCOOTensor._create(b._sp_indices.clone(), bv.clone() if bv is b._sp_values
                                       else bv, a._shape, b._sp_coalesced)
    name = "AddBackward0" if alpha_sign >= 0 else "SubBackward0"
    if not (a._sp_values.is_contiguous() and b._sp_values.is_contiguous()):
        # PyTorch's kernel for non-contiguous values (an expanded gradient, a transposed
        # hybrid): concatenate both operands (uncoalesced), then coalesce once the entries
        # outnumber the elements, which bounds the growth of repeated accumulation.
        result = SparseCOOTensor._create(J.cat([a._sp_indices, b._sp_indices], 1),
                                         _named(name, J.cat([av, bv], 0)), a._shape, False)
        if result._nnz() > result.numel():
            merged = result.coalesce()
            result = SparseCOOTensor._create(merged._sp_indices, merged._sp_values, a._shape,
                                             False)
        return result
    ai, bi = _indices_np(a), _indices_np(b)
    # PyTorch's merge: walk both index lists, emit the lexicographically smaller entry
    # (self first on ties are summed into one). Done exactly, even for unsorted inputs.
    src_a, src_b = _merge_plan(ai, bi, a._shape[:a.sparse_dim()])
    n_out = max(src_a.max(initial=-1), src_b.max(initial=-1)) + 1
    out_idx = np.empty((ai.shape[0], n_out), dtype=np.int64)
    a_pos = np.nonzero(src_a >= 0)[0]
    b_pos = np.nonzero(src_b >= 0)[0]
    out_idx[:, src_b[b_pos]] = bi[:, b_pos]
    out_idx[:, src_a[a_pos]] = ai[:, a_pos]
    dense_shape = tuple(av._shape[1:])
    dev = a.device
    values = J.zeros((n_out,) + dense_shape, dtype=dtype, device=dev)
    if dtype is _dtypes.bool_:
        values = (values.long().index_add(0, J.tensor(src_a, device=dev), av.long())
                  .index_add(0, J.tensor(src_b, device=dev), bv.long())) != 0
    else:
        values = values.index_add(0, J.tensor(src_a, device=dev), av)
        values = values.index_add(0, J.tensor(src_b, device=dev), bv)
    values = _named(name, values)
    return SparseCOOTensor._create(J.tensor(out_idx, device=dev), values, a._shape,
                                   a._sp_coalesced and b._sp_coalesced)


def _merge_keys(ai, bi, sparse_shape):
    """Keys ordering entries lexicographically: linear positions when every index is in
    bounds (integers), tuples otherwise."""
    inside = all(
        (not row.size or (row.min() >= 0 and row.max() < size))
        for idx in (ai, bi) for row, size in zip(idx, sparse_shape, strict=True))
    if inside:
        ka = np.zeros(ai.shape[1], dtype=np.int64)
        kb = np.zeros(bi.shape[1], dtype=np.int64)
        for d, size in enumerate(sparse_shape):
            ka = ka * size + ai[d]
            kb = kb * size + bi[d]
        return ka, kb
    return None, None


def _merge_plan(ai, bi, sparse_shape=None):
    """Output slot of each entry of a and of b under PyTorch's two-pointer merge."""
    na, nb = ai.shape[1], bi.shape[1]
    ka = kb = None
    if sparse_shape is not None:
        ka, kb = _merge_keys(ai, bi, sparse_shape)
    if ka is not None:
        if (np.diff(ka) > 0).all() and (np.diff(kb) > 0).all():
            # Both strictly sorted (the usual coalesced case): a vectorised union.
            union = np.concatenate([ka, kb])
            union.sort(kind="stable")  # two sorted runs: a linear merge
            union = union[np.concatenate(([True], union[1:] != union[:-1]))]
            return np.searchsorted(union, ka), np.searchsorted(union, kb)
        ka, kb = ka.tolist(), kb.tolist()
    else:
        ka = [tuple(col) for col in ai.T.tolist()]
        kb = [tuple(col) for col in bi.T.tolist()]
    # The general case (unsorted or duplicated inputs): PyTorch's walk, step by step.
    src_a = np.empty(na, dtype=np.int64)
    src_b = np.empty(nb, dtype=np.int64)
    i = j = r = 0
    while i < na and j < nb:
        x, y = ka[i], kb[j]
        if x < y:
            src_a[i] = r
            i += 1
        elif x > y:
            src_b[j] = r
            j += 1
        else:
            src_a[i] = r
            src_b[j] = r
            i += 1
            j += 1
        r += 1
    if i < na:
        src_a[i:] = np.arange(r, r + na - i)
        r += na - i
    if j < nb:
        src_b[j:] = np.arange(r, r + nb - j)
    return src_a, src_b


def _check_dense_sparse_sizes(dense, sparse):
    if tuple(dense._shape) != tuple(sparse._shape):
        raise TensorRuntimeError(
            f"add: expected 'self' and 'other' to have same size, but self has size "
            f"{list(dense._shape)} while other has size {list(sparse._shape)} (FYI: "
            "dense-sparse addition does not currently support broadcasting)")


def _scatter_plan(dense, sparse):
    """(rows, linear, values): the dense tensor's shape flattened over the sparse dims and
    each stored entry's row there (a host int64 array turned into a tensor)."""
    J = _J()
    sd = sparse.sparse_dim()
    n = 1
    for size in dense._shape[:sd]:
        n *= size
    rows = (n,) + tuple(dense._shape[sd:])
    return rows, J.tensor(_linear_index(sparse), device=dense.device)


def add_dense_sparse(dense, sparse, alpha=1):
    """``dense + alpha * sparse`` -> a new dense tensor, as PyTorch's kernel: a copy of
    ``dense`` (in the promoted dtype) to which the stored entries are added one after the
    other (duplicates are not summed first). No broadcasting, as in PyTorch."""
    _check_dense_sparse_sizes(dense, sparse)
    dtype = _dtypes.promote_types(dense._dtype, sparse._dtype)
    base = dense if dense._dtype is dtype else dense.to(dtype)
    if sparse._nnz() == 0:
        return _named("AddBackward0", base.clone(memory_format=_contiguous_format()))
    values = sparse._sp_values if sparse._dtype is dtype else sparse._sp_values.to(dtype)
    rows, linear = _scatter_plan(dense, sparse)
    if dtype is _dtypes.bool_:  # index_add has no bool kernel: add as integers, then test
        flat = base.reshape(rows).long().index_add(0, linear, values.long(), alpha=alpha) != 0
    else:
        flat = base.reshape(rows).index_add(0, linear, values, alpha=alpha)
    return _named("AddBackward0", flat.view(dense._shape))


def _contiguous_format():
    from ._tensor import contiguous_format

    return contiguous_format


def add_dense_sparse_(dense, sparse, alpha=1, op="add"):
    """In place ``dense += alpha * sparse`` (PyTorch's ``add_``/``sub_`` with a sparse
    ``other``): the stored entries are added one after the other, ``dense`` keeps its
    strides and its version counter is bumped once."""
    from ._dispatch import grad_mode

    _check_dense_sparse_sizes(dense, sparse)
    dtype = _dtypes.promote_types(dense._dtype, sparse._dtype)
    if dtype is not dense._dtype and not _dtypes.can_cast(dtype, dense._dtype):
        raise TensorRuntimeError(
            f"Can't convert result type {dtype._torch_name} to output "
            f"{dense._dtype._torch_name} in {op} operation")
    if grad_mode.enabled and dense._requires_grad and dense.is_leaf:
        raise TensorRuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation.")
    if sparse._nnz() == 0:
        dense._version_counter.value += 1  # PyTorch counts the (empty) write all the same
        return dense
    values = sparse._sp_values
    if values._dtype is not dense._dtype:
        values = values.to(dense._dtype)
    rows, linear = _scatter_plan(dense, sparse)
    if dense._dtype is _dtypes.bool_:
        flat = dense.reshape(rows).long().index_add(0, linear, values.long(), alpha=alpha)
        dense.copy_((flat != 0).view(dense._shape))
    elif dense.is_contiguous():
        dense.view(rows).index_add_(0, linear, values, alpha=alpha)
    else:
        dense.copy_(dense.reshape(rows).index_add(0, linear, values, alpha=alpha)
                    .view(dense._shape))
    return dense


def sparse_add(t, src, alpha=1):
    """``t + alpha * src`` when either operand is sparse COO, by PyTorch's rules: sparse +
    sparse (``_add_sparse``), dense + sparse (a new dense tensor), sparse + dense refused.
    The one implementation behind ``s + t``, ``torch.add``, autograd's gradient sums and the
    optimizers."""
    if t.__class__ is SparseCOOTensor:
        if src.__class__ is SparseCOOTensor:
            return _add_sparse(t, src, alpha)
        raise TensorRuntimeError(
            "add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    return add_dense_sparse(t, src, alpha)


def sparse_add_(t, src, alpha=1):
    """In place ``t += alpha * src`` (``t`` keeps its identity): sparse += sparse replaces
    ``t``'s indices and values by the sum; dense += sparse adds in place."""
    if t.__class__ is SparseCOOTensor:
        return t.add_(src, alpha=alpha)
    return add_dense_sparse_(t, src, alpha)


# ---------------------------------------------------------------------- construction
def sparse_coo_tensor(indices=None, values=None, size=None, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None,
                      is_coalesced=None):
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
            raise TensorTypeError(
                "sparse_coo_tensor() expects (indices, values[, size]) or a size")
        result = sparse_coo_empty(shape, dtype=dtype, device=device)
        return result.requires_grad_(True) if requires_grad else result
    idx = _as_tensor(indices, device=device)
    if idx._dtype is not _dtypes.int64:  # PyTorch converts other index dtypes to int64
        idx = idx.to(_dtypes.int64)
    vals = _as_tensor(values, dtype=dtype, device=device if device is not None else idx.device)
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
            f"{idx._shape[1] if idx.dim() >= 2 else nnz}, nnz from values: 1")
    dense_dim = vals.dim() - 1
    if size is not None:
        size = tuple(int(s) for s in (size if not isinstance(size, int) else (size,)))
        if len(size) != sparse_dim + dense_dim:
            raise TensorRuntimeError(
                f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = "
                f"{len(size)}, sparse_dim = {sparse_dim}, dense_dim = {dense_dim}")
    if idx.dim() != 2:
        raise TensorRuntimeError(
            f"indices must be sparse_dim x nnz, but got: {list(idx._shape)}")
    if vals._shape[0] != nnz:
        raise TensorRuntimeError(
            f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz "
            f"from values: {vals._shape[0]}")
    idx_np = np.asarray(Tensor._host_array(idx), dtype=np.int64)
    if size is None:
        for d in range(sparse_dim):
            if nnz and idx_np[d].min() < 0:
                raise TensorRuntimeError(
                    f"found negative index {int(idx_np[d].min())} for dim {d}")
        sparse_size = tuple(int(idx_np[d].max()) + 1 if nnz else 0 for d in range(sparse_dim))
        size = sparse_size + tuple(vals._shape[1:])
    else:
        if tuple(vals._shape[1:]) != size[sparse_dim:]:
            raise TensorRuntimeError(
                f"values has incorrect size, expected {[nnz] + list(size[sparse_dim:])}, got "
                f"{list(vals._shape)}")
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
                        f"but found index {high}")
    if any(s < 0 for s in size):
        raise TensorRuntimeError(f"Trying to create tensor with negative dimension: {list(size)}")
    coalesced = bool(is_coalesced) if is_coalesced is not None else nnz <= 1
    if requires_grad:
        if vals._dtype.category < _dtypes.FLOATING:
            raise TensorRuntimeError(
                f"Only Tensors of floating point and complex dtype can require gradients "
                f"(the values are {vals._dtype._torch_name}; pass float values)")
        vals = vals.detach().requires_grad_(True)
    elif vals.requires_grad:
        # Built from values with history: a non-leaf, as PyTorch's
        # SparseCooTensorWithDimsAndTensorsBackward0 (gradients pass through to values).
        vals = _named("SparseCooTensorWithDimsAndTensorsBackward0", vals)
    return SparseCOOTensor._create(idx, vals, size, coalesced)


_NAMED = {}


def _named(node_name, tensor):
    """``tensor`` passed through an identity ``autograd.Function`` whose backward node is
    called ``node_name`` (PyTorch's name for the sparse op), when autograd records it.

    The sparse ops are written with dense ops on the values, so their own nodes would carry
    the dense ops' names; this puts PyTorch's name on top (gradients pass unchanged).
    """
    if not tensor._requires_grad:
        return tensor
    fn = _NAMED.get(node_name)
    if fn is None:
        from .autograd import function as _function

        fn = type(node_name.removesuffix("Backward0"), (_function.Function,), {
                      "forward": staticmethod(lambda ctx, x: x),
                      "backward": staticmethod(lambda ctx, grad: grad)})
        _function._NODE_CLASSES[fn] = type(node_name, (_function.BackwardCFunction,),
                                           {"_function": fn})
        _NAMED[node_name] = fn
    return fn.apply(tensor)


def sparse_coo_empty(size, dtype=None, device=None, sparse_dim=None):
    """An empty (nnz = 0) sparse tensor of ``size`` (all dims sparse unless told)."""
    J = _J()
    size = (size,) if isinstance(size, int) else tuple(int(s) for s in size)
    sd = len(size) if sparse_dim is None else sparse_dim
    idx = J.zeros((sd, 0), dtype=_dtypes.int64, device=device)
    vals = J.zeros((0,) + size[sd:], dtype=dtype, device=device)
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
    J = _J()
    ndim = self.dim()
    if sparse_dim is None:
        sparse_dim = ndim
    if not 0 <= sparse_dim <= ndim:
        raise TensorRuntimeError(
            f"dense_to_sparse: sparse_dim argument must be in [0,{ndim}] range, but "
            f"{sparse_dim} is given")
    if sparse_dim == 0 and ndim > 0:
        raise TensorRuntimeError(
            "dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
    dev = self.device
    if ndim == 0:
        idx = J.zeros((0, 1), dtype=_dtypes.int64, device=dev)
        return SparseCOOTensor._create(idx, _named("ToSparseBackward1", self.reshape(1)), (),
                                       True)
    arr = np.asarray(Tensor._host_array(self.detach()))
    mask = arr != 0
    if sparse_dim < ndim:
        mask = mask.reshape(arr.shape[:sparse_dim] + (-1,)).any(axis=-1)
    nz = np.nonzero(mask)
    idx_np = np.stack(nz).astype(np.int64) if nz else np.zeros((0, 0), np.int64)
    idx = J.tensor(idx_np.reshape(sparse_dim, -1), dtype=_dtypes.int64, device=dev)
    values = self[tuple(J.tensor(row, dtype=_dtypes.int64, device=dev) for row in idx_np)]
    return SparseCOOTensor._create(idx, _named("ToSparseBackward1", values),
                                   tuple(self._shape), True)


@tensor_method("to_dense")
def to_dense(self, dtype=None, *, masked_grad=None):
    """A dense tensor is its own dense form (returned unchanged, as PyTorch)."""
    if dtype is not None and dtype is not self._dtype:
        return self.to(dtype)
    return self


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
            "mask must be a sparse COO tensor (convert it with .to_sparse())")
    if tuple(self._shape) != tuple(mask._shape):
        raise TensorRuntimeError(
            f"sparse_mask(): operands have incompatible sizes; self has size "
            f"{list(self._shape)} but mask has size {list(mask._shape)}")
    J = _J()
    idx = mask._sp_indices
    _linear_index(mask)  # bounds check
    if mask._nnz() == 0:
        values = J.zeros((0,) + tuple(self._shape[mask.sparse_dim():]), dtype=self._dtype,
                         device=self.device)
    else:
        values = self[tuple(idx.unbind(0))]
    return SparseCOOTensor._create(idx, _named("SparseMaskBackward0", values), self._shape,
                                   mask._sp_coalesced)


def _dense_refusal(name, message):
    def refuse(self, *args, **kwargs):
        if message is None:
            raise TensorNotImplementedError(
                f"Could not run 'aten::{name}' with arguments from the 'CPU' backend: "
                f"{name}() is only defined for sparse tensors (this one is strided)")
        raise TensorRuntimeError(message + " (convert with .to_sparse() first)")

    refuse.__name__ = name
    refuse.__doc__ = "Sparse-only: a dense tensor raises, as in PyTorch."
    return refuse


for _name, _message in (
        ("is_coalesced", "is_coalesced expected sparse coordinate tensor layout but got Strided"),
        ("coalesce", "coalesce expected sparse coordinate tensor layout but got Strided"),
        ("indices", "indices expected sparse coordinate tensor layout but got Strided"),
        ("values", "values expected sparse tensor layout but got Strided"),
        ("_nnz", None), ("_indices", None), ("_values", None)):
    if not hasattr(Tensor, _name):  # never replace a core definition
        tensor_method(_name)(_dense_refusal(_name, _message))


@tensor_method("sparse_dim")
def sparse_dim(self):
    """0 for a dense (strided) tensor."""
    return 0


@tensor_method("dense_dim")
def dense_dim(self):
    """``dim()`` for a dense (strided) tensor."""
    return self.dim()


def _refuser(name):
    def refuse(self, *args, **kwargs):
        raise _not_supported(name)

    refuse.__name__ = name
    refuse.__doc__ = f"``{name}`` is not supported on sparse COO tensors (as in PyTorch)."
    return refuse


def _refuse_dense_views():
    """View ops only rewrite metadata over ``_storage``: on a sparse tensor they would read
    the values' bytes as if they were dense, so refuse them as PyTorch does.

    (Needs the ops registered first: ``_require_ops`` makes sure of it before this runs.)
    """
    from ._registry import OPS

    for name, op in OPS.items():
        if op.kind != "view" or not op.method:
            continue
        attr = op.method if isinstance(op.method, str) else name
        if attr not in SparseCOOTensor.__dict__:
            setattr(SparseCOOTensor, attr, _refuser(name))
    for attr in ("contiguous", "as_strided_", "resize_", "set_", "swapaxes", "swapdims",
                 "moveaxis", "expand_as", "type_as", "mv", "bmm"):
        if attr not in SparseCOOTensor.__dict__ and hasattr(Tensor, attr):
            setattr(SparseCOOTensor, attr, _refuser(attr))


def _require_ops():
    """The refusals and routes below patch the registered ops: make sure they all are,
    whatever imported this module first."""
    import sys

    # Registers every op if nobody has yet (``_ops`` never imports this module).
    from . import _ops

    spec = getattr(sys.modules.get(_ops.__name__), "__spec__", None)
    if getattr(spec, "_initializing", False):
        raise ImportError(
            "jtensor._sparse was imported while jtensor._ops was still registering ops (from "
            "one of its modules): sparse tensors would accept dense view ops. Import "
            "jtensor._sparse lazily (inside a function) in that module.")


_require_ops()
_refuse_dense_views()


def _route_functions():
    """Make the function forms (``torch.select(s, ...)``, ``torch.index_select``,
    ``torch.mul``, every view op) take a sparse tensor to its own method: the dense
    implementations would read the values' bytes as if they were the dense tensor."""

    def routed(name, dense):
        attr = "mul" if name == "multiply" else name
        commutes = attr == "mul"

        def fn(input=None, *args, **kwargs):
            if input.__class__ is SparseCOOTensor:
                method = SparseCOOTensor.__dict__.get(attr)
                if method is None:
                    raise _not_supported(name)
                return method(input, *args, **kwargs)
            if commutes and args and args[0].__class__ is SparseCOOTensor:
                return args[0].mul(input)  # dense * sparse: refused by the sparse side
            if input is None:  # every argument given by a keyword other than ``input``
                return dense(*args, **kwargs)
            return dense(input, *args, **kwargs)

        fn.__name__ = fn.__qualname__ = getattr(dense, "__name__", name)
        fn.__doc__ = dense.__doc__
        fn.__wrapped__ = dense
        if hasattr(dense, "op"):
            fn.op = dense.op
        return fn

    names = [n for n, op in OPS.items() if op.kind == "view" and op.function]
    for name in names + ["index_select", "mul", "multiply"]:
        if name in FUNCTIONS:
            FUNCTIONS[name] = routed(name, FUNCTIONS[name])


_route_functions()


dense_ops = {}  # the dense forms of the Tensor methods routed below


def _dense_sparse_call(name, input, other, alpha=1, out=None):
    """``add``/``sub`` (in place or not, with ``out=``) of a dense ``input`` and a sparse
    ``other``: PyTorch's dense-sparse kernels."""
    sub = name.startswith(("sub", "__isub"))
    if sub and (input._dtype is _dtypes.bool_ or other._dtype is _dtypes.bool_):
        raise TensorRuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
            "`^` or `logical_xor()` operator instead.")
    if name in ("mul_", "__imul__"):
        # dense *= sparse stays dense: the product with the summed (coalesced) entries
        return dense_ops[name](input, other.to_dense(), *((alpha,) if alpha != 1 else ()))
    signed = -alpha if sub else alpha
    if name.startswith("__i") or (name.endswith("_") and not name.startswith("__")):
        return add_dense_sparse_(input, other, signed, op="sub" if sub else "add")
    result = add_dense_sparse(input, other, signed)
    if out is None:
        return result
    if result._dtype is not out._dtype and not _dtypes.can_cast(result._dtype, out._dtype):
        raise TensorRuntimeError(
            f"Can't convert result type {result._dtype._torch_name} to output "
            f"{out._dtype._torch_name} in {'sub' if sub else 'add'} operation")
    if tuple(out._shape) != tuple(result._shape):
        out.resize_(result._shape)
    return out.copy_(result)


def _route_dense_sparse():
    """``dense.add_(sparse)``, ``torch.add(dense, sparse, out=...)``, ``dense -= sparse``, ...
    go to the dense-sparse kernels; everything else to the dense op unchanged (one class
    test added in front of it)."""
    import sys

    def routed(name, dense):
        def fn(*args, **kwargs):
            if len(args) == 2:
                input, other = args
            else:
                input, other = operands(args, kwargs)
            if other.__class__ is SparseCOOTensor and input.__class__ is not SparseCOOTensor:
                args, kwargs = bind_operands(args, kwargs)
                return _dense_sparse_call(name, *args, **kwargs)
            return dense(*args, **kwargs)

        fn.__name__ = fn.__qualname__ = getattr(dense, "__name__", name)
        fn.__doc__ = dense.__doc__
        fn.__wrapped__ = dense
        fn._routes_sparse = True
        if hasattr(dense, "op"):
            fn.op = dense.op
        return fn

    for name in ("add", "sub", "subtract", "add_", "sub_", "subtract_", "__iadd__",
                 "__isub__", "mul_", "__imul__"):
        dense = Tensor.__dict__.get(name)
        if dense is not None and not getattr(dense, "_routes_sparse", False):
            dense_ops[name] = dense
            setattr(Tensor, name, routed(name, dense))
    package = sys.modules.get(__package__)
    for name in ("add", "sub", "subtract"):
        dense = FUNCTIONS.get(name)
        if dense is not None and not getattr(dense, "_routes_sparse", False):
            FUNCTIONS[name] = routed(name, dense)
            if package is not None and getattr(package, name, None) is dense:
                setattr(package, name, FUNCTIONS[name])  # exported before this ran


_route_dense_sparse()
