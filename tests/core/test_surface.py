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
