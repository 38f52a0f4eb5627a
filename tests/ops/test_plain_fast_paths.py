"""The plain-call fast paths of the calls a training loop makes every step (issue 18):
``out.max(1)``, ``logits.argmax(1)``, ``loss.mean()``, ``(pred == y).sum()``, ``x.float()``,
``x.clone()``, ``torch.from_numpy(batch)``, ``softmax``, ``relu``, ``sigmoid`` and ``stack``.

Each computes on the arrays where a few checks say the general path would; every case here
is compared with PyTorch bit for bit (values, dtype, shape, strides, sharing) over layouts
the fast paths take and layouts they leave to the general path."""

import warnings
import zlib

import numpy as np
import pytest

import jtensor
from jtensor._ops import creation, joining

torch = pytest.importorskip("torch")


def _bits(t):
    a = np.ascontiguousarray(t.detach().numpy())
    return a.dtype.str, a.shape, a.reshape(-1).view(np.uint8).tobytes()


def _same(expected, got):
    assert str(got.dtype) == str(expected.dtype)
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.stride() == expected.stride()
    assert _bits(got) == _bits(expected)


def _special_floats(rng, a):
    flat = a.reshape(-1)
    flat[rng.random(flat.size) < 0.1] = np.nan
    flat[rng.random(flat.size) < 0.1] = -0.0
    flat[rng.random(flat.size) < 0.05] = np.inf
    flat[rng.random(flat.size) < 0.05] = -np.inf
    return a


def _cases(seed, count, dtypes):
    """(numpy array, layout) pairs: random shapes, dtypes with special values, and views
    (transposed, sliced, a size-1 dim with an odd stride) that some fast paths refuse."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        nd = int(rng.integers(1, 4))
        shape = tuple(int(s) for s in rng.integers(1, 6, nd))
        dtype = dtypes[int(rng.integers(len(dtypes)))]
        if dtype in ("float32", "float64"):
            a = _special_floats(rng, (rng.standard_normal(shape) * 3).astype(dtype))
        elif dtype == "bool":
            a = rng.random(shape) < 0.5
        else:
            a = rng.integers(-100, 100, shape).astype(dtype)
        layout = ["contiguous", "transposed", "sliced"][int(rng.integers(3))]
        yield a, layout, rng


def _view(lib, a, layout):
    t = lib.from_numpy(a.copy())
    if layout == "transposed" and t.dim() >= 2:
        return t.transpose(0, 1)
    if layout == "sliced":
        return t[..., ::2]
    return t


def _outcome(fn, lib, t, *extra):
    try:
        return fn(lib, t, *extra), None
    except (RuntimeError, IndexError, TypeError) as e:
        return None, type(e).__name__


REDUCTIONS = {
    "max(dim)": lambda lib, t, d, k: lib.max(t, d, k),
    "min(dim)": lambda lib, t, d, k: t.min(d, keepdim=k),
    "argmax(dim)": lambda lib, t, d, k: t.argmax(d, k),
    "argmin(dim)": lambda lib, t, d, k: lib.argmin(t, dim=d, keepdim=k),
    "mean(dim)": lambda lib, t, d, k: t.mean(d, k),
    "mean()": lambda lib, t, d, k: t.mean(),
    "sum(dim)": lambda lib, t, d, k: t.sum(d, k),
    "sum()": lambda lib, t, d, k: t.sum(),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions_match_pytorch(name):
    fn = REDUCTIONS[name]
    dtypes = ["float32", "float64", "int64", "int32", "bool", "uint8"]
    for a, layout, rng in _cases(zlib.crc32(name.encode()), 150, dtypes):
        dim = int(rng.integers(-a.ndim - 1, a.ndim + 1))  # (out of range now and then)
        keep = bool(rng.integers(2))
        expected, e_err = _outcome(fn, torch, _view(torch, a, layout), dim, keep)
        got, g_err = _outcome(fn, jtensor, _view(jtensor, a, layout), dim, keep)
        assert g_err == e_err, (name, a.shape, a.dtype, dim, layout)
        if e_err is None and "sum" in name and a.dtype.kind == "f":
            # (float sums add in another order than PyTorch's vectorised kernel: the last
            # bit may differ, so values are compared to rounding and layouts exactly)
            assert got.stride() == expected.stride() and str(got.dtype) == str(expected.dtype)
            np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)
        elif e_err is None and "mean" in name:
            assert got.stride() == expected.stride() and str(got.dtype) == str(expected.dtype)
            np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)
        elif e_err is None:
            for x, y in zip(
                expected if isinstance(expected, tuple) else (expected,),
                got if isinstance(got, tuple) else (got,),
                strict=True,
            ):
                _same(x, y)


def test_max_with_dim_returns_the_first_of_equal_maxima_and_nan():
    for lib in (torch, jtensor):
        t = lib.tensor([[1.0, 3.0, 3.0], [float("nan"), 2.0, float("nan")], [-0.0, 0.0, -1.0]])
        values, indices = t.max(1)
        assert indices.tolist() == [1, 0, 0]
        assert str(values[2].item()) == "-0.0"
    _same(
        torch.tensor([[2, 7], [9, 9]]).max(-1, keepdim=True)[0],
        jtensor.tensor([[2, 7], [9, 9]]).max(-1, keepdim=True)[0],
    )


def test_integer_mean_is_refused_before_its_dim_is_read():
    for lib in (torch, jtensor):
        with pytest.raises(RuntimeError, match="mean"):
            lib.arange(6).reshape(2, 3).mean(5)


CASTS = {
    "float()": lambda lib, t: t.float(),
    "double()": lambda lib, t: t.double(),
    "long()": lambda lib, t: t.long(),
    "to(float16)": lambda lib, t: t.to(lib.float16),
    "to(bool)": lambda lib, t: t.to(lib.bool),
    "to(same)": lambda lib, t: t.to(t.dtype),
    "clone()": lambda lib, t: t.clone(),
    "contiguous()": lambda lib, t: t.contiguous(),
}


@pytest.mark.parametrize("name", sorted(CASTS))
def test_casts_and_copies_match_pytorch(name):
    fn = CASTS[name]
    for a, layout, _ in _cases(
        zlib.crc32(name.encode()), 60, ["float32", "float64", "int64", "bool"]
    ):
        if a.dtype.kind == "f":
            a = np.nan_to_num(a, nan=1.5, posinf=7.0, neginf=-7.0)  # (no C-cast of inf to int)
        t, j = _view(torch, a, layout), _view(jtensor, a, layout)
        expected, got = fn(torch, t), fn(jtensor, j)
        _same(expected, got)
        assert (got is j) == (expected is t)
        if got is not j:
            assert got.data_ptr() != j.data_ptr()


def test_copy_keeps_the_odd_stride_of_a_size_one_dim():
    base_t = torch.zeros(3, 4)
    base_j = jtensor.zeros(3, 4)
    t = base_t.as_strided((3, 1, 4), (4, 99, 1))
    j = base_j.as_strided((3, 1, 4), (4, 99, 1))
    for fn in (lambda x: x.clone(), lambda x: x.double(), lambda x: x.to(x.dtype, copy=True)):
        _same(fn(t), fn(j))


def test_a_cast_result_is_new_memory_and_the_input_is_untouched():
    j = jtensor.arange(6.0).reshape(2, 3)
    f = j.double()
    f[0, 0] = 100.0
    assert j[0, 0].item() == 0.0 and j._version == 0


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "uint8"])
@pytest.mark.parametrize("shape", [(), (1,), (5,), (3, 4), (2, 1, 3)])
def test_from_numpy_shares_contiguous_arrays(dtype, shape):
    a = np.asarray(np.arange(int(np.prod(shape))).reshape(shape) % 3).astype(dtype)
    t, j = torch.from_numpy(a), jtensor.from_numpy(a)
    _same(t, j)
    assert j.untyped_storage().nbytes() == t.untyped_storage().nbytes()
    if a.size:
        j.view(-1)[-1] = 1
        assert a.reshape(-1)[-1] == 1  # (the tensor writes into the array)


def test_from_numpy_of_read_only_and_odd_size_one_strides():
    a = np.arange(12.0).reshape(3, 1, 4)
    odd = np.lib.stride_tricks.as_strided(a, (3, 1, 4), (32, 8, 8))
    assert odd.flags.c_contiguous
    _same(torch.from_numpy(odd), jtensor.from_numpy(odd))
    ro = np.arange(6.0)
    ro.flags.writeable = False
    creation._WARNED_READONLY.clear()  # (the warning comes once a process)
    with pytest.warns(UserWarning, match="not writable"):
        j = jtensor.from_numpy(ro)
    assert j.tolist() == ro.tolist()


def _softmax(lib, t, dim, log):
    return lib.log_softmax(t, dim) if log else lib.nn.functional.softmax(t, dim=dim)


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_softmax_matches_pytorch(log):
    for a, layout, rng in _cases(7 if log else 8, 120, ["float32", "float64"]):
        if rng.random() < 0.5:
            a = np.nan_to_num(a, nan=0.5, posinf=30.0, neginf=-30.0)
        dim = int(rng.integers(-a.ndim, a.ndim))
        expected = _softmax(torch, _view(torch, a, layout), dim, log)
        got = _softmax(jtensor, _view(jtensor, a, layout), dim, log)
        assert got.stride() == expected.stride() and str(got.dtype) == str(expected.dtype)
        # (exp and log round as NumPy's and PyTorch's SIMD kernels do: the last bit may
        # differ; NaN and infinity placement may not)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=2e-6, atol=1e-7)


def test_relu_keeps_negative_zero_and_nan_bits():
    for dtype in ("float32", "float64", "int64", "int32"):
        for a, layout, _ in _cases(11, 40, [dtype]):
            _same(torch.relu(_view(torch, a, layout)), jtensor.relu(_view(jtensor, a, layout)))
            _same(
                torch.nn.functional.relu(torch.tensor(a[(0,) * a.ndim])),
                jtensor.nn.functional.relu(jtensor.tensor(a[(0,) * a.ndim])),
            )


def test_sigmoid_computes_the_formula_in_one_buffer():
    from jtensor._ops import unary

    rng = np.random.default_rng(4)
    for dtype in ("float32", "float64"):
        a = _special_floats(rng, (rng.standard_normal((7, 5)) * 20).astype(dtype))
        with np.errstate(all="ignore"):
            # (float32's exp computed in float64 and rounded once, as jtensor's exp)
            e = np.exp(-a, dtype=np.float64).astype(a.dtype)
            reference = 1 / (1 + e)
        got = jtensor.sigmoid(jtensor.from_numpy(a.copy())).numpy()
        assert got.tobytes() == reference.tobytes()
        assert unary._sigmoid(np, a[0, 0]).tobytes() == reference[0, 0].tobytes()
        x = jtensor.from_numpy(a.copy())
        assert jtensor.sigmoid(x.t()).stride() == torch.sigmoid(torch.from_numpy(a).t()).stride()


@pytest.mark.parametrize("count", [2, 9])
@pytest.mark.parametrize("row", [3, joining._GATHER_MAX, joining._GATHER_MAX + 1, 700])
def test_stack_of_rows_of_one_tensor(count, row):
    for lib in (torch, jtensor):
        base = lib.arange(float(count * row)).reshape(count, row)
        rows = [base[i] for i in range(count)][::-1]
        result = lib.stack(rows)
        assert result.tolist() == base.flip(0).tolist()
        assert result.stride() == (row, 1)
        result[0, 0] = -1.0
        assert base[count - 1, 0].item() == (count - 1) * row  # (a copy)


SCALAR_DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int64", "bool"]


@pytest.mark.parametrize("dtype", SCALAR_DTYPES + ["complex64"])
def test_scalar_conversions_match_pytorch(dtype):
    def read(lib):
        values = lib.tensor([[2.75, -1.5], [0.0, 3.25]]).to(getattr(lib, dtype))
        out = []
        for t in (values[1, 1], values[0][0], values.sum(), values[:1, :1]):
            for convert in (lambda x: x.item(), int, float, bool, complex):
                try:
                    v = convert(t)
                    out.append((type(v).__name__, v))
                except (RuntimeError, TypeError, ValueError) as e:
                    out.append(type(e).__name__)
        return out

    assert read(jtensor) == read(torch)


def test_sparse_item_matches_pytorch():
    def read(lib):
        out = []
        for dtype in ("float32", "int64", "bool", "complex64"):
            dt = getattr(lib, dtype)
            empty = lib.sparse_coo_tensor(
                lib.zeros(1, 0, dtype=lib.long), lib.zeros(0, dtype=dt), (1,)
            )
            twice = lib.sparse_coo_tensor(lib.tensor([[0, 0]]), lib.tensor([1.5, 2.0]).to(dt), (1,))
            out += [repr(empty.item()), repr(twice.item())]
        try:
            lib.tensor([[0.0, 1.0]]).to_sparse().item()
        except RuntimeError as e:
            out.append(str(e))
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch's note on sparse invariant checks)
        assert read(jtensor) == read(torch)


def _both_products(call, a, b, message_chars=None):
    """``call(lib, a, b)`` under PyTorch, then jtensor: each result, or a RuntimeError's
    class name and message (its first ``message_chars`` characters)."""
    results = []
    for lib in (torch, jtensor):
        x, y = lib.from_numpy(a.copy()), lib.from_numpy(b)
        try:
            results.append(call(lib, x, y))
        except RuntimeError as e:
            results.append(type(e).__name__ + str(e)[:message_chars])
    return results


@pytest.mark.parametrize("op", ["matmul", "mm", "@"])
def test_matrix_products_match_pytorch(op):
    rng = np.random.default_rng(zlib.crc32(op.encode()))

    def call(lib, a, b):
        return a @ b if op == "@" else getattr(lib, op)(a, b)

    for _ in range(60):
        m, k, n = (int(s) for s in rng.integers(0, 6, 3))
        dtype = ["float32", "float64", "int64"][int(rng.integers(3))]
        a = (rng.standard_normal((m, k)) * 4).astype(dtype)
        b = (rng.standard_normal((k + int(rng.random() < 0.1), n)) * 4).astype(dtype)
        if rng.random() < 0.3:
            b = np.ascontiguousarray(b.T).T  # (a transposed operand)
        expected, got = _both_products(call, a, b, 30)
        if isinstance(expected, str):
            assert got == expected
            continue
        assert got.stride() == expected.stride() and str(got.dtype) == str(expected.dtype)
        # (the product NumPy makes of these operands, as the general path's)
        assert got.numpy().tobytes() == np.matmul(a, b).tobytes()
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-4)
    with pytest.raises(RuntimeError, match="same dtype"):
        call(jtensor, jtensor.ones(2, 3), jtensor.ones(3, 2, dtype=jtensor.float64))


@pytest.mark.parametrize("op", ["matmul", "bmm", "@"])
def test_batched_products_match_pytorch(op):
    # Attention's ``q @ k.transpose(-2, -1)`` under no_grad: ``bmm`` and ``matmul`` of two
    # batches of one size are one NumPy product; other batch sizes (a batch of one that
    # broadcasts, a mismatch) and mixed ranks keep the general path and its errors.
    rng = np.random.default_rng(zlib.crc32(b"batched" + op.encode()))

    def call(lib, a, b):
        return a @ b if op == "@" else getattr(lib, op)(a, b)

    for _ in range(60):
        batch, m, k, n = (int(s) for s in rng.integers(0, 5, 4))
        other_batch = batch if rng.random() < 0.7 else int(rng.integers(0, 3))
        dtype = ["float32", "float64", "int64"][int(rng.integers(3))]
        a = (rng.standard_normal((batch, m, k)) * 4).astype(dtype)
        b = (rng.standard_normal((other_batch, k + int(rng.random() < 0.1), n)) * 4).astype(dtype)
        if rng.random() < 0.3:
            b = np.ascontiguousarray(b.transpose(0, 2, 1)).transpose(0, 2, 1)
        if rng.random() < 0.2 and other_batch:
            b = b[0]  # (a matrix: matmul folds the batch, bmm refuses)
        expected, got = _both_products(call, a, b)
        if isinstance(expected, str):
            assert got == expected
            continue
        assert tuple(got.shape) == tuple(expected.shape)
        assert got.stride() == expected.stride() and str(got.dtype) == str(expected.dtype)
        if b.ndim == 3 and b.shape[0] == batch:
            assert got.numpy().tobytes() == np.matmul(a, b).tobytes()
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-4)


def test_batched_products_take_the_fast_path(monkeypatch):
    from jtensor._ops import products
    from tests.harness.spies import fast_path_spy

    taken = fast_path_spy(monkeypatch, products, "_plain_matrix_product")
    q, k = jtensor.ones(2, 3, 4), jtensor.ones(2, 5, 4)
    q @ k.transpose(-2, -1)
    jtensor.bmm(q, k.mT)
    q @ jtensor.ones(1, 4, 5)  # a broadcast batch: the general path
    with pytest.raises(TypeError):
        jtensor.matmul(q, [[1.0]])  # declined before any attribute of the list is read
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        jtensor.matmul([[1.0]], q)  # (PyTorch's TypeError, as for the second argument)
    assert taken == [True, True, False, False, False]


def test_last_axis_max_is_numpys_max():
    # Many short rows take argmax and a pick; a row's NaN still wins (its max is NaN).
    from jtensor._ops.reductions import last_axis_max

    rng = np.random.default_rng(5)
    for shape in [(256, 32), (8, 4, 32, 32), (128, 10), (4, 10), (16, 1), (3, 600), (40, 513)]:
        for dtype in ("float32", "float64"):
            a = _special_floats(rng, rng.standard_normal(shape).astype(dtype))
            got = last_axis_max(a)
            assert got.shape == shape[:-1] + (1,) and got.dtype == a.dtype
            np.testing.assert_array_equal(got, np.max(a, axis=-1, keepdims=True))


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_softmax_of_attention_scores_matches_pytorch(log):
    rng = np.random.default_rng(21 + log)
    for shape in [(8, 32, 32), (2, 4, 16, 16), (256, 65), (64, 3)]:
        for dtype in ("float32", "float64"):
            a = (rng.standard_normal(shape) * 4).astype(dtype)
            a[np.broadcast_to(np.triu(np.ones(shape[-2:], bool), 1), shape)] = -np.inf  # causal
            if rng.random() < 0.5:
                a.reshape(-1, shape[-1])[1, 0] = np.nan
            expected = _softmax(torch, torch.from_numpy(a.copy()), -1, log)
            got = _softmax(jtensor, jtensor.from_numpy(a.copy()), -1, log)
            # (log_softmax subtracts a log-sum-exp of about 1 whose last bit may differ)
            atol = 2 * np.finfo(dtype).eps
            np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=2e-6, atol=atol)


BOUNDS = [(0, 1), (-1.5, 0.25), (0.3, -0.3), (float("nan"), 1.0), (-2, float("inf")), (1e-45, 2)]
CLAMPS = {
    "clamp(lo, hi)": lambda t, lo, hi: t.clamp(lo, hi),
    "clamp(min=lo)": lambda t, lo, hi: t.clamp(min=lo),
    "clip(max=hi)": lambda t, lo, hi: t.clip(max=hi),
    "clamp_min(lo)": lambda t, lo, hi: t.clamp_min(lo),
    "clamp_(lo, hi)": lambda t, lo, hi: t.clone().clamp_(lo, hi),
}


@pytest.mark.parametrize("form", sorted(CLAMPS))
@pytest.mark.parametrize("bounds", BOUNDS, ids=str)
def test_clamp_with_number_bounds_matches_pytorch(bounds, form):
    # Number bounds are the parameters of a unary kernel in PyTorch: the result keeps the
    # element where it equals a bound (signed zeros), NaN bounds give NaN, and the layout is
    # the one the input alone decides (a size-1 dim's odd stride included).
    lo, hi = bounds
    fn = CLAMPS[form]
    dtypes = ["float32", "float64", "int64", "uint8", "float16"]
    for a, layout, _ in _cases(11, 40, dtypes):
        got, got_err = _outcome(lambda lib, t: fn(t, lo, hi), jtensor, _view(jtensor, a, layout))
        want, want_err = _outcome(lambda lib, t: fn(t, lo, hi), torch, _view(torch, a, layout))
        assert got_err == want_err
        if want is not None:
            _same(want, got)


def test_clamp_with_number_bounds_keeps_signed_zeros_and_odd_strides():
    def run(lib):
        x = lib.tensor([-0.0, 0.0, 1.0, -2.0, float("nan")])
        odd = lib.arange(12.0).reshape(3, 4)[:1].as_strided((1, 4), (7, 1))
        return (
            x.clamp(0, 1),
            x.clamp(min=0.0),
            x.clamp(max=-0.0),
            x.clamp(-0.0, 0.0),
            odd.clamp(2, 3),
            lib.arange(4.0).reshape(4, 1).t().clamp(min=1),
            lib.linspace(-1, 1, 7).to(lib.bfloat16).clamp(-0.3, 0.1).float(),
            lib.arange(-3, 3).to(lib.uint8).clamp(min=-1, max=200),
        )

    for got, want in zip(run(jtensor), run(torch), strict=True):
        _same(want, got)


NUMBER_PARAMETER_OPS = {
    "x ** 2": lambda lib, x: x**2,
    "2 ** x (contiguous)": lambda lib, x: 2**x,
    "float_power(2, x) (contiguous)": lambda lib, x: lib.float_power(2, x),
    "pow(x, 0.5)": lambda lib, x: x.pow(0.5),
    "float_power(x, 2)": lambda lib, x: lib.float_power(x, 2),
    "lerp(x, y, 0.5)": lambda lib, x: lib.lerp(x, x * 0, 0.5),
    "x.clone().pow_(2)": lambda lib, x: x.clone().pow_(2),
    "x * 2 (an operand)": lambda lib, x: x * 2,
    "pow(x, 0-d tensor) (an operand)": lambda lib, x: lib.pow(x, lib.tensor(2.0)),
}


@pytest.mark.parametrize("name", sorted(NUMBER_PARAMETER_OPS))
def test_number_parameters_take_no_part_in_the_layout(name):
    # PyTorch's pow, float_power and lerp take a Python number as their kernel's parameter
    # (a unary kernel): a size-1 dim's odd stride does not carry into the result, as it
    # does where the number is a wrapped operand (``x * 2``) or a 0-d tensor. A number base
    # gives a contiguous result.
    fn = NUMBER_PARAMETER_OPS[name]

    def run(lib):
        column = lib.arange(4.0).reshape(4, 1).t()  # (1, 4) with strides (1, 1)
        lifted = lib.arange(8.0).reshape(1, 4, 2).transpose(0, 1)  # (4, 1, 2), (2, 8, 1)
        return [fn(lib, column), fn(lib, lifted), fn(lib, lib.arange(6.0).reshape(2, 3).t())]

    for got, want in zip(run(jtensor), run(torch), strict=True):
        _same(want, got)
