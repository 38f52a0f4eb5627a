"""``embedding`` (``jtensor.nn.functional``): rows of a weight matrix picked by index.

A custom ``autograd.Function`` (node ``EmbeddingBackward0``, as PyTorch) so that the rows
at ``padding_idx`` get no gradient and ``scale_grad_by_freq`` divides each row's gradient by
its index's count in the batch. The backward is written with public ops (differentiable
again), except for its common call (issue 18): a plain CPU float32/float64 gradient with
nothing recording, transforming or listening is computed on the arrays (``_dense_grad``):
the general path's numbers bit for bit (each row sums its lookups' gradients in lookup order,
as PyTorch's CPU kernel does), in one NumPy ``add.at`` instead of five public ops.

With ``sparse=True`` the weight's gradient is a sparse COO tensor built as PyTorch's
``embedding_sparse_backward`` builds it: one entry per looked-up index, in lookup order,
duplicates kept (uncoalesced), the ``padding_idx`` lookups dropped, the values a view of the
incoming gradient reshaped to ``(n, embedding_dim)`` where possible (whether they are
contiguous decides how later accumulations combine, as in PyTorch).
"""

import numpy as np

from ... import _dtypes
from ..._arraymod import sum_rows_into_zeros
from ..._device import CPU_BACKEND, index_out_of_range
from ..._dispatch import grad_mode
from ..._errors import TensorIndexError, TensorRuntimeError
from ..._layout import _contiguous_strides
from ..._tensor import ARRAY_FLOATS, DENSE_CLASSES, Tensor, fresh_tensor
from ...autograd import graph as _graph
from ...autograd.function import Function, _node_class
from ._op import nn_op
from .normalization import _listened as listened

__all__ = ["embedding"]

# Whether the weight's gradient (and ``embedding_bag``'s forward and backward) may be
# computed on the arrays; the tests switch it off to get the general path's results.
ARRAY_PATHS = True

_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def plain_backward():
    """Whether a backward may compute on the arrays: no ``create_graph`` (the general path's
    public ops are then recorded), no anomaly mode, no transform, hook or profiler that would
    see the public ops."""
    return (ARRAY_PATHS and not grad_mode.enabled and not _graph.anomaly.enabled
            and not listened())


def plain_cpu(t):
    """Whether ``t`` is a plain strided CPU tensor (``_array()`` is its elements)."""
    return t.__class__ in DENSE_CLASSES and t._storage._backend is CPU_BACKEND


# ``np.arange(rows * width).reshape(rows, width)`` per table shape: the flat positions of a
# row's elements are one row of it, so ``take`` gives the positions of many rows at once
# (several times faster than broadcasting ``rows * width + arange(width)``). Tables up to
# ``_BASE_LIMIT`` elements only (2 MiB each), a few shapes at a time.
_BASES = {}
_BASE_LIMIT = 1 << 18


def flat_positions(rows, width, nrows):
    """The positions in a C-contiguous ``(nrows, width)`` array, flattened, of the elements
    of ``rows`` (a 1-d array of row numbers in ``[0, nrows)``), row after row."""
    if nrows * width <= _BASE_LIMIT:
        key = (nrows, width)
        base = _BASES.get(key)
        if base is None:
            if len(_BASES) >= 8:
                _BASES.clear()
            base = _BASES[key] = np.arange(nrows * width, dtype=np.intp).reshape(nrows, width)
        return base.take(rows, axis=0).reshape(-1)
    return (rows.astype(np.intp)[:, None] * width + np.arange(width, dtype=np.intp)).reshape(-1)


def add_rows(target, rows, values):
    """``target[rows[k]] += values[k]`` for every ``k`` in order (``target``: a C-contiguous
    2-d array; ``values``: ``(len(rows), width)``): NumPy's unbuffered ``add.at`` over one
    flat position per element, so each element of ``target`` takes its values in the order of
    ``rows``, the order of ``index_add``'s and of PyTorch's CPU embedding backward."""
    if rows.size:
        np.add.at(target.reshape(-1), flat_positions(rows, target.shape[1], target.shape[0]),
                  values.reshape(-1))


def _dense_grad(g, flat, num, padding_idx, scale_grad_by_freq):
    """The general path's dense weight gradient on the arrays: ``g`` (``(*, dim)``) the
    incoming gradient, ``flat`` the lookups (1-d, in range). The lookups of ``padding_idx``
    are dropped (the general path adds zeros there: the same sums), ``scale_grad_by_freq``
    divides by each index's count as the general path does (a float division in the
    gradient's dtype), then each row sums in lookup order."""
    dim = g.shape[-1]
    g = g.reshape(-1, dim)
    counts = None
    if scale_grad_by_freq:
        counts = np.bincount(flat, minlength=num)
    if padding_idx >= 0:
        keep = flat != padding_idx
        if not keep.all():
            flat = flat[keep]
            g = g[keep]
    if counts is not None:
        g = g / counts.astype(g.dtype)[flat][:, None]
    gw = np.zeros((num, dim), dtype=g.dtype)
    if not sum_rows_into_zeros(gw, flat, g):
        add_rows(gw, flat, g)
    return gw


def _no_grad():
    from ...autograd.grad_mode import no_grad

    return no_grad()


class _Embedding(Function):
    _edge_positions = (0,)   # the weight: PyTorch's node has no edge for the indices

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq, sparse=False):
        shape = (*indices._shape, weight._shape[1])
        ctx.save_for_backward(indices)
        ctx.num_weights = weight._shape[0]
        ctx.padding_idx = padding_idx
        ctx.scale_grad_by_freq = scale_grad_by_freq
        ctx.sparse = sparse
        storage = weight._storage
        if storage._backend is CPU_BACKEND and indices._storage._backend is CPU_BACKEND:
            # The rows on the arrays (the caller checked the bounds): index_select's numbers,
            # a fresh C-contiguous array, the result's own storage.
            rows = np.take(weight._array(), indices._array().reshape(-1), axis=0)
            return fresh_tensor(Tensor, rows.reshape(shape), shape, weight._dtype,
                                storage.device, CPU_BACKEND)
        out = weight.index_select(0, indices.reshape(-1))
        # The lookup's own fresh storage, in the indices' shape: a tensor, not a view of
        # ``out``, as PyTorch's (a view made in this no-grad forward could not be written in
        # place later: ``x = emb(idx); x += pos``).
        return Tensor._make(out._storage, shape, _contiguous_strides(shape), out._offset,
                            out._dtype)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        if not ctx.needs_input_grad[0]:
            return None, None, None, None, None
        if ctx.sparse:
            return _sparse_weight_grad(grad, indices, ctx.num_weights, ctx.padding_idx,
                                       ctx.scale_grad_by_freq), None, None, None, None
        if grad._dtype in ARRAY_FLOATS and plain_cpu(grad) and plain_cpu(indices) \
                and indices.numel() < 1 << 24 and plain_backward():
            # (counts past 2**24 would not be exact in the general path's float32 counts)
            gw = _dense_grad(grad._array(), indices._array().reshape(-1), ctx.num_weights,
                             ctx.padding_idx, ctx.scale_grad_by_freq)
            storage = grad._storage
            return fresh_tensor(Tensor, gw, gw.shape, grad._dtype, storage.device,
                                CPU_BACKEND), None, None, None, None
        dim = grad.shape[-1]
        flat = indices.reshape(-1)
        g = grad.reshape(-1, dim)
        if ctx.padding_idx >= 0:
            g = g.masked_fill((flat == ctx.padding_idx).unsqueeze(1), 0)
        if ctx.scale_grad_by_freq:
            counts = g.new_zeros(ctx.num_weights).index_add_(
                0, flat, g.new_ones(flat.shape[0]))
            g = g / counts.index_select(0, flat).unsqueeze(1)
        # in place on the fresh zeros: no copy of the (num_embeddings, dim) table
        gw = g.new_zeros(ctx.num_weights, dim).index_add_(0, flat, g)
        return gw, None, None, None, None


def _sparse_weight_grad(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """The weight's gradient as an uncoalesced sparse COO tensor (PyTorch's
    ``embedding_sparse_backward``): indices ``(1, n)`` in lookup order, values ``(n, dim)``."""
    from ..._sparse import SparseCOOTensor, _named

    if scale_grad_by_freq:
        raise TensorRuntimeError(
            "embedding_backward: scale_grad_by_freq not supported with sparse gradients")
    dim = grad.shape[-1]
    if padding_idx >= 0:
        # Lookups of the padding row contribute nothing: drop them (a boolean selection
        # copies, so the values are contiguous here).
        keep = indices != padding_idx
        indices = indices[keep]
        grad = grad[keep]
    if grad.numel() == 0:
        index = indices.new_empty((1, 0), dtype=_dtypes.int64)
        values = grad.new_empty((0, dim))
    else:
        index = indices.reshape(1, -1)
        if index.dtype is not _dtypes.int64:
            index = index.to(_dtypes.int64)
        values = grad.reshape(-1, dim)
    if values.requires_grad:  # create_graph: PyTorch's node for building the sparse tensor
        values = _named("SparseCooTensorWithDimsAndTensorsBackward0", values)
    nnz = values.shape[0]
    return SparseCOOTensor._create(index, values, (num_weights, dim), nnz <= 1)


_node_class(_Embedding).__name__ = "EmbeddingBackward0"


def _embedding_renorm_(weight, indices, max_norm, norm_type):
    with _no_grad():
        rows = indices.reshape(-1).unique()
        selected = weight.index_select(0, rows)
        norms = selected.norm(norm_type, 1)
        over = norms > max_norm
        if bool(over.any()):
            scale = (max_norm / (norms + 1e-7)).where(over, norms.new_ones(()))
            weight.index_copy_(0, rows, selected * scale.unsqueeze(1))
    return weight



def _renormed(args, kwargs):
    """The weight, when ``max_norm`` renormalises its rows in place first."""
    max_norm = args[3] if len(args) > 3 else kwargs.get("max_norm")
    if max_norm is None:
        return None
    return args[1] if len(args) > 1 else kwargs.get("weight")


@nn_op(inplace=_renormed)
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """``weight[input]``: an ``(*)`` integer tensor of indices gives ``(*, embedding_dim)``.

    ``padding_idx``: that row receives no gradient. ``max_norm``: the rows looked up are
    first renormalised in place to norm at most ``max_norm`` (``norm_type``-norm).
    ``scale_grad_by_freq``: gradients divided by each index's frequency in ``input``.
    ``sparse=True``: ``weight``'s gradient is a sparse COO tensor (one uncoalesced entry per
    lookup, padding lookups dropped; ``scale_grad_by_freq`` is then refused at backward, as
    PyTorch refuses it). Optimizers that take sparse gradients: ``SGD``, ``Adagrad``,
    ``SparseAdam``.

    >>> import jtensor as torch
    >>> w = torch.arange(6.).view(3, 2)
    >>> torch.nn.functional.embedding(torch.tensor([2, 0]), w).tolist()
    [[4.0, 5.0], [0.0, 1.0]]
    """
    ndim = len(weight._shape) if weight.__class__ in DENSE_CLASSES else weight.dim()
    if ndim != 2:
        raise TensorRuntimeError(f"'weight' must be 2-D, got a {weight.dim()}-D tensor")
    num = weight._shape[0]
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < num, "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -num, "Padding_idx must be within num_embeddings"
            padding_idx = num + padding_idx
    else:
        padding_idx = -1
    if input._dtype is not _dtypes.int64 and input._dtype is not _dtypes.int32:
        dtype = str(input.dtype)
        name = {"torch.float32": "FloatTensor", "torch.float64": "DoubleTensor",
                "torch.float16": "HalfTensor", "torch.int16": "ShortTensor",
                "torch.int8": "CharTensor", "torch.uint8": "ByteTensor",
                "torch.bool": "BoolTensor"}.get(dtype, dtype)
        raise TensorRuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{name} instead (while checking arguments for "
            "embedding)")
    # On an asynchronous device the bounds are checked by the gather kernel (a device-side
    # assert reported at the next sync), not here: reading min/max would wait for the device.
    backend = weight._storage._backend
    if input.numel() and not backend.deferred:
        indices = input._array()   # (the bounds on the arrays: no op calls, no events)
        if backend is CPU_BACKEND and indices.__class__ is np.ndarray:
            # One reduction: read as unsigned, a negative index is one >= 2**63 (2**31).
            top = int(indices.view(_UNSIGNED[indices.dtype.itemsize]).max())
            lo, hi = (0, 0) if top < num else (int(indices.min()), int(indices.max()))
        else:
            lo, hi = int(indices.min()), int(indices.max())
        if lo < 0 or hi >= num:
            bad = lo if lo < 0 else hi
            # raised here on the CPU; on a GPU a device-side assert at the next sync
            index_out_of_range(weight._storage._backend, "embedding", TensorIndexError(
                f"index out of range in self (index {bad}, num_embeddings {num})"), num)
    if max_norm is not None:
        _embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    return _Embedding.apply(weight, input, padding_idx, bool(scale_grad_by_freq), bool(sparse))
