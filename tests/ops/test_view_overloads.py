"""``Tensor.view`` has two overloads, ``view(*size)`` and ``view(dtype)``: arguments that fit
neither raise PyTorch's ``TypeError`` ("invalid combination of arguments") instead of
silently taking one of them (a size given with ``dtype=`` was dropped), and the valid
forms, recorded or not, keep their shapes, dtypes and sharing."""

import pytest

import jtensor

torch = pytest.importorskip("torch")

# call -> the first line of jtensor's message, or None where it is PyTorch's word for word
# (where PyTorch names arguments by how they were passed, jtensor's entry has already
# gathered them: ``got ()`` for ``dtype=None``)
_COMBINATION = (
    "view() received an invalid combination of arguments - got ({}), but expected one of:"
)
REFUSED = {
    "x.view()": None,
    "x.view(None)": _COMBINATION.format("NoneType"),
    "x.view(2.5)": _COMBINATION.format("float"),
    "x.view('a')": _COMBINATION.format("str"),
    "x.view((3, 2), dtype=lib.int32)": None,
    "x.view(3, 2, dtype=lib.int32)": None,
    "x.view(lib.int32, dtype=lib.int32)": None,
    "x.view(dtype=None)": _COMBINATION.format(""),
    "x.view(size=(3, 2), dtype=lib.int32)": _COMBINATION.format("tuple, dtype=torch.dtype"),
    "x.view(3, 2.0)": "size must be a sequence of ints, got (3, 2.0)",
    "x.view([3, None])": "size must be a sequence of ints, got [3, None]",
}


def _refusal(lib, call, requires_grad):
    x = lib.ones(6, requires_grad=requires_grad)
    with pytest.raises(TypeError) as info:
        eval(call, {"x": x, "lib": lib})
    return str(info.value).split("\n")[0]


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("call", sorted(REFUSED))
def test_calls_fitting_no_overload_raise_typeerror(call, requires_grad):
    theirs = _refusal(torch, call, requires_grad)
    assert _refusal(jtensor, call, requires_grad) == (REFUSED[call] or theirs)


ACCEPTED = [
    "x.view(3, 2)",
    "x.view((3, 2))",
    "x.view([2, -1])",
    "x.view(-1)",
    "x.view(lib.Size([3, 2]))",
    "x.view(size=(3, 2))",
    "x.view(lib.int32)",
    "x.view(dtype=lib.int32)",
    "x.view(dtype=lib.float16)",
]


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("call", ACCEPTED)
def test_valid_views(call, requires_grad):
    found = []
    for lib in (jtensor, torch):
        x = lib.arange(6.0, requires_grad=requires_grad)
        y = eval(call, {"x": x, "lib": lib})
        found.append(
            (
                tuple(y.shape),
                str(y.dtype),
                y.stride(),
                y.requires_grad,
                y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr(),
            )
        )
    assert found[0] == found[1]
