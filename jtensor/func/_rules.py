"""Batching rules: how one op call on batched tensors becomes one call on physical tensors.

A rule gets ``(level, op, entry, args, kwargs)`` as the level received the call (``entry``
re-runs the op without this level; the tensors in ``args`` may be batched at ``level``) and
returns the result, batched where it depends on the batch, or ``NotImplemented`` to leave
the call to the loop-and-stack fallback (``_vmap.fallback``). Physical tensors always carry
the batch at dim 0, so a logical dim ``d`` (wrapped against the logical rank) is physical
``d + 1``. Rules only ever call ops on physical tensors: the level is off the dispatcher's
stack while a rule runs, so those calls reach the plain path (or an outer level).
"""

import inspect

from .._api import ops as J
from .._dtypes import FLOATING, result_type_of
from .._dtypes import int64 as _int64
from .._errors import TensorIndexError, TensorRuntimeError, TensorValueError
from .._ops.products import einsum_arguments
from .._tensor import Tensor
from ._batched import BatchedTensor, promote, wrap

RULES = {}
_SIGNATURES = {}


def rule(*names):
    """Register the decorated function as the batching rule of ``names``."""

    def register(fn):
        for name in names:
            RULES[name] = fn
        return fn

    return register


# ------------------------------------------------------------------------------ helpers
def bind(entry, args, kwargs):
    """The call's arguments by parameter name (defaults applied), as an ``inspect``
    ``BoundArguments`` whose ``args``/``kwargs`` call ``entry`` again."""
    sig = _SIGNATURES.get(entry)
    if sig is None:
        sig = _SIGNATURES[entry] = inspect.signature(entry)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return bound


def is_mine(level, x):
    """Whether ``x`` is batched at ``level``."""
    return x.__class__ is BatchedTensor and x._level is level


def phys(level, x):
    """``(physical, batched)``: the physical tensor of ``x`` at ``level`` (batch at 0)."""
    if x.__class__ is BatchedTensor and x._level is level:
        return x._phys, True
    return x, False


def full(level, x):
    """``x``'s physical tensor, batched: an unbatched tensor is expanded along the batch."""
    if x.__class__ is BatchedTensor and x._level is level:
        return x._phys
    return x.unsqueeze(0).expand((level.size,) + tuple(x.shape))


def logical_dim(level, x):
    return len(x._shape)


def wrap_result(level, result):
    """Wrap the tensors of an op's result (a tensor, or a tuple/list/named tuple of them)."""
    if isinstance(result, Tensor):
        return wrap(result, level)
    if isinstance(result, (tuple, list)):
        items = [wrap_result(level, r) for r in result]
        if hasattr(type(result), "_fields"):
            return type(result)(*items)
        return type(result)(items)
    return result


def wrap_dim(dim, rank, what="dim"):
    """``dim`` made non-negative against ``rank`` (a scalar counts as rank 1), with
    PyTorch's IndexError."""
    if dim.__class__ is not int:
        dim = int(dim)
    top = max(rank, 1)
    if not -top <= dim < top:
        raise TensorIndexError(
            f"Dimension out of range (expected to be in range of [{-top}, {top - 1}], but got "
            f"{dim})"
        )
    return dim + top if dim < 0 else dim


def pad_to(p, rank, target):
    """A physical tensor of logical rank ``rank`` given ``target - rank`` size-1 logical
    dims in front (after the batch), so it broadcasts like its logical tensor would."""
    if target <= rank:
        return p
    shape = tuple(p.shape)
    return p.view(shape[:1] + (1,) * (target - rank) + shape[1:])


# ------------------------------------------------------------------ element-wise ops
def elementwise_call(level, entry, args, kwargs, promote=True):
    """Run an element-wise op: batched operands padded to the largest logical rank, so the
    physical call broadcasts as the logical one would. With ``promote``, a batched 0-d
    operand is cast to the dtype the logical call computes in: physically it is 1-d, which
    would change type promotion (0-d tensors give way to sized ones of the same category)."""
    values = list(args)
    kwargs = dict(kwargs)
    slots = [(values, i) for i, v in enumerate(values) if isinstance(v, Tensor)]
    slots += [(kwargs, k) for k, v in kwargs.items() if isinstance(v, Tensor)]
    originals = [store[key] for store, key in slots]
    rank = max((len(t._shape) for t in originals), default=0)
    zero_dim = []
    for (store, key), v in zip(slots, originals, strict=True):
        if is_mine(level, v):
            if not v._shape:
                zero_dim.append((store, key, v))
            store[key] = pad_to(v._phys, len(v._shape), rank)
    if zero_dim and promote and len({t._dtype for t in originals}) > 1:
        common = result_type_of(
            [t._dtype for t in originals if t._shape],
            [t._dtype for t in originals if not t._shape],
            [],
        )
        for store, key, v in zero_dim:
            if v._dtype is not common and v._dtype.category != 0:
                store[key] = store[key].to(common)
    return wrap_result(level, entry(*values, **kwargs))


def elementwise_rule(level, op, entry, args, kwargs):
    return elementwise_call(level, entry, args, kwargs)


def inplace_rule(level, op, entry, args, kwargs):
    """An in-place element-wise op: ``self`` must be batched when another operand is (a
    batched value cannot be written into one unbatched tensor)."""
    self = args[0]
    others = [v for v in list(args[1:]) + list(kwargs.values()) if is_mine(level, v)]
    if not is_mine(level, self):
        if others and level.promote_inplace and promote(level, self):
            return inplace_rule(level, op, entry, args, kwargs)
        if others:
            raise TensorRuntimeError(
                f"vmap: {op.name}(self, *extra_args) is not possible because there exists a "
                "Tensor `other` in extra_args that has more elements than `self`. This "
                "happened due to `other` being vmapped over but `self` not being vmapped "
                "over in a vmap. Please try to use out-of-place operators instead of "
                f"{op.name}."
            )
        return entry(*args, **kwargs)
    rank = len(self._shape)
    values = [self._phys]
    for v in args[1:]:
        if is_mine(level, v):
            if len(v._shape) > rank:
                raise TensorRuntimeError(
                    f"output with shape {list(self._shape)} doesn't match the broadcast shape "
                    f"of the operands (other has shape {list(v._shape)})"
                )
            values.append(pad_to(v._phys, len(v._shape), rank))
        else:
            values.append(v)
    kw = {
        k: (pad_to(v._phys, len(v._shape), rank) if is_mine(level, v) else v)
        for k, v in kwargs.items()
    }
    entry(*values, **kw)
    return self


# ------------------------------------------------------------------------- reductions
_FLATTEN_WHEN_NONE = frozenset(
    (
        "sum",
        "mean",
        "nansum",
        "nanmean",
        "prod",
        "all",
        "any",
        "argmax",
        "argmin",
        "std",
        "var",
        "std_mean",
        "var_mean",
        "count_nonzero",
        "linalg_vector_norm",
        "logsumexp",
        "amax",
        "amin",
        "quantile",
        "nanquantile",
    )
)


def _shift_dims(dim, rank):
    if isinstance(dim, (tuple, list)):
        return tuple(wrap_dim(d, rank) + 1 for d in dim)
    return wrap_dim(dim, rank) + 1


def reduction_rule(level, op, entry, args, kwargs):
    """Reductions and scans over ``dim`` (``sum``, ``max(dim)``, ``cumsum``, ``sort``...):
    the dims shift past the batch; ``dim=None`` reduces each sample's flattened values."""
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    names = list(a)
    first = names[0]
    x = a[first]
    if not is_mine(level, x) or any(is_mine(level, v) for k, v in a.items() if k != first):
        return NotImplemented
    if "dim" not in a or op.name == "renorm":
        return NotImplemented  # (renorm's dim slices: the norms span the other dims)
    rank = len(x._shape)
    p = x._phys
    dim = a["dim"]
    keep = a.get("keepdim", False)
    name = op.name
    if name in ("max", "min") and a.get("other") is not None:
        return NotImplemented
    if dim is None or (
        isinstance(dim, (tuple, list))
        and len(dim) == 0
        and name in ("amax", "amin", "sum", "mean", "nansum", "linalg_vector_norm")
    ):
        if x.numel() == 0:
            return NotImplemented  # (the per-sample calls give each op's empty result)
        if name in ("max", "min", "median", "nanmedian") and dim is None:
            # The full reduction gives one value (no indices): the batched form of it.
            fn = {"max": J.amax, "min": J.amin}.get(name)
            flat = p.reshape(level.size, -1)
            if fn is not None:
                return wrap(fn(flat, 1), level)
            return wrap(getattr(J, name)(flat, 1).values, level)
        if name not in _FLATTEN_WHEN_NONE:
            return NotImplemented
        a[first] = p.reshape(level.size, -1)
        a["dim"] = 1
        result = entry(*bound.args, **bound.kwargs)
        q = a.get("q")
        if isinstance(q, Tensor) and q.dim() == 1:
            result = result.movedim(1, 0)  # the q dim comes first, before the batch
        if keep:
            shape = (level.size,) + (1,) * rank
            if isinstance(result, tuple):
                result = (
                    type(result)(*(r.reshape(shape) for r in result))
                    if hasattr(type(result), "_fields")
                    else tuple(r.reshape(shape) for r in result)
                )
            else:
                result = result.reshape(shape)
        return wrap_result(level, result)
    if isinstance(dim, bool) and name in ("std", "var", "std_mean", "var_mean"):
        # x.std(False): the positional bool is ``unbiased`` (PyTorch's overload).
        a["unbiased"], a["dim"] = dim, None
        return reduction_rule(level, op, entry, bound.args, bound.kwargs)
    return _run_over_dims(
        level, entry, bound, first, ("dim",), rank, quantile=name in ("quantile", "nanquantile")
    )


def _run_over_dims(level, entry, bound, first, params, rank, quantile=False):
    """Call ``entry`` with the first argument's physical tensor and its dim arguments
    (``params``) shifted past the batch. A logical scalar (which takes dim 0 or -1) is given
    a dim of size 1 for the call; it goes again after."""
    a = bound.arguments
    p = a[first]._phys
    scalar = rank == 0
    if scalar:
        p = p.unsqueeze(1)
        rank = 1
    a[first] = p
    for pname in params:
        d = a.get(pname)
        if d is not None:
            a[pname] = _shift_dims(d, rank)
    result = entry(*bound.args, **bound.kwargs)
    q = a.get("q")
    if quantile and isinstance(q, Tensor) and q.dim() == 1:
        result = result.movedim(1, 0)  # the q dim comes first, before the batch
    if scalar:
        result = _map_tensors(result, lambda r: r.squeeze(1) if r.dim() >= 2 else r)
    return wrap_result(level, result)


def _map_tensors(result, fn):
    if isinstance(result, Tensor):
        return fn(result)
    if isinstance(result, (tuple, list)):
        items = [_map_tensors(r, fn) for r in result]
        return type(result)(*items) if hasattr(type(result), "_fields") else type(result)(items)
    return result


def dim_rule(*names, param="dim", extra_rank=0):
    """A rule for ops whose only batched operand is the first one and whose ``param``
    (an int or a list of ints; ``extra_rank`` when the op's result has more dims than its
    input, as ``unsqueeze``) names logical dims."""

    def fn(level, op, entry, args, kwargs):
        bound = bind(entry, args, kwargs)
        a = bound.arguments
        names_ = list(a)
        x = a[names_[0]]
        if not is_mine(level, x) or any(is_mine(level, v) for k, v in a.items() if k != names_[0]):
            return NotImplemented
        params = param if isinstance(param, tuple) else (param,)
        if extra_rank == 0:
            return _run_over_dims(level, entry, bound, names_[0], params, len(x._shape))
        a[names_[0]] = x._phys
        rank = len(x._shape) + extra_rank
        for pname in params:
            d = a.get(pname)
            if d is not None:
                a[pname] = _shift_dims(d, rank)
        return wrap_result(level, entry(*bound.args, **bound.kwargs))

    for name in names:
        RULES[name] = fn
    return fn


dim_rule(
    "softmax",
    "log_softmax",
    "softmin",
    "cumsum",
    "cumprod",
    "logcumsumexp",
    "cummax",
    "cummin",
    "sort",
    "argsort",
    "topk",
    "kthvalue",
    "mode",
    "select",
    "narrow",
    "narrow_copy",
    "unbind",
    "split",
    "chunk",
    "tensor_split",
    "unflatten",
    "normalize",
    "index_select",
    "linalg_cross",
)
dim_rule("unsqueeze", extra_rank=1)
dim_rule("transpose", param=("dim0", "dim1", "axis0", "axis1"))
dim_rule("diagonal", param=("dim1", "dim2"))
dim_rule("diag_embed", param=("dim1", "dim2"), extra_rank=1)
dim_rule("movedim", param=("source", "destination"))
dim_rule("unfold", param="dimension")
dim_rule("rot90", "flip", param="dims")
dim_rule("linalg_matrix_norm", param="dim")


_MATRIX_OPS = frozenset(
    (
        "tril",
        "triu",
        "linalg_inv",
        "inverse",
        "linalg_det",
        "det",
        "logdet",
        "slogdet",
        "linalg_slogdet",
        "linalg_cholesky",
        "linalg_eigh",
        "linalg_eigvalsh",
        "linalg_qr",
        "linalg_svd",
        "linalg_svdvals",
        "linalg_matrix_power",
        "linalg_pinv",
    )
)


@rule("linalg_qr")
def _qr(level, op, entry, args, kwargs):
    result = unary_rule(level, op, entry, args, kwargs)
    if result is NotImplemented:
        return result
    q, r = result
    if q._phys.dim() == 1:
        # mode="r": Q is an empty 1-d tensor for every sample (unbatched).
        return type(result)(q._phys, r)
    return result


def unary_rule(level, op, entry, args, kwargs):
    """Ops that act on each sample alike and take one tensor (``clone``, ``detach``,
    ``relu``, ``gelu``, ``tril``, matrix functions of the last two dims...)."""
    x = args[0] if args else None
    if x is not None and op.name in _MATRIX_OPS and len(x._shape) < 2:
        return NotImplemented  # the op's own error, from the per-sample call
    if any(str(v).startswith("torch.channels_last") for v in (*args, *kwargs.values())):
        return NotImplemented  # a channels-last layout is defined for the sample's rank
    if (
        x is None
        or not is_mine(level, x)
        or any(is_mine(level, v) for v in list(args[1:]) + list(kwargs.values()))
    ):
        return NotImplemented
    return wrap_result(level, entry(x._phys, *args[1:], **kwargs))


for _name in (
    "clone",
    "contiguous",
    "detach",
    "alias",
    "conj",
    "resolve_conj",
    "resolve_neg",
    "positive",
    "real",
    "imag",
    "to",
    "gelu",
    "silu",
    "elu",
    "leaky_relu",
    "hardtanh",
    "relu6",
    "softplus",
    "logsigmoid",
    *sorted(_MATRIX_OPS - {"linalg_qr"}),  # (qr has a rule of its own, below)
):
    RULES[_name] = unary_rule


@rule("adjoint")
def _adjoint(level, op, entry, args, kwargs):
    x = args[0]
    if len(x._shape) < 2:
        return NotImplemented  # the op's own error
    p = x._phys.transpose(-2, -1)
    return wrap(p.conj() if p.is_complex() else p, level)


@rule("fliplr", "flipud")
def _flip_lr_ud(level, op, entry, args, kwargs):
    x = args[0]
    if len(x._shape) < (2 if op.name == "fliplr" else 1):
        return NotImplemented  # the op's own error
    return wrap(x._phys.flip(2 if op.name == "fliplr" else 1), level)


@rule("diff")
def _diff(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    if a.get("out") is not None:
        return NotImplemented
    rank = max(len(v._shape) for v in (a["input"], a["prepend"], a["append"]) if v is not None)
    for k in ("input", "prepend", "append"):
        if a[k] is not None:
            a[k] = full(level, a[k])
    a["dim"] = wrap_dim(a["dim"], rank) + 1
    return wrap(entry(*bound.args, **bound.kwargs), level)


@rule("as_strided", "as_strided_copy")
def _as_strided(level, op, entry, args, kwargs):
    """Each sample's ``as_strided`` is relative to the sample's own start (PyTorch's rule):
    the batch keeps its physical stride. ``as_strided_copy``: the same, copied."""
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    x = a["input"]
    if not is_mine(level, x) or a.get("out") is not None:
        return NotImplemented
    p = x._phys
    offset = a["storage_offset"]
    result = p.as_strided(
        (level.size,) + tuple(a["size"]),
        (p.stride(0),) + tuple(a["stride"]),
        p.storage_offset() if offset is None else offset + p.storage_offset() - x._offset,
    )
    return wrap(result.contiguous() if op.name == "as_strided_copy" else result, level)


_METADATA_INPLACE = {
    "t_": "t",
    "transpose_": "transpose",
    "squeeze_": "squeeze",
    "unsqueeze_": "unsqueeze",
    "as_strided_": "as_strided",
}


@rule(*_METADATA_INPLACE)
def _metadata_inplace(level, op, entry, args, kwargs):
    """``x.t_()``, ``x.unsqueeze_(0)``...: the out-of-place view's rule, then the batched
    tensor takes the view's geometry (physical and logical)."""
    from .._registry import OPS

    x = args[0]
    if not is_mine(level, x):
        return NotImplemented
    base = OPS[_METADATA_INPLACE[op.name]]
    view = RULES[base.name](level, base, base.entry, args, kwargs)
    if view is NotImplemented:
        return NotImplemented
    _adopt(x, view._phys)
    return x


def _adopt(x, p):
    x._phys = p
    x._storage = p._storage
    x._set_metadata(tuple(p._shape[1:]), tuple(p._stride[1:]), p._offset)


@rule("set_")
def _set_(level, op, entry, args, kwargs):
    raise TensorRuntimeError(
        "vmap: set_ is not supported on batched tensors (a batched tensor's storage holds "
        "every sample); build the value out of place instead"
    )


@rule("resize_", "resize_as_")
def _resize_(level, op, entry, args, kwargs):
    x = args[0]
    if not is_mine(level, x) or any(is_mine(level, v) for v in args[1:]):
        return NotImplemented
    size = tuple(args[1].shape) if op.name == "resize_as_" else _size_list(args[1:])
    p = x._phys
    p.resize_((level.size,) + tuple(size))
    _adopt(x, p)
    return x


@rule("elu_", "leaky_relu_", "hardtanh_")
def _nn_inplace(level, op, entry, args, kwargs):
    return inplace_rule(level, op, entry, args, kwargs)


# ------------------------------------------------------------------------------ views
def _size_list(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


@rule("view", "reshape")
def _view(level, op, entry, args, kwargs):
    x = args[0]
    if not is_mine(level, x):
        return NotImplemented
    if (
        op.name == "view"
        and kwargs.get("dtype") is not None
        or (
            len(args) == 2
            and not isinstance(args[1], (int, tuple, list))
            and not hasattr(args[1], "__index__")
        )
    ):
        return NotImplemented
    shape = (
        _size_list(args[1:])
        if op.name == "view" or not isinstance(args[1], (tuple, list))
        else tuple(args[1])
    )
    shape = tuple(int(s) for s in shape)
    p = x._phys
    numel = 1
    for s in x._shape:
        numel *= s
    if shape.count(-1) == 1 and numel == 0:
        return NotImplemented
    return wrap(getattr(p, op.name)((level.size,) + shape), level)


@rule("view_as", "reshape_as")
def _view_as(level, op, entry, args, kwargs):
    x, other = args[0], args[1]
    shape = tuple(other._shape)
    fn = "view" if op.name == "view_as" else "reshape"
    if not is_mine(level, x):
        return getattr(x, fn)(shape)
    return wrap(getattr(x._phys, fn)((level.size,) + shape), level)


@rule("flatten")
def _flatten(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    x = a["input"]
    if not is_mine(level, x):
        return NotImplemented
    rank = len(x._shape)
    if rank == 0:
        return wrap(x._phys.reshape(level.size, 1), level)
    start = wrap_dim(a["start_dim"], rank)
    end = wrap_dim(a["end_dim"], rank)
    return wrap(x._phys.flatten(start + 1, end + 1), level)


@rule("ravel")
def _ravel(level, op, entry, args, kwargs):
    return wrap(args[0]._phys.reshape(level.size, -1), level)


@rule("permute")
def _permute(level, op, entry, args, kwargs):
    x = args[0]
    if not is_mine(level, x):
        return NotImplemented
    dims = _size_list(args[1:])
    rank = len(x._shape)
    if len(dims) != rank:
        raise TensorRuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match "
            f"the length of the desired ordering of dimensions i.e. input.dim() = {rank} is "
            f"not equal to len(dims) = {len(dims)}"
        )
    return wrap(x._phys.permute((0,) + tuple(wrap_dim(d, rank) + 1 for d in dims)), level)


@rule("t")
def _t(level, op, entry, args, kwargs):
    x = args[0]
    rank = len(x._shape)
    if rank > 2:
        return NotImplemented  # the op's own error
    if rank < 2:
        return x if op.name == "t" else NotImplemented
    return wrap(x._phys.transpose(1, 2), level)


@rule("squeeze")
def _squeeze(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    x = bound.arguments["input"]
    dim = bound.arguments["dim"]
    if not is_mine(level, x):
        return NotImplemented
    rank = len(x._shape)
    if dim is None:
        dims = tuple(i + 1 for i, s in enumerate(x._shape) if s == 1)
    elif isinstance(dim, (tuple, list)):
        dims = tuple(wrap_dim(d, rank) + 1 for d in dim)
        dims = tuple(d for d in dims if x._shape[d - 1] == 1)
    else:
        d = wrap_dim(dim, rank) + 1
        dims = (d,) if rank and x._shape[d - 1] == 1 else ()
    p = x._phys
    for d in sorted(dims, reverse=True):
        p = p.squeeze(d)
    return wrap(p, level)


def _expand_to(level, x, size):
    """``x`` (batched) expanded to the logical ``size`` (``-1`` keeps a dim)."""
    p = x._phys
    rank = len(x._shape)
    if len(size) < rank:
        raise TensorRuntimeError(
            f"expand: the number of sizes provided ({len(size)}) must be greater or equal to "
            f"the number of dimensions in the tensor ({rank})"
        )
    p = pad_to(p, rank, len(size))
    return wrap(p.expand((level.size,) + tuple(size)), level)


@rule("expand")
def _expand(level, op, entry, args, kwargs):
    x = args[0]
    if not is_mine(level, x):
        return NotImplemented
    return _expand_to(level, x, _size_list(args[1:]))


@rule("broadcast_to")
def _broadcast_to(level, op, entry, args, kwargs):
    x = args[0]
    if not is_mine(level, x):
        return NotImplemented
    return _expand_to(level, x, tuple(args[1]))


@rule("expand_as")
def _expand_as(level, op, entry, args, kwargs):
    x, other = args[0], args[1]
    if not is_mine(level, x):
        return x.expand(tuple(other._shape))
    return _expand_to(level, x, tuple(other._shape))


@rule("atleast_1d", "atleast_2d", "atleast_3d")
def _atleast(level, op, entry, args, kwargs):
    tensors = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    n = int(op.name[-2])
    out = []
    for x in tensors:
        if not is_mine(level, x):
            out.append(getattr(J, op.name)(x))
            continue
        shape = tuple(x._shape)
        if len(shape) < n:
            if n == 3 and len(shape) == 2:
                shape = shape + (1,)
            elif n == 3 and len(shape) == 1:
                shape = (1,) + shape + (1,)
            else:
                shape = (1,) * (n - len(shape)) + shape
            out.append(wrap(x._phys.reshape((level.size,) + shape), level))
        else:
            out.append(x)
    if len(args) == 1 and not isinstance(args[0], (tuple, list)):
        return out[0]
    return tuple(out)


@rule("__getitem__")
def _getitem(level, op, entry, args, kwargs):
    x, key = args[0], args[1]
    if isinstance(key, list):
        if not all(isinstance(k, int) and not isinstance(k, bool) for k in key):
            return NotImplemented  # a list read as a tuple of indices (NumPy's legacy rule)
        key = J.tensor(key, dtype=_int64, device=x.device)
    items = key if isinstance(key, tuple) else (key,)
    if any(is_mine(level, k) for k in items if isinstance(k, Tensor)):
        if not is_mine(level, x) and len(items) == 1 and items[0]._dtype.category > 0:
            # table[indices] with per-sample integer indices: one gather of the table.
            return wrap(x[items[0]._phys], level)
        return NotImplemented
    if not is_mine(level, x):
        return NotImplemented
    if any(k is True or k is False for k in items):
        return NotImplemented
    p = x._phys
    result = p[(slice(None),) + items]
    advanced = [
        i
        for i, k in enumerate(items)
        if isinstance(k, (Tensor, list))
        and not (isinstance(k, Tensor) and k._dtype.category == 0 and False)
    ]
    if advanced and advanced != list(range(advanced[0], advanced[-1] + 1)):
        # Separated advanced indices put their dims first, in front of the batch dim too.
        shapes = [
            tuple(k.shape) if isinstance(k, Tensor) else (len(k),)
            for k in (items[i] for i in advanced)
        ]
        from .._api import broadcast_shapes

        nd = len(broadcast_shapes(*shapes))
        result = result.movedim(nd, 0)
    return wrap(result, level)


@rule("__setitem__")
def _setitem(level, op, entry, args, kwargs):
    x, key, value = args[0], args[1], args[2]
    if isinstance(key, list):
        return NotImplemented
    items = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, Tensor) for k in items) or any(k is True or k is False for k in items):
        return NotImplemented
    if not is_mine(level, x):
        if isinstance(value, Tensor) and is_mine(level, value):
            if level.promote_inplace and promote(level, x):
                return _setitem(level, op, entry, args, kwargs)
            raise TensorRuntimeError(
                "vmap: index_put_(self, *extra_args) is not possible because there exists a "
                "Tensor `other` in extra_args that has more elements than `self`. This "
                "happened due to `other` being vmapped over but `self` not being vmapped over "
                "in a vmap (x[...] = value writes a per-sample value into one tensor). Please "
                "try to use out-of-place operators instead."
            )
        return NotImplemented
    region = x._phys[(slice(None),) + items]
    if isinstance(value, Tensor) and is_mine(level, value):
        rank = region.dim() - 1
        while len(value._shape) > rank and value._shape[0] == 1:
            value = wrap(value._phys.squeeze(1), level)
        if len(value._shape) > rank:
            raise TensorRuntimeError(
                f"shape mismatch: value tensor of shape {list(value._shape)} cannot be "
                f"broadcast to indexing result of shape {list(region.shape[1:])}"
            )
        region.copy_(pad_to(value._phys, len(value._shape), rank))
    elif isinstance(value, Tensor):
        rank = region.dim() - 1
        while value.dim() > rank and value.shape[0] == 1:
            value = value.squeeze(0)  # (leading size-1 dims are dropped, as PyTorch does)
        region.copy_(value)
    else:
        region.fill_(value)
    x._version_counter.value += 0
    return None


@rule("copy_")
def _copy_(level, op, entry, args, kwargs):
    return inplace_rule(level, op, entry, args, kwargs)


@rule("fill_")
def _fill_(level, op, entry, args, kwargs):
    x, value = args[0], args[1]
    if isinstance(value, Tensor) and is_mine(level, value):
        if not is_mine(level, x):
            return inplace_rule(level, op, entry, args, kwargs)
        x._phys.copy_(pad_to(value._phys, 0, len(x._shape)))
        return x
    return inplace_rule(level, op, entry, args, kwargs)


# ----------------------------------------------------------------- joining, gathering
def _legacy_empty(t):
    return len(t._shape) == 1 and t._shape[0] == 0


@rule("cat", "concat", "concatenate", "stack")
def _cat(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    tensors = list(a["tensors"])
    if a.get("out") is not None:
        return NotImplemented
    stack = op.name == "stack"
    ref = next((t for t in tensors if not _legacy_empty(t) or stack), tensors[0])
    rank = len(ref._shape) + (1 if stack else 0)
    dim = wrap_dim(a["dim"], rank)
    physical = []
    for t in tensors:
        if not stack and _legacy_empty(t) and rank > 1:
            # cat skips a 1-d empty tensor (but its dtype still counts): one that matches.
            shape = list(ref._shape)
            shape[dim] = 0
            physical.append(J.zeros([level.size] + shape, dtype=t.dtype, device=t.device))
        else:
            physical.append(full(level, t))
    a["tensors"] = physical
    a["dim"] = dim + 1
    return wrap(entry(*bound.args, **bound.kwargs), level)


@rule(
    "gather",
    "take_along_dim",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "index_add",
    "index_copy",
    "index_fill",
    "select_scatter",
    "slice_scatter",
    "diagonal_scatter",
)
def _all_batched(level, op, entry, args, kwargs):
    """Ops whose operands must agree in shape along every other dim: every tensor operand
    is made batched (expanded), and the dim arguments shift past the batch."""
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    first = next(iter(a))
    rank = len(a[first]._shape)
    if a.get("out") is not None or rank == 0:
        return NotImplemented
    if op.name == "take_along_dim" and a["dim"] is None:
        return NotImplemented
    for k, v in list(a.items()):
        if isinstance(v, Tensor):
            if op.name in ("index_add", "index_copy", "index_fill") and k == "index":
                if is_mine(level, v):
                    return NotImplemented
                continue
            if op.name in ("select_scatter", "slice_scatter", "diagonal_scatter") and k == "src":
                a[k] = full(level, v)
                continue
            if not v._shape and k != first and op.name in ("scatter", "index_fill"):
                if is_mine(level, v):
                    return NotImplemented
                continue
            a[k] = full(level, v)
    for pname in ("dim", "dim1", "dim2"):
        if pname in a and a[pname] is not None:
            a[pname] = wrap_dim(a[pname], rank) + 1
    return wrap(entry(*bound.args, **bound.kwargs), level)


@rule("where", "masked_fill", "clamp", "clip", "lerp", "addcmul", "addcdiv")
def _where(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    if op.name == "where" and (a.get("input") is None or a.get("other") is None):
        return NotImplemented
    if a.get("out") is not None:
        return NotImplemented
    if op.name == "masked_fill" and isinstance(a["value"], Tensor) and is_mine(level, a["value"]):
        return elementwise_call(
            level, J.where, (a["mask"], a["value"], a["input"]), {}, promote=False
        )
    return elementwise_call(level, entry, bound.args, bound.kwargs, promote=False)


# --------------------------------------------------------------------- matrix products
def _matmul_result(level, a, b):
    """The physical ``matmul`` of two operands, either of them batched, by the logical
    rules: vectors become matrices, a batched operand is padded to the larger logical rank
    (so its batch dim leads and the matrix batch dims broadcast from the right), then the
    vectors' dims go again."""
    pa, ba = phys(level, a)
    pb, bb = phys(level, b)
    ra, rb = len(a._shape), len(b._shape)
    if ra == 0 or rb == 0:
        raise TensorRuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {ra}D and {rb}D"
        )
    if ra == 1:
        pa = pa.unsqueeze(1 if ba else 0)
    if rb == 1:
        pb = pb.unsqueeze(-1)
    la, lb = max(ra, 2), max(rb, 2)
    top = max(la, lb)
    if ba:
        pa = pad_to(pa, la, top)
    if bb:
        pb = pad_to(pb, lb, top)
    result = J.matmul(pa, pb)
    if ra == 1:
        result = result.squeeze(-2)
    if rb == 1:
        result = result.squeeze(-1)
    return result


@rule("matmul")
def _matmul(level, op, entry, args, kwargs):
    if kwargs.get("out") is not None:
        return NotImplemented
    return wrap(_matmul_result(level, args[0], args[1]), level)


def _rank_check(name, x, want, arg="self"):
    if len(x._shape) != want:
        what = {1: "a vector", 2: "a matrix", 3: "a 3D tensor"}[want]
        raise TensorRuntimeError(
            f"{name}: {arg} must be {what} (got a {len(x._shape)}-D tensor of shape "
            f"{list(x._shape)})"
        )


@rule("mm", "bmm", "mv", "dot", "vdot", "inner", "outer")
def _products(level, op, entry, args, kwargs):
    if kwargs.get("out") is not None:
        return NotImplemented
    a, b = args[0], args[1]
    name = op.name
    if name in ("mm", "bmm", "mv"):
        _rank_check(name, a, 3 if name == "bmm" else 2)
        _rank_check(name, b, {"mm": 2, "bmm": 3, "mv": 1}[name], "mat2")
    elif name in ("dot", "vdot"):
        _rank_check(name, a, 1)
        _rank_check(name, b, 1, "tensor")
        if name == "vdot":
            return NotImplemented
        if a._dtype is b._dtype and (a._dtype.is_floating_point or a._dtype.is_complex):
            # Per sample, dot's gradient is ``grad * other`` (PyTorch's formula, a
            # MulBackward0 under ``grad``); a product summed keeps that (a matmul's gradient
            # would be a one-term matmul, which loses the sign of a zero: relu's 0 * -1).
            pa, _ = phys(level, a)
            pb, _ = phys(level, b)
            return wrap(J.sum(J.mul(pa, pb), -1), level)
    elif name == "outer":
        pa, ba = phys(level, a)
        pb, bb = phys(level, b)
        return wrap(J.mul(pa.unsqueeze(-1), pb.unsqueeze(-2) if bb else pb), level)
    elif name == "inner":
        if a._shape == () or b._shape == () or len(b._shape) > 1:
            return NotImplemented
    return wrap(_matmul_result(level, a, b), level)


@rule("addmm", "addmv", "baddbmm", "addbmm", "addr")
def _addmm(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    if a.get("out") is not None or op.name in ("addbmm", "addr"):
        return NotImplemented
    x, m1, m2 = a["input"], a[list(a)[1]], a[list(a)[2]]
    prod = wrap(_matmul_result(level, m1, m2), level)
    return elementwise_call(level, _scaled_add, (x, prod, a["beta"], a["alpha"]), {})


def _scaled_add(x, prod, beta, alpha):
    if beta == 0:
        # PyTorch ignores ``input`` entirely (NaN in it does not propagate).
        return prod * alpha if alpha != 1 else prod + J.zeros_like(x)
    left = x if beta == 1 else x * beta
    return left + (prod if alpha == 1 else prod * alpha)


@rule("linear")
def _linear(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    x, w, bias = a["input"], a["weight"], a["bias"]
    px, bx = phys(level, x)
    pw, bw = phys(level, w)
    if not bw:
        out = entry(px, pw, None)
    else:
        if len(w._shape) != 2:
            return NotImplemented
        rank = len(x._shape)
        if bx:
            lead = tuple(px.shape[1:-1])
            flat = px.reshape(level.size, -1, px.shape[-1])
        else:
            lead = tuple(px.shape[:-1])
            flat = px.reshape(1, -1, px.shape[-1])
        out = J.matmul(flat, pw.transpose(1, 2)).reshape((level.size,) + lead + (pw.shape[1],))
        if rank == 1 and not bx:
            out = out.reshape(level.size, pw.shape[1])
        bx = True
    if bias is not None:
        pb, bb = phys(level, bias)
        if bb:
            out_rank = out.dim() - (1 if bx else 0)
            pb = pad_to(pb, len(bias._shape), out_rank)
            if not bx:
                out = out.unsqueeze(0)
                bx = True
        out = out + pb
    return wrap(out, level) if bx else out


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


@rule("einsum")
def _einsum(level, op, entry, args, kwargs):
    equation, operands = einsum_arguments(args)   # (the sublist form too)
    if not isinstance(equation, str):
        return NotImplemented
    eq = equation.replace(" ", "")
    used = set(eq)
    free = next(c for c in _LETTERS if c not in used)
    if "->" in eq:
        lhs, rhs = eq.split("->")
    else:
        lhs = eq
        counts = {}
        for c in lhs.replace(",", "").replace(".", ""):
            counts[c] = counts.get(c, 0) + 1
        rhs = ("..." if "..." in lhs else "") + "".join(
            sorted(c for c, n in counts.items() if n == 1)
        )
    terms = lhs.split(",")
    if len(terms) != len(operands):
        return NotImplemented
    values = []
    for term, x in zip(terms, operands, strict=True):
        if is_mine(level, x):
            terms[terms.index(term)] = free + term
            values.append(x._phys)
        else:
            values.append(x)
    new = ",".join(terms) + "->" + free + rhs
    return wrap(entry(new, *values), level)


# ------------------------------------------------------------------------ nn functions
def _flatten_batch(level, x, min_rank):
    """``x``'s physical tensor with the batch merged into the leading logical dim (its
    mini-batch dim), or the batch itself when the logical tensor has no mini-batch
    (``min_rank`` dims: an unbatched image). Returns (tensor, restore)."""
    p = x._phys
    if len(x._shape) == min_rank:
        return p, lambda r: r
    size = level.size
    n = x._shape[0]
    merged = p.reshape((size * n,) + tuple(x._shape[1:]))

    def restore(r):
        return r.reshape((size, n) + tuple(r.shape[1:]))

    return merged, restore


def _pool_rule(spatial):
    def fn(level, op, entry, args, kwargs):
        x = args[0]
        if not is_mine(level, x) or any(is_mine(level, v) for v in args[1:]):
            return NotImplemented
        p, restore = _flatten_batch(level, x, spatial + 1)
        out = entry(p, *args[1:], **kwargs)
        if isinstance(out, tuple):
            return wrap_result(level, tuple(restore(o) for o in out))
        return wrap(restore(out), level)

    return fn


for _name, _spatial in (
    ("max_pool1d", 1),
    ("avg_pool1d", 1),
    ("adaptive_avg_pool1d", 1),
    ("max_pool2d", 2),
    ("avg_pool2d", 2),
    ("adaptive_avg_pool2d", 2),
    ("max_pool2d_with_indices", 2),
    ("pixel_shuffle", 2),
    ("pixel_unshuffle", 2),
):
    RULES[_name] = _pool_rule(_spatial)


@rule("conv1d", "conv2d")
def _conv(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    x, w, bias = a["input"], a["weight"], a["bias"]
    spatial = 1 if op.name == "conv1d" else 2
    if isinstance(a["padding"], str) and a["padding"] != "valid" and is_mine(level, w):
        pass
    if not is_mine(level, w) and (bias is None or not is_mine(level, bias)):
        if not is_mine(level, x):
            return NotImplemented
        p, restore = _flatten_batch(level, x, spatial + 1)
        a["input"] = p
        return wrap(restore(entry(*bound.args, **bound.kwargs)), level)
    # A per-sample weight: one grouped convolution, the batch folded into the channels.
    size = level.size
    groups = a["groups"]
    unbatched_input = len(x._shape) == spatial + 1
    px = full(level, x)
    if unbatched_input:
        px = px.unsqueeze(1)
    n, c = px.shape[1], px.shape[2]
    px = px.transpose(0, 1).reshape((n, size * c) + tuple(px.shape[3:]))
    pw = full(level, w)
    o = pw.shape[1]
    pw = pw.reshape((size * o,) + tuple(pw.shape[2:]))
    pb = None
    if bias is not None:
        pb = full(level, bias).reshape(size * o)
    a["input"], a["weight"], a["bias"], a["groups"] = px, pw, pb, groups * size
    out = entry(*bound.args, **bound.kwargs)
    out = out.reshape((n, size, o) + tuple(out.shape[2:])).transpose(0, 1)
    if unbatched_input:
        out = out.squeeze(1)
    return wrap(out, level)


@rule("layer_norm", "rms_norm")
def _layer_norm(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    x = a["input"]
    w, b = a.get("weight"), a.get("bias")
    if not is_mine(level, x):
        return NotImplemented
    rank = len(x._shape)
    a["input"] = x._phys
    affine = [
        (k, v) for k, v in (("weight", w), ("bias", b)) if v is not None and is_mine(level, v)
    ]
    if affine:
        a["weight"] = None
        if "bias" in a:
            a["bias"] = None
    out = entry(*bound.args, **bound.kwargs)
    if w is not None and is_mine(level, w):
        out = out * pad_to(w._phys, len(w._shape), rank)
    elif w is not None and affine:
        out = out * w
    if b is not None and is_mine(level, b):
        out = out + pad_to(b._phys, len(b._shape), rank)
    elif b is not None and affine:
        out = out + b
    return wrap(out, level)


@rule("group_norm", "batch_norm", "instance_norm")
def _norm_over_minibatch(level, op, entry, args, kwargs):
    """Normalizations whose statistics are per element of the mini-batch (``group_norm``,
    ``batch_norm`` in eval mode): the samples' mini-batches are merged into one. In training
    mode ``batch_norm`` would update its running statistics with per-sample values: the
    fallback loop runs it (PyTorch refuses)."""
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    x = a["input"]
    others = ("weight", "bias", "running_mean", "running_var")
    training = a.get("training", a.get("use_input_stats", False))
    stats = [a.get(k) for k in ("running_mean", "running_var") if a.get(k) is not None]
    if training and is_mine(level, x) and any(not is_mine(level, t) for t in stats):
        raise TensorRuntimeError(
            "Batch norm got a batched tensor as input while the running_mean or running_var, "
            "which will be updated in place, were not batched.\nIf you are using a module and "
            "do not need eval mode, please set `track_running_stats` to be False. (Batch the "
            "running statistics too, or run the module in eval mode.)"
        )
    if op.name == "instance_norm":
        training = False  # each instance is normalized on its own: merging is exact
    if (
        training
        or not is_mine(level, x)
        or any(a.get(k) is not None and is_mine(level, a[k]) for k in others)
    ):
        return NotImplemented
    p, restore = _flatten_batch(level, x, 0)
    a["input"] = p
    return wrap(restore(entry(*bound.args, **bound.kwargs)), level)


@rule("embedding")
def _embedding(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    idx, w = a["input"], a["weight"]
    if a["max_norm"] is not None:
        return NotImplemented
    if not is_mine(level, w):
        a["input"] = idx._phys
        return wrap(entry(*bound.args, **bound.kwargs), level)
    if a["padding_idx"] is not None:
        return NotImplemented
    size = level.size
    pw = w._phys
    vocab = pw.shape[1]
    pi = full(level, idx)
    offsets = J.arange(size, device=pi.device).mul(vocab).view((size,) + (1,) * (pi.dim() - 1))
    a["input"] = pi + offsets
    a["weight"] = pw.reshape(size * vocab, pw.shape[2])
    return wrap(entry(*bound.args, **bound.kwargs), level)


@rule("one_hot")
def _one_hot(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    if a["num_classes"] == -1:
        return NotImplemented
    a["tensor"] = a["tensor"]._phys
    return wrap(entry(*bound.args, **bound.kwargs), level)


@rule("pad")
def _pad(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    x = a["input"]
    if a["mode"] != "constant" or not is_mine(level, x):
        return NotImplemented
    if isinstance(a["value"], Tensor):
        return NotImplemented
    a["input"] = x._phys
    return wrap(entry(*bound.args, **bound.kwargs), level)


@rule("scaled_dot_product_attention")
def _sdpa(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    q, k, v, mask = a["query"], a["key"], a["value"], a["attn_mask"]
    if a["dropout_p"] or a["enable_gqa"]:
        return NotImplemented
    rank = max(len(q._shape), len(k._shape), len(v._shape))
    for name, t in (("query", q), ("key", k), ("value", v)):
        a[name] = pad_to(full(level, t), len(t._shape), rank)
    if mask is not None and is_mine(level, mask):
        a["attn_mask"] = pad_to(mask._phys, len(mask._shape), rank)
    return wrap(entry(*bound.args, **bound.kwargs), level)


# Losses: the element-wise loss per sample (reduction='none'), then each sample's reduction.
def _reduce_per_sample(level, loss, reduction, rank, name, batch_size=None):
    if reduction == "none":
        return wrap(loss, level)
    dims = tuple(range(1, rank + 1))
    if reduction == "sum":
        return wrap(loss.sum(dims) if dims else loss, level)
    if reduction == "batchmean":
        total = loss.sum(dims) if dims else loss
        return wrap(total / batch_size if rank else total, level)
    if reduction == "mean":
        return wrap(loss.mean(dims) if dims else loss, level)
    raise TensorRuntimeError(f"{reduction} is not a valid value for reduction")


@rule(
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
)
def _pointwise_loss(level, op, entry, args, kwargs):
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    if a.get("size_average") is not None or a.get("reduce") is not None:
        return NotImplemented
    x, target = a["input"], a["target"]
    reduction = a["reduction"]
    rank = max(len(x._shape), len(target._shape))
    for k, v in list(a.items()):
        if k in ("input", "target") and isinstance(v, Tensor):
            # (some losses insist on equal input and target shapes: both get the batch)
            a[k] = pad_to(full(level, v), len(v._shape), rank)
        elif isinstance(v, Tensor) and is_mine(level, v):
            a[k] = pad_to(v._phys, len(v._shape), rank)
    a["reduction"] = "none"
    loss = entry(*bound.args, **bound.kwargs)
    if loss.dim() == rank:  # no operand batched at this level (a weight only?)
        return NotImplemented
    return _reduce_per_sample(
        level, loss, reduction, rank, op.name, batch_size=(x._shape[0] if x._shape else 1)
    )


@rule("cross_entropy", "nll_loss")
def _class_loss(level, op, entry, args, kwargs):
    """Cross entropy and NLL: the samples' mini-batches merged into one, losses per element,
    then each sample's reduction (a weighted mean divides by its own weights' sum)."""
    bound = bind(entry, args, kwargs)
    a = bound.arguments
    if a.get("size_average") is not None or a.get("reduce") is not None:
        return NotImplemented
    x, target, weight = a["input"], a["target"], a["weight"]
    if weight is not None and is_mine(level, weight):
        return NotImplemented
    size = level.size
    rank = len(x._shape)
    px = full(level, x)
    pt = full(level, target)
    probabilities = target._dtype.category >= FLOATING
    if rank == 1:
        # One unbatched sample per batch entry: the batch is the mini-batch.
        flat_x, flat_t = px, pt
        rest = ()
    else:
        flat_x = px.reshape((size * x._shape[0],) + tuple(x._shape[1:]))
        flat_t = pt.reshape((size * target._shape[0],) + tuple(target._shape[1:]))
        rest = (x._shape[0],) + tuple(x._shape[2:])
    reduction = a["reduction"]
    a["input"], a["target"], a["reduction"] = flat_x, flat_t, "none"
    loss = entry(*bound.args, **bound.kwargs).reshape((size,) + rest)
    if reduction == "none":
        return wrap(loss, level)
    dims = tuple(range(1, loss.dim()))
    total = loss.sum(dims) if dims else loss
    if reduction == "sum":
        return wrap(total, level)
    if reduction != "mean":
        raise TensorValueError(f"{reduction} is not a valid value for reduction")
    if probabilities:
        count = 1
        for s in rest:
            count *= s
        return wrap(total / count, level)
    # Mean over the non-ignored targets, weighted by their class weights.
    flat_targets = flat_t.reshape(size, -1)
    keep = flat_targets != a["ignore_index"]
    if weight is not None:
        safe = J.where(keep, flat_targets, J.zeros_like(flat_targets))
        denom = (weight[safe] * keep.to(weight.dtype)).sum(1)
    else:
        denom = keep.to(loss.dtype).sum(1)
    return wrap(total / denom, level)
