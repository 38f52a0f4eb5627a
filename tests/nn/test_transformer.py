"""``nn.Transformer``, ``TransformerEncoder``/``Decoder`` and their layers against PyTorch:
the same fresh weights for the same seed (so the same deep-copied layers), ``state_dict``
keys, ``repr``, constructor warnings, outputs and input/parameter gradients in float64 in
train mode (dropout draws included) and eval mode, masks, errors, a float64 gradcheck."""

import warnings

import numpy as np
import pytest

import jtensor
from jtensor.autograd import gradcheck
from tests.harness.training import assert_same_error, copy_weights

torch = pytest.importorskip("torch")

pytestmark = [
    pytest.mark.devices,
    pytest.mark.filterwarnings("ignore:enable_nested_tensor is True"),
]

KINDS = ["encoder_layer", "decoder_layer", "encoder", "decoder", "transformer"]
CONFIGS = [
    {},
    {"batch_first": True},
    {"norm_first": True, "activation": "gelu"},
    {"activation": "module"},
    {"bias": False},
]


def _build(lib, kind, kw):
    kw = dict(kw)
    if kw.get("activation") == "module":
        kw["activation"] = lib.nn.GELU()
    f64 = {"dtype": lib.float64}
    if kind == "encoder_layer":
        return lib.nn.TransformerEncoderLayer(8, 2, 16, **f64, **kw)
    if kind == "decoder_layer":
        return lib.nn.TransformerDecoderLayer(8, 2, 16, **f64, **kw)
    if kind == "encoder":
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, **f64, **kw)
        return lib.nn.TransformerEncoder(layer, 2, lib.nn.LayerNorm(8, **f64))
    if kind == "decoder":
        return lib.nn.TransformerDecoder(lib.nn.TransformerDecoderLayer(8, 2, 16, **f64, **kw), 2)
    return lib.nn.Transformer(8, 2, 2, 2, 16, **f64, **kw)


def _pair(kind, kw, seed=1):
    built = {}
    for lib in (torch, jtensor):
        lib.manual_seed(seed)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            built[lib] = _build(lib, kind, kw)
        built[lib, "warnings"] = [str(w.message) for w in caught]
    return built


def _np(t):
    return t.detach().cpu().numpy()


@pytest.mark.parametrize("kw", CONFIGS, ids=str)
@pytest.mark.parametrize("kind", KINDS)
def test_fresh_modules_have_pytorchs_weights_keys_repr_and_warnings(kind, kw):
    built = _pair(kind, kw)
    jm, tm = built[jtensor], built[torch]
    assert built[jtensor, "warnings"] == built[torch, "warnings"]
    js, ts = jm.state_dict(), tm.state_dict()
    assert list(js) == list(ts)
    for name in ts:
        np.testing.assert_array_equal(_np(js[name]), _np(ts[name]), err_msg=name)
    assert repr(jm) == repr(tm)


def _inputs(kind, kw, rng):
    bf = kw.get("batch_first", False)
    src = rng.standard_normal((3, 5, 8) if bf else (5, 3, 8))
    tgt = rng.standard_normal((3, 4, 8) if bf else (4, 3, 8))
    causal = np.triu(np.full((4, 4), -np.inf), 1)
    padding = rng.random((3, 5)) > 0.7
    padding[:, 0] = False
    if kind == "encoder_layer":
        return [src], {"src_key_padding_mask": padding}
    if kind == "encoder":
        return [src], {"mask": np.triu(np.full((5, 5), -np.inf), 1)}
    if kind in ("decoder_layer", "decoder"):
        return [tgt, src], {"tgt_mask": causal, "memory_key_padding_mask": padding}
    return [src, tgt], {"tgt_mask": causal, "src_key_padding_mask": padding}


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("kw", CONFIGS, ids=str)
@pytest.mark.parametrize("kind", KINDS)
def test_forward_and_backward_match_pytorch(kind, kw, train):
    built = _pair(kind, kw)
    rng = np.random.default_rng(0)
    arrays, masks = _inputs(kind, kw, rng)
    g = None
    results = {}
    for lib in (torch, jtensor):
        module = built[lib].train(train)
        inputs = [lib.tensor(a, requires_grad=True) for a in arrays]
        lib.manual_seed(7)
        out = module(*inputs, **{k: lib.tensor(v) for k, v in masks.items()})
        if g is None:
            g = rng.standard_normal(tuple(out.shape))
        out.backward(lib.tensor(g))
        results[lib] = [out] + [x.grad for x in inputs] + [p.grad for p in module.parameters()]
    for a, b in zip(results[jtensor], results[torch], strict=True):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-9, atol=1e-12)


def test_eval_without_grad_equals_pytorchs_fast_path_without_padding():
    built = _pair("encoder", {"batch_first": True})
    x = np.random.default_rng(3).standard_normal((2, 5, 8))
    outs = []
    for lib in (torch, jtensor):
        with lib.no_grad():
            outs.append(_np(built[lib].eval()(lib.tensor(x))))
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-7, atol=1e-9)


def test_unbatched_input_and_state_dict_round_trip():
    built = _pair("transformer", {})
    jm, tm = built[jtensor], built[torch]
    torch.manual_seed(5)
    other = _build(torch, "transformer", {})
    copy_weights(jm, other)
    rng = np.random.default_rng(4)
    src, tgt = rng.standard_normal((5, 8)), rng.standard_normal((4, 8))
    with torch.no_grad():
        expected = other.eval()(torch.tensor(src), torch.tensor(tgt))
    got = jm.eval()(jtensor.tensor(src), jtensor.tensor(tgt))
    np.testing.assert_allclose(_np(got), _np(expected), rtol=1e-9, atol=1e-12)
    assert tm is not other


def test_layers_are_independent_deep_copies():
    jm = _pair("encoder", {})[jtensor]
    a, b = jm.layers[0], jm.layers[1]
    assert a is not b and a.linear1.weight is not b.linear1.weight
    with jtensor.no_grad():
        a.linear1.weight.zero_()
    assert bool(b.linear1.weight.abs().sum() > 0)


@pytest.mark.parametrize("dtype", [None, "float64"])
def test_generate_square_subsequent_mask(dtype):
    masks = [
        lib.nn.Transformer.generate_square_subsequent_mask(
            4, dtype=None if dtype is None else getattr(lib, dtype)
        )
        for lib in (torch, jtensor)
    ]
    np.testing.assert_array_equal(_np(masks[0]), _np(masks[1]))
    assert str(masks[0].dtype) == str(masks[1].dtype)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
        lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.zeros(5, 3, 8), lib.zeros(4, 2, 8)),
        lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.zeros(5, 3, 8), lib.zeros(4, 3, 6)),
        lambda lib: lib.nn.TransformerEncoderLayer(8, 3),
    ],
    ids=["activation", "batch", "d_model", "heads"],
)
def test_errors_match_pytorch(call):
    assert_same_error(call)


def test_encoder_layer_gradcheck_float64():
    jtensor.manual_seed(0)
    layer = jtensor.nn.TransformerEncoderLayer(
        4, 2, 6, dropout=0.0, dtype=jtensor.float64, norm_first=True
    )
    x = jtensor.randn(3, 2, 4, dtype=jtensor.float64, requires_grad=True)
    mask = jtensor.nn.Transformer.generate_square_subsequent_mask(3, dtype=jtensor.float64)
    assert gradcheck(lambda t, w: layer(t * w.sum(), src_mask=mask), (x, layer.linear1.weight))


@pytest.mark.parametrize("kind", ["TransformerEncoderLayer", "TransformerDecoderLayer"])
def test_deep_copied_module_activation_is_pytorchs(kind):
    # PyTorch's decoder layer falls back to relu when deep-copied with a module activation
    # (its __setstate__ looks in the instance dict); the encoder layer keeps the module.
    import copy

    names = [
        type(
            copy.deepcopy(getattr(lib.nn, kind)(8, 2, 16, activation=lib.nn.GELU())).activation
        ).__name__
        for lib in (torch, jtensor)
    ]
    assert names[0] == names[1]
