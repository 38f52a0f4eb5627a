"""How an op call under a dual level computes its outputs' tangents.

``run(level, op, entry, args, kwargs, found)`` is called by the level for a call in which
some tensor argument has a tangent (``found``: ``id(tensor) -> tangent``). It runs the op
itself once (``entry``: the plain path, or the transforms below this level) and attaches
the outputs' tangents with one of these rules:

- ``LINEAR`` (PyTorch's "auto_linear"; every view op): the op is linear in its
  differentiable inputs, so the output's tangent is the same op applied to the inputs'
  tangents (zeros, or the number 0, where an input has none). A view's tangent is then the
  same view of the input's tangent, and an in-place op applies itself to the tangent.
- ``MULTILINEAR`` (``mul``, the matrix products, ``einsum``...): the sum, over the inputs
  that have a tangent, of the op with that one input replaced by its tangent.
- ``Derived(fn)``: a direct formula ``fn(c, result)`` of the inputs, the result and the
  tangents (element-wise functions, activations, softmax, reductions...).
- ``GENERIC``: for every other differentiable op, the Jacobian-vector product from the op's
  reverse-mode formula by the double-vjp trick: record the op on inputs that require grad,
  ``g(u) = J^T u`` is the vector-Jacobian product for a dummy ``u``, and since ``g`` is
  linear in ``u``, the vjp of ``g`` with ``v`` is ``J v``. It costs a second forward and
  two backward passes, so the ops training code uses have direct rules.

In-place ops update the written tensor's tangent in place (``tangents.update_in_place``).
"""

import inspect
from functools import partial

from ... import _dtypes, random as _random
from ..._api import ops as J
from ... import _dispatch
from ..._dispatch import grad_mode, transforms
from ..._errors import TensorNotImplementedError
from ..._registry import OPS
from ..._tensor import Tensor
from ..graph import NONDIFF
from . import tangents as T

# Ops PyTorch has no forward-mode formula for (its "not implemented yet" error), with the
# name its message gives (the ATen op: ``torch.unique`` is ``_unique2``).
UNSUPPORTED = {
    name: name
    for name in (
        "acosh_",
        "asinh_",
        "atanh_",
        "embedding_renorm_",
        "igamma_",
        "igammac_",
        "index_reduce",
        "index_reduce_",
        "rrelu_with_noise_",
        "set_",
        "unique_consecutive",
    )
}
UNSUPPORTED["unique"] = "_unique2"
# nn ops whose ATen kernels have no forward formula in PyTorch (named as its error names them).
UNSUPPORTED.update(
    {
        "ctc_loss": "_ctc_loss",
        "multilabel_margin_loss": "multilabel_margin_loss_forward",
        "multi_margin_loss": "multi_margin_loss",
        "grid_sample": "grid_sampler_2d",
        "pdist": "_pdist_forward",
        "embedding_bag": "_embedding_bag",
    }
)


def _unsupported_name(op, args, kwargs):
    if op.name == "grid_sample" and args and isinstance(args[0], Tensor) and args[0].dim() == 5:
        return "grid_sampler_3d"
    if op.name == "unique":
        bound = inspect.signature(op.impl).bind(*args, **kwargs).arguments
        if bound.get("dim") is not None:
            return "unique_dim"
    return UNSUPPORTED[op.name]


def _no_formula_error(name):
    """PyTorch's error for an op whose derivative is not implemented at all (its node is
    ``NotImplemented``): forward mode refuses it too."""
    return TensorNotImplementedError(
        f"Trying to use forward AD with aten::{name} that does not support it."
    )


def _differentiable(t):
    return t._dtype.category >= _dtypes.FLOATING


class Call:
    """One op call being processed: the op, its entry and arguments, the level, and the
    tangents found among the arguments."""

    __slots__ = ("op", "entry", "args", "kwargs", "level", "found")

    def __init__(self, op, entry, args, kwargs, level, found):
        self.op = op
        self.entry = entry
        self.args = args
        self.kwargs = kwargs
        self.level = level
        self.found = found

    def tangent(self, x):
        """The tangent of argument ``x`` (None for a non-dual or a non-tensor)."""
        return self.found.get(id(x)) if isinstance(x, Tensor) else None

    def value(self, name, default=None):
        """The argument bound to the op's parameter ``name``."""
        formula = self.op.backward
        names = formula.positional
        if name == "input" and formula.self_name is not None:
            name = formula.self_name  # in-place forms call their first argument ``self``
        if name in names:
            i = names.index(name)
            if i < len(self.args):
                return self.args[i]
        if name in self.kwargs:
            return self.kwargs[name]
        return formula.defaults.get(name, default)

    def bound(self, *names):
        """The arguments bound to ``names`` by the implementation's signature (defaults
        filled in): for ops without a reverse formula (``nn`` ops)."""
        sig = _SIGNATURES.get(self.op.name)
        if sig is None:
            sig = _SIGNATURES[self.op.name] = inspect.signature(self.op.impl)
        bound = sig.bind(*self.args, **self.kwargs)
        bound.apply_defaults()
        return tuple(bound.arguments.get(n) for n in names)


_SIGNATURES = {}


# ----------------------------------------------------------------------------- argument slots


def _slots(c):
    """The places of the differentiable arguments: ``(where, key, index)``, where ``where``
    is ``"a"`` (positional) or ``"k"`` (keyword) and ``index`` the place inside a list
    argument (None for a plain argument)."""
    formula = c.op.backward
    names = formula.positional
    inputs = formula.inputs
    self_first = formula.self_name is not None
    slots = []
    for i, a in enumerate(c.args):
        name = names[i] if i < len(names) else formula.var_positional
        if i == 0 and self_first:
            name = "input"
        if name in inputs:
            _add_slots(slots, "a", i, a)
    for key, a in c.kwargs.items():
        name = "input" if key == "self" and self_first else key
        if name in inputs:
            _add_slots(slots, "k", key, a)
    return slots


def _add_slots(slots, where, key, value):
    if value.__class__ is list or value.__class__ is tuple:
        slots.extend((where, key, j) for j in range(len(value)))
    else:
        slots.append((where, key, None))


def _get(c, slot):
    where, key, j = slot
    v = c.args[key] if where == "a" else c.kwargs[key]
    return v if j is None else v[j]


def _replaced(c, changes):
    """The call's ``(args, kwargs)`` with ``changes`` (``slot -> value``) applied."""
    args = list(c.args)
    kwargs = dict(c.kwargs)
    for (where, key, j), value in changes.items():
        holder = args if where == "a" else kwargs
        if j is None:
            holder[key] = value
        else:
            seq = list(holder[key])
            seq[j] = value
            holder[key] = seq
    return args, kwargs


def _zero_like(x):
    if isinstance(x, Tensor):
        return J.zeros_like(x)
    if x.__class__ in (bool, int, float, complex):
        return x.__class__(0)
    return x


# ----------------------------------------------------------------------------- outputs


def _as_tuple(result):
    return result if isinstance(result, (tuple, list)) else (result,)


def attach_outputs(c, result, tangents, written=None):
    """Give each differentiable output its tangent (the written tensor in place)."""
    outputs = _as_tuple(result)
    tangents = _as_tuple(tangents)
    for o, t in zip(outputs, tangents, strict=False):
        if not isinstance(o, Tensor) or t is None or not _differentiable(o):
            continue
        if o is written:
            T.update_in_place(c.level, o, t)
        elif any(o is a for a in c.args):
            continue  # an input handed back unchanged keeps its own tangent
        else:
            T.set_output_tangent(c.level, o, t)
            _share_with_saved_output(c.level, o)
    return result


def _share_with_saved_output(level, o):
    """A node that saved ``o`` (its ``result``) keeps a history-free alias of it, made
    before ``o`` got its tangent: the alias gets the tangent too, so that backward formulas
    run under the level (forward-over-reverse, Hessian-vector products) see it."""
    node = o._grad_fn
    saved = node._saved if node is not None else None
    if not saved:
        return
    for entries in saved.values():
        for entry in entries if entries.__class__ is list else (entries,):
            alias = getattr(entry, "tensor", None)
            if (
                alias is not None
                and alias is not o
                and entry.is_output
                and alias._storage is o._storage
                and alias._shape == o._shape
                and alias._offset == o._offset
            ):
                T.attach(level, alias, T.own_tangent(o, level))


# ----------------------------------------------------------------------------- rules


class Rule:
    """A forward-mode rule: subclasses define ``apply(c, written)``, which runs the op
    (``c.entry``) and attaches the outputs' tangents; ``written`` is the tensor an in-place
    call writes (None otherwise)."""

    kind = "rule"


class _Linear(Rule):
    kind = "linear"

    def apply(self, c, written, tangent_call=None):
        result = c.entry(*c.args, **c.kwargs)
        # ``tangent_call``: the call whose arguments the tangents replace (``scatter`` with
        # a number ``value`` scatters 0 into the tangent).
        tc = c if tangent_call is None else tangent_call
        changes = {}
        self_slot = None
        for slot in _slots(tc):
            x = _get(tc, slot)
            if (
                written is not None
                and x is written
                and slot[1] in (0, "self", "input")
                and slot[2] is None
                and self_slot is None
            ):
                self_slot = slot
                continue
            t = c.tangent(x)
            changes[slot] = t if t is not None else _zero_like(x)
        if written is not None:
            # The op applied in place to the written tensor's tangent.
            current = T.tangent_of(written, c.level)
            if current is None:
                current = T.materialize(c.level, written)
            if self_slot is not None:
                changes[self_slot] = current
            args, kwargs = _replaced(tc, changes)
            c.entry(*args, **kwargs)
            return result
        args, kwargs = _replaced(tc, changes)
        return attach_outputs(c, result, c.entry(*args, **kwargs))


LINEAR = _Linear()


def _outplace_entry(c, written):
    """The out-of-place op of an in-place call (``mul`` for ``mul_``)."""
    if written is None:
        return c.entry
    return OPS[c.op.name[:-1]].entry


class _Multilinear(Rule):
    kind = "multilinear"

    def apply(self, c, written):
        tangent = None
        if written is None:
            result = c.entry(*c.args, **c.kwargs)
        entry = _outplace_entry(c, written)
        slots = _slots(c)
        # PyTorch's formulas add a term for every input, zero tangents included, so when a
        # primal requires grad the tangent is recorded by reverse mode (its grad_fn is
        # ``AddBackward0``; reverse-over-forward differentiates through it).
        record = grad_mode.enabled and any(
            isinstance(x, Tensor) and x._requires_grad for x in map(partial(_get, c), slots)
        )
        for slot in slots:
            x = _get(c, slot)
            t = c.tangent(x)
            if t is None:
                if not record:
                    continue
                t = _zero_like(x)
                if t is x:
                    continue
            args, kwargs = _replaced(c, {slot: t})
            term = entry(*args, **kwargs)
            tangent = term if tangent is None else tangent + term
        if written is not None:
            result = c.entry(*c.args, **c.kwargs)
        return attach_outputs(c, result, tangent, written)


MULTILINEAR = _Multilinear()


class Derived(Rule):
    """A direct formula ``fn(c, result) -> tangent(s)``; ``needs_input``: it reads the
    inputs' values, so an in-place form computes it from a copy of ``self`` taken before
    the write."""

    kind = "derived"

    def __init__(self, fn, needs_input=True):
        self.fn = fn
        self.needs_input = needs_input

    def apply(self, c, written):
        if written is None:
            result = c.entry(*c.args, **c.kwargs)
            return attach_outputs(c, result, self.fn(c, result))
        if self.needs_input:
            old = J.clone(written)
            old_c = Call(
                c.op, c.entry, (old,) + tuple(c.args[1:]), c.kwargs, c.level, dict(c.found)
            )
            t = c.found.get(id(written))
            if t is not None:
                old_c.found[id(old)] = t
            result = c.entry(*c.args, **c.kwargs)
            tangent = self.fn(old_c, result)
        else:
            result = c.entry(*c.args, **c.kwargs)
            tangent = self.fn(c, result)
        return attach_outputs(c, result, tangent, written)


def _random_op(op):
    impl = op.impl
    try:
        params = inspect.signature(impl).parameters
    except (TypeError, ValueError):  # pragma: no cover (every registered impl has one)
        params = {}
    return "generator" in params or "dropout" in op.name or op.name.startswith("rrelu")


_RANDOM = {}


def _generators():
    generators = [_random.default_generator]
    generators.extend(_random._cuda_generators.values())
    return generators


class _Generic(Rule):
    kind = "generic"

    def apply(self, c, written):
        op = c.op
        random = _RANDOM.get(op.name)
        if random is None:
            random = _RANDOM[op.name] = _random_op(op)
        tangents = self.jvp_same_draws(c, written) if random else self.jvp(c, written)
        result = c.entry(*c.args, **c.kwargs)
        return attach_outputs(c, result, tangents, written)

    def jvp_same_draws(self, c, written, clone_all=False):
        """``jvp`` with the random generators put back afterwards: the primal's run then
        draws the numbers the tangent's run drew (dropout's mask)."""
        states = [(g, g.get_state()) for g in _generators()]
        gen = c.kwargs.get("generator")
        if gen is not None:
            states.append((gen, gen.get_state()))
        try:
            return self.jvp(c, written, clone_all, random=True)
        finally:
            for g, state in states:
                g.set_state(state)

    def jvp(self, c, written, clone_all=False, random=False):
        """The outputs' tangents by the double-vjp trick (see the module docstring).
        ``clone_all``: the op may write into any tensor argument (a Function's
        ``mark_dirty``), so each gets a copy."""
        from .._backward import grad as _grad

        user_grad = grad_mode.enabled
        sources, vectors, subs, tracked = [], [], {}, []
        # Any primal that requires grad (with or without a tangent) makes the tangent a
        # recorded function of it, as PyTorch's formulas are.
        primal_grad = False
        # A tangent wider than its primal (float64 on float32): PyTorch's formulas multiply
        # by the tangent, so the products are in the wider dtype; the double vjp runs on
        # inputs cast to it so that the tangent keeps its precision (not for random ops,
        # whose draws depend on the dtype).
        wide = None if random else _wider_tangent_dtype(c)

        def widened(a):
            if wide is None or a._dtype is wide or a._dtype.category != wide.category:
                return a
            return a.to(wide)

        def sub(a):
            nonlocal primal_grad
            if not isinstance(a, Tensor):
                return a
            primal_grad = primal_grad or (user_grad and a._requires_grad)
            key = id(a)
            if key in subs:
                return subs[key]
            t = c.found.get(key)
            copy = clone_all or a is written
            if t is None or not _differentiable(a):
                new = widened(J.clone(a) if copy else a)
            else:
                # An input that requires grad is used itself (or its cast), so the tangent
                # records its dependence on the input (reverse-over-forward); others get a
                # leaf.
                if user_grad and a._requires_grad:
                    source = widened(a)
                    tracked.append(a)
                else:
                    source = widened(J.detach(a)).requires_grad_()
                sources.append(source)
                vectors.append(t)
                new = J.clone(source) if copy else source
            subs[key] = new
            return new

        def sub_any(a):
            if a.__class__ is list or a.__class__ is tuple:
                return a.__class__(sub(x) for x in a)
            return sub(a)

        enabled = grad_mode.enabled
        grad_mode.enabled = True
        try:
            args = [sub_any(a) for a in c.args]
            kwargs = {k: sub_any(v) for k, v in c.kwargs.items()}
            out = c.entry(*args, **kwargs)
            outputs = _as_tuple(out)
            for o in outputs:
                fn = o._grad_fn if isinstance(o, Tensor) else None
                if fn is not None and type(fn).__name__ == "NotImplemented":
                    raise _no_formula_error(c.op.name)
            diff = [
                i
                for i, o in enumerate(outputs)
                if isinstance(o, Tensor) and _differentiable(o) and o._requires_grad
            ]
            result = [None] * len(outputs)
            for i, o in enumerate(outputs):
                if isinstance(o, Tensor) and _differentiable(o) and i not in diff:
                    result[i] = J.zeros_like(o)
            if not diff:
                return result
            # The tangent keeps a graph when it must be differentiable itself: an input or
            # a tangent requires grad, or an outer transform (another level) is watching.
            create = (
                enabled
                and (primal_grad or any(v._requires_grad for v in vectors))
                or transforms.active > 0
            )
            dummies = [J.zeros_like(outputs[i]).requires_grad_() for i in diff]
            grads = _grad(
                [outputs[i] for i in diff], sources, dummies, create_graph=True, allow_unused=True
            )
            pairs = [
                (g, v)
                for g, v in zip(grads, vectors, strict=True)
                if g is not None and g._requires_grad
            ]
            if pairs:
                jv = _grad(
                    [g for g, _ in pairs],
                    dummies,
                    [v if v._dtype is g._dtype else v.to(g._dtype) for g, v in pairs],
                    create_graph=create,
                    allow_unused=True,
                )
            else:
                jv = [None] * len(diff)
            # The products ran in the outputs' dtypes; a wider tangent (float64 for a float32
            # primal) widens the result as PyTorch's formulas do.
            widest = None
            for v in vectors:
                widest = v._dtype if widest is None else _dtypes.promote_types(widest, v._dtype)
            for i, t in zip(diff, jv, strict=True):
                o = outputs[i]
                if t is None:
                    t = J.zeros_like(o)
                elif not create:
                    t = J.detach(t)
                wanted = _dtypes.promote_types(o._dtype, widest)
                result[i] = t if t._dtype is wanted else t.to(wanted)
            return result
        finally:
            grad_mode.enabled = enabled


GENERIC = _Generic()


def _wider_tangent_dtype(c):
    """The dtype the generic rule computes in when a tangent is wider than its primal (of
    the same kind, real or complex), else None."""
    wide = None
    for a in (*c.args, *c.kwargs.values()):
        for x in a if a.__class__ is list or a.__class__ is tuple else (a,):
            t = c.tangent(x)
            if t is None or t._dtype is x._dtype or t._dtype.category != x._dtype.category:
                continue
            if t._dtype.itemsize > x._dtype.itemsize:
                wide = t._dtype if wide is None else _dtypes.promote_types(wide, t._dtype)
    return wide

# op name -> Rule (in-place forms use their out-of-place op's rule)
RULES = {}


def rule(*names, kind=None):
    """Register ``kind`` (a Rule) for ``names``."""
    for name in names:
        RULES[name] = kind


_WRITES_FLAG = {}


def _written(op, args, kwargs):
    """The tensor an op call writes in place, or None."""
    if op.kind == "inplace":
        if args:
            return args[0]
        return kwargs.get("self", kwargs.get("input"))
    if op.kind != "nn":
        return None
    pos = _WRITES_FLAG.get(op.name, -2)
    if pos == -2:
        try:
            names = list(inspect.signature(op.impl).parameters)
        except (TypeError, ValueError):  # pragma: no cover
            names = []
        pos = _WRITES_FLAG[op.name] = names.index("inplace") if "inplace" in names else -1
    flag = op.name.endswith("_")
    if not flag and pos >= 0:
        flag = args[pos] if len(args) > pos else kwargs.get("inplace", False)
    if flag:
        return args[0] if args else kwargs.get("input")
    return None


def _decomposed(level, op, args, kwargs):
    """An ``nn`` op without a direct rule runs its body under the level, as PyTorch's
    composite ops do: each op and Function inside propagates tangents, so the values its
    backward saves carry them too (forward-over-reverse through the layer is exact)."""
    _dispatch.push_transform(level)
    try:
        return op.impl(*args, **kwargs)
    finally:
        _dispatch.pop_transform(level)


def run(level, op, entry, args, kwargs, found):
    """Run ``op`` under ``level`` with the tangents ``found`` among its arguments."""
    name = op.name
    if kwargs.get("out") is not None:
        raise TensorNotImplementedError(
            f"Trying to use forward AD with {name}_out that does not support it because it "
            "is an out= function"
        )
    if name in UNSUPPORTED:
        raise TensorNotImplementedError(
            f"Trying to use forward AD with {_unsupported_name(op, args, kwargs)} that does "
            "not support it because it has not been implemented yet.\nPlease file an issue "
            "to PyTorch at https://github.com/pytorch/pytorch/issues/new?template=feature-"
            "request.yml so that we can prioritize its implementation."
        )
    formula = op.backward
    if formula is NONDIFF or (formula is None and op.kind != "nn"):
        # Integer results, factories, queries, detach: no tangent.
        return entry(*args, **kwargs)
    chosen = RULES.get(name)
    if chosen is None and op.kind == "nn":
        return _decomposed(level, op, args, kwargs)
    c = Call(op, entry, args, kwargs, level, found)
    written = _written(op, args, kwargs)
    if chosen is None and op.kind == "inplace":
        chosen = RULES.get(name[:-1])
    if chosen is None:
        if op.kind == "view":
            chosen = LINEAR
        else:
            chosen = GENERIC
    return chosen.apply(c, written)
