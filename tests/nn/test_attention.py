"""``F.scaled_dot_product_attention``, ``F.multi_head_attention_forward`` and
``nn.MultiheadAttention`` against PyTorch: the same initial weights for the same seed,
parameter names, ``repr``, outputs, attention weights, input and parameter gradients (float64,
train and eval, dropout included), errors, and float64 gradchecks."""

import numpy as np
import pytest

import jtensor
from jtensor.autograd import gradcheck
from tests.harness.training import assert_same_error

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

CONFIGS = [
    {},
    {"batch_first": True},
    {"kdim": 5, "vdim": 3},
    {"bias": False},
    {"add_bias_kv": True, "add_zero_attn": True},
    {"dropout": 0.3},
]
CALLS = [
    "plain",
    "no-weights",
    "per-head",
    "key-padding",
    "bool-mask",
    "float-mask",
    "causal",
    "unbatched",
]


def _pair(seed=3, **kw):
    torch.manual_seed(seed)
    jtensor.manual_seed(seed)
    tm = torch.nn.MultiheadAttention(8, 2, dtype=torch.float64, **kw)
    jm = jtensor.nn.MultiheadAttention(8, 2, dtype=jtensor.float64, **kw)
    return jm, tm


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("kw", CONFIGS, ids=str)
def test_fresh_module_has_pytorchs_weights_names_and_repr(kw):
    jm, tm = _pair(**kw)
    js, ts = jm.state_dict(), tm.state_dict()
    assert list(js) == list(ts)
    for name in ts:
        np.testing.assert_array_equal(_np(js[name]), _np(ts[name]), err_msg=name)
    assert [n for n, _ in jm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert repr(jm) == repr(tm)


def _inputs(kw, call, rng):
    bf = kw.get("batch_first", False)
    L, S, N = 4, 5, 3
    if call == "causal":
        S = L

    def seq(n, e):
        return rng.standard_normal((N, n, e) if bf else (n, N, e))

    q, k, v = seq(L, 8), seq(S, kw.get("kdim", 8)), seq(S, kw.get("vdim", 8))
    extra = {}
    if call == "no-weights":
        extra = {"need_weights": False}
    elif call == "per-head":
        extra = {"average_attn_weights": False}
    elif call == "key-padding":
        m = rng.random((N, S)) > 0.7
        m[:, 0] = False
        extra = {"key_padding_mask": m}
    elif call == "bool-mask":
        m = rng.random((L, S)) > 0.7
        m[:, 0] = False
        extra = {"attn_mask": m}
    elif call == "float-mask":
        extra = {"attn_mask": rng.standard_normal((N * 2, L, S))}
    elif call == "causal":
        mask = np.triu(np.full((L, L), -np.inf), 1)
        extra = {"attn_mask": mask, "is_causal": True, "need_weights": False}
    elif call == "unbatched":
        q, k, v = (x[0] if bf else x[:, 0] for x in (q, k, v))
    return (q, k, v), extra


def _run(lib, module, arrays, extra, seed):
    tensors = [lib.tensor(a, requires_grad=True) for a in arrays]
    kwargs = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in extra.items()}
    lib.manual_seed(seed)
    out, weights = module(*tensors, **kwargs)
    return tensors, out, weights


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("kw", CONFIGS, ids=str)
def test_forward_and_backward_match_pytorch(kw, call, train):
    jm, tm = _pair(**kw)
    jm.train(train)
    tm.train(train)
    rng = np.random.default_rng(0)
    arrays, extra = _inputs(kw, call, rng)
    jin, jo, jw = _run(jtensor, jm, arrays, extra, 5)
    tin, to, tw = _run(torch, tm, arrays, extra, 5)
    np.testing.assert_allclose(_np(jo), _np(to), rtol=1e-9, atol=1e-12)
    assert (jw is None) == (tw is None)
    if tw is not None:
        np.testing.assert_allclose(_np(jw), _np(tw), rtol=1e-9, atol=1e-12)
    g = rng.standard_normal(tuple(to.shape))
    jo.backward(jtensor.tensor(g))
    to.backward(torch.tensor(g))
    for a, b in zip(jin, tin, strict=True):
        np.testing.assert_allclose(_np(a.grad), _np(b.grad), rtol=1e-9, atol=1e-12)
    for (name, a), (_, b) in zip(jm.named_parameters(), tm.named_parameters(), strict=True):
        np.testing.assert_allclose(_np(a.grad), _np(b.grad), rtol=1e-9, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("mask", [None, "key_padding_mask", "attn_mask"])
def test_eval_without_grad_equals_pytorchs_fast_path(mask):
    jm, tm = _pair(batch_first=True)
    jm.eval()
    tm.eval()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4, 8))
    extra = {}
    if mask == "key_padding_mask":
        extra = {mask: np.array([[False] * 4, [False, False, True, True], [False, True] * 2])}
    elif mask == "attn_mask":
        extra = {mask: np.triu(np.ones((4, 4), dtype=bool), 1)}
    with torch.no_grad():
        tx = torch.tensor(x)
        to, tw = tm(tx, tx, tx, **{k: torch.tensor(v) for k, v in extra.items()})
    with jtensor.no_grad():
        jx = jtensor.tensor(x)
        jo, jw = jm(jx, jx, jx, **{k: jtensor.tensor(v) for k, v in extra.items()})
    np.testing.assert_allclose(_np(jo), _np(to), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(_np(jw), _np(tw), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"attn_mask": None},
        {"attn_mask": "bool"},
        {"attn_mask": "float"},
        {"is_causal": True},
        {"dropout_p": 0.5},
        {"scale": 0.3},
        {"enable_gqa": True},
    ],
    ids=str,
)
def test_sdpa_matches_pytorch(kwargs):
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal(s) for s in ((2, 4, 4, 8), (2, 2, 5, 8), (2, 2, 5, 6))]
    if not kwargs.get("enable_gqa"):
        arrays[0] = arrays[0][:, :2]
    mask = rng.random((4, 5)) > 0.5
    mask[1] = False  # a row masked everywhere: zeros, as PyTorch's safe softmax

    def run(lib):
        q, k, v = (lib.tensor(a, requires_grad=True) for a in arrays)
        kw = dict(kwargs)
        if kw.get("attn_mask") == "bool":
            kw["attn_mask"] = lib.tensor(mask)
        elif kw.get("attn_mask") == "float":
            kw["attn_mask"] = lib.tensor(rng_mask).float()
        lib.manual_seed(0)
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
        out.backward(lib.tensor(grad))
        return out, q.grad, k.grad, v.grad

    rng_mask = rng.standard_normal((2, 4, 5))
    grad = rng.standard_normal((2, 4 if kwargs.get("enable_gqa") else 2, 4, 6))
    for a, b in zip(run(jtensor), run(torch), strict=True):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.MultiheadAttention(0, 2),
        lambda lib: lib.nn.MultiheadAttention(9, 2),
    ],
    ids=["zero", "indivisible"],
)
def test_constructor_errors_match_pytorch(make):
    assert_same_error(make)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, m, x: m(x[0, 0], x, x),
        lambda lib, m, x: m(x, x, x, key_padding_mask=lib.zeros(3, dtype=lib.bool)),
        lambda lib, m, x: m(x, x, x, attn_mask=lib.zeros(2, 2, dtype=lib.bool)),
        lambda lib, m, x: m(x, x, x, attn_mask=lib.zeros(4, 4, dtype=lib.int64)),
        lambda lib, m, x: m(x, x, x, attn_mask=lib.zeros(1, 4, 4)),
        lambda lib, m, x: m(x, x, x, is_causal=True),
        lambda lib, m, x: m(x, x[:2], x),
        lambda lib, m, x: m(x[..., :4], x, x),
    ],
    ids=range(8),
)
def test_forward_errors_match_pytorch(call):
    modules = dict(zip((jtensor, torch), _pair(), strict=True))
    x = np.zeros((4, 3, 8))
    assert_same_error(lambda lib: call(lib, modules[lib], lib.tensor(x)))


def test_multi_head_attention_forward_gradcheck_float64():
    jm, _ = _pair(add_bias_kv=True)
    x = jtensor.randn(3, 2, 8, dtype=jtensor.float64, requires_grad=True)
    mask = jtensor.tensor([[False, False, True], [False, False, False]])

    def f(x, w, b):
        return jtensor.nn.functional.multi_head_attention_forward(
            x,
            x,
            x,
            8,
            2,
            w,
            b,
            jm.bias_k,
            jm.bias_v,
            True,
            0.0,
            jm.out_proj.weight,
            jm.out_proj.bias,
            key_padding_mask=mask,
        )[0]

    assert gradcheck(f, (x, jm.in_proj_weight, jm.in_proj_bias))


@pytest.mark.parametrize("heads", [(4, 3, 3), (4, 2, 3), (4, 3, None)], ids=str)
def test_sdpa_head_errors_match_pytorch(heads):
    hq, hk, hv = heads

    def call(lib):
        q, k = lib.zeros(1, hq, 3, 8), lib.zeros(1, hk, 5, 8)
        v = lib.zeros(1, hv or hk, 5, 8)
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=hv is not None)

    assert_same_error(call)


def test_sdpa_mask_with_is_causal_follows_pytorchs_cpu_kernels():
    # PyTorch's fused CPU kernel (4-d inputs, no dropout) applies an attn_mask and the causal
    # mask together; its reference path (other ranks, dropout) refuses the pair.
    def run(lib, rank, dropout_p, mask_kind):
        lib.manual_seed(0)
        shape = (1, 2, 4, 3)[4 - rank:]
        q, k, v = lib.randn(*shape), lib.randn(*shape), lib.randn(*shape)
        if mask_kind == "bool":
            mask = lib.ones(4, 4, dtype=lib.bool).tril().T
        else:
            mask = lib.tensor([[0.1, 0.2, -0.3, 0.4]] * 4)
        try:
            out = lib.nn.functional.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, is_causal=True, dropout_p=dropout_p)
        except RuntimeError as exc:
            return ("raised", str(exc).split(":")[0])
        return ("ok", [round(x, 5) for x in out.flatten().tolist()])

    for rank, dropout_p, kind in [(4, 0.0, "bool"), (4, 0.0, "float"), (3, 0.0, "float"),
                                  (4, 0.5, "float")]:
        assert run(jtensor, rank, dropout_p, kind) == run(torch, rank, dropout_p, kind)


def _sdpa_layouts(lib):
    """The output's strides (and sums) for the layouts attention modules hand SDPA."""
    F = lib.nn.functional
    g = np.random.default_rng(3).standard_normal((2, 15, 96)).astype(np.float32)
    x = lib.tensor(g)
    q, k, v = [t.view(2, -1, 4, 8).transpose(1, 2) for t in x.chunk(3, -1)]
    heads_first = lib.tensor(g.reshape(15, 2, 4, -1)[..., :8].copy()).permute(1, 2, 0, 3)
    calls = {
        "split heads": lambda: F.scaled_dot_product_attention(q, k, v),
        "causal": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        "bool mask": lambda: F.scaled_dot_product_attention(
            q, k, v, attn_mask=lib.ones(15, 15, dtype=lib.bool)),
        "fewer queries": lambda: F.scaled_dot_product_attention(q[:, :, :5], k, v),
        "gqa": lambda: F.scaled_dot_product_attention(q, k[:, :2], v[:, :2], enable_gqa=True),
        "contiguous query": lambda: F.scaled_dot_product_attention(q.contiguous(), k, v),
        "other head size": lambda: F.scaled_dot_product_attention(q, k, v[..., :4]),
        "key last dim strided": lambda: F.scaled_dot_product_attention(
            q, k.transpose(-1, -2).contiguous().transpose(-1, -2), v),
        "five dims": lambda: F.scaled_dot_product_attention(q[None], k[None], v[None]),
        "no queries": lambda: F.scaled_dot_product_attention(q[:, :, :0], k, v),
        "sequence first": lambda: F.scaled_dot_product_attention(
            heads_first, heads_first, heads_first),
    }
    seen = {}
    for name, call in calls.items():
        y = call()
        seen[name] = (tuple(y.shape), y.stride(), round(float(y.numpy().sum()), 4))
    # The SDPA tutorial's attention module merges the heads back with a view.
    merged = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).view(2, -1, 32)
    seen["merged"] = tuple(merged.shape)
    return seen


def test_sdpa_output_follows_the_query_layout_as_pytorchs_fused_kernel(test_device):
    if test_device.type != "cpu":
        pytest.skip("the layout of PyTorch's fused CPU kernel (the oracle runs on the CPU)")
    assert _sdpa_layouts(jtensor) == _sdpa_layouts(torch)
