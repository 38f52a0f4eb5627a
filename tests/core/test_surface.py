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


# (ops whose jtensor graph is a composition of public ops, unlike PyTorch's fused node)
_COMPOSITE_NODE = set()


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


# ----------------------------------------------------------------------- *_copy ops
_COPIES = {
    "alias_copy": lambda lib, x: lib.alias_copy(x),
    "as_strided_copy": lambda lib, x: lib.as_strided_copy(x, (2, 2), (1, 2), 1),
    "detach_copy": lambda lib, x: lib.detach_copy(x),
    "diagonal_copy": lambda lib, x: lib.diagonal_copy(x, -1),
    "expand_copy": lambda lib, x: lib.expand_copy(x[:, :1], [2, 3, 1]),
    "permute_copy": lambda lib, x: lib.permute_copy(x, [1, 0]),
    "select_copy": lambda lib, x: lib.select_copy(x, 0, 1),
    "split_copy": lambda lib, x: lib.split_copy(x, 2, 1),
    "split_with_sizes_copy": lambda lib, x: lib.split_with_sizes_copy(x, [3, 1], 1),
    "squeeze_copy": lambda lib, x: lib.squeeze_copy(x[:1]),
    "t_copy": lambda lib, x: lib.t_copy(x),
    "transpose_copy": lambda lib, x: lib.transpose_copy(x, 0, 1),
    "unbind_copy": lambda lib, x: lib.unbind_copy(x, 1),
    "unfold_copy": lambda lib, x: lib.unfold_copy(x, 1, 2, 2),
    "unsqueeze_copy": lambda lib, x: lib.unsqueeze_copy(x, -1),
    "view_copy": lambda lib, x: lib.view_copy(x, [4, 3]),
    "view_copy_dtype": lambda lib, x: lib.view_copy(x, lib.int64),
    "view_as_real_copy": lambda lib, x: lib.view_as_real_copy(
        lib.view_as_complex(x[:, :2].contiguous())
    ),
}


@pytest.mark.parametrize("case", sorted(_COPIES))
@pytest.mark.parametrize("grad", [False, True])
def test_copy_ops(case, grad):
    results = []
    for lib in (torch, jtensor):
        x = _t(lib, (3, 4), 0, grad=grad)
        out = _COPIES[case](lib, x)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        # A fresh contiguous tensor: nothing shared with the input.
        for o in outs:
            assert o.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
            assert o.is_contiguous() and o.storage_offset() == 0
        results.append(
            [
                (
                    o.detach().numpy().copy(),
                    tuple(o.shape),
                    o.stride(),
                    str(o.dtype),
                    o.requires_grad,
                    type(o.grad_fn).__name__,
                )
                for o in outs
            ]
        )
    assert len(results[0]) == len(results[1])
    for e, g in zip(results[0], results[1], strict=True):
        np.testing.assert_array_equal(g[0], e[0])
        assert g[1:] == e[1:] or (case == "detach_copy" and g[1:4] == e[1:4])


def test_detach_copy_has_no_history():
    # PyTorch's detach_copy of a tensor requiring grad reports requires_grad=True with a
    # NotImplemented node that cannot backpropagate; jtensor's copy is detached, as detach.
    out = jtensor.detach_copy(jtensor.ones(2, requires_grad=True))
    assert not out.requires_grad and out.grad_fn is None


def test_view_as_complex_copy_refuses_grad():
    for lib in (torch, jtensor):
        x = lib.ones(3, 2, requires_grad=True)
        with pytest.raises(RuntimeError, match="view_as_complex_copy does not support "):
            lib.view_as_complex_copy(x)
        with lib.no_grad():
            assert lib.view_as_complex_copy(x).dtype == lib.complex64


# ----------------------------------------------------------------------- in-place forms
_INPLACE = {
    "addmm_": lambda lib, x: x[0].addmm_(x[1], x[2], beta=0.5, alpha=2),
    "baddbmm_": lambda lib, x: x[3].baddbmm_(x[4], x[5], alpha=0.5),
    "cumsum_": lambda lib, x: x[0].cumsum_(1),
    "cumsum_int": lambda lib, x: lib.arange(6).reshape(2, 3).cumsum_(0),
    "cumprod_": lambda lib, x: x[0].cumprod_(-2),
}


def _inplace_inputs(lib):
    shapes = [(2, 3), (2, 4), (4, 3), (2, 2, 3), (2, 2, 4), (2, 4, 3)]
    return [_t(lib, s, i, grad=False) for i, s in enumerate(shapes)]


@pytest.mark.parametrize("case", sorted(_INPLACE))
def test_inplace_forms(case):
    results = []
    for lib in (torch, jtensor):
        xs = _inplace_inputs(lib)
        out = _INPLACE[case](lib, xs)
        if case != "cumsum_int":
            assert out is xs[3 if case == "baddbmm_" else 0]
            assert out._version == 1
        results.append(out.numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.zeros(3).addmm_(lib.ones(2, 4), lib.ones(4, 3)),
        lambda lib: lib.zeros(1, 3).baddbmm_(lib.ones(2, 2, 4), lib.ones(2, 4, 3)),
        lambda lib: lib.ones(2, 3, dtype=lib.int64).cumsum_(1, dtype=lib.float32),
        lambda lib: lib.zeros(2, 3, dtype=lib.int64).addmm_(lib.ones(2, 4), lib.ones(4, 3)),
        lambda lib: lib.ones(2, 3, requires_grad=True).cumprod_(0),
    ],
)
def test_inplace_forms_errors(call):
    with pytest.raises(RuntimeError) as expected:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(jtensor)
    # (jtensor's leaf refusal adds a hint after PyTorch's sentence.)
    assert str(got.value).startswith(str(expected.value))


def test_inplace_forms_record_pytorchs_nodes():
    for lib in (torch, jtensor):
        x = lib.ones(2, 3, requires_grad=True)
        names = []
        for fn in (
            lambda y: y.cumsum_(1),
            lambda y: y.cumprod_(1),
            lambda y, lib=lib: y.addmm_(lib.ones(2, 2), lib.ones(2, 3)),
        ):
            y = x * 1
            fn(y)
            names.append(type(y.grad_fn).__name__)
        assert names == ["CumsumBackward0", "CumprodBackward0", "AddmmBackward0"]


# ----------------------------------------------------------------------- Tensor methods
def test_backend_flags_and_metadata():
    for lib in (torch, jtensor):
        x = lib.ones(2, 3, requires_grad=True)
        for flag in (
            "is_mps",
            "is_xpu",
            "is_nested",
            "is_quantized",
            "is_mkldnn",
            "is_sparse_csr",
            "is_ipu",
            "is_maia",
            "is_mtia",
            "is_vulkan",
            "is_xla",
        ):
            assert getattr(x, flag) is False
        assert x.name is None
        assert x.output_nr == 0 and (x * 2).output_nr == 0
        assert lib.split(x, 1)[1].output_nr == 1 and x.unbind(1)[2].output_nr == 2
        assert x.const_data_ptr() == x.data_ptr()
        with pytest.warns(UserWarning, match="volatile was removed"):
            assert x.volatile is False
        with pytest.raises(RuntimeError, match="reinforce\\(\\) was removed"):
            x.reinforce(1.0)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.ones(2, 3, 4),
        lambda lib: lib.ones(2, 3, 4).permute(2, 0, 1),
        lambda lib: lib.ones(2, 3, 4)[:, :1],
        lambda lib: lib.ones(1, 3),
        lambda lib: lib.ones(2, 1, 1),
        lambda lib: lib.ones(3, 4)[:, ::2],
        lambda lib: lib.ones(3).expand(2, 3),
        lambda lib: lib.ones(2, 3, 4, 5).contiguous(memory_format=lib.channels_last),
    ],
)
@pytest.mark.parametrize("check", [False, True])
def test_dim_order(make, check):
    try:
        expected = make(torch).dim_order(ambiguity_check=check)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as got:
            make(jtensor).dim_order(ambiguity_check=check)
        assert str(got.value) == str(e)
        return
    assert make(jtensor).dim_order(ambiguity_check=check) == expected


@pytest.mark.parametrize("args", [(2, 2), ([1, 2],), (), ((3,),), (np.zeros(2),)])
def test_legacy_new(args):
    for dtype in ("float32", "int64", "float64"):
        e = torch.ones(2, dtype=getattr(torch, dtype)).new(*args)
        g = jtensor.ones(2, dtype=getattr(jtensor, dtype)).new(*args)
        assert tuple(g.shape) == tuple(e.shape) and str(g.dtype) == str(e.dtype)
        if args and isinstance(args[0], list):
            np.testing.assert_array_equal(g.numpy(), e.numpy())
    e = torch.ones(2).new(torch.Size([3]))
    g = jtensor.ones(2).new(jtensor.Size([3]))
    assert tuple(g.shape) == tuple(e.shape)


def test_resize_and_resize_as():
    grads = []
    for lib in (torch, jtensor):
        x = _t(lib, (3, 2), 0)
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            r = x.resize(2, 3)
        assert type(r.grad_fn).__name__ == "ResizeBackward" and tuple(r.shape) == (2, 3)
        (r * lib.arange(6.0, dtype=lib.float64).view(2, 3)).sum().backward()
        grads.append(x.grad.numpy())
        with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
            assert tuple(x.resize_as(lib.zeros(6)).shape) == (6,)
        with pytest.warns(UserWarning), pytest.raises(RuntimeError) as info:
            x.resize(4)
        assert "autograd's resize can only change the shape" in str(info.value)
    np.testing.assert_array_equal(grads[0], grads[1])


def test_share_memory_as_subclass_record_stream():
    for lib in (torch, jtensor):
        s = lib.zeros(3)
        assert not s.is_shared()
        assert s.share_memory_() is s and s.is_shared()

        class Sub(lib.Tensor):
            pass

        x = lib.ones(2, requires_grad=True)
        m = x.as_subclass(Sub)
        assert type(m) is Sub and type(m.grad_fn).__name__ == "AliasBackward0"
        assert m.data_ptr() == x.data_ptr()
        with pytest.raises(TypeError, match="does not inherit from Tensor"):
            x.as_subclass(int)
        with pytest.raises(RuntimeError, match="unknown parameter type"):
            x.record_stream(3)


def test_hardshrink_prelu_methods():
    for name, args in (("hardshrink", (0.3,)), ("prelu", ("w",))):
        results = []
        for lib in (torch, jtensor):
            x = _t(lib, (2, 3), 0)
            call = [lib.tensor([0.25], dtype=lib.float64) if a == "w" else a for a in args]
            out = getattr(x, name)(*call)
            out.sum().backward()
            results.append((out.detach().numpy(), x.grad.numpy(), type(out.grad_fn).__name__))
        np.testing.assert_allclose(results[1][0], results[0][0])
        np.testing.assert_allclose(results[1][1], results[0][1])
        assert results[1][2] == results[0][2]


def test_unsafe_split_family_and_nonzero_static():
    for lib in (torch, jtensor):
        x = lib.arange(12.0).view(3, 4)
        for fn, args in (
            ("unsafe_chunk", (2, 1)),
            ("unsafe_split", (3, 1)),
            ("unsafe_split_with_sizes", ([1, 3], 1)),
        ):
            method = getattr(x, fn)(*args)
            function = getattr(lib, fn)(x, *args)
            assert isinstance(method, tuple)
            assert [tuple(t.shape) for t in method] == [tuple(t.shape) for t in function]
    for kwargs in (dict(size=3), dict(size=1, fill_value=9), dict(size=0)):
        e = torch.tensor([[0, 1], [2, 0]]).nonzero_static(**kwargs)
        g = jtensor.tensor([[0, 1], [2, 0]]).nonzero_static(**kwargs)
        np.testing.assert_array_equal(g.numpy(), e.numpy())
        assert str(g.dtype) == str(e.dtype)
    for lib in (torch, jtensor):
        with pytest.raises(RuntimeError, match="'size' must be an non-negative integer"):
            lib.nonzero_static(lib.tensor([1]), size=-1)


def test_to_sparse_coo():
    x = [[0.0, 1.0], [2.0, 0.0]]
    e, g = torch.tensor(x).to_sparse_coo(), jtensor.tensor(x).to_sparse_coo()
    assert str(g.layout) == str(e.layout)
    np.testing.assert_array_equal(g.to_dense().numpy(), e.to_dense().numpy())


# ----------------------------------------------------------------------- top-level odds
def test_fill_function():
    for value in (2.5, "tensor"):
        results = []
        for lib in (torch, jtensor):
            x = _t(lib, (2, 3), 0)
            v = (
                lib.tensor(3.0, dtype=lib.float64, requires_grad=True)
                if value == "tensor"
                else value
            )
            out = lib.fill(x, v)
            assert out.data_ptr() != x.data_ptr()
            out.sum().backward()
            results.append(
                (
                    out.detach().numpy(),
                    x.grad.numpy(),
                    type(out.grad_fn).__name__,
                    v.grad.item() if value == "tensor" else None,
                )
            )
        np.testing.assert_array_equal(results[1][0], results[0][0])
        np.testing.assert_array_equal(results[1][1], results[0][1])
        assert results[1][2:] == results[0][2:]


def test_function_forms_of_inplace_methods():
    for lib in (torch, jtensor):
        x = lib.tensor([4, 6, 9])
        assert lib.gcd_(x, lib.tensor([6, 4, 3])) is x and x.tolist() == [2, 2, 3]
        assert lib.lcm_(x, lib.tensor([3, 3, 3])).tolist() == [6, 6, 3]
        y = lib.tensor([1.0, 2.0])
        assert lib.ldexp_(y, lib.tensor([1, 2])).tolist() == [2.0, 8.0]
        assert lib.xlogy_(y, lib.tensor([1.0, 1.0])).tolist() == [0.0, 0.0]
        z = lib.ones(3) * 1
        assert lib.detach_(z) is z
        assert lib.as_strided_(lib.arange(6.0), (2, 2), (1, 2)).stride() == (1, 2)
        assert lib.is_inference(z) is False
        with lib.inference_mode():
            assert lib.is_inference(lib.ones(1))
        with pytest.raises(TypeError, match="must be Tensor, not int"):
            lib.is_inference(3)


@pytest.mark.parametrize("args", [(1, 4), (0, 1, 0.25), (4, 0, -1.5)])
@pytest.mark.parametrize("dtype", [None, "int64", "float64"])
def test_deprecated_range(args, dtype):
    if dtype == "int64" and any(isinstance(a, float) for a in args):
        pytest.skip("a fractional step truncated to 0 crashes PyTorch (SIGFPE)")
    results = []
    for lib in (torch, jtensor):
        kwargs = {} if dtype is None else dict(dtype=getattr(lib, dtype))
        with pytest.warns(UserWarning, match="torch.range is deprecated"):
            out = lib.range(*args, **kwargs)
        results.append((out.numpy(), str(out.dtype)))
    np.testing.assert_array_equal(results[1][0], results[0][0])
    assert results[1][1] == results[0][1]


def test_build_flags_and_settings():
    assert jtensor.has_lapack and jtensor.has_spectral
    assert jtensor.legacy_contiguous_format is jtensor.contiguous_format
    assert torch.legacy_contiguous_format is torch.contiguous_format
    assert jtensor.set_flush_denormal(False) is False
    assert jtensor.GradScaler is jtensor.amp.GradScaler and torch.GradScaler is torch.amp.GradScaler
    assert jtensor.get_device_module("cpu") is jtensor.cpu
    assert jtensor.get_device_module(jtensor.device("cuda")) is jtensor.cuda
    assert torch.get_device_module("cuda") is torch.cuda


@pytest.mark.parametrize(
    "size,order",
    [((2, 3, 4), (0, 2, 1)), ((2, 3, 4, 5), (0, 2, 3, 1)), ((3,), (0,)), ((2, 3), (1, 0))],
)
def test_empty_permuted(size, order):
    e, g = torch.empty_permuted(size, order), jtensor.empty_permuted(size, order)
    assert tuple(g.shape) == tuple(e.shape) and g.stride() == e.stride()
    assert str(g.dtype) == str(e.dtype)


def test_empty_permuted_errors():
    for lib in (torch, jtensor):
        with pytest.raises(RuntimeError, match="Duplicate dim not allowed"):
            lib.empty_permuted((2, 3), (0, 0))
        with pytest.raises(RuntimeError, match="Number of dimensions in size does not match"):
            lib.empty_permuted((2, 3), (0,))


def test_frombuffer():
    for lib in (torch, jtensor):
        b = bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00")
        f = lib.frombuffer(b, dtype=lib.int32)
        assert f.tolist() == [1, 2] and str(f.dtype).endswith("int32")
        b[0] = 5
        assert f.tolist() == [5, 2]  # shares the buffer
        assert lib.frombuffer(b, dtype=lib.int16, count=2, offset=2).tolist() == [0, 2]
        with pytest.raises(ValueError, match="must be a multiple of element size"):
            lib.frombuffer(bytearray(3), dtype=lib.int32)
        f64 = lib.frombuffer(np.arange(3.0).tobytes(), dtype=lib.float64)
        assert f64.tolist() == [0.0, 1.0, 2.0]


# ----------------------------------------------------------------------- legacy storages
_STORAGES = [
    "BFloat16Storage",
    "BoolStorage",
    "ByteStorage",
    "CharStorage",
    "ComplexDoubleStorage",
    "ComplexFloatStorage",
    "DoubleStorage",
    "FloatStorage",
    "HalfStorage",
    "IntStorage",
    "LongStorage",
    "ShortStorage",
]


@pytest.mark.parametrize("name", _STORAGES)
def test_legacy_storage_classes(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for lib in (torch, jtensor):
            cls = getattr(lib, name)
            assert cls.__name__ == name and repr(cls) == f"<class 'torch.{name}'>"
            dtype = cls.dtype
            assert str(dtype) == str(getattr(torch, name).dtype)
            assert cls().size() == 0 and cls(3).size() == 3 and cls(3).dtype == dtype
            data = cls([1, 0])
            assert data.tolist() == getattr(torch, name)([1, 0]).tolist()
            t = lib.ones(2, dtype=dtype)
            assert t.storage_type() is cls and isinstance(t.storage(), cls)
            other = lib.LongStorage if name != "LongStorage" else lib.FloatStorage
            assert not isinstance(t.storage(), other)
            with pytest.raises(TypeError, match="invalid data type 'str'"):
                cls("a")
            with pytest.raises(RuntimeError, match="Too many positional arguments"):
                cls(2, 3)
    assert isinstance(jtensor.ones(1).untyped_storage(), jtensor.StorageBase)


@pytest.mark.parametrize(
    "name,args",
    [
        ("get_autocast_cpu_dtype", ("cpu",)),
        ("get_autocast_gpu_dtype", ("cuda",)),
        ("is_autocast_cpu_enabled", ("cpu",)),
    ],
)
def test_deprecated_autocast_getters(name, args):
    new = "get_autocast_dtype" if "dtype" in name else "is_autocast_enabled"
    for lib in (torch, jtensor):
        with pytest.warns(DeprecationWarning, match=f"torch.{name}\\(\\) is deprecated"):
            value = getattr(lib, name)()
        assert str(value) == str(getattr(lib, new)(*args))
    if name == "is_autocast_cpu_enabled":
        with jtensor.autocast("cpu"), pytest.warns(DeprecationWarning):
            assert jtensor.is_autocast_cpu_enabled() is True


def test_functional_module_and_thread_safe_generator():
    assert jtensor.functional.einsum is jtensor.einsum
    assert torch.functional.einsum is torch.einsum
    assert jtensor.thread_safe_generator() is None and torch.thread_safe_generator() is None


_HISTDD = {
    "weighted": lambda lib, x: lib.histogramdd(
        x, bins=[3, 4], weight=lib.arange(20.0, dtype=x.dtype).view(5, 4)
    ),
    "range_density": lambda lib, x: lib.histogramdd(
        x, bins=2, range=[-1.0, 1.0, 0.0, 2.0], density=True
    ),
    "edges": lambda lib, x: lib.histogramdd(
        x,
        bins=[
            lib.tensor([-3.0, 0.0, 3.0], dtype=x.dtype),
            lib.tensor([-3.0, -1.0, 1.0, 3.0], dtype=x.dtype),
        ],
    ),
    "count": lambda lib, x: lib.histogramdd(x, 5),
}


@pytest.mark.parametrize("case", sorted(_HISTDD))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histogramdd(case, dtype):
    values = np.random.default_rng(3).standard_normal((5, 4, 2))
    results = []
    for lib in (torch, jtensor):
        x = lib.tensor(values, dtype=getattr(lib, dtype))
        r = _HISTDD[case](lib, x)
        assert type(r).__name__ == "histogramdd" and len(r) == 2
        assert r[0] is r.hist and r[1] is r.bin_edges
        results.append(r)
    e, g = results
    assert tuple(g.hist.shape) == tuple(e.hist.shape) and str(g.hist.dtype) == str(e.hist.dtype)
    np.testing.assert_allclose(g.hist.numpy(), e.hist.numpy(), rtol=1e-5)
    assert len(g.bin_edges) == len(e.bin_edges)
    for a, b in zip(g.bin_edges, e.bin_edges, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_histogramdd_errors():
    for lib in (torch, jtensor):
        with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'Long'"):
            lib.histogramdd(lib.ones(3, 2, dtype=lib.int64), bins=2)
        with pytest.raises(RuntimeError, match="The size of bins must be equal"):
            lib.histogramdd(lib.ones(3, 2), bins=[2, 2, 2])
        with pytest.raises(TypeError):
            lib.histogramdd(lib.ones(3, 2))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binomial(dtype):
    counts, probs = [10.0, 5.0, 0.0, 300.0, 7.0], [0.5, 0.2, 0.3, 0.9, 1.0]
    results = []
    for lib in (torch, jtensor):
        lib.manual_seed(0)
        dt = getattr(lib, dtype)
        out = lib.binomial(lib.tensor(counts, dtype=dt), lib.tensor(probs, dtype=dt))
        g = lib.Generator().manual_seed(3)
        out2 = lib.binomial(lib.tensor(counts, dtype=dt), lib.tensor(probs, dtype=dt), g)
        results.append((out.numpy(), out2.numpy(), str(out.dtype)))
    np.testing.assert_array_equal(results[1][0], results[0][0])
    np.testing.assert_array_equal(results[1][1], results[0][1])
    assert results[1][2] == results[0][2]
    for lib in (torch, jtensor):
        with pytest.raises(ValueError, match="binomial only supports floating-point dtypes"):
            lib.binomial(lib.tensor([10]), lib.tensor([0.5]))


@pytest.mark.parametrize(
    "shape,kwargs",
    [
        ((8, 5), dict(q=3)),
        ((4, 9), dict(q=2, niter=1)),
        ((2, 7, 5), dict(q=4)),
        ((8, 5), dict(q=3, M="row")),
    ],
)
def test_svd_lowrank(shape, kwargs):
    a = np.random.default_rng(0).standard_normal(shape)
    results = []
    for lib in (torch, jtensor):
        lib.manual_seed(0)
        call = dict(kwargs)
        if call.get("M") == "row":
            call["M"] = lib.tensor(a[:1])
        U, S, V = lib.svd_lowrank(lib.tensor(a), **call)
        results.append((U.numpy(), S.numpy(), V.numpy()))
    # The same sketch (PyTorch's draws): the same factors up to each column's sign.
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-10)
    np.testing.assert_allclose(np.abs(results[1][0]), np.abs(results[0][0]), atol=1e-10)
    np.testing.assert_allclose(np.abs(results[1][2]), np.abs(results[0][2]), atol=1e-10)


@pytest.mark.parametrize("center", [True, False])
def test_pca_lowrank(center):
    a = np.random.default_rng(1).standard_normal((10, 4)) + 3.0
    results = []
    for lib in (torch, jtensor):
        lib.manual_seed(0)
        U, S, V = lib.pca_lowrank(lib.tensor(a), center=center)
        results.append((S.numpy(), np.abs(V.numpy()), tuple(U.shape)))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-10)
    np.testing.assert_allclose(results[1][1], results[0][1], atol=1e-10)
    assert results[1][2] == results[0][2]
    for lib in (torch, jtensor):
        with pytest.raises(ValueError, match="must be non-negative integer and not greater"):
            lib.pca_lowrank(lib.tensor(a), q=5)
        with pytest.raises(ValueError, match="niter\\(=-1\\) must be non-negative integer"):
            lib.pca_lowrank(lib.tensor(a), niter=-1)


def test_svd_lowrank_gradcheck():
    # A composite of differentiable ops: the low-rank reconstruction's float64 gradient,
    # with the sketch's draws fixed per call.
    def reconstruct(x):
        jtensor.manual_seed(0)
        U, S, V = jtensor.svd_lowrank(x, q=2)
        return U @ jtensor.diag(S) @ V.mT

    x = jtensor.tensor(
        np.random.default_rng(2).standard_normal((5, 3)), dtype=jtensor.float64, requires_grad=True
    )
    assert jtensor.autograd.gradcheck(reconstruct, (x,))
