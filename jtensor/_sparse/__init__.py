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
are the values'. ``s.grad`` of a leaf sparse tensor is a sparse tensor holding the gradient
at each distinct stored position (``sparse_mask`` of the dense gradient, as PyTorch), except
where PyTorch gives the leaf a dense gradient of its own: the dense matrix products
(``torch.mm``/``addmm``/``matmul``/``mv`` with a dense other operand) pass the leaf itself to
their ``autograd.Function`` (``matmul.py``), whose backward gives it ``grad @ D^H``. The
``grad_fn`` names are those of the dense ops used (for example ``IndexAddBackward0`` where
PyTorch says ``ToDenseBackward0``), or PyTorch's where a Function or ``_named`` sets them.

Index bookkeeping (sorting, uniqueness, merging) is host-side NumPy on the int64 indices.

The modules, in import order (the package re-exports what the rest of jtensor imports):

* ``common``: PyTorch's SparseCPU ``_not_supported`` error;
* ``indices``: index bookkeeping on the int64 indices (bounds, linear positions, unique
  positions, the ``index_select`` plan);
* ``autograd_nodes``: PyTorch's backward-node names (``_named``, ``_no_backward``);
* ``tensor``: the ``SparseCOOTensor`` class and its methods;
* ``kernels``: sparse * sparse, sparse * dense, sparse + sparse (merge), dense + sparse,
  ``sparse_add``/``sparse_add_``;
* ``construction``: ``sparse_coo_tensor`` (invariants checks), ``sparse_coo_empty``,
  ``Tensor.to_sparse``/``sparse_mask``;
* ``matmul``: every matrix product with a sparse operand (``torch.mm``/``spmm``/``matmul``/
  ``mv``/``addmm``, the class's methods and operators, ``torch.sparse.mm``/``addmm``: one
  ``autograd.Function`` for sparse @ dense, sparse @ sparse on the values); ``reductions``:
  ``torch.sparse.sum`` (both re-exported by ``jtensor.sparse``);
* ``dense_methods``: what dense tensors answer to the sparse methods;
* ``dispatch``: the ``sparse_coo`` layout in the registry (the view ops' routes and
  refusals, the sparse kernels of add/sub/mul/index_select and of the matrix products the op
  entries call when an operand is sparse: ``dense.add_(sparse)``, ``torch.mul(dense,
  sparse)``, ``torch.mm(sparse, dense)``; see its docstring).

The package imports the core, ``_ops`` (factories) and autograd's modules, never the
``jtensor`` package itself nor the public ``jtensor.sparse`` above it.

>>> import jtensor as torch
>>> from jtensor._sparse import sparse_coo_tensor
>>> s = sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3., 4., 5.], (2, 3))
>>> s.to_dense()
tensor([[0., 0., 3.],
        [4., 0., 5.]])
"""

# What the rest of jtensor (and the tests) import from ``jtensor._sparse``, re-exported.
from .._tensor import sparse_coo
from .tensor import SparseCOOTensor, _rebuild_sparse  # noqa: F401
from .indices import _linear_index, _wrap  # noqa: F401
from .autograd_nodes import _named  # noqa: F401
from .kernels import add_dense_sparse, add_dense_sparse_, sparse_add, sparse_add_  # noqa: F401
from .construction import _CHECK_INVARIANTS, sparse_coo_empty, sparse_coo_tensor  # noqa: F401
from .construction import sparse_mask, to_sparse  # noqa: F401

# The dense tensors' sparse methods, and the layout in the registry (in any import order).
from . import dense_methods  # noqa: F401
from . import dispatch  # noqa: F401

__all__ = ["SparseCOOTensor", "sparse_coo", "sparse_coo_tensor"]
