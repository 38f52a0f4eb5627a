"""torch.func's linearize, functionalize and replace_all_batch_norm_modules_ against PyTorch."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _np(t):
    return t.detach().cpu().numpy()


def test_linearize_value_and_jvp_function():
    def f(x, y):
        return (x.sin() * y).sum(0), x * y

    outs = []
    for lib in (jtensor, torch):
        x = lib.tensor([[0.5, 1.0], [2.0, -1.0]], dtype=lib.float64)
        y = lib.tensor([1.5, -0.5], dtype=lib.float64)
        value, fn = lib.func.linearize(f, x, y)
        tangents = fn(lib.ones(2, 2, dtype=lib.float64), lib.full((2,), 2.0, dtype=lib.float64))
        outs.append([_np(t) for t in (*value, *tangents)])
    for a, b in zip(*outs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("bad", ["shape", "count", "dtype"])
def test_linearize_checks_its_tangents_as_pytorch(bad):
    for lib in (jtensor, torch):
        _, fn = lib.func.linearize(lib.sin, lib.tensor([1.0, 2.0]))
        args = {"shape": (lib.ones(3),), "count": (lib.ones(2), lib.ones(2)),
                "dtype": (lib.ones(2, dtype=lib.float64),)}[bad]
        with pytest.raises(RuntimeError, match="tangent|argspec"):
            fn(*args)


def test_functionalize_gives_the_same_results_and_checks_its_mode():
    def f(a):
        b = a.clone()
        b.add_(1)
        a.mul_(2)
        return b * 2

    for lib in (jtensor, torch):
        x = lib.tensor([1.0, 2.0])
        assert lib.func.functionalize(f)(x).tolist() == [4.0, 6.0]
        assert x.tolist() == [2.0, 4.0]   # the input's mutation is kept
        with pytest.raises(RuntimeError, match="invalid argument for remove=x"):
            lib.func.functionalize(f, remove="x")


def test_replace_all_batch_norm_modules_drops_running_stats():
    for lib in (jtensor, torch):
        m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
        assert lib.func.replace_all_batch_norm_modules_(m) is m
        bn = m[1]
        assert (bn.running_mean, bn.running_var, bn.num_batches_tracked,
                bn.track_running_stats) == (None, None, None, False)
        assert tuple(m(lib.randn(4, 2)).shape) == (4, 2)
