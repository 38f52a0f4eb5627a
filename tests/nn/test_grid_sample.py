"""grid_sample and affine_grid against PyTorch: every mode, padding mode and
``align_corners`` in 2-d and 3-d, values and both gradients (float64 and float32), grid
values on the edges, outside and NaN, second derivatives, PyTorch's warnings, and a spatial
transformer step (affine_grid then grid_sample) trained side by side."""

import itertools
import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

MODES = ["bilinear", "nearest", "bicubic"]
PADDINGS = ["zeros", "border", "reflection"]


def _run(lib, xs, gs, **kw):
    x = lib.tensor(xs, requires_grad=True)
    g = lib.tensor(gs, requires_grad=True)
    y = lib.nn.functional.grid_sample(x, g, **kw)
    go = np.random.default_rng(5).standard_normal(tuple(y.shape)).astype(xs.dtype)
    y.backward(lib.tensor(go))
    return (
        y.detach().cpu().numpy(),
        x.grad.cpu().numpy(),
        g.grad.cpu().numpy(),
        type(y.grad_fn).__name__,
        tuple(y.stride()),
    )


def _assert_same(xs, gs, tol, **kw):
    ours, theirs = _run(jtensor, xs, gs, **kw), _run(torch, xs, gs, **kw)
    for a, b in zip(ours[:3], theirs[:3], strict=True):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    assert ours[3:] == theirs[3:]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    "mode,padding_mode,align_corners", list(itertools.product(MODES, PADDINGS, [False, True]))
)
def test_grid_sample_matches_pytorch(mode, padding_mode, align_corners, dtype):
    rng = np.random.default_rng(0)
    tol = 1e-9 if dtype == "float64" else 1e-4
    kw = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    xs = rng.standard_normal((2, 3, 5, 6)).astype(dtype)
    gs = (rng.random((2, 4, 7, 2)) * 3 - 1.5).astype(dtype)
    _assert_same(xs, gs, tol, **kw)
    if mode != "bicubic":  # PyTorch's bicubic is 4-d only
        xs = rng.standard_normal((2, 3, 4, 5, 6)).astype(dtype)
        gs = (rng.random((2, 3, 4, 2, 3)) * 3 - 1.5).astype(dtype)
        _assert_same(xs, gs, tol, **kw)


@pytest.mark.parametrize(
    "mode,padding_mode,align_corners", list(itertools.product(MODES, PADDINGS, [False, True]))
)
def test_grid_values_on_edges_and_outside(mode, padding_mode, align_corners):
    values = np.array([-1, 1, 0, -1.5, 1.5, 3.2, -7.1, 0.5, -0.5, 1 / 3])
    gs = np.stack(np.meshgrid(values, values), -1)[None]
    for shape in [(1, 2, 4, 5), (1, 2, 1, 5)]:
        xs = np.random.default_rng(1).standard_normal(shape)
        _assert_same(
            xs, gs, 1e-9, mode=mode, padding_mode=padding_mode, align_corners=align_corners
        )


def test_nan_grid_values_read_as_pytorch():
    xs = np.random.default_rng(1).standard_normal((1, 1, 3, 3))
    results = []
    for lib in (jtensor, torch):
        g = lib.tensor([[[[float("nan"), 0.2]]]], dtype=lib.float64)
        results.append(
            [
                lib.nn.functional.grid_sample(
                    lib.tensor(xs), g, mode=m, padding_mode=p, align_corners=False
                ).item()
                for m in MODES
                for p in PADDINGS
            ]
        )
    np.testing.assert_array_equal(results[0], results[1])


def test_second_derivatives_match_pytorch():
    rng = np.random.default_rng(3)
    xs, gs = rng.standard_normal((1, 2, 4, 5)), rng.random((1, 3, 3, 2)) * 2 - 1
    grads = []
    for lib in (jtensor, torch):
        x = lib.tensor(xs, requires_grad=True)
        g = lib.tensor(gs, requires_grad=True)
        y = lib.nn.functional.grid_sample(x, g, padding_mode="border", align_corners=False)
        gx, gg = lib.autograd.grad((y * y).sum(), (x, g), create_graph=True)
        penalty = (gx**2).sum() + (gg**2).sum()
        grads.append([t.detach().cpu().numpy() for t in lib.autograd.grad(penalty, (x, g))])
    for a, b in zip(*grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_align_corners_default_warns_as_pytorch():
    x, g = jtensor.zeros(1, 1, 2, 2), jtensor.zeros(1, 1, 1, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        jtensor.nn.functional.grid_sample(x, g)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        jtensor.nn.functional.affine_grid(jtensor.zeros(1, 2, 3), [1, 1, 2, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jtensor.nn.functional.grid_sample(x, g, align_corners=False)
    assert (
        jtensor.nn.functional.GRID_SAMPLE_INTERPOLATION_MODES
        == torch.nn.functional.GRID_SAMPLE_INTERPOLATION_MODES
    )
    assert (
        jtensor.nn.functional.GRID_SAMPLE_PADDING_MODES
        == torch.nn.functional.GRID_SAMPLE_PADDING_MODES
    )


@pytest.mark.parametrize("size", [[2, 3, 4, 5], [2, 3, 1, 5], [1, 2, 3, 4, 5], [2, 1, 1, 1, 3]])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_pytorch(size, align_corners):
    theta = np.random.default_rng(2).standard_normal(
        (size[0],) + ((2, 3) if len(size) == 4 else (3, 4))
    )
    res = []
    for lib in (jtensor, torch):
        t = lib.tensor(theta, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the unit-size warning: compared below
            grid = lib.nn.functional.affine_grid(t, size, align_corners=align_corners)
        go = np.random.default_rng(0).standard_normal(tuple(grid.shape))
        grid.backward(lib.tensor(go))
        res.append(
            (
                grid.detach().cpu().numpy(),
                t.grad.cpu().numpy(),
                type(grid.grad_fn).__name__,
                tuple(grid.stride()),
            )
        )
    (a, b) = res
    np.testing.assert_allclose(a[0], b[0], atol=1e-12)
    np.testing.assert_allclose(a[1], b[1], atol=1e-12)
    assert a[2:] == b[2:]


def test_spatial_transformer_step_matches_pytorch():
    rng = np.random.default_rng(4)
    img = rng.standard_normal((2, 3, 6, 6))
    target = rng.standard_normal((2, 3, 5, 5))
    theta0 = np.tile(np.array([[1.0, 0.1, 0.0], [-0.1, 0.9, 0.1]]), (2, 1, 1))
    runs = []
    for lib in (jtensor, torch):
        theta = lib.tensor(theta0, requires_grad=True)
        opt = lib.optim.SGD([theta], lr=0.1)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            grid = lib.nn.functional.affine_grid(theta, [2, 3, 5, 5], align_corners=False)
            out = lib.nn.functional.grid_sample(
                lib.tensor(img), grid, align_corners=False, padding_mode="reflection"
            )
            loss = ((out - lib.tensor(target)) ** 2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        runs.append((losses, theta.detach().cpu().numpy()))
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-10)
    np.testing.assert_allclose(runs[0][1], runs[1][1], rtol=1e-10)
