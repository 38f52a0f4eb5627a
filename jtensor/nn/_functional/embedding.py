"""``embedding`` (``jtensor.nn.functional``): rows of a weight matrix picked by index.

A custom ``autograd.Function`` (node ``EmbeddingBackward0``, as PyTorch) so that the rows
at ``padding_idx`` get no gradient and ``scale_grad_by_freq`` divides each row's gradient by
its index's count in the batch. The backward is written with public ops (differentiable
again).

With ``sparse=True`` the weight's gradient is a sparse COO tensor built as PyTorch's
``embedding_sparse_backward`` builds it: one entry per looked-up index, in lookup order,
duplicates kept (uncoalesced), the ``padding_idx`` lookups dropped, the values a view of the
incoming gradient reshaped to ``(n, embedding_dim)`` where possible (whether they are
contiguous decides how later accumulations combine, as in PyTorch).
"""

import numpy as np

from ... import _dtypes
from ..._device import CPU_BACKEND, index_out_of_range
from ..._errors import TensorIndexError, TensorRuntimeError
from ..._layout import _contiguous_strides
from ..._tensor import Tensor
from ...autograd.function import Function, _node_class
from ._op import nn_op

__all__ = ["embedding"]


def _no_grad():
    from ...autograd.grad_mode import no_grad

    return no_grad()


class _Embedding(Function):
    _edge_positions = (0,)   # the weight: PyTorch's node has no edge for the indices

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq, sparse=False):
        shape = (*indices._shape, weight._shape[1])
        if weight._storage._backend is CPU_BACKEND and indices._storage._backend is CPU_BACKEND:
            # The rows on the arrays (the caller checked the bounds): index_select's numbers.
            rows = np.take(weight._array(), indices._array().reshape(-1), axis=0)
            out = Tensor._from_array(rows.reshape(shape), weight._dtype, weight.device)
        else:
            out = weight.index_select(0, indices.reshape(-1))
        ctx.save_for_backward(indices)
        ctx.num_weights = weight.shape[0]
        ctx.padding_idx = padding_idx
        ctx.scale_grad_by_freq = scale_grad_by_freq
        ctx.sparse = sparse
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
    if weight.dim() != 2:
        raise TensorRuntimeError(f"'weight' must be 2-D, got a {weight.dim()}-D tensor")
    num = weight.shape[0]
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
    if input.numel() and not weight._storage._backend.deferred:
        indices = input._array()   # (the bounds on the arrays: no op calls, no events)
        lo, hi = int(indices.min()), int(indices.max())
        if lo < 0 or hi >= num:
            bad = lo if lo < 0 else hi
            # raised here on the CPU; on a GPU a device-side assert at the next sync
            index_out_of_range(weight._storage._backend, "embedding", TensorIndexError(
                f"index out of range in self (index {bad}, num_embeddings {num})"), num)
    if max_norm is not None:
        _embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    return _Embedding.apply(weight, input, padding_idx, bool(scale_grad_by_freq), bool(sparse))
