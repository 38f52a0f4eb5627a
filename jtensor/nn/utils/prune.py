"""``torch.nn.utils.prune``: zero parts of a module's parameters through a mask.

Pruning ``module.<name>`` moves the parameter to ``<name>_orig``, stores the 0/1 mask as the
buffer ``<name>_mask`` and makes ``module.<name>`` a plain attribute, ``mask * orig``,
recomputed before every forward call by the pruning method itself, registered as a forward
pre-hook (``module._forward_pre_hooks`` holds the method object). Gradients reach
``<name>_orig`` through the product, so the pruned entries get zero gradients. Pruning the
same tensor again combines the masks in a ``PruningContainer``: the new method only sees the
entries (``"unstructured"``) or channels (``"structured"``) still alive. ``remove`` makes
the pruning permanent (``<name>`` becomes a parameter again, holding the masked values).

Everything follows PyTorch's ``torch/nn/utils/prune.py``: the same checks and messages, the
same random draws in the same order (``rand_like`` then ``topk`` for random unstructured
pruning, ``rand`` then ``kthvalue`` for random channels: the same seed prunes the same
entries), ``topk`` for the smallest magnitudes (jtensor's ``topk`` breaks ties as PyTorch's
CPU kernel does), and PyTorch's order of side effects when a call fails half-way.
"""

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ..._api import ops as J
from ..._tensor import contiguous_format
from .convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod",
    "PruningContainer",
    "Identity",
    "RandomUnstructured",
    "L1Unstructured",
    "RandomStructured",
    "LnStructured",
    "CustomFromMask",
    "identity",
    "random_unstructured",
    "l1_unstructured",
    "random_structured",
    "ln_structured",
    "global_unstructured",
    "custom_from_mask",
    "remove",
    "is_pruned",
]


# ---------------------------------------------------------------------- the base class
class BasePruningMethod(ABC):
    """Base class of the pruning methods: a subclass defines ``compute_mask`` and the class
    attribute ``PRUNING_TYPE`` (``"unstructured"``, ``"structured"`` with a ``dim``
    attribute, or ``"global"``), and usually an ``apply`` classmethod naming its
    arguments."""

    _tensor_name: str  # set by ``apply`` (no default: an unapplied method has none)

    def __call__(self, module, inputs):
        """The forward pre-hook: recompute ``module.<name>`` as ``mask * orig``."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask for ``t`` (the importance scores of the parameter), on top of
        ``default_mask`` (the previous pruning's mask, ones at first; same shape as ``t``)."""

    def apply_mask(self, module):
        """``module.<name>_mask * module.<name>_orig``, in the parameter's dtype."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)`` and return the method
        registered as the module's pre-hook (a ``PruningContainer`` when ``name`` was pruned
        before). ``importance_scores`` (the parameter's shape) replaces the parameter's
        values when the mask is computed."""
        method = _join_earlier_pruning(cls, module, name, args, kwargs)
        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        elif importance_scores.shape != orig.shape:
            raise AssertionError(
                f"importance_scores should have the same shape as parameter {name} of "
                f"{module}, got {importance_scores.shape} vs {orig.shape}"
            )
        first_time = not isinstance(method, PruningContainer)
        if first_time:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = J.ones_like(orig)
        else:
            default_mask = (
                getattr(module, name + "_mask").detach().clone(memory_format=contiguous_format)
            )
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first_time:  # the parameter goes back (an earlier pruning's hook does not)
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask this method computes for it (from ``importance_scores``,
        else ``t`` itself, on top of ``default_mask``, else ones)."""
        if importance_scores is None:
            importance_scores = t
        elif importance_scores.shape != t.shape:
            raise AssertionError(
                "importance_scores should have the same shape as tensor t, got "
                f"{importance_scores.shape} vs {t.shape}"
            )
        if default_mask is None:
            default_mask = J.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: ``module.<name>`` becomes a parameter holding the
        masked values (the ``<name>_orig`` object), ``<name>_orig`` and ``<name>_mask`` go.
        The caller removes the hook (``prune.remove`` does)."""
        name = self._tensor_name
        if name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        pruned = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = pruned.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _join_earlier_pruning(cls, module, name, args, kwargs):
    """The method that ``cls.apply`` registers: ``cls(*args, **kwargs)`` named ``name``,
    inside a ``PruningContainer`` with the hook already pruning ``name`` if there is one.
    That hook leaves ``module._forward_pre_hooks`` first, even if building the new method
    fails then (PyTorch's order)."""
    hooks = module._forward_pre_hooks
    earlier = [
        (k, hook)
        for k, hook in hooks.items()
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name
    ]
    if len(earlier) > 1:
        raise AssertionError(
            f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
            f"{module}. Use a PruningContainer."
        )
    for k, _ in earlier:
        del hooks[k]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if not earlier:
        return method
    old = earlier[0][1]
    if not isinstance(old, PruningContainer):
        old = PruningContainer(old)
    old.add_pruning_method(method)
    return old


# -------------------------------------------------------------------- the container
class PruningContainer(BasePruningMethod):
    """The pruning methods applied one after the other to the same parameter (built by
    ``apply`` when a pruned parameter is pruned again); its mask is the last method's,
    computed on what the earlier ones left."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:  # one method: the container takes its parameter's name
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append ``method`` (a ``BasePruningMethod`` pruning the same parameter)."""
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. Found "
                f"'{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the newest method's mask written over the part it acts on:
        the entries still 1 (``"unstructured"``), the channels along its ``dim`` not yet
        all zero (``"structured"``), or everything (``"global"``)."""
        method = self._pruning_methods[-1]
        # (no copy when the dtypes agree: the mask given is written, as in PyTorch)
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            part = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    'Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                    "`dim` defined."
                )
            ndim = t.dim()
            dim = method.dim + ndim if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {ndim}")
            alive = default_mask.sum(dim=[d for d in range(ndim) if d != dim]) != 0
            part = _along(ndim, dim, alive)
        elif kind == "global":
            part = (slice(None),) * len(t.shape)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[part], default_mask=default_mask[part])
        new_mask[part] = partial.to(dtype=new_mask.dtype)
        return new_mask


# ------------------------------------------------------------------- the methods
class Identity(BasePruningMethod):
    """Prunes nothing: the reparametrization with a mask of ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        """``default_mask`` itself."""
        return default_mask

    @classmethod
    def apply(cls, module, name):
        """Reparametrize ``module.<name>`` with a mask of ones."""
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries (a count, or a fraction in [0, 1]) chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the entries of the ``amount`` largest of ``rand_like(t)``
        zeroed."""
        return _prune_entries(
            self.amount, t, default_mask, lambda k: J.topk(J.rand_like(t).view(-1), k=k)
        )

    @classmethod
    def apply(cls, module, name, amount):
        """Prune ``amount`` random entries of ``module.<name>``."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries (a count, or a fraction in [0, 1]) of smallest
    magnitude."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the entries of the ``amount`` smallest ``|t|`` zeroed."""
        return _prune_entries(
            self.amount, t, default_mask, lambda k: J.topk(J.abs(t).view(-1), k=k, largest=False)
        )

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        """Prune the ``amount`` entries of ``module.<name>`` (or of ``importance_scores``)
        of smallest magnitude."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim`` (a count, or a fraction in [0, 1] of
    the channels), chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        """A mask zeroing the channels whose ``rand`` draw is among the ``amount`` smallest,
        times ``default_mask`` (``default_mask`` itself when nothing is pruned)."""
        channels, count = _channels_to_prune(self.amount, t, self.dim)
        if count == 0:
            return default_mask
        draws = J.rand(channels)
        keep = draws > J.kthvalue(draws, k=count).values
        return _keep_channels(t, self.dim, keep, default_mask)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        """Prune ``amount`` random channels of ``module.<name>`` along ``dim``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` (a count, or a fraction in [0, 1] of
    the channels) of smallest ``n``-norm (any ``p`` of ``torch.norm``)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        """A mask keeping the channels of largest ``n``-norm, times ``default_mask``
        (``default_mask`` itself when nothing is pruned)."""
        channels, count = _channels_to_prune(self.amount, t, self.dim)
        dims = list(range(t.dim()))
        dims.remove(dims[self.dim])
        # computed before the count is looked at, so a bad ``n`` fails even then (PyTorch)
        keep = J.topk(J.norm(t, p=self.n, dim=dims), k=channels - count, largest=True).indices
        if count == 0:
            return default_mask
        return _keep_channels(t, self.dim, keep, default_mask)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest
        ``n``-norm (measured on ``importance_scores`` when given)."""
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """Prunes where a given ``mask`` is zero."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        """``default_mask * mask`` (in the default mask's dtype)."""
        if default_mask.shape != self.mask.shape:
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match self.mask shape "
                f"{self.mask.shape}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        """Prune ``module.<name>`` where ``mask`` is zero."""
        return super().apply(module, name, mask=mask)


# ------------------------------------------------------------------ the functions
def identity(module, name):
    """Reparametrize ``module.<name>`` as pruned, pruning nothing (a mask of ones); returns
    ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` (a count, or a fraction in [0, 1]) random entries of
    ``module.<name>`` still unpruned; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` (a count, or a fraction in [0, 1]) unpruned entries of
    ``module.<name>`` of smallest magnitude (of ``importance_scores``, when given); returns
    ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` (a count, or a fraction in [0, 1]) random unpruned channels of
    ``module.<name>`` along ``dim``; returns ``module``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` (a count, or a fraction in [0, 1]) unpruned channels of
    ``module.<name>`` along ``dim`` of smallest ``n``-norm; returns ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the ``(module, name)`` pairs of ``parameters`` together: ``pruning_method``
    (an ``"unstructured"`` method class, built with ``kwargs`` such as ``amount=``) chooses
    among all their entries at once. ``importance_scores`` maps pairs to scores."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    if importance_scores is None:
        importance_scores = {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector(
        [
            importance_scores.get((module, name), getattr(module, name))
            for module, name in parameters
        ]
    )
    default_mask = parameters_to_vector(
        [
            getattr(module, name + "_mask", J.ones_like(getattr(module, name)))
            for module, name in parameters
        ]
    )
    container = PruningContainer()
    container._tensor_name = "temp"  # the name only has to agree with the method's
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found '
            f"method {pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        size = param.numel()
        custom_from_mask(module, name, mask=final_mask[start : start + size].view_as(param))
        start += size


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` where ``mask`` is zero; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent and drop its hook; returns
    ``module``. Raises ``ValueError`` when ``name`` is not pruned."""
    hooks = module._forward_pre_hooks
    for k, hook in hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del hooks[k]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module):
    """Whether ``module`` or one of its submodules has a pruning hook."""
    return any(
        isinstance(hook, BasePruningMethod)
        for _, sub in module.named_modules()
        for hook in sub._forward_pre_hooks.values()
    )


# -------------------------------------------------------------------- the helpers
def _check_amount(amount):
    """An ``amount`` must be a non-negative int or a float in [0, 1] (the tensor's size is
    checked when the mask is computed)."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if isinstance(amount, numbers.Integral):
        bad = amount < 0
    else:
        bad = float(amount) > 1.0 or float(amount) < 0.0
    if bad:
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a "
            "non-negative integer"
        )


def _count(amount, size):
    """How many of ``size`` units ``amount`` prunes: an int as it is (at most ``size``), a
    fraction rounded half to even, as Python's ``round``."""
    if not isinstance(amount, numbers.Integral):
        return round(amount * size)
    if amount > size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to prune={size}"
        )
    return amount


def _prune_entries(amount, t, default_mask, pick):
    """``default_mask`` (copied, contiguous) with the flat positions ``pick(count)``
    chooses zeroed (no choice, and no random draw, when nothing is pruned)."""
    count = _count(amount, t.nelement())
    mask = default_mask.clone(memory_format=contiguous_format)
    if count != 0:
        mask.view(-1)[pick(count).indices] = 0
    return mask


def _channels_to_prune(amount, t, dim):
    """(channels along ``dim``, how many to prune) after the checks of structured pruning."""
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found "
            f"tensor of shape {shape} with {len(shape)} dims"
        )
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {shape}")
    channels = shape[dim]
    return channels, _count(amount, channels)


def _along(ndim, dim, index):
    """The index tuple selecting ``index`` along ``dim`` of an ``ndim``-d tensor."""
    return (slice(None),) * dim + (index,) + (slice(None),) * (ndim - dim - 1)


def _keep_channels(t, dim, keep, default_mask):
    """Ones in the channels ``keep`` selects along ``dim`` (a bool mask or indices), zeros
    elsewhere, times ``default_mask``."""
    mask = J.zeros_like(t)
    mask[_along(t.dim(), dim % t.dim(), keep)] = 1
    mask *= default_mask.to(dtype=mask.dtype)
    return mask
