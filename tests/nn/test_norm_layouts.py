"""Output and input-gradient layouts of the normalizations against PyTorch's CPU kernels.

``group_norm`` works on its input made contiguous in the input's suggested memory format, so
a channels-last input gives a channels-last output and gradient; ``layer_norm`` always gives
contiguous ones; ``batch_norm`` keeps a dense input's format (its input gradient also looks
at the incoming gradient's layout); ``instance_norm`` is batch norm of the input made
contiguous. A layout is observable: a later random op (dropout) draws in memory order, so a
different layout changes which elements its numbers land on."""

import numpy as np
import pytest

import jtensor
from tests.harness.conformance import cuda_skip

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _np(t):
    return t.detach().cpu().double().numpy()


# (shape, dim order from outermost to innermost in memory, slice of the last dim or None)
LAYOUTS = {
    "contiguous": ((2, 4, 3, 5), (0, 1, 2, 3)),
    "channels_last": ((2, 4, 3, 5), (0, 2, 3, 1)),
    "channels_last_h1": ((2, 4, 1, 5), (0, 2, 3, 1)),
    "channels_last_hw1": ((2, 4, 1, 1), (0, 2, 3, 1)),  # also contiguous: ambiguous
    "channels_last_n1": ((1, 4, 3, 5), (0, 2, 3, 1)),
    "permuted": ((2, 4, 3, 5), (0, 3, 1, 2)),
    "batch_inner": ((2, 4, 3, 5), (1, 0, 2, 3)),
    "reversed": ((2, 4, 3, 5), (3, 2, 1, 0)),
    "channels_last_3d": ((2, 4, 3, 2, 5), (0, 2, 3, 4, 1)),
    "permuted_3d": ((2, 4, 6), (0, 2, 1)),
    "reversed_3d": ((2, 4, 6), (2, 1, 0)),
    "transposed_2d": ((6, 4), (1, 0)),
}


def _input(lib, layout, dtype="float64", kind=None):
    """A tensor of the layout's shape whose memory runs in the layout's dim order."""
    dt = getattr(lib, dtype)
    if kind == "odd_unit_strides":  # contiguous, with an odd stride on a size-1 dim
        return (
            lib.arange(40, dtype=lib.float64).sin().to(dt).as_strided((2, 4, 1, 5), (20, 5, 7, 1))
        )
    if kind == "sliced_channels_last":  # channels-last-like, not dense
        full = lib.arange(120, dtype=lib.float64).sin().to(dt).view(2, 3, 5, 4)
        return full.permute(0, 3, 1, 2)[:, :, :, ::2]
    shape, order = LAYOUTS[layout]
    stored = lib.arange(int(np.prod(shape)), dtype=lib.float64).sin().to(dt)
    stored = stored.view([shape[d] for d in order])
    return stored.permute(*[order.index(d) for d in range(len(shape))])


def _ops(lib):
    F = lib.nn.functional

    def params(x, n):
        return (lib.linspace(0.5, 1.5, n, dtype=x.dtype), lib.linspace(-1, 1, n, dtype=x.dtype))

    return {
        "group_norm": lambda x: F.group_norm(x, 2),
        "group_norm_affine": lambda x: F.group_norm(x, 4, *params(x, x.shape[1])),
        "group_norm_weight": lambda x: F.group_norm(x, 1, params(x, x.shape[1])[0]),
        "layer_norm": lambda x: F.layer_norm(x, x.shape[-1:], *params(x, x.shape[-1])),
        "layer_norm_2": lambda x: F.layer_norm(x, x.shape[-2:]),
        "batch_norm_train": lambda x: F.batch_norm(
            x, lib.zeros(4, dtype=x.dtype), lib.ones(4, dtype=x.dtype), *params(x, 4), training=True
        ),
        "batch_norm_no_stats": lambda x: F.batch_norm(x, None, None, training=True),
        "batch_norm_eval": lambda x: F.batch_norm(
            x,
            lib.linspace(-1, 1, 4, dtype=x.dtype),
            lib.linspace(1, 2, 4, dtype=x.dtype),
            *params(x, 4),
        ),
        "instance_norm": lambda x: F.instance_norm(x, weight=params(x, 4)[0]),
    }


def _applies(name, layout):
    shape = LAYOUTS[layout][0]
    if name.startswith("instance_norm"):  # (one spatial element: both refuse to train)
        return len(shape) > 2 and layout != "channels_last_hw1"
    return not (name == "layer_norm_2" and len(shape) < 3)


def _run(lib, name, layout, dtype, grad_layout, kind=None):
    """The output's strides and values, and (with ``grad_layout``) the input gradient's
    strides and values from ``autograd.grad``, and the leaf's ``.grad`` strides."""
    x = _input(lib, layout, dtype, kind)
    if grad_layout is None:
        y = _ops(lib)[name](x)
        return [y.stride(), _np(y)]
    x.requires_grad_()
    y = _ops(lib)[name](x)
    g = lib.cos(lib.arange(y.numel(), dtype=y.dtype)).view(y.shape)
    if grad_layout == "like_output":
        g = lib.empty_like(y).copy_(g)
    elif grad_layout == "channels_last" and y.dim() == 4:
        g = g.contiguous(memory_format=lib.channels_last)
    (gx,) = lib.autograd.grad(y, x, g, retain_graph=True)
    y.backward(g)
    return [y.stride(), _np(y), gx.stride(), _np(gx), x.grad.stride()]


def _compare(mine, theirs, dtype, gradient_values=True):
    tol = 1e-4 if dtype == "float32" else 1e-10
    assert mine[0] == theirs[0], f"output strides {mine[0]} != PyTorch's {theirs[0]}"
    np.testing.assert_allclose(mine[1], theirs[1], rtol=tol, atol=tol)
    if len(theirs) > 2:
        assert mine[2] == theirs[2], f"input gradient strides {mine[2]} != {theirs[2]}"
        if gradient_values:
            np.testing.assert_allclose(mine[3], theirs[3], rtol=tol, atol=tol)
        assert mine[4] == theirs[4], f"x.grad strides {mine[4]} != {theirs[4]}"


def test_the_reported_group_norm_case():
    for lib in (jtensor, torch):
        x = lib.randn(2, 4, 8).permute(0, 2, 1).view(2, 8, 2, 2)
        assert x.stride() == (32, 1, 16, 8)
        assert lib.nn.functional.group_norm(x, 4).stride() == (32, 1, 16, 8)
        assert lib.nn.GroupNorm(4, 8)(x).stride() == (32, 1, 16, 8)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", sorted(_ops(torch)))
def test_forward_layouts_and_values(name, layout):
    if not _applies(name, layout):
        pytest.skip("the op does not take this rank")
    for dtype in ("float32", "float64"):
        _compare(
            _run(jtensor, name, layout, dtype, None), _run(torch, name, layout, dtype, None), dtype
        )


@pytest.mark.parametrize("grad_layout", ["contiguous", "like_output", "channels_last"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", sorted(_ops(torch)))
def test_gradient_layouts_and_values(name, layout, grad_layout):
    if not _applies(name, layout):
        pytest.skip("the op does not take this rank")
    # PyTorch 2.13's instance_norm gradient is wrong for one sample with a channels-last
    # incoming gradient (finite differences agree with jtensor's, and with PyTorch's own
    # batch_norm of the same reshaped input): only the layouts are compared there.
    pytorch_wrong = (name, layout, grad_layout) == (
        "instance_norm",
        "channels_last_n1",
        "channels_last",
    )
    _compare(
        _run(jtensor, name, layout, "float64", grad_layout),
        _run(torch, name, layout, "float64", grad_layout),
        "float64",
        gradient_values=not pytorch_wrong,
    )


@pytest.mark.parametrize("kind", ["odd_unit_strides", "sliced_channels_last"])
@pytest.mark.parametrize("name", sorted(_ops(torch)))
def test_unusual_strides(name, kind):
    for grad_layout in (None, "contiguous", "channels_last"):
        _compare(
            _run(jtensor, name, "contiguous", "float64", grad_layout, kind),
            _run(torch, name, "contiguous", "float64", grad_layout, kind),
            "float64",
        )


@pytest.mark.parametrize("layout", ["channels_last", "permuted", "channels_last_3d"])
@pytest.mark.parametrize(
    "name", ["group_norm", "group_norm_affine", "batch_norm_train", "layer_norm"]
)
def test_half_precision_inputs_keep_pytorchs_layout(name, layout):
    for kind in (None, "sliced_channels_last"):
        mine = _run(jtensor, name, layout, "float16", None, kind)
        theirs = _run(torch, name, layout, "float16", None, kind)
        assert mine[0] == theirs[0]
        np.testing.assert_allclose(mine[1], theirs[1], rtol=2e-2, atol=2e-2)


def test_empty_inputs():
    for lib in (jtensor, torch):
        lib.manual_seed(0)
    shapes = {}
    for lib in (jtensor, torch):
        F = lib.nn.functional
        x = lib.ones(0, 4, 3, 2).contiguous(memory_format=lib.channels_last)
        shapes[lib] = [
            F.group_norm(x, 2).stride(),
            F.layer_norm(x, (2,)).stride(),
            F.batch_norm(x, None, None, training=True).stride(),
        ]
    assert shapes[jtensor] == shapes[torch]


@cuda_skip("the oracle draws from PyTorch's CPU generator")
def test_dropout_after_group_norm_draws_as_pytorch():
    """What the layout changed in a diffusion model: dropout's numbers follow memory order."""
    out = []
    for lib in (jtensor, torch):
        lib.manual_seed(0)
        x = lib.randn(2, 8, 3, 3).contiguous(memory_format=lib.channels_last)
        norm = lib.nn.GroupNorm(4, 8)
        y = lib.nn.functional.dropout(lib.nn.functional.silu(norm(x)), 0.5)
        out.append(_np(y))
    np.testing.assert_allclose(out[0], out[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "layout", ["channels_last", "permuted", "channels_last_3d", "transposed_2d"]
)
def test_group_norm_gradcheck_on_permuted_inputs(layout):
    x = _input(jtensor, layout).requires_grad_()
    C = x.shape[1]
    w = jtensor.linspace(0.5, 1.5, C, dtype=jtensor.float64).requires_grad_()
    b = jtensor.linspace(-1, 1, C, dtype=jtensor.float64).requires_grad_()

    def fn(x, w, b):
        return jtensor.nn.functional.group_norm(x, 2, w, b)

    assert jtensor.autograd.gradcheck(fn, (x, w, b))
    assert jtensor.autograd.gradgradcheck(fn, (x, w, b))
    assert fn(x, w, b).grad_fn.name() == "NativeGroupNormBackward0"


GROUP_NORM_ERRORS = {
    "zero groups": lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4, 3), 0),
    "negative groups": lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4, 3), -2),
    "one value per group": lambda lib: lib.nn.functional.group_norm(lib.ones(1, 2, 1), 2),
    "bias shape": lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4, 3), 2, None, lib.ones(3)),
    "bias shape with weight": lambda lib: lib.nn.functional.group_norm(
        lib.ones(2, 4, 3), 2, lib.ones(4), lib.ones(3)
    ),
    "weight shape": lambda lib: lib.nn.functional.group_norm(lib.ones(2, 4, 3), 2, lib.ones(2, 2)),
}


@pytest.mark.parametrize("case", sorted(GROUP_NORM_ERRORS))
def test_group_norm_errors(case):
    with pytest.raises(Exception) as theirs:
        GROUP_NORM_ERRORS[case](torch)
    with pytest.raises(type(theirs.value)) as mine:
        GROUP_NORM_ERRORS[case](jtensor)
    assert str(mine.value) == str(theirs.value)
