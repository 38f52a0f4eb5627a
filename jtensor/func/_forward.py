"""Forward-mode transforms: ``jvp``, ``jacfwd`` and ``hessian``.

``jvp`` opens a (nestable) forward-AD level of ``jtensor.autograd.forward_ad``, makes each
primal a dual tensor carrying its tangent and reads the outputs' tangents back: the
Jacobian-vector product comes out of one forward pass. ``jacfwd`` is ``vmap`` of that over
the basis of the input space (the tangents are batched tensors; the forward rules' ops on
them go through the vmap level's batching rules). ``hessian`` is ``jacfwd`` of ``jacrev``,
as in PyTorch.
"""

import functools

from .._api import ops as J
from .._errors import TensorRuntimeError
from .._tensor import Tensor
from ..autograd import forward_ad as fwAD
from . import _pytree
from ..autograd.grad_mode import is_grad_enabled
from .._tensor import contiguous_format as _CONTIGUOUS
from ._autodiff import _DEPTH, _argnums_check, _promoting, jacrev
from ._vmap import active_levels, vmap

_JVP = "jvp(f, primals, tangents)"


def _check_inputs(primals, tangents):
    for what, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, tuple):
            raise TensorRuntimeError(
                f"{_JVP}: Expected {what} to be a tuple. E.g. it should be valid to call "
                "f(*primals)."
            )
    flat_p, spec_p = _pytree.flatten(primals)
    flat_t, spec_t = _pytree.flatten(tangents)
    if spec_p != spec_t:
        raise TensorRuntimeError(
            f"{_JVP}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {spec_p} and tangents with structure {spec_t}"
        )
    if not flat_p:
        raise TensorRuntimeError(f"{_JVP}: Expected primals to contain at least one Tensor.")
    for what, flat in (("primals", flat_p), ("tangents", flat_t)):
        for x in flat:
            if not isinstance(x, Tensor):
                raise TensorRuntimeError(
                    f"{_JVP}: Expected {what} to only contain Tensors, got {type(x)}"
                )
    return flat_p, flat_t, spec_p


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J(primals) @ tangents)``: the function's value and its
    Jacobian-vector product with ``tangents`` (same structure as ``primals``, a tuple),
    PyTorch's ``torch.func.jvp``, by forward-mode AD (one pass). With ``has_aux``, ``func``
    returns ``(output, aux)`` and ``aux`` is returned third.

    >>> import jtensor as torch
    >>> torch.func.jvp(torch.sin, (torch.tensor([0.0]),), (torch.tensor([2.0]),))
    (tensor([0.]), tensor([2.]))
    """
    flat_p, flat_t, spec = _check_inputs(primals, tangents)
    level = fwAD._enter_dual_level(nested=True)
    try:
        # A tangent batched by vmap whose layout differs from its primal's is copied into
        # one of the primal's layout: that fresh tensor may become batched (promotion).
        levels = set(active_levels())
        for lv in levels:
            lv.promote_inplace = True
        with _promoting(levels):
            duals = [fwAD.make_dual(p, t, level=level) for p, t in zip(flat_p, flat_t, strict=True)]
        output = func(*_pytree.unflatten(duals, spec))
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise TensorRuntimeError(
                    f"{_JVP}: output of function f should be a tuple: (output, aux) if has_aux "
                    "is True"
                )
            output, aux = output
        outs, out_spec = _pytree.flatten(output)
        values, derivatives = [], []
        for o in outs:
            if not isinstance(o, Tensor):
                raise TensorRuntimeError(
                    f"{_JVP}: expected f(*primals) to return only tensors, got unsupported type "
                    f"{type(o)}"
                )
            primal, tangent = fwAD.unpack_dual(o, level=level)
            values.append(primal)
            derivatives.append(J.zeros_like(primal) if tangent is None else tangent)
        if aux is not None:
            aux_leaves, aux_spec = _pytree.flatten(aux)
            aux = _pytree.unflatten(
                [
                    fwAD.unpack_dual(a, level=level).primal if isinstance(a, Tensor) else a
                    for a in aux_leaves
                ],
                aux_spec,
            )
    finally:
        fwAD.exit_dual_level(level=level)
    # Tangents computed through a backward pass (forward over reverse) carry its graph; it
    # is kept only when something may differentiate the result.
    if not (
        is_grad_enabled()
        and (_DEPTH[0] > 0 or fwAD._levels or any(x.requires_grad for x in flat_p + flat_t))
    ):
        values = [v.detach() for v in values]
        derivatives = [d.detach() for d in derivatives]
    result = (_pytree.unflatten(values, out_spec), _pytree.unflatten(derivatives, out_spec))
    return result + (aux,) if has_aux else result


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func`` by forward mode, PyTorch's ``torch.func.jacfwd``: ``vmap`` of
    ``jvp`` over the basis of the inputs' space. ``jacfwd(f)(x)[i..., j...]`` is
    d f(x)[i...] / d x[j...]; with a tuple ``argnums`` one Jacobian per argument, for a tree
    output one per output leaf; ``randomness`` is ``vmap``'s."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _argnums_check(argnums, args, "jacfwd")
        diff = args[nums[0]] if isinstance(argnums, int) else tuple(args[i] for i in nums)
        flat_primals, p_spec = _pytree.flatten(diff)
        for p in flat_primals:
            if not isinstance(p, Tensor):
                raise TensorRuntimeError(
                    f"{_JVP}: Expected primals to only contain Tensors, got {type(p)}"
                )
        # Contiguous primals: a basis tangent then has the primal's layout as it is.
        flat_primals = [
            p.contiguous() if p.storage_offset() == 0 else p.clone(memory_format=_CONTIGUOUS)
            for p in flat_primals
        ]
        sizes = [p.numel() for p in flat_primals]
        total = sum(sizes)
        basis = []
        start = 0
        for p, n in zip(flat_primals, sizes, strict=True):
            eye = J.eye(total, dtype=p.dtype, device=p.device)
            # (contiguous from offset 0: the layout of the contiguous primal)
            basis.append(eye.narrow(1, start, n).contiguous().reshape((total,) + tuple(p.shape)))
            start += n

        def partial(*flat):
            tree = _pytree.unflatten(list(flat), p_spec)
            new = list(args)
            if isinstance(argnums, int):
                new[nums[0]] = tree
            else:
                for i, t in zip(nums, tree, strict=True):
                    new[i] = t
            return func(*new, **kwargs)

        def push(*tangents):
            result = jvp(partial, tuple(flat_primals), tangents, has_aux=has_aux)
            return (result[1], result[0]) + ((result[2],) if has_aux else ())

        # The value and aux do not depend on the tangents; they come back batched only where
        # the function's own values are (then every row holds them): row 0 is theirs.
        columns, value, *aux = vmap(push, randomness=randomness)(*basis)
        outs, out_spec = _pytree.flatten(columns)
        jac_leaves = []
        for o in outs:
            shape = tuple(o.shape[1:])
            per_primal = []
            start = 0
            for p, n in zip(flat_primals, sizes, strict=True):
                block = o.narrow(0, start, n).movedim(0, -1)
                per_primal.append(block.reshape(shape + tuple(p.shape)))
                start += n
            jac_leaves.append(_pytree.unflatten(per_primal, p_spec))
        jac = _pytree.unflatten(jac_leaves, out_spec)
        del value
        if has_aux:
            leaves, spec = _pytree.flatten(aux[0])
            return jac, _pytree.unflatten(
                [a.select(0, 0) if isinstance(a, Tensor) else a for a in leaves], spec
            )
        return jac

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of ``func``: ``jacfwd(jacrev(func, argnums), argnums)``, PyTorch's
    ``torch.func.hessian`` (forward over reverse). Under an enclosing ``vmap`` it is computed
    as ``jacrev(jacrev(...))`` (the same values): reverse mode inside forward mode cannot
    follow inputs batched by a vmap entered before the forward level."""
    forward = jacfwd(jacrev(func, argnums), argnums)
    reverse = jacrev(jacrev(func, argnums), argnums)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return (reverse if active_levels() else forward)(*args, **kwargs)

    return wrapper
