"""Top-level names of issue 15's coverage list (tests/core/test_api_coverage_torch.py):
``torch.compile``/``torch.compiler``, PyTorch's error classes, and the top-level functional
forms and Tensor methods, each against PyTorch."""

import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))


# ----------------------------------------------------------------------- torch.compile
def test_compile_module_wraps_with_orig_mod():
    results = []
    for lib in (torch, jtensor):
        model = _model(lib)
        compiled = lib.compile(model)
        assert type(compiled).__name__ == "OptimizedModule"
        assert isinstance(compiled, lib.nn.Module)
        assert compiled._orig_mod is model
        with pytest.raises(TypeError):
            compiled[0]  # not a Sequential: only attributes are forwarded
        assert compiled.__dict__.get("_orig_mod") is None  # a registered child
        assert compiled.training and len(compiled) == 3
        compiled.eval()
        assert not model.training and not compiled.training
        results.append(
            (
                list(compiled.state_dict()),
                [n for n, _ in compiled.named_parameters()],
                repr(compiled),
            )
        )
        # Attribute writes reach the original module, as in PyTorch.
        compiled.extra = 5
        assert model.extra == 5
    assert results[0][0] == results[1][0]
    assert results[0][1] == results[1][1]
    assert results[0][2] == results[1][2]


def test_compiled_module_runs_the_original():
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    outs = []
    for lib in (torch, jtensor):
        model = _model(lib)
        # PyTorch's reference runs uncompiled (inductor takes a minute); its result is the same.
        compiled = jtensor.compile(model, mode="max-autotune") if lib is jtensor else model
        out = compiled(lib.tensor(x))
        out.sum().backward()
        outs.append((out.detach().numpy(), model[0].weight.grad.numpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-5, atol=1e-6)


def test_compiled_state_dict_loads_back():
    model = _model(jtensor)
    compiled = jtensor.compile(model)
    state = compiled.state_dict()
    other = jtensor.compile(_model(jtensor))
    other.load_state_dict(state)
    assert all(k.startswith("_orig_mod.") for k in state)


def test_compile_function_and_decorator():
    def f(x):
        """doc"""
        return x * 2 + 1

    for lib in (torch, jtensor):
        g = lib.compile(f)
        assert g is not f and g.__wrapped__ is f and g.__name__ == "f" and g.__doc__ == "doc"
        assert lib.compile(f, disable=True) is f
        deco = lib.compile(mode="reduce-overhead", fullgraph=True)
        h = deco(f)
        assert h.__wrapped__ is f
        assert float(h.__wrapped__(lib.tensor(2.0))) == 5.0
    assert float(jtensor.compile(f)(jtensor.tensor(2.0))) == 5.0
    assert not jtensor.compiler.is_compiling() and not torch.compiler.is_compiling()
    assert jtensor.compiler.list_backends() == torch.compiler.list_backends()
    assert jtensor.compiler.get_default_backend() == torch.compiler.get_default_backend()


@pytest.mark.parametrize(
    "kwargs", [dict(mode="fast"), dict(mode="default", options={}), dict(backend="nope")]
)
def test_compile_argument_errors(kwargs):
    def f(x):
        return x

    with pytest.raises(Exception) as expected:
        torch.compile(f, **kwargs)
    with pytest.raises(RuntimeError) as got:
        jtensor.compile(f, **kwargs)
    assert type(got.value).__name__ == type(expected.value).__name__
    assert str(got.value) == str(expected.value)


def test_compile_non_callable():
    with pytest.raises(AssertionError, match="A callable function is expected"):
        torch.compile(3)
    with pytest.raises(AssertionError, match="A callable function is expected"):
        jtensor.compile(3)


# ----------------------------------------------------------------------- error classes
@pytest.mark.parametrize("name", ["OutOfMemoryError", "AcceleratorError"])
def test_error_classes(name):
    theirs, ours = getattr(torch, name), getattr(jtensor, name)
    assert getattr(jtensor.cuda, name) is ours and getattr(torch.cuda, name) is theirs
    assert (
        ours.__mro__[1:] == theirs.__mro__[1:] == (RuntimeError, Exception, BaseException, object)
    )
    assert ours.__name__ == theirs.__name__
    assert jtensor.cuda.DeviceSideError is jtensor.AcceleratorError
    with warnings.catch_warnings():
        assert str(ours("no memory")) == str(theirs("no memory"))


# ----------------------------------------------------------------------- top-level nn forms
def _t(lib, shape, seed, grad=True, positive=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    if positive:
        a = np.abs(a) + 0.1
    return lib.tensor(a, dtype=lib.float64, requires_grad=grad)


def _nn_cases():
    def ln(lib, x):
        return lib.log_softmax(x, 1)

    return {
        "batch_norm": lambda lib: lib.batch_norm(
            _t(lib, (4, 3), 0),
            _t(lib, (3,), 1),
            _t(lib, (3,), 2),
            None,
            None,
            True,
            0.1,
            1e-5,
            True,
        ),
        "batch_norm_running": lambda lib: lib.batch_norm(
            _t(lib, (4, 3, 2), 0),
            None,
            None,
            lib.zeros(3, dtype=lib.float64),
            lib.ones(3, dtype=lib.float64),
            False,
            0.1,
            1e-5,
            False,
        ),
        "instance_norm": lambda lib: lib.instance_norm(
            _t(lib, (2, 3, 5), 0), _t(lib, (3,), 1), None, None, None, True, 0.1, 1e-5, True
        ),
        "layer_norm": lambda lib: lib.layer_norm(
            _t(lib, (2, 3, 4), 0), [3, 4], _t(lib, (3, 4), 1), None
        ),
        "group_norm": lambda lib: lib.group_norm(_t(lib, (2, 4, 3), 0), 2),
        "rms_norm": lambda lib: lib.rms_norm(_t(lib, (2, 3, 4), 0), [4], _t(lib, (4,), 1)),
        "embedding": lambda lib: lib.embedding(_t(lib, (5, 3), 0), lib.tensor([[1, 2], [4, 1]])),
        "embedding_pad": lambda lib: lib.embedding(_t(lib, (5, 3), 0), lib.tensor([1, 2, 1]), 1),
        "kl_div": lambda lib: lib.kl_div(
            ln(lib, _t(lib, (3, 4), 0)), lib.softmax(_t(lib, (3, 4), 1, False), 1)
        ),
        "kl_div_none_log": lambda lib: lib.kl_div(
            ln(lib, _t(lib, (3, 4), 0)), ln(lib, _t(lib, (3, 4), 1, False)), 0, log_target=True
        ),
        "kl_div_3": lambda lib: lib.kl_div(
            ln(lib, _t(lib, (3, 4), 0)), lib.softmax(_t(lib, (3, 4), 1, False), 1), 3
        ),
        "ctc_loss": lambda lib: lib.ctc_loss(
            lib.log_softmax(_t(lib, (6, 2, 4), 0), 2), lib.tensor([[1, 2], [3, 3]]), [6, 5], [2, 2]
        ),
        "ctc_loss_sum": lambda lib: lib.ctc_loss(
            lib.log_softmax(_t(lib, (6, 2, 4), 0), 2),
            lib.tensor([[1, 2], [3, 1]]),
            lib.tensor([6, 5]),
            lib.tensor([2, 1]),
            0,
            2,
            True,
        ),
        "cosine_embedding_loss": lambda lib: lib.cosine_embedding_loss(
            _t(lib, (3, 4), 0), _t(lib, (3, 4), 1), lib.tensor([1, -1, 1]), 0.2, 2
        ),
        "margin_ranking_loss": lambda lib: lib.margin_ranking_loss(
            _t(lib, (5,), 0),
            _t(lib, (5,), 1),
            lib.tensor([1.0, -1, 1, -1, 1], dtype=lib.float64),
            0.1,
        ),
        "hinge_embedding_loss": lambda lib: lib.hinge_embedding_loss(
            _t(lib, (5,), 0), lib.tensor([1.0, -1, 1, -1, 1], dtype=lib.float64), 1.0, 0
        ),
        "triplet_margin_loss": lambda lib: lib.triplet_margin_loss(
            _t(lib, (3, 4), 0), _t(lib, (3, 4), 1), _t(lib, (3, 4), 2), 1.0, 2, 1e-6, True
        ),
        "poisson_nll_loss": lambda lib: lib.poisson_nll_loss(
            _t(lib, (3, 4), 0), _t(lib, (3, 4), 1, False, True), True, True, 1e-8, 1
        ),
        "bce_with_logits": lambda lib: lib.binary_cross_entropy_with_logits(
            _t(lib, (3, 4), 0),
            lib.sigmoid(_t(lib, (3, 4), 1, False)),
            None,
            _t(lib, (4,), 2, False, True),
            2,
        ),
        "constant_pad_nd": lambda lib: lib.constant_pad_nd(_t(lib, (2, 3), 0), [1, 2, -1, 1], 1.5),
        "convolution": lambda lib: lib.convolution(
            _t(lib, (1, 2, 5, 5), 0),
            _t(lib, (4, 1, 2, 2), 1),
            _t(lib, (4,), 2),
            [1, 2],
            [1, 0],
            [1, 1],
            False,
            [0, 0],
            2,
        ),
        "convolution_transposed": lambda lib: lib.convolution(
            _t(lib, (1, 2, 5), 0), _t(lib, (2, 3, 3), 1), None, [2], [1], [1], True, [1], 1
        ),
        "adaptive_max_pool1d": lambda lib: lib.adaptive_max_pool1d(_t(lib, (1, 2, 8), 0), 3),
        "max_pool1d_with_indices": lambda lib: lib.max_pool1d_with_indices(
            _t(lib, (1, 2, 9), 0), 3
        ),
        "max_pool1d_with_indices_args": lambda lib: lib.max_pool1d_with_indices(
            _t(lib, (2, 9), 0), 3, 2, 1, 1, True
        ),
    }


# F.group_norm of jtensor is a composition of public ops (its last node is a view), not
# PyTorch's fused NativeGroupNormBackward0; values and gradients agree.
_COMPOSITE_NODE = {"group_norm"}


def _outputs(result):
    return list(result) if isinstance(result, tuple) else [result]


@pytest.mark.parametrize("case", sorted(_nn_cases()))
def test_toplevel_nn_forms(case):
    fn = _nn_cases()[case]
    expected, got = _outputs(fn(torch)), _outputs(fn(jtensor))
    assert len(expected) == len(got)
    for e, g in zip(expected, got, strict=True):
        assert tuple(g.shape) == tuple(e.shape) and str(g.dtype) == str(e.dtype)
        np.testing.assert_allclose(g.detach().numpy(), e.detach().numpy(), rtol=1e-6, atol=1e-9)
        if case not in _COMPOSITE_NODE:
            assert type(g.grad_fn).__name__ == type(e.grad_fn).__name__
    assert expected[0].requires_grad == got[0].requires_grad


@pytest.mark.parametrize("fn", ["kl_div", "poisson_nll_loss", "hinge_embedding_loss"])
def test_toplevel_losses_reduction_must_be_int(fn):
    x = [np.ones((2, 2))] * 2
    args = {"poisson_nll_loss": (True, False, 1e-8, "mean")}.get(fn, ())
    for lib in (torch, jtensor):
        call = getattr(lib, fn)
        a, b = lib.tensor(x[0]), lib.tensor(x[1])
        with pytest.raises(TypeError, match="argument 'reduction'"):
            call(a, b, *args) if args else call(a, b, reduction="mean")


@pytest.mark.parametrize(
    "name", ["dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout"]
)
@pytest.mark.parametrize("inplace", [False, True])
def test_toplevel_dropout(name, inplace):
    results = []
    for lib in (torch, jtensor):
        fn = getattr(lib, name + ("_" if inplace else ""))
        x = lib.ones(3, 4, 2, dtype=lib.float64)
        lib.manual_seed(7)
        leaf = _t(lib, (3, 4, 2), 3)
        src = leaf * 1 if inplace else leaf
        out = fn(src, 0.4, True)
        assert (out is src) == inplace
        out.sum().backward()
        results.append((out.detach().numpy(), leaf.grad.numpy(), type(out.grad_fn).__name__))
        assert fn(x, 0.4, False) is x and fn(x, 0.0, True) is x
        with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1"):
            fn(x, 1.5, True)
        zero = fn(lib.ones(2, 3), 1.0, True)
        assert float(zero.abs().sum()) == 0.0
    # jtensor draws the same Bernoulli stream as PyTorch's CPU generator.
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)
    assert results[0][2] == results[1][2]


def test_feature_dropout_needs_two_dims():
    for lib in (torch, jtensor):
        with pytest.raises(RuntimeError, match="Feature dropout requires at least 2"):
            lib.feature_dropout(lib.ones(3), 0.5, True)


def test_convolution_weight_dims():
    for lib in (torch, jtensor):
        with pytest.raises(RuntimeError, match="weight should have at least three dimensions"):
            lib.convolution(lib.ones(1, 2, 5), lib.ones(3, 2), None, [1], [0], [1], False, [0], 1)
