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
