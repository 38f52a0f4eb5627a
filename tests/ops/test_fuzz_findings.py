"""Regressions found by the random programs (tests/core/test_random_programs.py) and the
bad-input probes (bench/probes.py), each compared with PyTorch."""

import pytest

import jtensor

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

torch = pytest.importorskip("torch")


def _outcome(fn, lib):
    try:
        r = fn(lib)
    except (IndexError, TypeError, ValueError, RuntimeError) as exc:
        return next(c.__name__ for c in type(exc).__mro__ if c.__module__ == "builtins")
    return None if r is None else tuple(r.shape)


def _set(t, key, value):
    t[key] = value


@pytest.mark.parametrize(
    "shape, key",
    [
        ((1, 0), [1]),  # the result is empty: PyTorch's kernel never checks the index
        ((2, 0), ([5], [7])),  # an indexed dim of size 0: always refused
        ((2, 3), ([5], [])),  # broadcast to an empty index
        ((2, 3, 0), [5]),
        ((2, 3), ([5], slice(0, 0))),
        ((0, 2), [1]),
        ((1, 0), (slice(None), [3])),
    ],
)
def test_out_of_range_index_with_an_empty_result(shape, key):
    for run in (
        lambda L: L.zeros(shape)[key],
        lambda L: _set(L.zeros(shape), key, 1.0),
        lambda L: _set(L.zeros(shape), key, L.tensor(2.0)),
    ):
        assert _outcome(run, jtensor) == _outcome(run, torch), key


@pytest.mark.parametrize(
    "shape, sizes",
    [
        ((), [1]),
        ((), [1, 1]),
        ((), [3, 1]),
        ((1,), [1]),
        ((1,), [2, 1]),
        ((2, 1), [1, 2, 1]),
    ],
)
def test_expand_strides_of_new_dims(shape, sizes):
    # A 0-d tensor's new trailing dim of size 1 gets stride 0 (PyTorch's inferExpandGeometry).
    mine = jtensor.zeros(shape).expand(sizes)
    theirs = torch.zeros(shape).expand(sizes)
    assert mine.stride() == theirs.stride()
    assert mine.is_contiguous() == theirs.is_contiguous()


@pytest.mark.parametrize(
    "shape, key", [((0,), [0]), ((2, 0), (slice(None), [0])), ((3,), [0, 1, 2])]
)
def test_index_write_of_a_tensor_into_itself_is_an_overlap(shape, key):
    # Without basic slicing PyTorch writes into the tensor itself: a full overlap, even empty.
    for L in (jtensor, torch):
        t = L.zeros(shape)
        with pytest.raises(RuntimeError, match="single memory location"):
            _set(t, key, t)


def test_basic_write_of_a_0d_value_fills_without_an_overlap_check():
    # PyTorch fills from a 0-d CPU value, so writing an element of x into x is allowed
    # (on CUDA the value is expanded and copied: the overlap check applies there).
    for L in (jtensor, torch):
        x = L.tensor(3.0, device="cpu")
        x[None] = x
        y = L.arange(3.0, device="cpu")
        y[0:1] = y[0]
        y[1:] = y[0]
        assert y.tolist() == [0.0, 0.0, 0.0] and float(x) == 3.0


@pytest.mark.parametrize(
    "key",
    [
        slice(None, None, -1),
        slice(None, None, 0),
        (slice(None, None, -1),),
        (0, slice(None, None, -1)),
    ],
)
def test_a_lone_slice_checks_its_step_before_the_dims(key):
    # x[::-1] on a 0-d x: PyTorch unpacks a lone slice first (ValueError); inside a tuple the
    # count of indices is checked first (IndexError).
    def read(L):
        return L.zeros(())[key]

    def write(L):
        _set(L.zeros(()), key, 1.0)

    for run in (read, write):
        assert _outcome(run, jtensor) == _outcome(run, torch), key


@pytest.mark.parametrize("key, value", [(5, 1.0), ([0, 0], "x"), ([5], 1.0), ([0], None)])
def test_index_write_on_a_leaf_reads_the_key_and_value_first(key, value):
    # A bad key (IndexError) or value (TypeError) is reported before the leaf's RuntimeError;
    # an out-of-range advanced index is checked after it (by PyTorch's kernel).
    def write(L):
        t = L.zeros(2, requires_grad=True)
        v = L.zeros(1) if value is None else value
        _set(t, key, v)

    assert _outcome(write, jtensor) == _outcome(write, torch)


def test_index_write_of_itself_into_a_0d_leaf_is_a_key_error():
    def write(L):
        t = L.tensor(1.0, requires_grad=True)
        _set(t, [0], t)

    assert _outcome(write, jtensor) == _outcome(write, torch) == "IndexError"


@pytest.mark.parametrize("start", [-2, -1, 0, 1])
@pytest.mark.parametrize("end", [-2, -1, 0, 1])
def test_flatten_of_a_0d_tensor_checks_its_dims(start, end):
    def run(L):
        return L.zeros(()).flatten(start, end)

    assert _outcome(run, jtensor) == _outcome(run, torch)


@pytest.mark.parametrize(
    "source, destination",
    [(0, 0), (-1, 0), (0, -1), (1, 0), (0, 1), ([0], [-1]), ([], []), ([0, -1], [0, 0])],
)
def test_movedim_of_a_0d_tensor(source, destination):
    def run(L):
        return L.zeros(()).movedim(source, destination)

    assert _outcome(run, jtensor) == _outcome(run, torch)


@pytest.mark.parametrize(
    "value",
    [255.5, -0.5, -1.0, -1.5, 127.9, -128.9, -129.0, -1, 256, -129, 300.0, float("nan"), 1e40],
)
@pytest.mark.parametrize("dtype", ["uint8", "int8", "float16"])
def test_a_number_written_into_a_small_dtype(value, dtype):
    # full, fill_, masked_fill and index writes share PyTorch's checked_convert: ints wrap
    # into unsigned dtypes down to -max, anything else out of range is a RuntimeError (full
    # leaked NumPy's OverflowError; masked_fill refused -1 for uint8).
    def runs(L):
        d = getattr(L, dtype)
        mask = L.tensor([True, False])
        return [
            lambda: L.full((2,), value, dtype=d),
            lambda: L.zeros(2, dtype=d).fill_(value),
            lambda: L.zeros(2, dtype=d).masked_fill(mask, value),
            lambda: L.zeros(2, dtype=d).index_fill(0, L.tensor([0]), value),
        ]

    def outcome(fn):
        try:
            return fn().tolist()
        except Exception as exc:  # noqa: BLE001 - the exact type is compared
            return type(exc).__name__

    mine = [outcome(f) for f in runs(jtensor)]
    theirs = [outcome(f) for f in runs(torch)]
    assert repr(mine) == repr(theirs)


@pytest.mark.parametrize("scale", [float("inf"), float("nan"), -1.0, 0.0, 1e20, 1e-9])
def test_interpolate_scale_factors_that_give_no_size(scale):
    # NumPy's OverflowError/ValueError leaked; PyTorch raises RuntimeError for each.
    def run(L):
        return L.nn.functional.interpolate(L.ones(1, 1, 4), scale_factor=scale)

    assert _outcome(run, jtensor) == _outcome(run, torch) == "RuntimeError"


@pytest.mark.parametrize("alpha", ["a", None, [1]])
def test_add_alpha_of_a_wrong_type(alpha):
    for L in (jtensor, torch):
        with pytest.raises(TypeError, match="alpha"):
            L.add(L.ones(3), 1, alpha=alpha)
        with pytest.raises(TypeError, match="alpha"):
            L.ones(3).sub_(1, alpha=alpha)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.exp(L.ones(2), out=3),
        lambda L: L.cat([L.ones(2)], out="x"),
        lambda L: L.sum(L.ones(3), 0, out=3),
        lambda L: L.mul(L.ones(2), 2, out=[1]),
    ],
)
def test_out_of_a_wrong_type_is_a_type_error(call):
    # (an AttributeError from inside jtensor before)
    for L in (jtensor, torch):
        with pytest.raises(TypeError, match="out"):
            call(L)
    assert jtensor.max(
        jtensor.ones(2), 0, out=(jtensor.zeros(()), jtensor.zeros((), dtype=jtensor.long))
    )


@pytest.mark.parametrize("dim, start, length", [(1, 0, -1), (5, 9, -2), (1, 0, 1), (0, 3, -1)])
def test_narrow_checks_the_length_before_the_dim(dim, start, length):
    def run(L):
        return L.zeros(2).narrow(dim, start, length)

    assert _outcome(run, jtensor) == _outcome(run, torch)


@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (1, 2), (2, 1), (1, 1, 1)])
def test_basic_write_of_a_tensor_into_its_own_row(shape):
    # t[0] = t: PyTorch copies from the value's expanded view and checks that view for a
    # partial overlap ((1, 1): strides (1,) and (0,) over the same bytes).
    def run(L):
        _set(L.zeros(shape), 0, L.zeros(shape))
        t = L.zeros(shape)
        _set(t, 0, t)

    assert _outcome(run, jtensor) == _outcome(run, torch)


@pytest.mark.parametrize(
    "args",
    [(0, 5, float("nan")), (0, 1, 1e-30), (0, 1, 1e-20), (float("nan"), 3), (0, 1, float("inf"))],
)
def test_arange_with_a_nan_or_tiny_step(args):
    # (NumPy's "cannot convert float NaN to integer" / "Maximum allowed size exceeded" before)
    def run(L):
        return L.arange(*args)

    assert _outcome(run, jtensor) == _outcome(run, torch)


@pytest.mark.parametrize(
    "shape, k, dim",
    [((0,), 1, 0), ((0, 3), 1, 0), ((0, 3), 1, 1), ((3, 0), 1, 0), ((3, 0), 0, 1), ((), 2, 0)],
)
def test_kthvalue_along_an_empty_dim(shape, k, dim):
    def run(L):
        return L.zeros(shape).kthvalue(k, dim)[0]

    assert _outcome(run, jtensor) == _outcome(run, torch)


@pytest.mark.parametrize(
    "data",
    [
        [1, "a"],
        ["a"],
        [[1], ["a"]],
        [b"x"],
        "abc",
        b"x",
        ["abc"],
        [[b"x"]],
        [1, b"x"],
        [[1, 2], [3, "x"]],
    ],
    ids=repr,
)
def test_text_inside_tensor_data(data):
    # text on the first-element path is a dimension too many (ValueError), elsewhere (or
    # bytes anywhere) an invalid data type (TypeError), as PyTorch
    def run(L):
        return L.tensor(data)

    assert _outcome(run, jtensor) == _outcome(run, torch)


@pytest.mark.parametrize("decimals", [float("nan"), 1.0, "a", True, 2])
def test_round_decimals_must_be_an_int(decimals):
    # (a float or NaN was silently used before)
    def run(L):
        return L.round(L.ones(2) * 1.234, decimals=decimals)

    assert _outcome(run, jtensor) == _outcome(run, torch)
