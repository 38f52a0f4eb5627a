"""``tanh_backward`` and ``sigmoid_backward``: PyTorch's backward kernels, as ops of their own.

PyTorch computes ``tanh``'s and ``sigmoid``'s gradients with kernels of their own, in both
a plain backward and one that records (``create_graph=True``, where they are nodes:
``TanhBackwardBackward0``, ``SigmoidBackwardBackward0``). Their rounding is the kernels':
tanh's ``g * (1 - y * y)`` has ``1 - y * y`` fused into one multiply-add by the compiler (one
rounding where the plain expression has two: near ``y = +-1`` the difference is many
units in the last place), sigmoid's multiplies ``g * (1 - y) * y`` left to right. Both
passes here call the same op, and under a function transform (whose levels see public ops
only) the same formula is written in public ops: a plain gradient, a recorded one and a
``vjp`` under ``vmap`` are the same numbers, as in PyTorch (the jacobians tutorial compares
them), and PyTorch's for CPU float32/float64 (see ``_one_minus_square``). Complex dtypes use
the public ops' arithmetic.
"""

import numpy as np

from ..._dispatch import OpDef, grad_mode, transforms
from ..._elementwise import contiguous_result_shape
from ... import _dtypes
from ..._layout import elementwise_output_strides
from ..._tensor import DENSE_CLASSES, Tensor, new_empty_tensor, plain_cpu_floats
from ..graph import Formula, _record_tensors
from ._core import conj


def _arrays(g, y):
    """``g``'s and ``y``'s arrays when the kernel's rounding can be reproduced on them: CPU
    float32/float64 tensors of one dtype and shape; else None."""
    if g.__class__ not in DENSE_CLASSES or y.__class__ not in DENSE_CLASSES \
            or not plain_cpu_floats(g, y) or g._dtype is not y._dtype or g._shape != y._shape:
        return None
    return g._array(), y._array()


def _wrap(array, g, y):
    """The values ``array`` as a tensor laid out as TensorIterator lays out ``g op y``."""
    if contiguous_result_shape(g, y) is not None:
        array = np.asarray(array)   # (a 0-d product is a NumPy scalar)
        if not array.flags.c_contiguous:
            array = array.copy(order="C")
        return Tensor._from_array(array, g._dtype, g._storage.device)
    shape = g._shape
    out = new_empty_tensor(shape, g._dtype, g._storage.device, stride=elementwise_output_strides(
        shape, [(shape, g._stride), (shape, y._stride)]))
    out._array()[...] = array
    return out


def _one_minus_square(y, float32, widen, narrow):
    """PyTorch's fused ``1 - y * y`` (one rounding), written with operators that NumPy
    arrays and tensors evaluate alike, so that every path (the arrays of a plain backward,
    the public ops under a function transform) gives the same bits. float32: the square is
    exact in float64 and only the result is rounded back (the fused value, but for rare
    double roundings where |y| < 1/8). float64: Dekker's exact square ``p + e``, and the
    exact ``1 - p - e`` as ``d + (err - e)`` (``d = 1 - p`` rounded, ``err`` its exact
    error): one rounding of the exact value but where ``err - e`` itself rounds."""
    if float32:
        w = widen(y)
        return narrow(1 - w * w)
    c = y * 134217729.0
    hi = c - (c - y)
    lo = y - hi
    p = y * y
    e = ((hi * hi - p) + hi * lo + hi * lo) + lo * lo
    d = 1 - p
    return d + (((1 - d) - p) - e)   # (``(1 - d) - p``: the subtraction's exact error)


def _tanh_composed(grad_output, output):
    if output.is_complex() or output.dtype not in (_dtypes.float32, _dtypes.float64) \
            or grad_output.dtype is not output.dtype:
        return grad_output * conj(1 - output * output)
    return grad_output * _one_minus_square(output, output.dtype is _dtypes.float32,
                                           lambda t: t.double(), lambda t: t.float())


def _sigmoid_composed(grad_output, output):
    if output.is_complex():
        return grad_output * conj((1 - output) * output)
    return grad_output * (1 - output) * output


def _tanh_backward_impl(grad_output, output):
    found = _arrays(grad_output, output)
    if found is None:
        return _tanh_composed(grad_output, output)
    g, y = found
    with np.errstate(all="ignore"):
        if y.dtype == np.float32:
            # ``_one_minus_square``'s float32 formula, the same operations in place
            w = y.astype(np.float64)
            np.multiply(w, w, out=w)
            np.subtract(1.0, w, out=w)
            t = w.astype(np.float32)
            values = np.multiply(g, t, out=t)   # (``_arrays``: one shape)
        else:
            values = np.multiply(g, _one_minus_square(y, False, None, None))
    return _wrap(values, grad_output, output)


def _sigmoid_backward_impl(grad_output, output):
    found = _arrays(grad_output, output)
    if found is None:
        return _sigmoid_composed(grad_output, output)
    g, y = found
    with np.errstate(all="ignore"):
        values = np.multiply(np.multiply(g, np.subtract(y.dtype.type(1), y)), y)
    return _wrap(values, grad_output, output)


def _call(op, impl, composed, g, y):
    """``impl(g, y)``, recorded as ``op`` when autograd records and either requires grad.
    Under a function transform (forward AD, ``vmap``), whose levels see public ops only,
    and for complex dtypes, the same formula in public ops (``composed``)."""
    if transforms.active or y.is_complex() or g.is_complex():
        return composed(g, y)   # (complex dtypes: the public ops' formula, as before)
    if grad_mode.record and (g._requires_grad or y._requires_grad) \
            and g.__class__ in DENSE_CLASSES and y.__class__ in DENSE_CLASSES:
        return _record_tensors(op, op.backward, impl, (g, y))
    return impl(g, y)


def tanh_backward(grad_output, output):
    """``grad_output * (1 - output**2)`` as PyTorch's kernel rounds it."""
    return _call(_TANH_BACKWARD, _tanh_backward_impl, _tanh_composed, grad_output, output)


def sigmoid_backward(grad_output, output):
    """``grad_output * (1 - output) * output`` as PyTorch's kernel rounds it."""
    return _call(_SIGMOID_BACKWARD, _sigmoid_backward_impl, _sigmoid_composed, grad_output,
                 output)


def _tanh_backward_backward(ctx, grad):
    # PyTorch's derivatives.yaml: grad_output: tanh_backward(grad, output.conj());
    # output: grad.conj() * (-2 * output.conj() * grad_output).conj()
    need_g, need_y = ctx.needs_input_grad
    g, y = ctx.grad_output, ctx.output
    return (tanh_backward(grad, conj(y)) if need_g else None,
            conj(grad) * conj(-2 * conj(y) * g) if need_y else None)


def _sigmoid_backward_backward(ctx, grad):
    # grad_output: sigmoid_backward(grad, output.conj());
    # output: grad.conj() * grad_output * (-2 * output.conj() + 1)
    need_g, need_y = ctx.needs_input_grad
    g, y = ctx.grad_output, ctx.output
    return (sigmoid_backward(grad, conj(y)) if need_g else None,
            conj(grad) * g * (-2 * conj(y) + 1) if need_y else None)


def _op(name, impl, backward, node):
    # (unpublished: PyTorch's ``torch.ops.aten.<name>``, not a ``torch.<name>`` function)
    op = OpDef(name, "elementwise", impl, False, False)
    op.backward = Formula(op, backward, ("grad_output", "output"),
                          save=("grad_output", "output"), name=node)
    return op


_TANH_BACKWARD = _op("tanh_backward", _tanh_backward_impl, _tanh_backward_backward,
                     "TanhBackwardBackward0")
_SIGMOID_BACKWARD = _op("sigmoid_backward", _sigmoid_backward_impl,
                        _sigmoid_backward_backward, "SigmoidBackwardBackward0")
