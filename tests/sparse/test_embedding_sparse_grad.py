"""Sparse gradients of embeddings (``nn.Embedding(sparse=True)``, ``F.embedding(...,
sparse=True)``): the gradient's layout, indices, values, nnz, coalesced flag and node names,
accumulation across backward calls, zero_grad, the optimizers that take sparse gradients
(SGD, Adagrad, SparseAdam) and the errors of those that do not, all compared with PyTorch
run on the same script. Plus a float64 check of the values against the dense-gradient path
and finite differences."""

import warnings

import numpy as np
import pytest

import jtensor

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")

RNG = np.random.default_rng(7)
W0 = RNG.standard_normal((6, 3)).astype(np.float32)
UP = RNG.standard_normal((2, 3, 3)).astype(np.float32)  # a contiguous upstream gradient


def _emb(lib, sparse=True, dtype=None, **kw):
    w = lib.tensor(W0, dtype=dtype) if dtype is not None else lib.tensor(W0)
    return lib.nn.Embedding.from_pretrained(w, freeze=False, sparse=sparse, **kw)


def _builtin_type(exc):
    for cls in type(exc).__mro__:
        if cls.__module__ == "builtins":
            return cls.__name__
    return type(exc).__name__


def _obs(t):
    """A comparable description of a tensor (sparse: its stored structure, unchanged)."""
    if t is None:
        return None
    name = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    if t.is_sparse:
        return ("sparse", str(t.dtype), tuple(t.shape), t._indices().tolist(),
                np.asarray(t._values().detach().tolist(), dtype=np.float64), t._nnz(),
                t.is_coalesced(), name)
    return ("dense", str(t.dtype), tuple(t.shape),
            np.asarray(t.detach().tolist(), dtype=np.float64), name)


def _run(script, lib):
    out = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            script(lib, out)
    except Exception as exc:  # noqa: BLE001 - the exception is an observation too
        out.append(("raise", _builtin_type(exc), str(exc).split("\n")[0][:60]))
    return out


def _same(a, b, path="obs"):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), f"{path}: {a!r} {b!r}"
        assert a.shape == b.shape, f"{path}: shapes {a.shape} != {b.shape}"
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6, err_msg=path)
        return
    if isinstance(a, dict) and isinstance(b, dict):
        assert sorted(a) == sorted(b), f"{path}: keys {sorted(a)} != {sorted(b)}"
        for k in a:
            _same(a[k], b[k], f"{path}[{k!r}]")
        return
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        assert len(a) == len(b), f"{path}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{i}]")
        return
    assert a == b, f"{path}: jtensor {a!r} != torch {b!r}"


def _check(script):
    mine, theirs = _run(script, jtensor), _run(script, torch)
    _same(mine, theirs)
    return mine


# ---------------------------------------------------------------------------------- scripts
def s_curriculum(lib, out):
    e = lib.nn.Embedding(5, 2, sparse=True)
    idx = lib.tensor([1, 3, 1])
    e(idx).sum().backward()
    g = e.weight.grad
    out += [g.layout == lib.sparse_coo, g._nnz(), g.is_coalesced(), g.requires_grad,
            g._indices().tolist(), g._values().tolist()]
    e(idx).sum().backward()
    out += [e.weight.grad is g, e.weight.grad._nnz(), e.weight.grad._indices().tolist(),
            e.weight.grad.coalesce()._nnz(), e.weight.grad.coalesce().is_coalesced()]
    out.append(type(e(idx).grad_fn).__name__)


def s_two_dim_padding(lib, out):
    for pad in (None, 1, -1, 0):
        e = _emb(lib, padding_idx=pad)
        idx = lib.tensor([[1, 5, 2], [1, 0, 3]])
        (e(idx) * lib.tensor(UP)).sum().backward()
        out.append(_obs(e.weight.grad))


def s_max_norm(lib, out):
    e = _emb(lib, max_norm=0.8)
    idx = lib.tensor([[1, 5, 2], [1, 0, 3]])
    (e(idx) * lib.tensor(UP)).sum().backward()
    out += [_obs(e.weight.grad), _obs(e.weight)]


def s_scale_grad_by_freq(lib, out):
    e = _emb(lib, scale_grad_by_freq=True)
    y = e(lib.tensor([1, 1, 2]))  # the forward works, the backward refuses
    out.append(tuple(y.shape))
    y.sum().backward()


def s_edge_inputs(lib, out):
    e = _emb(lib)
    e(lib.tensor([], dtype=lib.int64)).sum().backward()
    out.append(_obs(e.weight.grad))
    for idx in (lib.tensor([4]), lib.tensor(2), lib.tensor([2, 0], dtype=lib.int32)):
        e = _emb(lib)
        e(idx).sum().backward()
        out += [_obs(e.weight.grad), str(e.weight.grad._indices().dtype)]
    e = _emb(lib, padding_idx=0)
    e(lib.tensor([0, 0])).sum().backward()  # only padding: an empty gradient
    out.append(_obs(e.weight.grad))
    e = _emb(lib, dtype=lib.float64)
    e(lib.tensor([[2, 0], [2, 2]])).sum().backward()
    out.append(_obs(e.weight.grad))


def s_functional(lib, out):
    w = lib.tensor(W0).requires_grad_()
    y = lib.nn.functional.embedding(lib.tensor([[0, 4], [4, 4]]), w, sparse=True)
    out.append(type(y.grad_fn).__name__)
    (y * lib.tensor(UP[:, :2])).sum().backward()
    out.append(_obs(w.grad))


def s_accumulate_sparse(lib, out):
    # stride-0 upstream gradients (sum): concatenation; contiguous ones: PyTorch's merge
    e = _emb(lib)
    e(lib.tensor([1, 3, 1])).sum().backward()
    g = e.weight.grad
    e(lib.tensor([4, 1])).sum().backward()
    out += [e.weight.grad is g, _obs(g)]
    (e(lib.tensor([[1, 5, 2], [1, 0, 3]])) * lib.tensor(UP)).sum().backward()
    out.append(_obs(e.weight.grad))
    e = _emb(lib)
    for _ in range(2):
        (e(lib.tensor([[1, 5, 2], [1, 0, 3]])) * lib.tensor(UP)).sum().backward()
        out.append(_obs(e.weight.grad))
    e = _emb(lib)  # single entries: coalesced, then concatenated (not coalesced)
    for i in (2, 4, 4):
        e(lib.tensor([i])).sum().backward()
        out.append(_obs(e.weight.grad))


def s_accumulate_empty_and_growth(lib, out):
    e = _emb(lib, padding_idx=0)
    e(lib.tensor([0])).sum().backward()
    out.append(_obs(e.weight.grad))
    e(lib.tensor([3])).sum().backward()  # nnz 0 + new: the new one, its flag kept
    out.append(_obs(e.weight.grad))
    e(lib.tensor([0])).sum().backward()  # + nnz 0: unchanged
    out.append(_obs(e.weight.grad))
    e(lib.tensor([1, 3, 1])).sum().backward()
    out.append(_obs(e.weight.grad))
    w = lib.tensor([[1.0], [2.0]]).requires_grad_()
    for idx in ([0, 1], [1, 0], [1, 1]):  # nnz > numel: coalesced by the addition
        lib.nn.functional.embedding(lib.tensor(idx), w, sparse=True).sum().backward()
        out.append(_obs(w.grad))


def s_mixed_layouts(lib, out):
    e = _emb(lib, sparse=False)
    e(lib.tensor([1, 3])).sum().backward()
    g = e.weight.grad
    e.sparse = True
    e(lib.tensor([1, 1])).sum().backward()  # dense += sparse, in place
    out += [e.weight.grad is g, _obs(e.weight.grad)]
    e = _emb(lib)
    e(lib.tensor([1, 3])).sum().backward()
    g = e.weight.grad
    e.sparse = False
    e(lib.tensor([1, 1])).sum().backward()  # sparse + dense: a new dense gradient
    out += [e.weight.grad is g, _obs(e.weight.grad)]


def s_one_backward_many_uses(lib, out):
    F = lib.nn.functional
    up = lib.tensor(UP[0, :2])
    w = lib.tensor(W0).requires_grad_()
    (F.embedding(lib.tensor([1, 3]), w, sparse=True).sum()
     + F.embedding(lib.tensor([4, 1]), w, sparse=True).sum()).backward()
    out.append(_obs(w.grad))
    w = lib.tensor(W0).requires_grad_()
    ((F.embedding(lib.tensor([5, 3]), w, sparse=True) * up).sum()
     + (F.embedding(lib.tensor([4, 1]), w, sparse=True) * up).sum()).backward()
    out.append(_obs(w.grad))
    w = lib.tensor(W0).requires_grad_()
    (F.embedding(lib.tensor([1, 3]), w, sparse=True).sum() + (w * w).sum()).backward()
    out.append(_obs(w.grad))
    w = lib.tensor(W0).requires_grad_()
    ((w * w).sum() + F.embedding(lib.tensor([1, 3]), w, sparse=True).sum()).backward()
    out.append(_obs(w.grad))


def s_hooks(lib, out):
    w = lib.tensor(W0).requires_grad_()
    w.register_hook(lambda g: g.coalesce())
    for _ in range(2):
        lib.nn.functional.embedding(lib.tensor([1, 3, 1]), w, sparse=True).sum().backward()
        out.append(_obs(w.grad))
    w = lib.tensor(W0).requires_grad_()
    seen = []
    w.register_hook(lambda g: seen.append(_obs(g)))
    lib.nn.functional.embedding(lib.tensor([2, 2]), w, sparse=True).sum().backward()
    out += [seen, _obs(w.grad)]


def s_create_graph(lib, out):
    F = lib.nn.functional
    idx = lib.tensor([1, 3, 1])
    w = lib.tensor(W0).requires_grad_()
    (g,) = lib.autograd.grad(F.embedding(idx, w, sparse=True).pow(2).sum(), w,
                             create_graph=True)
    out += [_obs(g), g.requires_grad]
    g.to_dense().pow(2).sum().backward()  # double backward: again through the lookup
    out.append(_obs(w.grad))
    w = lib.tensor(W0).requires_grad_()
    F.embedding(idx, w, sparse=True).pow(2).sum().backward(create_graph=True)
    out.append(_obs(w.grad))
    F.embedding(idx, w, sparse=True).pow(2).sum().backward(create_graph=True)
    out.append(_obs(w.grad))
    (g,) = lib.autograd.grad(F.embedding(idx, w, sparse=True).pow(2).sum(), w)
    out += [_obs(g), g.requires_grad]
    (g,) = lib.autograd.grad(F.embedding(idx, w, sparse=True).pow(2).sum(), w,
                             create_graph=True)
    lib.autograd.grad(g._values().sum(), w)  # _values() is cut from the graph: refused


def s_zero_grad(lib, out):
    e = _emb(lib)
    opt = lib.optim.SGD(e.parameters(), lr=0.1)
    e(lib.tensor([1, 3, 1])).sum().backward()
    g = e.weight.grad
    opt.zero_grad(set_to_none=False)
    out += [e.weight.grad is g, _obs(e.weight.grad)]
    e(lib.tensor([1, 3, 1])).sum().backward()
    out += [e.weight.grad is g, _obs(e.weight.grad)]
    e.zero_grad(set_to_none=False)
    out.append(_obs(e.weight.grad))
    opt.zero_grad()
    out.append(e.weight.grad)
    e(lib.tensor([2])).sum().backward()
    e.zero_grad()
    out.append(e.weight.grad)


BATCHES = [[[1, 3], [1, 5]], [[2, 3], [0, 0]], [[5, 5], [4, 1]], [[0, 1], [2, 3]],
           [[4, 4], [4, 4]]]


def _train(lib, out, name, kwargs, padding_idx=None, contiguous=True):
    e = _emb(lib, padding_idx=padding_idx)
    opt = getattr(lib.optim, name)(e.parameters(), **kwargs)
    up = lib.tensor(UP[0, :2, :2])
    for batch in BATCHES:
        opt.zero_grad()
        y = e(lib.tensor(batch))
        loss = ((y * y).sum() if contiguous else y.sum()) + (y[..., :2] * up).sum()
        loss.backward()
        opt.step()
        state = opt.state[e.weight]
        out.append(_obs(e.weight))
        out.append({k: (_obs(v) if hasattr(v, "is_sparse") else v)
                    for k, v in sorted(state.items())})


OPTIM_CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "maximize": True}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.2}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "nesterov": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "initial_accumulator_value": 0.3,
                 "maximize": True}),
    ("SparseAdam", {}),
    ("SparseAdam", {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-6}),
    ("SparseAdam", {"lr": 0.05, "maximize": True}),
]


@needs_torch
@pytest.mark.parametrize("name,kwargs", OPTIM_CASES,
                         ids=[f"{n}-{'-'.join(k) or 'default'}" for n, k in OPTIM_CASES])
@pytest.mark.parametrize("contiguous", [True, False], ids=["contig", "stride0"])
def test_optimizer_trajectory_matches_pytorch(name, kwargs, contiguous):
    mine = _check(lambda lib, out: _train(lib, out, name, kwargs, contiguous=contiguous))
    assert len(mine) == 2 * len(BATCHES)  # no exception


@needs_torch
def test_optimizer_trajectory_with_padding_idx():
    _check(lambda lib, out: _train(lib, out, "SparseAdam", {"lr": 0.1}, padding_idx=4))


OPTIM_ERRORS = [
    ("SGD", {"lr": 0.1, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.1}),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1}),
    ("Adam", {}), ("AdamW", {}), ("RMSprop", {}),
]


@needs_torch
@pytest.mark.parametrize("name,kwargs", OPTIM_ERRORS,
                         ids=[f"{n}-{'-'.join(k) or 'default'}" for n, k in OPTIM_ERRORS])
def test_optimizers_refusing_sparse_gradients(name, kwargs):
    mine = _check(lambda lib, out: _train(lib, out, name, kwargs))
    assert mine[-1][0] == "raise" and mine[-1][1] == "RuntimeError"
    assert "sparse" in mine[-1][2]


def s_sparse_adam_misuse(lib, out):
    for make in (lambda: lib.optim.SparseAdam([lib.nn.Parameter(lib.zeros(2))], lr=0.0),
                 lambda: lib.optim.SparseAdam([lib.nn.Parameter(lib.zeros(2))], eps=0.0),
                 lambda: lib.optim.SparseAdam([lib.nn.Parameter(lib.zeros(2))],
                                              betas=(1.0, 0.9)),
                 lambda: lib.optim.SparseAdam([lib.nn.Parameter(lib.zeros(2))],
                                              betas=(0.9, -0.1))):
        try:
            make()
        except ValueError as exc:
            out.append(str(exc))
    w = lib.nn.Parameter(lib.zeros(2))
    opt = lib.optim.SparseAdam([w])
    (w * 2).sum().backward()
    opt.step()


def s_clip(lib, out):
    for clip in (lambda p: lib.nn.utils.clip_grad_norm_(p, 0.5),
                 lambda p: lib.nn.utils.clip_grad_norm_(p, 0.5, norm_type="inf"),
                 lambda p: lib.nn.utils.clip_grad_value_(p, 0.5)):
        e = _emb(lib)
        e(lib.tensor([1, 3, 1])).sum().backward()
        try:
            clip(e.parameters())
        except NotImplementedError as exc:
            out.append(("NotImplementedError", str(exc).split(" with arguments")[0]))
        out.append(_obs(e.weight.grad))


SCRIPTS = [s_curriculum, s_two_dim_padding, s_max_norm, s_scale_grad_by_freq, s_edge_inputs,
           s_functional, s_accumulate_sparse, s_accumulate_empty_and_growth, s_mixed_layouts,
           s_one_backward_many_uses, s_hooks, s_create_graph, s_zero_grad,
           s_sparse_adam_misuse, s_clip]


@needs_torch
@pytest.mark.parametrize("script", SCRIPTS, ids=[s.__name__[2:] for s in SCRIPTS])
def test_script_matches_pytorch(script):
    _check(script)


def test_curriculum_example_values():
    """The notebook's numbers, without the oracle."""
    e = jtensor.nn.Embedding(5, 2, sparse=True)
    idx = jtensor.tensor([1, 3, 1])
    e(idx).sum().backward()
    g = e.weight.grad
    assert g.layout == jtensor.sparse_coo and (g._nnz(), g.is_coalesced()) == (3, False)
    e(idx).sum().backward()
    assert e.weight.grad._nnz() == 6 and e.weight.grad.coalesce()._nnz() == 2
    assert e.weight.grad._indices().tolist() == [[1, 3, 1, 1, 3, 1]]
    assert e.weight.grad.coalesce()._values().tolist() == [[4.0, 4.0], [2.0, 2.0]]
    with pytest.raises(RuntimeError, match="scale_grad_by_freq not supported with sparse"):
        jtensor.nn.Embedding(5, 2, sparse=True, scale_grad_by_freq=True)(idx).sum().backward()


# ------------------------------------------------------------------------- float64 checks
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_sparse_grad_equals_dense_grad_and_finite_differences(padding_idx):
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((7, 4))
    idx = jtensor.tensor([[2, 6, 2], [0, 2, 5]])
    up = jtensor.tensor(rng.standard_normal((2, 3, 4)))

    def loss(w, sparse):
        y = jtensor.nn.functional.embedding(idx, w, padding_idx=padding_idx, sparse=sparse)
        return (y * up).sum() + (y * y).sum()

    grads = {}
    for sparse in (False, True):
        w = jtensor.tensor(w0).requires_grad_()
        loss(w, sparse).backward()
        grads[sparse] = w.grad
    assert grads[True].is_sparse and not grads[False].is_sparse
    assert grads[True].dtype == jtensor.float64
    dense_of_sparse = grads[True].to_dense().numpy()
    np.testing.assert_allclose(dense_of_sparse, grads[False].numpy(), rtol=1e-12, atol=1e-12)
    # central finite differences of the float64 loss
    eps = 1e-6
    numeric = np.zeros_like(w0)
    for i in range(w0.shape[0]):
        for j in range(w0.shape[1]):
            hi, lo = w0.copy(), w0.copy()
            hi[i, j] += eps
            lo[i, j] -= eps
            numeric[i, j] = (float(loss(jtensor.tensor(hi), True))
                             - float(loss(jtensor.tensor(lo), True))) / (2 * eps)
    rows = [r for r in range(w0.shape[0]) if r != padding_idx]  # padding: no grad by design
    np.testing.assert_allclose(dense_of_sparse[rows], numeric[rows], rtol=1e-6, atol=1e-6)
    if padding_idx is not None:
        assert not dense_of_sparse[padding_idx].any()
        assert padding_idx not in grads[True]._indices().tolist()[0]


def test_sparse_adam_rejects_dense_gradients_without_touching_state():
    w = jtensor.nn.Parameter(jtensor.ones(3))
    opt = jtensor.optim.SparseAdam([w])
    (w * w).sum().backward()
    with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients"):
        opt.step()
    assert w.tolist() == [1.0, 1.0, 1.0]
