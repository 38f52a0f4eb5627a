"""The op registry: one entry per op, filled in as op modules are imported.

``@register(kind)`` records an op, makes its ``OpDef`` available as ``fn.op`` (the
implementation passes it to ``_dispatch.finish``) and attaches the method form to ``Tensor``.
The package exports every op registered with ``function=True``. The test suite walks this
registry: an op without a test spec fails the suite.
"""

from ._argparse import METHOD_VARARGS, has_method_form, make_entry, refill_entry
from ._dispatch import OpDef, Post
from ._errors import TensorRuntimeError

OPS = {}
FUNCTIONS = {}
LAYOUTS = {}       # layout name -> Layout (its Tensor subclass, what it refuses)
_KERNELS = {}      # op name -> {layout name: (kernel, positions)}
_PUBLISHED = {}    # op name -> [_Publication]
_COMMON = Post()   # the common case: nothing declared


def register(kind, name=None, *, method=True, function=True, aliases=(), post=None):
    """Decorator: register ``fn`` as the op ``name`` (default: the function's name).

    ``method`` may be a string to attach under another name (``__add__``) or False.

    The entry finishes each call (version bump, autograd hook, one trace event): ``fn``
    computes and returns. ``post`` (a ``_dispatch.Post``) declares what the event needs
    beyond the common case (other inputs, another written tensor, ``info``); ``post=False``
    means that ``fn`` calls ``finish`` itself (``nn_op``: its body is an autograd Function).
    """

    def decorate(fn):
        op_name = name or fn.__name__
        if op_name.startswith("_") and not op_name.startswith("__"):
            # A private helper caught by a decorator meant for the function below it.
            raise TensorRuntimeError(f"refusing to register private function {op_name!r} as an op")
        if op_name in OPS:
            raise TensorRuntimeError(f"op {op_name!r} is registered twice")
        declared = post
        if declared is None:
            declared = _COMMON
        elif declared is False:
            declared = None
        op = OpDef(op_name, kind, fn, method, function, declared)
        OPS[op_name] = op
        fn.op = op
        entry, _ = _publish(op, fn, method if isinstance(method, str) else
                            (op_name if method else None), op_name if function else None,
                            aliases)
        op.entry = entry
        return entry

    return decorate


def _publish(op, impl, method_name, function_name, aliases=()):
    """Make the public entry points of ``op`` over ``impl`` (PyTorch's argument rules, the
    layout step when a layout has a kernel for the op and, for differentiable kinds, the route
    to the autograd layer) and attach them: the method as ``Tensor.<method_name>``, the
    function in ``FUNCTIONS[function_name]``; None skips one. Returns ``(function entry,
    method entry)``. The registry keeps the publication, to rebuild it when a layout kernel
    for the op arrives later (``_refresh``)."""
    publication = _Publication(op, impl, method_name, function_name, tuple(aliases))
    _PUBLISHED.setdefault(op.name, []).append(publication)
    _build(publication)
    return publication.entry, publication.method_entry


class _Publication:
    """One publication of an op (``register`` makes one, ``renamed`` more): its entries."""

    __slots__ = ("op", "impl", "method_name", "function_name", "aliases", "entry",
                 "method_entry")

    def __init__(self, op, impl, method_name, function_name, aliases):
        self.op = op
        self.impl = impl
        self.method_name = method_name
        self.function_name = function_name
        self.aliases = aliases
        self.entry = self.method_entry = None


def _build(pub):
    """Generate ``pub``'s entries for the layouts known now and attach them. The function
    entry (what ``register`` returns, ``FUNCTIONS`` holds and operator methods wrap) keeps its
    identity when rebuilt: ``refill_entry`` gives it the new code. The method entry is its own
    object where it differs: ``x.flip(0, 1)`` takes separate ints, ``x.sum(out=y)`` is
    refused, and a method needs no class test of ``self`` (the layout's class answers its
    methods itself, see ``_install``)."""
    from ._tensor import Tensor

    op, impl = pub.op, pub.impl
    function_layouts = _layouts_of(pub, method=False)
    entry = _made(make_entry(op, impl, Tensor, layouts=function_layouts), op, function_layouts)
    if pub.entry is not None and refill_entry(pub.entry, entry):
        entry = pub.entry
    method_entry = entry
    if pub.method_name is not None:
        method_layouts = _layouts_of(pub, method=True)
        if (pub.method_name in METHOD_VARARGS or has_method_form(impl)
                or method_layouts != function_layouts
                or (pub.method_entry is not None and pub.method_entry is not pub.entry)):
            method_entry = _made(make_entry(op, impl, Tensor, method_form=True,
                                            layouts=method_layouts), op, method_layouts)
            old = pub.method_entry
            if old is not None and old is not pub.entry and refill_entry(old, method_entry):
                method_entry = old
        if pub.function_name is None and pub.method_name.startswith("__"):
            # (``Tensor.__getitem__.__name__`` is its own name, as in PyTorch: what a
            # ``__torch_function__`` handler sees as ``func.__name__``)
            method_entry.__name__ = method_entry.__qualname__ = pub.method_name
        for name in (pub.method_name, *pub.aliases):
            setattr(Tensor, name, method_entry)
    if pub.function_name is not None:
        for name in (pub.function_name, *pub.aliases):
            FUNCTIONS[name] = entry
    if pub.entry is not None and entry is not pub.entry and op.entry is pub.entry:
        op.entry = entry
    pub.entry, pub.method_entry = entry, method_entry
    _install(pub)


def _made(entry, op, layouts):
    entry.op = op
    if layouts and getattr(entry, "__globals__", {}).get("_self") is not entry:
        raise TensorRuntimeError(f"op {op.name!r} has a layout kernel but no generated entry "
                                 "(its signature is one the argument parser cannot read)")
    return entry


def renamed(registered, impl, *, function=True, method=True):
    """Publish the op behind the entry ``registered`` under ``impl``'s name with ``impl``'s
    signature, where PyTorch names the arguments differently there (``swapaxes(input,
    axis0, axis1)`` is ``transpose(input, dim0, dim1)``). ``impl`` passes its arguments on to
    the op's implementation, so a call is still one call of the op: one trace event, its
    gradient formula and node name. Returns the function entry (the method entry when
    ``function`` is False)."""
    name = impl.__name__
    entry, method_entry = _publish(registered.op, impl, name if method else None,
                                   name if function else None)
    return entry if function else method_entry


def define(kind, name, impl, *, method=True, function=True, post=None):
    """Register an op whose implementation is built by a factory (many element-wise ops)."""
    impl.__name__ = name
    impl.__qualname__ = name
    return register(kind, name, method=method, function=function, post=post)(impl)


def tensor_method(name=None):
    """Attach a helper that is not an op of its own (composes registered ops) to Tensor."""

    def decorate(fn):
        from ._tensor import Tensor

        setattr(Tensor, name or fn.__name__, fn)
        for layout in LAYOUTS.values():   # a method the layout refuses (``type_as``)
            _install_refusal(layout, name or fn.__name__)
        return fn

    return decorate


# ----------------------------------------------------------------------------- layouts
# PyTorch dispatches an op on the layouts of its tensor arguments (a sparse operand selects
# the op's SparseCPU kernel). Here a layout is a Tensor subclass (``SparseCOOTensor``) and
# the registry owns the choice: an op with a kernel for a layout gets a class test of the
# arguments it names in its generated entry (the layout step, after parsing, the device
# check and autocast, before autograd), and the layout's class gets a method for each of the
# op's method names it does not define itself. Ops without a layout kernel are untouched:
# the dense path pays nothing. Registration order does not matter: a kernel or layout
# registered before the op is used when the op registers, one registered after rebuilds the
# op's entries in place (``_refresh``).

class Layout:
    """A tensor layout other than strided: its class, its refusal, what it refuses."""

    __slots__ = ("name", "cls", "error", "refuse_kinds", "refuse_methods", "installed")

    def __init__(self, name, cls, error, refuse_kinds, refuse_methods):
        self.name = name
        self.cls = cls
        self.error = error
        self.refuse_kinds = frozenset(refuse_kinds)
        self.refuse_methods = frozenset(refuse_methods)
        self.installed = set()   # the class's attributes the registry set (not its own)

    def own(self, attr):
        """The class's own definition of ``attr`` (from its body, not installed), or None."""
        if attr in self.installed:
            return None
        return self.cls.__dict__.get(attr)

    def refusal(self, name):
        """A kernel refusing the op ``name`` on this layout (``error(name)``)."""
        error = self.error

        def refuse(*args, **kwargs):
            raise error(name)

        refuse.__name__ = refuse.__qualname__ = name
        refuse.__doc__ = f"``{name}`` is not supported on {self.name} tensors (as in PyTorch)."
        return refuse


def register_layout(name, cls, *, error, refuse_kinds=(), refuse_methods=()):
    """Declare the layout ``name`` held by the Tensor subclass ``cls``. Ops of the kinds in
    ``refuse_kinds`` (``"view"``: they rewrite strides over a storage the layout does not
    have) dispatch on their first argument to ``cls``'s own method of the op's name, or
    refuse with ``error(op name)``; the methods named in ``refuse_methods`` refuse on
    ``cls`` (the method only). ``layout_kernel`` adds an op's kernel."""
    if name in LAYOUTS:
        raise TensorRuntimeError(f"layout {name!r} is registered twice")
    layout = LAYOUTS[name] = Layout(name, cls, error, refuse_kinds, refuse_methods)
    from ._tensor import Tensor

    for attr in sorted(layout.refuse_methods):
        if hasattr(Tensor, attr):
            _install_refusal(layout, attr)
    for op_name, pubs in list(_PUBLISHED.items()):
        # Only the ops the new layout changes (a kernel or a refusal): rebuilding every
        # entry would cost each later layout (a CausalBias) tens of milliseconds.
        if any(_kernel_of(pub, layout) is not None for pub in pubs):
            _refresh(op_name)
    return layout


def layout_kernel(op_name, layout, *, on=(0,)):
    """Decorator: ``fn`` is the op ``op_name``'s kernel for ``layout``, called (with the
    call's arguments as the op's implementation takes them) when an argument at one of the
    positions ``on`` (positional parameters, 0 = ``input``/``self``) is a tensor of that
    layout; the method forms test ``on`` without ``self``."""

    def decorate(fn):
        kernels = _KERNELS.setdefault(op_name, {})
        if layout in kernels:
            raise TensorRuntimeError(f"op {op_name!r} has two kernels for layout {layout!r}")
        kernels[layout] = (fn, tuple(on))
        _refresh(op_name)
        return fn

    return decorate


def _kernel_of(pub, layout):
    """``(kernel, positions)`` of ``pub``'s op on ``layout`` (kernel None: the op refuses),
    or None: no layout step."""
    op = pub.op
    kernel = _KERNELS.get(op.name, {}).get(layout.name)
    if kernel is not None:
        return kernel
    if op.kind in layout.refuse_kinds:
        return layout.own(op.method if isinstance(op.method, str) else op.name), (0,)
    return None


def _layouts_of(pub, method):
    """The layout step of one of ``pub``'s entries: ``((cls, kernel, positions), ...)``."""
    found = []
    for layout in LAYOUTS.values():
        kernel = _kernel_of(pub, layout)
        if kernel is None:
            continue
        fn, positions = kernel
        fn = fn or layout.refusal(pub.function_name or pub.method_name)
        if method:
            positions = tuple(p for p in positions if p != 0)
        if positions:
            found.append((layout.cls, fn, positions))
    return tuple(found)


def _refresh(op_name):
    """Rebuild the entries of ``op_name`` (if registered) for the layouts known now."""
    if not LAYOUTS:
        return
    for pub in _PUBLISHED.get(op_name, ()):
        if any(_kernel_of(pub, layout) is not None for layout in LAYOUTS.values()):
            _build(pub)


def _install(pub):
    """Give each layout's class the methods of ``pub`` it does not define itself: its kernel
    (a call on a ``cls`` tensor ``self`` reaches the class first, so the method entries on
    Tensor need no test of ``self``)."""
    if pub.method_name is None:
        return
    for layout in LAYOUTS.values():
        for attr in (pub.method_name, *pub.aliases):   # a method the layout refuses (``mv``)
            _install_refusal(layout, attr)
        kernel = _kernel_of(pub, layout)
        if kernel is None:
            continue
        for attr in (pub.method_name, *pub.aliases):
            if layout.own(attr) is None:
                # a refusal names the op (``x._alias()`` is ``aten::alias``), or the alias
                name = pub.op.name if attr == pub.method_name else attr
                setattr(layout.cls, attr, kernel[0] or layout.refusal(name))
                layout.installed.add(attr)


def _install_refusal(layout, attr):
    if attr in layout.refuse_methods and layout.own(attr) is None:
        setattr(layout.cls, attr, layout.refusal(attr))
        layout.installed.add(attr)
