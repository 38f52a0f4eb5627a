"""The tiled copy of transposed host arrays (``_arraymod.copy_into``/``c_copy``, issue 18):
a row-major copy of a big transposed matrix whose source rows are a multiple of 512 bytes
apart goes through a tiled buffer instead of NumPy's column-reading loop. It must be a plain
copy whatever the layout (remainder rows and columns, stacks, channels-last permutes, any
dtype), be taken exactly where it is meant to, and leave the public ops' results (values,
shape, strides, offset, storage) as PyTorch's."""

import numpy as np
import pytest

import jtensor
from jtensor import _arraymod

torch = pytest.importorskip("torch")

DTYPES = (np.float32, np.float64, np.int8, np.int64, np.complex64, np.bool_)


def _source(shape, dtype, seed=0):
    gen = np.random.default_rng(seed)
    a = gen.standard_normal(shape) * 50
    if np.dtype(dtype).kind == "c":
        a = a + 1j * gen.standard_normal(shape)
    return a.astype(dtype)


# (source matrix shape, tiled): the copy of ``source.T`` (or of the stack's transposes)
LAYOUTS = {
    "1024x1024": ((1024, 1024), True),
    "remainders": ((1000, 1152), True),  # 1000 rows: 1000 % 16 = 8 left over
    "odd-columns": ((300, 640 + 128), True),  # 768 columns: 768 % 64 = 0, 300 % 16 = 12
    "tall": ((4096, 640), True),
    "short-rows": ((4096, 128), False),  # rows 512 bytes long: NumPy's loop
    "width-1000": ((1100, 1000), False),  # rows 4000 bytes apart: NumPy's loop
    "small": ((128, 256), False),  # 32,768 elements: below the threshold
    "stack": ((3, 256, 512), True),
}


def _transposed(name, dtype):
    shape, _ = LAYOUTS[name]
    x = _source(shape, dtype)
    return x.swapaxes(-1, -2)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", list(LAYOUTS))
def test_c_copy_is_numpys_copy(name, dtype):
    a = _transposed(name, dtype)
    expected = a.copy(order="C")
    got = _arraymod.c_copy(a)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.flags.c_contiguous and got.flags.owndata
    assert np.array_equal(got.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_the_tiled_path_is_taken_where_meant(name):
    # Rows a multiple of 512 bytes apart and at least 2048 bytes long (a float32 width of
    # 1024, 768, 640...), both sides of the matrix at least 64 and 65,536 elements in all:
    # tiled; else NumPy's loop.
    a = _transposed(name, np.float32)
    assert (_arraymod._transposed_matrices(a) is not None) == LAYOUTS[name][1]
    # float64 doubles the row bytes: 1000 columns are 8000 bytes apart, still not aliased;
    # 128 columns make 1024-byte rows, still short
    b = _transposed(name, np.float64)
    assert (_arraymod._transposed_matrices(b) is not None) == LAYOUTS[name][1]


@pytest.mark.parametrize("view", ["sliced", "stepped", "broadcast", "reversed"])
def test_other_layouts_keep_numpys_copy(view):
    x = _source((512, 1024), np.float32)
    a = {
        "sliced": x[:, 128:896].T,
        "stepped": x[::2].T,
        "broadcast": np.broadcast_to(x[:1], (512, 1024)).T,
        "reversed": x[::-1].T,
    }[view]
    assert _arraymod._transposed_matrices(a) is None
    got = _arraymod.c_copy(a)
    assert got.flags.c_contiguous and np.array_equal(got, a)


def test_copy_into_an_overlapping_target():
    # A square matrix's transpose into itself (PyTorch's ``copy_`` refuses it; the array
    # helper must still be right): NumPy's buffered copy, not band by band
    x = _source((1024, 1024), np.float32)
    expected = x.T.copy()
    _arraymod.copy_into(x, x.T)
    assert np.array_equal(x, expected)


def _meta(t):
    return (tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.is_contiguous())


@pytest.mark.parametrize(
    "op",
    ["contiguous", "clone", "reshape", "copy_", "channels_last", "from_channels_last", "batched"],
)
def test_public_copies_match_pytorch(op):
    data = _source((1024, 1024), np.float32)
    image = _source((2, 128, 32, 32), np.float32)

    def run(lib, d, img):
        x = lib.from_numpy(d.copy())
        if op == "contiguous":
            return x, x.t().contiguous()
        if op == "clone":
            return x, x.t().clone(memory_format=lib.contiguous_format)
        if op == "reshape":
            return x, x.t().reshape(-1)
        if op == "copy_":
            out = lib.empty(1024, 1024)
            return x, out.copy_(x.t())
        if op == "channels_last":
            y = lib.from_numpy(img.copy())
            return y, y.contiguous(memory_format=lib.channels_last)
        if op == "from_channels_last":
            y = lib.from_numpy(img.copy()).contiguous(memory_format=lib.channels_last)
            return y, y.contiguous()
        y = lib.from_numpy(d.copy()).view(4, 512, 512)
        return y, y.transpose(1, 2).contiguous()

    jx, jr = run(jtensor, data, image)
    tx, tr = run(torch, data, image)
    assert _meta(jr) == _meta(tr)
    assert np.array_equal(jr.numpy(), tr.numpy())
    assert (jr.data_ptr() == jx.data_ptr()) == (tr.data_ptr() == tx.data_ptr())
