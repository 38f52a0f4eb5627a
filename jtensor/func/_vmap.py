"""``vmap``: the level that takes every op call under it, and the user-facing transform.

While ``vmap(f)(x)`` runs ``f``, a ``VmapLevel`` sits on the dispatcher's transform stack
(``_dispatch.push_transform``): each op call reaches ``VmapLevel.process``, which leaves
calls without a tensor batched at this level alone, applies the op's batching rule
(``_rules``) to the others and, for an op without one, runs it once per sample and stacks
the results (with a warning: that is a loop). Random ops follow ``randomness``.
"""

import functools
import itertools
import warnings

from .. import _dispatch
from .._api import ops as J
from .._errors import TensorRuntimeError, TensorValueError
from .._registry import OPS
from .._tensor import Tensor
from . import _pytree
from ._batched import _ITEM, BatchedTensor, promote, wrap
from ._rules import (
    RULES,
    elementwise_call,
    elementwise_rule,
    inplace_rule,
    is_mine,
    reduction_rule,
    unary_rule,
    wrap_result,
)

_ORDER = itertools.count()

RANDOMNESS = ("error", "different", "same")
_RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap"
)
_RANDOM = frozenset(
    (
        "rand",
        "randn",
        "randint",
        "randperm",
        "rand_like",
        "randn_like",
        "randint_like",
        "normal",
        "bernoulli",
        "multinomial",
        "poisson",
        "dropout",
        "dropout1d",
        "dropout2d",
        "dropout3d",
        "bernoulli_",
        "cauchy_",
        "exponential_",
        "geometric_",
        "log_normal_",
        "normal_",
        "random_",
        "uniform_",
        "rrelu",
        "rrelu_",
    )
)
_DROPOUT = frozenset(("dropout", "dropout1d", "dropout2d", "dropout3d"))
# Random only in training mode (their ``training`` argument).
_TRAINING_RANDOM = _DROPOUT | {"rrelu", "rrelu_"}


def active_levels():
    """The ``vmap`` levels in effect, outermost first (inside a rule, the rule's own level
    is off the stack)."""
    return [lv for lv in _dispatch.transforms.stack if isinstance(lv, VmapLevel)]


def _mine_anywhere(level, args, kwargs):
    for v in itertools.chain(args, kwargs.values()):
        if v.__class__ is BatchedTensor:
            if v._level is level:
                return True
        elif v.__class__ is list or v.__class__ is tuple:
            for w in v:
                if w.__class__ is BatchedTensor and w._level is level:
                    return True
    return False


def _kind_rule(op):
    """The batching rule an op gets from its kind when it has none of its own."""
    kind = op.kind
    name = op.name
    if kind == "elementwise":
        return elementwise_rule
    if kind == "reduction":
        return reduction_rule
    if kind == "inplace":
        base = OPS.get(name[:-1])
        if base is not None and base.kind == "elementwise":
            return inplace_rule
        return None
    if kind == "factory":
        if name.endswith("_like"):
            return unary_rule
        if name.startswith("new_"):
            return _new_factory
        return None
    if kind == "query":
        return _query
    return None


def _new_factory(level, op, entry, args, kwargs):
    # ``x.new_zeros(size)`` takes dtype and device from ``x``; as in PyTorch the result is
    # batched (one independent copy per sample, so in-place writes stay per sample).
    one = entry(args[0]._phys, *args[1:], **kwargs)
    return wrap(one.unsqueeze(0).repeat((level.size,) + (1,) * one.dim()), level)


def _query(level, op, entry, args, kwargs):
    if op.name == "is_same_size":
        return tuple(args[0].shape) == tuple(args[1].shape)
    raise TensorRuntimeError(_ITEM)


class VmapLevel:
    """One ``vmap`` in effect: its batch ``size``, ``randomness`` mode, nesting ``order``
    (creation count) and ``lvl`` (its depth among the vmaps, as PyTorch prints it)."""

    def __init__(self, size, randomness):
        self.size = size
        self.randomness = randomness
        self.order = next(_ORDER)
        self.lvl = len(active_levels()) + 1
        # Set while a cotangent batched at this level runs through a backward pass: a
        # formula's temporaries may then become batched when written with batched values.
        self.promote_inplace = False

    def __repr__(self):
        return f"<vmap level {self.lvl}: batch size {self.size}>"

    def process(self, op, entry, args, kwargs):
        """Run one op call made under this level (see the module docstring)."""
        name = op.name
        if name in _RANDOM:
            return self._random(op, entry, args, kwargs)
        if not _mine_anywhere(self, args, kwargs):
            return entry(*args, **kwargs)
        if kwargs.get("out") is not None:
            raise TensorRuntimeError(
                f"vmap: {name} with out= is not supported on batched tensors (neither a batching "
                "rule nor the per-sample fallback writes into out=): call it without out= and "
                "use the result."
            )
        rule = RULES.get(name)
        if rule is None:
            rule = _kind_rule(op)
        if rule is not None:
            result = rule(self, op, entry, args, kwargs)
            if result is not NotImplemented:
                return result
        return fallback(self, op, entry, args, kwargs)

    # ------------------------------------------------------------------ randomness
    def _random(self, op, entry, args, kwargs):
        name = op.name
        mine = _mine_anywhere(self, args, kwargs)
        if name in _TRAINING_RANDOM:
            from ._rules import bind

            a = bind(entry, args, kwargs).arguments
            if not a["training"] or a.get("p", 1) == 0:
                return unary_rule(self, op, entry, args, kwargs) if mine else entry(*args, **kwargs)
        mode = self.randomness
        if mode == "error":
            raise TensorRuntimeError(_RANDOM_ERROR)
        if op.kind == "inplace":
            target = args[0]
            if is_mine(self, target):
                if mine and any(is_mine(self, v) for v in args[1:]):
                    return fallback(self, op, entry, args, kwargs)
                p = target._phys
                if mode == "different":
                    entry(p, *args[1:], **kwargs)
                else:
                    sample = p.select(0, 0)
                    entry(sample, *args[1:], **kwargs)
                    p.copy_(sample.unsqueeze(0).expand(tuple(p.shape)))
                return target
            if mine:
                return inplace_rule(self, op, entry, args, kwargs)
            if mode == "different":
                raise TensorRuntimeError(
                    "vmap: Cannot ask for different inplace randomness on an unbatched tensor. "
                    "This will appear like same randomness. If this is necessary for your "
                    "usage, please file an issue with functorch."
                )
            return entry(*args, **kwargs)
        if not mine:
            if mode == "same":
                return entry(*args, **kwargs)
            # One independent draw per sample.
            return wrap(J.stack([entry(*args, **kwargs) for _ in range(self.size)]), self)
        x = args[0]
        if mode == "same":
            if name in _DROPOUT and is_mine(self, x):
                sample = x._phys.select(0, 0)
                mask = entry(J.ones_like(sample), *args[1:], **kwargs)
                return wrap(x._phys * mask, self)
            if name.endswith("_like") and is_mine(self, x):
                return entry(x._phys.select(0, 0), *args[1:], **kwargs)
            raise TensorRuntimeError(
                "Vmap does not currently support same randomness with a batched tensor input. "
                f"({name} got a tensor batched by vmap; use randomness='different', or draw "
                "outside vmap and pass the values in.)"
            )
        if name.endswith("_like") or name in _DROPOUT or name in ("poisson", "rrelu"):
            result = unary_rule(self, op, entry, args, kwargs)
        elif name in ("bernoulli", "normal"):
            result = elementwise_call(self, entry, args, kwargs, promote=False)
        elif name == "multinomial" and len(x._shape) == 1 and is_mine(self, x):
            result = wrap(entry(x._phys, *args[1:], **kwargs), self)
        else:
            result = NotImplemented
        if result is NotImplemented:
            return fallback(self, op, entry, args, kwargs)
        return result


def _select(level, v, i):
    if v.__class__ is BatchedTensor and v._level is level:
        return v._phys.select(0, i)
    if v.__class__ is list or v.__class__ is tuple:
        return type(v)(_select(level, w, i) for w in v)
    return v


def fallback(level, op, entry, args, kwargs):
    """An op without a batching rule: run it once per sample and stack the results
    (correct for any op, but a Python loop; hence the warning). An ``autograd.Function``
    with ``generate_vmap_rule = True`` asked for exactly this (PyTorch runs its forward on
    the batch; the results are the same): no warning."""
    if not getattr(op, "generated_rule", False):
        warnings.warn(
            f"vmap: there is a performance drop because jtensor has no batching rule for "
            f"{op.name} yet, so it runs once per sample ({level.size} calls) and the results are "
            "stacked. Please report it so that a rule can be added.",
            UserWarning,
            stacklevel=4,
        )
    inplace = op.kind == "inplace"
    if (
        inplace
        and not is_mine(level, args[0])
        and not (level.promote_inplace and promote(level, args[0]))
    ):
        raise TensorRuntimeError(
            f"vmap: {op.name}(self, *extra_args) is not possible because there exists a Tensor "
            "in extra_args that is vmapped over while `self` is not: a per-sample value cannot "
            "be written into one unbatched tensor. Please use out-of-place operators instead."
        )
    results = []
    for i in range(level.size):
        sample_args = [_select(level, v, i) for v in args]
        sample_kwargs = {k: _select(level, v, i) for k, v in kwargs.items()}
        results.append(entry(*sample_args, **sample_kwargs))
    if inplace:
        return args[0]
    return _stack_results(level, op, results)


def _stack_results(level, op, results):
    first = results[0] if results else None
    if isinstance(first, Tensor):
        return wrap(J.stack(results), level)
    if isinstance(first, (tuple, list)):
        columns = [_stack_results(level, op, [r[j] for r in results]) for j in range(len(first))]
        if hasattr(type(first), "_fields"):
            return type(first)(*columns)
        return type(first)(columns)
    if first is None and all(r is None for r in results):
        return None
    if all(r == first for r in results):
        return first
    raise TensorRuntimeError(
        f"vmap: {op.name} returned a Python value that differs between samples; it cannot be "
        "batched"
    )


# ------------------------------------------------------------------------------ vmap
def _func_name(func):
    return getattr(func, "__name__", repr(func))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorize ``func`` over a batch dim of its inputs, PyTorch's ``torch.func.vmap``.

    ``vmap(func)(x)`` is ``torch.stack([func(x[i]) for i in range(len(x))])`` computed in one
    pass: ``func`` runs once, on batched tensors that look like one sample, and each op
    applies its batching rule. ``in_dims`` (an int, or a tuple matching the positional
    arguments' structure, with ``None`` for arguments that are not mapped) says which dim of
    each input is the batch; ``out_dims`` (an int, None, or a tuple over the outputs) where
    the batch goes in each output. ``randomness``: ``"error"`` (random ops raise),
    ``"different"`` (independent draws per sample) or ``"same"`` (one draw for all).
    ``chunk_size`` runs the batch in chunks of that many samples (less memory). Nests, and
    composes with ``grad``/``vjp``/``jacrev``.

    >>> import jtensor as torch
    >>> torch.func.vmap(torch.dot)(torch.ones(3, 2), torch.ones(3, 2))
    tensor([2., 2., 2.])
    """
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise TensorValueError(
            f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})"
        )

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)

    return wrapped


def _prefix(func, in_dims):
    return f"vmap({_func_name(func)}, in_dims={in_dims}, ...)(<inputs>)"


def _batch_dims(func, in_dims, args):
    """The leaves of ``args`` with their in_dim (non-negative, or None) and the batch size,
    with PyTorch's checks and messages."""
    if not args:
        raise TensorValueError(
            f"vmap({_func_name(func)})(<inputs>): got no inputs. Maybe you forgot to add "
            "inputs, or you are trying to vmap over a function with no inputs. The latter is "
            "unsupported."
        )
    if not (isinstance(in_dims, int) and not isinstance(in_dims, bool)) and not isinstance(
        in_dims, tuple
    ):
        raise TensorValueError(
            f"{_prefix(func, in_dims)}: expected `in_dims` to be int or a (potentially "
            f"nested) tuple matching the structure of inputs, got: {type(in_dims)}."
        )
    leaves, spec = _pytree.flatten(args)
    if isinstance(in_dims, int):
        dims = [in_dims] * len(leaves)
    else:
        dims = _pytree.broadcast_prefix(in_dims, args)
        if dims is None:
            raise TensorValueError(
                f"{_prefix(func, in_dims)}: in_dims is not compatible with the structure of "
                f"`inputs`. in_dims has structure {_pytree.flatten(in_dims)[1]} but inputs "
                f"has structure {spec}."
            )
    sizes = []
    out_dims = []
    for leaf, d in zip(leaves, dims, strict=True):
        if d is None:
            out_dims.append(None)
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise TensorValueError(
                f"{_prefix(func, in_dims)}: in_dims must be made of ints and None, got "
                f"in_dim={d!r} of type {type(d)}."
            )
        if not isinstance(leaf, Tensor):
            raise TensorValueError(
                f"{_prefix(func, in_dims)}: Got in_dim={d} for an input but the input is of "
                f"type {type(leaf)}. We cannot vmap over non-Tensor arguments, please use "
                "None as the respective in_dim"
            )
        n = leaf.dim()
        if not -n <= d < n:
            raise TensorValueError(
                f"{_prefix(func, in_dims)}: Got in_dim={d} for some input, but that input is "
                f"a Tensor of dimensionality {n} so expected in_dim to satisfy -{n} <= in_dim "
                f"< {n}."
            )
        d = d + n if d < 0 else d
        sizes.append(leaf.shape[d])
        out_dims.append(d)
    if not sizes:
        raise TensorValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        raise TensorValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension (in_dims={in_dims})"
        )
    return leaves, spec, out_dims, sizes[0]


def _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    if randomness not in RANDOMNESS:
        raise TensorRuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
            f"{randomness}"
        )
    leaves, spec, dims, size = _batch_dims(func, in_dims, args)
    if chunk_size is None or chunk_size >= size:
        return _run(func, out_dims, randomness, leaves, spec, dims, size, kwargs)
    # Chunks: each a vmap of its own over a slice of the batch; outputs joined along out_dims.
    from .. import random as _random

    state = _random.get_rng_state() if randomness == "same" else None
    pieces = []
    for start in range(0, size, chunk_size):
        length = min(chunk_size, size - start)
        part = [
            leaf if d is None else leaf.narrow(d, start, length)
            for leaf, d in zip(leaves, dims, strict=True)
        ]
        if state is not None:
            _random.set_rng_state(state)
        pieces.append(
            _run(func, out_dims, randomness, part, spec, dims, length, kwargs, outputs_only=True)
        )
    flat_pieces = [p[0] for p in pieces]
    out_spec, odims = pieces[0][1], pieces[0][2]
    joined = []
    for j, od in enumerate(odims):
        column = [p[j] for p in flat_pieces]
        joined.append(column[0] if od is None else J.cat(column, od))
    return _pytree.unflatten(joined, out_spec)


def _run(func, out_dims, randomness, leaves, spec, dims, size, kwargs, outputs_only=False):
    level = VmapLevel(size, randomness)
    batched = [
        leaf if d is None else wrap(leaf.movedim(d, 0) if d else leaf, level)
        for leaf, d in zip(leaves, dims, strict=True)
    ]
    _dispatch.push_transform(level)
    try:
        output = func(*_pytree.unflatten(batched, spec), **kwargs)
    finally:
        _dispatch.pop_transform(level)
    return _unbatch_outputs(func, level, output, out_dims, outputs_only)


def _unbatch_outputs(func, level, output, out_dims, outputs_only):
    name = _func_name(func)
    if not (out_dims is None or isinstance(out_dims, (int, tuple, list, dict))) or isinstance(
        out_dims, bool
    ):
        raise TensorValueError(
            f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
            "python collection of ints representing where in the outputs the vmapped "
            "dimension should appear."
        )
    leaves, spec = _pytree.flatten(output)
    if out_dims is None or isinstance(out_dims, int):
        odims = [out_dims] * len(leaves)
    else:
        odims = _pytree.broadcast_prefix(
            tuple(out_dims)
            if isinstance(out_dims, list) and not isinstance(output, list)
            else out_dims,
            output,
        )
        if odims is None:
            raise TensorValueError(
                f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                f"compatible with the structure of `outputs`. out_dims has structure "
                f"{_pytree.flatten(out_dims)[1]} but outputs has structure {spec}."
            )
    results = []
    for leaf, od in zip(leaves, odims, strict=True):
        if od is not None and (not isinstance(od, int) or isinstance(od, bool)):
            raise TensorValueError(
                f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or "
                "a python collection of ints representing where in the outputs the vmapped "
                "dimension should appear."
            )
        if not isinstance(leaf, Tensor):
            if od is None:
                results.append(leaf)
                continue
            raise TensorValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                f"{type(leaf)}. Did you mean to set out_dims= to None for output?"
            )
        if is_mine(level, leaf):
            p = leaf._phys
            if od is None:
                raise TensorValueError(
                    f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim "
                    "is None (this output depends on the mapped inputs; only outputs that do "
                    "not can have out_dims=None)"
                )
        else:
            if od is None:
                results.append(leaf)
                continue
            p = leaf.unsqueeze(0).expand((level.size,) + tuple(leaf.shape))
        n = p.dim()
        if not -n <= od < n:
            from .._errors import TensorIndexError

            raise TensorIndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {od})"
            )
        results.append(p.movedim(0, od) if od not in (0, -n) else p)
    if outputs_only:
        return results, spec, odims
    return _pytree.unflatten(results, spec)


__all__ = ["vmap", "VmapLevel", "active_levels", "fallback", "wrap_result"]
