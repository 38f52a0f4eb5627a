"""cross_entropy / nll_loss's fast paths (issue 18: a training step's loss).

``loss._plain_class_call`` lets a 2-D call without weight, legacy arguments or label smoothing
skip the argument checks it passes for certain; ``loss._nll_forward_fast`` computes
``NllLossBackward0``'s forward where no target is ignored and no weight is given (the weights
would all be ones), ``loss._nll_backward_fast`` its plain backward of a reduced loss (one
coefficient for every target); ``_class_targets`` checks bounds with one unsigned maximum.
Everything observable must be the general path's (``loss.FAST_PATHS = False``) bit for bit:
outputs, gradients (a first and a second backward, ``create_graph`` and a double backward),
every node's saved values (``_saved_self``, ``_saved_target``, ``_saved_total_weight``,
``_saved_weight``...), node names and edges, errors (type, message, which comes first) and
floating-point warnings. Each test counts what the fast paths took and declined.
"""

import warnings

import numpy as np
import pytest

import jtensor
import jtensor.nn.functional as JF
from jtensor.nn._functional import loss

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = TF = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")

C = 5
SHAPES = {"1d": (C,), "2d": (6, C), "3d": (3, C, 4), "4d": (2, C, 3, 2)}
# target kind -> (ignore_index, what replaces some targets, or None)
TARGETS = {
    "plain": (-100, None),
    "ignored_default": (-100, -100),  # some targets are the default ignore_index
    "ignored_custom": (2, 2),  # a custom ignore_index inside [0, C), some targets on it
    "custom_outside": (7, None),  # a custom ignore_index outside [0, C), none ignored
    "ignored_negative": (-1, -1),
}
FNS = ["ce", "ce_smooth", "nll", "nll_raw"]
REDUCTIONS = ["none", "mean", "sum"]
TOL = {"float32": 1e-5, "float64": 1e-10}


@pytest.fixture
def counts(monkeypatch):
    """``{"front": [taken, declined], "forward": [...], "backward": [...]}``: the calls of
    ``_plain_class_call`` (True: taken), ``_nll_forward_fast`` and ``_nll_backward_fast``
    (None: declined; one that raises counts as taken)."""
    seen = {"front": [0, 0], "forward": [0, 0], "backward": [0, 0]}

    def counted(name, fn, declined):
        def run(*args):
            try:
                result = fn(*args)
            except Exception:  # (a warning made an error: the path was taken)
                seen[name][0] += 1
                raise
            seen[name][declined(result)] += 1
            return result

        return run

    monkeypatch.setattr(
        loss,
        "_plain_class_call",
        counted("front", loss._plain_class_call, lambda r: not r),
    )
    for name in ("forward", "backward"):
        attr = f"_nll_{name}_fast"
        monkeypatch.setattr(loss, attr, counted(name, getattr(loss, attr), lambda r: r is None))
    return seen


def _data(shape, kind, seed=0):
    """Logits, class-index targets (with some replaced as ``kind`` says), a class weight and
    an incoming gradient for each reduction."""
    gen = np.random.default_rng(seed)
    x = gen.standard_normal(shape) * 2
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    t = gen.integers(0, C, tshape)
    t.reshape(-1)[: t.size // 2] = np.arange(t.size // 2) % C  # every class, some twice
    ignore_index, replace = TARGETS[kind]
    if replace is not None:
        if t.ndim == 0:
            t = np.array(replace)
        else:
            t.reshape(-1)[1::3] = replace
    w = gen.random(C) + 0.25
    g = gen.standard_normal(tshape)
    return x, t, w, g, ignore_index


def _call(lib, fn, x, t, w, ignore_index, reduction):
    F = lib.nn.functional
    if fn == "ce":
        return F.cross_entropy(x, t, w, ignore_index=ignore_index, reduction=reduction)
    if fn == "ce_smooth":
        return F.cross_entropy(
            x, t, w, ignore_index=ignore_index, reduction=reduction, label_smoothing=0.2
        )
    logp = F.log_softmax(x, 0 if x.dim() == 1 else 1) if fn == "nll" else x
    return F.nll_loss(logp, t, w, ignore_index=ignore_index, reduction=reduction)


def _bits(t):
    if t is None:
        return None
    if not isinstance(t, jtensor.Tensor):
        return t
    return (tuple(t.shape), t.stride(), str(t.dtype), t.detach().numpy().tobytes())


def _graph(y):
    """Every node under ``y``: its name, its edges and all its ``_saved_*`` values."""
    seen, out, todo = set(), [], [y.grad_fn]
    while todo:
        node = todo.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        edges = [(type(n).__name__ if n is not None else None, i) for n, i in node.next_functions]
        saved = {a: _bits(getattr(node, a)) for a in sorted(dir(node)) if a.startswith("_saved_")}
        out.append((type(node).__name__, edges, saved))
        todo.extend(n for n, _ in node.next_functions)
    return out


def _nll_node(y):
    todo = [y.grad_fn]
    while todo:
        node = todo.pop(0)
        if type(node).__name__.startswith("NllLoss"):
            return node
        todo.extend(n for n, _ in node.next_functions if n is not None)
    raise AssertionError("no NllLoss node")


def _jt_run(fn, case, kind, reduction, weighted, dtype, seed=0):
    """Everything observable of a call: its output, graph and saved values, gradients of a
    first and a second backward (``retain_graph``), of ``create_graph`` and a double
    backward, and of ``backward()`` on a second call."""
    a, tv, wv, gv, ignore_index = _data(SHAPES[case], kind, seed)
    dt = getattr(jtensor, dtype)
    x = jtensor.tensor(a, dtype=dt, requires_grad=True)
    t = jtensor.tensor(tv)
    w = jtensor.tensor(wv, dtype=dt) if weighted else None
    y = _call(jtensor, fn, x, t, w, ignore_index, reduction)
    g = jtensor.tensor(gv if reduction == "none" else 0.7, dtype=dt)
    node = _nll_node(y)
    graph = _graph(y)  # (before a double backward frees what it goes through)
    saved = [_bits(s) for s in node.saved_tensors]
    same = (node._saved_target is t, node._saved_weight is w)
    g1 = jtensor.autograd.grad(y, x, g, retain_graph=True)
    g2 = jtensor.autograd.grad(y, x, g, retain_graph=True)
    (gc,) = jtensor.autograd.grad(y, x, g, create_graph=True)
    # (nll_loss's gradient does not depend on its input: nothing to differentiate again)
    gg = jtensor.autograd.grad((gc * gc).sum(), x)[0] if gc.requires_grad else None
    y2 = _call(jtensor, fn, x, t, w, ignore_index, reduction)
    y2.backward(g)
    return {
        "out": _bits(y),
        "graph": graph,
        "saved": saved,
        "same": same,
        "grads": [_bits(v) for v in (*g1, *g2, gc, gg, x.grad)],
        "out2": _bits(y2),
    }


def _expected(fn, case, kind, reduction, weighted):
    """What ``_jt_run`` makes the fast paths take and decline (two forwards, three plain
    backwards through the loss node)."""
    front = [0, 0]
    if fn != "ce_smooth":
        taken = case == "2d" and not weighted
        front = [2, 0] if taken else [0, 2]
    forward = backward = [0, 0]
    if not weighted:
        fast = kind in ("plain", "custom_outside")
        forward = [2, 0] if fast else [0, 2]
        if fast:
            backward = [3, 0] if reduction != "none" else [0, 3]
    return {"front": front, "forward": forward, "backward": backward}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("weighted", [False, True], ids=["no_weight", "weight"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kind", list(TARGETS))
@pytest.mark.parametrize("case", list(SHAPES))
@pytest.mark.parametrize("fn", FNS)
def test_the_fast_paths_are_the_general_path_bit_for_bit(
    fn, case, kind, reduction, weighted, dtype, counts, monkeypatch
):
    fast = _jt_run(fn, case, kind, reduction, weighted, dtype)
    expected = _expected(fn, case, kind, reduction, weighted)
    assert counts == expected
    monkeypatch.setattr(loss, "FAST_PATHS", False)
    general = _jt_run(fn, case, kind, reduction, weighted, dtype)
    assert counts == expected  # (the switch keeps every fast path away)
    assert fast == general


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_a_non_contiguous_input(reduction, counts, monkeypatch):
    """Transposed logits: the log-probabilities are not C-contiguous, so the picked entries
    are found by (row, class) pairs instead of flat positions."""

    def run():
        a = np.random.default_rng(3).standard_normal((C, 7)).astype(np.float32)
        xt = jtensor.tensor(a, requires_grad=True)
        t = jtensor.tensor(np.arange(7) % C)
        y = JF.cross_entropy(xt.t(), t, reduction=reduction)
        graph = _graph(y)
        y.backward(jtensor.ones(y.shape) * 0.5)
        y2 = JF.nll_loss(xt.t(), t, reduction=reduction)
        graph2 = _graph(y2)
        y2.backward(jtensor.ones(y2.shape) * 0.5)
        return [_bits(v) for v in (y, y2, xt.grad)] + [graph, graph2]

    fast = run()
    assert counts["forward"] == [2, 0]
    monkeypatch.setattr(loss, "FAST_PATHS", False)
    assert run() == fast


@pytest.mark.parametrize("watch", ["node_hook", "prehook", "retain_grad", "anomaly"])
def test_a_watched_gradient_is_the_dense_one(watch, counts, monkeypatch):
    """Hooks, a retained gradient or anomaly mode see the gradient NllLoss hands to
    LogSoftmax: it is the real dense one on both paths (``_hand_sparse_grad``)."""

    def run():
        seen = []
        x = jtensor.tensor(
            np.random.default_rng(4).standard_normal((6, C)), dtype=jtensor.float32
        ).requires_grad_()
        t = jtensor.tensor([0, 1, 2, 3, 4, 0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # anomaly mode's announcement
            with jtensor.autograd.set_detect_anomaly(watch == "anomaly"):
                if watch == "retain_grad":
                    logp = JF.log_softmax(x, 1)
                    logp.retain_grad()
                    y = JF.nll_loss(logp, t)
                else:
                    y = JF.cross_entropy(x, t)
                nll = y.grad_fn
                if watch == "node_hook":
                    nll.register_hook(lambda gi, go: seen.append(_bits(gi[0])))
                elif watch == "prehook":
                    nll.next_functions[0][0].register_prehook(lambda go: seen.append(_bits(go[0])))
                y.backward()
        if watch == "retain_grad":
            seen.append(_bits(logp.grad))
        return seen, _bits(x.grad)

    fast = run()
    assert counts["forward"] == [1, 0] and counts["backward"] == [1, 0]
    if watch != "anomaly":
        assert fast[0] and fast[0][0][0] == (6, C)
    monkeypatch.setattr(loss, "FAST_PATHS", False)
    assert run() == fast


def test_saved_tensor_hooks_see_the_same_tensors(counts, monkeypatch):
    """Pack and unpack hooks are called for the same saved tensors, in the same order."""

    def run():
        log = []

        def pack(t):
            log.append(("pack", _bits(t)))
            return t

        def unpack(t):
            log.append(("unpack", _bits(t)))
            return t

        x = jtensor.tensor(np.linspace(-2, 2, 12).reshape(4, 3), requires_grad=True)
        t = jtensor.tensor([2, 0, 1, 1])
        with jtensor.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = JF.cross_entropy(x, t)
        y.backward()
        return log, _bits(x.grad)

    fast = run()
    assert counts["front"] == [1, 0] and counts["forward"] == [1, 0]
    assert counts["backward"] == [1, 0]
    monkeypatch.setattr(loss, "FAST_PATHS", False)
    assert run() == fast


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", ["1d", "2d", "4d"])
def test_the_target_is_kept_as_it_was(case, reduction, counts, monkeypatch):
    """A write into the target's memory that no version counts (through ``numpy()``) after
    the forward: the backward uses the targets of the forward, on both paths."""

    def run():
        a, tv, _, gv, _ = _data(SHAPES[case], "plain")
        x = jtensor.tensor(a, requires_grad=True)
        t = jtensor.tensor(tv)
        y = JF.cross_entropy(x, t, reduction=reduction)
        t.numpy()[...] = (tv + 1) % C
        y.backward(jtensor.tensor(gv if reduction == "none" else 0.7, dtype=x.dtype))
        return _bits(y), _bits(x.grad)

    fast = run()
    assert counts["forward"] == [1, 0]
    assert counts["backward"] == ([0, 1] if reduction == "none" else [1, 0])
    monkeypatch.setattr(loss, "FAST_PATHS", False)
    assert run() == fast


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("errors", [False, True], ids=["warn", "raise"])
def test_special_values(reduction, errors, counts, monkeypatch):
    """Infinities, NaNs (a signalling one too), signed zeros as log-probabilities and as
    incoming gradients: the same bits, the same floating-point warnings (or errors)."""
    snan = 0x7FA00001  # a signalling NaN's bits (NumPy's conversions would quiet it)

    def run():
        a = np.array(
            [[0.0, -1.0, 2.0], [-0.0, np.inf, 1.0], [np.nan, 3.0, -np.inf], [0.0, 1.5, 0.0]],
            dtype=np.float32,
        )
        a.view(np.uint32)[3, 0] = snan
        x = jtensor.tensor(a, requires_grad=True)
        assert x.detach().numpy().view(np.uint32)[3, 0] == snan
        t = jtensor.tensor([0, 1, 2, 0])
        gv = np.array([1.0, -0.0, 0.0, np.inf], dtype=np.float32)
        gv.view(np.uint32)[2] = snan
        result = []
        for k in range(4) if reduction == "none" else (0, 2, 3):
            x.grad = None
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("error" if errors else "always")
                try:
                    y = JF.nll_loss(x, t, reduction=reduction)
                    ga = np.empty(y.shape, dtype=np.float32)
                    ga.view(np.uint32)[...] = gv.view(np.uint32)[k]
                    y.backward(jtensor.tensor(ga))
                    result.append((_bits(y), _bits(x.grad)))
                except RuntimeWarning as e:
                    result.append(("raised", str(e)))
            result.append(sorted(str(c.message) for c in caught))
        return result

    fast = run()
    assert counts["forward"][0] > 0 and counts["forward"][1] == 0, (counts, fast)
    monkeypatch.setattr(loss, "FAST_PATHS", False)
    assert run() == fast


def test_more_targets_than_an_exact_float32_count_decline(counts, monkeypatch):
    """Past 2**24 targets a float32 sum of ones is no longer the count: the forward declines
    (the bound made small here, to see it)."""

    def run():
        x = jtensor.tensor(np.linspace(-2, 2, 12).reshape(4, 3), requires_grad=True)
        y = JF.cross_entropy(x, jtensor.tensor([2, 0, 1, 1]))
        y.backward()
        return _bits(y), _bits(x.grad)

    fast = run()
    assert counts["forward"] == [1, 0]
    monkeypatch.setattr(loss, "_EXACT_COUNT", 3)
    assert run() == fast
    assert counts["forward"] == [1, 1]


def test_uint8_targets_take_the_general_forward(counts, monkeypatch):
    def run():
        x = jtensor.tensor(np.linspace(-2, 2, 12).reshape(4, 3), requires_grad=True)
        y = JF.cross_entropy(x, jtensor.tensor([2, 0, 1, 1], dtype=jtensor.uint8))
        graph = _graph(y)
        y.backward()
        return _bits(y), _bits(x.grad), graph

    fast = run()
    assert counts == {"front": [0, 1], "forward": [0, 1], "backward": [0, 0]}
    monkeypatch.setattr(loss, "FAST_PATHS", False)
    assert run() == fast


@pytest.mark.parametrize("ignore_index", [-100, -1, 0, 3, 7])
def test_class_targets_bounds_check(ignore_index, monkeypatch):
    """``_class_targets``'s one-maximum bounds check: the same masks and indices, or the
    same error, as the general check."""
    gen = np.random.default_rng(5)
    arrays = [
        gen.integers(0, 5, 9),
        np.array([0, 4, 4, 1]),
        np.array([0, 5, 1]),
        np.array([-1, 2]),
        np.array([3, -100, 1]),
        np.array([7, 7]),
        np.array([2**63 - 1, 0]),
        np.array([-(2**63), 0]),
        np.array([], dtype=np.int64),
        np.array([[1, 2], [ignore_index, 0]]),
        np.array([3, 1, 0], dtype=np.uint8),
        np.array([3, 9, 0], dtype=np.uint8),
    ]

    def results():
        out = []
        for t in arrays:
            try:
                valid, safe = loss._class_targets(np, t, 5, ignore_index)
                out.append((valid.tobytes(), valid.shape, safe.tobytes(), str(safe.dtype)))
            except Exception as e:  # noqa: BLE001 - the error is what is compared
                out.append((type(e), str(e)))
        return out

    fast = results()
    monkeypatch.setattr(loss, "FAST_PATHS", False)
    assert results() == fast


# name -> (fn(F, x, t), input shape, target, dtype of the target)
ERRORS = {
    "too_large": (lambda F, x, t: F.cross_entropy(x, t), (4, C), [0, C, 1, 2], "int64"),
    "negative": (lambda F, x, t: F.cross_entropy(x, t), (4, C), [0, 1, -1, 2], "int64"),
    "negative_ignore": (
        lambda F, x, t: F.cross_entropy(x, t, ignore_index=-1),
        (4, C),
        [0, -1, -2, 2],
        "int64",
    ),
    "large_custom_ignore": (
        lambda F, x, t: F.cross_entropy(x, t, ignore_index=1),
        (4, C),
        [1, 9, 0, 1],
        "int64",
    ),
    "nll_too_large": (lambda F, x, t: F.nll_loss(x, t), (4, C), [0, 1, 2, 99], "int64"),
    "nll_none": (
        lambda F, x, t: F.nll_loss(x, t, reduction="none"),
        (4, C),
        [0, -7, 2, 1],
        "int64",
    ),
    "sum_4d": (
        lambda F, x, t: F.cross_entropy(x, t, reduction="sum"),
        (1, C, 1, 2),
        [[[0, C]]],
        "int64",
    ),
    "1d": (lambda F, x, t: F.cross_entropy(x, t), (C,), C + 3, "int64"),
    "uint8": (lambda F, x, t: F.cross_entropy(x, t), (4, C), [0, 1, 200, 2], "uint8"),
    "int32": (lambda F, x, t: F.cross_entropy(x, t), (4, C), [0, 1, 2, 3], "int32"),
    "nll_int32": (lambda F, x, t: F.nll_loss(x, t), (4, C), [0, 1, 2, 3], "int32"),
    "float_target": (lambda F, x, t: F.cross_entropy(x, t), (4, C), [0.0, 1, 2, 3], "float32"),
    "batch": (lambda F, x, t: F.cross_entropy(x, t), (4, C), [0, 1, 2], "int64"),
    "nll_batch": (lambda F, x, t: F.nll_loss(x, t), (4, C), [0, 1, 2], "int64"),
    "bad_reduction_first": (
        lambda F, x, t: F.cross_entropy(x, t, reduction="avg"),
        (4, C),
        [0, 1, 99, 2],
        "int64",
    ),
    "nll_bad_reduction_first": (
        lambda F, x, t: F.nll_loss(x, t, reduction="avg"),
        (4, C),
        [0, 1, 99, 2],
        "int64",
    ),
    "bad_smoothing_first": (
        lambda F, x, t: F.cross_entropy(x, t, label_smoothing=1.5),
        (4, C),
        [0, 1, 99, 2],
        "int64",
    ),
    "weight_size": (
        lambda F, x, t: F.cross_entropy(x, t, weight=x.new_ones(C + 1)),
        (4, C),
        [0, 1, 2, 2],
        "int64",
    ),
}


def _error(fn, lib, shape, target, tdtype):
    x = lib.tensor(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape), requires_grad=True)
    t = lib.tensor(np.array(target, dtype=tdtype))
    with pytest.raises(Exception) as info:  # noqa: PT011 - the type is what is compared
        fn(lib.nn.functional, x.float(), t)
    return info.type, str(info.value)


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_are_the_general_paths(name, counts, monkeypatch):
    fn, shape, target, tdtype = ERRORS[name]
    fast = _error(fn, jtensor, shape, target, tdtype)
    monkeypatch.setattr(loss, "FAST_PATHS", False)
    assert _error(fn, jtensor, shape, target, tdtype) == fast
    assert counts["forward"][0] == 0 and counts["backward"] == [0, 0]
    if torch is not None:
        theirs = _error(fn, torch, shape, target, tdtype)
        assert fast[0] is theirs[0], (fast, theirs)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kind", ["plain", "custom_outside", "ignored_default"])
@pytest.mark.parametrize("case", list(SHAPES))
@pytest.mark.parametrize("fn", FNS)
def test_the_fast_paths_follow_torch(fn, case, kind, reduction, dtype):
    a, tv, _, gv, ignore_index = _data(SHAPES[case], kind)
    results = []
    for lib in (jtensor, torch):
        x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
        y = _call(lib, fn, x, lib.tensor(tv), None, ignore_index, reduction)
        node = _nll_node(y)
        total_weight = node._saved_total_weight
        y.backward(lib.tensor(gv if reduction == "none" else 0.7, dtype=x.dtype))
        results.append(
            (
                y.detach().numpy(),
                x.grad.numpy(),
                total_weight.detach().numpy(),
                str(total_weight.dtype),
                type(node).__name__,
                [type(n).__name__ for n, _ in y.grad_fn.next_functions if n is not None],
            )
        )
    (mine, theirs) = results
    tol = TOL[dtype]
    np.testing.assert_allclose(mine[0], theirs[0], rtol=tol, atol=tol)
    np.testing.assert_allclose(mine[1], theirs[1], rtol=tol, atol=tol)
    assert mine[3:] == theirs[3:]
    # (total_weight: PyTorch's kernel sums the weight of an unbatched sample even for 'none')
    np.testing.assert_array_equal(mine[2], theirs[2])
