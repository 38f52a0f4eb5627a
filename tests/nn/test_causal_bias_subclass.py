"""``torch.nn.attention.bias.CausalBias`` is a ``Tensor`` subclass, as PyTorch's (its SDPA
tutorial asserts ``isinstance(bias, torch.Tensor)``), and behaves as PyTorch's: the tensor
itself is PyTorch's uninitialised ``(variant, seq_len_q, seq_len_kv)`` one (shape, dtype,
arithmetic on it), ``repr`` and ``_materialize`` give the mask, and
``scaled_dot_product_attention`` takes it as ``attn_mask`` (forward, gradients, the
``torch.func`` transforms, ``is_causal=True`` refused with PyTorch's ValueError). Every
behaviour is compared with PyTorch's."""

import copy
import importlib
import pickle
import warnings

import numpy as np
import pytest

import jtensor
from tests.harness.training import assert_same_error

torch = pytest.importorskip("torch")

SIZES = [(3, 3), (3, 5), (5, 3), (1, 4)]
VARIANTS = ["causal_upper_left", "causal_lower_right"]


def _bias_module(L):
    return importlib.import_module(L.__name__ + ".nn.attention.bias")


def _make(L, variant, size):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a lower-right bias taller than wide warns
        return getattr(_bias_module(L), variant)(*size)


def _np(t):
    return t.detach().cpu().numpy()


def _qkv(L, lq, s, *, rank=4, dtype="float64", seed=0, requires_grad=False):
    rng = np.random.default_rng(seed)
    lead = (2, 3)[: rank - 2]
    arrays = [rng.standard_normal((*lead, n, 8)) for n in (lq, s, s)]
    return [L.tensor(a, dtype=getattr(L, dtype)).requires_grad_(requires_grad) for a in arrays]


# --------------------------------------------------------------------------- the class
def test_causal_bias_is_a_tensor_as_in_pytorch():
    for L in (jtensor, torch):
        B = _bias_module(L)
        bias = B.causal_upper_left(2, 3)
        assert isinstance(bias, L.Tensor)
        assert issubclass(B.CausalBias, L.Tensor)
        assert L.is_tensor(bias)
        assert type(bias) is B.CausalBias
        assert isinstance(B.causal_lower_right(3, 3), L.Tensor)
    assert jtensor.nn.attention.bias.__all__ == torch.nn.attention.bias.__all__


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_metadata_and_attributes_match_pytorch(variant, size):
    def seen(L):
        bias = _make(L, variant, size)
        return [
            tuple(bias.shape),
            tuple(bias.size()),
            bias.stride(),
            bias.dim(),
            bias.ndim,
            bias.numel(),
            len(bias),
            str(bias.dtype),
            str(bias.device),
            str(bias.layout),
            bias.requires_grad,
            bias.is_leaf,
            bias.grad_fn,
            bias.is_contiguous(),
            bias.seq_len_q,
            bias.seq_len_kv,
            bias.variant.name,
            int(bias.variant),
            repr(bias.variant),
            type(bias.seq_len_q).__name__,
            bias.to(L.float32) is bias,  # no conversion: the bias itself
            bias.to("cpu") is bias,
        ]

    assert seen(jtensor) == seen(torch)


def test_the_tensor_follows_the_default_dtype_as_pytorchs_legacy_constructor():
    def seen(L):
        previous = L.get_default_dtype()
        L.set_default_dtype(L.float64)
        try:
            return str(_bias_module(L).causal_lower_right(2, 3).dtype)
        finally:
            L.set_default_dtype(previous)

    assert seen(jtensor) == seen(torch) == "torch.float64"


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_repr_str_and_format_print_the_mask(variant, size):
    def seen(L):
        bias = _make(L, variant, size)
        return [repr(bias), str(bias), f"{bias}", f"{bias!s:>5}"]

    ours, theirs = seen(jtensor), seen(torch)
    assert ours == theirs
    assert "True" in ours[0]


@pytest.mark.parametrize("size", SIZES + [(2, 6), (6, 2), (0, 3)])
@pytest.mark.parametrize("variant", VARIANTS)
def test_materialize_gives_pytorchs_boolean_mask(variant, size):
    def seen(L):
        bias = _make(L, variant, size)
        out = []
        for args in ((), ("cpu",), (L.device("cpu"),), (None,)):
            mask = bias._materialize(*args)
            assert type(mask) is L.Tensor  # a plain tensor, not a bias
            out.append((str(mask.dtype), str(mask.device), _np(mask).tolist()))
        explicit = bias._upper_left("cpu") if variant == VARIANTS[0] else bias._lower_right("cpu")
        out.append(_np(explicit).tolist())
        return out

    assert seen(jtensor) == seen(torch)


def test_the_variants_masks_are_the_documented_triangles():
    B = jtensor.nn.attention.bias
    upper = np.tril(np.ones((3, 4), dtype=bool))
    lower = np.tril(np.ones((3, 4), dtype=bool), 4 - 3)
    assert (_np(B.causal_upper_left(3, 4)._materialize()) == upper).all()
    assert (_np(B.causal_lower_right(3, 4)._materialize()) == lower).all()


def test_construction_refusals_and_warning_match_pytorch():
    for make in (
        lambda L: _bias_module(L).CausalBias("upper", 2, 3),  # the legacy constructor's
        lambda L: _bias_module(L).CausalBias(1, 2, 3),  # not a CausalVariant
        lambda L: _bias_module(L).causal_upper_left(1, 2, 3),
        lambda L: _bias_module(L).causal_lower_right(4),
        lambda L: _bias_module(L).CausalBias(_bias_module(L).CausalVariant.UPPER_LEFT, -1, 3),
    ):
        with pytest.raises(Exception) as theirs:
            make(torch)
        with pytest.raises(type(theirs.value)) as ours:
            make(jtensor)
        if type(theirs.value) is not TypeError:  # (the legacy constructor words it its way)
            assert str(ours.value) == str(theirs.value)
    with pytest.warns(UserWarning, match="Lower right causal bias will produce NaNs"):
        jtensor.nn.attention.bias.causal_lower_right(4, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jtensor.nn.attention.bias.causal_upper_left(4, 2)  # no warning for upper-left
        jtensor.nn.attention.bias.causal_lower_right(2, 4)


def test_pickle_keeps_the_bias_and_deepcopy_refuses_as_pytorch():
    def seen(L):
        bias = _make(L, "causal_lower_right", (2, 3))
        back = pickle.loads(pickle.dumps(bias))
        return [
            type(back).__name__,
            back.variant.name,
            back.seq_len_q,
            back.seq_len_kv,
            tuple(back.shape),
            repr(back),
        ]

    assert seen(jtensor) == seen(torch)
    assert_same_error(lambda L: copy.deepcopy(_make(L, "causal_upper_left", (2, 3))))


# ------------------------------------------------------------------ as a plain tensor
@pytest.mark.parametrize("variant", VARIANTS)
def test_arithmetic_sees_pytorchs_uninitialised_tensor_not_the_mask(variant):
    """PyTorch refuses nothing here: ``scores + bias`` and friends compute on the bias's own
    (uninitialised) ``(variant, L, S)`` float tensor. The shapes and dtypes match; the
    values are memory neither library initialised, so they are not compared."""

    def seen(L):
        bias = _make(L, variant, (3, 4))
        scores = L.zeros(3, 4)
        results = [
            scores + bias,
            bias + scores,
            bias * 2,
            bias.float(),
            bias.to(L.float64),
            bias.to(L.bool),
            bias.logical_not(),
            bias == bias,
            bias[0],
            bias.sum(),
            bias.clone(),
            bias.detach(),
            bias.contiguous(),
        ]
        return [(tuple(r.shape), str(r.dtype), isinstance(r, L.Tensor)) for r in results]

    assert seen(jtensor) == seen(torch)


@pytest.mark.parametrize(
    "call",
    [
        lambda L, b: ~b,  # a float tensor: no bitwise not
        lambda L, b: L.zeros(3, 4).masked_fill(~b, 0.0),
        lambda L, b: L.where(b, 1.0, 0.0),  # not a boolean condition
        lambda L, b: bool(b),
    ],
    ids=["invert", "masked_fill", "where", "bool"],
)
def test_using_it_as_a_boolean_tensor_fails_as_pytorch(call):
    with pytest.raises(Exception) as theirs:
        call(torch, _make(torch, "causal_upper_left", (3, 4)))
    with pytest.raises(type(theirs.value)) as ours:
        call(jtensor, _make(jtensor, "causal_upper_left", (3, 4)))
    # jtensor's messages are PyTorch's, sometimes with a hint after them
    assert str(ours.value).startswith(str(theirs.value))


# ------------------------------------------------------------------ as attn_mask
def _sdpa_grads(L, variant, lq, s, rank, how):
    F = L.nn.functional
    q, k, v = _qkv(L, lq, s, rank=rank, requires_grad=True)
    bias = _make(L, variant, (lq, s))
    if how == "bias":
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    elif how == "positional":
        out = F.scaled_dot_product_attention(q, k, v, bias)
    else:
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias._materialize())
    weights = L.tensor(np.linspace(-1.0, 1.0, out.numel()).reshape(tuple(out.shape)))
    (out * weights).sum().backward()
    return [_np(out), _np(q.grad), _np(k.grad), _np(v.grad)]


@pytest.mark.parametrize("rank", [4, 3])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_as_attn_mask_equals_the_explicit_mask_forward_and_backward(variant, size, rank):
    lq, s = size
    ours = _sdpa_grads(jtensor, variant, lq, s, rank, "bias")
    for reference in (
        _sdpa_grads(jtensor, variant, lq, s, rank, "mask"),
        _sdpa_grads(jtensor, variant, lq, s, rank, "positional"),
        _sdpa_grads(torch, variant, lq, s, rank, "bias"),
    ):
        for a, b in zip(ours, reference, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert not np.isnan(ours[0]).any()  # a fully masked row gives zeros, as PyTorch's CPU


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_as_attn_mask_in_float32_and_bfloat16_matches_pytorch(variant, dtype):
    def out(L):
        q, k, v = _qkv(L, 4, 6, dtype=dtype, seed=1)
        bias = _make(L, variant, (4, 6))
        result = L.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        return str(result.dtype), _np(result.float())

    (jd, ja), (td, ta) = out(jtensor), out(torch)
    assert jd == td
    np.testing.assert_allclose(ja, ta, rtol=1e-2 if dtype == "bfloat16" else 1e-5, atol=1e-5)


@pytest.mark.parametrize("variant", VARIANTS)
def test_with_is_causal_true_raises_pytorchs_value_error(variant):
    for size in ((3, 3), (3, 5)):

        def call(L, size=size):
            q, k, v = _qkv(L, *size)
            bias = _make(L, variant, size)
            return L.nn.functional.scaled_dot_product_attention(
                q, k, v, attn_mask=bias, is_causal=True
            )

        assert_same_error(call)
        with pytest.raises(ValueError, match="CausalBias should not be used with causal=True"):
            call(jtensor)


@pytest.mark.parametrize(
    "variant, bias_size",
    [
        ("causal_upper_left", (2, 2)),  # upper-left: is_causal=True, the lengths unused
        ("causal_upper_left", (7, 1)),
        ("causal_lower_right", (2, 2)),  # equal lengths: is_causal=True too
        ("causal_lower_right", (2, 3)),  # materialised: does not broadcast to (3, 4)
    ],
)
def test_a_bias_of_other_lengths_than_the_inputs_as_pytorch(variant, bias_size):
    def call(L):
        q, k, v = _qkv(L, 3, 4)
        bias = _make(L, variant, bias_size)
        return _np(L.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias))

    try:
        theirs = call(torch)
    except RuntimeError:
        assert_same_error(call)
        return
    np.testing.assert_allclose(call(jtensor), theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "change",
    [
        lambda L, q, k, v: (q.float(), k, v),  # dtypes differ
        lambda L, q, k, v: (q[0, 0, 0], k[0, 0, 0], v[0, 0, 0]),  # one dimension
    ],
    ids=["dtype", "rank"],
)
def test_lower_right_input_checks_raise_pytorchs_value_errors(change):
    def call(L):
        q, k, v = change(L, *_qkv(L, 3, 5))
        bias = _make(L, "causal_lower_right", (3, 5))
        return L.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)

    assert_same_error(call)
    with pytest.raises(ValueError):
        call(jtensor)


@pytest.mark.parametrize("variant", VARIANTS)
def test_scale_gqa_and_sdpa_kernel_with_a_bias_match_pytorch(variant):
    def seen(L):
        A = importlib.import_module(L.__name__ + ".nn.attention")
        F = L.nn.functional
        q, k, v = _qkv(L, 3, 5)
        q4 = L.cat([q, q * 0.5], 1)  # 6 query heads over 3 key/value heads
        bias = _make(L, variant, (3, 5))
        out = [
            _np(F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=0.3)),
            _np(F.scaled_dot_product_attention(q4, k, v, attn_mask=bias, enable_gqa=True)),
        ]
        with A.sdpa_kernel(A.SDPBackend.MATH):
            out.append(_np(F.scaled_dot_product_attention(q, k, v, attn_mask=bias)))
        with A.sdpa_kernel([A.SDPBackend.FLASH_ATTENTION]), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's notes on the kernels it skipped
            try:
                F.scaled_dot_product_attention(q, k, v, attn_mask=bias, dropout_p=0.5)
            except RuntimeError as e:
                out.append(str(e))
        return out

    ours, theirs = seen(jtensor), seen(torch)
    assert ours[3] == theirs[3]
    for a, b in zip(ours[:3], theirs[:3], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_multihead_attention_sees_the_tensor_itself_as_pytorch():
    def call(L):
        L.manual_seed(0)
        mha = L.nn.MultiheadAttention(8, 2, batch_first=True)
        x = L.zeros(2, 3, 8)
        return mha(x, x, x, attn_mask=_make(L, "causal_upper_left", (3, 3)), need_weights=False)

    assert_same_error(call)


# ------------------------------------------------------------------ autograd, torch.func
def _func_results(L, variant, transform):
    F = L.nn.functional
    q, k, v = _qkv(L, 3, 5, seed=2)
    bias = _make(L, variant, (3, 5))

    def attend(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=bias)

    def loss(q, k, v):
        return (attend(q, k, v) ** 2).sum()

    if transform == "vmap":
        result = L.func.vmap(attend)(q, k, v)
    elif transform == "grad":
        result = L.func.grad(loss, argnums=(0, 1, 2))(q, k, v)
    elif transform == "vmap_grad":
        result = L.func.vmap(L.func.grad(loss))(q, k, v)
    elif transform == "jacrev":
        result = L.func.jacrev(lambda q: attend(q, k, v).sum(-1))(q[:1, :1])
    else:  # autograd.grad (PyTorch's CPU kernel has no second derivative to compare)
        for t in (q, k, v):
            t.requires_grad_()
        result = L.autograd.grad(loss(q, k, v), (q, k, v))
    return [_np(r) for r in (result if isinstance(result, tuple) else (result,))]


@pytest.mark.parametrize("transform", ["vmap", "grad", "vmap_grad", "jacrev", "autograd"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_inside_torch_func_and_autograd_matches_pytorch(variant, transform):
    ours, theirs = (
        _func_results(jtensor, variant, transform),
        _func_results(torch, variant, transform),
    )
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)
