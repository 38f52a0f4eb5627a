"""linear_cross_entropy, LinearCrossEntropyLoss and LinearCrossEntropyOptions against
PyTorch 2.13: the reference and chunked paths (values, gradients, node names), K-dimensional
weights, probability targets, the option checks and chunk-size resolution, the module's
parameters, init, repr and errors."""

import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _run(lib, xs, ws, target, bias=None, options=None, **kw):
    x = lib.tensor(xs, requires_grad=True)
    w = lib.tensor(ws, requires_grad=True)
    b = None if bias is None else lib.tensor(bias, requires_grad=True)
    opts = None if options is None else lib.nn.LinearCrossEntropyOptions(**options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = lib.nn.functional.linear_cross_entropy(
            x, w, lib.tensor(target), linear_bias=b, options=opts, **kw
        )
    leaves = [t for t in (x, w, b) if t is not None]
    grads = lib.autograd.grad(loss.sum(), leaves)
    return (
        loss.detach().cpu().numpy(),
        [g.cpu().numpy() for g in grads],
        type(loss.grad_fn).__name__,
    )


CASES = [
    ({}, {}),
    ({}, {"reduction": "none"}),
    ({"batch_chunk_size": 3}, {}),
    ({"batch_chunk_size": 4, "chunking_method": None}, {"reduction": "sum"}),
    ({"chunking_method": "aspect_ratio"}, {"reduction": "none", "ignore_index": -100}),
    (None, {"label_smoothing": 0.1}),
    ({}, {"label_smoothing": 0.1}),  # falls back to the reference path, with a warning
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_pytorch(case, dtype):
    options, kw = CASES[case]
    rng = np.random.default_rng(case)
    xs, ws = rng.standard_normal((10, 4)).astype(dtype), rng.standard_normal((7, 4)).astype(dtype)
    bias = rng.standard_normal(7).astype(dtype)
    target = rng.integers(0, 7, 10)
    target[3] = -100
    weight = rng.random(7).astype(dtype) + 0.5
    tol = 1e-10 if dtype == "float64" else 1e-5
    for extra in ({}, {"weight": weight}):
        args = {**kw, **({"weight": None} if not extra else {})}
        ours = _run(
            jtensor,
            xs,
            ws,
            target,
            bias,
            options,
            **{**args, **({"weight": jtensor.tensor(weight)} if extra else {})},
        )
        theirs = _run(
            torch,
            xs,
            ws,
            target,
            bias,
            options,
            **{**args, **({"weight": torch.tensor(weight)} if extra else {})},
        )
        np.testing.assert_allclose(ours[0], theirs[0], rtol=tol, atol=tol)
        for a, b in zip(ours[1], theirs[1], strict=True):
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
        assert ours[2] == theirs[2]


def test_k_dimensional_weights_probabilities_and_unbatched():
    rng = np.random.default_rng(0)
    xs, ws = rng.standard_normal((5, 3)), rng.standard_normal((4, 2, 3))
    bias = rng.standard_normal((4, 2))
    target = rng.integers(0, 4, (5, 2))
    ours, theirs = _run(jtensor, xs, ws, target, bias), _run(torch, xs, ws, target, bias)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    for a, b in zip(ours[1], theirs[1], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert ours[2] == theirs[2]
    probs = rng.random((5, 4))
    probs /= probs.sum(1, keepdims=True)
    ours = _run(jtensor, xs, ws[:, 0], probs)
    theirs = _run(torch, xs, ws[:, 0], probs)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    ours = _run(jtensor, xs[0], ws[:, 0], np.int64(2), options={}, reduction="none")
    theirs = _run(torch, xs[0], ws[:, 0], np.int64(2), options={}, reduction="none")
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
    assert ours[0].shape == theirs[0].shape


def _error_of(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 (the type is what is compared)
        return type(e)
    return None


BAD = [
    lambda lib: lib.nn.LinearCrossEntropyOptions(acc_policy="fast"),
    lambda lib: lib.nn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:0"),
    lambda lib: lib.nn.LinearCrossEntropyOptions(batch_chunk_size=0),
    lambda lib: lib.nn.LinearCrossEntropyOptions(acc_dtype=lib.int32),
    lambda lib: lib.nn.functional.linear_cross_entropy(
        lib.zeros(6, 4),
        lib.zeros(5, 4),
        lib.zeros(6, dtype=lib.long),
        options=lib.nn.LinearCrossEntropyOptions(
            batch_chunk_size=2, chunking_method="aspect_ratio"
        ),
    ),
    lambda lib: lib.nn.functional.linear_cross_entropy(
        lib.zeros(6, 3), lib.zeros(5, 4), lib.zeros(6, dtype=lib.long)
    ),
    lambda lib: lib.nn.functional.linear_cross_entropy(
        lib.zeros(4), lib.zeros(5, 2, 4), lib.zeros((), dtype=lib.long)
    ),
    lambda lib: lib.nn.functional.linear_cross_entropy(
        lib.zeros(6, 4), lib.zeros(5, 4), lib.zeros(6, dtype=lib.long), linear_bias=lib.zeros(4)
    ),
    lambda lib: lib.nn.functional.linear_cross_entropy(
        lib.zeros(6, 4), lib.zeros(5, 4), lib.zeros(6, 5), ignore_index=1
    ),
    lambda lib: lib.nn.LinearCrossEntropyLoss(4, 5, weight=lib.ones(3)),
    lambda lib: lib.nn.LinearCrossEntropyLoss(4, 5, label_smoothing=1.5),
]


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_arguments_raise_like_pytorch(case):
    expected = _error_of(lambda: BAD[case](torch))
    assert expected is not None and _error_of(lambda: BAD[case](jtensor)) is expected


def test_options_are_pytorchs_frozen_dataclass():
    for kw in ({}, {"batch_chunk_size": 3, "acc_policy": "balanced"}):
        ours, theirs = (
            jtensor.nn.LinearCrossEntropyOptions(**kw),
            torch.nn.LinearCrossEntropyOptions(**kw),
        )
        assert repr(ours) == repr(theirs)
    opts = jtensor.nn.LinearCrossEntropyOptions()
    with pytest.raises(AttributeError):
        opts.batch_chunk_size = 2
    assert opts == jtensor.nn.LinearCrossEntropyOptions() and hash(opts)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"bias": True, "out_features": (2, 3)},
        {"options": "opts", "reduction": "sum", "ignore_index": 1},
    ],
)
def test_module_matches_pytorch(kw):
    runs = []
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((6, 4)).astype(np.float32)
    shape = (6,) + tuple(kw.get("out_features", ()))
    target = rng.integers(0, 5, shape)
    for lib in (jtensor, torch):
        args = dict(kw)
        if args.get("options") == "opts":
            args["options"] = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
        lib.manual_seed(0)
        m = lib.nn.LinearCrossEntropyLoss(4, 5, **args)
        loss = m(lib.tensor(xs), lib.tensor(target))
        loss.backward()
        runs.append(
            (
                repr(m),
                [n for n, _ in m.named_parameters()],
                loss.item(),
                m.linear.weight.grad.cpu().numpy(),
                m.linear.weight.detach().cpu().numpy(),
            )
        )
    (r1, n1, l1, g1, w1), (r2, n2, l2, g2, w2) = runs
    assert (r1, n1) == (r2, n2)
    np.testing.assert_allclose(w1, w2, rtol=1e-6)  # PyTorch's initial draws
    np.testing.assert_allclose(l1, l2, rtol=1e-5)
    np.testing.assert_allclose(g1, g2, rtol=1e-5, atol=1e-6)


def test_second_backward_of_the_chunked_scalar_loss_as_pytorch():
    outcomes = []
    for lib in (jtensor, torch):
        x = lib.tensor(np.ones((6, 4)), requires_grad=True)
        w = lib.tensor(np.ones((5, 4)), requires_grad=True)
        t = lib.tensor([0, 1, 2, 3, 4, 0])
        row = []
        for allow, reduction in ((False, "mean"), (True, "sum"), (False, "none")):
            opts = lib.nn.LinearCrossEntropyOptions(allow_retain_graph=allow)
            loss = lib.nn.functional.linear_cross_entropy(
                x, w, t, options=opts, reduction=reduction
            ).sum()
            loss.backward(retain_graph=True)
            row.append(_error_of(loss.backward))
        outcomes.append(row)
    assert outcomes[0] == outcomes[1] == [RuntimeError, None, None]
