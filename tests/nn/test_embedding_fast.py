"""Embedding and EmbeddingBag on the arrays (issue 18: a bag's forward was 8x PyTorch's time
and the embedding's backward 3x, five to fifteen public ops a call).

``embedding``'s backward (``embedding._dense_grad``) and ``embedding_bag``'s forward and
backward (``embedding_bag._array_forward``/``_array_backward``) compute on the host arrays
when every tensor is a plain CPU tensor (float32/float64 weights, int32/int64 indices) and
nothing records, transforms or listens. Their results must be the general path's bit for
bit (``embedding.ARRAY_PATHS = False``): outputs, gradients, strides, version counters,
nodes; PyTorch's wherever its numbers are exact (a lookup, a maximum, the embedding's
gradient summed in lookup order), close elsewhere. ``create_graph``, anomaly mode, a
profiler, other dtypes and odd offsets take the general path."""

import numpy as np
import pytest

import jtensor
from jtensor.nn._functional import embedding as emb
from jtensor.nn._functional import embedding_bag as bag
from tests.nn.norm_arrays import bits

try:
    import torch
except ImportError:  # the comparisons with PyTorch are skipped without it
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="needs PyTorch as the oracle")

# (num_embeddings, embedding_dim, index shape): makemore, nanoGPT, a wide table
TABLES = {
    "makemore": (27, 10, (32, 3)),
    "chars": (65, 32, (32, 8)),
    "wide": (1000, 64, (4, 64)),
    "few_rows": (3, 7, (200,)),
}
TOL = {"float32": 1e-5, "float64": 1e-12}


@pytest.fixture
def counts(monkeypatch):
    """How often each array path ran (monkeypatched counters around the module functions)."""
    seen = {"grad": 0, "bag_forward": 0, "bag_backward": 0}

    def counted(module, name, key):
        fn = getattr(module, name)

        def run(*args, **kwargs):
            seen[key] += 1
            return fn(*args, **kwargs)

        monkeypatch.setattr(module, name, run)

    counted(emb, "_dense_grad", "grad")
    counted(bag, "_array_forward", "bag_forward")
    counted(bag, "_array_backward", "bag_backward")
    return seen


def _general(monkeypatch):
    monkeypatch.setattr(emb, "ARRAY_PATHS", False)


def _data(table, dtype, seed=0, integer=False):
    num, dim, shape = TABLES[table]
    gen = np.random.default_rng(seed)
    if integer:  # (sums of small integers are exact in any order)
        w = gen.integers(-4, 5, (num, dim)).astype(dtype)
        g = gen.integers(-4, 5, (*shape, dim)).astype(dtype)
    else:
        w = gen.standard_normal((num, dim)).astype(dtype)
        g = gen.standard_normal((*shape, dim)).astype(dtype)
    idx = gen.integers(0, num, shape)
    return w, idx, g


def _meta(t):
    return (
        tuple(t.shape),
        t.stride(),
        str(t.dtype).split(".")[-1],
        t._version,
        t._base is None,
        t._is_view(),
    )


# ---------------------------------------------------------------------------- embedding


def _embedding_run(lib, w, idx, g, index_dtype="int64", **kwargs):
    weight = lib.tensor(w, requires_grad=True)
    version = weight._version
    out = lib.nn.functional.embedding(
        lib.tensor(idx, dtype=getattr(lib, index_dtype)), weight, **kwargs
    )
    node = out.grad_fn
    out.backward(lib.tensor(g))
    return {
        "out": bits(out),
        "out_meta": _meta(out),
        "node": (node.name(), len(node.next_functions)),
        "weight_version": weight._version - version,
        "grad": bits(weight.grad),
        "grad_meta": _meta(weight.grad),
    }


OPTIONS = {
    "plain": {},
    "padding": {"padding_idx": 1},
    "negative_padding": {"padding_idx": -2},
    "scale_grad_by_freq": {"scale_grad_by_freq": True},
    "both": {"padding_idx": 0, "scale_grad_by_freq": True},
}


@pytest.mark.parametrize("options", list(OPTIONS))
@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("table", list(TABLES))
def test_embedding_grad_is_the_general_path_bit_for_bit(
    table, dtype, index_dtype, options, counts, monkeypatch
):
    w, idx, g = _data(table, dtype)
    fast = _embedding_run(jtensor, w, idx, g, index_dtype, **OPTIONS[options])
    assert counts["grad"] == 1
    _general(monkeypatch)
    general = _embedding_run(jtensor, w, idx, g, index_dtype, **OPTIONS[options])
    assert counts["grad"] == 1
    # (the general path's gradient is written in place, version 1; PyTorch's kernel's, as
    # the array path's, is at 0)
    fast_meta, general_meta = fast.pop("grad_meta"), general.pop("grad_meta")
    assert fast_meta[:3] == general_meta[:3] and fast_meta[3] == 0
    assert fast == general


@needs_torch
@pytest.mark.parametrize("options", list(OPTIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("table", list(TABLES))
def test_embedding_follows_torch(table, dtype, options, counts):
    """The lookup and its metadata exactly; the gradient bit for bit too (PyTorch's CPU
    kernel sums each row in lookup order, as ``add.at`` does), except with
    ``scale_grad_by_freq``, where PyTorch multiplies by ``1 / count`` and jtensor divides."""
    w, idx, g = _data(table, dtype)
    mine = _embedding_run(jtensor, w, idx, g, **OPTIONS[options])
    assert counts["grad"] == 1
    theirs = _embedding_run(torch, w, idx, g, **OPTIONS[options])
    if "scale_grad_by_freq" in OPTIONS[options]:
        a = np.frombuffer(mine.pop("grad")[3], dtype=dtype)
        b = np.frombuffer(theirs.pop("grad")[3], dtype=dtype)
        np.testing.assert_allclose(a, b, rtol=TOL[dtype], atol=TOL[dtype])
    assert mine == theirs


@needs_torch
def test_embedding_grad_accumulates_as_torch(counts):
    """Two backward passes into ``weight.grad`` (the second added in place), and a module."""
    runs = []
    for lib in (jtensor, torch):
        lib.manual_seed(0)
        m = lib.nn.Embedding(27, 10, padding_idx=3)
        idx = lib.tensor(np.random.default_rng(0).integers(0, 27, (32, 3)))
        for _ in range(2):
            (m(idx) ** 2).sum().backward()
        runs.append((bits(m.weight.grad), m.weight.grad._version, m.weight._version))
    assert counts["grad"] == 2
    assert runs[0] == runs[1]


@needs_torch
@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
@pytest.mark.parametrize("bad", [27, -1, 100])
def test_embedding_bad_indices_raise(bad, index_dtype):
    w = np.zeros((27, 4), dtype="float32")
    idx = np.array([[0, 5, bad]])
    for lib in (jtensor, torch):
        with pytest.raises(IndexError, match="index out of range in self"):
            lib.nn.functional.embedding(
                lib.tensor(idx, dtype=getattr(lib, index_dtype)), lib.tensor(w)
            )


@needs_torch
def test_embedding_max_norm_renormalizes_in_place_as_torch(counts):
    w, idx, g = _data("makemore", "float32")
    w = w * 3
    runs = []
    for lib in (jtensor, torch):
        weight = lib.tensor(w, requires_grad=True)
        before = weight._version
        out = lib.nn.functional.embedding(lib.tensor(idx), weight, max_norm=1.5)
        out.backward(lib.tensor(g))
        runs.append(
            (
                weight._version - before,
                weight.detach().numpy(),
                out.detach().numpy(),
                weight.grad.numpy(),
            )
        )
    assert counts["grad"] == 1
    assert runs[0][0] == runs[1][0] == 1
    for a, b in zip(runs[0][1:], runs[1][1:], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_embedding_sparse_grad_takes_the_general_path(counts):
    w, idx, g = _data("makemore", "float32")
    weight = jtensor.tensor(w, requires_grad=True)
    jtensor.nn.functional.embedding(jtensor.tensor(idx), weight, sparse=True).backward(
        jtensor.tensor(g)
    )
    assert weight.grad.is_sparse and counts["grad"] == 0
    dense = jtensor.tensor(w, requires_grad=True)
    jtensor.nn.functional.embedding(jtensor.tensor(idx), dense).backward(jtensor.tensor(g))
    np.testing.assert_allclose(weight.grad.to_dense().numpy(), dense.grad.numpy(), rtol=1e-6)


def _grad_with(context, create_graph=False):
    w, idx, g = _data("chars", "float64")
    weight = jtensor.tensor(w, requires_grad=True)
    with context():
        out = jtensor.nn.functional.embedding(jtensor.tensor(idx), weight, padding_idx=2)
        (gw,) = jtensor.autograd.grad((out * out).sum(), weight, create_graph=create_graph)
    return gw


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


FALLBACKS = {
    "anomaly": lambda: jtensor.autograd.detect_anomaly(),
    "profiler": lambda: jtensor.autograd.profiler.profile(),
    "create_graph": _Nothing,
}


@pytest.mark.parametrize("case", list(FALLBACKS))
def test_embedding_fallbacks_take_the_general_backward(case, counts):
    gw = _grad_with(FALLBACKS[case], create_graph=case == "create_graph")
    assert counts["grad"] == 0
    plain = _grad_with(_Nothing)
    assert counts["grad"] == 1
    assert bits(gw) == bits(plain)
    if case == "create_graph":
        assert gw.requires_grad and gw.grad_fn is not None


def test_embedding_gradcheck_through_the_array_path(counts):
    """(``padding_idx`` and ``scale_grad_by_freq`` change the gradient on purpose: the
    comparisons above hold them to the general path's and PyTorch's.)"""
    w = jtensor.randn(7, 3, dtype=jtensor.float64, requires_grad=True)
    idx = jtensor.tensor([[0, 2, 2], [6, 1, 2]])
    assert jtensor.autograd.gradcheck(lambda w: jtensor.nn.functional.embedding(idx, w), (w,))
    assert counts["grad"] > 0


# ------------------------------------------------------------------------ embedding_bag

# (input, offsets, options): 1-d inputs cut at offsets (bags of different lengths, an empty
# one), 2-d inputs (bags of one length), padding, include_last_offset
BAGS = {
    "offsets": (40, [0, 3, 3, 20, 21], {}),
    "equal_offsets": (40, [0, 10, 20, 30], {}),
    "one_bag": (9, [0], {}),
    "rows": ((6, 9), None, {}),
    "single_lookups": ((8, 1), None, {}),
    "padding": (40, [0, 3, 3, 20, 21], {"padding_idx": 4}),
    "rows_padding": ((6, 9), None, {"padding_idx": -1}),
    "last_offset": (40, [0, 3, 17, 40], {"include_last_offset": True}),
    "lookups_past_the_last_offset": (40, [0, 3, 17, 25], {"include_last_offset": True}),
    "last_offset_padding": (40, [0, 3, 17, 40], {"include_last_offset": True, "padding_idx": 0}),
    "long_and_short": (300, [0, *range(270, 300)], {}),  # (max: the ``at`` kernels)
}
MODES = ["sum", "mean", "max"]


def _bag_data(case, dtype, seed=0, integer=False, num=12, dim=5):
    size, offsets, options = BAGS[case]
    gen = np.random.default_rng(seed)
    if integer:
        w = gen.integers(-4, 5, (num, dim)).astype(dtype)
    else:
        w = gen.standard_normal((num, dim)).astype(dtype)
    idx = gen.integers(0, num, size)
    n_bags = size[0] if offsets is None else len(offsets) - bool(options.get("include_last_offset"))
    g = gen.standard_normal((n_bags, dim)).astype(dtype)
    psw = gen.standard_normal(size).astype(dtype)
    return w, idx, offsets, options, g, psw


def _bag_run(lib, data, mode, with_psw=False, index_dtype="int64", backward=True):
    w, idx, offsets, options, g, psw = data
    index_dtype = getattr(lib, index_dtype)
    weight = lib.tensor(w, requires_grad=True)
    p = lib.tensor(psw, requires_grad=True) if with_psw else None
    out = lib.nn.functional.embedding_bag(
        lib.tensor(idx, dtype=index_dtype),
        weight,
        None if offsets is None else lib.tensor(offsets, dtype=index_dtype),
        mode=mode,
        per_sample_weights=p,
        **options,
    )
    node = out.grad_fn
    result = {
        "out": bits(out),
        "out_meta": _meta(out),
        "node": (node.name(), [e[0] is None for e in node.next_functions]),
        "weight_version": weight._version,
    }
    if backward:
        out.backward(lib.tensor(g))
        result["grad"] = bits(weight.grad)
        result["grad_meta"] = _meta(weight.grad)
        if p is not None:
            result["psw_grad"] = bits(p.grad)
            result["psw_grad_meta"] = _meta(p.grad)
    return result


def _bag_cases():
    for case in BAGS:
        for mode in MODES:
            yield case, mode, False
        yield case, "sum", True


@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case,mode,with_psw", list(_bag_cases()))
def test_bag_is_the_general_path_bit_for_bit(
    case, mode, with_psw, dtype, index_dtype, counts, monkeypatch
):
    data = _bag_data(case, dtype)
    fast = _bag_run(jtensor, data, mode, with_psw, index_dtype)
    assert counts["bag_forward"] == 1 and counts["bag_backward"] == 1
    _general(monkeypatch)
    general = _bag_run(jtensor, data, mode, with_psw, index_dtype)
    assert counts["bag_forward"] == 1 and counts["bag_backward"] == 1
    assert fast == general
    assert fast["out_meta"][3:] == (0, True, False)


SPECIAL = {
    "nan": lambda w: w.__setitem__((3, slice(None)), np.nan),
    "inf": lambda w: w.__setitem__((3, 0), np.inf),
    "minus_inf": lambda w: w.__setitem__((slice(None), 1), -np.inf),
    "signed_zeros": lambda w: (
        w.__setitem__((slice(0, 6), 2), 0.0),
        w.__setitem__((slice(6, None), 2), -0.0),
    ),
    "ties": lambda w: w.__setitem__(slice(None), np.round(w)),
}


@pytest.mark.parametrize("grad", ["finite", "inf_grad"])
@pytest.mark.parametrize("special", list(SPECIAL))
@pytest.mark.parametrize("case", ["offsets", "rows", "padding", "long_and_short"])
@pytest.mark.parametrize("mode", MODES)
def test_bag_special_values_as_the_general_path(case, mode, special, grad, counts, monkeypatch):
    """NaNs, infinities, signed zeros and ties: the maxima, the lookups that take the
    gradient, and a gradient with an infinity (the general path's zero masks then make
    NaNs) all as the general path's."""
    data = _bag_data(case, "float32")
    SPECIAL[special](data[0])
    if grad == "inf_grad":
        data[4][0, 0] = np.inf
    fast = _bag_run(jtensor, data, mode)
    assert counts["bag_forward"] == 1 and counts["bag_backward"] == 1
    _general(monkeypatch)
    general = _bag_run(jtensor, data, mode)
    if mode == "max" and special in ("signed_zeros", "ties"):
        # A maximum of 0 among zeros of both signs: the array path gives the first one's
        # sign, as PyTorch's kernel does (``test_bag_max_of_signed_zeros_as_torch``); the
        # general path's ``maximum.at`` keeps the last one's. Equal otherwise.
        a, b = fast.pop("out"), general.pop("out")
        assert a[:3] == b[:3]
        a, b = np.frombuffer(a[3], "float32"), np.frombuffer(b[3], "float32")
        assert (a == b).all()
    assert general == fast


@needs_torch
@pytest.mark.parametrize("case", ["offsets", "rows", "long_and_short"])
def test_bag_max_of_signed_zeros_as_torch(case, counts):
    data = _bag_data(case, "float32")
    data[0][:] = np.where(np.random.default_rng(2).random(data[0].shape) < 0.5, 0.0, -0.0)
    data[0][1] = -1.0
    mine, theirs = _bag_run(jtensor, data, "max"), _bag_run(torch, data, "max")
    assert counts["bag_forward"] == 1
    assert mine == theirs


# (PyTorch's own modes disagree on lookups past the last offset: ``sum`` leaves them out,
# ``mean`` counts them, ``max`` takes them; jtensor leaves them out)
TORCH_BAGS = [c for c in _bag_cases() if c[0] != "lookups_past_the_last_offset"]


def _close(mine, theirs, dtype, keys):
    for key in keys:
        if key in mine:
            a, b = mine.pop(key), theirs.pop(key)
            assert a[:3] == b[:3]
            np.testing.assert_allclose(
                np.frombuffer(a[3], dtype=dtype),
                np.frombuffer(b[3], dtype=dtype),
                rtol=TOL[dtype],
                atol=TOL[dtype],
            )


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case,mode,with_psw", TORCH_BAGS)
def test_bag_follows_torch(case, mode, with_psw, dtype, counts):
    """Integer weights: every bag's sum, mean and maximum is exact, so the outputs are
    PyTorch's bit for bit (but for per-sample weights: PyTorch fuses their products into
    its sums); gradients (PyTorch multiplies by a mean's reciprocal) and random weights'
    results are close. Metadata, nodes and edges are PyTorch's."""
    data = _bag_data(case, dtype, integer=True)
    mine = _bag_run(jtensor, data, mode, with_psw)
    assert counts["bag_forward"] == 1 and counts["bag_backward"] == 1
    theirs = _bag_run(torch, data, mode, with_psw)
    _close(mine, theirs, dtype, ("grad", "psw_grad") + (("out",) if with_psw else ()))
    assert mine == theirs
    data = _bag_data(case, dtype, seed=1)
    mine, theirs = _bag_run(jtensor, data, mode, with_psw), _bag_run(torch, data, mode, with_psw)
    _close(mine, theirs, dtype, ("out", "grad", "psw_grad"))
    assert mine == theirs


@needs_torch
@pytest.mark.parametrize("mode", MODES)
def test_bag_module_steps_as_torch(mode, counts):
    """``nn.EmbeddingBag`` modules over two steps, the gradient accumulated in place the
    second time: values and version counters. (Two uses in one backward, where PyTorch's
    engine sums the two gradients in place, bumping the sum's version, are the engine's
    business: ``tests/autograd``.)"""
    runs = []
    gen = np.random.default_rng(3)
    idx, flat = gen.integers(0, 50, (4, 6)), gen.integers(0, 50, 30)
    for lib in (jtensor, torch):
        lib.manual_seed(0)
        result = []
        for inputs in ((idx,), (flat, [0, 4, 4, 11])):
            m = lib.nn.EmbeddingBag(50, 8, mode=mode, padding_idx=7)
            for _ in range(2):
                out = m(*(lib.tensor(x) for x in inputs))
                (out * out).sum().backward()
                result.append(
                    (
                        out.detach().numpy(),
                        m.weight.grad.numpy().copy(),
                        m.weight.grad._version,
                        m.weight._version,
                    )
                )
        runs.append(result)
    assert counts["bag_forward"] == 4 and counts["bag_backward"] == 4
    for mine, theirs in zip(*runs, strict=True):
        assert mine[2:] == theirs[2:]
        for a, b in zip(mine[:2], theirs[:2], strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@needs_torch
def test_bag_max_norm_renormalizes_in_place_as_torch(counts):
    data = _bag_data("offsets", "float32")
    data[0][:] *= 3
    runs = []
    for lib in (jtensor, torch):
        w, idx, offsets, options, g, psw = data
        weight = lib.tensor(w, requires_grad=True)
        out = lib.nn.functional.embedding_bag(
            lib.tensor(idx), weight, lib.tensor(offsets), max_norm=1.0, mode="sum"
        )
        out.backward(lib.tensor(g))
        runs.append(
            (weight._version, weight.detach().numpy(), out.detach().numpy(), weight.grad.numpy())
        )
    assert counts["bag_forward"] == 1
    assert runs[0][0] == runs[1][0] == 1
    for a, b in zip(runs[0][1:], runs[1][1:], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", ["offsets", "rows", "padding", "long_and_short"])
def test_bag_create_graph_takes_the_general_backward(case, mode, counts, monkeypatch):
    """The array forward's state, handed to the general backward as tensors: the same
    gradients as the general path's, differentiable again."""

    def run():
        w, idx, offsets, options, g, psw = _bag_data(case, "float64")
        weight = jtensor.tensor(w, requires_grad=True)
        p = jtensor.tensor(psw, requires_grad=True) if mode == "sum" else None
        out = jtensor.nn.functional.embedding_bag(
            jtensor.tensor(idx),
            weight,
            None if offsets is None else jtensor.tensor(offsets),
            mode=mode,
            per_sample_weights=p,
            **options,
        )
        inputs = [weight] if p is None else [weight, p]
        grads = jtensor.autograd.grad((out * out).sum(), inputs, create_graph=True)
        assert all(t.requires_grad for t in grads)
        sum((t * t).sum() for t in grads).backward()
        return [bits(t) for t in grads] + [bits(t.grad) for t in inputs]

    fast = run()
    # (the second backward goes through the bag's node again, without create_graph)
    assert counts["bag_forward"] == 1 and counts["bag_backward"] == 1
    _general(monkeypatch)
    assert run() == fast


@pytest.mark.parametrize("context", ["anomaly", "profiler"])
def test_bag_listened_backward_takes_the_general_path(context, counts, monkeypatch):
    def run(ctx):
        data = _bag_data("padding", "float32")
        with ctx():
            return _bag_run(jtensor, data, "max")

    plain = run(_Nothing)
    assert counts["bag_forward"] == 1 and counts["bag_backward"] == 1
    listened = run(FALLBACKS[context])
    # (a profiled general path's out-of-place ``index_add`` leaves its result at version 1)
    listened.pop("grad_meta"), plain.pop("grad_meta")
    if context == "profiler":  # (a profiler sees the whole call's ops: no array forward)
        assert counts["bag_forward"] == 1
    else:
        assert counts["bag_forward"] == 2
    assert counts["bag_backward"] == 1
    assert listened == plain


DECLINED = {
    "half_weight": ({"weight_dtype": "float16"}, None),
    "decreasing_offsets": ({}, [0, 20, 3]),
    "offsets_past_the_end": ({}, [0, 3, 45]),
    "psw_of_another_dtype": ({"psw_dtype": "float64"}, None),
    "no_bags": ({"include_last_offset": True}, [0]),
}


@pytest.mark.parametrize("case", list(DECLINED))
def test_bag_declines_what_it_does_not_take(case, counts, monkeypatch):
    """Other dtypes, odd offsets and no bags take the general path: the same results (or
    errors) as with the array paths switched off."""
    options, offsets = DECLINED[case]
    w, idx, default_offsets, _, g, psw = _bag_data("offsets", "float32")
    offsets = default_offsets if offsets is None else offsets

    def run():
        weight = jtensor.tensor(
            w, dtype=getattr(jtensor, options.get("weight_dtype", "float32")), requires_grad=True
        )
        p = None
        if "psw_dtype" in options:
            p = jtensor.tensor(psw, dtype=getattr(jtensor, options["psw_dtype"]))
        try:
            out = jtensor.nn.functional.embedding_bag(
                jtensor.tensor(idx),
                weight,
                jtensor.tensor(offsets),
                mode="sum",
                per_sample_weights=p,
                include_last_offset=options.get("include_last_offset", False),
            )
            out.backward(jtensor.ones_like(out))
        except Exception as error:  # (the general path's error, whatever it is)
            return type(error), str(error)
        return bits(out), bits(weight.grad)

    declined = run()
    assert counts["bag_forward"] == 0 and counts["bag_backward"] == 0
    _general(monkeypatch)
    assert run() == declined


def test_bag_strided_tensors_take_the_array_path(counts, monkeypatch):
    """A transposed weight, a strided input and per-sample weights, a gradient that is not
    contiguous: read through their arrays, the general path's numbers."""

    def run():
        gen = np.random.default_rng(4)
        base = jtensor.tensor(gen.standard_normal((5, 30)), requires_grad=True)
        weight = base.t()
        idx = jtensor.tensor(gen.integers(0, 30, 24))[::2]
        psw = jtensor.tensor(gen.standard_normal(24), requires_grad=True)
        out = jtensor.nn.functional.embedding_bag(
            idx, weight, jtensor.tensor([0, 5, 5, 9]), mode="sum", per_sample_weights=psw[::2]
        )
        out.backward(jtensor.tensor(gen.standard_normal((5, 4))).t())
        return bits(out), bits(base.grad), bits(psw.grad)

    fast = run()
    assert counts["bag_forward"] == 1 and counts["bag_backward"] == 1
    _general(monkeypatch)
    assert run() == fast


@pytest.mark.parametrize("mode", MODES)
def test_bag_gradcheck_through_the_array_path(mode, counts):
    w = jtensor.randn(9, 3, dtype=jtensor.float64, requires_grad=True)
    idx = jtensor.tensor([1, 4, 4, 8, 0, 2, 3])
    offsets = jtensor.tensor([0, 2, 2, 6])
    inputs = (w,)
    if mode == "sum":
        inputs = (w, jtensor.randn(7, dtype=jtensor.float64, requires_grad=True))

    def fn(w, psw=None):
        return jtensor.nn.functional.embedding_bag(
            idx, w, offsets, mode=mode, per_sample_weights=psw, padding_idx=2
        )

    assert jtensor.autograd.gradcheck(fn, inputs)
    assert counts["bag_forward"] > 0 and counts["bag_backward"] > 0


def test_bag_2d_per_sample_weights_keep_their_view_node(counts):
    w, idx, offsets, options, g, psw = _bag_data("rows", "float32")
    p = jtensor.tensor(psw, requires_grad=True)
    out = jtensor.nn.functional.embedding_bag(
        jtensor.tensor(idx),
        jtensor.tensor(w, requires_grad=True),
        mode="sum",
        per_sample_weights=p,
    )
    assert out.grad_fn.next_functions[1][0].name() == "ViewBackward0"
    out.sum().backward()
    assert p.grad.shape == p.shape and counts["bag_backward"] == 1


def test_bag_bad_inputs_raise_as_before(counts):
    """The errors are the body's, raised before either path runs."""
    w = jtensor.randn(10, 3)
    F = jtensor.nn.functional
    with pytest.raises(RuntimeError, match="Index 1 of input takes value -1 which is not in"):
        F.embedding_bag(jtensor.tensor([1, -1, 2]), w, jtensor.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="takes value 10 which is not in the valid range"):
        F.embedding_bag(jtensor.tensor([[1, 10]], dtype=jtensor.int32), w)
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(jtensor.tensor([1, 2, 3]), w, jtensor.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="per_sample_weights is only"):
        F.embedding_bag(
            jtensor.tensor([[1, 2]]), w, mode="mean", per_sample_weights=jtensor.ones(1, 2)
        )
    assert counts["bag_forward"] == 0
