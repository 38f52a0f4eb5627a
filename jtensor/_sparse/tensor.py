"""``SparseCOOTensor``: the Tensor subclass holding indices and values, and its methods
(metadata, autograd through the values, conversions, coalesce, shape ops, products,
arithmetic, in-place ops, indexing, pickling, repr).

The arithmetic kernels (``kernels.py``) build ``SparseCOOTensor``s, so the methods import
them on call."""

import operator

import numpy as np

from .. import _dtypes
from .._device import device as _device
from .._errors import (
    TensorIndexError,
    TensorNotImplementedError,
    TensorRuntimeError,
    TensorTypeError,
    TensorValueError,
    type_name,
)
from .._ops.creation import tensor as _tensor, zeros as _zeros
from .._tensor import Tensor, sparse_coo
from .._torch_function import _disabled_torch_function_impl
from .autograd_nodes import _named, _no_backward
from .common import _not_supported
from .indices import (
    _index_select_plan,
    _indices_np,
    _int_arg,
    _linear_index,
    _unique_positions,
    _wrap,
)


class SparseCOOTensor(Tensor):
    """A sparse tensor in COO format (``layout=torch.sparse_coo``). Build it with
    ``sparse_coo_tensor(indices, values, size)`` or ``dense.to_sparse()``."""

    # Not dispatched to ``__torch_function__`` (its results are plain tensors).
    __torch_function__ = _disabled_torch_function_impl

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
        return SparseCOOTensor._create(
            self._sp_indices,
            values,
            self._shape,
            self._sp_coalesced if coalesced is None else coalesced,
        )

    # ------------------------------------------------------------------ dense access is refused
    def _array(self):
        raise TensorNotImplementedError(
            "Could not run this operation with arguments from the 'SparseCPU' backend: it "
            "reads dense (strided) data and this tensor is sparse COO. Convert with "
            ".to_dense() first, or use the sparse forms (torch.sparse.mm, dense + sparse)."
        )

    _host_array = _array

    def numpy(self, *, force=False):
        """Refused (TypeError), as PyTorch: convert with ``to_dense()`` first."""
        raise TensorTypeError(
            "can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first."
        )

    def __array__(self, dtype=None, copy=None):
        return self.numpy()

    def _set_metadata(self, shape, stride, offset):
        raise _not_supported("set_")

    def type_as(self, other):
        """Refused: PyTorch cannot convert a sparse tensor to ``other``'s strided layout."""
        raise _not_supported("type_as")

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
            "own; use ._indices() and ._values() (or .to_dense())"
        )

    storage = untyped_storage

    def data_ptr(self):
        """Refused (RuntimeError): a sparse tensor has no storage to point into."""
        raise TensorRuntimeError(
            "Cannot access data pointer of Tensor that doesn't have storage (this tensor is "
            "sparse COO: use ._values().data_ptr() or ._indices().data_ptr())"
        )

    @property
    def nbytes(self):
        """Refused (RuntimeError), as PyTorch."""
        raise TensorRuntimeError(
            "nbytes is not defined for sparse tensors.  If you want the size of the constituent "
            "tensors, add the nbytes of the indices and values.  If you want the size of the  "
            "equivalent dense tensor, multiply numel() by element_size()"
        )

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
                "Cannot get indices on an uncoalesced tensor, please call .coalesce() first"
            )
        return self._sp_indices

    def values(self):
        """The values of a coalesced tensor (RuntimeError when uncoalesced, as PyTorch)."""
        if not self._sp_coalesced:
            raise TensorRuntimeError(
                "Cannot get values on an uncoalesced tensor, please call .coalesce() first"
            )
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
        """A leaf's gradient. What reaches it through the values (the sparse ops) is a
        sparse tensor with one entry per distinct stored position (PyTorch's
        ``sparse_mask``); the dense products (``torch.mm``, ``addmm``, ``matmul``) give the
        leaf itself a dense gradient, as PyTorch's; both together add up to a dense one."""
        full = self._grad
        g = self._sp_values.grad
        if g is None:
            return full
        # Every stored duplicate of one position received the same gradient (the dense
        # gradient there): keep one per distinct position, as PyTorch's sparse_mask does.
        _, first, _ = _unique_positions(self)
        idx = _tensor(np.asarray(first, dtype=np.int64), device=g.device)
        values = g.detach().index_select(0, idx)
        indices = self._sp_indices.index_select(1, idx)
        # Sorted and unique, but PyTorch leaves the flag unset on gradients: so do we.
        masked = SparseCOOTensor._create(indices, values, self._shape, False)
        return masked if full is None else full + masked

    @grad.setter
    def grad(self, value):
        if value is None:
            self._sp_values.grad = None
            self._grad = None
            return
        raise TensorRuntimeError("assigning .grad of a sparse tensor is not supported")

    def detach(self):
        """A sparse tensor sharing indices and values, cut from the graph."""
        return self._with_values(self._sp_values.detach())

    def clone(self, *, memory_format=None):
        """A copy of indices and values (the coalesced flag is kept)."""
        return SparseCOOTensor._create(
            self._sp_indices.clone(), self._sp_values.clone(), self._shape, self._sp_coalesced
        )

    # ------------------------------------------------------------------ conversions
    def to(self, *args, **kwargs):
        """Cast the values' dtype and/or move to a device (``to(dtype)``, ``to(device)``)."""
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("copy", None)
        if kwargs:
            raise TensorTypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, _dtypes.dtype):
                dtype = a
            elif isinstance(a, (str, _device)):
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
        if device is not None and _device(device) != values.device:
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

    def item(self):
        """The single element of a one-element sparse tensor, as PyTorch reads it: the sum
        of its stored values (duplicates of an uncoalesced one add up; bools sum to an int),
        and the int 0 when nothing is stored."""
        if self.numel() != 1:
            raise TensorRuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        if self._nnz() == 0:
            return 0
        return self._values().sum().item()

    def to_dense(self, dtype=None, *, masked_grad=None):
        """The dense tensor: duplicate entries are summed (differentiable w.r.t. values)."""
        if dtype is not None:
            raise TensorRuntimeError("dtype argument is not supported by sparse_to_dense")
        sd = self.sparse_dim()
        sparse_shape = self._shape[:sd]
        dense_shape = self._shape[sd:]
        values = self._sp_values
        n = 1
        for s in sparse_shape:
            n *= s
        if self._nnz() == 0:
            return _zeros(self._shape, dtype=self._dtype, device=self.device)
        linear = _tensor(_linear_index(self), device=self.device)
        if self._dtype is _dtypes.bool_:
            flat = _zeros((n,) + dense_shape, dtype=self._dtype, device=self.device)
            # index_add has no bool kernel: an accumulating index_put ORs the entries in
            flat.index_put_((linear,), values, accumulate=True)
        else:
            # One allocation of the result, filled in place (an out-of-place index_add
            # would allocate the dense size a second time).
            flat = _zeros((n,) + dense_shape, dtype=self._dtype, device=self.device)
            flat.index_add_(0, linear, values)
        return _named("ToDenseBackward0", flat.view(self._shape))

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        """A sparse tensor is returned unchanged (``sparse_dim`` must equal its own)."""
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise TensorRuntimeError(
                "to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                "!=self.sparse_dim() is not supported"
            )
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
        nnz = self._nnz()
        if nnz <= 1:
            return SparseCOOTensor._create(self._sp_indices, self._sp_values, self._shape, True)
        inverse, first, count = _unique_positions(self)
        indices = self._sp_indices.index_select(
            1, _tensor(np.asarray(first, dtype=np.int64), device=self.device)
        )
        inv = _tensor(inverse, device=self.device)
        values = self._sp_values
        dense_shape = tuple(values._shape[1:])
        if self._dtype is _dtypes.bool_:
            acc = _zeros((count,) + dense_shape, dtype=_dtypes.int64, device=self.device)
            new_values = acc.index_add_(0, inv, values.long()) != 0
        else:
            # Summed in place into the one new values tensor (no second full-size copy).
            new_values = _zeros((count,) + dense_shape, dtype=self._dtype, device=self.device)
            new_values.index_add_(0, inv, values)
        return SparseCOOTensor._create(
            indices, _named("CoalesceBackward0", new_values), self._shape, True
        )

    # ------------------------------------------------------------------ shape ops
    def t(self):
        """Transpose of a 2-D sparse tensor (swaps the index rows; result is uncoalesced)."""
        sd, dd = self.sparse_dim(), self.dense_dim()
        if sd > 2 or dd != 0:
            raise TensorRuntimeError(
                f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                f"{sd} sparse and {dd} dense dimensions"
            )
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
        ndim = len(self._shape)
        d0, d1 = _wrap(dim0, ndim), _wrap(dim1, ndim)
        sd = self.sparse_dim()
        if d0 == d1:
            return self._with_values(self._sp_values)
        if d0 >= sd or d1 >= sd:
            raise TensorRuntimeError(
                "sparse transpose: transposed dimensions must be sparse Got sparse_dim: "
                f"{sd}, d0: {d0}, d1: {d1}"
            )
        order = list(range(sd))
        order[d0], order[d1] = order[d1], order[d0]
        indices = self._sp_indices.index_select(0, _tensor(order, device=self.device))
        shape = list(self._shape)
        shape[d0], shape[d1] = shape[d1], shape[d0]
        return SparseCOOTensor._create(
            indices, _named("TransposeBackward0", self._sp_values), tuple(shape), False
        )

    # ------------------------------------------------------------------ products
    # The methods and operators of the matrix products: the same implementation as the
    # functions' (``matmul.py``, where the ops' entries send a sparse operand).
    def mm(self, mat2):
        """``torch.mm(self, mat2)``: a dense result with a dense ``mat2``, sparse with a
        sparse one (see ``jtensor._sparse.matmul``)."""
        from .matmul import _mm

        return _mm(self, mat2)

    def matmul(self, other):
        """``torch.matmul(self, other)`` (see ``jtensor._sparse.matmul``)."""
        from .matmul import _matmul

        return _matmul(self, other)

    def __matmul__(self, other):
        if not isinstance(other, Tensor):
            return NotImplemented
        return self.matmul(other)

    def __rmatmul__(self, other):
        from .matmul import _matmul

        if not isinstance(other, Tensor):
            return NotImplemented
        return _matmul(other, self)

    # ------------------------------------------------------------------ arithmetic
    def add(self, other, *, alpha=1):
        """sparse + sparse (merged, PyTorch's order) or sparse + dense (refused, as PyTorch:
        write dense + sparse)."""
        from .kernels import _add_sparse

        if isinstance(other, SparseCOOTensor):
            return _add_sparse(self, other, alpha)
        if isinstance(other, Tensor):
            raise TensorRuntimeError(
                "add(sparse, dense) is not supported. Use add(dense, sparse) instead."
            )
        raise _not_supported("add.Scalar")

    __add__ = add

    def __radd__(self, other):
        from .kernels import add_dense_sparse

        if isinstance(other, Tensor) and not isinstance(other, SparseCOOTensor):
            return add_dense_sparse(other, self)
        return NotImplemented

    def sub(self, other, *, alpha=1):
        """sparse - sparse."""
        from .kernels import _add_sparse

        if isinstance(other, SparseCOOTensor):
            return _add_sparse(self, other, -alpha, -1)
        if isinstance(other, Tensor):
            raise TensorRuntimeError(
                "sub(sparse, dense) is not supported. Use sub(dense, sparse) instead."
            )
        raise _not_supported("sub.Scalar")

    __sub__ = sub

    def __rsub__(self, other):
        from .kernels import add_dense_sparse

        if isinstance(other, Tensor) and not isinstance(other, SparseCOOTensor):
            return add_dense_sparse(other, self, alpha=-1)
        return NotImplemented

    def mul(self, other):
        """Multiply by a scalar (or a 0-d dense tensor): scales the values; by a sparse
        tensor: element-wise, as PyTorch (see ``_mul_sparse``)."""
        from .kernels import _mul_sparse, _mul_sparse_dense

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
        from .kernels import _add_sparse

        if not isinstance(other, SparseCOOTensor):
            if isinstance(other, Tensor):
                raise TensorRuntimeError(
                    "add(sparse, dense) is not supported. Use add(dense, sparse) instead."
                )
            raise _not_supported("add_.Scalar")
        result = _add_sparse(self, other, alpha)
        if result._dtype is not self._dtype:
            if not _dtypes.can_cast(result._dtype, self._dtype):
                raise TensorRuntimeError(
                    f"Can't convert result type {result._dtype._torch_name} to output "
                    f"{self._dtype._torch_name} in add operation"
                )
            result = SparseCOOTensor._create(
                result._sp_indices,
                result._sp_values.to(self._dtype),
                result._shape,
                result._sp_coalesced,
            )
        return self._become(result)

    def sub_(self, other, *, alpha=1):
        """In-place sparse - sparse."""
        return (
            self.add_(other, alpha=-alpha)
            if isinstance(other, SparseCOOTensor)
            else self.add_(other)
        )

    def mul_(self, other):
        """In-place scaling of the values (clears the coalesced flag, as PyTorch does), or
        in-place element-wise product with a sparse tensor."""
        from .kernels import _mul_sparse, _mul_sparse_dense

        if isinstance(other, SparseCOOTensor):
            result = _mul_sparse(self, other)
            if result._dtype is not self._dtype:
                if not _dtypes.can_cast(result._dtype, self._dtype):
                    raise TensorRuntimeError(
                        f"Can't convert result type {result._dtype._torch_name} to output "
                        f"{self._dtype._torch_name}"
                    )
                result = result.to(self._dtype)
            if tuple(result._shape) != tuple(self._shape):
                raise TensorRuntimeError(
                    f"output with shape {list(self._shape)} doesn't match the broadcast shape "
                    f"{list(result._shape)}"
                )
            return self._become(result)
        if isinstance(other, Tensor) and other.dim():
            result = _mul_sparse_dense(self, other)
            if tuple(result._shape) != tuple(self._shape):
                raise TensorRuntimeError(
                    f"output with shape {list(self._shape)} doesn't match the broadcast shape "
                    f"{list(result._shape)}"
                )
            if result._dtype is not self._dtype:
                if not _dtypes.can_cast(result._dtype, self._dtype):
                    raise TensorRuntimeError(
                        f"Can't convert result type {result._dtype._torch_name} to output "
                        f"{self._dtype._torch_name}"
                    )
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
        sd = self.sparse_dim()
        self._sp_indices = _zeros((sd, 0), dtype=_dtypes.int64, device=self.device)
        values = _zeros(
            (0,) + tuple(self._sp_values._shape[1:]), dtype=self._dtype, device=self.device
        )
        self._sp_values = values
        self._storage = values._storage
        self._version_counter = values._version_counter
        self._sp_coalesced = True
        return self

    def sum(self, dim=None, keepdim=False, dtype=None):
        """Sum of all elements (a dense 0-d tensor) or over ``dim`` (see ``sparse.sum``)."""
        if keepdim:
            raise TensorRuntimeError("sum on a sparse tensor does not support keepdim=True")
        from .reductions import sum as _sum

        return _sum(self, dim, dtype=dtype)

    def __len__(self):
        if not self._shape:
            raise TensorTypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __bool__(self):
        if self.numel() != 1:
            raise TensorRuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
            )
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
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
        if specified > ndim:
            raise TensorIndexError(f"too many indices for tensor of dimension {ndim}")
        # Intermediate sparse results are not given PyTorch's non-differentiable nodes:
        # only the final one is (a dense final result is differentiable, as in PyTorch).
        result, dim, real_dim, last = self, 0, 0, None  # real_dim: the dim of self
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
                start, stop, step = (
                    None if v is None else _int_arg(v, "slice index")
                    for v in (item.start, item.stop, item.step)
                )
                if step is not None and step <= 0:
                    raise TensorValueError("step must be greater than zero")
                # PyTorch skips a slice only when it is literally the whole dim (no
                # negative start or stop is resolved first); any other is a strided view.
                if (
                    start not in (None, 0)
                    or step not in (None, 1)
                    or (stop is not None and stop < result.shape[dim])
                ):
                    raise _not_supported("as_strided")
                dim, real_dim = dim + 1, real_dim + 1
            else:
                size = result.shape[dim]
                if not -size <= item < size:
                    raise TensorIndexError(
                        f"index {item} is out of bounds for dimension {real_dim} with size {size}"
                    )
                real_dim += 1
                if isinstance(result, SparseCOOTensor):
                    result, last = result._select(dim, item, False), ("Select", "select_backward")
                else:
                    result = result.select(dim, item)
        if last is None:
            # PyTorch answers with an alias of the whole tensor, which needs its storage.
            raise TensorNotImplementedError(
                "Cannot access storage of SparseTensorImpl: indexing a sparse tensor with only "
                "':' and '...' would alias it; use the tensor itself (or .clone())"
            )
        if isinstance(result, SparseCOOTensor):
            result._sp_values = _no_backward(last[0] + "Backward0", last[1], result._sp_values)
        return result

    def __setitem__(self, index, value):
        raise TensorTypeError(
            "Cannot assign to a sparse tensor (convert it with .to_dense(), assign, and "
            ".to_sparse() again)"
        )

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
                f"at dimension {d}"
            )
        index %= size
        sd = self.sparse_dim()
        shape = self._shape[:d] + self._shape[d + 1 :]
        if d >= sd:
            values = self._sp_values.select(d - sd + 1, index)
            return SparseCOOTensor._create(
                self._sp_indices,
                wrap("SelectBackward0", "select_backward", values),
                shape,
                self._nnz() <= 1,
            )
        idx = _indices_np(self)
        keep = np.nonzero(idx[d] == index)[0]
        values = self._sp_values.index_select(0, _tensor(keep, device=self.device))
        if sd == 1:
            # No sparse dim left: the dense slice, duplicates summed (in the tensor's dtype).
            dense = values.sum(0)
            if dense._dtype is not self._dtype:
                dense = dense.to(self._dtype)
            return _named("SelectBackward0", dense)
        rows = [r for r in range(sd) if r != d]
        indices = _tensor(np.ascontiguousarray(idx[rows][:, keep]), device=self.device)
        return SparseCOOTensor._create(
            indices, wrap("SelectBackward0", "select_backward", values), shape, len(keep) <= 1
        )

    def narrow(self, dim, start, length):
        """Refused as PyTorch refuses it (a narrowed sparse tensor would be a strided
        view), after PyTorch's argument checks."""
        from .._ops.views import narrow_range

        narrow_range(self, dim, _int_arg(start, "start"), _int_arg(length, "length"))
        raise _not_supported("as_strided")

    def reshape(self, *shape):
        """Refused (RuntimeError), as PyTorch."""
        raise TensorRuntimeError(
            "reshape is not implemented for sparse tensors (convert with .to_dense() first)"
        )

    def flatten(self, start_dim=0, end_dim=-1):
        """Refused (RuntimeError): PyTorch flattens by reshaping, which sparse tensors lack."""
        raise TensorRuntimeError(
            "reshape is not implemented for sparse tensors (flatten reshapes; convert with "
            ".to_dense() first)"
        )

    def unsqueeze(self, dim):
        """A size-1 dim at ``dim``: a sparse dim (a row of zeros in the indices) when
        ``dim <= sparse_dim()``, else a dense dim of the values."""
        return self._unsqueeze(dim, True)

    def _unsqueeze(self, dim, refuse):
        d = _wrap(dim, self.dim() + 1)
        sd = self.sparse_dim()
        shape = self._shape[:d] + (1,) + self._shape[d:]
        values = self._sp_values
        indices = self._sp_indices
        if d <= sd:
            indices = _tensor(np.insert(_indices_np(self), d, 0, axis=0), device=self.device)
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
                f"{type_name(index)}"
            )
        if (
            isinstance(index, SparseCOOTensor)
            or index.dim() != 1
            or index._dtype is not _dtypes.int64
        ):
            raise TensorIndexError(
                "index_select() argument index must be 1-D strided (non-sparse) long-tensor."
            )
        d = _wrap(dim, ndim)
        size, sd = self._shape[d], self.sparse_dim()
        shape = list(self._shape)
        shape[d] = index._shape[0]
        sel = np.asarray(Tensor._host_array(index), dtype=np.int64)
        if d >= sd:
            bad = sel[(sel < 0) | (sel >= size)]
            if bad.size:
                raise TensorRuntimeError(
                    f"index {int(bad[0])} is out of bounds for dimension {d - sd + 1} with "
                    f"size {size}"
                )
            values = self._sp_values.index_select(d - sd + 1, index)
            return SparseCOOTensor._create(
                self._sp_indices,
                _no_backward("IndexSelectBackward0", "index_add_", values),
                shape,
                self._nnz() <= 1,
            )
        bad = sel[(sel < -size) | (sel >= size)]
        if bad.size:
            raise TensorIndexError(
                f"index_select(): index contains {int(bad[0])} that is out of range for tensor "
                f"of size {list(self._shape)} at dimension {d}"
            )
        sel = np.where(sel < 0, sel + size, sel)
        idx = _indices_np(self)
        src, out = _index_select_plan(idx[d], sel, size, self._sp_coalesced and d == 0)
        new_idx = idx[:, src]
        new_idx[d] = out
        values = self._sp_values.index_select(0, _tensor(src, device=self.device))
        return SparseCOOTensor._create(
            _tensor(new_idx, device=self.device),
            _no_backward("IndexSelectBackward0", "index_add_", values),
            shape,
            len(src) <= 1,
        )

    def __reduce_ex__(self, protocol):
        return (
            _rebuild_sparse,
            (self._sp_indices, self._sp_values, self._shape, self._sp_coalesced),
        )

    def __deepcopy__(self, memo):
        return self.clone()

    # ------------------------------------------------------------------ printing
    def __repr__(self):
        from .. import _repr

        indent = len("tensor(")
        suffixes = ["size=" + str(tuple(self._shape)), "nnz=" + str(self._nnz())]
        default = _dtypes.get_default_dtype()
        if self._dtype not in (
            default,
            _dtypes.default_complex_dtype(),
            _dtypes.int64,
            _dtypes.bool_,
        ):
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
        body = prefix + indices_str + "),\n" + " " * indent + vprefix + values_str + ")"
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


# Pickles name it where it always lived (the package re-exports it): files written before and
# after the split load alike.
_rebuild_sparse.__module__ = "jtensor._sparse"


# ---------------------------------------------------------------------- indexing helpers
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
            f"are valid indices (got {type_name(item)})"
        ) from None
