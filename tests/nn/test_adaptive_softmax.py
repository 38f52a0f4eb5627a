"""AdaptiveLogSoftmaxWithLoss against PyTorch: parameters and their initial draws, repr,
``(output, loss)`` values, gradients and node names (batched and unbatched), ``log_prob``,
``predict`` and PyTorch's errors."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _make(lib, *args, **kw):
    lib.manual_seed(0)
    return lib.nn.AdaptiveLogSoftmaxWithLoss(*args, **kw)


@pytest.mark.parametrize("kw", [{}, {"div_value": 2.0, "head_bias": True}])
def test_matches_pytorch(kw):
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((9, 64)).astype(np.float32)
    target = np.array([0, 3, 5, 9, 14, 19, 2, 12, 7])
    runs = []
    for lib in (jtensor, torch):
        m = _make(lib, 64, 20, [5, 10, 15], **kw)
        x = lib.tensor(xs, requires_grad=True)
        out = m(x, lib.tensor(target))
        out.loss.backward()
        single = m(x[0].detach(), lib.tensor(target[0]))
        runs.append(
            {
                "repr": repr(m),
                "names": [n for n, _ in m.named_parameters()],
                "params": [p.detach().cpu().numpy() for p in m.parameters()],
                "output": out.output.detach().cpu().numpy(),
                "loss": out.loss.item(),
                "nodes": (type(out.output.grad_fn).__name__, type(out.loss.grad_fn).__name__),
                "x_grad": x.grad.cpu().numpy(),
                "p_grads": [p.grad.cpu().numpy() for p in m.parameters()],
                "single": (single.output.item(), tuple(single.output.shape)),
                "log_prob": m.log_prob(x.detach()).detach().cpu().numpy(),
                "predict": m.predict(x.detach()).cpu().numpy(),
                "fields": type(out)._fields,
            }
        )
    ours, theirs = runs
    for key in ("repr", "names", "nodes", "fields"):
        assert ours[key] == theirs[key], key
    for key in ("output", "loss", "x_grad", "log_prob"):
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5, atol=1e-6, err_msg=key)
    for a, b in zip(
        ours["params"] + ours["p_grads"], theirs["params"] + theirs["p_grads"], strict=True
    ):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(ours["predict"], theirs["predict"])
    np.testing.assert_allclose(ours["single"][0], theirs["single"][0], rtol=1e-5)
    assert ours["single"][1] == theirs["single"][1]


def _error_of(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 (the type is what is compared)
        return type(e)
    return None


BAD = [
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 3]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 10]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 4]),
    lambda lib: _make(lib, 8, 10, [4])(lib.zeros(3, 8), lib.tensor([1, 2])),
    lambda lib: _make(lib, 8, 10, [4])(lib.zeros(3, 8), lib.tensor([1, 2, 10])),
    lambda lib: _make(lib, 8, 10, [4])(lib.zeros(2, 3, 8), lib.tensor([1, 2])),
    lambda lib: _make(lib, 8, 10, [4])(lib.zeros(3, 8), lib.tensor([[1, 2, 3]])),
    lambda lib: _make(lib, 8, 10, [4])(lib.zeros(3, 8), lib.tensor(1)),
]


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_arguments_raise_like_pytorch(case):
    expected = _error_of(lambda: BAD[case](torch))
    assert expected is not None and _error_of(lambda: BAD[case](jtensor)) is expected
