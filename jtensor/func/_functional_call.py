"""``functional_call`` and ``stack_module_state``: a module run with parameters and buffers
given as tensors (what ``grad``/``vmap`` over a model's weights need)."""

import contextlib

from .._api import ops as J
from .._errors import TensorRuntimeError, TensorValueError


def _owner(module, name):
    """The submodule holding the dotted ``name`` and the attribute's own name."""
    *path, leaf = name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, leaf


def _tied_names(module):
    """For each parameter or buffer object reachable under several names, all its names."""
    by_object = {}
    for name, t in list(module.named_parameters(remove_duplicate=False)) + list(
        module.named_buffers(remove_duplicate=False)
    ):
        by_object.setdefault(id(t), []).append(name)
    return {name: names for names in by_object.values() if len(names) > 1 for name in names}


@contextlib.contextmanager
def _swapped(module, values):
    """Make each ``name -> tensor`` of ``values`` the module's parameter/buffer/attribute
    for the duration, bypassing ``Module.__setattr__``'s type rules; restored afterwards."""
    saved = []
    try:
        for name, value in values.items():
            owner, leaf = _owner(module, name)
            if leaf in owner._parameters:
                saved.append((owner._parameters, leaf, owner._parameters[leaf]))
                owner._parameters[leaf] = value
            elif leaf in owner._buffers:
                saved.append((owner._buffers, leaf, owner._buffers[leaf]))
                owner._buffers[leaf] = value
            else:
                missing = object()
                old = owner.__dict__.get(leaf, missing)
                saved.append((owner.__dict__, leaf, old if old is not missing else missing))
                owner.__dict__[leaf] = value
        yield
    finally:
        for store, leaf, old in reversed(saved):
            if old is not None and old.__class__ is object:
                del store[leaf]
            else:
                store[leaf] = old


def functional_call(
    module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    """Call ``module`` with its parameters and buffers replaced by the tensors of
    ``parameter_and_buffer_dicts`` (a dict name -> tensor, or a tuple/list of dicts with
    distinct keys), PyTorch's ``torch.func.functional_call``. The module itself is left as
    it was. ``args`` is one argument or a tuple of them, ``kwargs`` a dict.
    ``tie_weights``: a value given for one of several names of the same tensor (tied
    weights) is used for all of them. ``strict``: every parameter and buffer must be given,
    and nothing else.

    >>> import jtensor as torch
    >>> m = torch.nn.Linear(2, 1)
    >>> torch.func.functional_call(m, {"weight": torch.ones(1, 2), "bias": torch.zeros(1)},
    ...                            (torch.tensor([1.0, 2.0]),))
    tensor([3.])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        values = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        values = {}
        for d in parameter_and_buffer_dicts:
            if not isinstance(d, dict):
                raise TensorValueError(
                    "Expected all elements of parameter_and_buffer_dicts to be dictionaries, "
                    f"got {type(d)}"
                )
        seen = {}
        for d in parameter_and_buffer_dicts:
            for key in d:
                seen[key] = seen.get(key, 0) + 1
        repeated = [k for k, n in seen.items() if n > 1]
        if repeated:
            raise TensorValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of functional call "
                "is ambiguous"
            )
        for d in parameter_and_buffer_dicts:
            values.update(d)
    else:
        raise TensorValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
            f"got {type(parameter_and_buffer_dicts)}"
        )
    if tie_weights:
        tied = _tied_names(module)
        for name in list(values):
            for other in tied.get(name, ()):
                if other == name:
                    continue
                if other in values and values[other] is not values[name]:
                    group = sorted(tied[name])
                    raise TensorValueError(
                        f"functional_call got multiple values for keys {group}, which are "
                        "tied. Consider using tie_weights=False"
                    )
                values.setdefault(other, values[name])
    if strict:
        known = [n for n, _ in module.named_parameters(remove_duplicate=False)] + [
            n for n, _ in module.named_buffers(remove_duplicate=False)
        ]
        unexpected = [k for k in values if k not in known]
        missing = [k for k in known if k not in values]
        if unexpected or missing:
            lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
            if unexpected:
                lines.append(
                    "\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + "."
                )
            if missing:
                lines.append("\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise TensorRuntimeError("\n".join(lines))
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    if kwargs is None:
        kwargs = {}
    with _swapped(module, values):
        return module(*args, **kwargs)


def stack_module_state(models):
    """The parameters and buffers of same-class ``models``, stacked along a new dim 0:
    ``(params, buffers)`` dicts, the stacked parameters new leaves that require grad (as the
    originals do), PyTorch's ``torch.func.stack_module_state``. With ``functional_call`` and
    ``vmap`` this runs an ensemble in one pass."""
    models = list(models)
    if not models:
        raise TensorRuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise TensorRuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise TensorRuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(named, leaf_grad):
        out = {}
        for name, value in named(models[0]):
            tensors = [dict(named(m))[name] for m in models]
            s = J.stack([t.detach() for t in tensors])
            if leaf_grad and value.requires_grad:
                s.requires_grad_()
            out[name] = s
        return out

    params = stacked(lambda m: list(m.named_parameters()), True)
    buffers = stacked(lambda m: list(m.named_buffers()), False)
    return params, buffers


__all__ = ["functional_call", "stack_module_state"]
