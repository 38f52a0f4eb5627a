"""``clamp``'s two overloads, clamp(Tensor, Tensor?, Tensor?) and clamp(Tensor, Number?,
Number?): a 0-d tensor that does not require grad beside a number is taken as a number
(beta-VAE's ``clamp(c, 0, c_max)`` with a 0-d ``c_max``), any other mix is refused, and the
in-place form records the same overload's node as the out-of-place one."""

import pytest

import jtensor

torch = pytest.importorskip("torch")

CALLS = [
    "lib.clamp(x, 0, lib.tensor(20.))",
    "lib.clamp(x, lib.tensor(0.), 20)",
    "lib.clamp(x, 0, lib.tensor(20., dtype=lib.float64))",
    "lib.clamp(x, min=0, max=lib.tensor(20))",
    "lib.clamp(x.detach().long(), 0, lib.tensor(2.5))",
    "x.clamp(0, lib.tensor(20.))",
    "lib.clamp(x, lib.tensor(0.), lib.tensor(20.))",
    "lib.clamp(x, lib.tensor(0.))",
    "lib.clamp(x, 0, 20)",
    "lib.clamp(x, max=2)",
    "(x * 1).clamp_(0, 20)",
    "(x * 1).clamp_(0)",
    "(x * 1).clamp_(max=2)",
    "(x * 1).clamp_(lib.tensor(0.))",
    "(x * 1).clamp_(0, lib.tensor(20.))",
    "(x * 1).clip_(lib.tensor(0.), lib.tensor(20.))",
]


def _call(lib, call):
    x = lib.tensor([-3.0, 3.0, 30.0], requires_grad=True)
    y = eval(call, {"lib": lib, "x": x})
    found = [y.tolist(), str(y.dtype)]
    if y.grad_fn is not None:
        edges = [(n.name() if n is not None else None, i) for n, i in y.grad_fn.next_functions]
        y.sum().backward()
        found += [y.grad_fn.name(), edges, x.grad.tolist()]
    return found


@pytest.mark.parametrize("call", CALLS)
def test_bounds_take_pytorchs_overload(call):
    assert _call(jtensor, call) == _call(torch, call)


# call -> whether jtensor's message is PyTorch's word for word (the function form; the
# method form's PyTorch prints without ``input`` and with its per-overload reasons)
REFUSED = {
    "lib.clamp(x, 0, lib.tensor([20.]))": True,
    "lib.clamp(x, lib.tensor([0.]), 20)": True,
    "lib.clamp(x, 0, lib.tensor(20., requires_grad=True))": True,
    "x.clamp(lib.ones(3), 1.5)": False,
}


@pytest.mark.parametrize("call", sorted(REFUSED))
def test_other_mixes_are_refused(call):
    messages = []
    for lib in (jtensor, torch):
        x = lib.tensor([-3.0, 3.0, 30.0], requires_grad=True)
        with pytest.raises(TypeError, match=r"clamp\(\) received an invalid combination") as info:
            eval(call, {"lib": lib, "x": x})
        messages.append(str(info.value))
    if REFUSED[call]:
        assert messages[0] == messages[1]
