"""The pre-1.0 API that PyTorch 2.13 still carries and old tutorials use, against PyTorch:
the typed constructors (torch.FloatTensor, ...), x.type(torch.DoubleTensor),
torch.autograd.Variable, the thread-count functions and a comparable torch.__version__."""

import operator
import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

TYPE_NAMES = [
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
]
BUILTIN = (IndexError, TypeError, ValueError, RuntimeError)


def outcome(fn, lib, values=True):
    """What ``fn(lib)`` gives: (dtype name, shape, values) of a tensor, another value, or the
    builtin exception type PyTorch's message maps to, with the message. ``values=False`` leaves
    the values out (uninitialised memory)."""
    try:
        out = fn(lib)
    except BUILTIN as exc:
        kind = next(b for b in BUILTIN if isinstance(exc, b))
        return kind, str(exc).splitlines()[0]
    if isinstance(out, (jtensor.Tensor, torch.Tensor)):
        if not values or out.dtype == lib.bfloat16:
            return str(out.dtype), tuple(out.shape)
        return str(out.dtype), tuple(out.shape), out.float().tolist()
    return out


def agree(fn, values=True):
    mine, theirs = outcome(fn, jtensor, values), outcome(fn, torch, values)
    assert mine == theirs, (mine, theirs)


@pytest.mark.parametrize("name", TYPE_NAMES)
def test_each_typed_constructor_builds_its_dtype(name):
    agree(lambda lib: getattr(lib, name)([1, 0, 2]))
    agree(lambda lib: getattr(lib, name)(2, 3).shape)
    agree(lambda lib: getattr(lib, name)())
    agree(lambda lib: str(getattr(lib, name).dtype))
    agree(lambda lib: repr(getattr(lib, name)))
    agree(lambda lib: getattr(lib, name).__name__)


@pytest.mark.parametrize(
    "args",
    [
        ([1.7, -2.5],),
        ([[1, 2], [3, 4]],),
        ((2, 3),),
        ((),),
        ([],),
        (4,),
        (2, 0, 3),
        (np.array([1.5, 2.5]),),
        (np.arange(6).reshape(2, 3),),
    ],
)
def test_data_and_sizes_are_told_apart_as_pytorch_does(args):
    for name in ("FloatTensor", "LongTensor", "DoubleTensor"):
        if name == "FloatTensor" or not isinstance(args[0], np.ndarray):
            sizes = all(isinstance(a, int) for a in args)
            agree(lambda lib, name=name: getattr(lib, name)(*args), values=not sizes)


def test_a_size_object_is_a_shape():
    agree(lambda lib: lib.FloatTensor(lib.Size([2, 3])).shape)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        (("a",), {}),
        ((2.5,), {}),
        ((True,), {}),
        ((np.float64(2.0),), {}),
        ((2, 3.0), {}),
        ((-1,), {}),
        (([1, 2], 3), {}),
        (([1],), {"requires_grad": True}),
        (([300],), {}),
    ],
)
def test_bad_arguments_raise_pytorchs_exception_type(args, kwargs):
    def build(lib):
        return (
            lib.ByteTensor(*args, **kwargs)
            if args == ([300],)
            else lib.FloatTensor(*args, **kwargs)
        )

    mine, theirs = outcome(build, jtensor), outcome(build, torch)
    assert isinstance(theirs, tuple) and theirs[0] in BUILTIN
    assert mine[0] is theirs[0], (mine, theirs)
    if theirs[0] is TypeError and "invalid combination" not in theirs[1]:
        assert mine[1] == theirs[1]


def test_dtype_keyword_is_refused_and_device_cpu_accepted():
    agree(lambda lib: lib.FloatTensor([1], dtype=lib.float64))
    agree(lambda lib: lib.FloatTensor([1, 2], device="cpu"))


def test_a_tensor_of_the_same_type_is_aliased():
    for lib in (jtensor, torch):
        x = lib.tensor([1.5, 2.5])
        y = lib.FloatTensor(x)
        assert y is not x and y.data_ptr() == x.data_ptr()
        y[0] = 7
        assert x[0].item() == 7


def test_the_alias_of_a_tensor_that_requires_grad_records_alias_backward():
    names = []
    for lib in (jtensor, torch):
        x = lib.ones(2, requires_grad=True)
        y = lib.FloatTensor(x)
        names.append((type(y.grad_fn).__name__, y._base is x))
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0]
    assert names[0] == names[1] == ("AliasBackward0", True)


def test_a_tensor_of_another_dtype_is_a_type_error_with_pytorchs_words():
    agree(lambda lib: lib.FloatTensor(lib.zeros(2, dtype=lib.float64)))
    agree(lambda lib: lib.LongTensor(lib.zeros(2)))


def test_isinstance_checks_dtype_and_device():
    for lib in (jtensor, torch):
        x = lib.tensor([1.5, 2.5])
        assert isinstance(x, lib.FloatTensor)
        assert not isinstance(x, lib.DoubleTensor)
        assert isinstance(x.double(), lib.DoubleTensor)
        assert isinstance(x.long(), lib.LongTensor)
        assert isinstance(lib.nn.Parameter(x), lib.FloatTensor)
        assert not isinstance([1.0], lib.FloatTensor)
        assert not issubclass(lib.FloatTensor, lib.Tensor)
        assert type(lib.FloatTensor).__name__ == "tensortype"
        assert type(lib.FloatTensor([1.0])) is lib.Tensor


@pytest.mark.parametrize("target", ["DoubleTensor", "LongTensor", "FloatTensor", "ByteTensor"])
def test_type_converts_to_a_typed_class(target):
    agree(lambda lib: lib.tensor([1.5, 2.5]).type(getattr(lib, target)))
    for lib in (jtensor, torch):
        x = lib.tensor([1.5, 2.5])
        assert (x.type(lib.FloatTensor) is x) is True
        assert x.type(getattr(lib, target)).type() == f"torch.{target}"


# ---------------------------------------------------------------------- Variable
def test_variable_is_a_detached_alias():
    for lib in (jtensor, torch):
        Variable = lib.autograd.Variable
        x = lib.ones(2)
        v = Variable(x)
        assert v is not x and v.data_ptr() == x.data_ptr() and not v.requires_grad
        assert type(v) is lib.Tensor and v.grad_fn is None
        w = Variable(x, requires_grad=True)
        assert w.requires_grad and w.is_leaf and not x.requires_grad
        y = lib.ones(2, requires_grad=True) * 3
        z = Variable(y)
        assert z.grad_fn is None and z.is_leaf and not z.requires_grad
        assert isinstance(x, Variable) and not isinstance(3, Variable)
        assert Variable.__module__ == "torch.autograd.variable"


def test_variable_requires_grad_trains_like_a_tensor():
    grads = []
    for lib in (jtensor, torch):
        w = lib.autograd.Variable(lib.tensor([1.0, -2.0]), requires_grad=True)
        loss = (w * w).sum()
        loss.backward()
        grads.append(w.grad.tolist())
    assert grads[0] == grads[1] == [2.0, -4.0]


def test_variable_without_data_and_with_bad_data():
    agree(lambda lib: lib.autograd.Variable())
    agree(lambda lib: lib.autograd.Variable(3))
    agree(lambda lib: lib.autograd.Variable([1, 2]))


def test_variable_volatile_only_warns():
    for lib in (jtensor, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            v = lib.autograd.Variable(lib.ones(1), volatile=True)
        assert any("volatile was removed" in str(w.message) for w in caught)
        assert not v.requires_grad


def test_from_torch_autograd_import_variable():
    from jtensor.autograd import Variable

    assert Variable is jtensor.autograd.Variable


# ---------------------------------------------------------------------- threads
def test_thread_counts_are_kept_and_checked():
    from jtensor import _threads

    saved = dict(_threads._state)
    try:
        assert isinstance(jtensor.get_num_threads(), int) and jtensor.get_num_threads() > 0
        jtensor.set_num_threads(3)
        assert jtensor.get_num_threads() == 3
        assert isinstance(jtensor.get_num_interop_threads(), int)
        for bad in (0, -1, 2.5, "2"):
            agree(lambda lib, bad=bad: lib.set_num_threads(bad))
    finally:
        _threads._state.update(saved)


def test_interop_threads_can_be_set_once():
    from jtensor import _threads

    saved = dict(_threads._state)
    try:
        _threads._state.update(interop=None, interop_set=False)
        jtensor.set_num_interop_threads(2)
        assert jtensor.get_num_interop_threads() == 2
        with pytest.raises(RuntimeError, match="cannot set number of interop threads"):
            jtensor.set_num_interop_threads(3)
    finally:
        _threads._state.update(saved)


def test_omp_num_threads_is_the_default(monkeypatch):
    from jtensor import _threads

    monkeypatch.setenv("OMP_NUM_THREADS", "5")
    assert _threads._default() == 5
    monkeypatch.setenv("OMP_NUM_THREADS", "junk")
    assert _threads._default() >= 1


# ---------------------------------------------------------------------- version
def test_version_names_the_pytorch_release_it_follows():
    assert jtensor.__version__.split("+")[0] == torch.__version__.split("+")[0]
    assert isinstance(jtensor.__version__, str)
    assert jtensor.version.__version__ is jtensor.__version__
    assert jtensor.version.jtensor == "0.1.0"
    assert jtensor.version.cuda is None and jtensor.version.debug is False


@pytest.mark.parametrize(
    "other",
    [
        "2.0",
        "1.13.1",
        "2.13",
        "2.13.0",
        "2.13.0+cpu",
        "2.13.1",
        "2.14.0a0",
        "3",
        "2.13.0rc1",
        "2.13.0.post1",
        "2.13.0.dev20250101",
        (2, 1),
        (2, 13),
        (2, 13, 0),
        [2, 14],
        (1,),
    ],
)
def test_version_compares_as_pytorchs_torchversion(other):
    from jtensor.torch_version import TorchVersion

    TV = torch.torch_version.TorchVersion
    for version in ("2.13.0+jtensor.0.1.0", "2.13.0+cpu", "2.13.0", "1.10.0a0", "2.13.0rc2"):
        for op in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne):
            mine = op(TorchVersion(version), other)
            theirs = op(TV(version), other)
            assert mine == theirs, (version, op, other, mine, theirs)


def test_version_falls_back_to_string_comparison_for_non_versions():
    from jtensor.torch_version import TorchVersion

    TV = torch.torch_version.TorchVersion
    for other in ("parrot", "abc"):
        assert (TorchVersion("2.13.0") < other) == (TV("2.13.0") < other)
        assert (TorchVersion("2.13.0") == other) == (TV("2.13.0") == other)


def test_version_works_with_packaging():
    version = pytest.importorskip("packaging.version")
    assert version.parse(jtensor.__version__) >= version.parse("2.0")
    assert jtensor.__version__ > version.Version("2.12")
    assert jtensor.__version__ >= (2, 0)
    assert int(jtensor.__version__.split(".")[0]) == 2
    assert {jtensor.__version__: 1}[str(jtensor.__version__)] == 1


def test_cuda_typed_constructors_without_a_gpu_refuse_with_a_type_error():
    from tests.harness.conformance import on_cuda

    if on_cuda():
        pytest.skip("this run has a CUDA device")
    for lib in (jtensor, torch):
        cls = lib.cuda.FloatTensor
        assert (repr(cls), repr(type(cls)), cls.is_cuda, cls.dtype == lib.float32) == (
            "<class 'torch.cuda.FloatTensor'>", "<class 'torch.tensortype'>", True, True)
        assert not isinstance(lib.ones(2), cls)
        with pytest.raises(TypeError, match="torch.cuda.FloatTensor not available"):
            cls([1.0, 2.0])
    assert sorted(n for n in dir(jtensor.cuda) if n.endswith("Tensor")) == \
        sorted(n for n in dir(torch.cuda) if n.endswith("Tensor"))


def test_cuda_typed_constructors_on_the_emulated_device():
    from jtensor.cuda._runtime import runtime

    runtime._reset()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jtensor.cuda.EmulatedCUDAWarning)
            jtensor.cuda.emulate()
        y = jtensor.cuda.FloatTensor([1, 2])
        assert y.device.type == "cuda" and y.dtype == jtensor.float32
        assert isinstance(y, jtensor.cuda.FloatTensor) and not isinstance(y, jtensor.FloatTensor)
        assert y.type() == "torch.cuda.FloatTensor"
        assert jtensor.cuda.LongTensor(2, 3).shape == (2, 3)
        z = jtensor.ones(2).type(jtensor.cuda.DoubleTensor)
        assert z.device.type == "cuda" and z.dtype == jtensor.float64
        with pytest.raises(RuntimeError, match="expects device type: cuda"):
            jtensor.cuda.FloatTensor([1.0], device="cpu")
    finally:
        runtime._reset()
