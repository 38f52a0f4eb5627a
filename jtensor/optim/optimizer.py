"""``optim.Optimizer``: the base class of every optimizer (param groups, per-parameter state,
``zero_grad``, ``state_dict``/``load_state_dict`` in PyTorch's format, step hooks)."""

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

import numpy as np

from .. import _dispatch
from .._arraymod import fma32
from .._blas import axpy as _axpy
from .._device import CPU_BACKEND
from .._tensor import ARRAY_FLOATS, DENSE_CLASSES, Tensor
from ..autograd import grad_mode as _grad_mode
from ..autograd.profiler import record_function
from ..nn.modules.module import RemovableHandle

__all__ = ["Optimizer", "required"]

# The type aliases of PyTorch's module (optimizers written for it annotate with them:
# ``def __init__(self, params: ParamsT, ...)``).
Args = tuple[Any, ...]
Kwargs = dict[str, Any]
StateDict = dict[str, Any]
ParamsT = Iterable[Tensor] | Iterable[dict[str, Any]] | Iterable[tuple[str, Tensor]]


class _RequiredParameter:
    """Singleton marking a hyperparameter that a param group must give."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


def _typename(obj):
    """PyTorch's ``torch.typename``: ``torch.FloatTensor`` style for tensors, else the type."""
    if isinstance(obj, Tensor):
        return obj.type() if hasattr(obj, "type") else "torch.Tensor"
    module = type(obj).__module__
    qualname = type(obj).__qualname__
    return qualname if module in ("builtins", None) else f"{module}.{qualname}"


def _to_scalar(x):
    """A one-element tensor hyperparameter as a 0-dim tensor; anything else unchanged."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _get_value(x):
    return x.item() if isinstance(x, Tensor) else x


def _real_views(params, *lists):
    """PyTorch's treatment of complex parameters: each complex parameter, and its gradient
    and state tensors, is updated through ``view_as_real`` (its real and imaginary parts as
    independent reals), so ``exp_avg_sq`` squares each part, not the complex number.

    Returns ``(params, *lists)``, with the complex entries replaced by their real views (the
    state itself is written through them); the lists given are left as they are."""
    if not any(p.is_complex() for p in params):
        return (params, *lists)
    from .._api import ops as J

    def real(t):
        return J.view_as_real(t) if t is not None and t.is_complex() else t

    return ([real(p) for p in params],
            *[[real(t) if params[i].is_complex() else t for i, t in enumerate(lst)]
              for lst in lists])


def _scalar_value(x):
    """A (one-element tensor) hyperparameter or step count as a plain Python number."""
    return _get_value(_to_scalar(x))


def _get_scalar_dtype():
    from .._dtypes import float32, float64, get_default_dtype

    return float64 if get_default_dtype() == float64 else float32


def _use_grad_for_differentiable(func):
    """Run ``step`` with grad mode set to the optimizer's ``differentiable`` flag (off by
    default), as PyTorch does, so the in-place updates are not recorded."""

    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        with _grad_mode.set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            return func(self, *args, **kwargs)

    return _use_grad


def _eval_closure(closure):
    """The loss from ``closure`` (re-evaluated with grad enabled), or ``None``."""
    if closure is None:
        return None
    with _grad_mode.enable_grad():
        return closure()


def _check_lr(lr):
    """PyTorch's learning-rate checks: a tensor lr has one element, and ``lr >= 0``."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_non_negative(*checks):
    """``ValueError(f"Invalid {label}: {value}")`` for the first ``(label, value)`` pair
    whose value is not ``>= 0``."""
    for label, value in checks:
        if not 0.0 <= value:
            raise ValueError(f"Invalid {label}: {value}")


def _check_betas(betas):
    """PyTorch's ``0 <= beta < 1`` checks of a ``(beta1, beta2)`` pair."""
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")


def _check_adam_like(lr, eps, betas, weight_decay):
    """The argument checks shared by Adamax, NAdam and RAdam, in PyTorch's order."""
    _check_lr(lr)
    _check_non_negative(("epsilon value", eps))
    _check_betas(betas)
    _check_non_negative(("weight_decay value", weight_decay))


def _new_step():
    """A fresh ``step`` state: a 0-d tensor of the scalar dtype (float32, or float64 when
    that is the default dtype), as PyTorch's non-capturable optimizers make it."""
    from .._ops.creation import tensor

    return tensor(0.0, dtype=_get_scalar_dtype())


def _collect_state(optimizer, group, name, init, keys):
    """The group's parameters that have a gradient, their gradients, and for each key of
    ``keys`` the list of that state entry per parameter (``None`` where absent); a parameter
    without state gets ``init(p, group)``'s dict first. A sparse gradient raises PyTorch's
    ``RuntimeError(f"{name} does not support sparse gradients")``."""
    params, grads = [], []
    columns = [[] for _ in keys]
    for p in _params_with_grad(group, params, grads, f"{name} does not support sparse gradients"):
        state = optimizer.state[p]
        if len(state) == 0:
            state.update(init(p, group))
        for column, key in zip(columns, keys, strict=True):
            column.append(state.get(key))
    return params, grads, columns


def _check_fused(fused, differentiable, foreach):
    """The ``fused`` flag's conflicts, checked after the base ``__init__`` as PyTorch does."""
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _apply_weight_decay(grad, param, weight_decay, maximize):
    """The gradient negated for ``maximize``, plus the L2 term ``weight_decay * param``."""
    grad = grad if not maximize else -grad
    if weight_decay != 0:
        grad = grad.add(param, alpha=weight_decay)
    return grad


def _params_with_grad(group, params, grads, sparse_error=None):
    """Yield the group's parameters that have a gradient, after appending each to ``params``
    and its gradient to ``grads``; a sparse gradient raises ``RuntimeError(sparse_error)``
    when that message is given."""
    for p in group["params"]:
        grad = p.grad
        if grad is None:
            continue
        params.append(p)
        if sparse_error is not None and getattr(grad, "is_sparse", False):
            raise RuntimeError(sparse_error)
        grads.append(grad)
        yield p


def _is_sparse(t):
    """Whether ``t`` is a sparse COO tensor (a sparse gradient or state). Called per parameter
    per step: a plain tensor answers with one class test, no import."""
    return t.__class__ is not Tensor and t.is_sparse


def _add_(t, other, alpha=1):
    """``t.add_(other, alpha=alpha)`` where ``other`` (or ``t``) may be sparse COO:
    dense += sparse adds the stored entries one after the other, sparse += sparse follows
    PyTorch's kernel (``jtensor._sparse.sparse_add_``), sparse += dense is refused."""
    if _is_sparse(other):
        from .._sparse import sparse_add_

        return sparse_add_(t, other, alpha)
    if alpha.__class__ is float or alpha.__class__ is int:
        arrays = plain_arrays(t, other)
        if arrays is not None:
            # ``p.add_(g, alpha=-lr)`` of a step, on the arrays: the add_ kernel's own two
            # array calls (``g * alpha`` in ``g``'s dtype, then the add into ``t``'s memory)
            # and its version bump, without the op's entry and argument checks (issue 18).
            target, scaled = arrays
            if alpha == 1:   # (add_ adds the operand itself when alpha is 1)
                _write(np.add, target, scaled)
            elif not _axpy(alpha, scaled, target):   # (one rounding: PyTorch's bits)
                scale = np.asarray(alpha, target.dtype)
                try:
                    scaled = scaled * scale
                except RuntimeWarning:   # warnings made errors (-W error): redo it silenced
                    with np.errstate(all="ignore"):
                        scaled = scaled * scale
                _write(np.add, target, scaled)
            t._version_counter.value += 1
            return t
    return t.add_(other, alpha=alpha)


def _mul_(t, value):
    """``t.mul_(value)`` for a number ``value`` (a momentum buffer's decay), on the array
    when ``plain_arrays`` allows it."""
    if value.__class__ is float:
        arrays = plain_arrays(t)
        if arrays is not None:
            _write(np.multiply, arrays[0], np.asarray(value, arrays[0].dtype))
            t._version_counter.value += 1
            return t
    return t.mul_(value)


def plain_arrays(*tensors):
    """The arrays of ``tensors`` when an optimizer may update them directly with the array
    calls of its public in-place ops (issue 18), else None (the caller takes the ops).

    Nothing may record, transform or listen (grad mode off, as in ``step``; no vmap; no trace,
    autograd or profiler hook), and each tensor must be a plain contiguous CPU
    float32/float64 tensor (a Parameter included) of the first one's dtype and shape, on a
    storage of its own (the ops refuse overlapping writes), neither an inference tensor nor
    carrying a forward-mode tangent. ``None`` entries (absent state) are passed through as
    None."""
    if _dispatch.grad_mode.enabled or _dispatch.transforms.active \
            or _dispatch.trace_hook is not None or _dispatch.autograd_hook is not None \
            or _dispatch.profile_hook is not None:
        return None
    first = tensors[0]
    dtype, shape = first._dtype, first._shape
    if dtype not in ARRAY_FLOATS:
        return None
    arrays = []
    storages = set()
    absent = 0
    for t in tensors:
        if t is None:
            arrays.append(None)
            absent += 1
            continue
        if t._dtype is not dtype or t._shape != shape or t.__class__ not in DENSE_CLASSES \
                or t._storage._backend is not CPU_BACKEND or t._is_inference \
                or t._fw_grads is not None \
                or not (t._contiguous if t._contiguous is not None else t.is_contiguous()):
            return None
        storages.add(id(t._storage))
        arrays.append(t._array())
    if len(storages) + absent != len(arrays):
        return None
    return arrays


def plain_step(step_t, numbers, *tensors):
    """``(arrays, step, number)`` for an optimizer's array update: ``plain_arrays(*tensors)``,
    the array of the step count ``step_t`` (a plain 0-d CPU tensor), already counted up
    (``step_t += 1``, version bump included), and ``number(x)``, a hyperparameter as the ops
    convert a number operand (a 0-d array of the tensors' dtype). None, having done nothing,
    when the tensors are refused or one of ``numbers`` (the hyperparameters that enter the
    arithmetic) is not a float."""
    for x in numbers:
        if x.__class__ is not float:
            return None
    arrays = plain_arrays(*tensors)
    if arrays is None:
        return None
    steps = plain_arrays(step_t)
    if steps is None or step_t._shape:
        return None
    s = steps[0]
    np.add(s, np.asarray(1, s.dtype), out=s)
    step_t._version_counter.value += 1
    return arrays, s, functools.partial(np.asarray, dtype=arrays[0].dtype)


def decayed_grad(g, p, weight_decay, maximize):
    """``_apply_weight_decay`` on arrays: ``-g`` for ``maximize``, plus ``p * weight_decay``
    as ``grad.add(param, alpha=weight_decay)`` computes it."""
    if maximize:
        g = np.negative(g)
    if weight_decay != 0:
        decayed = np.array(g)   # (grad.add(param, alpha=wd): one rounding, _blas.axpy)
        if not _axpy(weight_decay, p, decayed):
            decayed = g + p * np.asarray(weight_decay, p.dtype)
        g = decayed
    return g


def lerp_into(start, end, weight, scratch):
    """``start.lerp_(end, weight)`` on arrays, for a number ``weight`` (a 0-d array of the
    dtype): the lerp op's numbers (``start + weight * (end - start)`` for ``|weight| < 0.5``,
    else ``end - (end - start) * (1 - weight)``), with ``scratch`` as its temporary."""
    np.subtract(end, start, out=scratch)
    # PyTorch's vectorised lerp is one fused multiply-add: ``start + weight * diff``, or
    # ``end + (weight - 1) * diff`` (_blas.axpy gives those bits)
    if np.abs(weight) < 0.5:
        if not _axpy(weight, scratch, start):
            np.multiply(scratch, weight, out=scratch)
            np.add(start, scratch, out=start)
    else:
        base = np.array(end)
        if _axpy(weight - 1, scratch, base):
            start[...] = base
        else:
            np.multiply(scratch, 1 - weight, out=scratch)
            np.subtract(end, scratch, out=start)


def addc_into(target, value, a, b, divide, scratch):
    """``target.addcmul_(a, b, value=value)`` (``addcdiv_`` when ``divide``) on arrays, for a
    number ``value`` (a 0-d array of the dtype): the op's ``target + (value * a) * b`` (``/
    b``; float32's product and sum fused, ``_arraymod.fma32``), with ``scratch`` as its
    temporary (it may be ``a`` itself)."""
    np.multiply(a, value, out=scratch)
    if not divide and target.dtype == a.dtype == b.dtype == np.float32:
        fma32(scratch, b, target, out=target)   # (as the op: one fused last step)
        return
    (np.divide if divide else np.multiply)(scratch, b, out=scratch)
    np.add(target, scratch, out=target)


def _write(ufunc, target, operand):
    """``ufunc(target, operand, out=target)``, an in-place update. Floating-point warnings
    are dropped by the module's warnings filter as every op's are; where warnings are errors
    (``-W error``), NumPy raises only after its whole write, so the update is complete and
    the warning is dropped (PyTorch never warns about an overflowing update)."""
    try:
        ufunc(target, operand, out=target)
    except RuntimeWarning:
        pass


def _add(t, other, alpha=1):
    """Out-of-place ``t.add(other, alpha=alpha)`` with sparse operands (as ``_add_``)."""
    if _is_sparse(other):
        from .._sparse import sparse_add

        return sparse_add(t, other, alpha)
    return t.add(other, alpha=alpha)


def _make_sparse(like, indices, values):
    """A sparse COO tensor of ``like``'s size on ``indices`` (PyTorch's optimizers build
    their masked updates with ``sparse_coo_tensor``: coalesced flag only for nnz <= 1)."""
    from .._sparse import SparseCOOTensor

    return SparseCOOTensor._create(indices, values, like._shape, values._shape[0] <= 1)


def _add_hook(hooks, hook, prepend=False):
    """Store ``hook`` in the ordered dict ``hooks`` (first when ``prepend``); its handle."""
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook):
    """Register a pre hook common to all optimizers: ``hook(optimizer, args, kwargs)``."""
    return _add_hook(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """Register a post hook common to all optimizers: ``hook(optimizer, args, kwargs)``."""
    return _add_hook(_global_optimizer_post_hooks, hook)


class Optimizer:
    """Base class for all optimizers.

    ``params`` is an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts (param
    groups, each with a ``"params"`` entry and optional per-group hyperparameters);
    ``defaults`` holds the hyperparameters used by groups that do not set them.

    >>> import jtensor as torch
    >>> w = torch.nn.Parameter(torch.ones(2))
    >>> opt = torch.optim.SGD([w], lr=0.5)
    >>> w.sum().backward(); opt.step(); w
    Parameter containing:
    tensor([0.5000, 0.5000], requires_grad=True)
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()

        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of "
                "Tensors or dicts, but got " + _typename(params)
            )

        self.state = defaultdict(dict)
        self.param_groups = []

        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    # -- pickling -----------------------------------------------------------------------------

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in (
            "_optimizer_step_pre_hooks",
            "_optimizer_step_post_hooks",
            "_optimizer_state_dict_pre_hooks",
            "_optimizer_state_dict_post_hooks",
            "_optimizer_load_state_dict_pre_hooks",
            "_optimizer_load_state_dict_post_hooks",
        ):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def _setstate_groups(self, defaults, tensor_step=False, tensor_keys=()):
        """After unpickling: fill the groups' missing hyperparameters from ``defaults`` (in
        order) and, with ``tensor_step``, turn a plain-number ``step`` (and the entries named
        in ``tensor_keys``) into scalar tensors."""
        from .._ops.creation import tensor

        keys = (("step",) if tensor_step else ()) + tuple(tensor_keys)
        for group in self.param_groups:
            for key, value in defaults.items():
                group.setdefault(key, value)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) == 0:
                    continue
                for key in keys:
                    if not isinstance(p_state[key], Tensor):
                        p_state[key] = tensor(float(p_state[key]), dtype=_get_scalar_dtype())

    def __repr__(self):
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    # -- step hooks ---------------------------------------------------------------------------

    @staticmethod
    def profile_hook_step(func):
        """Wrap a subclass's ``step`` so that the step pre/post hooks run around it."""

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self, *_ = args
            for pre_hook in chain(
                _global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()
            ):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(
                            f"{func} must return None or a tuple of "
                            f"(new_args, new_kwargs), but got {result}."
                        )
            if _dispatch.profile_hook is None:
                out = func(*args, **kwargs)
            else:   # a profiler records: the step is its range, as PyTorch names it
                with record_function(f"Optimizer.step#{self.__class__.__name__}.step"):
                    out = func(*args, **kwargs)
            for post_hook in chain(
                self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()
            ):
                post_hook(self, args, kwargs)
            return out

        return wrapper

    def _patch_step_function(self):
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        if not getattr(self.__class__.step, "hooked", None):
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)`` before step."""
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs) -> None`` after step."""
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """``hook(optimizer) -> None`` before ``state_dict()`` builds the dict."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """``hook(optimizer, state_dict) -> state_dict or None`` after ``state_dict()``."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """``hook(optimizer, state_dict) -> state_dict or None`` before loading."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """``hook(optimizer) -> None`` after loading."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # -- state_dict ---------------------------------------------------------------------------

    def state_dict(self):
        """The optimizer's state as ``{"state": {index: {...}}, "param_groups": [...]}``:
        parameters are replaced by their index in the order of the param groups (PyTorch's
        format); the state tensors are the optimizer's own (not copies)."""
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update(
                {
                    id(p): i
                    for i, p in enumerate(group["params"], start_index)
                    if id(p) not in param_mappings
                }
            )
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {
            (param_mappings[id(k)] if isinstance(k, Tensor) else k): v
            for k, v in self.state.items()
        }
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        fused = capturable = False
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=_float32(), device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict):
        """Load a dict from ``state_dict()``: groups are matched by position and must have
        the same sizes; state tensors are cast to their parameter's dtype (``step`` kept)."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(
            len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)
        ):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match "
                "the size of optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
                strict=True,
            )
        )

        def _cast(param, value, param_id=None, param_groups=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(
                    param, value, param_id, param_groups, key
                )
            if isinstance(value, dict):
                return {
                    k: _cast(param, v, param_id=param_id, param_groups=param_groups, key=k)
                    for k, v in value.items()
                }
            if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
                return type(value)(
                    _cast(param, v, param_id=param_id, param_groups=param_groups) for v in value
                )
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, param_id=k, param_groups=state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups, strict=True)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # -- gradients and steps ------------------------------------------------------------------

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all optimized tensors: to ``None`` (default) or, with
        ``set_to_none=False``, to zeros in place (detached first)."""
        if _dispatch.profile_hook is not None:   # a profiler records: the call is a range
            with record_function(f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"):
                return self._zero_grad(set_to_none)
        return self._zero_grad(set_to_none)

    def _zero_grad(self, set_to_none):
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        if g.grad_fn is not None:
                            g.detach_()
                        else:
                            g.requires_grad_(False)
                        g.zero_()

    def step(self, closure=None):
        """Perform a single optimization step (implemented by subclasses)."""
        raise NotImplementedError

    def add_param_group(self, param_group):
        """Add a param group (a dict with ``"params"`` and optional hyperparameters);
        unspecified hyperparameters take the optimizer's defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, "
                "but the ordering of tensors in sets will change between runs. "
                "Please use a list instead."
            )
        else:
            param_group["params"] = list(params)

        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) == len(tensors):
                param_group["param_names"] = names
            else:
                raise ValueError(
                    "all optimizer params should be with/without names. "
                    "Some param names are missing"
                )

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or param.retains_grad
            ):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required "
                    f"optimization parameter {name}"
                )
            param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error; see "
                "github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )

        param_set = set()
        for group in self.param_groups:
            param_set.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {txt} to the optimizer"
                )
        if not param_set.isdisjoint(id(p) for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)


def _float32():
    from .._dtypes import float32

    return float32


class _ElementwiseOptimizer(Optimizer):
    """The shape Adamax, NAdam, RAdam, Rprop and ASGD share: per group, the parameters with
    a gradient and their state columns (``_state_keys``, a new parameter's entries from
    ``_init_state(p, group)``) go to ``_update(params, grads, columns, group)``, the
    optimizer's functional form; ``__setstate__`` fills ``_setstate_defaults`` and turns the
    plain numbers of ``step`` and ``_tensor_keys`` into tensors."""

    _state_keys = ()
    _tensor_keys = ()
    _setstate_defaults = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
    }

    def __setstate__(self, state):
        super().__setstate__(state)
        self._setstate_groups(
            self._setstate_defaults, tensor_step=True, tensor_keys=self._tensor_keys
        )

    _capturable_tensors = "params and state_steps"  # named in PyTorch's device check

    def _init_state(self, p, group):
        raise NotImplementedError

    def _update(self, params, grads, columns, group):
        raise NotImplementedError

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss."""
        loss = _eval_closure(closure)
        for group in self.param_groups:
            params, grads, columns = _collect_state(
                self, group, type(self).__name__, self._init_state, self._state_keys
            )
            if group["capturable"]:
                _check_capturable(params, self._capturable_tensors)
            self._update(params, grads, columns, group)
        return loss


_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone", "xla"]


def _check_capturable(params, what):
    """PyTorch's check that ``capturable=True`` parameters live on a graph-capturing device
    (a CPU parameter fails at ``step``, with this ``AssertionError``)."""
    if any(p.device.type not in _CAPTURABLE_DEVICES for p in params):
        raise AssertionError(
            f"If capturable=True, {what} must be on supported devices: {_CAPTURABLE_DEVICES}."
        )


def _hyper(group, *names):
    """The group's hyperparameters ``names`` as keyword arguments of a functional form."""
    return {name: group[name] for name in names}
