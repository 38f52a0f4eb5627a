"""Batched tensors: what a function under ``vmap`` sees in place of its inputs.

A ``BatchedTensor`` stands for one sample of a batch. It holds the *physical* tensor, whose
dim 0 is the batch (of one ``vmap`` level), and reports the *logical* shape, the physical
shape without that dim, so ``x.shape``, ``x.dim()``, ``len(x)`` and everything else that
reads metadata see one sample. Its own metadata is the physical tensor's with dim 0 dropped
(a view of sample 0: the dtype, device and strides are right), but no op ever computes on
it: while its level is active, every op call goes to the level (``_vmap.VmapLevel``), which
unwraps the physical tensors and applies a batching rule. Data-dependent Python (``bool``,
``.item()``, ``.tolist()``, ``.numpy()``) raises PyTorch's errors.

Nested ``vmap``: the physical tensor of an inner level's batched tensor may itself be a
batched tensor of an outer level. Levels are ordered by ``order`` (creation count: an inner
level is always newer than the levels around it), and the *canonical form* of a tensor is
``(levels, plain)``: the levels it is batched at, outermost first, and the plain tensor
underneath, whose leading dims are those levels' batch dims in the same order.
"""

from .._errors import TensorRuntimeError
from .._tensor import Tensor
from .._torch_function import _disabled_torch_function_impl

_DATA_DEPENDENT = (
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow "
    "(bool(), an if or while on a tensor's value). vmap runs the function once for the whole "
    "batch, so a value that differs per sample cannot choose the path; rewrite it with "
    "torch.where, masking or other tensor ops."
)
_ITEM = (
    "vmap: It looks like you're calling .item() on a Tensor (or float(), int(), .tolist(), "
    ".numpy(), which read values the same way). We don't support vmap over reading a batched "
    "tensor's values into Python: each sample has its own. Please rewrite what you're doing "
    "with tensor operations."
)

_REQUIRES_GRAD = (
    "You are attempting to call Tensor.requires_grad_() (or perhaps using "
    "torch.autograd.functional.* APIs) inside of a function being transformed by a functorch "
    "transform. This is unsupported, please attempt to use the functorch transforms (e.g. "
    "grad, vjp, jacrev, jacfwd, hessian) or call requires_grad_() outside of a function being "
    "transformed instead."
)


class BatchedTensor(Tensor):
    """One sample's view of a batch under ``vmap`` (see the module docstring). Not built by
    users: ``vmap`` wraps its inputs, the batching rules wrap their results."""

    # Not dispatched to ``__torch_function__`` (its results are plain tensors).
    __torch_function__ = _disabled_torch_function_impl

    # No slots of its own (``_phys``, ``_level`` live in the instance dict): the layout stays
    # Tensor's, so a temporary plain tensor can become batched in place (``promote``).
    __slots__ = ()

    @property
    def requires_grad(self):
        return self._phys.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        raise TensorRuntimeError(_REQUIRES_GRAD)

    def requires_grad_(self, requires_grad=True):
        """Refused inside a transform, as in PyTorch: use ``torch.func.grad`` instead."""
        raise TensorRuntimeError(_REQUIRES_GRAD)

    @property
    def grad_fn(self):
        return None

    @property
    def data(self):
        raise TensorRuntimeError(
            "vmap: .data of a batched tensor is not supported (it would read one sample); "
            "use .detach()"
        )

    @property
    def T(self):
        return self.permute(tuple(range(len(self._shape) - 1, -1, -1)))

    def __bool__(self):
        raise TensorRuntimeError(_DATA_DEPENDENT)

    def item(self):
        """Refused under vmap: each sample has its own value."""
        raise TensorRuntimeError(_ITEM)

    def tolist(self):
        """Refused under vmap: each sample has its own values."""
        raise TensorRuntimeError(_ITEM)

    def numpy(self, *, force=False):
        """Refused under vmap: each sample has its own values."""
        raise TensorRuntimeError(_ITEM)

    def _scalar_conversion(self, kind):
        raise TensorRuntimeError(_ITEM)

    def __index__(self):
        raise TensorRuntimeError(_ITEM)

    def __array__(self, dtype=None, copy=None):
        raise TensorRuntimeError(_ITEM)

    def untyped_storage(self):
        """Refused: a batched tensor has no storage of its own."""
        raise TensorRuntimeError(
            "Cannot access storage of BatchedTensorImpl (a batched tensor inside vmap)"
        )

    storage = untyped_storage

    def data_ptr(self):
        """Refused: a batched tensor has no storage of its own."""
        raise TensorRuntimeError(
            "Cannot access data pointer of Tensor that doesn't have "
            "storage (a batched tensor inside vmap)"
        )

    def __reduce_ex__(self, protocol):
        raise TensorRuntimeError("vmap: a batched tensor cannot be pickled or saved")

    def __deepcopy__(self, memo):
        raise TensorRuntimeError("vmap: a batched tensor cannot be deep-copied; use .clone()")

    def __repr__(self):
        inner = repr(self._phys).replace("\n", "\n    ")
        return f"BatchedTensor(lvl={self._level.lvl}, bdim=0, value=\n    {inner}\n)"


def wrap(phys, level):
    """The batched tensor of ``level`` whose physical tensor is ``phys`` (batch at dim 0)."""
    self = BatchedTensor._make(
        phys._storage,
        phys._shape[1:],
        phys._stride[1:],
        phys._offset,
        phys._dtype,
        version=phys._version_counter,
    )
    self._phys = phys
    self._level = level
    return self


def promote(level, t):
    """Turn the plain tensor ``t`` (and its base, when it is a view) into batched tensors of
    ``level`` in place, each sample a copy of its values: how a backward formula's
    temporary (``z = zeros(...); z[region].copy_(grad)``) takes a per-sample gradient while
    a cotangent batched at ``level`` flows through the backward pass. Only for tensors
    without autograd history and with a contiguous base; returns whether it did."""
    base = t._base if t._base is not None else t
    if (
        t.__class__ is not Tensor
        or base.__class__ is not Tensor
        or t._requires_grad
        or base._requires_grad
        or not base.is_contiguous()
    ):
        return False
    size = level.size
    phys_base = base.unsqueeze(0).repeat((size,) + (1,) * base.dim())
    numel = base.numel()
    targets = [(base, phys_base)]
    if t is not base:
        view = phys_base.as_strided(
            (size,) + tuple(t._shape), (numel,) + tuple(t._stride), t._offset - base._offset
        )
        targets.append((t, view))
    for obj, p in targets:
        obj.__class__ = BatchedTensor
        obj._phys = p
        obj._level = level
        obj._version_counter = p._version_counter
        obj._cached_array = None
    return True


def canonical(t):
    """``(levels, plain)`` of ``t``: the levels it is batched at, outermost first, and the
    plain tensor underneath (its leading dims are those levels' batch dims)."""
    levels = []
    while t.__class__ is BatchedTensor:
        levels.append(t._level)
        t = t._phys
    levels.reverse()
    return levels, t


def rebuild(levels, plain):
    """The inverse of ``canonical``: wrap ``plain`` in ``levels`` (outermost first)."""
    for level in levels:
        plain = wrap(plain, level)
    return plain


def lower(t, levels):
    """``t`` with the batch dims of ``levels`` (ordered outermost first) turned into leading
    logical dims, in that order; a level ``t`` is not batched at gets a dim of its size by
    expansion. ``t`` stays batched at its other levels. (The ops used here see plain tensors
    only, so active levels let them through.)"""
    have, plain = canonical(t)
    keep = [lv for lv in have if lv not in levels]
    # Give plain a dim for every level, in level order; then put ``levels``' dims after the
    # kept levels' dims.
    everything = sorted(set(have) | set(levels), key=lambda lv: lv.order)
    for i, lv in enumerate(everything):
        if lv not in have:
            plain = plain.unsqueeze(i)
            shape = list(plain.shape)
            shape[i] = lv.size
            plain = plain.expand(shape)
    source = [everything.index(lv) for lv in keep] + [everything.index(lv) for lv in levels]
    if source != list(range(len(source))):
        plain = plain.permute(source + list(range(len(source), plain.dim())))
    return rebuild(keep, plain)


def lift(t, levels):
    """The inverse of ``lower``: ``t``'s leading logical dims become the batch dims of
    ``levels`` (ordered outermost first, one dim each)."""
    have, plain = canonical(t)
    everything = sorted(have + list(levels), key=lambda lv: lv.order)
    current = have + list(levels)
    source = [current.index(lv) for lv in everything]
    if source != list(range(len(source))):
        plain = plain.permute(source + list(range(len(source), plain.dim())))
    return rebuild(everything, plain)
