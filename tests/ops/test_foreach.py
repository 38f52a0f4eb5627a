"""``torch._foreach_*`` (found missing by the twentieth corpus's schedule-free optimizer):
each is the public op on every tensor of the list; out-of-place forms return a tuple, the
in-place ones write each tensor and return the list given; a number, a list of numbers, a
list of tensors or one tensor as the second operand; PyTorch's values and errors."""

import numpy as np
import pytest

import jtensor
from jtensor import _foreach

torch = pytest.importorskip("torch")


def _lists(lib):
    gen = np.random.default_rng(0)
    a = [lib.from_numpy(gen.uniform(0.5, 2.0, s).astype(np.float32)) for s in ((3,), (2, 4))]
    b = [lib.from_numpy(gen.uniform(0.5, 2.0, s).astype(np.float32)) for s in ((3,), (2, 4))]
    return a, b


def _same(call):
    found = []
    for lib in (jtensor, torch):
        a, b = _lists(lib)
        result = call(lib, a, b)
        returned = "list" if result is a else type(result).__name__
        found.append((returned, [t.numpy().tolist() for t in (a if result is a else result)]))
    assert found[0][0] == found[1][0]
    for mine, theirs in zip(found[0][1], found[1][1], strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("op", _foreach._UNARY)
@pytest.mark.parametrize("inplace", [False, True])
def test_unary(op, inplace):
    name = f"_foreach_{op}" + ("_" if inplace else "")
    _same(lambda lib, a, b: getattr(lib, name)(a))


@pytest.mark.parametrize("op", _foreach._BINARY)
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("form", ["number", "numbers", "tensors", "tensor"])
def test_binary(op, inplace, form):
    name = f"_foreach_{op}" + ("_" if inplace else "")
    if form == "tensor" and op not in ("add", "sub", "mul", "div"):
        pytest.skip("PyTorch takes one tensor for add, sub, mul and div")
    if form == "numbers" and op == "pow" and not inplace:
        pytest.skip("(covered by the in-place form)")
    other = {
        "number": lambda lib, b: 1.5,
        "numbers": lambda lib, b: [0.5, 2.0],
        "tensors": lambda lib, b: b,
        "tensor": lambda lib, b: lib.tensor(1.25),
    }[form]
    _same(lambda lib, a, b: getattr(lib, name)(a, other(lib, b)))


@pytest.mark.parametrize("op", ["add", "sub"])
def test_alpha(op):
    _same(lambda lib, a, b: getattr(lib, f"_foreach_{op}")(a, b, alpha=-0.5))
    _same(lambda lib, a, b: getattr(lib, f"_foreach_{op}_")(a, b, alpha=3))


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("value", ["default", "number", "numbers", "tensor"])
def test_addc(op, inplace, value):
    name = f"_foreach_{op}" + ("_" if inplace else "")
    make = {
        "default": lambda lib: (),
        "number": lambda lib: (0.5,),
        "numbers": lambda lib: ([2.0, -1.0],),
        "tensor": lambda lib: (lib.tensor([2.0, 3.0]),),
    }
    _same(lambda lib, a, b: getattr(lib, name)(a, b, b, *make[value](lib)))


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("weight", ["number", "tensors", "numbers"])
def test_lerp(inplace, weight):
    name = "_foreach_lerp" + ("_" if inplace else "")
    make = {
        "number": lambda lib, b: 0.25,
        "tensors": lambda lib, b: [t / 4 for t in b],
        "numbers": lambda lib, b: [0.1, 0.9],
    }
    _same(lambda lib, a, b: getattr(lib, name)(a, b, make[weight](lib, b)))


def test_norm_max_clone_zero_copy():
    _same(lambda lib, a, b: lib._foreach_norm(a))
    _same(lambda lib, a, b: lib._foreach_norm(a, 1))
    _same(lambda lib, a, b: lib._foreach_max(a))
    _same(lambda lib, a, b: lib._foreach_clone(a))
    _same(lambda lib, a, b: lib._foreach_zero_(a))
    _same(lambda lib, a, b: lib._foreach_copy_(a, b))


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, a, b: lib._foreach_add([], 1.0),
        lambda lib, a, b: lib._foreach_add(a, b[:1]),
        lambda lib, a, b: lib._foreach_mul_(a, [1.0]),
        lambda lib, a, b: lib._foreach_mul_([a[0].requires_grad_()], 2.0),
    ],
    ids=["empty", "lengths", "scalar-list", "leaf"],
)
def test_errors(call):
    found = []
    for lib in (jtensor, torch):
        a, b = _lists(lib)
        with pytest.raises(RuntimeError) as info:
            call(lib, a, b)
        found.append(str(info.value).split("\n")[0])
    assert found[0] == found[1]


def test_gradients_flow_through_the_out_of_place_forms():
    grads = []
    for lib in (jtensor, torch):
        a, b = _lists(lib)
        for t in a:
            t.requires_grad_()
        out = lib._foreach_addcmul(lib._foreach_mul(a, 2.0), b, b, value=0.5)
        sum(o.sum() for o in lib._foreach_sqrt(out)).backward()
        grads.append([t.grad.numpy() for t in a])
    for mine, theirs in zip(*grads, strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6)


def test_every_name_is_pytorchs():
    mine = {n for n in dir(jtensor) if n.startswith("_foreach_")}
    assert len(mine) > 80 and mine <= {n for n in dir(torch) if n.startswith("_foreach_")}
    assert hasattr(jtensor, "_foreach_mul_")
