"""``torch.add(1.5, 2.5)``: PyTorch's argument parser lets add, sub, mul, div and
floor_divide (and their aliases) take two Python numbers, giving a 0-d tensor of the two
wrapped numbers' result dtype (MIT 6.S191's first lab calls ``torch.add(a, b)`` on floats);
other binary ops refuse them."""

import pytest

import jtensor

torch = pytest.importorskip("torch")

ACCEPTED = [
    "lib.add(1.5, 2.5)",
    "lib.add(1, 2)",
    "lib.add(1, 2.5)",
    "lib.add(1, 2, alpha=3)",
    "lib.subtract(2.5, 1)",
    "lib.sub(2, 1)",
    "lib.multiply(4.0, 1.5)",
    "lib.mul(2, 3)",
    "lib.div(3.0, 2.0)",
    "lib.div(3, 2)",
    "lib.divide(7, 2, rounding_mode='floor')",
    "lib.div(-7, 2, rounding_mode='trunc')",
    "lib.true_divide(3, 2)",
    "lib.floor_divide(7, 2)",
    "lib.add(True, False)",
    "lib.mul(True, 2)",
    "lib.add(1 + 2j, 1)",
    "lib.add(0.1, 0.2)",
    "lib.add(1.5, 2.5, out=lib.empty(()))",
]


def _result(lib, call, default):
    old = lib.get_default_dtype()
    lib.set_default_dtype(default)
    try:
        r = eval(call, {"lib": lib})
    finally:
        lib.set_default_dtype(old)
    return r.tolist(), str(r.dtype), tuple(r.shape), r.requires_grad


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("call", ACCEPTED)
def test_two_numbers_give_a_zero_dim_tensor(call, default):
    mine = _result(jtensor, call, getattr(jtensor, default))
    assert mine == _result(torch, call, getattr(torch, default))


REFUSED = {
    "lib.pow(2, 3)": TypeError,
    "lib.remainder(7, 2)": TypeError,
    "lib.fmod(7, 2)": TypeError,
    "lib.xlogy(2.0, 3.0)": TypeError,
    "lib.maximum(1, 2)": TypeError,
    "lib.eq(1, 2)": TypeError,
    "lib.sub(True, True)": RuntimeError,
}


@pytest.mark.parametrize("call", sorted(REFUSED))
def test_other_ops_refuse_two_numbers(call):
    for lib in (jtensor, torch):
        with pytest.raises(REFUSED[call]):
            eval(call, {"lib": lib})
