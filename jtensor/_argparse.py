"""PyTorch's argument parser, in one place: how every registered op binds its arguments.

Each op declares its signature once, as its implementation's Python signature with
PyTorch's parameter names (``sum(input, dim=None, keepdim=False, *, dtype=None, out=None)``).
``make_entry`` turns that into the op's public entry point, generated with the same
signature so that the common call costs direct argument passing, and applies PyTorch's
rules (``torch/csrc/utils/python_arg_parser.cpp``) for every op alike:

- NumPy's names are accepted as keywords: ``axis`` for ``dim``, ``keepdims`` for
  ``keepdim``, ``x``/``a``/``x1`` for ``input`` and ``x2`` for ``other``
  (``x.sum(axis=1, keepdims=True)``);
- a size or dims argument is given as separate ints, one sequence, a ``Size`` or a keyword
  (``view(2, 3)``, ``view((2, 3))``, ``view(size=(2, 3))``); the method forms whose only
  argument is such a list take it as separate ints too (``x.flip(0, 1)``, ``x.tile(2, 2)``),
  as ``METHOD_VARARGS`` lists (PyTorch's own list; ``tests/test_argparse.py`` checks it
  against the installed PyTorch's signatures);
- typed arguments are checked before anything runs, with PyTorch's ``TypeError`` wording:
  ``dtype`` must be a ``torch.dtype`` (or ``float``/``int``/``bool``/``complex``, which
  PyTorch also takes), never a string or a NumPy type; ``device`` a device, a string or an
  int; ``layout``, ``memory_format`` and ``generator`` their own types;
  ``requires_grad``/``pin_memory`` a bool.

The generated entry reaches the slow path here (``_rebind``) only when a call used one of
these forms; ordinary calls pay one empty-dict check.
"""

import inspect
import numbers
import types

from . import _autocast, _errors, _torch_function
from . import _dispatch as _dispatch_module
from ._dispatch import RECORDED_KINDS, grad_mode
from ._device import device
from ._dtypes import BOOL, _dtype_arg, dtype
from ._errors import TensorTypeError, type_name
from ._tensor import Tensor, layout, memory_format

# NumPy's argument names that PyTorch accepts for its own (python_arg_parser.cpp's
# ``numpy_compatibility_arg_names``).
NUMPY_ALIASES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input",
                 "x1": "input", "x2": "other"}
# Parameters a NumPy name may stand for; ``self`` (in-place ops) is PyTorch's ``input``.
_ALIASED = frozenset(NUMPY_ALIASES.values()) | {"self"}

# Method forms whose single argument is a list of ints and may be given as separate ints
# (``x.view(2, 3)``): PyTorch allows it exactly where that list is the only positional
# argument after ``self``. The value is the parameter's keyword name.
METHOD_VARARGS = {
    "broadcast_to": "size", "count_nonzero": "dim", "dsplit": "indices", "expand": "size",
    "flip": "dims", "hsplit": "indices", "new_empty": "size", "new_ones": "size",
    "new_zeros": "size", "permute": "dims", "repeat": "repeats", "reshape": "shape",
    "resize_": "size", "squeeze": "dim", "squeeze_": "dim", "sum_to_size": "size",
    "tile": "dims", "view": "size", "vsplit": "indices",
}

# Types of typed arguments defined in layers above this one, installed when they load
# (``jtensor.random`` installs ``Generator``, before any op taking a generator registers).
TYPES = {"generator": type("NoGeneratorYet", (), {})}

_DEBUG_SOURCES = None   # a dict here collects the generated sources (for reading them)

_MISSING = type("Missing", (), {"__repr__": lambda self: "<missing>"})()


class _Plan:
    """What the parser knows about one entry point: its parameters and which rules apply."""

    __slots__ = ("op", "name", "params", "names", "defaults", "var", "var_keyword", "fold",
                 "required", "recorded", "dropped_out", "kinds")

    def __init__(self, op, impl, fold, method_form):
        self.op = op
        self.name = op.name
        self.params = list(inspect.signature(impl).parameters.values())
        count = len(self.params)
        if method_form:   # PyTorch's methods take no ``out=`` (``x.sum(out=y)`` is refused)
            self.params = [p for p in self.params
                           if not (p.name == "out" and p.kind is p.KEYWORD_ONLY)]
        self.dropped_out = len(self.params) != count
        self.names = [p.name for p in self.params
                      if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        self.defaults = {p.name: p.default for p in self.params if p.default is not p.empty}
        self.var = next((p.name for p in self.params if p.kind is p.VAR_POSITIONAL), None)
        self.var_keyword = any(p.kind is p.VAR_KEYWORD for p in self.params)
        self.fold = fold            # the int-list parameter separate ints are folded into
        self.required = [p.name for p in self.params if p.default is p.empty
                         and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        self.recorded = op.kind in RECORDED_KINDS
        # (name, kind) of each parameter, for ``_rebind``'s loop (``Parameter.kind`` is a
        # property: six reads cost a microsecond there)
        self.kinds = tuple((p.name, p.kind) for p in self.params)


# ------------------------------------------------------------------ typed arguments
def _check_typed(plan, values):
    """The slow check of the typed arguments: raise PyTorch's TypeError for a wrong type,
    return the values (``float``/``int``/``bool``/``complex`` as dtypes become dtypes)."""
    out = dict(values)
    for argname, value in values.items():
        if value is None:
            continue
        if argname == "dtype":
            out[argname] = _dtype_arg(value, plan.name, "dtype")
        elif argname == "device":
            if not (isinstance(value, (device, str))
                    or (isinstance(value, int) and not isinstance(value, bool))):
                raise TensorTypeError(f"{plan.name}(): argument 'device' must be torch.device, not "
                                f"{type_name(value)}")
        elif argname == "layout":
            if not isinstance(value, layout):
                raise TensorTypeError(f"{plan.name}(): argument 'layout' must be torch.layout, not "
                                f"{type_name(value)}")
        elif argname == "memory_format":
            if not isinstance(value, memory_format):
                raise TensorTypeError(f"{plan.name}(): argument 'memory_format' must be "
                                f"torch.memory_format, not {type_name(value)}")
        elif argname == "generator":
            if not isinstance(value, TYPES["generator"]):
                raise TensorTypeError(f"{plan.name}(): argument 'generator' must be "
                                f"torch.Generator, not {type_name(value)}")
        elif argname == "out":
            # A tensor, or for the ops with several results a tuple/list of them (those ops
            # check the count and kinds themselves).
            if not (isinstance(value, Tensor) or (isinstance(value, (tuple, list)) and all(
                    isinstance(v, Tensor) for v in value))):
                raise TensorTypeError(f"{plan.name}(): argument 'out' must be Tensor, not "
                                      f"{type_name(value)}")
        elif argname in ("requires_grad", "pin_memory"):
            if not isinstance(value, bool):   # PyTorch refuses NumPy bools here too
                raise TensorTypeError(f"{plan.name}(): argument '{argname}' must be bool, not "
                                f"{type_name(value)}")
    return out


# Parameters checked by type in every entry, and the expression that is true when the value
# needs the slow check (None and the common exact types pass at once).
_TYPED = {
    "dtype": "({n} is not None and {n}.__class__ is not _DT)",
    "device": "({n} is not None and {n}.__class__ is not str and {n}.__class__ is not _DEV)",
    "layout": "({n} is not None and {n}.__class__ is not _LAY)",
    "memory_format": "({n} is not None and {n}.__class__ is not _MF)",
    "generator": "({n} is not None and {n}.__class__ is not _GEN)",
    "requires_grad": "({n} is not False and {n} is not True)",
    "pin_memory": "({n} is not False and {n} is not True)",
    "out": "({n} is not None and {n}.__class__ is not T)",
}
# Ops that parse these names themselves (their ``dtype`` may be a string or a tensor).
_OWN_PARSING = frozenset(("type", "to"))


def int_arg(value, fname, argname, position=None):
    """An ``int`` argument as PyTorch's parser reads it: a Python int, or anything with
    ``__index__`` (a one-element integer tensor, a NumPy integer); bools (Python, NumPy or
    a bool tensor) and floats are refused."""
    if value.__class__ is int:
        return value
    dtype = getattr(value, "_dtype", None)   # a jtensor tensor
    if not isinstance(value, (bool, float)) and hasattr(value, "__index__") and (
            dtype is None or dtype.category != BOOL):
        try:
            return value.__index__()
        except (TypeError, RuntimeError):  # a tensor that is not one integer
            pass
    where = f" (position {position})" if position is not None else ""
    raise TensorTypeError(f"{fname}(): argument '{argname}'{where} must be int, not "
                    f"{type_name(value)}")


def int_list_arg(value, fname, argname, position=None):
    """An ``int[]`` argument: one int (read as ``int_arg`` does) or a sequence of them."""
    if value.__class__ is int:
        return (value,)
    if value.__class__ is tuple or value.__class__ is list or isinstance(value, tuple):
        return tuple(v if v.__class__ is int else int_arg(v, fname, argname, position)
                     for v in value)
    if hasattr(value, "__index__") and not getattr(value, "shape", ()):
        return (int_arg(value, fname, argname, position),)
    if hasattr(value, "__iter__"):
        return tuple(int_arg(v, fname, argname, position) for v in value)
    where = f" (position {position})" if position is not None else ""
    raise TensorTypeError(f"{fname}(): argument '{argname}'{where} must be tuple of ints, not "
                    f"{type_name(value)}")


# ----------------------------------------------------------------------- the rebind
def _rebind(plan, entry, values, var, extra, kwargs):
    """A call that used a NumPy alias, a keyword for separate ints, or separate ints for a
    method's list: bind it by PyTorch's rules and call the entry again, the ordinary way.

    ``values``: the named parameters as the entry received them (``_MISSING`` where a
    required one was not given); ``var``: the implementation's own ``*args``; ``extra``:
    positional arguments past the signature; ``kwargs``: keywords it does not name.
    """
    name = plan.name
    values = dict(values)
    if extra:
        if plan.fold is None or values.get(plan.fold, _MISSING) is _MISSING:
            count = sum(p.kind is p.POSITIONAL_OR_KEYWORD for p in plan.params)
            raise TensorTypeError(f"{name}() takes {count} positional arguments but "
                            f"{count + len(extra)} were given")
        values[plan.fold] = (values[plan.fold], *extra)
    for key, value in kwargs.items():
        if key == plan.var:
            if var:
                raise TensorTypeError(f"{name}() got multiple values for argument '{key}'")
            var = (value,)
            continue
        target = "input" if key == "input" else NUMPY_ALIASES.get(key)
        if target == "input" and "input" not in plan.names and "self" in plan.names:
            target = "self"   # torch.exp_(input=x): in-place ops name it ``self``
        if target is None or target not in plan.names:
            accepted = ", ".join(([plan.var] if plan.var else []) + plan.names[1:])
            raise TensorTypeError(f"{name}() got an unexpected keyword argument '{key}'"
                            + (f" (it takes: {accepted})" if accepted else ""))
        current = values.get(target, _MISSING)
        if current is not _MISSING and current is not plan.defaults.get(target, _MISSING):
            raise TensorTypeError(f"{name}() got multiple values for argument '{target}' (given "
                            f"as '{target}' and as its NumPy name '{key}')")
        values[target] = value
    missing = None
    for n in plan.required:   # (a loop, not a comprehension: no frame when none is missing)
        if values.get(n, _MISSING) is _MISSING:
            missing = [m for m in plan.required if values.get(m, _MISSING) is _MISSING]
            break
    if missing:
        listed = " and ".join(f"'{n}'" for n in missing)
        raise TensorTypeError(f"{name}() missing {len(missing)} required argument"
                        f"{'s' if len(missing) > 1 else ''}: {listed}")
    positional, keywords = [], {}
    for pname, kind in plan.kinds:
        if kind is _POSITIONAL_OR_KEYWORD:
            positional.append(values[pname])
        elif kind is _VAR_POSITIONAL:
            positional.extend(var)
        elif kind is _KEYWORD_ONLY:
            value = values.get(pname, _MISSING)
            if value is not _MISSING:
                keywords[pname] = value
    return entry(*positional, **keywords)


_POSITIONAL_OR_KEYWORD = inspect.Parameter.POSITIONAL_OR_KEYWORD
_VAR_POSITIONAL = inspect.Parameter.VAR_POSITIONAL
_KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY


def operands(args, kwargs):
    """``(input, other)`` of a binary call however they were given (positionally, by
    name or by a NumPy name); None where absent (the entry point then reports it)."""
    input = args[0] if args else None
    other = args[1] if len(args) > 1 else None
    if kwargs:
        for key, value in kwargs.items():
            target = NUMPY_ALIASES.get(key, key)
            if target == "input":
                input = value
            elif target == "other":
                other = value
    return input, other


def bind_operands(args, kwargs):
    """The call with ``input`` and ``other`` moved to the front positionally."""
    if len(args) >= 2 or not kwargs:
        return args, kwargs
    input, other = operands(args, kwargs)
    rest = {k: v for k, v in kwargs.items()
            if NUMPY_ALIASES.get(k, k) not in ("input", "other")}
    return (input, other), rest


# ------------------------------------------------------------------- entry points
# Argument classes that never carry a gradient: an entry skips ``_wants_grad`` for them.
_PLAIN_SCALARS = frozenset({int, bool, float, str, type(None), dtype, device, layout,
                            memory_format})


def _wants_grad(values, Tensor):
    for a in values:
        if isinstance(a, Tensor):
            if a._requires_grad:
                return True
        elif a.__class__ is list or a.__class__ is tuple:
            for b in a:
                if isinstance(b, Tensor) and b._requires_grad:
                    return True
    return False


def _given_keywords(kwargs, *triples):
    for name, value, default in triples:
        if value is not default:
            kwargs[name] = value
    return kwargs


def make_entry(op, impl, Tensor, method_form=False, layouts=()):
    """The public entry point of ``op`` (its function form, or with ``method_form`` its
    method): ``impl`` behind PyTorch's argument rules and, for differentiable kinds, the
    grad check (calls with an argument that requires grad, in grad mode, are recorded by
    the autograd layer; the rest reach ``impl`` directly).

    Returns ``impl`` itself when no rule applies (a query with plain arguments).
    """
    fold = None
    if method_form:
        fold = METHOD_VARARGS.get(op.name)
    try:
        plan = _Plan(op, impl, fold, method_form)
    except (TypeError, ValueError):
        plan = None
    entry = None if plan is None else _generated_entry(plan, impl, Tensor, layouts)
    if entry is None:
        if op.post is not None:   # the implementation does not finish: wrap it
            impl = _runner(op, impl, plan)
        if op.kind not in RECORDED_KINDS:
            return impl
        entry = _generic_entry(op, impl, Tensor)
    if entry is impl:
        return impl
    entry.__name__ = impl.__name__
    entry.__qualname__ = impl.__qualname__
    entry.__doc__ = impl.__doc__
    entry.__module__ = impl.__module__
    entry.__wrapped__ = impl
    entry.__signature__ = inspect.Signature(plan.params) if plan is not None else \
        inspect.signature(impl)
    return entry


def has_method_form(impl):
    """Whether ``impl``'s method entry differs from its function entry (a list given as
    separate ints, or an ``out=`` that methods do not take)."""
    try:
        params = inspect.signature(impl).parameters
    except (TypeError, ValueError):
        return False
    out = params.get("out")
    return out is not None and out.kind is out.KEYWORD_ONLY


def _generated_entry(plan, impl, Tensor, layouts=()):
    params = plan.params
    op = plan.op
    namespace = {"impl": impl, "op": op, "grad_mode": grad_mode, "T": Tensor,
                 "_w": _wants_grad, "_d": _dispatch_module, "_M": _MISSING,
                 "_plan": plan, "_rebind": _rebind, "_check": _check_typed,
                 "_DT": dtype, "_DEV": device, "_LAY": layout, "_MF": memory_format,
                 "_GEN": TYPES["generator"], "_AC": _autocast,
                 "_TR": _dispatch_module.transforms, "_CT": _dispatch_module.call_transformed,
                 "_CN": _dispatch_module.CONTINUE, "_SC": _PLAIN_SCALARS,
                 "run": impl if op.post is None else _generated_runner(plan, impl)}
    signature, positional, keywords, checks = [], [], [], []
    star_done = False
    var_positional = var_keyword = None
    aliased = any(n in _ALIASED for n in plan.names)
    # The slow path catches what the signature cannot bind: NumPy names, ``size=`` for
    # ``*size``, separate ints for a method's list.
    catch_keywords = (aliased or plan.var is not None) and not plan.var_keyword
    catch_extra = plan.fold is not None and plan.var is None
    sentinel = []   # required parameters that a NumPy alias may supply
    for i, p in enumerate(params):
        default = ""
        if p.default is not p.empty:
            namespace[f"_d{i}"] = p.default
            default = f"=_d{i}"
        elif catch_keywords and p.name in _ALIASED:
            default = "=_M"
            sentinel.append(p.name)
        if p.kind is p.POSITIONAL_ONLY:
            return None
        # A view's only differentiable argument is the tensor it views (the others are
        # sizes, dims, a dtype or a tensor whose shape is borrowed): check just that one.
        checked = plan.recorded and not (op.kind == "view" and positional)
        if p.kind is p.POSITIONAL_OR_KEYWORD:
            if default == "" and any("=" in s for s in signature):
                # A required parameter after one given a default: keep Python's order rule.
                default = "=_M"
                sentinel.append(p.name)
            signature.append(p.name + default)
            positional.append(p.name)
            if checked:
                checks.append(f"({p.name}._requires_grad if {p.name}.__class__ is T else "
                              f"({p.name}.__class__ not in _SC and _w(({p.name},), T)))")
        elif p.kind is p.VAR_POSITIONAL:
            signature.append("*" + p.name)
            star_done = True
            var_positional = p.name
            if checked:
                checks.append(
                    f"({p.name} and {p.name}[0].__class__ is not int and _w({p.name}, T))")
        elif p.kind is p.KEYWORD_ONLY:
            if not star_done:
                signature.append("*_va" if catch_extra else "*")
                star_done = True
            signature.append(p.name + default)
            keywords.append(p.name)
            if checked:
                checks.append(f"({p.name}.__class__ not in _SC and _w(({p.name},), T))")
        else:
            signature.append("**" + p.name)
            var_keyword = p.name
            if plan.recorded:
                checks.append(f"({p.name} and _w({p.name}.values(), T))")
    if catch_extra and not star_done:
        signature.append("*_va")
    if catch_keywords:
        signature.append("**_kw")
    typed = [] if op.name in _OWN_PARSING else [n for n in plan.names if n in _TYPED]
    autocast = op.name in _autocast.ELIGIBLE
    post = op.post
    args = ", ".join(positional + ([f"*{var_positional}"] if var_positional else []))
    call = ", ".join(positional + ([f"*{var_positional}"] if var_positional else [])
                     + [f"{k}={k}" for k in keywords]
                     + ([f"**{var_keyword}"] if var_keyword else []))
    body = ""
    slow = []
    if catch_extra:
        # x.permute(1, 0): the separate ints are the list (folded here, not in _rebind:
        # this form is as common as the tuple form).
        f = plan.fold
        body += (f"    if _va:\n"
                 f"        if {f} is _M or {f}.__class__ is tuple or {f}.__class__ is list:\n"
                 f"            return _rebind(_plan, _self, {{{f!r}: _M}}, (), _va, {{}})\n"
                 f"        {f} = ({f}, *_va)\n")
    if catch_keywords:
        slow.append("_kw")
    slow.extend(f"{n} is _M" for n in sentinel)
    if slow:
        named = ", ".join(f"{n!r}: {n}" for n in positional + keywords)
        body += (f"    if {' or '.join(slow)}:\n"
                 f"        return _rebind(_plan, _self, {{{named}}}, "
                 f"{var_positional or '()'}, (), "
                 f"{'_kw' if catch_keywords else '{}'})\n")
    if typed:
        test = " or ".join(_TYPED[n].format(n=n) for n in typed)
        given = ", ".join(f"{n!r}: {n}" for n in typed)
        unpack = ", ".join(typed) + ("," if len(typed) == 1 else "")
        body += (f"    if {test}:\n"
                 f"        _v = _check(_plan, {{{given}}})\n"
                 f"        {unpack} = {', '.join(f'_v[{n!r}]' for n in typed)},\n")
    # The call's arguments, as the steps below hand them to whatever calls this entry again.
    passed = ("(" + args + ("," if args else "") + "), {"
              + ", ".join([f"{k!r}: {k}" for k in keywords]
                          + ([f"**{var_keyword}"] if var_keyword else [])) + "}")
    # Once a tensor subclass takes part in ``__torch_function__``, a call with one of its
    # tensors goes to its handler first (``_torch_function``); the default one calls this
    # entry again with subclass dispatch off.
    # (Arguments all of plain classes, the common case, skip the call.)
    named = positional + keywords
    plain = "" if var_positional or var_keyword or not named else \
        " and not (" + " and ".join(f"{n}.__class__ in _PA" for n in named) + ")"
    body += (f"    if _d.subclass_dispatch{plain}:\n"
             f"        _o = _sd(op, _self, {passed})\n"
             f"        if _o is not _NOTF:\n"
             f"            return _o\n")
    namespace["_sd"] = _torch_function.dispatch_subclasses
    namespace["_PA"] = _torch_function.PLAIN_ARGUMENTS
    # Inside a function transform (forward-mode AD, vmap) the innermost one takes the call;
    # it calls this entry again with itself off the stack.
    body += (f"    if _TR.active:\n"
             f"        return _CT(op, _self, {passed})\n")
    if autocast:
        # Inside an autocast region (any thread: one global count while none is open) the
        # call goes through the op's cast policy, which calls this entry again.
        body += (f"    if _AC.active:\n"
                 f"        _k = _AC.wants({op.name!r})\n"
                 f"        if _k is not None:\n"
                 f"            return _AC.call(_k, _self, {passed})\n")
    # While a profiler records, its hook times the call by calling this entry again (and
    # hands that inner call ``_CN``: go on). Nothing recording: one ``is None`` check.
    body += (f"    if _d.profile_hook is not None:\n"
             f"        _p = _d.profile_hook(op, _self, {passed})\n"
             f"        if _p is not _CN:\n"
             f"            return _p\n")
    if post is not None:
        body += _check_devices_code(post, plan, namespace)
    if layouts:   # the layout step (sparse operands go to their layout's kernel)
        body += _layout_code(plan, layouts, namespace)
    if plan.recorded:
        # Keyword-only arguments reach the recorder only when given (a formula's name may
        # depend on whether ``stable=`` was passed), and ``impl`` gets them only when set.
        defaults = {p.name: f"_d{i}" for i, p in enumerate(params)
                    if p.default is not p.empty}
        kwargs = "{" + ", ".join(f"{k!r}: {k}" for k in keywords if k not in defaults) + "}"
        optional = [k for k in keywords if k in defaults]
        if optional:
            kwargs = (f"_kw_given({kwargs}, "
                      + ", ".join(f"({k!r}, {k}, {defaults[k]})" for k in optional) + ")")
            namespace["_kw_given"] = _given_keywords
        if var_keyword:
            kwargs = f"dict({kwargs}, **{var_keyword})"
        short_call = ", ".join(positional + ([f"*{var_positional}"] if var_positional else [])
                               + [f"{k}={k}" for k in keywords if k not in defaults])
        body += (f"    if ({' or '.join(checks) or 'False'}) and grad_mode.record:\n"
                 f"        return _d.autograd_call(op, run, ({args}{',' if args else ''}), "
                 f"{kwargs})\n")
        short = None
        if optional and not var_keyword:
            unset = " and ".join(f"{k} is {defaults[k]}" for k in optional)
            short = (unset, short_call)
    elif keywords and not var_keyword:
        # ``torch.zeros(4)``: keywords left at their defaults are not passed on.
        defaults = {p.name: f"_d{i}" for i, p in enumerate(params)
                    if p.default is not p.empty}
        optional = [k for k in keywords if k in defaults]
        if optional:
            short_call = ", ".join(
                positional + ([f"*{var_positional}"] if var_positional else [])
                + [f"{k}={k}" for k in keywords if k not in defaults])
            unset = " and ".join(f"{k} is {defaults[k]}" for k in optional)
            short = (unset, short_call)
    else:
        short = None
    if post is None:
        if short is not None:
            body += f"    if {short[0]}:\n        return impl({short[1]})\n"
        source = (f"def entry({', '.join(signature)}):\n" + body
                  + f"    return impl({call})\n")
    else:
        if short is not None:
            body += (f"    if {short[0]}:\n        _r = impl({short[1]})\n"
                     f"    else:\n        _r = impl({call})\n")
        else:
            body += f"    _r = impl({call})\n"
        body += _post_code(post, plan, namespace, call)
        source = f"def entry({', '.join(signature)}):\n" + body
    required = {p.name for p in params if p.default is p.empty}
    tensors = [(name, i + 1) for i, name in enumerate(positional)
               if name in _TENSOR_PARAMETERS and name in required]
    source = _guarded(source, namespace, passed, tensors)
    if _DEBUG_SOURCES is not None:
        _DEBUG_SOURCES[op.name] = source
    return _deferred(source, f"<entry of {op.name}>", "entry", namespace)


# Entries and their runners are compiled on their first call (issue 18): compiling all of
# them (about 2000) was half of ``import jtensor``, and a program calls a few hundred at
# most. Each starts as a function running this trampoline, which compiles its source into
# its namespace and takes the compiled code as its own (the function object keeps its
# identity: ``jtensor.add``, ``Tensor.add`` and operator methods hold it). Named like the
# entries, so that the trace recorder skips its frame as jtensor's own.
_TRAMPOLINE = next(c for c in compile(
    "def entry(*args, **kwargs):\n    _lazy(_self)\n    return _self(*args, **kwargs)\n",
    "<entry of an op, compiled on its first call>", "exec").co_consts
    if isinstance(c, types.CodeType))
_DEFERRED = []   # every function made by ``_deferred``, for ``compile_all``


def _deferred(source, filename, name, namespace):
    """A function ``name`` that runs ``source`` (which defines it in ``namespace``) once
    compiled, on its first call."""
    namespace["_source"] = source
    namespace["_filename"] = filename
    namespace["_defname"] = name
    namespace["_lazy"] = _compile_now
    fn = types.FunctionType(_TRAMPOLINE, namespace, name)
    namespace["_self"] = namespace[name] = fn
    _DEFERRED.append(fn)
    return fn


def _compile_now(fn):
    """Give ``fn`` (made by ``_deferred``) its compiled code and defaults; nothing when it
    has them already (another thread was first)."""
    if fn.__code__ is not _TRAMPOLINE:
        return
    names = fn.__globals__
    exec(compile(names["_source"], names["_filename"], "exec"), names)
    compiled = names[names["_defname"]]
    names[names["_defname"]] = fn
    fn.__defaults__ = compiled.__defaults__
    fn.__kwdefaults__ = compiled.__kwdefaults__
    fn.__code__ = compiled.__code__


def compile_all():
    """Compile every entry and runner not called yet (the tests check that each compiles)."""
    for fn in _DEFERRED:
        _compile_now(fn)


def _guarded(source, namespace, passed, tensors=()):
    """Wrap an entry's body so that NumPy's allocation failures leave as PyTorch's
    ``RuntimeError`` (``MemoryError``; a ``ValueError`` for an array past NumPy's maximum
    size), and a call refused with a ``TypeError`` goes to an argument's
    ``__torch_function__`` when one has it (``_torch_function``; ``passed``: the call's
    arguments). A ``try`` costs nothing until something is raised.

    ``tensors``: ``(name, position)`` of the op's required tensor parameters
    (``_TENSOR_PARAMETERS``). PyTorch's parser refuses anything but a tensor (or, where the
    op takes one, a number) there before the op runs; jtensor's ops read their tensors'
    fields without that check on the way, so an op given a NumPy array or a list there
    fails somewhere inside. Whatever it raised then (an ``AttributeError`` on
    ``ndarray._shape``, a ``TypeError`` of an inner op, an error about another argument), the
    call leaves as PyTorch's ``TypeError`` naming the argument. Checked only on that way
    out: a call that succeeds pays nothing."""
    head, body = source.split("\n", 1)
    listed = ", ".join(f"({name!r}, {position}, {name})" for name, position in tensors)

    def check(indent):   # (raising PyTorch's TypeError for a non-tensor; nothing without any)
        if not tensors:
            return ""
        return (f"{indent}_x = _nt(op.name, ({listed},))\n"
                f"{indent}if _x is not None:\n"
                f"{indent}    raise _x from None\n")
    namespace["_oom"] = _errors.out_of_memory
    namespace["_big"] = _errors.too_large
    namespace["_tf"] = _torch_function.dispatch
    namespace["_NOTF"] = _torch_function.NO_OVERRIDE
    namespace["_nt"] = _not_a_tensor
    inner = "".join("    " + line + "\n" if line else "\n" for line in body.split("\n"))
    return (head + "\n    try:\n" + inner.rstrip() + "\n"
            "    except MemoryError as _e:\n"
            "        raise _oom(_e) from None\n"
            "    except ValueError as _e:\n"
            "        _x = _big(_e)\n"
            "        if _x is None:\n"
            + check(" " * 12) + "            raise\n"
            "        raise _x from None\n"
            "    except TypeError:\n"
            f"        _o = _tf(op, _self, {passed})\n"
            "        if _o is _NOTF:\n"
            + check(" " * 12) + "            raise\n"
            "        return _o\n"
            + ("" if not tensors else
               "    except (AttributeError, RuntimeError, IndexError):\n"
               + check(" " * 8) + "        raise\n"))


# The parameter names that stand for an op's tensors in PyTorch's signatures, checked on an
# entry's way out with an error (``_guarded``).
_TENSOR_PARAMETERS = frozenset({"input", "self", "x1", "x2", "input1", "input2", "target"})


def _not_a_tensor(name, given):
    """PyTorch's ``TypeError`` for the first of ``given`` (``(parameter, position, value)``
    of an op's tensor parameters) whose value is neither a tensor nor a number, or None
    when there is none (the op's own error stands)."""
    for parameter, position, value in given:
        if not isinstance(value, (Tensor, numbers.Number)):
            return TensorTypeError(
                f"{name}(): argument '{'input' if parameter == 'self' else parameter}' "
                f"(position {position}) must be Tensor, not {type_name(value)}")
    return None


# Parameters that never count as an op's inputs in its trace event (ints and int lists in
# PyTorch's signatures, the typed arguments, and ``out``, which is what the call writes).
_NOT_INPUTS = frozenset(_TYPED) | {"out", "size", "dim", "dims", "shape", "keepdim"}


def _tensors_of(values):
    """The tensors among ``values``; a list or tuple of tensors counts element by element."""
    found = []
    for v in values:
        if isinstance(v, Tensor):
            found.append(v)
        elif v.__class__ is list or v.__class__ is tuple:
            found.extend(t for t in v if isinstance(t, Tensor))
    return tuple(found)


def _input_names(post, plan):
    if post.inputs is not None and not callable(post.inputs):
        return list(post.inputs)
    return [n for n in ([p.name for p in plan.params
                         if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY,
                                       p.VAR_POSITIONAL)])
            if n not in _NOT_INPUTS]


def _modified_name(post, plan):
    """The parameter the call writes (``self`` of an in-place op, ``out``), or None."""
    if post.modified is not None:
        return None if post.modified == _dispatch_module.NOTHING or callable(post.modified) \
            else post.modified
    if plan.op.kind == "inplace":
        first = next((p for p in plan.params if p.kind in (p.POSITIONAL_OR_KEYWORD,
                                                           p.POSITIONAL_ONLY)), None)
        if first is not None:
            return first.name
    if any(p.name == "out" for p in plan.params):
        return "out"
    return None


def _check_devices_code(post, plan, namespace):
    if not post.check_devices:
        return ""
    names = _input_names(post, plan) if post.check_devices is True else post.check_devices
    namespace["_cd"] = _dispatch_module.check_same_device
    namespace["_tt"] = _tensors_of
    return f"    _cd(_tt(({', '.join(names)},)))\n"


def _post_code(post, plan, namespace, call):
    """The end of a generated entry: ``_r`` is the implementation's result; bump the version
    of what the call wrote, tell the hooks (only when one listens), return ``_r``."""
    namespace["_tt"] = _tensors_of
    code = ""
    modified = _modified_name(post, plan)
    if callable(post.modified):
        namespace["_mod"] = post.modified
        namespace["_bump"] = _bump
        code += (f"    _m = _mod(_r, {call})\n"
                 f"    if _m is not None:\n        _m = _bump(_m)\n")
        written = "_m"
    elif modified == "out":   # a tensor, or a tuple of them (``sort(..., out=(v, i))``)
        namespace["_bump"] = _bump
        code += "    _m = None if out is None else _bump(out)\n"
        written = "_m"
    elif modified is not None:
        code += (f"    if {modified} is not None:\n"
                 f"        {modified}._version_counter.value += 1\n")
        written = modified
    else:
        written = "None"
    if callable(post.inputs):
        namespace["_ins"] = post.inputs
        inputs = f"_ins({call})"
    else:
        names = _input_names(post, plan)
        inputs = f"_tt(({', '.join(names)},))" if names else "()"
        if len(names) == 1:
            # One tensor input (``x.t()``, ``x.exp()``): the tuple itself, without the
            # filtering call, in the common case (a traced call's cost, issue 18).
            namespace["T"] = Tensor
            inputs = f"(({names[0]},) if {names[0]}.__class__ is T else {inputs})"
    info = "None"
    if post.info is not None:
        namespace["_info"] = post.info
        info = f"_info(_r, {call})"
    outputs = "_r"
    if post.outputs is not None:
        namespace["_outs"] = post.outputs
        outputs = f"_outs(_r, {call})"
    # With only the trace listening (a traced cell), its hook is called here directly: one
    # call frame less per traced op (issue 18; the recorder's walk to the user's line starts
    # at this entry's caller). With the autograd hook too, ``notify`` calls both.
    heard = ""   # (and the call is no silent hand-back)
    if post.silent is not None:
        namespace["_silent"] = post.silent
        heard = f"not _silent(_r, {call})"
    args = f"op, {inputs}, {outputs}, {written}, {info}"
    code += ("    if _d.autograd_hook is None:\n"
             "        _h = _d.trace_hook\n"
             f"        if _h is not None{' and ' + heard if heard else ''}:\n"
             f"            _h({args})\n"
             + (f"    elif {heard}:\n" if heard else "    else:\n")
             + f"        _d.notify({args})\n"
             "    return _r\n")
    return code


def _bump(out, bumped=True):
    """Bump the versions of an ``out=`` argument (a tensor or a tuple of tensors); returns
    the tensor the trace event reports as written (the first)."""
    if isinstance(out, Tensor):
        out._version_counter.value += 1
        return out
    first = None
    for t in out:
        if isinstance(t, Tensor):
            if bumped:
                t._version_counter.value += 1
            elif first is not None:   # ``finished`` bumps the one it reports
                t._version_counter.value += 1
            if first is None:
                first = t
    return first


def _generated_runner(plan, impl):
    """``impl`` followed by the op's finish, generated with ``impl``'s own signature: what
    the autograd layer runs for a recorded call (``_d.autograd_call(op, run, ...)``), so the
    recorded path ends exactly as the plain one (one version bump, one event)."""
    op = plan.op
    namespace = {"impl": impl, "op": op, "_d": _dispatch_module}
    signature, call = [], []
    star_done = False
    for i, p in enumerate(plan.params):
        default = ""
        if p.default is not p.empty:
            namespace[f"_d{i}"] = p.default
            default = f"=_d{i}"
        if p.kind is p.POSITIONAL_ONLY:
            return _runner(op, impl, plan)
        if p.kind is p.POSITIONAL_OR_KEYWORD:
            signature.append(p.name + default)
            call.append(p.name)
        elif p.kind is p.VAR_POSITIONAL:
            signature.append("*" + p.name)
            call.append("*" + p.name)
            star_done = True
        elif p.kind is p.KEYWORD_ONLY:
            if not star_done:
                signature.append("*")
                star_done = True
            signature.append(p.name + default)
            call.append(f"{p.name}={p.name}")
        else:
            signature.append("**" + p.name)
            call.append("**" + p.name)
    call = ", ".join(call)
    source = (f"def run({', '.join(signature)}):\n    _r = impl({call})\n"
              + _post_code(op.post, plan, namespace, call))
    # Named like the entries: the recorder skips "<entry of" frames as jtensor's own.
    run = _deferred(source, f"<entry of {op.name}: its finishing runner>", "run", namespace)
    run.__wrapped__ = impl
    return run


def _runner(op, impl, plan):
    """``impl`` followed by the op's finish, for the calls that do not go through a
    generated entry's own ending (the autograd layer's recorded call, a generic entry)."""
    post = op.post
    if plan is None:   # a signature the parser cannot read: every tensor argument counts
        names, var, modified, input_names = [], "_args", None, None
    else:
        names = [p.name for p in plan.params if p.kind is p.POSITIONAL_OR_KEYWORD]
        var = plan.var
        modified = _modified_name(post, plan)
        input_names = None if callable(post.inputs) else _input_names(post, plan)
    finish = _dispatch_module.finished

    def run(*args, **kwargs):
        result = impl(*args, **kwargs)
        if post.silent is not None and post.silent(result, *args, **kwargs):
            return result
        values = dict(zip(names, args, strict=False))
        if var is not None:
            values[var] = args[len(names):]
        if kwargs:
            values.update(kwargs)
        if callable(post.modified):
            written = post.modified(result, *args, **kwargs)
        else:
            written = None if modified is None else values.get(modified)
        if written is not None and not isinstance(written, Tensor):
            written = _bump(written, bumped=False)
        if callable(post.inputs):
            inputs = post.inputs(*args, **kwargs)
        elif input_names is None:
            inputs = _tensors_of([v for k, v in values.items() if k != "out"])
        else:
            inputs = _tensors_of([values[n] for n in input_names if n in values])
        info = None if post.info is None else post.info(result, *args, **kwargs)
        if post.outputs is None:
            return finish(op, inputs, result, written, info)
        finish(op, inputs, post.outputs(result, *args, **kwargs), written, info)
        return result

    run.__wrapped__ = impl
    return run


def _generic_entry(op, impl, Tensor):
    _transforms = _dispatch_module.transforms
    def entry(*args, **kwargs):
        if _dispatch_module.subclass_dispatch:
            handled = _torch_function.dispatch_subclasses(op, entry, args, kwargs)
            if handled is not _torch_function.NO_OVERRIDE:
                return handled
        if _transforms.active:
            return _dispatch_module.call_transformed(op, entry, args, kwargs)
        if _dispatch_module.profile_hook is not None:
            timed = _dispatch_module.profile_hook(op, entry, args, kwargs)
            if timed is not _dispatch_module.CONTINUE:
                return timed
        if grad_mode.record:
            # Inlined for speed: this check runs on every call of every differentiable op.
            for a in args:
                if a.__class__ is Tensor:
                    if a._requires_grad:
                        return _dispatch_module.autograd_call(op, impl, args, kwargs)
                elif a.__class__ is int:
                    continue
                elif _wants_grad((a,), Tensor):
                    return _dispatch_module.autograd_call(op, impl, args, kwargs)
            if kwargs and _wants_grad(kwargs.values(), Tensor):
                return _dispatch_module.autograd_call(op, impl, args, kwargs)
        return impl(*args, **kwargs)

    return entry


# ------------------------------------------------------------------- the layout step
# (the registry's layout kernels: ``_registry.register_layout`` / ``layout_kernel``)
def _layout_code(plan, layouts, namespace):
    """The layout step of a generated entry, run after parsing, the device check and autocast
    and before autograd: for each ``(cls, kernel, positions)`` of ``layouts``, one class test
    of the arguments at ``positions`` (indices among the positional parameters; a ``*args``
    parameter is tested by its first element) and, when one is a ``cls`` tensor, the call
    handed to ``kernel`` as ``impl`` would get it (keyword-only arguments only when given).
    Ops without layout kernels get no code here, so the dense path pays nothing."""
    params = plan.params
    ordered = [p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    args = ", ".join(p.name if p.kind is p.POSITIONAL_OR_KEYWORD else "*" + p.name
                     for p in ordered)
    required = [p.name for p in params if p.kind is p.KEYWORD_ONLY and p.default is p.empty]
    optional = [(p.name, i) for i, p in enumerate(params)
                if p.kind is p.KEYWORD_ONLY and p.default is not p.empty]
    keywords = "{" + ", ".join(f"{k!r}: {k}" for k in required) + "}"
    if optional:
        namespace["_kw_given"] = _given_keywords
        keywords = (f"_kw_given({keywords}, "
                    + ", ".join(f"({k!r}, {k}, _d{i})" for k, i in optional) + ")")
    var_keyword = next((p.name for p in params if p.kind is p.VAR_KEYWORD), None)
    if var_keyword:
        keywords = f"dict({keywords}, **{var_keyword})"
    code = ""
    for j, (cls, kernel, positions) in enumerate(layouts):
        namespace[f"_L{j}"] = cls
        namespace[f"_K{j}"] = kernel
        tests = []
        for i in positions:
            if i >= len(ordered):
                continue
            p = ordered[i]
            if p.kind is p.VAR_POSITIONAL:
                tests.append(f"({p.name} and {p.name}[0].__class__ is _L{j})")
            else:
                tests.append(f"{p.name}.__class__ is _L{j}")
        if tests:
            code += (f"    if {' or '.join(tests)}:\n"
                     f"        return _K{j}({args}{', ' if args else ''}**{keywords})\n")
    return code


def refill_entry(entry, fresh):
    """Make the generated entry ``entry`` run as ``fresh`` (an entry generated again for the
    same op and signature, e.g. with a layout kernel added) while keeping its identity, so
    every holder of ``entry`` (``Tensor``'s attributes, ``FUNCTIONS``, the package namespace,
    operator methods built on it) takes the new path. Returns False, changing nothing, when
    either is not a generated entry."""
    names = getattr(entry, "__globals__", None)
    if names is None or names.get("_self") is not entry \
            or getattr(fresh, "__globals__", {}).get("_self") is not fresh:
        return False
    names.update(fresh.__globals__)
    names["_self"] = entry
    entry.__code__ = fresh.__code__
    entry.__defaults__ = fresh.__defaults__
    entry.__kwdefaults__ = fresh.__kwdefaults__
    return True
