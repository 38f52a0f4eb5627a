"""What a sixteenth batch of teaching programs (the dlwpt book, Learn the Basics, the 60
minute blitz, makemore, micrograd) showed, each checked against PyTorch: the words of two
errors that tutorials print (an unknown device string, an in-place write to a leaf), and a
number minus a tensor (``1 - x``, makemore's and many losses' idiom) on the fast path with
PyTorch's values, layout and graph."""

import pytest

import jtensor

torch = pytest.importorskip("torch")


def _message(call):
    try:
        call()
    except Exception as exc:  # (its type and words are what is compared)
        return type(exc).__name__, str(exc)
    return "ok", ""


@pytest.mark.parametrize(
    "text", ["gpu", "GPU", "cuda0", "tpu", "cuda:01", "cuda:", "", "cpu:0:1", "x1", "my_dev"]
)
def test_an_unknown_device_string_is_refused_in_pytorchs_words(text):
    for call in (lambda L: L.device(text), lambda L: L.rand(2, device=text)):
        assert _message(lambda c=call: c(jtensor)) == _message(lambda c=call: c(torch))


def test_a_device_type_jtensor_lacks_names_the_ones_it_has():
    kind, text = _message(lambda: jtensor.device("mps"))
    assert kind == "RuntimeError"
    assert "no mps device" in text and "cpu, cuda" in text


LEAF_WRITES = {
    "add_ on a leaf": lambda L, a: a.add_(1),
    "sin_ function on a leaf": lambda L, a: L.sin_(a),
    "setitem on a view of a leaf": lambda L, a: a.view(5).__setitem__(0, 5.0),
    "add_ on a view that requires grad itself": lambda L, a: (
        a.detach().view(5).requires_grad_().add_(1)
    ),
}


@pytest.mark.parametrize("name", sorted(LEAF_WRITES))
def test_in_place_writes_to_leaves_are_refused_in_pytorchs_words(name):
    outcomes = []
    for lib in (jtensor, torch):
        a = lib.linspace(0.0, 1.0, steps=5, requires_grad=True)
        outcomes.append(_message(lambda lib=lib, a=a: LEAF_WRITES[name](lib, a)))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == "RuntimeError"


NUMBER_FIRST = {
    "1 - x": lambda x: 1 - x,
    "0.1 - x": lambda x: 0.1 - x,
    "-0.0 - x": lambda x: -0.0 - x,
    "1e30 - x": lambda x: 1e30 - x,
    "3 + x": lambda x: 3 + x,
    "0.5 * x": lambda x: 0.5 * x,
}
INPUTS = {
    "matrix": lambda L, dt: L.tensor([[0.3, -1.5, 2.0], [0.0, -0.0, 7.25]], dtype=dt),
    "transposed": lambda L, dt: L.tensor([[0.3, -1.5], [2.0, 0.0], [-0.0, 7.25]], dtype=dt).t(),
    "column": lambda L, dt: L.tensor([[0.3], [-1.5], [2.0]], dtype=dt),
    "strided column": lambda L, dt: L.tensor([[0.3, 9.0], [-1.5, 9.0]], dtype=dt)[:, :1],
    "0-d": lambda L, dt: L.tensor(0.7, dtype=dt),
}


def _signed(values):
    """Values with the sign of zero made visible (``-0.0 == 0.0`` in a list comparison)."""
    import math

    flat = values if isinstance(values, list) else [values]
    out = []
    for v in flat:
        out.append(_signed(v) if isinstance(v, list) else (v, math.copysign(1.0, v)))
    return out


@pytest.mark.parametrize("requires_grad", [False, True], ids=["plain", "requires grad"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", sorted(INPUTS))
@pytest.mark.parametrize("expr", sorted(NUMBER_FIRST))
def test_a_number_first_operator_as_pytorch(expr, layout, dtype, requires_grad):
    outcomes = []
    for lib in (jtensor, torch):
        x = INPUTS[layout](lib, getattr(lib, dtype)).detach().requires_grad_(requires_grad)
        y = NUMBER_FIRST[expr](x)
        grad = None
        if requires_grad:
            y.backward(lib.ones_like(y) * 0.75)
            grad = _signed(x.grad.tolist())
        node = type(y.grad_fn).__name__ if y.grad_fn is not None else None
        outcomes.append(
            (_signed(y.tolist()), str(y.dtype)[6:], y.stride(), y.is_contiguous(), node, grad)
        )
    assert outcomes[0] == outcomes[1]


FORMATS = [
    "f'{t:.2f}'",
    "f'{t}'",
    "f'{s:.3f}'",
    "f'{s:>8}'",
    "f'{p:.2f}'",
    "f'{p}'",
    "f'{g:.3f}'",
    "f'{m}'",
    "f'{m:.2f}'",
    "f'{i:03d}'",
]


@pytest.mark.parametrize("expr", FORMATS)
def test_format_specs_as_pytorch(expr):
    """A plain 0-d tensor formats its number; a tensor of several elements, a Parameter and
    a meta tensor take no format spec (a TypeError), as ``object.__format__``."""
    outcomes = []
    for lib in (jtensor, torch):
        names = {
            "t": lib.tensor([3.0, 1.0]),
            "s": lib.tensor(2.5),
            "p": lib.nn.Parameter(lib.tensor(1.5)),
            "g": lib.tensor(0.25, requires_grad=True),
            "m": lib.tensor(1.0, device="meta"),
            "i": lib.tensor(3),
        }
        try:
            outcomes.append(eval(expr, names))
        except TypeError as exc:
            outcomes.append(("TypeError", str(exc)))
    assert outcomes[0] == outcomes[1]
