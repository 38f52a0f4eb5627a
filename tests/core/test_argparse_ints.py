"""Integer arguments as PyTorch's parser reads them: a 0-d integer tensor or a NumPy integer
is an int wherever an ``int`` or ``int[]`` is expected (``x.diagonal(offset=n)`` with ``n`` a
tensor used to build a shape holding a tensor), and the wrong types get PyTorch's TypeError
naming the argument."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices


def _x(L):
    return L.arange(24.0).reshape(2, 3, 4)


INTS = {
    "a 0-d tensor": lambda L: L.tensor(1),
    "numpy.int64": lambda L: np.int64(1),
    "numpy.int32": lambda L: np.int32(1),
}

CALLS = {
    "sum(dim=)": lambda L, one: _x(L).sum(dim=one),
    "unsqueeze": lambda L, one: _x(L).unsqueeze(one),
    "transpose": lambda L, one: _x(L).transpose(one, 0),
    "narrow start": lambda L, one: _x(L).narrow(0, one, 1),
    "select index": lambda L, one: _x(L).select(0, one),
    "view size": lambda L, one: _x(L).view(-1, one * 4),
    "reshape size": lambda L, one: _x(L).reshape(one, -1),
    "indexing": lambda L, one: _x(L)[one],
    "zeros size": lambda L, one: L.zeros(one, 2),
    "topk k": lambda L, one: _x(L).topk(one).values,
    "chunk dim": lambda L, one: _x(L).chunk(2, one)[0],
    "flatten start_dim": lambda L, one: _x(L).flatten(one),
    "repeat": lambda L, one: _x(L).repeat(one, 1, 1),
    "expand": lambda L, one: _x(L).expand(2, one * 3, 4),
    "permute": lambda L, one: _x(L).permute(0, one, 2),
    "softmax dim": lambda L, one: _x(L).softmax(one),
    "cat dim": lambda L, one: L.cat([_x(L), _x(L)], dim=one),
    "roll shifts": lambda L, one: _x(L).roll(one, 0),
    "roll dims": lambda L, one: _x(L).roll(1, one),
    "diagonal offset": lambda L, one: _x(L).diagonal(offset=one),
    "tril diagonal": lambda L, one: _x(L)[0].tril(one),
    "full size": lambda L, one: L.full((one, 2), 1.0),
    "new_zeros size": lambda L, one: _x(L).new_zeros(one),
    "eye n": lambda L, one: L.eye(one + 1),
    "eye n, m": lambda L, one: L.eye(2, one + 2),
    "linspace steps": lambda L, one: L.linspace(0, 1, one + 4),
    "logspace steps": lambda L, one: L.logspace(0, 1, one + 4),
    "multinomial num_samples": lambda L, one: L.multinomial(L.ones(3), one).shape,
    "size dim": lambda L, one: _x(L).size(one),
    "movedim": lambda L, one: _x(L).movedim(one, 0),
    "movedim lists": lambda L, one: _x(L).movedim([one, 0], [0, one]),
    "index_select dim": lambda L, one: _x(L).index_select(one, L.tensor([0])),
    "gather dim": lambda L, one: _x(L).gather(one, L.zeros(2, 1, 4, dtype=L.long)),
    "randint high": lambda L, one: L.randint(one + 4, (3,)).shape,
    "arange end": lambda L, one: L.arange(one + 4),
}


def _run(fn, lib, one):
    try:
        return ("value", fn(lib, one(lib)))
    except Exception as e:  # noqa: BLE001 - the exception type is what is compared
        return ("raised", type(e))


@pytest.mark.parametrize("kind", INTS)
@pytest.mark.parametrize("call", CALLS)
def test_integer_arguments_as_pytorch_reads_them(call, kind):
    expected = _run(CALLS[call], torch, INTS[kind])
    got = _run(CALLS[call], jtensor, INTS[kind])
    assert got[0] == expected[0], (got, expected)
    if got[0] == "raised":
        assert issubclass(got[1], expected[1])
        return
    a, b = got[1], expected[1]
    if isinstance(b, torch.Tensor):
        assert tuple(a.shape) == tuple(b.shape)
        assert all(type(n) is int for n in a.shape)   # no tensor hidden in a shape
        assert str(a.dtype) == str(b.dtype)
        if not (call.startswith(("multinomial", "randint"))):
            np.testing.assert_allclose(a.cpu().numpy(), b.numpy())
    elif isinstance(b, torch.Size):
        assert tuple(a) == tuple(b) and all(type(n) is int for n in a)
    else:
        assert a == b and type(a) is type(b), (a, b)


@pytest.mark.parametrize("call", ["diagonal offset", "movedim"])
def test_a_bool_tensor_is_not_an_int(call):
    """PyTorch refuses a bool tensor where an int is expected (``int_arg``)."""
    one = {"v": lambda L: L.tensor(True)}["v"]
    expected = _run(CALLS[call], torch, one)
    got = _run(CALLS[call], jtensor, one)
    assert expected[0] == got[0] == "raised"
    assert issubclass(got[1], expected[1])


@pytest.mark.parametrize("bad, name", [(1.5, "float"), ("2", "str"), (True, "bool")])
def test_a_non_integer_is_refused_naming_the_argument(bad, name):
    with pytest.raises(TypeError, match=rf"eye\(\): argument 'n' \(position 1\) must be int, "
                                        rf"not {name}"):
        jtensor.eye(bad)
    with pytest.raises(TypeError, match=rf"diagonal\(\): argument 'offset' \(position 1\) "
                                        rf"must be int, not {name}"):
        jtensor.ones(3, 3).diagonal(offset=bad)
    with pytest.raises(TypeError, match=rf"argument 'steps' \(position 3\) must be int, "
                                        rf"not {name}"):
        jtensor.linspace(0, 1, bad)
