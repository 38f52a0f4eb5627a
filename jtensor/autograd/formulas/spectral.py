"""Derivatives of ``torch.fft``'s transforms (``jtensor/_ops/spectral.py``).

Each transform is a linear map, so its gradient is the adjoint map, written with the public
transforms (``create_graph=True`` differentiates them again), as PyTorch's
``FunctionsManual.cpp`` does:

- c2c with label ``m``: the opposite direction with the mirrored label (unscaled forward ↔
  unscaled inverse, ``1/n`` ↔ ``1/n``, ortho ↔ ortho);
- one-sided r2c: zero-fill the missing half, inverse c2c, real part;
- c2r: one-sided r2c of the gradient, the bins that stand for two (all but the first and,
  for an even length, the last) doubled;

then the adjoint of the input's cut or zero-pad (a pad, or a narrow), and the real part for a
real input (PyTorch's conjugate Wirtinger convention for a real-to-complex function). A
node is named after PyTorch's outermost node of the same call (``ifft`` of a real tensor ends
in ``ConjBackward0``, ``fftn`` of one in ``FftC2CBackward0``).
"""

from ..._api import ops as J
from ..._ops.spectral import fftn, ifftn, mirror_norm, rfftn, shape_and_dims
from ._core import derivative


def _wrap(dim, ndim):
    return dim % ndim


def _plan(op, values, shape):
    """(dims, sizes of the resized input, last_dim_size or None) of the recorded call."""
    input = values["input"]
    if op in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
        dim = _wrap(values["dim"], len(shape))
        n = values["n"]
        if op in ("irfft", "hfft"):
            last = 2 * (shape[dim] - 1) if n is None else n
            return (dim,), (last // 2 + 1,), last
        return (dim,), (shape[dim] if n is None else n,), None
    sizes, dims = shape_and_dims(op, input, values["s"], values["dim"])
    if op.startswith(("irfft", "hfft")):
        s = values["s"]
        last = 2 * (shape[dims[-1]] - 1) if s is None or list(s)[-1] == -1 else sizes[-1]
        return dims, sizes[:-1] + (last // 2 + 1,), last
    return dims, sizes, None


def _unresize(g, shape, dims, sizes):
    """Adjoint of cutting or zero-padding the input to ``sizes``: pad with zeros where the
    input was cut, cut where it was padded."""
    for d, n in zip(dims, sizes, strict=True):
        m = shape[d]
        if n > m:
            g = g.narrow(d, 0, m)
        elif n < m:
            pad = list(g.shape)
            pad[d] = m - n
            g = J.cat([g, J.zeros(pad, dtype=g.dtype, device=g.device)], d)
    return g


def _fill_half(g, dim, full):
    """The one-sided gradient zero-filled to ``full`` entries along ``dim``."""
    missing = full - g.shape[dim]
    if missing == 0:
        return g
    pad = list(g.shape)
    pad[dim] = missing
    return J.cat([g, J.zeros(pad, dtype=g.dtype, device=g.device)], dim)


def _double_middle(g, dim, last):
    """Scale by 2 the one-sided bins that also stand for their mirror image."""
    half = g.shape[dim]
    doubled = last - half
    if doubled <= 0:
        return g
    weights = [1.0] + [2.0] * doubled + [1.0] * (half - 1 - doubled)
    shape = [1] * g.dim()
    shape[dim] = half
    w = J.tensor(
        weights, dtype=g.real.dtype if g.is_complex() else g.dtype, device=g.device
    ).reshape(shape)
    return g * w


def _finish(g, ctx, shape, dims, sizes):
    g = _unresize(g, shape, dims, sizes)
    dtype = ctx.input_meta(0)[1]
    return g if dtype.is_complex else g.real


def _c2c_backward(op, forward):
    def backward(ctx, g):
        shape = ctx.input_meta(0)[0]
        dims, sizes, _ = _plan(op, _values(ctx), shape)
        adjoint = ifftn if forward else fftn
        g = adjoint(g, dim=list(dims), norm=mirror_norm(ctx.norm))
        return _finish(g, ctx, shape, dims, sizes)

    return backward


def _values(ctx):
    """The call's arguments the plan needs, read from ``ctx``."""
    out = {"input": _Shape(ctx.input_meta(0)[0])}
    for key in ("n", "s", "dim"):
        try:
            out[key] = getattr(ctx, key)
        except AttributeError:
            pass
    return out


class _Shape:
    """Stands in for the input (only its shape is read when the dims are worked out)."""

    def __init__(self, shape):
        self._shape = tuple(shape)
        self.shape = self._shape

    def dim(self):
        return len(self._shape)


def _r2c_backward(op, conjugate):
    def backward(ctx, g):
        shape = ctx.input_meta(0)[0]
        dims, sizes, _ = _plan(op, _values(ctx), shape)
        norm = ctx.norm
        if conjugate:  # ihfft = conj(rfft with the mirrored label)
            g = g.conj()
        else:
            norm = mirror_norm(norm)
        full = _fill_half(g, dims[-1], sizes[-1])
        g = ifftn(full, dim=list(dims), norm=norm)
        return _finish(g, ctx, shape, dims, sizes)

    return backward


def _c2r_backward(op, conjugate):
    def backward(ctx, g):
        shape = ctx.input_meta(0)[0]
        dims, sizes, last = _plan(op, _values(ctx), shape)
        # irfft's c2r has the label norm; hfft's, the mirrored one (hfft = irfft of the
        # conjugate): the adjoint r2c takes the mirror of the c2r's label.
        norm = ctx.norm if conjugate else mirror_norm(ctx.norm)
        g = rfftn(g, dim=list(dims), norm=norm)
        g = _double_middle(g, dims[-1], last)
        if conjugate:
            g = g.conj()
        return _finish(g, ctx, shape, dims, sizes)

    return backward


def _real_input(values):
    return not values["input"].is_complex()


def _fft_name(values):
    return "FftR2CBackward0" if _real_input(values) else "FftC2CBackward0"


def _ifft_name(values):
    return "ConjBackward0" if _real_input(values) else "FftC2CBackward0"


def _ihfftn_name(values):
    _, dims = shape_and_dims("ihfftn", values["input"], values["s"], values["dim"])
    return "ConjBackward0" if len(dims) == 1 else "FftC2CBackward0"


derivative("fft_fft", name=_fft_name)(_c2c_backward("fft", True))
derivative("fft_ifft", name=_ifft_name)(_c2c_backward("ifft", False))
for _op in ("fft2", "fftn"):
    derivative(f"fft_{_op}", name="FftC2CBackward0")(_c2c_backward(_op, True))
for _op in ("ifft2", "ifftn"):
    derivative(f"fft_{_op}", name="FftC2CBackward0")(_c2c_backward(_op, False))
for _op in ("rfft", "rfft2", "rfftn"):
    derivative(f"fft_{_op}", name="FftR2CBackward0")(_r2c_backward(_op, False))
derivative("fft_ihfft", name="ConjBackward0")(_r2c_backward("ihfft", True))
for _op in ("ihfft2", "ihfftn"):
    derivative(f"fft_{_op}", name=_ihfftn_name)(_r2c_backward(_op, True))
for _op in ("irfft", "irfft2", "irfftn"):
    derivative(f"fft_{_op}", name="FftC2RBackward0")(_c2r_backward(_op, False))
for _op in ("hfft", "hfft2", "hfftn"):
    derivative(f"fft_{_op}", name="FftC2RBackward0")(_c2r_backward(_op, True))
