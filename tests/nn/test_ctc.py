"""CTC loss against PyTorch: values, gradients (through the log-softmax, as PyTorch's
gradient is meant) and ``grad_fn`` names for padded and concatenated targets, every
reduction, ``blank``, ``zero_infinity``, impossible alignments, lengths as lists or tensors,
unbatched input and the module; bad arguments raise PyTorch's exception types."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _run(lib, x, targets, input_lengths, target_lengths, as_tensors=False, **kw):
    xt = lib.tensor(x, requires_grad=True)
    lp = xt.log_softmax(-1)
    if as_tensors:
        input_lengths = lib.tensor(input_lengths)
        target_lengths = lib.tensor(target_lengths)
    loss = lib.nn.functional.ctc_loss(lp, lib.tensor(targets), input_lengths, target_lengths, **kw)
    loss.backward(lib.ones_like(loss))
    return (loss.detach().cpu().numpy(), xt.grad.cpu().numpy(), type(loss.grad_fn).__name__)


def _targets(rng, batch, width, classes, blank):
    labels = [c for c in range(classes) if c != blank]
    return np.asarray(labels)[rng.integers(0, len(labels), (batch, width))]


CASES = [
    # (T, N, C, width, input_lengths, target_lengths, kwargs)
    (10, 3, 5, 4, [10, 7, 5], [4, 2, 3], {}),
    (10, 3, 5, 4, [10, 7, 5], [4, 2, 3], {"reduction": "sum"}),
    (10, 3, 5, 4, [10, 7, 5], [4, 0, 3], {"reduction": "none"}),
    (12, 4, 6, 5, [12, 9, 5, 1], [5, 3, 4, 0], {"reduction": "none", "blank": 3}),
    (12, 4, 6, 5, [12, 9, 5, 1], [5, 3, 4, 0], {"reduction": "mean", "blank": 5}),
    # the third sample cannot align (4 labels in 3 steps): inf, or 0 with zero_infinity
    (6, 3, 4, 4, [6, 5, 3], [3, 2, 4], {"reduction": "none"}),
    (6, 3, 4, 4, [6, 5, 3], [3, 2, 4], {"reduction": "none", "zero_infinity": True}),
    (6, 3, 4, 4, [6, 5, 3], [3, 2, 4], {"reduction": "mean", "zero_infinity": True}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("as_tensors", [False, True])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_ctc_loss_matches_pytorch(case, as_tensors, dtype):
    t, n, c, width, il, tl, kw = CASES[case]
    rng = np.random.default_rng(case)
    x = rng.standard_normal((t, n, c)).astype(dtype)
    tg = _targets(rng, n, width, c, kw.get("blank", 0))
    # repeated labels need a blank between them: the alignments PyTorch counts differ
    tg[0, :2] = tg[0, 0]
    ours = _run(jtensor, x, tg, il, tl, as_tensors, **kw)
    theirs = _run(torch, x, tg, il, tl, as_tensors, **kw)
    tol = 1e-9 if dtype == "float64" else 2e-5
    np.testing.assert_allclose(ours[0], theirs[0], rtol=tol, atol=tol)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=tol, atol=tol)
    assert ours[2] == theirs[2]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_concatenated_and_unbatched_targets(reduction):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((7, 2, 4))
    flat = [1, 2, 3, 3, 1]
    for lib_args in [((flat, [7, 5], [3, 2]), {}), ((flat[:3], [7], [3]), {"unbatched": True})]:
        (tg, il, tl), opts = lib_args
        xx = x[:, 0] if opts else x
        ours = _run(jtensor, xx, tg, il, tl, reduction=reduction)
        theirs = _run(torch, xx, tg, il, tl, reduction=reduction)
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-10)
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12)
        assert ours[2] == theirs[2]


def test_ctc_module_and_training_step():
    assert repr(jtensor.nn.CTCLoss()) == repr(torch.nn.CTCLoss())
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 5)) * 0.5
    feats = rng.standard_normal((9, 2, 3))
    results = []
    for lib in (jtensor, torch):
        weight = lib.tensor(w, requires_grad=True)
        crit = lib.nn.CTCLoss(blank=4, reduction="mean", zero_infinity=True)
        assert (crit.blank, crit.reduction, crit.zero_infinity) == (4, "mean", True)
        opt = lib.optim.SGD([weight], lr=0.5)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            lp = (lib.tensor(feats) @ weight).log_softmax(2)
            loss = crit(lp, lib.tensor([[0, 1, 2], [3, 3, 0]]), [9, 8], [3, 2])
            loss.backward()
            opt.step()
            losses.append(loss.item())
        results.append((losses, weight.detach().cpu().numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10)


def _error_of(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 (the type is what is compared)
        return type(e)
    return None


BAD = [
    lambda lib, lp, tg: lib.nn.functional.ctc_loss(lp, tg, [7, 5], [3, 2], blank=-1),
    lambda lib, lp, tg: lib.nn.functional.ctc_loss(lp, tg, [8, 5], [3, 2]),
    lambda lib, lp, tg: lib.nn.functional.ctc_loss(lp, tg, [7, -1], [3, 2]),
    lambda lib, lp, tg: lib.nn.functional.ctc_loss(lp, tg, [7, 5], [3, -2]),
    lambda lib, lp, tg: lib.nn.functional.ctc_loss(lp, tg, [7, 5, 5], [3, 2]),
    lambda lib, lp, tg: lib.nn.functional.ctc_loss(lp, tg, [7, 5], [3]),
    lambda lib, lp, tg: lib.nn.functional.ctc_loss(lp, tg, [7, 5], [5, 2]),
    lambda lib, lp, tg: lib.nn.functional.ctc_loss(lp, tg.reshape(-1)[:4], [7, 5], [3, 2]),
    lambda lib, lp, tg: lib.nn.functional.ctc_loss(lp, tg, lib.tensor([7.0, 5.0]), [3, 2]),
    lambda lib, lp, tg: lib.nn.functional.ctc_loss(
        lp, tg, lib.tensor([7.0, 5.0]), lib.tensor([3, 2])
    ),
    lambda lib, lp, tg: lib.nn.functional.ctc_loss(lp, tg, [7, 5], [3, 2], reduction="avg"),
    lambda lib, lp, tg: lib.nn.functional.ctc_loss(lp.long(), tg, [7, 5], [3, 2]),
    lambda lib, lp, tg: lib.nn.functional.ctc_loss(lp, tg, 7, 3),
]


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_arguments_raise_like_pytorch(case):
    x = np.random.default_rng(0).standard_normal((7, 2, 4))
    tg = [[1, 2, 3], [2, 2, 0]]
    expected = _error_of(lambda: BAD[case](torch, torch.tensor(x).log_softmax(2), torch.tensor(tg)))
    assert expected is not None
    lp = jtensor.tensor(x).log_softmax(2)
    got = _error_of(lambda: BAD[case](jtensor, lp, jtensor.tensor(tg)))
    assert got is expected
