"""``grad``, ``grad_and_value``, ``vjp``, ``jacrev``, ``jvp``, ``jacfwd``, ``hessian``.

Reverse mode runs jtensor's ordinary autograd on *plain* tensors. Under ``vmap`` the inputs
being differentiated are first *lowered* (``_batched.lower``): every active vmap level's
batch becomes a leading dim of one plain tensor, expanded where the input was not batched
at that level (``vmap(grad(loss), in_dims=(None, 0, 0))``: the parameters get one copy per
sample), so each sample's gradient is kept apart; that tensor is the leaf autograd
differentiates, and the function sees it lifted back into batched tensors. The gradients
are lifted the same way. A cotangent batched at a vmap level entered *after* the forward
pass (``jacrev`` is ``vmap`` of a ``vjp`` function over the basis vectors) flows through the
backward formulas as a batched tensor, so the level's batching rules vectorize the backward
pass too.

The graph of a gradient is kept (``create_graph``) when something may differentiate it
again: an input that requires grad, a cotangent that does, or an enclosing transform.
"""

import functools

from .. import _dispatch
from .._api import ops as J
from .._errors import TensorRuntimeError, TensorValueError
from .._tensor import Tensor
from ..autograd import forward_ad as fwAD
from ..autograd import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from . import _pytree
from ._batched import BatchedTensor, canonical, lift, lower
from ._vmap import VmapLevel, vmap

# How many reverse-mode transforms are running their function: a gradient computed inside
# one must keep its graph, for the enclosing one differentiates it.
_DEPTH = [0]


def _check_tensor(x):
    if not isinstance(x, Tensor):
        raise TensorValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")


def _prepare(t, levels):
    """``(leaf, lead, seen)`` for input ``t``: the plain tensor autograd differentiates, the
    levels whose batch dims lead it (the levels ``t`` keeps, those older than an open dual
    level, then ``levels``, lowered), and what the function sees in place of ``t``. A plain
    input's forward-AD tangents stay with it (forward over reverse: ``hessian``, ``jvp`` of
    ``grad``)."""
    _check_tensor(t)
    low = lower(t, levels)
    keep, plain = canonical(low)
    lead = keep + list(levels)
    if plain.requires_grad:
        leaf = plain.view_as(plain)  # keeps the way back (and the tangents)
        return leaf, lead, lift(leaf, lead)
    leaf = plain.detach().requires_grad_()
    seen = lift(leaf, lead)
    if not levels:  # (lowering would change the shape the tangent has)
        for dual in fwAD._levels:
            tangent = fwAD.unpack_dual(t, level=dual.index).tangent
            if tangent is not None and keep:
                raise TensorRuntimeError(
                    "torch.func: reverse mode (grad, vjp, jacrev) inside forward mode (jvp, "
                    "jacfwd) on an input batched by a vmap entered outside the forward "
                    "transform is not supported: the tangent would be lost. Use reverse over "
                    "reverse there (jacrev(jacrev(f)) instead of hessian's jacfwd(jacrev(f)), "
                    "or vjp of grad instead of jvp of grad)."
                )
            if tangent is not None:
                seen = fwAD.make_dual(seen, tangent, level=dual.index)
    return leaf, lead, seen


def _root(output, levels):
    """The plain tensor autograd starts from for ``output`` and the levels leading it."""
    keep, plain = canonical(lower(output, levels))
    return plain, keep + list(levels)


def _levels_to_lower():
    """The vmap levels whose batch an input is lowered into: all of them, except those
    entered before an open forward-AD level (``jacfwd``'s vmap over tangents batches the
    tangents only; the graph is recorded on the dual tensors themselves)."""
    stack = _dispatch.transforms.stack
    start = 0
    for i, level in enumerate(stack):
        if isinstance(level, fwAD.DualLevel):
            start = i + 1
    return [lv for lv in stack[start:] if isinstance(lv, VmapLevel)]


def _argnums_check(argnums, args, api):
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        nums = (argnums,)
    elif isinstance(argnums, tuple) and all(isinstance(a, int) for a in argnums):
        if not argnums:
            raise TensorRuntimeError("argnums must be non-empty")
        nums = argnums
        if len(set(nums)) != len(nums):
            raise TensorRuntimeError(f"argnums elements must be unique, got {argnums}")
    else:
        raise TensorRuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    n = len(args)
    for a in nums:
        if not -n <= a < n:
            raise TensorRuntimeError(f"Got argnum={a}, but only {n} positional inputs")
    return tuple(a + n if a < 0 else a for a in nums)


def _needs_graph(leaves):
    return is_grad_enabled() and (
        _DEPTH[0] > 0
        or bool(fwAD._levels)
        or any(leaf._base is not None and leaf._grad_fn is not None for leaf in leaves)
    )


def _detach_tree(tree, keep):
    if keep:
        return tree
    leaves, spec = _pytree.flatten(tree)
    return _pytree.unflatten([x.detach() if isinstance(x, Tensor) else x for x in leaves], spec)


class _Prepared:
    """The differentiated inputs of one call: the leaves, and the arguments the function
    gets (the differentiated ones replaced by their lifted leaves)."""

    def __init__(self, args, argnums):
        self.levels = _levels_to_lower()
        self.args = list(args)
        self.argnums = argnums
        self.specs = []
        self.leaves = []
        self.leads = []
        for i in argnums:
            flat, spec = _pytree.flatten(args[i])
            seen = []
            for x in flat:
                leaf, lead, seen_x = _prepare(x, self.levels)
                self.leaves.append(leaf)
                self.leads.append(lead)
                seen.append(seen_x)
            self.specs.append((spec, len(flat)))
            self.args[i] = _pytree.unflatten(seen, spec)

    def gradients(self, grads):
        """The gradients (one per leaf; None where unused) lifted to the inputs' shapes, in
        the structure of the differentiated arguments."""
        out = []
        k = 0
        for spec, n in self.specs:
            items = []
            for g, leaf, lead in zip(
                grads[k : k + n], self.leaves[k : k + n], self.leads[k : k + n], strict=True
            ):
                if g is None:
                    g = J.zeros_like(leaf)
                items.append(lift(g, lead))
            k += n
            out.append(_pytree.unflatten(items, spec))
        return out


def _call(func, args, kwargs, has_aux, api):
    """Run the function being differentiated (counted in ``_DEPTH``) and split off its
    auxiliary output: ``(output, aux)``."""
    _DEPTH[0] += 1
    try:
        output = func(*args, **kwargs)
    finally:
        _DEPTH[0] -= 1
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise TensorRuntimeError(
            f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    return output


def grad_and_value(func, argnums=0, has_aux=False):
    """``func``'s gradient with respect to the arguments ``argnums`` together with its value,
    PyTorch's ``torch.func.grad_and_value``. ``func`` must return a scalar tensor (or, with
    ``has_aux``, a pair ``(scalar, aux)``). Returns ``(gradient, value)`` (or
    ``((gradient, (value, aux)))`` with ``has_aux``); the gradient has the structure of the
    argument (a tuple of them for a tuple ``argnums``). Composes with ``vmap``: per-sample
    gradients are ``vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)``."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums_check(argnums, args, "grad")
        with enable_grad():
            prepared = _Prepared(args, nums)
            output, aux = _call(func, prepared.args, kwargs, has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise TensorRuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                    f"{type(output)}"
                )
            if output.dim() != 0:
                raise TensorRuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                    f"got tensor with {output.dim()} dims. Maybe you wanted to use the vjp or "
                    "jacrev APIs instead?"
                )
            keep = _needs_graph(prepared.leaves)
            root = _root(output, prepared.levels)[0]
            if root.requires_grad:
                grads = _autograd_grad(
                    [root],
                    prepared.leaves,
                    [J.ones_like(root)],
                    create_graph=keep,
                    allow_unused=True,
                )
            else:
                grads = [None] * len(prepared.leaves)
            result = prepared.gradients(grads)
            value = output if keep else output.detach()
            if has_aux:
                value = (value, _detach_tree(aux, keep))
        gradient = result[0] if isinstance(argnums, int) else tuple(result)
        return gradient, value

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar function, PyTorch's ``torch.func.grad``: ``grad(f)(x)`` is
    d f(x) / d x (see ``grad_and_value`` for ``argnums``/``has_aux``). Nests
    (``grad(grad(f))``) and composes with ``vmap``.

    >>> import jtensor as torch
    >>> torch.func.grad(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0]))
    tensor([ 3., 12.])
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        if has_aux:
            return g, value[1]
        return g

    return wrapper


def vjp(func, *primals, has_aux=False):
    """``func(*primals)`` and a function computing vector-Jacobian products, PyTorch's
    ``torch.func.vjp``. Returns ``(output, vjp_fn)`` (``(output, vjp_fn, aux)`` with
    ``has_aux``); ``vjp_fn(cotangents)``, with cotangents shaped as the output, returns one
    gradient per primal (a tuple)."""
    with enable_grad():
        prepared = _Prepared(primals, tuple(range(len(primals))))
        output, aux = _call(func, prepared.args, {}, has_aux, "vjp(f, *primals)")
        outs, out_spec = _pytree.flatten(output)
        for o in outs:
            if not isinstance(o, Tensor):
                raise TensorRuntimeError(
                    "vjp(f, *primals): expected f(*primals) to return only tensors, got "
                    f"unsupported type {type(o)}"
                )
        rooted = [_root(o, prepared.levels) for o in outs]
        roots = [r for r, _ in rooted]
    keep_forward = _needs_graph(prepared.leaves)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        """The gradients of ``<output, cotangents>`` with respect to each primal."""
        cts, ct_spec = _pytree.flatten(cotangents)
        if ct_spec != out_spec:
            raise TensorRuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                f"of outputs to the function. cotangents: {ct_spec}, primal output: "
                f"{out_spec}"
            )
        lowered = []
        for k, (c, o) in enumerate(zip(cts, outs, strict=True)):
            _check_tensor(c)
            if tuple(c.shape) != tuple(o.shape):
                raise TensorRuntimeError(
                    f"Mismatch in shape: grad_output[{k}] has a shape of {c.shape} and "
                    f"output[{k}] has a shape of {o.shape}."
                )
            lowered.append(lower(c, rooted[k][1]))
        batched = any(c.__class__ is BatchedTensor for c in lowered)
        needed = create_graph
        if needed is None:
            needed = keep_forward or (
                is_grad_enabled()
                and (_DEPTH[0] > 0 or bool(fwAD._levels) or any(c.requires_grad for c in lowered))
            )
        # A batched cotangent runs through the formulas as public ops (the level batches
        # them), which is the create_graph path; the graph is dropped after unless needed.
        keep = needed or batched
        pairs = [(r, c) for r, c in zip(roots, lowered, strict=True) if r.requires_grad]
        new_levels = {lv for c in lowered for lv in canonical(c)[0]}
        for lv in new_levels:
            lv.promote_inplace = True
        with enable_grad() if keep else _nullcontext(), _promoting(new_levels):
            if pairs:
                grads = _autograd_grad(
                    [r for r, _ in pairs],
                    prepared.leaves,
                    [c for _, c in pairs],
                    retain_graph=retain_graph,
                    create_graph=keep,
                    allow_unused=True,
                )
            else:
                grads = [None] * len(prepared.leaves)
            result = prepared.gradients(grads)
        if not needed and keep:
            result = [_detach_tree(r, False) for r in result]
        return tuple(result)

    value = output if keep_forward else _detach_tree(output, False)
    if has_aux:
        return value, vjp_fn, _detach_tree(aux, keep_forward)
    return value, vjp_fn


class _promoting:
    """Clears the levels' ``promote_inplace`` flags when the backward pass is over."""

    def __init__(self, levels):
        self.levels = levels

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        for lv in self.levels:
            lv.promote_inplace = False
        return False


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of ``func`` by reverse mode, PyTorch's ``torch.func.jacrev``: one
    ``vjp`` and a ``vmap`` of its ``vjp_fn`` over the basis of the output space (``chunk_size``
    rows at a time). ``jacrev(f)(x)[i..., j...]`` is d f(x)[i...] / d x[j...]; with a tuple
    ``argnums`` one Jacobian per argument, for a tree output one per output leaf."""
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise TensorValueError(
            "jacrev: `chunk_size` should be greater than 0 (or None for no chunking), got "
            f"{chunk_size}."
        )

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums_check(argnums, args, "jacrev")
        diff = args[nums[0]] if isinstance(argnums, int) else tuple(args[i] for i in nums)
        flat_primals, p_spec = _pytree.flatten(diff)

        def partial(*flat):
            tree = _pytree.unflatten(list(flat), p_spec)
            new = list(args)
            if isinstance(argnums, int):
                new[nums[0]] = tree
            else:
                for i, t in zip(nums, tree, strict=True):
                    new[i] = t
            return func(*new, **kwargs)

        result = vjp(partial, *flat_primals, has_aux=has_aux)
        output, vjp_fn = result[0], result[1]
        outs, out_spec = _pytree.flatten(output)
        for o in outs:
            if not isinstance(o, Tensor):
                raise TensorRuntimeError(
                    f"jacrev(f, ...): expected f to return only tensors, got {type(o)}"
                )
        sizes = [o.numel() for o in outs]
        total = sum(sizes)
        basis = []
        start = 0
        for o, n in zip(outs, sizes, strict=True):
            eye = J.eye(total, dtype=o.dtype, device=o.device)
            basis.append(eye.narrow(1, start, n).reshape((total,) + tuple(o.shape)))
            start += n
        if total == 0:
            rows = [
                J.zeros((0,) + tuple(p.shape), dtype=p.dtype, device=p.device) for p in flat_primals
            ]
        else:
            rows = vmap(vjp_fn, chunk_size=chunk_size)(_pytree.unflatten(basis, out_spec))
        jac_leaves = []
        start = 0
        for o, n in zip(outs, sizes, strict=True):
            per_primal = [
                r.narrow(0, start, n).reshape(tuple(o.shape) + tuple(p.shape))
                for r, p in zip(rows, flat_primals, strict=True)
            ]
            jac_leaves.append(_pytree.unflatten(per_primal, p_spec))
            start += n
        jac = _pytree.unflatten(jac_leaves, out_spec)
        if has_aux:
            return jac, result[2]
        return jac

    return wrapper
