"""PyTorch's view of what a backward node saved: ``grad_fn._saved_<name>`` and
``grad_fn._raw_saved_<name>``.

PyTorch's generated nodes expose each value their formula saved under the name its
``derivatives.yaml`` gives it: ``(a * b).grad_fn._saved_self is a``, ``_saved_other``,
``x.exp().grad_fn._saved_result`` (a new tensor object on the output, with its node),
``x.pow(2).grad_fn._saved_exponent`` (a number), ``x.sum(1).grad_fn._saved_dim`` (a tuple),
``_saved_self_sym_sizes``... ``_raw_saved_<name>`` is the saved tensor itself
(``torch._C._autograd.SavedTensor``, with ``register_hooks(pack, unpack)``), and ``dir()``
lists them all. A saved tensor read after backward freed the graph raises PyTorch's error;
numbers, flags and sizes stay readable.

jtensor's formulas name the op's arguments by the implementation's parameters (``input``
for PyTorch's ``self``) and save what PyTorch saves (``Formula.save``, ``save_for``,
``save_by_node``). ``SAVED`` says, per node name (or ``"Node/op"`` where one node name comes
from several ops), which attributes PyTorch's node has and where each value is. A node
not listed there exposes the tensors its formula saved, under PyTorch's names. Reading an
attribute costs what it costs; recording and backward do nothing for it.

An entry is ``name[:kind][=source]``, space separated. ``source``: jtensor's name for the
value (default: the PyTorch name, ``input`` for ``self``); ``a|b``: the first of them the
call has; ``@fn``: computed by ``_COMPUTED[fn](node)``. ``kind``: ``i`` an int, ``I`` a
tuple of ints (PyTorch prints an ``int64_t`` as unsigned: -1 reads 18446744073709551615),
``T`` a tuple of saved tensors, ``v`` a value as given (numbers, flags, strings, None); by
default a saved tensor (a tensor argument, the output ``result``, ``result<i>`` of several;
a number argument as it is, or wrapped in the 0-d tensor PyTorch saves for it). Names
ending ``_sym_sizes``, ``_sym_strides``, ``_sym_numel`` and ``_sym_argsize_<d>`` describe
an input (strides only when that input needs a gradient, as PyTorch keeps them).

``FUNCTION_SAVED`` does the same for jtensor's own ``autograd.Function``s that stand for
PyTorch's C++ nodes (``nn``'s losses and activations), from what their ``ctx`` keeps.
"""

import math

from .. import _dtypes
from .._api import ops as J
from .._errors import wrap_dim
from .._ops.views import movedim_order
from .._tensor import Tensor
from . import graph
from .graph import SavedTensor

# Nodes PyTorch generates for the ops jtensor records, and what they expose.
SAVED = {
    "MulBackward0": "other self",
    "MulBackward0/div": "other=@number_divided self=@nothing",
    "DivBackward0": "other self",
    "DivBackward2": "other rounding_mode:v self",
    "AddBackward0": "alpha:v",
    "SubBackward0": "alpha:v",
    "RsubBackward1": "alpha:v",
    "PowBackward0": "exponent:v=exponent|other self",
    "PowBackward0/square": "exponent:v=@two self",
    "PowBackward1": "exponent=exponent|other result self",
    "PowBackward2": "exponent=exponent|other result self:v",
    "ExpBackward0": "result",
    "TanhBackward0": "result",
    "SigmoidBackward0": "result",
    "ReluBackward0": "result",
    "SqrtBackward0": "result",
    "RsqrtBackward0": "result",
    "ReciprocalBackward0": "result",
    "SumBackward0": "self_sym_sizes",
    "SumBackward1": "dim:I keepdim:v self_sym_sizes",
    "MeanBackward0": "self_sym_numel self_sym_sizes",
    "MeanBackward1": "dim:I keepdim:v self_sym_numel self_sym_sizes",
    "MmBackward0": (
        "mat2=mat2|other mat2_sym_sizes mat2_sym_strides self self_sym_sizes self_sym_strides"
    ),
    "AddmmBackward0": (
        "alpha:v beta:v mat1 mat1_sym_sizes mat1_sym_strides mat2 mat2_sym_sizes mat2_sym_strides"
    ),
    "BmmBackward0": "mat2=mat2|other self",
    "MvBackward0": "self vec=vec|other",
    "DotBackward0": "self tensor=tensor|other",
    "ViewBackward0": "self_sym_sizes",
    "UnsafeViewBackward0": "self_sym_sizes",
    "ReshapeAliasBackward0": "self_sym_sizes",
    "ExpandBackward0": "self_sym_sizes",
    "TBackward0": "",
    "CloneBackward0": "",
    "NegBackward0": "",
    "ToCopyBackward0": "",
    "AliasBackward0": "",
    "UnsqueezeBackward0": "dim:i",
    "UnsqueezeBackward0/__getitem__": "dim:i=@key_dim",
    "SqueezeBackward0": "self_sym_sizes",
    "SqueezeBackward1": "dim:i self_sym_sizes",
    "SqueezeBackward2": "dim:I self_sym_sizes",
    "PermuteBackward0": "dims:I",
    "PermuteBackward0/movedim": "dims:I=@movedim_dims",
    "DiagonalBackward0": "dim1:i dim2:i offset:i self_sym_sizes",
    "TransposeBackward0": "dim0:i dim1:i",
    "SelectBackward0": "dim:i index:i self_sym_sizes",
    "SelectBackward0/__getitem__": ("dim:i=@key_dim index:i=@key_index self_sym_sizes=@key_sizes"),
    "SliceBackward0": "dim:i end:i start:i step:i self_sym_sizes",
    "SliceBackward0/narrow": (
        "dim:i end:i=@narrow_end start:i=@narrow_start step:i=@one self_sym_sizes"
    ),
    "SliceBackward0/__getitem__": (
        "dim:i=@key_dim end:i=@key_end start:i=@key_start "
        "step:i=@key_step self_sym_sizes=@key_sizes"
    ),
    "IndexBackward0/__getitem__": "indices:T=@key_indices self_sym_sizes=@index_sizes",
    "SoftmaxBackward0": "dim:i result",
    "LogSoftmaxBackward0": "dim:i result",
    "MaxBackward0": "dim:i indices=result1 keepdim:v self_sym_sizes",
    "MinBackward0": "dim:i indices=result1 keepdim:v self_sym_sizes",
    "MaxBackward1": "result self",
    "MinBackward1": "result self",
    "MaximumBackward0": "other=other|dim self",
    "MinimumBackward0": "other=other|dim self",
    "MedianBackward0": "result self",
    "NanmedianBackward0": "result self",
    "MedianBackward1": "dim:i indices=result1 keepdim:v self_sym_sizes",
    "NanmedianBackward1": "dim:i indices=result1 keepdim:v self_sym_sizes",
    "KthvalueBackward0": "dim:i indices=result1 keepdim:v self_sym_sizes",
    "ModeBackward0": "dim:i indices=result1 keepdim:v self_sym_sizes",
    "SortBackward0": "dim:i indices=result1 self_sym_sizes",
    "TopkBackward0": "dim:i indices=result1 self_sym_sizes",
    "CummaxBackward0": "dim:i indices=result1 self",
    "CumminBackward0": "dim:i indices=result1 self",
    "AmaxBackward0": "dim:I keepdim:v result self",
    "AminBackward0": "dim:I keepdim:v result self",
    "LogsumexpBackward0": "dim:I keepdim:v result self",
    "ProdBackward0": "result self",
    "ProdBackward1": "dim:i keepdim:v result self",
    "VarBackward0": "correction=@correction dim:I=@var_dim keepdim:v self",
    "StdBackward0": "correction=@correction dim:I=@var_dim keepdim:v result self",
    "LinalgVectorNormBackward0": "dim:I keepdim:v ord=@norm_ord result self",
    "CatBackward0": "dim:i",
    "StackBackward0": "dim:i",
    "UnbindBackward0": "dim:i",
    "SplitBackward0": "dim:i self_sym_sizes split_size:i=split_size|split_size_or_sections",
    "SplitBackward0/chunk": "dim:i self_sym_sizes split_size:i=@chunk_size",
    "SplitWithSizesBackward0": (
        "dim:i self_sym_sizes split_sizes:I=split_sizes|split_size_or_sections"
    ),
    "CumsumBackward0": "dim:i",
    "GatherBackward0": "dim:i index self sparse_grad=@false",
    "IndexSelectBackward0": "dim:i index self_sym_sizes",
    "WhereBackward0": "condition",
    "MaskedFillBackward0": "mask",
    "ClampBackward0": "max min self",
    "ClampBackward1": "max:v min:v self",
    "RepeatBackward0": "repeats:I self_sym_sizes",
    "AbsBackward0": "self",
    "LogBackward0": "self",
    "SinBackward0": "self",
    "CosBackward0": "self",
}

# jtensor's own ``autograd.Function``s that stand for PyTorch's C++ nodes (in ``nn``), where
# what they keep covers what PyTorch's node exposes: ``#i`` is ``saved_tensors[i]``, ``.a``
# (``.a.k``) the ``ctx`` attribute ``a`` (its item ``k``).
FUNCTION_SAVED = {
    "LogSoftmaxBackward0": "dim:i=.dim result=#0",
    "GeluBackward0": "approximate:v=@gelu_approximate self=#0",
    "SiluBackward0": "self=#0",
    "LeakyReluBackward0": "negative_slope:v=.slope self=#0",
    "SoftplusBackward0": "beta:v=.params.0 self=#0 threshold:v=.params.1",
    "MseLossBackward0": "reduction:i=@reduction self=#0 target=#1",
    "BinaryCrossEntropyBackward0": "reduction:i=@reduction self=#0 target=#1 weight=#2",
    "BinaryCrossEntropyWithLogitsBackward0": (
        "pos_weight=#3 reduction:i=@reduction self=#0 target=#1 weight=#2"
    ),
    "NllLossBackward0": (
        "ignore_index:i=.ignore_index reduction:i=@reduction self=#0 target=#1 "
        "total_weight=#3 weight=#2"
    ),
    "SafeSoftmaxBackward0": "dim:i=.dim result=#0",
    "ScaledDotProductFlashAttentionForCpuBackward0": (
        "attn_mask=#5 dropout_p:v=.dropout_p is_causal:v=.is_causal key=#1 logsumexp=#4 "
        "output=#3 query=#0 scale:v=.scale value=#2"
    ),
    "NllLoss2DBackward0": (
        "ignore_index:i=.ignore_index reduction:i=@reduction self=#0 target=#1 "
        "total_weight=#3 weight=#2"
    ),
    "EmbeddingBackward0": (
        "indices=#0 padding_idx:i=.padding_idx "
        "scale_grad_by_freq:v=.scale_grad_by_freq sparse:v=.sparse "
        "weight_sym_argsize_0:i=.num_weights"
    ),
}

_INT64_MAX = 2**63 - 1
_MISSING = object()


# ----------------------------------------------------------------------------- entries


class _Entry:
    """One attribute of a node kind: its PyTorch name, kind and where its value is."""

    __slots__ = ("name", "kind", "sources", "computed", "input")

    def __init__(self, text):
        spec, _, source = text.partition("=")
        name, _, kind = spec.partition(":")
        self.name = name
        self.kind = kind
        self.computed = _COMPUTED[source[1:]] if source.startswith("@") else None
        self.input = None
        for suffix in ("_sym_sizes", "_sym_strides", "_sym_numel", "_sym_argsize_"):
            if suffix in name and not source and not kind:
                self.kind = suffix
                self.input = name[: name.index(suffix)]
        if source and not self.computed:
            self.sources = tuple(source.split("|"))
        else:
            self.sources = ("input",) if name == "self" else (name,)
        if self.input is not None:
            self.sources = ("input",) if self.input == "self" else (self.input,)

    @property
    def is_tensor(self):
        """Whether PyTorch keeps it as a saved tensor (with a ``_raw_saved_`` twin)."""
        if self.computed is not None:
            return self.computed in _COMPUTED_TENSORS
        return self.kind in ("", "T")


def _entries(node):
    """The ``_Entry``s of ``node``'s kind (cached per node class and op)."""
    formula = node._formula
    function = getattr(type(node), "_function", None)
    op = formula.op.name if formula is not None else None
    key = (type(node), op)
    found = _CACHE.get(key)
    if found is None:
        name = type(node).__name__
        if function is not None:
            # A Function's node: jtensor's own standing for PyTorch's (user Functions have
            # ``saved_tensors`` and ``_raw_saved_tensors`` only, as PyTorch's).
            internal = function.__module__.startswith(__name__.split(".")[0] + ".")
            spec = FUNCTION_SAVED.get(name, "") if internal else ""
        elif formula is None:
            spec = ""
        else:
            spec = SAVED.get(f"{name}/{op}")
            if spec is None:
                spec = SAVED.get(name)
            if spec is None:
                # Not listed: the tensors the formula saves, under PyTorch's names.
                spec = " ".join(
                    ("self" if n == "input" else n)
                    for n in formula.save_order
                    if not n.startswith("__") and n.isidentifier()
                )
        found = _CACHE[key] = {e.name: e for e in (_Entry(t) for t in spec.split())}
    return found


_CACHE = {}


def names(node):
    """Every ``_saved_<name>`` and ``_raw_saved_<name>`` of ``node`` (for ``dir``)."""
    out = []
    for e in _entries(node).values():
        out.append("_saved_" + e.name)
        if e.is_tensor:
            out.append("_raw_saved_" + e.name)
    return out


def function_tensor_names(node):
    """For a node of one of jtensor's own Functions: position in ``saved_tensors`` -> the
    name PyTorch's node gives that tensor (``NllLossBackward0``: 0 ``self``, 1 ``target``,
    3 ``total_weight``); empty for any other node."""
    if getattr(type(node), "_function", None) is None:
        return {}
    return {int(e.sources[0][1:]): e.name for e in _entries(node).values()
            if e.computed is None and e.sources and e.sources[0].startswith("#")}


def attribute(node, key):
    """``node._saved_<name>`` / ``node._raw_saved_<name>`` (AttributeError for a name the
    node does not have, as Python's own message words it)."""
    raw = key.startswith("_raw_saved_")
    name = key[len("_raw_saved_") :] if raw else key[len("_saved_") :]
    entry = _entries(node).get(name)
    if entry is None or (raw and not entry.is_tensor):
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '{key}'")
    if entry.computed is not None:
        value = entry.computed(node)
        return _raw(value) if raw else _convert(entry.kind, value, node)
    if entry.input is not None:
        return _describe_input(node, entry)
    source = entry.sources[0]
    if source[0] in "#.":
        value = _function_value(node, source, raw)
        return value if raw or entry.kind == "" else _convert(entry.kind, value, node)
    if entry.kind == "":
        return _tensor(node, entry.sources, raw)
    return _convert(entry.kind, _value(node, entry.sources), node)


def _function_value(node, source, raw):
    """A value a Function's node kept: ``#i`` its ``i``-th saved tensor (unpacked, or the
    ``SavedTensor`` for ``raw``), ``.a`` / ``.a.k`` a ``ctx`` attribute (or its item)."""
    if source[0] == "#":
        if node._freed:
            if raw:
                return _FreedSaved()
            raise graph._freed_error()
        saved = (node._saved or {}).get("saved_tensors", ())
        i = int(source[1:])
        entry = saved[i] if i < len(saved) else None
        if entry is None:
            return _NoneSaved() if raw else None
        return entry if raw else entry.unpack(node)
    attr, _, item = source[1:].partition(".")
    value = node.__dict__.get(attr)
    return value[int(item)] if item and value is not None else value


# ----------------------------------------------------------------------------- values


def _value(node, sources):
    """The call's non-tensor argument under the first of ``sources`` it has (or the op's
    default for it); None when it has none."""
    values = node._values or {}
    formula = node._formula
    for s in sources:
        v = values.get(s, _MISSING)
        if v is not _MISSING and (v is not None or s == sources[-1]):
            return v
    for s in sources:
        if s in formula.defaults:
            return formula.defaults[s]
    return None


def _convert(kind, value, node):
    if isinstance(value, SavedTensor):
        return value.unpack(node)
    if kind == "i":
        return _int64(value)
    if kind == "I":
        if value is None:
            return None
        if not isinstance(value, (tuple, list)):
            value = (value,)
        return tuple(_int64(v) for v in value)
    if kind == "T" and isinstance(value, (tuple, list)):
        return tuple(v.unpack(node) if isinstance(v, SavedTensor) else v for v in value)
    return value


def _int64(v):
    """An ``int64_t`` as PyTorch's getters hand it to Python: unsigned."""
    if isinstance(v, Tensor):
        v = int(v)
    if isinstance(v, int) and not isinstance(v, bool) and v < 0:
        return v + 2**64
    return v


def raw_saved(entries):
    """``SavedTensor``s for ``entries`` (one for each None too, as PyTorch's)."""
    return tuple(e if e is not None else _NoneSaved() for e in entries)


def _raw(value):
    if isinstance(value, (tuple, list)):
        return tuple(_raw(v) for v in value)
    if isinstance(value, SavedTensor):
        return value
    if isinstance(value, Tensor):
        return SavedTensor(value)
    return _NoneSaved()


def _tensor(node, sources, raw):
    """A saved tensor (unpacked, or the ``SavedTensor`` for ``raw``); a number PyTorch wraps
    into a 0-d tensor (``x * 2``: ``_saved_other`` is ``tensor(2)``); a number argument as
    it is (``2 ** x``: ``_saved_self`` is 2); None for a value the call did not save."""
    saved = node._saved
    formula = node._formula
    values = node._values or {}
    for s in sources:
        index = None
        if s.startswith("result") and s != "result":
            s, index = "result", int(s[len("result") :])
        if saved is not None and s in saved:
            entry = saved[s]
            if index is not None:
                entry = entry[index] if isinstance(entry, list) and index < len(entry) else None
            if entry is None:
                return _NoneSaved() if raw else None
            if isinstance(entry, list):
                return tuple(e if raw else e.unpack(node) if e is not None else None for e in entry)
            return entry if raw else entry.unpack(node)
        v = values.get(s, _MISSING)
        if v is _MISSING:
            continue
        if v is not None and s in formula.wrapped and v.__class__ in (bool, int, float, complex):
            # PyTorch saved the 0-d tensor it wrapped the number in (freed with the graph).
            if node._freed:
                raise graph._freed_error()
            wrapped = _wrapped_number(v)
            return SavedTensor(wrapped) if raw else wrapped
        if raw:
            return _NoneSaved()
        return v
    # A tensor argument (or output) not saved here: the call did not need it, or the graph
    # was freed.
    if node._freed and _was_saved(node, sources):
        if raw:
            return _FreedSaved()
        raise graph._freed_error()
    return _NoneSaved() if raw else None


def _was_saved(node, sources):
    """Whether the node saved a tensor under one of ``sources`` (its graph since freed)."""
    formula = node._formula
    needs = (node._values or {}).get("__needs__")
    skip = formula.unneeded(needs, node) if needs is not None else ()
    for s in sources:
        if s.startswith("result"):
            if formula.saves_result and "result" not in skip and s not in skip:
                return True
        elif s in formula.save and s not in skip:
            return True
    return False


def _wrapped_number(v):
    """The 0-d CPU tensor PyTorch wraps a Python number in (whatever the device)."""
    return J.tensor(v, dtype=_WRAPPED_DTYPES[type(v)], device="cpu")


_WRAPPED_DTYPES = {
    bool: _dtypes.bool_,
    int: _dtypes.int64,
    float: _dtypes.float64,
    complex: _dtypes.complex128,
}


def _describe_input(node, entry):
    """``<input>_sym_sizes`` / ``_sym_strides`` / ``_sym_numel`` / ``_sym_argsize_<d>``."""
    formula = node._formula
    name = entry.sources[0]
    meta = None
    index = None
    for i, n in enumerate(formula.inputs):
        if n == name:
            index = i
    if index is None:
        aliases = {"mat2": "other", "tensor": "other", "vec": "other"}
        name = aliases.get(name, name)
        index = formula.inputs.index(name) if name in formula.inputs else None
    if index is not None and index < len(node._input_meta):
        meta = node._input_meta[index]
    if meta is None:
        return None
    shape = tuple(meta[0])
    kind = entry.kind
    if kind == "_sym_sizes":
        return shape
    if kind == "_sym_numel":
        return math.prod(shape)
    if kind == "_sym_strides":
        needs = (node._values or {}).get("__needs__", ())
        if index >= len(needs) or not needs[index] or len(meta) < 4:
            return ()  # kept only for that input's own gradient
        return tuple(meta[3])
    d = int(entry.name.rsplit("_", 1)[1])
    return shape[d]


class _NoneSaved(SavedTensor):
    """The ``SavedTensor`` of a value the node did not save (``None``)."""

    __slots__ = ()

    def __init__(self):
        self.tensor = None
        self.unpack_hook = None

    def register_hooks(self, pack_hook, unpack_hook):
        """Refused: nothing was saved."""
        from .._errors import TensorRuntimeError

        raise TensorRuntimeError(
            "Calling register_hooks on a saved tensor with value None is forbidden"
        )


class _FreedSaved(SavedTensor):
    """The ``SavedTensor`` of a value freed with the graph."""

    __slots__ = ()

    def __init__(self):
        self.tensor = None
        self.unpack_hook = None


for _cls in (_NoneSaved, _FreedSaved):
    _cls.__name__ = _cls.__qualname__ = "SavedTensor"
    _cls.__module__ = "torch._C._autograd"


# ----------------------------------------------------------------------------- computed


def _key(node):
    return node._values["key_box"].key


def _key_items(key):
    if isinstance(key, tuple):
        return key
    return (key,)


def _specified(items):
    """How many of the indexed tensor's dims a key's items address (a mask its own dims)."""
    count = 0
    for k in items:
        if isinstance(k, Tensor) and k._dtype is _dtypes.bool_:
            count += k.dim()
        elif k is not None and k is not Ellipsis and not isinstance(k, bool):
            count += 1
    return count


def _basic_steps(shape, key):
    """The view ops PyTorch applies for the basic items of an indexing key, in order:
    ``(kind, dim, args, shape before)``, and the shape after them."""
    from .formulas.views import _is_int

    items = _key_items(key)
    skipped = len(shape) - _specified(items)  # the dims an Ellipsis stands for
    shape = list(shape)
    d = 0
    steps = []
    for k in items:
        if k is None or isinstance(k, bool):
            steps.append(("unsqueeze", d, (), tuple(shape)))
            shape.insert(d, 1)
            d += 1
        elif k is Ellipsis:
            d += skipped
        elif isinstance(k, slice):
            n = shape[d] if d < len(shape) else 0
            start, stop, step = k.start, k.stop, k.step
            # (applied unless it keeps everything; a lone slice always is)
            keeps = (
                (start is None or start == 0)
                and (stop is None or stop >= n)
                and (step is None or step == 1)
            )
            if isinstance(key, slice) or not keeps:
                args = (
                    0 if start is None else start,
                    _INT64_MAX if stop is None else stop,
                    1 if step is None else step,
                )
                steps.append(("slice", d, args, tuple(shape)))
                shape[d] = len(range(*k.indices(n)))
            d += 1
        elif _is_int(k):
            steps.append(("select", d, (int(k),), tuple(shape)))
            shape.pop(d)
        else:
            # An advanced index: left for ``index`` (a mask spans its dims).
            d += k.dim() if isinstance(k, Tensor) and k._dtype is _dtypes.bool_ else 1
    return steps, tuple(shape)


def _last_step(node):
    steps, _ = _basic_steps(node._input_meta[0][0], _key(node))
    return steps[-1] if steps else (None, 0, (None, None, None), node._input_meta[0][0])


def _key_indices(node):
    """``IndexBackward0``'s ``indices``: one entry per dim of the viewed tensor up to the
    last advanced index, None where a basic item (a slice, an unsqueezed dim) stood."""
    key = _key(node)
    items = (key,) if isinstance(key, list) else _key_items(key)
    saved = (
        iter(node._saved["key_tensors"])
        if node._saved is not None and node._saved.get("key_tensors") is not None
        else None
    )
    if saved is None and any(isinstance(k, Tensor) for k in items):
        raise graph._freed_error()
    skipped = len(node._input_meta[0][0]) - _specified(items)
    out = []
    from .formulas.views import _is_int

    for k in items:
        if k is None or isinstance(k, bool) or isinstance(k, slice):
            out.append(None)
        elif k is Ellipsis:
            out.extend([None] * skipped)
        elif isinstance(k, Tensor):
            out.append(next(saved))
        elif _is_int(k):
            continue  # a select: no entry
        else:
            out.append(SavedTensor(J.tensor(k)))
    while out and out[-1] is None:
        out.pop()
    return tuple(out)


def _index_sizes(node):
    key = _key(node)
    if isinstance(key, list):
        return tuple(node._input_meta[0][0])
    return _basic_steps(node._input_meta[0][0], key)[1]


def _narrow_start(node):
    start = _value(node, ("start",))
    start = int(start)
    if start < 0:
        start += node._input_meta[0][0][_dim_of(node)]
    return start


def _dim_of(node):
    dim = int(_value(node, ("dim",)))
    n = len(node._input_meta[0][0])
    return dim + n if dim < 0 else dim


def _chunk_size(node):
    size = node._input_meta[0][0][_dim_of(node)]
    chunks = int(_value(node, ("chunks",)))
    return -(-size // chunks)


def _correction(node):
    """``var``/``std``'s correction as PyTorch's ``correction`` overload records it: None
    for a full reduction left at its default, else the number of degrees removed."""
    values = node._values or {}
    correction = values.get("correction")
    if correction is not None:
        return correction
    unbiased, dim = values.get("unbiased"), values.get("dim")
    if isinstance(dim, bool):
        unbiased, dim = dim, None  # ``x.var(False)``: the ``unbiased`` overload
    if unbiased is None:
        return None if dim is None else 1
    return 1 if unbiased else 0


def _var_dim(node):
    dim = (node._values or {}).get("dim")
    return None if isinstance(dim, bool) else dim


def _norm_ord(node):
    p = _value(node, ("p",))
    return 2 if p is None or p == "fro" else p


def _reduction(node):
    """A loss's ``reduction`` as PyTorch's enum saves it: none 0, mean 1, sum 2."""
    r = node.__dict__.get("reduction")
    return {"none": 0, "mean": 1, "sum": 2}.get(r, r)


def _number_divided(node):
    """``2 / x`` is ``x.reciprocal() * 2`` in PyTorch: its ``other`` is the wrapped 2."""
    v = _value(node, ("input",))
    if node._freed:
        raise graph._freed_error()
    return _wrapped_number(v)


def _movedim_dims(node):
    """``movedim``'s permutation, as PyTorch's ``PermuteBackward0`` keeps it."""
    ndim = len(node._input_meta[0][0])
    source, destination = (_value(node, (k,)) for k in ("source", "destination"))
    source = [source] if isinstance(source, int) else list(source)
    destination = [destination] if isinstance(destination, int) else list(destination)
    return tuple(movedim_order(ndim, [wrap_dim(d, ndim) for d in source],
                               [wrap_dim(d, ndim) for d in destination]))


_COMPUTED = {
    "movedim_dims": _movedim_dims,
    "key_dim": lambda node: _last_step(node)[1],
    "key_index": lambda node: _last_step(node)[2][0],
    "key_start": lambda node: _last_step(node)[2][0],
    "key_end": lambda node: _last_step(node)[2][1],
    "key_step": lambda node: _last_step(node)[2][2],
    "key_sizes": lambda node: _last_step(node)[3],
    "key_indices": _key_indices,
    "index_sizes": _index_sizes,
    "narrow_start": _narrow_start,
    "narrow_end": lambda node: _narrow_start(node) + int(_value(node, ("length",))),
    "one": lambda node: 1,
    "two": lambda node: 2,
    "false": lambda node: False,
    "nothing": lambda node: None,
    "chunk_size": _chunk_size,
    "correction": _correction,
    "var_dim": _var_dim,
    "norm_ord": _norm_ord,
    "number_divided": _number_divided,
    "reduction": _reduction,
    "gelu_approximate": lambda node: "tanh" if node.__dict__.get("tanh_approx") else "none",
}
# Computed values PyTorch keeps as saved tensors (with a ``_raw_saved_`` twin).
_COMPUTED_TENSORS = frozenset((_COMPUTED["nothing"], _number_divided, _key_indices))
