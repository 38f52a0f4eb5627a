"""``scaled_dot_product_attention`` records PyTorch's one node on its fused CPU path
(``ScaledDotProductFlashAttentionForCpuBackward0``), and the math path's nodes elsewhere:
which calls take which, the values, gradients, saved attributes, layouts and errors, each
checked against PyTorch."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

LIBS = (torch, jtensor)
SHAPE = (2, 4, 8, 16)


def _inputs(lib, shapes=(SHAPE, SHAPE, SHAPE), dtype="float64", grads=(True, True, True)):
    rng = np.random.default_rng(3)
    return [
        lib.tensor(rng.standard_normal(s), dtype=getattr(lib, dtype)).requires_grad_(g)
        for s, g in zip(shapes, grads, strict=True)
    ]


def _mask(lib, kind):
    rows = np.arange(8)[:, None] >= np.arange(8)[None, :]
    if kind == "bool":
        return lib.tensor(rows)
    if kind == "float":
        return lib.tensor(np.arange(64.0).reshape(8, 8) / 50, dtype=lib.float64)
    if kind == "dead rows":  # rows 0 and 5 masked everywhere
        rows = rows.copy()
        rows[[0, 5]] = False
        return lib.tensor(rows)
    if kind == "broadcast":
        return lib.tensor(np.linspace(-1, 1, 2 * 8).reshape(2, 1, 1, 8), dtype=lib.float64)
    return None


CALLS = {
    "plain": dict(mask=None),
    "causal": dict(mask=None, is_causal=True),
    "bool mask": dict(mask="bool"),
    "float mask": dict(mask="float"),
    "mask and causal": dict(mask="float", is_causal=True),
    "negative scale": dict(mask=None, scale=-0.3),
    "rows masked everywhere": dict(mask="dead rows"),
    "broadcast mask": dict(mask="broadcast"),
}


def _names(fn):
    return [None if n is None else type(n).__name__ for n, _ in fn.next_functions]


def _run(lib, mask=None, **kw):
    q, k, v = _inputs(lib)
    out = lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=_mask(lib, mask), **kw)
    fn = out.grad_fn
    saved = fn._saved_attn_mask
    facts = {
        "node": type(fn).__name__,
        "edges": _names(fn),
        "stride": out.stride(),
        "logsumexp": fn._saved_logsumexp.detach().numpy(),
        "saved": (
            fn._saved_is_causal,
            fn._saved_scale,
            fn._saved_dropout_p,
            fn._saved_query is q,
            fn._saved_key is k,
            fn._saved_value is v,
            tuple(fn._saved_output.shape),
        ),
        "mask": None
        if saved is None
        else (str(saved.dtype).split(".")[-1], saved.detach().numpy()),
    }
    weight = lib.tensor(np.sin(np.arange(out.numel())).reshape(out.shape))
    (out * weight).sum().backward()
    facts["values"] = [out.detach().numpy()] + [t.grad.numpy() for t in (q, k, v)]
    return facts


@pytest.mark.parametrize("name", sorted(CALLS))
def test_fused_calls_match_pytorch(name):
    ref, got = (_run(lib, **CALLS[name]) for lib in LIBS)
    assert got["node"] == ref["node"] == "ScaledDotProductFlashAttentionForCpuBackward0"
    for key in ("edges", "stride", "saved"):
        assert got[key] == ref[key], key
    np.testing.assert_allclose(got["logsumexp"], ref["logsumexp"], rtol=1e-12, atol=1e-12)
    if ref["mask"] is None:
        assert got["mask"] is None
    else:
        assert got["mask"][0] == ref["mask"][0]
        np.testing.assert_array_equal(got["mask"][1], ref["mask"][1])
    for a, b in zip(got["values"], ref["values"], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


FALLBACKS = {
    "3-D inputs": lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(q[0], k[0], v[0]),
    "dropout": lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(
        q, k, v, dropout_p=0.5
    ),
    "mask requiring grad": lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=L.zeros(8, 8, dtype=L.float64, requires_grad=True)
    ),
    "value of another head size": lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(
        q, k, L.cat([v, v], -1)
    ),
    "gqa, key and value heads differ": lambda L, q, k, v: (
        L.nn.functional.scaled_dot_product_attention(q, k[:, :2], v[:, :1], enable_gqa=True)
    ),
    "gqa": lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(
        q, k[:, :2], v[:, 2:], enable_gqa=True
    ),
    "query alone requires grad": lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(
        q, k.detach(), v.detach()
    ),
    "more queries than keys": lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(
        L.cat([q, q], 2), k, v, is_causal=True
    ),
    # PyTorch's fused kernel needs every last dim of stride 1
    "value's last dim strided": lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(
        q, k, L.cat([v, v], -1)[..., ::2]
    ),
    "query's last dim strided": lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(
        L.cat([q, q], -1)[..., ::2], k, v
    ),
}


@pytest.mark.parametrize("name", sorted(FALLBACKS))
def test_which_node_each_call_records(name):
    """The math path's nodes where PyTorch takes it; the fused node elsewhere."""
    seen = []
    for lib in LIBS:
        q, k, v = _inputs(lib)
        if name == "dropout":
            lib.manual_seed(0)
        out = FALLBACKS[name](lib, q, k, v)
        row = [type(out.grad_fn).__name__, _names(out.grad_fn), out.stride()]
        if name != "dropout":  # (the dropout mask's draws are not PyTorch's)
            out.pow(2).sum().backward()
            row.append([None if t.grad is None else t.grad.numpy() for t in (q, k, v)])
        seen.append(row)
    (ref, got) = seen
    assert got[:3] == ref[:3]
    for a, b in zip(got[3:], ref[3:], strict=True):
        for x, y in zip(a, b, strict=True):
            assert (x is None) == (y is None)
            if x is not None:
                np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)


def test_heads_split_off_a_sequence_keep_the_query_layout():
    strides = []
    for lib in LIBS:
        x = lib.ones(2, 8, 4, 16, requires_grad=True)
        q = x.transpose(1, 2)
        out = lib.nn.functional.scaled_dot_product_attention(q, q, q)
        strides.append((out.stride(), out.is_contiguous(), type(out.grad_fn).__name__))
        out.transpose(1, 2).reshape(2, 8, 64).sum().backward()  # (the layout makes it a view)
    assert strides[0] == strides[1]


def _error(call):
    try:
        call()
    except RuntimeError as e:
        return type(e).__name__, str(e).split(": [")[0]
    return None


def test_a_double_backward_raises_as_in_pytorch():
    found = []
    for lib in LIBS:
        q, _, _ = _inputs(lib, shapes=((1, 2, 4, 8),) * 3)
        out = lib.nn.functional.scaled_dot_product_attention(q, q, q)
        (g,) = lib.autograd.grad(out.sum(), q, create_graph=True)
        found.append(
            (g.requires_grad, type(g.grad_fn).__name__, _error(lambda g=g: g.sum().backward()))
        )
    assert found[0] == found[1]
    assert (
        "derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward"
        in found[1][2][1]
    )


def test_saved_tensors_are_checked_and_freed_as_in_pytorch():
    found = []
    for lib in LIBS:
        q, _, _ = _inputs(lib, shapes=((1, 2, 4, 8),) * 3)
        out = lib.nn.functional.scaled_dot_product_attention(q, q, q)
        out.sum().backward()
        twice = _error(lambda out=out: out.sum().backward())
        out = lib.nn.functional.scaled_dot_product_attention(q, q, q)
        with lib.no_grad():
            out.add_(1)  # (the output is saved: the backward refuses it)
        written = _error(lambda out=out: out.sum().backward())
        found.append((twice[0], twice[1][:40], written))
    assert found[0] == found[1]


def test_no_node_without_grad():
    for lib in LIBS:
        q, k, v = _inputs(lib, grads=(False, False, False))
        assert lib.nn.functional.scaled_dot_product_attention(q, k, v).grad_fn is None
        q.requires_grad_()
        with lib.no_grad():
            assert lib.nn.functional.scaled_dot_product_attention(q, k, v).grad_fn is None


@pytest.mark.parametrize("kw", [dict(is_causal=True), dict(mask="dead rows"), dict(scale=-2.0)])
def test_gradcheck(kw):
    """Finite differences in float64 (with rows masked everywhere: their zeros)."""
    mask = _mask(jtensor, kw.pop("mask", None))
    q, k, v = _inputs(jtensor, shapes=((1, 2, 8, 3), (1, 2, 8, 3), (1, 2, 8, 3)))

    def f(a, b, c):
        out = jtensor.nn.functional.scaled_dot_product_attention(a, b, c, attn_mask=mask, **kw)
        assert type(out.grad_fn).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
        return out

    assert jtensor.autograd.gradcheck(f, (q, k, v))


def test_gqa_gradcheck():
    q, k, v = _inputs(jtensor, shapes=((1, 4, 3, 2), (1, 2, 5, 2), (1, 2, 5, 2)))

    def f(a, b, c):
        return jtensor.nn.functional.scaled_dot_product_attention(a, b, c, enable_gqa=True)

    assert jtensor.autograd.gradcheck(f, (q, k, v))


def test_float32_matches_pytorch():
    out = []
    for lib in LIBS:
        q, k, v = _inputs(lib, dtype="float32")
        o = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        o.sum().backward()
        out.append(
            [
                o.dtype is lib.float32,
                q.grad.dtype is lib.float32,
                o.detach().numpy(),
                q.grad.numpy(),
                k.grad.numpy(),
                v.grad.numpy(),
            ]
        )
    assert out[0][:2] == out[1][:2] == [True, True]
    for a, b in zip(out[0][2:], out[1][2:], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("which", ["value strided", "value of another head size"])
def test_mask_with_causal_outside_the_fused_kernel_raises_as_in_pytorch(which):
    found = []
    for lib in LIBS:
        q, k, v = _inputs(lib)
        v = lib.cat([v, v], -1)[..., ::2] if which == "value strided" else lib.cat([v, v], -1)
        mask = lib.ones(8, 8, dtype=lib.bool)

        def call(lib=lib, q=q, k=k, v=v, mask=mask):
            return lib.nn.functional.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, is_causal=True
            )

        found.append(_error(call))
    assert found[0] == found[1]
    assert found[1] is not None
