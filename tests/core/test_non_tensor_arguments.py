"""A NumPy array, a list or None where an op takes a tensor, compared with PyTorch.

PyTorch's argument parser refuses them before the op runs: a ``TypeError`` naming the
argument, its position and the type as CPython names it (``numpy.ndarray``, ``list``,
``NoneType``). Passing a NumPy array to a layer or a loss is among the commonest mistakes
of a first training loop, so jtensor must answer it the same way, never with an
``AttributeError`` from inside an op. Also: lists of tensors given to ``torch.tensor``
(a tensor is a leaf where the data's shape is read, a sequence of rows elsewhere), and
tensors or arrays given as sizes.
"""

import warnings

import numpy as np
import pytest

import jtensor
import jtensor.nn.functional as JF

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

VALUES = {
    "ndarray": lambda: np.ones((2, 3), np.float32),
    "list": lambda: [[1.0, 2.0], [3.0, 4.0]],
    "None": lambda: None,
}

# Where PyTorch itself does not reach its parser's TypeError (a Python function that calls
# a method of its argument first); jtensor's TypeError is the clearer answer there.
PYTORCH_ATTRIBUTE_ERRORS = {"softmax", "softmin", "log_softmax", "normalize"}


def _outcome(fn, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*args)
    except Exception as exc:  # (the type and the words are what is compared)
        return type(exc).__name__, str(exc).split("\n")[0]
    return "ok", ""


def _shared_names(mine, theirs):
    return sorted(
        n
        for n in dir(theirs)
        if not n.startswith("_")
        and callable(getattr(theirs, n, None))
        and callable(getattr(mine, n, None))
        and n in jtensor._registry.FUNCTIONS
    )


def _compare(name, my_fn, their_fn, value):
    for extra in ((), (0,), (1.0,)):
        args = (VALUES[value](), *extra)
        theirs = _outcome(their_fn, args)
        if theirs[0] != "TypeError":
            continue
        mine = _outcome(my_fn, args)
        assert mine[0] == "TypeError", (name, extra, mine, theirs)
        if " must be Tensor, not " in theirs[1] and " must be Tensor, not " in mine[1]:
            # (where PyTorch's parser checks types before counting the arguments, jtensor
            # may report a missing argument first: a TypeError all the same)
            named = theirs[1].rsplit(" not ", 1)[1]
            assert mine[1].endswith(f"not {named}"), (name, extra, mine, theirs)


@pytest.mark.parametrize("value", sorted(VALUES))
@pytest.mark.parametrize("name", _shared_names(jtensor, torch))
def test_torch_functions_refuse_a_non_tensor_input_as_pytorch(name, value):
    if name == "split" and value == "list":
        pytest.skip("a list has no split method; both raise, each its own way")
    if name == "arange" and value == "None":
        pytest.skip("arange(None, end) is arange(end) to jtensor (its start defaults to None)")
    _compare(name, getattr(jtensor, name), getattr(torch, name), value)


@pytest.mark.parametrize("value", sorted(VALUES))
@pytest.mark.parametrize(
    "name", [n for n in _shared_names(JF, TF) if n not in PYTORCH_ATTRIBUTE_ERRORS]
)
def test_functional_refuses_a_non_tensor_input_as_pytorch(name, value):
    _compare(name, getattr(JF, name), getattr(TF, name), value)


def _layer_outcomes(lib, build, make_input):
    lib.manual_seed(0)
    layer = build(lib.nn)
    return _outcome(layer, make_input())


LAYERS = {
    "Linear": (lambda nn: nn.Linear(3, 2), lambda: (np.ones((2, 3), np.float32),)),
    "Sequential": (
        lambda nn: nn.Sequential(nn.Linear(3, 2), nn.ReLU()),
        lambda: (np.ones((2, 3), np.float32),),
    ),
    "Conv2d": (lambda nn: nn.Conv2d(1, 1, 2), lambda: (np.ones((1, 1, 3, 3), np.float32),)),
    "Embedding": (lambda nn: nn.Embedding(4, 2), lambda: (np.array([1, 2]),)),
    "Dropout": (lambda nn: nn.Dropout(), lambda: (np.ones(3, np.float32),)),
    "LayerNorm": (lambda nn: nn.LayerNorm(3), lambda: (np.ones((2, 3), np.float32),)),
    "BatchNorm1d": (lambda nn: nn.BatchNorm1d(3), lambda: (np.ones((2, 3), np.float32),)),
    "GELU": (lambda nn: nn.GELU(), lambda: (np.ones(3, np.float32),)),
    "LeakyReLU": (lambda nn: nn.LeakyReLU(), lambda: (np.ones(3, np.float32),)),
    "Bilinear": (
        lambda nn: nn.Bilinear(3, 3, 2),
        lambda: (np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)),
    ),
    "MaxPool2d": (lambda nn: nn.MaxPool2d(2), lambda: (np.ones((1, 1, 4, 4), np.float32),)),
}
LOSSES = ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCEWithLogitsLoss", "KLDivLoss"]


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_a_layer_given_a_numpy_array_raises_as_pytorch(name):
    build, make_input = LAYERS[name]
    mine = _layer_outcomes(jtensor, build, make_input)
    theirs = _layer_outcomes(torch, build, make_input)
    assert mine[0] == theirs[0], (mine, theirs)
    if theirs[0] == "TypeError":
        assert "numpy.ndarray" in mine[1]
    else:  # (BatchNorm1d: both call input.dim() before any op: AttributeError)
        assert mine == theirs


@pytest.mark.parametrize("target_first", [False, True], ids=["array target", "array input"])
@pytest.mark.parametrize("name", LOSSES)
def test_a_loss_given_a_numpy_array_names_the_argument(name, target_first):
    array = np.full((2, 3), 0.5, np.float32)
    outcomes = []
    for lib in (jtensor, torch):
        tensor = lib.full((2, 3), 0.5)
        args = (array, tensor) if target_first else (tensor, array)
        outcomes.append(_outcome(getattr(lib.nn, name)(), args))
    mine, theirs = outcomes
    assert mine[0] == theirs[0] == "TypeError"
    which = "input' (position 1)" if target_first else "target' (position 2)"
    assert mine[1].endswith(f"argument '{which} must be Tensor, not numpy.ndarray")


@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
def test_class_losses_given_a_numpy_target_name_it(name):
    with pytest.raises(TypeError, match=r"'target' \(position 2\) must be Tensor, not numpy"):
        getattr(JF, name)(jtensor.zeros(2, 3), np.array([0, 1]))
    with pytest.raises(TypeError, match=r"'target' \(position 2\) must be Tensor, not numpy"):
        getattr(TF, name)(torch.zeros(2, 3), np.array([0, 1]))


TENSOR_DATA = [
    "[t[0], t[1]]",
    "[1.0, t[0]]",
    "[t]",
    "[t[0], [1.0, 2.0]]",
    "[[1.0, 2.0], t[0]]",
    "[[1, 2], t[0]]",
    "[[1.0, 2.0], t[0:1]]",
    "[[1.0, 2.0], lib.ones(3)]",
    "[[1.0, 2.0], lib.ones(2, 1)]",
    "[[s, s], s]",
    "[s, s]",
    "[lib.tensor([1]), lib.tensor([2, 3])]",
    "[lib.ones(1, 1)]",
    "[lib.ones(0)]",
]


@pytest.mark.parametrize("dtype", [None, "int64", "bool", "float16", "complex64"])
@pytest.mark.parametrize("data", TENSOR_DATA)
def test_tensor_from_nested_data_holding_tensors_as_pytorch(data, dtype):
    outcomes = []
    for lib in (jtensor, torch):
        t = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        s = lib.tensor(2.0)
        kwargs = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        try:
            out = lib.tensor(eval(data, {"lib": lib, "t": t, "s": s}), **kwargs)
        except Exception as exc:  # (its type is compared)
            outcomes.append((type(exc).__name__,))
        else:
            outcomes.append(("ok", str(out.dtype)[6:], out.tolist()))
    assert outcomes[0] == outcomes[1]


SIZES = [
    "lib.zeros(np.array(2))",
    "lib.zeros(np.array([2, 3]))",
    "lib.zeros(lib.tensor(2))",
    "lib.zeros(lib.tensor([2, 3]))",
    "lib.ones(2, 2).reshape(np.array([4]))",
    "lib.ones(2, 2).reshape(lib.tensor([4]))",
    "lib.ones(2, 2).view(np.array(4))",
    "lib.ones(2, 2).permute(np.array([1, 0]))",
    "lib.ones(2, 2).expand(np.array([2, 2]))",
    "lib.ones(2, 2).repeat(np.array([2, 1]))",
    "lib.full(np.array([2]), 1.0)",
    "lib.randint(0, 5, np.array([3]))",
    "lib.ones((np.int64(2), np.array(3)))",
]


@pytest.mark.parametrize("call", SIZES)
def test_sizes_given_as_arrays_or_tensors_as_pytorch(call):
    outcomes = []
    for lib in (jtensor, torch):
        try:
            out = eval(call, {"lib": lib, "np": np})
        except Exception as exc:  # (its type is compared)
            outcomes.append((type(exc).__name__,))
        else:
            outcomes.append(("ok", tuple(out.shape)))
    assert outcomes[0] == outcomes[1]


def test_type_names_follow_cpythons_tp_name():
    from jtensor._errors import type_name

    class Mine:
        pass

    import collections
    import fractions

    assert type_name(np.ones(1)) == "numpy.ndarray"
    assert type_name(np.float64(1)) == "numpy.float64"
    assert type_name(collections.OrderedDict()) == "collections.OrderedDict"
    assert type_name(fractions.Fraction(1, 2)) == "Fraction"
    assert type_name(Mine()) == "Mine"
    assert type_name(None) == "NoneType"
    assert type_name(jtensor.ones(1)) == "Tensor"
    for value in (Mine(), fractions.Fraction(1, 2), collections.OrderedDict(), np.ones(1)):
        with pytest.raises(TypeError) as mine:
            jtensor.exp(value)
        with pytest.raises(TypeError) as theirs:
            torch.exp(value)
        assert str(mine.value) == str(theirs.value)
