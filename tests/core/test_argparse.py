"""PyTorch's argument parser (``jtensor/_argparse.py``): the call forms PyTorch accepts and
the ones it refuses, compared with the installed PyTorch, and every op's keyword names
checked against PyTorch's own signatures (the type stubs PyTorch ships)."""

import ast
import inspect
import os

import numpy as np
import pytest

import jtensor
from jtensor._argparse import METHOD_VARARGS, NUMPY_ALIASES
from jtensor._registry import FUNCTIONS, OPS

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _x(lib):
    return lib.arange(6.0).reshape(2, 3)


# Each case runs once with lib=jtensor and once with lib=torch: the same value (or the same
# exception type) is expected.
ACCEPTED = {
    "numpy axis/keepdims on a method": lambda L: _x(L).sum(axis=1, keepdims=True),
    "axis on the function form": lambda L: L.sum(_x(L), axis=0),
    "a= for input": lambda L: L.sum(a=_x(L)),
    "x1=/x2= for input/other": lambda L: L.add(x1=_x(L), x2=_x(L)),
    "x2= on a method": lambda L: _x(L).mul(x2=_x(L)),
    "axis for a required dim": lambda L: _x(L).unsqueeze(axis=0),
    "axis in cat": lambda L: L.cat(tensors=[_x(L), _x(L)], axis=1),
    "axis in softmax": lambda L: L.softmax(_x(L), axis=1),
    "axis in max": lambda L: _x(L).max(axis=1).values,
    "axis in cumsum": lambda L: _x(L).cumsum(axis=0),
    "keepdims in mean": lambda L: _x(L).mean(dim=1, keepdims=True),
    "axis in std": lambda L: _x(L).std(axis=0),
    "size= in randn": lambda L: L.randn(size=(2, 3)).shape,
    "size= in zeros": lambda L: L.zeros(size=[2, 3]),
    "size= in ones with dtype": lambda L: L.ones(size=(2,), dtype=L.float64),
    "size= in new_zeros": lambda L: _x(L).new_zeros(size=(2, 3)),
    "separate ints for flip": lambda L: _x(L).flip(0, 1),
    "one int for flip": lambda L: _x(L).flip(0),
    "separate ints for tile": lambda L: _x(L).tile(2, 2),
    "separate ints for squeeze": lambda L: _x(L)[None, :, None].squeeze(0, 2),
    "separate ints for count_nonzero": lambda L: _x(L).count_nonzero(0, 1),
    "dims= in permute": lambda L: _x(L).permute(dims=(1, 0)),
    "a tuple to torch.permute": lambda L: L.permute(_x(L), (1, 0)),
    "size= in view": lambda L: _x(L).view(size=(3, 2)),
    "shape= in reshape": lambda L: _x(L).reshape(shape=(3, 2)),
    "size= in expand": lambda L: _x(L)[:1].expand(size=(4, 3)),
    "repeats= in repeat": lambda L: _x(L).repeat(repeats=(2, 1)),
    "a 0-d int tensor as a size": lambda L: L.ones(L.tensor(3)),
    "a 0-d int tensor among sizes": lambda L: L.ones(L.tensor(3), 2),
    "a 0-d int tensor to view": lambda L: _x(L).view(L.tensor(6)),
    "a NumPy int as a size": lambda L: L.zeros(np.int64(2)),
    "a NumPy int to view": lambda L: _x(L).view(np.int64(6)),
    "a 1-element tensor as the size list": lambda L: L.ones(L.tensor([3])),
    "Python float as a dtype": lambda L: L.ones(2, dtype=float).dtype,
    "Python int as a dtype": lambda L: L.ones(2, dtype=int).dtype,
    "arange(end=)": lambda L: L.arange(end=5),
    "arange(end=, start=)": lambda L: L.arange(end=5, start=1),
    "pin_memory=None": lambda L: L.ones(2, pin_memory=None),
    "a device object": lambda L: L.zeros(2, device=L.device("cpu")),
    "full by keywords": lambda L: L.full(size=(2,), fill_value=3.0),
    "type by name": lambda L: _x(L).type("torch.IntTensor"),
    "type by dtype": lambda L: _x(L).type(L.float64),
    "input= for an in-place op's self": lambda L: L.exp_(input=_x(L)),
    "pow's exponent by name": lambda L: _x(L).pow(exponent=2),
    # Keywords PyTorch's signatures name (once listed in MISSING_KEYWORDS below).
    "max(other=)": lambda L: L.max(_x(L), other=_x(L).flip(1)),
    "min(input=, other=)": lambda L: L.min(input=_x(L), other=_x(L).flip(1)),
    "max(other=) on a method": lambda L: _x(L).max(other=_x(L).flip(1)),
    "min(other=, out=)": lambda L: L.min(_x(L), other=_x(L).flip(1), out=L.empty(0)),
    "swapaxes(axis0=, axis1=)": lambda L: L.swapaxes(_x(L), axis0=0, axis1=1),
    "swapaxes(axis0=) on a method": lambda L: _x(L).swapaxes(axis0=1, axis1=0),
    "swapaxes_(axis0=, axis1=)": lambda L: _x(L).swapaxes_(axis0=0, axis1=1),
    "swapdims(dim0=, dim1=)": lambda L: L.swapdims(_x(L), dim0=0, dim1=1),
    "copy_(other=)": lambda L: _x(L).copy_(other=_x(L) * 2),
    "copy_(other=, non_blocking=)": lambda L: _x(L).copy_(other=_x(L)[:1], non_blocking=False),
    "map_(other=, callable=)": lambda L: _x(L).map_(other=_x(L)[0], callable=lambda a, b: a * b),
    "softmax(out=)": lambda L: L.softmax(_x(L), 1, out=L.empty(0)),
    "log_softmax(out=) of the right shape": lambda L: L.log_softmax(_x(L), 0, out=L.empty(2, 3)),
    "diff(out=)": lambda L: L.diff(_x(L), out=L.empty(0, dtype=L.float64)),
    "index_copy(out=)": lambda L: L.index_copy(
        _x(L), 1, L.tensor([2, 0]), L.ones(2, 2), out=L.empty(0)
    ),
    "index_reduce(out=)": lambda L: L.index_reduce(
        _x(L), 1, L.tensor([2, 0]), L.ones(2, 2) * 3, "amax", out=L.empty(0)
    ),
    "inverse(out=)": lambda L: L.inverse(L.tensor([[2.0, 0.0], [1.0, 4.0]]), out=L.empty(0)),
    "scatter(out=)": lambda L: L.scatter(
        _x(L), 0, L.tensor([[1, 0, 1]]), L.ones(1, 3), out=L.empty(0)
    ),
    "scatter(value, out=)": lambda L: L.scatter(
        _x(L), 0, L.tensor([[1, 0, 1]]), value=7.0, out=L.empty(0)
    ),
    "scatter_add(out=)": lambda L: L.scatter_add(
        _x(L), 0, L.tensor([[1, 0, 1]]), L.ones(1, 3), out=L.empty(0)
    ),
    "scatter_reduce(out=)": lambda L: L.scatter_reduce(
        _x(L), 0, L.tensor([[1, 0, 1]]), L.ones(1, 3), "prod", out=L.empty(0)
    ),
    "slice_scatter(out=)": lambda L: L.slice_scatter(
        _x(L), L.ones(2, 2), 1, 0, 3, 2, out=L.empty(0)
    ),
    "slogdet(out=)": lambda L: L.stack(
        tuple(L.slogdet(_x(L)[:, :2] + L.eye(2), out=(L.empty(0), L.empty(0))))
    ),
    "argsort(stable=, out=)": lambda L: L.argsort(
        -_x(L), stable=True, out=L.empty(0, dtype=L.long)
    ),
    "concatenate(dim=)": lambda L: L.concatenate([_x(L), _x(L)], dim=1),
    "empty_like(pin_memory=False)": lambda L: L.empty_like(_x(L), pin_memory=False).shape,
    "full_like(pin_memory=False)": lambda L: L.full_like(_x(L), 2, pin_memory=False),
    "ones_like(pin_memory=None)": lambda L: L.ones_like(_x(L), pin_memory=None),
    "zeros_like(pin_memory=False)": lambda L: L.zeros_like(_x(L), pin_memory=False),
    "rand_like(pin_memory=False)": lambda L: L.rand_like(_x(L), pin_memory=False).shape,
    "randn_like(pin_memory=False)": lambda L: L.randn_like(_x(L), pin_memory=False).shape,
    "randint_like(pin_memory=False)": lambda L: L.randint_like(_x(L), 1, pin_memory=False),
    "randint_like(low=, high=)": lambda L: L.randint_like(_x(L), low=4, high=5),
    "randint_like(high=)": lambda L: L.randint_like(_x(L), high=1),
    "randint_like(low, high=)": lambda L: L.randint_like(_x(L), 3, high=4),
    "isin(elements=, test_elements=)": lambda L: L.isin(elements=_x(L), test_elements=_x(L)[0]),
    "isin(element=)": lambda L: L.isin(element=4.0, test_elements=_x(L)),
    "isin(test_element=)": lambda L: L.isin(_x(L), test_element=4.0, invert=True),
    "isin(element= a 0-d tensor)": lambda L: L.isin(element=L.tensor(9.0), test_elements=_x(L)),
    "tensor_split(indices=)": lambda L: str(
        [tuple(p.shape) for p in L.tensor_split(_x(L), indices=[1], dim=1)]
    ),
    "tensor_split(sections=)": lambda L: str(
        [p.tolist() for p in _x(L).tensor_split(sections=2, dim=1)]
    ),
    "tensor_split(tensor_indices_or_sections=)": lambda L: str(
        [p.tolist() for p in L.tensor_split(_x(L), tensor_indices_or_sections=L.tensor([2]), dim=1)]
    ),
    "Tensor.split(split_size=)": lambda L: str(
        [p.tolist() for p in _x(L).split(split_size=2, dim=1)]
    ),
    "torch.split(tensor=)": lambda L: str(
        [p.tolist() for p in L.split(tensor=_x(L), split_size_or_sections=[1, 2], dim=1)]
    ),
    "expand(implicit=True)": lambda L: _x(L)[:1].expand(4, 3, implicit=True),
}

REFUSED = {
    "a string dtype": lambda L: L.ones(2, dtype="float32"),
    "a NumPy dtype": lambda L: L.ones(2, dtype=np.float32),
    "a string dtype in tensor()": lambda L: L.tensor([1], dtype="float32"),
    "a NumPy dtype in to()": lambda L: _x(L).to(dtype=np.float32),
    "a float device": lambda L: L.zeros(2, device=0.5),
    "a string layout": lambda L: L.zeros(2, layout="strided"),
    "a string requires_grad": lambda L: L.zeros(2, requires_grad="yes"),
    "an int requires_grad": lambda L: L.ones(2, requires_grad=1),
    "a NumPy bool requires_grad": lambda L: L.ones(2, requires_grad=np.bool_(True)),
    "an int generator": lambda L: L.rand(2, generator=1),
    "a string memory_format": lambda L: L.empty(2, memory_format="x"),
    "type(int)": lambda L: _x(L).type(int),
    "type(np.float32)": lambda L: _x(L).type(np.float32),
    "separate ints to torch.flip": lambda L: L.flip(_x(L), 0, 1),
    "separate ints to torch.reshape": lambda L: L.reshape(_x(L), 2, 3),
    "separate ints to torch.permute": lambda L: L.permute(_x(L), 1, 0),
    "a float size": lambda L: L.zeros(2.5),
    "a bool size": lambda L: L.ones(True),
    "a float among sizes": lambda L: L.zeros((2, 3.0)),
    "an unknown keyword": lambda L: _x(L).sum(foo=1),
    "an unknown keyword with separate ints": lambda L: _x(L).view(2, 3, foo=1),
    "dim and axis together": lambda L: L.sum(_x(L), 0, axis=0),
    "out= on a method": lambda L: _x(L).sum(out=L.empty(())),
    "out= on an element-wise method": lambda L: _x(L).exp(out=L.empty(2, 3)),
    "too many positionals": lambda L: _x(L).sum(1, True, 5),
    "out= on pow's method": lambda L: _x(L).pow(2, out=L.empty(2, 3)),
    "full(names=)": lambda L: L.full((2,), 1.0, names=None),
    # Names jtensor once took that PyTorch's signatures do not have.
    "swapaxes(dim0=, dim1=)": lambda L: L.swapaxes(_x(L), dim0=0, dim1=1),
    "swapaxes_(dim0=, dim1=)": lambda L: _x(L).swapaxes_(dim0=0, dim1=1),
    "copy_(src=)": lambda L: _x(L).copy_(src=_x(L)),
    "map_(tensor=)": lambda L: _x(L).map_(tensor=_x(L), callable=lambda a, b: a),
    "Tensor.split(split_size_or_sections=)": lambda L: _x(L).split(split_size_or_sections=2),
    "tensor_split(indices_or_sections=)": lambda L: L.tensor_split(_x(L), indices_or_sections=2),
    "true_divide(rounding_mode=)": lambda L: L.true_divide(_x(L), 2, rounding_mode="floor"),
    "Tensor.true_divide(rounding_mode=)": lambda L: _x(L).true_divide(2, rounding_mode="trunc"),
    "randint_like(low_or_high=)": lambda L: L.randint_like(_x(L), low_or_high=3),
    # The new keywords' own refusals.
    "max(other=) with a dim": lambda L: L.max(_x(L), 1, other=_x(L)),
    "max(other=) with keepdim": lambda L: L.max(_x(L), other=_x(L), keepdim=True),
    "max(other=) a number": lambda L: L.max(_x(L), other=1),
    "max(tensor, keepdim=)": lambda L: _x(L).max(_x(L), keepdim=True),
    "softmax(out=) of another dtype": lambda L: L.softmax(
        _x(L), 1, out=L.empty(0, dtype=L.float64)
    ),
    "inverse(out=) of another dtype": lambda L: L.inverse(
        L.eye(2), out=L.empty(0, dtype=L.float64)
    ),
    "slogdet(out=) of one tensor": lambda L: L.slogdet(L.eye(2), out=(L.empty(0),)),
    "diff(out=) it can't be cast to": lambda L: L.diff(_x(L), out=L.empty(0, dtype=L.long)),
    "scatter(out=) of another dtype": lambda L: L.scatter(
        _x(L), 0, L.tensor([[0]]), 1.0, out=L.empty(0, dtype=L.float64)
    ),
    "out= with an input that requires grad": lambda L: L.index_copy(
        _x(L).requires_grad_(), 1, L.tensor([0]), L.ones(2, 1), out=L.empty(0)
    ),
    "argsort(out=) without stable=": lambda L: L.argsort(_x(L), out=L.empty(0, dtype=L.long)),
    "ones_like(pin_memory=1)": lambda L: L.ones_like(_x(L), pin_memory=1),
    "randint_like(low=) alone": lambda L: L.randint_like(_x(L), low=2),
    "randint_like(high, low=)": lambda L: L.randint_like(_x(L), 5, low=1),
    "randint_like(low, high, high=)": lambda L: L.randint_like(_x(L), 1, 5, high=6),
    "isin(element=) a tensor of several elements": lambda L: L.isin(
        element=_x(L), test_elements=_x(L)
    ),
    "isin(test_element=) a list": lambda L: L.isin(_x(L), test_element=[1.0]),
    "isin(elements=, element=)": lambda L: L.isin(elements=_x(L), element=1.0, test_elements=_x(L)),
    "tensor_split(indices=) an int": lambda L: L.tensor_split(_x(L), indices=2),
    "tensor_split(indices=) a tensor": lambda L: L.tensor_split(_x(L), indices=L.tensor([1])),
    "tensor_split(sections=) a list": lambda L: L.tensor_split(_x(L), sections=[1]),
    "tensor_split(sections=) a float tensor": lambda L: L.tensor_split(
        _x(L), sections=L.tensor(2.0)
    ),
    "tensor_split(indices=, sections=)": lambda L: L.tensor_split(_x(L), indices=[1], sections=2),
    "tensor_split() without a split": lambda L: L.tensor_split(_x(L), dim=1),
    "tensor_split(indices=) of floats": lambda L: L.tensor_split(_x(L), indices=[1.0]),
    "expand(implicit=None)": lambda L: _x(L)[:1].expand(4, 3, implicit=None),
}


def _outcome(fn, lib):
    try:
        result = fn(lib)
    except Exception as e:  # noqa: BLE001 - the exception type is what is compared
        return ("raised", type(e))
    return ("value", result)


def _same_value(a, b):
    if isinstance(a, jtensor.Tensor):
        assert isinstance(b, torch.Tensor)
        assert str(a.dtype) == str(b.dtype)
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.cpu().numpy(), b.numpy())
    elif isinstance(a, tuple):  # a Size, or a tuple of results: element by element
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same_value(x, y)
    else:
        assert str(a) == str(b)


@pytest.mark.parametrize("name", ACCEPTED)
def test_call_forms_pytorch_accepts(name):
    kind, expected = _outcome(ACCEPTED[name], torch)
    assert kind == "value", f"the case itself fails under PyTorch: {expected}"
    kind, got = _outcome(ACCEPTED[name], jtensor)
    assert kind == "value", f"jtensor raised {got.__name__} where PyTorch accepts the call"
    _same_value(got, expected)


@pytest.mark.parametrize("name", REFUSED)
def test_call_forms_pytorch_refuses(name):
    kind, expected = _outcome(REFUSED[name], torch)
    assert kind == "raised", "the case itself succeeds under PyTorch"
    kind, got = _outcome(REFUSED[name], jtensor)
    assert kind == "raised", f"jtensor accepted a call PyTorch refuses (got {got!r})"
    # jtensor's exception classes subclass the builtin PyTorch raises.
    assert issubclass(got, expected), (got, expected)


def test_refusal_messages_name_the_argument_and_the_fix():
    with pytest.raises(
        TypeError,
        match=r"ones\(\): argument 'dtype' must be torch.dtype, "
        r"not str \(write torch.float32",
    ):
        jtensor.ones(2, dtype="float32")
    with pytest.raises(TypeError, match="NumPy dtypes are not accepted"):
        jtensor.zeros(2, dtype=np.float64)
    with pytest.raises(TypeError, match=r"argument 'requires_grad' must be bool, not int"):
        jtensor.ones(2, requires_grad=1)
    with pytest.raises(TypeError, match=r"'dim' .*'axis'"):
        jtensor.sum(jtensor.ones(2), 0, axis=0)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'foo' \(it takes: dim"):
        jtensor.ones(2).sum(foo=1)


def test_a_refused_call_changes_nothing():
    x = jtensor.zeros(3)
    with pytest.raises(TypeError):
        x.add_(jtensor.ones(3), foo=2)
    with pytest.raises(TypeError):
        jtensor.add(x, 1, out=x, dtype="float32")
    assert x.tolist() == [0.0, 0.0, 0.0] and x._version == 0


def test_aliases_reach_the_autograd_layer():
    x = jtensor.ones(2, 3, requires_grad=True)
    y = x.sum(axis=1, keepdims=True)
    assert y.grad_fn.name() == "SumBackward1"
    y.sum().backward()
    assert x.grad.tolist() == [[1.0] * 3] * 2
    z = x.flip(0, 1)
    assert z.grad_fn.name() == "FlipBackward0"


def test_signatures_show_pytorch_names():
    assert list(inspect.signature(jtensor.Tensor.sum).parameters) == [
        "input",
        "dim",
        "keepdim",
        "dtype",
    ]
    assert "out" in inspect.signature(jtensor.sum).parameters


# --------------------------------------------------------------- PyTorch's signatures
def _stub_overloads(path, cls=None):
    tree = ast.parse(open(path).read())
    body = tree.body
    if cls is not None:
        body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls).body
    out = {}
    for node in body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            out.setdefault(node.name, []).append(node.args)
    return out


_STUBS = os.path.join(os.path.dirname(torch.__file__), "_C")
TORCH_FUNCTIONS = _stub_overloads(os.path.join(_STUBS, "_VariableFunctions.pyi"))
TORCH_METHODS = _stub_overloads(os.path.join(_STUBS, "__init__.pyi"), "TensorBase")


def _torch_keywords(overloads):
    names = set()
    for args in overloads:
        names.update(p.arg for p in args.args + args.kwonlyargs if p.arg != "self")
        if args.vararg is not None:
            names.add(args.vararg.arg)
    return names


def _jtensor_keywords(fn):
    """The keywords jtensor's entry accepts (None: it takes ``**kwargs`` and parses them)."""
    names = set()
    for p in inspect.signature(fn).parameters.values():
        if p.kind is p.VAR_KEYWORD:
            return None
        if p.kind is not p.POSITIONAL_ONLY:
            names.add(p.name)
    if "self" in names:  # in-place ops name it ``self``; the parser takes ``input=`` too
        names.add("input")
    names.update(alias for alias, target in NUMPY_ALIASES.items() if target in names)
    return names


# Keyword names PyTorch's stubs list that jtensor does not take, each with its reason. The
# test fails when a gap is closed (remove it here) or a new one opens.
MISSING_KEYWORDS = {
    # The stubs list ``names=`` (named tensors), but PyTorch's ``torch.full`` refuses it;
    # named tensors are not part of jtensor either.
    "torch.full": {"names"},
    # CUDA-only overloads: PyTorch's CPU build has no kernel for them (``torch.mm(a, b,
    # out_dtype=...)`` raises NotImplementedError: 'aten::mm.dtype' on the CPU backend).
    "torch.mm": {"out_dtype"},
    "torch.bmm": {"out_dtype"},
    "torch.addmm": {"out_dtype"},
    "torch.baddbmm": {"out_dtype"},
    # The stubs list ``out=`` on these methods; PyTorch's parser refuses it (as jtensor).
    "Tensor.add": {"out"},
    "Tensor.sub": {"out"},
    "Tensor.mul": {"out"},
    "Tensor.floor_divide": {"out"},
}


def _keyword_gaps():
    gaps = {}
    for prefix, stubs, owner, registered in (
        ("torch.", TORCH_FUNCTIONS, jtensor, FUNCTIONS),
        ("Tensor.", TORCH_METHODS, jtensor.Tensor, OPS),
    ):
        for name, overloads in stubs.items():
            fn = getattr(owner, name, None)
            if fn is None or name not in registered:
                continue
            accepted = _jtensor_keywords(fn)
            if accepted is None:
                continue
            missing = _torch_keywords(overloads) - accepted
            if missing:
                gaps[prefix + name] = missing
    return gaps


def test_every_keyword_pytorch_accepts_is_accepted():
    gaps = _keyword_gaps()
    new = {
        k: sorted(v - MISSING_KEYWORDS.get(k, set()))
        for k, v in gaps.items()
        if v - MISSING_KEYWORDS.get(k, set())
    }
    assert not new, f"keywords PyTorch accepts that jtensor rejects: {new}"
    closed = {
        k: sorted(v - gaps.get(k, set()))
        for k, v in MISSING_KEYWORDS.items()
        if v - gaps.get(k, set())
    }
    assert not closed, f"listed as missing but now accepted (update the list): {closed}"


def test_methods_take_separate_ints_exactly_where_pytorch_does():
    pytorch = {
        name: args.vararg.arg
        for name, overloads in TORCH_METHODS.items()
        for args in overloads
        if args.vararg is not None
    }
    ours = {name for name in METHOD_VARARGS if name in OPS}
    theirs = {name for name in pytorch if name in OPS}
    assert ours == theirs
    assert all(METHOD_VARARGS[name] == pytorch[name] for name in ours)


def test_methods_take_no_out():
    offenders = []
    for name in TORCH_METHODS:
        fn = jtensor.Tensor.__dict__.get(name)
        if fn is None or name not in OPS:
            continue
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            continue
        if "out" in params and not any(
            "out" in {p.arg for p in a.kwonlyargs + a.args} for a in TORCH_METHODS[name]
        ):
            offenders.append(name)
    assert not offenders, f"methods that take out= though PyTorch's do not: {offenders}"


def test_every_entry_compiles_and_keeps_its_identity():
    """Entries are compiled on their first call (``_argparse._deferred``): each one's source
    must compile, and the function object users hold must be the one that runs."""
    from jtensor import _argparse

    add = jtensor.add
    _argparse.compile_all()
    assert _argparse._DEFERRED
    pending = [fn.__name__ for fn in _argparse._DEFERRED if fn.__code__ is _argparse._TRAMPOLINE]
    assert pending == []
    assert jtensor.add is add and add.__code__.co_filename == "<entry of add>"
    assert add(jtensor.ones(2), 1).tolist() == [2.0, 2.0]


def test_an_entry_compiles_on_its_first_call():
    from jtensor import _argparse

    namespace = {"impl": lambda x, y=2: x * y}
    source = "def entry(x, y=2):\n    return impl(x, y)\n"
    entry = _argparse._deferred(source, "<entry of a test>", "entry", namespace)
    assert entry.__code__ is _argparse._TRAMPOLINE
    assert entry(3) == 6 and entry(3, y=5) == 15
    assert entry.__code__ is not _argparse._TRAMPOLINE and entry.__defaults__ == (2,)
    assert namespace["entry"] is entry and namespace["_self"] is entry
