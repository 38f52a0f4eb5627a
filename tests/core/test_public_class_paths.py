"""Public classes print and pickle by their public path, as PyTorch's (``<class 'torch.Tensor'>``
is jtensor's ``<class 'jtensor.Tensor'>``); a user's autograd.Function node prints as a Python
class of ``torch.autograd.function``; gradgradcheck draws its grad_outputs as PyTorch does."""

import pickle

import pytest

import jtensor

torch = pytest.importorskip("torch")

CLASSES = [
    "Tensor",
    "Size",
    "dtype",
    "device",
    "Generator",
    "finfo",
    "iinfo",
    "layout",
    "memory_format",
]


@pytest.mark.parametrize("name", CLASSES)
def test_classes_print_their_public_path(name):
    mine = repr(getattr(jtensor, name)).replace("jtensor", "torch", 1)
    assert mine == repr(getattr(torch, name))


def test_types_of_values_print_as_pytorch():
    for make in (
        lambda L: L.ones(2),
        lambda L: L.ones(2).shape,
        lambda L: L.float32,
        lambda L: L.device("cpu"),
        lambda L: L.nn.Parameter(L.ones(1)),
    ):
        assert repr(type(make(jtensor))).replace("jtensor", "torch") == repr(type(make(torch)))


@pytest.mark.parametrize(
    "make",
    [
        lambda: jtensor.ones(2, 3).t(),
        lambda: jtensor.Size([2, 3]),
        lambda: jtensor.float16,
        lambda: jtensor.device("cpu"),
        lambda: jtensor.strided,
        lambda: jtensor.channels_last,
        lambda: jtensor.nn.Parameter(jtensor.ones(2)),
    ],
    ids=["tensor", "size", "dtype", "device", "layout", "memory_format", "parameter"],
)
def test_pickling_still_round_trips(make):
    value = make()
    back = pickle.loads(pickle.dumps(value))
    assert type(back) is type(value)
    if isinstance(value, jtensor.Tensor):
        assert back.tolist() == value.tolist() and back.requires_grad == value.requires_grad
    else:
        assert back == value


def test_a_generator_pickles_by_its_path_and_keeps_its_state():
    g = jtensor.Generator().manual_seed(7)
    back = pickle.loads(pickle.dumps(g))
    assert jtensor._C.Generator is jtensor.Generator
    assert jtensor.rand(3, generator=back).tolist() == jtensor.rand(3, generator=g).tolist()


def test_a_generator_prints_as_pytorchs():
    for g in (jtensor.Generator().manual_seed(3), jtensor.default_generator):
        mine = repr(g).replace("jtensor", "torch", 1).rsplit(" ", 1)
        assert mine[0] == repr(torch.Generator()).rsplit(" ", 1)[0]
        assert mine[1] == f"{id(g):#x}>"


def test_a_user_function_node_prints_as_a_python_class():
    def node(L):
        class Twice(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return 2 * x

            @staticmethod
            def backward(ctx, g):
                return 2 * g

        out = Twice.apply(L.ones(2, requires_grad=True))
        return repr(out.grad_fn).split(" object")[0], out.grad_fn.name()

    mine, theirs = node(jtensor), node(torch)
    assert mine[0].replace("jtensor", "torch") == theirs[0]
    assert mine[1] == theirs[1]
    # jtensor's own fused Functions stand for PyTorch's C++ nodes and keep their short repr.
    out = jtensor.nn.functional.linear(jtensor.ones(2, 3), jtensor.ones(4, 3, requires_grad=True))
    assert repr(out.grad_fn).startswith("<MmBackward0 object at")


def test_gradgradcheck_draws_as_pytorch_so_later_numbers_agree():
    def after(L):
        L.manual_seed(0)
        x = L.rand(3, 3, requires_grad=True, dtype=L.float64)
        assert L.autograd.gradgradcheck(lambda t: (t**2, t.sin()), (x,))
        return L.rand(4).tolist()

    assert after(jtensor) == pytest.approx(after(torch), rel=1e-6)
