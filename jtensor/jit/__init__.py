"""``torch.jit`` (TorchScript) without a compiler: script and trace objects that run Python.

jtensor runs eagerly on NumPy and has no compiler or graph IR (the same stance as its
``torch.compile``, :mod:`jtensor.compiler`). Teaching code still scripts, traces, times,
saves and loads models, so this module keeps PyTorch's observable surface and runs the Python
code it wraps:

* ``script(module)`` returns a :class:`RecursiveScriptModule` mirroring the module tree
  (children are ``RecursiveScriptModule`` too, ``repr`` is PyTorch's with ``original_name``),
  sharing the original's parameters and buffers (``state_dict`` keys unchanged); calling it
  runs the original module. ``script(function)`` returns a :class:`ScriptFunction`.
* ``trace(module_or_function, example_inputs)`` runs once with the example inputs, with
  PyTorch's input and output checks and its ``TracerWarning`` when the traced code turns a
  tensor into a Python value, and returns a :class:`TopLevelTracedModule` (or a
  :class:`ScriptFunction`) that runs the Python code again on every call.
* ``save``/``load`` round-trip a scripted or traced model through a zip archive of jtensor's
  own (``jtensor.save`` of the original module inside).

Honest differences from PyTorch:

* Nothing is compiled. ``.code``, ``.graph`` and friends raise a ``RuntimeError`` saying so, and
  TorchScript's type checks (unannotated arguments must be tensors, unsupported Python in
  ``forward``) are not applied: the code runs as Python, so it accepts what Python accepts.
* A traced object does not freeze control flow: PyTorch records the operations of the example
  run and replays them (an ``if`` on a tensor keeps the branch of the example), jtensor runs
  the Python again for each input. PyTorch's ``check_trace`` comparison is not performed.
* A script module shares all state with the module it wraps: attributes, parameters and
  buffers, and the training mode (``scripted.eval()`` also puts the original in eval mode;
  PyTorch's copy has its own attributes and mode and shares only parameters and buffers).
* ``save`` writes the original module with pickle (by reference to its class): ``load`` needs
  the module's class importable (defined in the running program or an installed module), and,
  like ``torch.load(weights_only=False)``, must only be given files you trust. PyTorch cannot
  load these files, and jtensor cannot load PyTorch's TorchScript archives (it cannot run
  TorchScript code); both say so.
"""

import contextlib
import enum
import inspect
import io
import os
import pickle
import sys
import typing
import warnings
import zipfile
from collections import OrderedDict

from .._tensor import Tensor
from ..nn.modules.module import Module
from ..serialization import load as _jt_load
from ..serialization import save as _jt_save

__all__ = [
    "Attribute",
    "Error",
    "Final",
    "Future",
    "RecursiveScriptModule",
    "ScriptFunction",
    "ScriptModule",
    "ScriptWarning",
    "TopLevelTracedModule",
    "TracedModule",
    "TracerWarning",
    "annotate",
    "enable_onednn_fusion",
    "export",
    "fork",
    "freeze",
    "ignore",
    "interface",
    "is_scripting",
    "is_tracing",
    "load",
    "onednn_fusion_enabled",
    "optimize_for_inference",
    "optimized_execution",
    "save",
    "script",
    "script_if_tracing",
    "set_fusion_strategy",
    "trace",
    "unused",
    "wait",
]

Final = typing.Final

_NO_COMPILER = (
    "jtensor has no TorchScript compiler: a scripted or traced object runs the Python code it "
    "wraps, so there is no {what} to show (see help(jtensor.jit))."
)


def _warn_optimize(optimize):
    """PyTorch's warning for ``script``/``trace``'s deprecated ``optimize`` argument."""
    if optimize is not None:
        warnings.warn(
            "`optimize` is deprecated and has no effect. "
            "Use `with torch.jit.optimized_execution()` instead",
            FutureWarning,
            stacklevel=3,
        )


def _write(f, data):
    """``data`` written to ``f``: a path (created or replaced) or a binary file object."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as handle:
            handle.write(data)
    else:
        f.write(data)


class Error(Exception):
    """``torch.jit.Error``: an exception raised from TorchScript code (PyTorch's derives from
    ``Exception`` directly). jtensor runs Python, whose own exceptions propagate unchanged."""


class TracerWarning(Warning):
    """``torch.jit.TracerWarning``: the traced code did something a trace cannot record."""


class ScriptWarning(Warning):
    """``torch.jit.ScriptWarning``."""


def _deprecated(name, instead="Please switch to `torch.compile` or `torch.export`."):
    # PyTorch 2.13 warns on each TorchScript entry point, without a stacklevel: the warning
    # is attributed to the library, so Python's default filters hide it outside tests.
    warnings.warn(f"`torch.jit.{name}` is deprecated. {instead}", DeprecationWarning, stacklevel=1)


# ---------------------------------------------------------------------------- modules
class ScriptModule(Module):
    """``torch.jit.ScriptModule``: the base of scripted, traced and loaded modules.

    Instances come from :func:`script`, :func:`trace`, :func:`freeze` and :func:`load`; each
    wraps an ``nn.Module`` whose Python ``forward`` runs when it is called. Its children are
    wrapped the same way, its parameters and buffers are the original's own objects
    (``state_dict`` keys unchanged), and attribute reads, writes and deletes that are not the
    wrapper's reach the original, as does the training mode. (A subclass constructed with no
    module behaves as a plain ``nn.Module``.)
    """

    def __init__(self, module=None):
        d = self.__dict__
        d["_jit_original"] = module
        d["_jit_ready"] = False
        d["_jit_frozen"] = False
        super().__init__()
        if module is not None:
            d["_parameters"] = module._parameters
            d["_buffers"] = module._buffers
            d["_non_persistent_buffers_set"] = module._non_persistent_buffers_set
            d["_modules"] = OrderedDict(
                (name, None if child is None else type(self)._child(child))
                for name, child in module._modules.items()
            )
        d["_jit_ready"] = True

    @classmethod
    def _child(cls, module):
        return cls(module)

    def forward(self, *args, **kwargs):
        original = self.__dict__.get("_jit_original")
        if original is None:
            return super().forward(*args, **kwargs)
        return original(*args, **kwargs)

    @property
    def original_name(self):
        """The class name of the module this one was made from."""
        original = self.__dict__.get("_jit_original")
        return type(self if original is None else original).__name__

    def extra_repr(self):
        return f"original_name={self.original_name}"

    @property
    def training(self):
        d = self.__dict__
        original = d.get("_jit_original")
        if original is None or d.get("_jit_frozen"):
            if "_jit_training" not in d:
                # A frozen module has no attributes left until one is set (PyTorch's too).
                raise AttributeError(f"'{type(self).__name__}' object has no attribute 'training'")
            return d["_jit_training"]
        return original.training

    @training.setter
    def training(self, value):
        d = self.__dict__
        original = d.get("_jit_original")
        if original is None:
            d["_jit_training"] = value
        elif not d.get("_jit_ready"):
            return  # Module.__init__'s default: the mode is the original's
        elif d.get("_jit_frozen"):
            d["_jit_training"] = value
        else:
            original.training = value

    def __getattr__(self, name):
        d = self.__dict__
        try:
            return Module.__getattr__(self, name)
        except AttributeError:
            pass
        original = d.get("_jit_original")
        if original is not None and not d.get("_jit_frozen") and name not in _WRAPPER_ATTRIBUTES:
            try:
                return getattr(original, name)
            except AttributeError:
                pass
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        original = d.get("_jit_original")
        if (
            name in _WRAPPER_ATTRIBUTES
            or hasattr(type(self), name)
            or not d.get("_jit_ready")
            or original is None
        ):
            return super().__setattr__(name, value)
        setattr(original, name, value)
        if name in original._modules:
            child = original._modules[name]
            self._modules[name] = None if child is None else type(self)._child(child)

    def __delattr__(self, name):
        original = self.__dict__.get("_jit_original")
        if name in _WRAPPER_ATTRIBUTES or hasattr(type(self), name) or original is None:
            return super().__delattr__(name)
        delattr(original, name)
        self._modules.pop(name, None)

    def __dir__(self):
        original = self.__dict__.get("_jit_original")
        extra = set() if original is None else set(dir(original))
        return sorted(set(super().__dir__()) | extra)

    def save(self, f, _extra_files=None):
        """Write this module to ``f`` (a path or binary file) for :func:`load`."""
        _write(f, self.save_to_buffer(_extra_files=_extra_files))

    def save_to_buffer(self, _extra_files=None):
        """The bytes :meth:`save` writes."""
        d = self.__dict__
        original = d.get("_jit_original")
        if original is None:
            raise RuntimeError(
                f"{type(self).__name__} was not made by torch.jit.script or torch.jit.trace: "
                "jtensor.jit.save stores the module such a wrapper runs"
            )
        return _archive("frozen" if d.get("_jit_frozen") else "module", original, _extra_files)

    def _no_compiler(what):
        def get(self):
            raise RuntimeError(_NO_COMPILER.format(what=what))

        return property(get, doc=f"TorchScript's {what}: jtensor has none (a RuntimeError).")

    code = _no_compiler("TorchScript code")
    code_with_constants = _no_compiler("TorchScript code")
    graph = _no_compiler("TorchScript graph")
    inlined_graph = _no_compiler("TorchScript graph")
    del _no_compiler


_WRAPPER_ATTRIBUTES = {"_jit_original", "_jit_ready", "_jit_frozen", "_jit_training"}


class RecursiveScriptModule(ScriptModule):
    """What ``torch.jit.script(module)``, ``torch.jit.freeze`` and ``torch.jit.load`` return:
    a :class:`ScriptModule` whose ``repr`` shows ``original_name``. Calling it runs the
    original module. Indexing, iterating and ``len`` reach the original (as in PyTorch,
    ``scripted[0]`` is the original first layer).

    >>> import jtensor as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
    >>> scripted = torch.jit.script(net)
    >>> scripted
    RecursiveScriptModule(
      original_name=Sequential
      (0): RecursiveScriptModule(original_name=Linear)
      (1): RecursiveScriptModule(original_name=ReLU)
    )
    >>> scripted[0].weight is net[0].weight
    True
    """

    def _forward_magic(self, name, *args):
        original = self._jit_original
        method = getattr(type(original), name, None)
        if method is None:
            raise NotImplementedError(
                f"{type(self).__name__}(original_name={self.original_name}) does not support "
                f"{name}: the module it was made from has no {name}"
            )
        return method(original, *args)

    def __len__(self):
        return self._forward_magic("__len__")

    def __iter__(self):
        return self._forward_magic("__iter__")

    def __getitem__(self, idx):
        return self._forward_magic("__getitem__", idx)

    def __contains__(self, key):
        return self._forward_magic("__contains__", key)


class TracedModule(ScriptModule):
    """A submodule of a traced module: prints as ``Linear(original_name=Linear)``."""

    @classmethod
    def _child(cls, module):
        return TracedModule(module)

    def _get_name(self):
        return self.original_name


class TopLevelTracedModule(TracedModule):
    """What ``torch.jit.trace(module, example_inputs)`` returns (see :func:`trace`)."""


# ---------------------------------------------------------------------------- functions
def _qualified_name(fn):
    module = getattr(fn, "__module__", None) or "__main__"
    prefix = "__torch__" if module == "__main__" else "__torch__." + module
    return prefix + "." + fn.__name__.replace("<lambda>", "_lambda")


class ScriptFunction:
    """What ``torch.jit.script(function)`` and ``torch.jit.trace(function, ...)`` return:
    calling it calls the function. ``name`` and ``qualified_name`` are PyTorch's.

    >>> import jtensor as torch
    >>> @torch.jit.script
    ... def add(x, y):
    ...     return x + y
    >>> add(torch.ones(2), torch.ones(2))
    tensor([2., 2.])
    >>> add.name
    'add'
    """

    def __init__(self, fn):
        self._jit_function = fn
        self.name = fn.__name__
        self.qualified_name = _qualified_name(fn)
        self.__doc__ = fn.__doc__
        # PyTorch's ScriptFunction carries these names (not the function's).
        self.__name__ = "ScriptFunction"
        self.__qualname__ = "torch.jit.ScriptFunction"

    def __call__(self, *args, **kwargs):
        return self._jit_function(*args, **kwargs)

    def save(self, f, _extra_files=None):
        """Write the function to ``f`` (a path or binary file); :func:`load` gives it back as
        a module (``original_name=PlaceholderModule``) whose ``forward`` is the function."""
        _write(f, self.save_to_buffer(_extra_files=_extra_files))

    def save_to_buffer(self, _extra_files=None):
        """The bytes :meth:`save` writes."""
        return _archive("function", self._jit_function, _extra_files)

    @property
    def code(self):
        raise RuntimeError(_NO_COMPILER.format(what="TorchScript code"))

    @property
    def graph(self):
        raise RuntimeError(_NO_COMPILER.format(what="TorchScript graph"))

    @property
    def schema(self):
        raise RuntimeError(_NO_COMPILER.format(what="TorchScript schema"))


class PlaceholderModule(Module):
    """The module a saved :class:`ScriptFunction` loads back as (PyTorch's name)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


# ---------------------------------------------------------------------------- script
def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``torch.jit.script``: a module becomes a :class:`RecursiveScriptModule`, a function a
    :class:`ScriptFunction`; both run the original Python (jtensor compiles nothing).

    PyTorch's checks that do not need the compiler apply: an ``nn.Module`` class (not an
    instance) and a lambda raise ``RuntimeError``, an instance of a built-in type
    ``TypeError``. Scripted modules and functions come back as they are. A class comes back as
    it is (PyTorch compiles it into a TorchScript class), as do lists and dicts.
    """
    _deprecated("script")
    _warn_optimize(optimize)
    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(obj, Module):
        prepare = getattr(obj, "__prepare_scriptable__", None)
        if prepare is not None:
            obj = prepare()
        return RecursiveScriptModule(obj)
    prepare = getattr(obj, "__prepare_scriptable__", None)
    if prepare is not None and not inspect.isclass(obj):
        obj = prepare()
    if isinstance(obj, (dict, list)):
        return obj
    if inspect.isclass(obj):
        if issubclass(obj, Module):
            raise RuntimeError(
                f"Type '{obj}' cannot be compiled since it inherits from nn.Module, "
                "pass an instance instead"
            )
        if issubclass(obj, enum.Enum):
            return obj
        if len(obj.mro()) > 2:
            raise RuntimeError(
                "TorchScript classes does not support inheritance yet. "
                "Please directly inherit from 'object'."
            )
        return obj
    if inspect.isfunction(obj) or inspect.ismethod(obj):
        if obj.__name__ == "<lambda>":
            code = obj.__code__
            raise RuntimeError(
                f"Expected a single top-level function: {code.co_filename}:{code.co_firstlineno}"
            )
        return ScriptFunction(obj)
    if type(obj).__module__ == "builtins":
        raise TypeError(f"{type(obj)} is a built-in class")
    return obj


# ---------------------------------------------------------------------------- trace
_tracing = [0]

_CONVERSION = (
    "Converting a tensor to a {} might cause the trace to be incorrect. We can't record the "
    "data flow of Python values, so this value will be treated as a constant in the future. "
    "This means that the trace might not generalize to other inputs!"
)
_CONVERSIONS = {
    "__bool__": _CONVERSION.format("Python boolean"),
    "__int__": _CONVERSION.format("Python integer"),
    "__float__": _CONVERSION.format("Python float"),
    "__complex__": _CONVERSION.format("Python complex"),
    "item": _CONVERSION.format("Python number"),
    "tolist": _CONVERSION.format("Python list"),
    "numpy": _CONVERSION.format("NumPy array"),
    "__len__": (
        "Using len to get tensor shape might cause the trace to be incorrect. Recommended "
        "usage would be tensor.shape[0]. Passing a tensor of different shape might lead to "
        "errors or silently give incorrect results."
    ),
    "__iter__": (
        "Iterating over a tensor might cause the trace to be incorrect. Passing a tensor of "
        "different shape won't change the number of iterations executed (and might lead to "
        "errors or silently give incorrect results)."
    ),
}
_CONTAINER_OUTPUT = (
    "Encountering a {} at the output of the tracer might cause the trace to be incorrect, "
    "this is only valid if the container structure does not change based on the module's "
    "inputs. Consider using a constant container instead (e.g. for `list`, use a `tuple` "
    "instead. for `dict`, use a `NamedTuple` instead). If you absolutely need this and know "
    "the side effects, pass strict=False to trace() to allow this behavior."
)


def _warning_method(name, method):
    message = _CONVERSIONS[name]

    def warn_then_call(self, *args, **kwargs):
        # Only the traced program's own conversions: jtensor's internals are PyTorch's C++.
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if not (caller == "jtensor" or caller.startswith("jtensor.")):
            warnings.warn(message, TracerWarning, stacklevel=2)
        return method(self, *args, **kwargs)

    return warn_then_call


@contextlib.contextmanager
def _tracing_run():
    """The example run of ``trace``: ``is_tracing()`` is True and the tensor-to-Python
    conversions PyTorch's tracer cannot record warn with its ``TracerWarning``."""
    saved = {name: Tensor.__dict__[name] for name in _CONVERSIONS if name in Tensor.__dict__}
    if not _tracing[0]:
        for name, method in saved.items():
            setattr(Tensor, name, _warning_method(name, method))
    _tracing[0] += 1
    try:
        yield
    finally:
        _tracing[0] -= 1
        if not _tracing[0]:
            for name, method in saved.items():
                setattr(Tensor, name, method)


def _trace_type(value):
    """TorchScript's name for an example input's type, and whether it can be traced."""
    if isinstance(value, Tensor):
        return "Tensor", True
    if isinstance(value, tuple):
        parts = [_trace_type(v) for v in value]
        return f"Tuple[{', '.join(p[0] for p in parts)}]", all(p[1] for p in parts)
    if isinstance(value, list):
        if not value:
            return None, True
        name, ok = _trace_type(value[0])
        return f"List[{name}]", ok
    if isinstance(value, dict):
        if not value:
            return None, True
        key, ok_key = _trace_type(next(iter(value)))
        name, ok = _trace_type(next(iter(value.values())))
        return f"Dict[{key}, {name}]", ok and ok_key
    if value is None:
        return "NoneType", False
    for kind in (bool, int, float, complex, str):
        if isinstance(value, kind):
            return kind.__name__, False
    if type(value).__name__ == "dtype":
        return "int", False
    return type(value).__name__, True  # not a type PyTorch names here: let it run


def _has_empty_list(value):
    if isinstance(value, list):
        return not value or any(_has_empty_list(v) for v in value)
    if isinstance(value, tuple):
        return any(_has_empty_list(v) for v in value)
    if isinstance(value, dict):
        return any(_has_empty_list(v) for v in value.values())
    return False


def _check_inputs(inputs):
    if _has_empty_list(inputs):
        raise RuntimeError(
            f"Tracer cannot infer type of {inputs!r}\n:List trace inputs must have elements"
        )
    name, ok = _trace_type(inputs)
    if not ok:
        raise RuntimeError(
            f"Type '{name}' cannot be traced. Only Tensors and (possibly nested) Lists, Dicts, "
            "and Tuples of Tensors can be traced"
        )


_BAD_OUTPUT = (
    "Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from "
    "traced functions"
)


def _check_output(output, strict):
    if output is None:
        raise RuntimeError(
            "The traced function didn't return any values! Side-effects are not captured in "
            "traces, so it would be a no-op."
        )

    def walk(value):
        if isinstance(value, Tensor) or type(value).__name__ == "Size":
            return
        if isinstance(value, tuple):
            for v in value:
                walk(v)
            return
        if isinstance(value, list):
            if strict:
                warnings.warn(_CONTAINER_OUTPUT.format("list"), TracerWarning, stacklevel=4)
            for v in value:
                walk(v)
            return
        if isinstance(value, dict):
            if strict:
                raise RuntimeError(_CONTAINER_OUTPUT.format("dict"))
            for v in value.values():
                walk(v)
            return
        raise RuntimeError(_BAD_OUTPUT)

    walk(output)


def trace(
    func,
    example_inputs=None,
    optimize=None,
    check_trace=True,
    check_inputs=None,
    check_tolerance=1e-05,
    strict=True,
    _force_outplace=False,
    _module_class=None,
    _compilation_unit=None,
    example_kwarg_inputs=None,
    _store_inputs=True,
):
    """``torch.jit.trace``: run ``func`` (a module or a function) once on ``example_inputs``
    and return an object that calls it: a :class:`TopLevelTracedModule` for a module, a
    :class:`ScriptFunction` for a function.

    The example run is checked as PyTorch checks it: inputs must be tensors or (nested)
    tuples, lists and dicts of tensors, the output too (a dict output needs ``strict=False``,
    a list output warns), and converting a tensor to a Python value (``if tensor:``,
    ``.item()``, ``.tolist()``, ``.numpy()``, ``len``, iteration) warns with PyTorch's
    ``TracerWarning``, because a real trace would keep that value as a constant.

    Difference from PyTorch: the result runs the Python code again on every call instead of
    replaying the recorded operations, so data-dependent control flow is *not* frozen (a
    PyTorch trace of ``x if x.sum() > 0 else -x`` keeps the example's branch for every
    input; jtensor's evaluates the ``if`` each time). ``check_trace`` does not re-run and
    compare the trace. Tracing a :class:`ScriptModule` returns it (with PyTorch's warning).
    """
    _deprecated("trace")
    _warn_optimize(optimize)
    if isinstance(func, ScriptModule):
        warnings.warn(
            "The input to trace is already a ScriptModule, tracing it is a no-op. Returning "
            "the object as is.",
            stacklevel=2,
        )
        return func
    if isinstance(func, ScriptFunction):
        return func
    if example_inputs is None and example_kwarg_inputs is None:
        raise RuntimeError("example_kwarg_inputs or example_inputs must be specified")
    kwargs = {}
    if example_kwarg_inputs is not None:
        if not isinstance(example_kwarg_inputs, dict):
            raise AssertionError("example_kwarg_inputs should be a dict")
        kwargs = dict(example_kwarg_inputs)
        args = ()
    elif isinstance(example_inputs, Tensor):
        args = (example_inputs,)
    elif isinstance(example_inputs, tuple):
        args = example_inputs
    else:
        args = tuple(example_inputs)
    _check_inputs(args if not kwargs else tuple(kwargs.values()))
    is_module = isinstance(func, Module)
    if not is_module and not callable(func):
        raise TypeError(
            f"{type(func).__name__} is not callable: trace needs a module or a function"
        )
    with _tracing_run():
        output = func(*args, **kwargs)
    _check_output(output, strict)
    if is_module:
        return TopLevelTracedModule(func)
    return ScriptFunction(func)


def is_tracing():
    """True during :func:`trace`'s example run (PyTorch's answer), False otherwise."""
    return _tracing[0] > 0


def is_scripting():
    """False: code never runs as TorchScript in jtensor (PyTorch's answer in Python)."""
    return False


# ---------------------------------------------------------------------------- freeze
def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """``torch.jit.freeze``: a :class:`RecursiveScriptModule` that runs ``mod`` and, like
    PyTorch's, shows no parameters, buffers or submodules (they became constants; jtensor's
    still reads the original's tensors, as PyTorch's frozen constants share their storage).
    ``mod`` must be a :class:`ScriptModule` in eval mode (PyTorch's ``RuntimeError``s)."""
    _deprecated("freeze", "Please use `torch.compile` instead.")
    if not isinstance(mod, ScriptModule):
        raise RuntimeError(
            "Freezing expects a ScriptModule as input. "
            "Please use torch.jit.script or torch.jit.trace to script your 'nn.Module'."
        )
    if mod.training:
        raise RuntimeError(
            "Freezing is currently only implemented for modules in eval mode. "
            "Please call .eval() on your module before freezing."
        )
    return _frozen(mod._jit_original)


def _frozen(original):
    out = RecursiveScriptModule.__new__(RecursiveScriptModule)
    d = out.__dict__
    d["_jit_original"] = original
    d["_jit_ready"] = False
    d["_jit_frozen"] = True
    Module.__init__(out)
    d.pop("_jit_training", None)
    d["_jit_ready"] = True
    return out


def optimize_for_inference(mod, other_methods=None):
    """``torch.jit.optimize_for_inference``: :func:`freeze` (after ``eval()``) unless ``mod``
    is frozen already; jtensor applies no further optimization."""
    warnings.warn(
        "`torch.jit.optimize_for_inference` is deprecated. Please use `torch.compile` instead.",
        DeprecationWarning,
        stacklevel=1,
    )
    if not isinstance(mod, ScriptModule):
        raise RuntimeError(
            "optimize_for_inference expects a ScriptModule as input. "
            "Please use torch.jit.script or torch.jit.trace to script your 'nn.Module'."
        )
    if hasattr(mod, "training"):
        mod = freeze(mod.eval(), preserved_attrs=other_methods)
    return mod


# ---------------------------------------------------------------------------- save / load
_MARKER = "jtensor_jit"
_FORMAT = "1"


def _archive(kind, payload, extra_files):
    body = io.BytesIO()
    try:
        _jt_save(payload, body)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise RuntimeError(
            f"jtensor.jit.save stores the original {type(payload).__name__} with pickle, "
            f"which failed: {exc}. Define it (for a module, its class and what it holds) at "
            "the top level of a Python module so pickle can find it by name."
        ) from exc
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(f"archive/{_MARKER}", f"{_FORMAT}\n{kind}\n")
        archive.writestr("archive/model.pt", body.getvalue())
        for name, data in (extra_files or {}).items():
            if isinstance(data, str):
                data = data.encode()
            archive.writestr(f"archive/extra/{name}", data)
    return out.getvalue()


def save(m, f, _extra_files=None):
    """``torch.jit.save``: write a :class:`ScriptModule` or :class:`ScriptFunction` to ``f``
    (a path or a binary file) in jtensor's format, which :func:`load` reads back (PyTorch's
    ``torch.jit.load`` cannot: the file holds the pickled Python module, not TorchScript).
    ``_extra_files`` (name -> bytes or str) are stored beside it, as in PyTorch."""
    _deprecated("save", "Please switch to `torch.export`.")
    if _extra_files is None:
        _extra_files = {}
    if isinstance(f, (str, os.PathLike)):
        m.save(f, _extra_files=_extra_files)
    else:
        f.write(m.save_to_buffer(_extra_files=_extra_files))


def _read_archive(data):
    stream_error = "PytorchStreamReader failed locating file constants.pkl: file not found. "
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise RuntimeError(
            "PytorchStreamReader failed reading zip archive: failed finding central directory "
            "(this is not a file written by torch.jit.save)"
        ) from None
    with archive:
        names = archive.namelist()
        marker = [n for n in names if n.endswith("/" + _MARKER)]
        if not marker:
            if any(n.endswith("/constants.pkl") or "/code/" in n for n in names):
                raise RuntimeError(
                    "This is a TorchScript archive written by PyTorch (torch.jit.save): jtensor "
                    "cannot run TorchScript code. Save the model's state_dict in PyTorch "
                    "(torch.save(model.state_dict(), path)) and load it into the same model "
                    "built with jtensor."
                )
            raise RuntimeError(
                stream_error + "The file was not written by torch.jit.save (a torch.save "
                "checkpoint is read with torch.load)."
            )
        root = marker[0][: -len(_MARKER)]
        version, kind = archive.read(marker[0]).decode().split()[:2]
        if version != _FORMAT:
            raise RuntimeError(
                f"This torch.jit file has format version {version}; this jtensor reads "
                f"version {_FORMAT}."
            )
        extra = {
            n[len(root + "extra/") :]: archive.read(n)
            for n in names
            if n.startswith(root + "extra/")
        }
        return kind, archive.read(root + "model.pt"), extra


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """``torch.jit.load``: read a file written by :func:`save` (or ``ScriptModule.save``)
    into a :class:`RecursiveScriptModule` (a saved function comes back as a module whose
    ``forward`` is the function, as in PyTorch). ``map_location`` (None, a string or a
    device) moves the tensors; ``_extra_files`` (a dict of names) is filled in with the
    contents saved under those names.

    The module is unpickled (its class must be importable), so only load files you trust.
    PyTorch's TorchScript archives raise ``RuntimeError``: jtensor cannot run TorchScript.
    """
    _deprecated("load", "Please switch to `torch.export`.")
    if isinstance(f, (str, os.PathLike)):
        if not os.path.exists(f):
            raise ValueError(f"The provided filename {f} does not exist")
        if os.path.isdir(f):
            raise ValueError(f"The provided filename {f} is a directory")
    from .._device import device

    if isinstance(map_location, str):
        map_location = device(map_location)
    elif not (map_location is None or isinstance(map_location, device)):
        raise ValueError(
            "map_location should be either None, string or torch.device, "
            "but got type: " + str(type(map_location))
        )
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as handle:
            data = handle.read()
    else:
        data = f.read()
    kind, body, extra = _read_archive(data)
    if _extra_files is not None:
        for name in list(_extra_files):
            if name in extra:
                _extra_files[name] = extra[name]
    payload = _jt_load(io.BytesIO(body), map_location=map_location, weights_only=False)
    if kind == "function":
        return RecursiveScriptModule(PlaceholderModule(payload))
    if kind == "frozen":
        return _frozen(payload)
    return RecursiveScriptModule(payload)


# ---------------------------------------------------------------------------- decorators
def ignore(drop=False, **kwargs):
    """``@torch.jit.ignore`` / ``@torch.jit.ignore(drop=True)``: leave a method to Python.
    Everything stays Python in jtensor: the function comes back unchanged."""
    if callable(drop):
        return drop
    if not isinstance(drop, bool):
        raise RuntimeError(
            f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}"
        )
    if drop:
        warnings.warn(
            "ignore(True) has been deprecated. TorchScript will now drop the function "
            "call on compilation. Use torch.jit.unused now. {}",
            FutureWarning,
            stacklevel=2,
        )
    return lambda fn: fn


def unused(fn):
    """``@torch.jit.unused``: the function (or property) comes back unchanged."""
    return fn


def export(fn):
    """``@torch.jit.export``: compile a method besides ``forward``; it comes back unchanged
    (every method stays callable Python)."""
    return fn


def interface(obj):
    """``@torch.jit.interface``: the class comes back unchanged."""
    warnings.warn(
        "`torch.jit.interface` is deprecated. Please use `torch.compile` instead.",
        DeprecationWarning,
        stacklevel=1,
    )
    return obj


def script_if_tracing(fn):
    """``@torch.jit.script_if_tracing``: the function comes back unchanged."""
    return fn


def annotate(the_type, the_value):
    """``torch.jit.annotate(type, value)``: a type hint for the compiler; returns the value."""
    return the_value


class Attribute(typing.NamedTuple):
    """``torch.jit.Attribute(value, type)``: a typed module attribute (TorchScript)."""

    value: typing.Any
    type: typing.Any


@contextlib.contextmanager
def optimized_execution(should_optimize):
    """A context manager for TorchScript's optimizing executor: no effect in jtensor."""
    yield


def set_fusion_strategy(strategy):
    """TorchScript fusion specializations: nothing is fused in jtensor; returns the old
    strategy (PyTorch's default)."""
    warnings.warn(
        "`torch.jit.set_fusion_strategy` is deprecated. Please use `torch.compile` instead.",
        DeprecationWarning,
        stacklevel=1,
    )
    return [("STATIC", 2), ("DYNAMIC", 10)]


_onednn = [False]


def enable_onednn_fusion(enabled):
    """Turn oneDNN JIT fusion on or off (recorded; jtensor fuses nothing)."""
    _onednn[0] = bool(enabled)


def onednn_fusion_enabled():
    """Whether :func:`enable_onednn_fusion` turned it on."""
    return _onednn[0]


# ---------------------------------------------------------------------------- fork / wait
class Future:
    """``torch.jit.Future``: the result of :func:`fork`, already computed (jtensor runs the
    forked function at once, synchronously)."""

    def __init__(self, value=None):
        self._value = value

    def wait(self):
        """The forked function's result."""
        return self._value

    def value(self):
        """The result (the future is always done)."""
        return self._value

    def done(self):
        """True: the work ran when it was forked."""
        return True

    def then(self, callback):
        """A future holding ``callback(self)``."""
        return Future(callback(self))

    def add_done_callback(self, callback):
        """Call ``callback(self)`` now (the future is done)."""
        callback(self)

    def __repr__(self):
        return f"<jtensor.Future object at {hex(id(self))}>"


def fork(func, *args, **kwargs):
    """``torch.jit.fork``: run ``func(*args, **kwargs)`` and return a :class:`Future` holding
    its result (PyTorch too runs it synchronously outside TorchScript); an exception from
    ``func`` propagates from ``fork``."""
    warnings.warn(
        "`torch.jit.fork` is deprecated. Please use `torch.compile` instead.",
        DeprecationWarning,
        stacklevel=1,
    )
    return Future(func(*args, **kwargs))


def wait(future):
    """``torch.jit.wait``: the result of a :class:`Future` from :func:`fork`."""
    warnings.warn(
        "`torch.jit.wait` is deprecated. Please use `torch.compile` instead.",
        DeprecationWarning,
        stacklevel=1,
    )
    return future.wait()
