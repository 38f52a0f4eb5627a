"""``torch.compile`` and ``torch.compiler``: a documented no-op compiler.

jtensor runs eagerly on NumPy, so there is no graph to capture and nothing to generate.
Teaching code still calls ``torch.compile(model)`` (and saves the result's ``state_dict``),
so ``compile`` keeps PyTorch's interface and visible structure: an ``nn.Module`` comes back
wrapped in an ``OptimizedModule`` whose only child is ``_orig_mod`` (its ``state_dict`` keys
get PyTorch's ``_orig_mod.`` prefix, attribute reads and writes reach the original module), a
function comes back wrapped (``__wrapped__`` is the function), and PyTorch's argument checks
apply. The wrapped callables run the original code unchanged.
"""

import functools

from .nn.modules.module import Module

__all__ = [
    "OptimizedModule",
    "allow_in_graph",
    "compile",
    "cudagraph_mark_step_begin",
    "disable",
    "get_default_backend",
    "is_compiling",
    "is_dynamo_compiling",
    "is_exporting",
    "list_backends",
    "reset",
    "set_default_backend",
]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# PyTorch's CPU builds list these; "eager" runs the captured graph as is, which is what
# jtensor does for every backend.
_BACKENDS = ["cudagraphs", "inductor", "openxla", "tvm"]
_default_backend = ["inductor"]


class InvalidBackend(RuntimeError):
    """A backend name PyTorch's registry does not know (``torch._dynamo.exc.InvalidBackend``)."""

    def __init__(self, name):
        super().__init__(
            f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available "
            "backends."
        )


class OptimizedModule(Module):
    """What ``torch.compile(module)`` returns: a module holding the original as ``_orig_mod``.

    Calls run the original module (its hooks included); attribute reads, writes and deletes
    that are not the wrapper's own go to the original, and ``training`` mirrors it, as in
    PyTorch. Parameters appear once, under ``_orig_mod.``.
    """

    _opt_mod_attributes = {"_orig_mod", "forward", "dynamo_ctx", "_super_module_initialized"}

    def __init__(self, mod, dynamo_ctx=None):
        # _orig_mod first: attribute access on self already reaches it during Module.__init__.
        object.__setattr__(self, "_orig_mod", mod)
        object.__setattr__(self, "_super_module_initialized", False)
        super().__init__()
        object.__setattr__(self, "_super_module_initialized", True)
        del self.__dict__["_orig_mod"]
        self._modules["_orig_mod"] = mod
        self.dynamo_ctx = dynamo_ctx
        self.forward = mod.__call__

    @property
    def training(self):
        return self._orig_mod.training

    @training.setter
    def training(self, value):
        # Module.__init__ sets the default; the mode is the original module's.
        if self.__dict__.get("_super_module_initialized"):
            self._orig_mod.training = value

    def __getattr__(self, name):
        if name == "_orig_mod":
            try:
                return self.__dict__["_modules"]["_orig_mod"]
            except KeyError:
                raise AttributeError(name) from None
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__delattr__(name)
        return delattr(self._orig_mod, name)

    def __len__(self):
        try:
            return len(self._orig_mod)
        except TypeError:
            raise TypeError(f"{type(self._orig_mod).__name__} does not support len()") from None

    def __dir__(self):
        own = self._orig_mod.__dir__()
        return own + [name for name in super().__dir__() if name not in own]


def _check_options(mode, options, backend):
    if mode is not None and options is not None:
        raise RuntimeError(
            "Either mode or options can be specified, but both can't be specified at the same time."
        )
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in _BACKENDS + ["eager", "aot_eager"]:
        raise InvalidBackend(backend)


def compile(
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend=None,
    mode=None,
    options=None,
    name=None,
    disable=False,
    recompile_limit=None,
    isolate_recompiles=False,
    shapes_spec=None,
):
    """PyTorch's ``torch.compile`` interface; the result runs ``model`` eagerly, unchanged.

    ``model=None`` returns a decorator taking the same options. An ``nn.Module`` comes back as
    an :class:`OptimizedModule` (``_orig_mod`` is the module, ``state_dict`` keys start with
    ``_orig_mod.``); a function comes back wrapped with ``functools.wraps``. ``disable=True``
    returns ``model`` itself. ``mode``/``options``/``backend`` are checked as PyTorch does
    (an unknown mode or both mode and options: ``RuntimeError``; an unknown backend name:
    ``InvalidBackend``), then ignored: jtensor has no compiler.
    """
    if model is None:

        def fn(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(
                model,
                fullgraph=fullgraph,
                dynamic=dynamic,
                backend=backend,
                mode=mode,
                options=options,
                name=name,
                disable=disable,
                recompile_limit=recompile_limit,
                isolate_recompiles=isolate_recompiles,
                shapes_spec=shapes_spec,
            )

        return fn
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    _check_options(mode, options, backend if backend is not None else _default_backend[0])
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)

    return compiled


def is_compiling():
    """False: jtensor never traces a program (PyTorch's answer outside ``torch.compile``)."""
    return False


def is_dynamo_compiling():
    """False: there is no Dynamo trace in jtensor."""
    return False


def is_exporting():
    """False: there is no ``torch.export`` trace in jtensor."""
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """Exclude ``fn`` from compilation: with nothing compiled, ``fn`` itself (or a decorator
    returning its argument when ``fn`` is None)."""
    if fn is None:
        return lambda f: f
    return fn


def allow_in_graph(fn):
    """Mark ``fn`` as traceable as a whole; a no-op eagerly, returns ``fn``."""
    return fn


def reset():
    """Clear compilation caches: there are none."""


def cudagraph_mark_step_begin():
    """Mark a CUDA-graph step boundary; jtensor records no CUDA graphs, so nothing to do."""


def list_backends(exclude_tags=("debug", "experimental")):
    """The backend names ``compile`` accepts (PyTorch's non-debug list on a CPU build)."""
    return sorted(_BACKENDS)


def get_default_backend():
    """The backend ``compile`` uses when none is named."""
    return _default_backend[0]


def set_default_backend(backend):
    """Set the backend ``compile`` uses when none is named (PyTorch checks it at compile)."""
    _default_backend[0] = backend
