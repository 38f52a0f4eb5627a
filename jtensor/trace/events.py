"""What a trace holds: events, and metadata snapshots of the tensors they touched.

Both are plain records (``__slots__``, no methods that reach back into the core), so the
widgets of ``jtensor.widgets`` and any other reader can walk a trace freely. A snapshot keeps
a *weak* reference to its tensor and metadata only (values only when the recorder was asked
for small values), so recording never keeps a tensor's memory alive.

Event fields (``Event``):

- ``index``: position in the trace (0, 1, 2...).
- ``kind``: what happened, one of ``"view"`` (an op whose result shares its input's
  storage), ``"copy"`` (an op that computed a new storage from its inputs), ``"in-place"``
  (an op that wrote into an existing tensor), ``"allocation"`` (a factory: new storage from
  nothing), ``"transfer"`` (bytes moved between devices), ``"sync"`` (the host waited for a
  device), ``"launch"`` (a kernel queued on an asynchronous device), ``"backward"`` (one
  autograd node run), ``"backward-call"`` (``backward()`` itself), ``"notice"`` (something the
  pitfall analysis wants to know: ``.data``, ``tensor(tensor)``, a refused write, a failed
  view, ``scheduler.step()``).
- ``name``: the op name (``"add"``, ``"__getitem__"``), the node name for backward events
  (``"MulBackward0"``), the reason for syncs, the notice's name.
- ``op_kind``: the registry kind of an op (``view``, ``elementwise``, ``reduction``, ``copy``,
  ``inplace``, ``factory``, ``query``, ``nn`` for an ``nn.functional`` op such as ``conv2d``:
  one event for the whole call), else None.
- ``inputs``, ``outputs``: lists of ``TensorSnapshot``; ``modified``: the snapshot of the
  tensor written in place (also found among the outputs), else None.
- ``nbytes_allocated``: bytes of storage this event created (0 for views and in-place ops).
- ``filename``, ``line``: where in the user's code it happened (the first frame outside
  jtensor); ``source``: that line's text, stripped.
- ``grad_fn``: the name of the autograd node the op created (None when it recorded nothing).
- ``info``: a dict of extra JSON-friendly facts (``{"copied": True}`` for a reshape that
  copied, ``{"device": "cuda:0", "reason": "item"}`` for a sync, ``{"grads": [[2, 3]]}``
  for a backward node: the shapes of the gradients it produced, ``None`` where it produced
  none...).
"""

__all__ = ["Event", "TensorSnapshot"]


class TensorSnapshot:
    """The metadata of one tensor at one event (no data; values only when asked for).

    Fields: ``label`` (an int, 1, 2... by first appearance of the tensor in the trace, the
    same for every snapshot of one tensor; ``trace.name_of(snapshot)`` gives the user's
    variable name, or ``t1``, ``t2``... for unnamed tensors), ``shape``, ``stride``,
    ``offset`` (tuples and int, in elements), ``dtype`` and ``device`` (strings such as
    ``"torch.float32"`` and ``"cpu"``), ``storage`` (a stable label ``S1``, ``S2``...),
    ``storage_nbytes``,
    ``requires_grad``, ``is_leaf``, ``grad_fn`` (node name or None), ``is_view``,
    ``contiguous``, ``version_before`` and ``version`` (after the event), ``values`` (a nested
    list for tensors of at most ``small_values`` elements when the recorder was asked,
    else None). ``tensor()`` gives the live tensor back, or None once it is gone.
    """

    __slots__ = ("label", "ref", "shape", "stride", "offset", "dtype", "device", "storage",
                 "storage_nbytes", "requires_grad", "is_leaf", "grad_fn", "is_view",
                 "contiguous", "version_before", "version", "values", "numel")

    def tensor(self):
        """The tensor this snapshot was taken of, or None when it no longer exists."""
        return self.ref()

    @property
    def overlapping(self):
        """Whether two index tuples reach one memory cell (a stride 0 of an expanded
        dimension, or ``unfold``/``as_strided`` layouts)."""
        return _overlapping(self.shape, self.stride)

    def to_dict(self, name=None):
        """JSON-friendly fields (``name`` is the user's variable name, when known)."""
        return {"label": self.label, "name": name, "shape": list(self.shape),
                "stride": list(self.stride), "offset": self.offset, "dtype": self.dtype,
                "device": self.device, "storage": self.storage,
                "storage_nbytes": self.storage_nbytes, "requires_grad": self.requires_grad,
                "is_leaf": self.is_leaf, "grad_fn": self.grad_fn, "is_view": self.is_view,
                "contiguous": self.contiguous, "version_before": self.version_before,
                "version": self.version, "values": self.values}

    def __repr__(self):
        return (f"<TensorSnapshot {self.label} shape={list(self.shape)} "
                f"stride={list(self.stride)} offset={self.offset} {self.dtype} "
                f"storage={self.storage}>")


def _overlapping(shape, stride):
    dims = sorted((abs(s), n) for n, s in zip(shape, stride, strict=True) if n > 1)
    reach = 0  # the furthest element offset the smaller dimensions reach
    for s, n in dims:
        if s == 0 or s <= reach:
            return True
        reach += s * (n - 1)
    return False


class Event:
    """One recorded event (fields described in this module's docstring)."""

    __slots__ = ("index", "kind", "name", "op_kind", "_inputs", "_outputs", "_modified",
                 "nbytes_allocated", "filename", "line", "source", "grad_fn", "_info", "_refs")

    def __init__(self, index, kind, name, op_kind=None, inputs=(), outputs=(), modified=None,
                 nbytes_allocated=0, filename=None, line=None, info=None, refs=None):
        self.index = index
        self.kind = kind
        self.name = name
        self.op_kind = op_kind
        # The recorder stores compact tuples; they become TensorSnapshots on first access.
        self._inputs = inputs      # tuples of compact snapshots until first read
        self._outputs = outputs
        self._modified = modified  # index into outputs, or None
        self.nbytes_allocated = nbytes_allocated
        self.filename = filename
        self.line = line
        self.source = None
        self.grad_fn = None
        self._info = info
        self._refs = refs  # the recorder's weak references (label k at [k - 1])

    @property
    def info(self):
        """Extra JSON-friendly facts about the event (a dict, possibly empty)."""
        info = self._info
        if info is None:
            info = self._info = {}
        return info

    @property
    def inputs(self):
        """Snapshots of the tensors the event read."""
        items = self._inputs
        if items.__class__ is not list:
            items = self._inputs = [_materialize(i, self._refs) if i.__class__ is tuple
                                    else i for i in items]
        return items

    @property
    def outputs(self):
        """Snapshots of the tensors the event produced (or wrote, for in-place ops)."""
        items = self._outputs
        if items.__class__ is not list:
            items = self._outputs = [_materialize(i, self._refs) if i.__class__ is tuple
                                     else i for i in items]
        return items

    @property
    def modified(self):
        """The snapshot of the tensor written in place (one of ``outputs``), else None."""
        return None if self._modified is None else self.outputs[self._modified]

    def tensors(self):
        """Every snapshot of this event: inputs, then outputs."""
        return self.inputs + self.outputs

    def to_dict(self, names=None):
        """JSON-friendly fields; ``names`` maps snapshot labels to variable names."""
        names = names or {}
        return {"index": self.index, "kind": self.kind, "name": self.name,
                "op_kind": self.op_kind,
                "inputs": [s.to_dict(names.get(s.label)) for s in self.inputs],
                "outputs": [s.to_dict(names.get(s.label)) for s in self.outputs],
                "modified": self.modified.label if self.modified is not None else None,
                "nbytes_allocated": self.nbytes_allocated, "filename": self.filename,
                "line": self.line, "source": self.source, "grad_fn": self.grad_fn,
                "info": {k: _jsonable(v) for k, v in self.info.items()}}

    def __repr__(self):
        where = f" line {self.line}" if self.line is not None else ""
        return f"<Event {self.index} {self.kind} {self.name}{where}>"


def _jsonable(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)


# The compact form the recorder stores (a flat tuple of numbers and strings, cheap to build
# on every op and soon ignored by the garbage collector):
# (label, shape, stride, offset, dtype name, (storage label, storage nbytes, device name),
#  requires_grad, grad_fn name, is_view, contiguous or None, version_before, version, values)
# ``refs`` is the recorder's list of weak references: the tensor of label k at [k - 1].


def _dead():
    return None


def _materialize(raw, refs):
    (label, shape, stride, offset, dtype, facts, requires_grad, fn, is_view, contiguous,
     version_before, version, values) = raw
    s = TensorSnapshot.__new__(TensorSnapshot)
    s.ref = refs[label - 1] if refs is not None and 0 < label <= len(refs) else _dead
    s.label = label
    s.shape = tuple(shape)
    s.stride = tuple(stride)
    s.offset = offset
    s.dtype = dtype
    s.storage, s.storage_nbytes, s.device = facts
    s.requires_grad = requires_grad
    s.is_leaf = fn is None
    s.grad_fn = fn
    s.is_view = is_view
    if contiguous is None:
        from .._layout import is_contiguous

        contiguous = is_contiguous(shape, stride)
    s.contiguous = contiguous
    s.version_before = version if version_before < 0 else version_before
    s.version = version
    numel = 1
    for n in shape:
        numel *= n
    s.numel = numel
    s.values = values
    return s
