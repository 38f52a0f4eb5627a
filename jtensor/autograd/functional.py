"""``torch.autograd.functional``: derivatives of a whole function at a point.

``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``hvp`` and ``vhp`` call ``func(*inputs)`` on
fresh copies of the inputs that require grad and differentiate its outputs with
``autograd.grad``: ``jvp`` and ``hvp`` by the double-backward trick (the vjp is linear in
its vector, so differentiating it again gives the forward product), ``jacobian`` one row
per output element (reverse mode) or one column per input element (``strategy=
"forward-mode"``, with ``autograd.forward_ad``). As in PyTorch, a Tensor input gives Tensor
results and a tuple gives tuples; ``strict=True`` refuses outputs that do not depend on an
input; ``create_graph=True`` keeps the results differentiable.

``vectorize=True`` gives the same values as PyTorch's batched (vmap) computation; jtensor
computes the rows (or columns) one after another.
"""

from .._api import ops as J
from .._errors import TensorNotImplementedError, TensorRuntimeError, TensorTypeError
from .._tensor import Tensor
from . import forward_ad as fwAD
from ._backward import grad as _grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ----------------------------------------------------------------------------- helpers


def _as_tuple(value, what, fn_name):
    """``(was a tuple, tuple of Tensors)``; anything but Tensors is PyTorch's TypeError."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {what}"
            raise TensorTypeError(
                f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                f"but {where} has type {type(item)}."
            )
    return is_tuple, items


def _unpack(result, was_tuple):
    """Undo the tuple wrapping: ``was_tuple`` is one flag, or (outer, inner) for nested
    results (a Jacobian is indexed by output, then by input)."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        if not inner:
            result = tuple(row[0] for row in result)
        return result if outer else result[0]
    return result if was_tuple else result[0]


def _prepare(inputs, create_graph, need_graph):
    """Copies the function sees: with ``create_graph`` an input that requires grad stays
    connected to its history (a view), otherwise a detached copy (requiring grad when the
    function must be differentiated)."""
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(values, create_graph):
    """Results leave without history unless ``create_graph``."""
    if values and isinstance(values[0], Tensor):
        return values if create_graph else tuple(v.detach() for v in values)
    return tuple(_finish(v, create_graph) for v in values)


def _check_v(v, like, like_is_tuple):
    if len(v) != len(like):
        if like_is_tuple:
            raise TensorRuntimeError(
                f"v is a tuple of invalid length: should be {len(like)} but got {len(v)}."
            )
        raise TensorRuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, like, strict=True)):
        if a.shape != b.shape:
            prefix = f"Entry {i} in " if like_is_tuple else ""
            raise TensorRuntimeError(
                f"{prefix}v has invalid size: should be {b.size()} but got {a.size()}."
            )


_STRICT_MESSAGES = {
    "outputs": (
        "Output {i} of the user-provided function does not require gradients. The "
        "outputs must be computed in a differentiable manner from the input when "
        "running in strict mode."
    ),
    "grad_inputs": (
        "The gradient with respect to input {i} is independent of the inputs of "
        "the user-provided function. This is not allowed in strict mode."
    ),
    "jacobian": (
        "While computing the hessian, found that the jacobian of the user-provided "
        "function with respect to input {i} is independent of the input. This is not "
        "allowed in strict mode. You should ensure that your function is twice "
        "differentiable and that the jacobian depends on the inputs (this would be "
        "violated by a linear function for example)."
    ),
    "hessian": (
        "The hessian of the user-provided function with respect to input {i} is "
        "independent of the input. This is not allowed in strict mode. You should "
        "ensure that your function is thrice differentiable and that the hessian "
        "depends on the inputs."
    ),
}


def _strict_requires_grad(values, kind, strict):
    """In strict mode every value must exist and require grad (PyTorch's messages)."""
    if not strict:
        return
    for i, v in enumerate(values):
        if v is None:
            raise TensorRuntimeError(
                f"The output of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode."
            )
        if not v.requires_grad:
            raise TensorRuntimeError(_STRICT_MESSAGES[kind].format(i=i))


def _grads(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad (None for unreached inputs)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [
        (o, g)
        for o, g in zip(outputs, grad_outputs, strict=True)
        if o is not None and o.requires_grad
    ]
    if not kept:
        return (None,) * len(inputs)
    return _grad(
        [o for o, _ in kept],
        inputs,
        [g for _, g in kept],
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
    )


_ZERO_MESSAGES = {
    "back": (
        "The output of the user-provided function is independent of input {i}. This is "
        "not allowed in strict mode."
    ),
    "back_trick": (
        "The gradient with respect to the input is independent of entry {i} in the "
        "grad_outputs when using the double backward trick to compute forward mode "
        "gradients. This is not allowed in strict mode."
    ),
    "double_back": (
        "The jacobian of the user-provided function is independent of input {i}. "
        "This is not allowed in strict mode."
    ),
    "double_back_trick": (
        "The hessian of the user-provided function is independent of entry "
        "{i} in the grad_jacobian. This is not allowed in strict mode as it "
        "prevents from using the double backward trick to replace forward "
        "mode AD."
    ),
}


def _zeros_for_missing(grads, like, strict, create_graph, stage):
    """Zeros where a gradient is None; strict mode refuses them (and, with
    ``create_graph``, gradients that do not require grad)."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise TensorRuntimeError(_ZERO_MESSAGES[stage].format(i=i))
            g = J.zeros_like(like[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise TensorRuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This "
                "is not allowed in strict mode when create_graph=True."
            )
        out.append(g)
    return tuple(out)


def _vector(v, like, like_is_tuple, create_graph, fn_name, single_message):
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise TensorRuntimeError(single_message)
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _prepare(v, create_graph, need_graph=False)
    _check_v(v, like, like_is_tuple)
    return v


_SINGLE_INPUT = (
    "The vector v can only be None if the input to the user-provided function "
    "is a single Tensor with a single element."
)


# ----------------------------------------------------------------------------- vjp, jvp


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product at ``inputs``. ``v`` may be
    omitted when ``func`` returns a single-element Tensor.

    >>> import jtensor as torch
    >>> torch.autograd.functional.vjp(lambda x: x ** 2, torch.tensor([1.0, 2.0]),
    ...                               torch.tensor([1.0, 1.0]))[1]
    tensor([2., 4.])
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs = func(*inputs)
        outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _strict_requires_grad(outputs, "outputs", strict)
        v = _vector(
            v,
            outputs,
            outputs_tuple,
            create_graph,
            "vjp",
            "The vector v can only be None if the user-provided function returns a "
            "single Tensor with a single element.",
        )
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grads(outputs, inputs, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "back")
    return _pair(outputs, outputs_tuple, result, inputs_tuple, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``: the Jacobian-vector product at ``inputs``, by the double
    backward trick (as PyTorch). ``v`` may be omitted for a single-element input.

    >>> import jtensor as torch
    >>> torch.autograd.functional.jvp(lambda x: x ** 2, torch.tensor([1.0, 2.0]),
    ...                               torch.tensor([1.0, 0.0]))[1]
    tensor([2., 0.])
    """
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _vector(v, inputs, inputs_tuple, create_graph, "jvp", _SINGLE_INPUT)
        outputs = func(*inputs)
        outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _strict_requires_grad(outputs, "outputs", strict)
        dummies = tuple(J.zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _grads(outputs, inputs, dummies, create_graph=True)
        _strict_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grads(grad_inputs, dummies, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, outputs, strict, create_graph, "back_trick")
    return _pair(outputs, outputs_tuple, result, outputs_tuple, create_graph)


# ----------------------------------------------------------------------------- jacobian


def _jacobian_forward(func, inputs, strict, vectorize):
    """The Jacobian column by column: one forward-AD pass per input element."""
    if strict:
        raise TensorRuntimeError(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
            "are not supported together (yet). Please either set `strict=False` or "
            '`strategy="reverse-mode"`.'
        )
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise TensorNotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly "
            "implemented for `vectorize=True`."
        )
    numels = [t.numel() for t in inputs]
    columns = None
    outputs = outputs_tuple = None
    for j in range(len(inputs)):
        for k in range(numels[j]):
            with fwAD.dual_level():
                duals = []
                for jj, t in enumerate(inputs):
                    tangent = J.zeros(tuple(t.shape), dtype=t.dtype, device=t.device)
                    if jj == j:
                        tangent.view(-1)[k] = 1
                    duals.append(fwAD.make_dual(t, tangent))
                outputs_tuple, outs = _as_tuple(func(*duals), "outputs", "jacobian")
                column = []
                primals = []
                for o in outs:
                    primal, tangent = fwAD.unpack_dual(o)
                    primals.append(primal)
                    column.append(J.zeros_like(primal) if tangent is None else tangent)
            outputs = primals
            if columns is None:
                columns = [[[] for _ in inputs] for _ in outs]
            for i, c in enumerate(column):
                columns[i][j].append(c)
    if columns is None:  # every input is empty: run once for the outputs' shapes
        with fwAD.dual_level():
            outputs_tuple, outs = _as_tuple(func(*inputs), "outputs", "jacobian")
        outputs = outs
        columns = [[[] for _ in inputs] for _ in outs]
    # Lists, as PyTorch's forward-mode path returns them (its reverse mode gives tuples).
    # PyTorch vmaps the columns (batch dimension first) and moves it last: the same strides
    # here, and the reshape of that strided view is its ReshapeAliasBackward0.
    jac = [
        [
            (
                J.movedim(J.stack(columns[i][j], 0), 0, -1)
                if columns[i][j]
                else J.zeros(tuple(o.shape) + (0,), dtype=o.dtype, device=o.device)
            ).reshape(tuple(o.shape) + tuple(inputs[j].shape))
            for j in range(len(inputs))
        ]
        for i, o in enumerate(outputs)
    ]
    return _unpack(jac, (outputs_tuple, inputs_tuple))


def jacobian(
    func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"
):
    """The Jacobian of ``func`` at ``inputs``: for a Tensor input and output, a Tensor of
    shape ``output.shape + input.shape``; for tuples, ``jac[i][j]`` is output ``i``'s
    Jacobian with respect to input ``j``. ``strategy="forward-mode"`` (with
    ``vectorize=True``) builds it column by column with forward-mode AD.

    >>> import jtensor as torch
    >>> torch.autograd.functional.jacobian(lambda x: x ** 2, torch.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise TensorNotImplementedError(
                'torch.autograd.functional.jacobian: `create_graph=True` and `strategy="'
                'forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.'
            )
        return _jacobian_forward(func, inputs, strict, vectorize)
    with enable_grad():
        inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs = func(*inputs)
        outputs_tuple, outputs = _as_tuple(
            outputs, "outputs of the user-provided function", "jacobian"
        )
        _strict_requires_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise TensorRuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                "not supported together. Please either set `strict=False` or "
                "`vectorize=False`."
            )
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for k in range(out.numel()):
                grads = _grads((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
                for j, (g, inp) in enumerate(zip(grads, inputs, strict=True)):
                    if g is None:
                        if strict:
                            raise TensorRuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {j}. This is not allowed in strict mode."
                            )
                        g = J.zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise TensorRuntimeError(
                            "The jacobian of the user-provided function is independent of "
                            f"input {i}. This is not allowed in strict mode when "
                            "create_graph=True."
                        )
                    rows[j].append(g)
            jac.append(
                tuple(
                    (
                        J.stack(rows[j], 0)
                        if rows[j]
                        else J.zeros((0,) + tuple(inp.shape), dtype=inp.dtype, device=inp.device)
                    ).view(tuple(out.shape) + tuple(inp.shape))
                    for j, inp in enumerate(inputs)
                )
            )
        jac = _finish(tuple(jac), create_graph)
        return _unpack(jac, (outputs_tuple, inputs_tuple))


# ----------------------------------------------------------------------------- second order


def hessian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    outer_jacobian_strategy="reverse-mode",
):
    """The Hessian of a function returning one element: for a Tensor input a Tensor of
    shape ``input.shape + input.shape``, for tuples ``h[i][j]``. The outer Jacobian may use
    ``outer_jacobian_strategy="forward-mode"`` (forward over reverse).

    >>> import jtensor as torch
    >>> torch.autograd.functional.hessian(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*args):
        out = func(*args)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _strict_requires_grad(outs, "outputs", strict)
        if out_tuple or not isinstance(out, Tensor):
            raise TensorRuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise TensorRuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.squeeze()

    def gradient(*args):
        if outer_jacobian_strategy == "forward-mode":
            args = tuple(t.requires_grad_(True) for t in args)
        jac = jacobian(single_output, args, create_graph=True)
        _strict_requires_grad(jac, "jacobian", strict)
        return jac

    result = jacobian(
        gradient,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _unpack(result, (inputs_tuple, inputs_tuple))


def _gradient_at(func, inputs, v, create_graph, strict, fn_name):
    """What ``vhp`` and ``hvp`` share: the prepared inputs and ``v``, the function's single
    output and its gradient (with a graph, to differentiate again)."""
    inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _prepare(inputs, create_graph, need_graph=True)
    v = _vector(v, inputs, inputs_tuple, create_graph, fn_name, _SINGLE_INPUT)
    outputs = func(*inputs)
    outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    _strict_requires_grad(outputs, "outputs", strict)
    if outputs_tuple or not isinstance(outputs[0], Tensor):
        raise TensorRuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise TensorRuntimeError(
            f"The Tensor returned by the function given to {fn_name} should contain a single "
            "element"
        )
    jac = _grads(outputs, inputs, create_graph=True)
    _strict_requires_grad(jac, "jacobian", strict)
    return inputs_tuple, inputs, v, outputs_tuple, outputs, jac


def _pair(outputs, outputs_tuple, result, result_tuple, create_graph):
    """``(outputs, result)`` as the caller gave them: Tensors or tuples."""
    return (
        _unpack(_finish(outputs, create_graph), outputs_tuple),
        _unpack(_finish(result, create_graph), result_tuple),
    )


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)``: the vector-Hessian product of a function returning one
    element.

    >>> import jtensor as torch
    >>> torch.autograd.functional.vhp(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]),
    ...                               torch.tensor([1.0, 1.0]))[1]
    tensor([ 6., 12.])
    """
    with enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _gradient_at(
            func, inputs, v, create_graph, strict, "vhp"
        )
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grads(jac, inputs, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "double_back")
    return _pair(outputs, outputs_tuple, result, inputs_tuple, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)``: the Hessian-vector product of a function returning one
    element, by the double backward trick (as PyTorch; ``vhp`` is cheaper and equal for
    the symmetric Hessians of twice continuously differentiable functions).

    >>> import jtensor as torch
    >>> torch.autograd.functional.hvp(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]),
    ...                               torch.tensor([1.0, 0.0]))[1]
    tensor([6., 0.])
    """
    with enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _gradient_at(
            func, inputs, v, create_graph, strict, "hvp"
        )
        dummies = tuple(J.zeros_like(t, requires_grad=True) for t in inputs)
        double_back = _grads(jac, inputs, dummies, create_graph=True)
        _strict_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grads(double_back, dummies, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "double_back_trick")
    return _pair(outputs, outputs_tuple, result, inputs_tuple, create_graph)
