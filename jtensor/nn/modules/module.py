"""``nn.Module``: parameters, buffers and submodules, registered by attribute assignment.

Everything PyTorch's training code relies on: registration rules and errors, the
``parameters()``/``named_*()``/``children()``/``modules()`` walks (duplicates removed),
``apply`` (children first, then the module itself), ``train``/``eval``, ``zero_grad``,
``to``/``cuda``/``cpu``/``half``/``float``/``double``/``bfloat16`` (parameters keep their
identity: optimizers hold them), ``state_dict``/``load_state_dict`` with PyTorch's error
report, forward pre-hooks, forward hooks and full backward hooks, and PyTorch's ``repr``.
"""

import itertools
from collections import OrderedDict, namedtuple

from ... import _dtypes
from ..._dispatch import grad_mode
from ..._tensor import Tensor
from ..parameter import Buffer, Parameter

_IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])
_IncompatibleKeys.__repr__ = lambda self: (
    "<All keys matched successfully>" if not self.missing_keys and not self.unexpected_keys
    else f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
         f"unexpected_keys={self.unexpected_keys})")

_hook_ids = itertools.count()


class RemovableHandle:
    """Returned by the ``register_*_hook`` methods; ``remove()`` unregisters the hook."""

    def __init__(self, hooks_dict):
        self.id = next(_hook_ids)
        self._hooks = hooks_dict

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _addindent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    # (blank lines, whitespace-only ones too, stay empty, as PyTorch's)
    return lines[0] + "\n" + "\n".join(" " * spaces + line if line.strip() else ""
                                        for line in lines[1:])


class Module:
    """Base class of every layer and model. Subclasses call ``super().__init__()`` first,
    assign parameters and submodules as attributes, and define ``forward``.

    >>> import jtensor as torch
    >>> class Scale(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.weight = torch.nn.Parameter(torch.ones(3))
    ...     def forward(self, x):
    ...         return x * self.weight
    >>> class Net(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.inner = Scale()
    ...     def forward(self, x):
    ...         return self.inner(x).relu()
    >>> [name for name, _ in Net().named_parameters()]
    ['inner.weight']
    """

    training: bool
    _version = 1

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got unexpected arguments: Module.__init__ "
                "takes none (pass them to your subclass instead)")
        setter = object.__setattr__
        setter(self, "training", True)
        setter(self, "_parameters", {})
        setter(self, "_buffers", {})
        setter(self, "_non_persistent_buffers_set", set())
        setter(self, "_modules", {})
        setter(self, "_forward_pre_hooks", OrderedDict())
        setter(self, "_forward_hooks", OrderedDict())
        setter(self, "_backward_hooks", OrderedDict())
        # Whether ``_backward_hooks`` holds full hooks (True), the deprecated ones of
        # ``register_backward_hook`` (False), or none yet (None): one module takes one kind.
        setter(self, "_is_full_backward_hook", None)

    # ------------------------------------------------------------------ forward
    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        if not self._forward_pre_hooks and not self._forward_hooks \
                and not self._backward_hooks:
            return self.forward(*args, **kwargs)   # (no hook: the common call, issue 18)
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        full = self._backward_hooks and self.__dict__.get("_is_full_backward_hook") is not False
        if full and grad_mode.enabled:
            from ._hooks import call_with_backward_hooks

            output = call_with_backward_hooks(self, args, kwargs)
        else:
            output = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, output)
            if result is not None:
                output = result
        if self._backward_hooks and not full:
            from ._hooks import attach_node_hooks

            attach_node_hooks(self, args, output)
        return output

    # ------------------------------------------------------------------ registration
    def register_parameter(self, name, param):
        """Add ``param`` (a ``Parameter`` or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                "be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add a non-learnable tensor (running statistics...) saved in ``state_dict`` unless
        ``persistent=False``."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        if isinstance(tensor, Buffer):
            persistent = tensor.persistent
            tensor = tensor.detach()
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Add a child module under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    @staticmethod
    def _check_name(name, what):
        if not isinstance(name, str):
            raise TypeError(f"{what} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{what} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{what} name can\'t be empty string ""')

    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._buffers, self._modules)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_from(name, self.__dict__, params, self._buffers)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            if isinstance(value, Buffer):
                self.register_buffer(name, value)
            else:
                buffers[name] = value
            return
        object.__setattr__(self, name, value)

    @staticmethod
    def _remove_from(name, *dicts):
        for d in dicts:
            if d is not None and name in d:
                del d[name]

    def __getattr__(self, name):
        d = self.__dict__
        parameters = d.get("_parameters")
        if parameters is not None and name in parameters:   # (``self.weight``: first)
            return parameters[name]
        for store in ("_buffers", "_modules"):
            values = d.get(store)
            if values is not None and name in values:
                return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))

    def get_submodule(self, target):
        """The submodule at a dotted path (``"encoder.layers.0"``)."""
        module = self
        if target == "":
            return module
        for item in target.split("."):
            if item not in module._modules:
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = module._modules[item]
        return module

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if name not in module._parameters:
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return module._parameters[name]

    # ------------------------------------------------------------------ walks
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """``(dotted name, module)`` for this module and every descendant, each once."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None:
                    continue
                if remove_duplicate:
                    if id(value) in seen:
                        continue
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """``(dotted name, parameter)`` pairs; a parameter shared by two modules comes once."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def apply(self, fn):
        """Call ``fn`` on every submodule (children first, as PyTorch), then on ``self``."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ modes
    def train(self, mode=True):
        """Training mode (dropout active, batch norm updating its statistics)."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's ``.grad`` (to None by default, as PyTorch 2 does)."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    # ------------------------------------------------------------------ conversion
    def _apply(self, fn):
        for module in self.children():
            module._apply(fn)
        previous = grad_mode.enabled
        grad_mode.enabled = False
        try:
            for param in self._parameters.values():
                if param is None:
                    continue
                new = fn(param)
                if new is not param:
                    # The Parameter object stays (optimizers hold it); its data changes.
                    param.data = new
                if param.grad is not None:
                    g = fn(param.grad)
                    if g is not param.grad:
                        param._grad = g
            for key, buf in self._buffers.items():
                if buf is not None:
                    self._buffers[key] = fn(buf)
        finally:
            grad_mode.enabled = previous
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)`` (floating
        tensors only), ``to(tensor)``, ``to(device, dtype, non_blocking)``, and
        ``memory_format=`` (4-d and 5-d tensors only). In place."""
        from ..._dtypes import to_dtype
        from ..._ops.copies import _parse_to_args

        dtype, device, _, memory_format, non_blocking = _parse_to_args(args, kwargs)
        if dtype is not None:
            dtype = to_dtype(dtype)
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, "
                                f"but got desired dtype={dtype}")

        def convert(t):
            try:
                if memory_format is not None and t.dim() in (4, 5):
                    # (PyTorch's: 4-d and 5-d tensors take the format, the rest keep theirs)
                    return t.to(device=device, dtype=dtype if t.is_floating_point()
                                or t.is_complex() else None, non_blocking=non_blocking,
                                memory_format=memory_format)
                if dtype is not None and (t.is_floating_point() or t.is_complex()):
                    return t.to(device=device, dtype=dtype, non_blocking=non_blocking)
                return t.to(device=device, non_blocking=non_blocking) if device is not None else t
            except NotImplementedError as e:
                if t.is_meta:   # PyTorch's hint: a meta module has shapes, no values to move
                    raise NotImplementedError(
                        f"{e} Please use torch.nn.Module.to_empty() instead of "
                        "torch.nn.Module.to() when moving module from meta to a different "
                        "device.") from None
                raise

        return self._apply(convert)

    def to_empty(self, *, device, recurse=True):
        """Parameters and buffers replaced by uninitialised tensors of the same shapes, dtypes
        and strides on ``device`` (how a module built on the ``meta`` device gets memory).
        ``recurse=False``: this module's own tensors only. In place; returns the module."""
        from ..._api import ops as J

        def fresh(t):
            return J.empty_like(t, device=device)

        if recurse:
            return self._apply(fresh)
        children = self._modules
        self._modules = OrderedDict()
        try:
            return self._apply(fresh)
        finally:
            self._modules = children

    def share_memory(self):
        """Move every parameter, gradient and buffer to shared memory (``share_memory_``):
        processes forked afterwards (or sent the module through ``jtensor.multiprocessing``)
        then update the same tensors, as Hogwild training does. In place; returns the
        module."""
        return self._apply(lambda t: t.share_memory_())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def _cast_floating(self, dtype_name):
        dtype = _dtypes.ALIASES[dtype_name]
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self):
        return self._cast_floating("float32")

    def double(self):
        return self._cast_floating("float64")

    def half(self):
        return self._cast_floating("float16")

    def bfloat16(self):
        return self._cast_floating("bfloat16")

    # ------------------------------------------------------------------ state
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An ordered mapping of every parameter and persistent buffer (detached, sharing
        memory unless ``keep_vars``)."""
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return destination

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values from ``state_dict``; with ``strict``, missing or unexpected keys and
        shape mismatches raise one RuntimeError listing them all (as PyTorch)."""
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        own = self.state_dict(keep_vars=True)
        _materialize_lazy(own, state_dict)
        for key, target in own.items():
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected torch.Tensor '
                              f"or Tensor-like object from checkpoint but received "
                              f"{type(value)}")
                continue
            if tuple(value.shape) != tuple(target.shape):
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{value.shape} from checkpoint, the shape in current model is "
                              f"{target.shape}.")
        for key in state_dict.keys():
            if key not in own:
                unexpected.append(key)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {self._get_name()}:\n\t"
                               + "\n\t".join(errors))
        previous = grad_mode.enabled
        grad_mode.enabled = False
        try:
            for key, target in own.items():
                if key in state_dict:
                    self._load_one(key, target, state_dict[key], assign)
        finally:
            grad_mode.enabled = previous
        return _IncompatibleKeys(missing, unexpected)

    def _load_one(self, key, target, value, assign):
        path, _, name = key.rpartition(".")
        module = self.get_submodule(path)
        if assign:
            if name in module._parameters:
                module._parameters[name] = value if isinstance(value, Parameter) else \
                    Parameter(value, requires_grad=target.requires_grad)
            else:
                module._buffers[name] = value
        else:
            target.copy_(value)

    # ------------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook):
        """``hook(module, args)`` before ``forward``; may return replacement args."""
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook):
        """``hook(module, args, output)`` after ``forward``; may return a replacement."""
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    def register_backward_hook(self, hook):
        """The deprecated backward hook: ``hook(module, grad_input, grad_output)`` runs as a
        hook of the node that made the module's output, so ``grad_input`` are that node's
        input gradients (all of the module's only where its forward is one op, as
        ``ReLU``'s); it may return replacements. A ``FutureWarning`` says when they are not
        the module's (``register_full_backward_hook`` gives the documented behaviour)."""
        return self._add_backward_hook(hook, full=False)

    def register_full_backward_hook(self, hook):
        """``hook(module, grad_input, grad_output)`` when the gradients with respect to the
        module's tensor inputs are computed; may return replacement ``grad_input``."""
        return self._add_backward_hook(hook, full=True)

    def _add_backward_hook(self, hook, full):
        """Register a backward hook of one kind; a module takes hooks of one kind only."""
        if self.__dict__.get("_is_full_backward_hook") is (not full):
            raise RuntimeError(_BOTH_HOOK_KINDS)
        object.__setattr__(self, "_is_full_backward_hook", full)
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    # ------------------------------------------------------------------ repr
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text inside this module's parentheses in ``repr`` (override it)."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, module in self._modules.items():
            lines.append(f"({name}): " + _addindent(repr(module), 2))
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __setstate__(self, state):
        self.__dict__.update(state)


_BOTH_HOOK_KINDS = ("Cannot use both regular backward hooks and full backward hooks on a "
                    "single Module. Please use only one of them.")


def _type_name(value):
    if isinstance(value, Tensor):
        return value.type()
    return type(value).__name__


def _materialize_lazy(own, state_dict):
    """PyTorch's lazy-module load hook: an uninitialized parameter or buffer that the
    checkpoint holds initialized takes the checkpoint's shape (its values are copied next),
    so ``LazyLinear(3).load_state_dict(trained.state_dict())`` works before any forward."""
    from ..parameter import _UninitializedMixin

    for key, target in own.items():
        if isinstance(target, _UninitializedMixin) and key in state_dict:
            value = state_dict[key]
            if isinstance(value, Tensor) and not isinstance(value, _UninitializedMixin):
                previous = grad_mode.enabled
                grad_mode.enabled = False
                try:
                    target.materialize(value.shape)
                finally:
                    grad_mode.enabled = previous
