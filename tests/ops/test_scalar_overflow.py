"""A number argument that does not fit the dtype it is converted to (``clamp``'s bounds,
``pow``'s exponent) raises PyTorch's overflow error instead of wrapping round or becoming
inf: ``int8.clamp(min=-1000, max=70000)`` once gave 24 everywhere."""

import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

DTYPES = ["int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32"]

CALLS = {
    "clamp_huge_float": lambda x: x.clamp(max=1e40),
    "clamp_ints": lambda x: x.clamp(min=-1000, max=70000),
    "clamp_min_huge": lambda x: x.clamp_min(-1e40),
    "clamp_inf": lambda x: x.clamp(max=float("inf")),
    "clamp_negative_on_unsigned": lambda x: x.clamp(min=-1),
    "clamp_half_edge": lambda x: x.clamp(max=65519),
    "pow_huge_float": lambda x: x**1e40,
    "pow_big_int": lambda x: x**70000,
    "rsub_huge": lambda x: 1e40 - x,
}


def _outcome(lib, dtype, call):
    x = lib.tensor([1, 2], dtype=getattr(lib, dtype))
    try:
        r = CALLS[call](x)
    except (RuntimeError, OverflowError) as e:
        return type(e).__name__, str(e).split(" (")[0]
    return "ok", str(r.dtype)[6:], r.cpu().float().tolist()


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_number_arguments_overflow_as_torch(dtype, call):
    assert _outcome(jtensor, dtype, call) == _outcome(torch, dtype, call)


def test_refused_in_place_clamp_leaves_the_tensor_as_it_was():
    x = jtensor.tensor([5, -7], dtype=jtensor.int8)
    with pytest.raises(RuntimeError, match=r"int8_t without overflow \(torch.int8 holds"):
        x.clamp_(min=-1000)
    assert x.tolist() == [5, -7] and x._version == 0
