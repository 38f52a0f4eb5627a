"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``,
``ParameterDict``."""

import operator
from collections import OrderedDict

from ..parameter import Parameter
from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _index(idx, n, what):
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n


def _as_parameter(value):
    return value if isinstance(value, Parameter) else Parameter(value)


def _pairs(mapping_or_pairs):
    """The ``(key, value)`` pairs of a mapping, or the pairs themselves."""
    return mapping_or_pairs.items() if hasattr(mapping_or_pairs, "items") else mapping_or_pairs


class _ModuleSequence(Module):
    """What ``Sequential`` and ``ModuleList`` share: modules registered under ``"0"``,
    ``"1"``, ... and renumbered after a delete or an insert (as PyTorch)."""

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self

    def pop(self, key):
        """Remove the module at ``key`` (an index or a slice) and return it."""
        module = self[key]
        del self[key]
        return module

    def _renumber(self, items):
        self._modules.clear()
        for i, module in enumerate(items):
            self._modules[str(i)] = module

    def _insert(self, index, module):
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)


class Sequential(_ModuleSequence):
    """Modules applied in order: ``Sequential(a, b)(x) == b(a(x))``."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules)
        return self._modules[keys[_index(idx, len(keys), "Sequential")]]

    def __setitem__(self, idx, module):
        keys = list(self._modules)
        setattr(self, keys[_index(idx, len(keys), "Sequential")], module)

    def __delitem__(self, idx):
        keys = list(self._modules)
        if isinstance(idx, slice):
            for key in keys[idx]:
                del self._modules[key]
        else:
            del self._modules[keys[_index(idx, len(keys), "Sequential")]]
        # PyTorch renumbers the remaining modules.
        self._renumber(list(self._modules.values()))

    def insert(self, index, module):
        self._insert(index, module)
        return self

    # ``+`` joins two Sequentials (the same module objects); ``*`` repeats one, as PyTorch.
    def _only_sequential(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")

    def __add__(self, other):
        self._only_sequential(other)
        return Sequential(*self, *other)

    def __iadd__(self, other):
        self._only_sequential(other)
        offset = len(self)
        for i, module in enumerate(list(other)):
            self.add_module(str(i + offset), module)
        return self

    def _factor(self, other):
        if not isinstance(other, int):
            raise TypeError(
                f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __mul__(self, other):
        self._factor(other)
        return Sequential(*(list(self) * other))

    def __rmul__(self, other):
        return self.__mul__(other)

    def __imul__(self, other):
        self._factor(other)
        count = len(self)
        for n in range(1, other):
            for i in range(count):  # PyTorch reads the modules by their index keys
                self.add_module(str(i + n * count), self._modules[str(i)])
        return self


class ModuleList(_ModuleSequence):
    """A list of modules, registered (so their parameters are the model's)."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx, module):
        self.add_module(str(_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx):
        items = list(self._modules.values())
        del items[idx]
        self._renumber(items)

    def insert(self, index, module):
        self._insert(index, module)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList([*self, *other])

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList has no forward: iterate over it instead")

    def __repr__(self):
        # PyTorch's: a run of identical entries prints once, as "(0-5): 6 x Layer(...)".
        reprs = [repr(item) for item in self]
        if not reprs:
            return self._get_name() + "()"
        runs = [[0, 0, reprs[0]]]
        for i, r in enumerate(reprs[1:], 1):
            if r == runs[-1][2]:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [_addindent(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}", 2)
                 for a, b, r in runs]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules, registered, in insertion order."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key):
        return self._modules.pop(key)

    def clear(self):
        self._modules.clear()

    def update(self, modules):
        for key, module in _pairs(modules):
            self[key] = module

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleDict has no forward: index it instead")


class ParameterList(Module):
    """A list of parameters, registered."""

    def __init__(self, values=None):
        super().__init__()
        for v in values or ():
            self.append(v)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def __getitem__(self, idx):
        return self._parameters[str(_index(idx, len(self), "ParameterList"))]

    def __setitem__(self, idx, value):
        self.register_parameter(str(_index(idx, len(self), "ParameterList")),
                                _as_parameter(value))

    def append(self, value):
        self.register_parameter(str(len(self)), _as_parameter(value))
        return self

    def extend(self, values):
        for v in values:
            self.append(v)
        return self

    def extra_repr(self):
        # PyTorch names the dtype here (``torch.float32``) and the tensor type in a dict
        return "\n".join(_parameter_line(k, p, repr(p.dtype)) for k, p in enumerate(self))


def _parameter_line(key, p, kind):
    """One entry of a parameter container's repr, as PyTorch's: the kind, its size and (for
    CUDA) its device."""
    size = "x".join(str(s) for s in p.shape)
    device = f" ({p.device})" if p.device.type == "cuda" else ""
    return f"  ({key}): Parameter containing: [{kind} of size {size}{device}]"


class ParameterDict(Module):
    """A dict of parameters, registered."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            for k, v in _pairs(parameters):
                self[k] = v

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, value):
        self.register_parameter(key, _as_parameter(value))

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def extra_repr(self):
        return "\n".join(_parameter_line(k, p, p.type()) for k, p in self.items())
