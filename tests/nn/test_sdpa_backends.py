"""``torch.nn.attention``: ``sdpa_kernel`` restricts the backends of
``scaled_dot_product_attention`` as PyTorch's CPU build does (its fused kernel writes in the
query's layout and takes a mask beside ``is_causal``; its math path does neither), and
``bias``'s causal masks work as ``attn_mask``. The SDPA tutorial uses both."""

import importlib
import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def _attention_api(L):
    A = importlib.import_module(L.__name__ + ".nn.attention")
    B = importlib.import_module(L.__name__ + ".nn.attention.bias")
    F = L.nn.functional
    g = np.random.default_rng(0).standard_normal((2, 15, 96)).astype(np.float32)
    q, k, v = [t.view(2, -1, 4, 8).transpose(1, 2) for t in L.tensor(g).chunk(3, -1)]
    names = ("ERROR", "MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION")
    seen = [
        repr(B.causal_lower_right(2, 4)),
        repr(B.causal_upper_left(3, 2)),
        [m.name for m in B.CausalVariant],
        [int(getattr(A.SDPBackend, n)) for n in names],
        repr(A.SDPBackend.MATH),
        round(
            float(
                F.scaled_dot_product_attention(
                    q[:, :, :5], k, v, attn_mask=B.causal_lower_right(5, 15)
                ).sum()
            ),
            4,
        ),
        round(
            float(
                F.scaled_dot_product_attention(q, k, v, attn_mask=B.causal_upper_left(15, 15)).sum()
            ),
            4,
        ),
    ]

    def attempt(**kw):
        try:
            return F.scaled_dot_product_attention(q, k, v, **kw).stride()
        except RuntimeError as e:
            return str(e)[:70]

    mask = L.ones(15, 15, dtype=L.bool)
    for backends in (
        A.SDPBackend.MATH,
        [A.SDPBackend.FLASH_ATTENTION],
        A.SDPBackend.EFFICIENT_ATTENTION,
        [],
        ["not a backend"],
    ):
        with A.sdpa_kernel(backends) as ctx:
            seen += [
                ctx,
                attempt(),
                attempt(dropout_p=0.5),
                attempt(is_causal=True, attn_mask=mask),
            ]
    seen.append(attempt())  # every backend again after the block
    for bad in (
        lambda: A.sdpa_kernel("math").__enter__(),
        lambda: B.causal_upper_left(1, 2, 3),
        lambda: B.CausalBias(1, 2, 3),
    ):
        try:
            bad()
        except AssertionError as e:
            seen.append(str(e))
    return seen


def test_sdpa_kernel_and_causal_biases_match_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's warnings about the kernels it skipped
        assert _attention_api(jtensor) == _attention_api(torch)


def test_a_lower_right_bias_taller_than_wide_warns():
    from jtensor.nn.attention.bias import causal_lower_right

    with pytest.warns(UserWarning, match="will produce NaNs in the output"):
        causal_lower_right(4, 2)


def _reduced_sdpa(L, dtype, shape, variant, seed):
    rng = np.random.default_rng(seed)
    B, H, Lq, S, D = shape
    q, k, v = (
        L.tensor(rng.standard_normal((B, H, n, D)).astype(np.float32)).to(dtype) for n in (Lq, S, S)
    )
    kw = {}
    if variant == "causal":
        kw["is_causal"] = True
    elif variant == "bool mask":
        kw["attn_mask"] = L.tensor(rng.random((Lq, S)) > 0.3)
    elif variant == "float mask":
        kw["attn_mask"] = L.tensor(rng.standard_normal((Lq, S)).astype(np.float32)).to(dtype)
    return L.nn.functional.scaled_dot_product_attention(q, k, v, **kw).float().numpy()


@pytest.mark.parametrize("variant", ["plain", "causal", "bool mask", "float mask"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("shape", [(1, 2, 6, 6, 8), (1, 2, 8, 8, 8)])
def test_bf16_and_fp16_attention_round_as_the_fused_kernel(shape, dtype, variant):
    # Scores, exp and sums in float32, p rounded once for p @ v, one rounding at the end:
    # the reference path's three bfloat16 roundings made half the outputs differ.
    # bfloat16 to the bit; float16 (10 mantissa bits) to about an ulp (a few near zero), where
    # PyTorch's vectorised exp rounds a score's exponential differently now and then.
    mine = _reduced_sdpa(jtensor, getattr(jtensor, dtype), shape, variant, 5)
    theirs = _reduced_sdpa(torch, getattr(torch, dtype), shape, variant, 5)
    if dtype == "bfloat16":
        assert mine.tobytes() == theirs.tobytes()
    else:
        np.testing.assert_allclose(mine, theirs, rtol=2.0**-10, atol=2.0**-12)
        assert (mine != theirs).mean() < 0.05


def test_bf16_attention_still_has_gradients():
    q = jtensor.randn(1, 2, 4, 8, dtype=jtensor.bfloat16, requires_grad=True)
    out = jtensor.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    out.float().sum().backward()
    assert q.grad.dtype == jtensor.bfloat16 and q.grad.shape == q.shape
    assert bool(jtensor.isfinite(q.grad.float()).all())
