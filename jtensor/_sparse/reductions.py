"""``torch.sparse.sum``: sums of a sparse COO tensor over everything or over dims
(``SparseSumBackward0``), re-exported by ``jtensor.sparse``."""

from .. import _dtypes
from .._errors import TensorRuntimeError
from .._ops.creation import tensor as _tensor
from .autograd_nodes import _named
from .indices import _wrap
from .tensor import SparseCOOTensor


def sum(input, dim=None, dtype=None):
    """Sum of a sparse tensor: over everything (a dense 0-d tensor), or over ``dim``
    (an int or a list): a sparse result while sparse dims remain, dense otherwise.

    >>> import jtensor as torch
    >>> import jtensor.sparse
    >>> s = torch.tensor([[0., 2.], [3., 0.]]).to_sparse()
    >>> torch.sparse.sum(s), torch.sparse.sum(s, 0)
    (tensor(5.), tensor(indices=tensor([[0, 1]]),
           values=tensor([3., 2.]),
           size=(2,), nnz=2, layout=torch.sparse_coo))
    """
    if not isinstance(input, SparseCOOTensor):
        raise TensorRuntimeError(
            "coalesce expected sparse coordinate tensor layout but got Strided "
            "(torch.sparse.sum takes a sparse tensor; use Tensor.sum for dense ones)"
        )
    values = input._sp_values
    if dtype is not None:
        values = values.to(dtype)
    elif input._dtype.category < 2:  # bool/integers sum in int64, as dense sum does
        values = values.to(_dtypes.int64)
    if dim is None:
        return values.sum()
    ndim = input.dim()
    dims = [dim] if isinstance(dim, int) else list(dim)
    wrapped = [_wrap(d, ndim) for d in dims]
    seen = set()
    for d in wrapped:
        if d in seen:
            raise TensorRuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    if not wrapped:
        return input.coalesce()
    sd = input.sparse_dim()
    sparse_sum = sorted(d for d in wrapped if d < sd)
    dense_sum = sorted(d - sd + 1 for d in wrapped if d >= sd)  # dims of values
    if dense_sum:
        values = values.sum(dense_sum)
    keep = [d for d in range(sd) if d not in sparse_sum]
    dense_keep = [s for d, s in enumerate(input._shape[sd:]) if d + sd not in wrapped]
    if not keep:
        # Every sparse dim summed: the result is dense.
        return _named("SparseSumBackward0", values.sum(0))
    dev = input.device
    sub_idx = input._sp_indices.index_select(0, _tensor(keep, device=dev))
    shape = tuple(input._shape[d] for d in keep) + tuple(dense_keep)
    result = SparseCOOTensor._create(sub_idx, values, shape, False).coalesce()
    result._sp_values = _named("SparseSumBackward0", result._sp_values)
    return result
