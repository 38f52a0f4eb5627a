"""The Tensor metadata API (shape, strides, sizes in bytes, views, versions, Python number
protocols, data pointers, storages) against PyTorch."""

import numpy as np
import pytest

import jtensor

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

torch = pytest.importorskip("torch")


def both(fn):
    """``fn(lib)`` for jtensor and torch: each result or the builtin exception type raised."""
    results = []
    for lib in (jtensor, torch):
        try:
            results.append(fn(lib))
        except (RuntimeError, TypeError, ValueError, IndexError) as exc:
            results.append(next(b for b in (IndexError, TypeError, ValueError, RuntimeError)
                                if isinstance(exc, b)))
    return results


def same(fn):
    mine, theirs = both(fn)
    if isinstance(theirs, (torch.Size, tuple, list)):
        mine, theirs = _plain(mine), _plain(theirs)
    if isinstance(theirs, torch.dtype):
        mine, theirs = str(mine), str(theirs)
    assert mine == theirs, (mine, theirs)
    assert type(mine) is type(theirs) or isinstance(theirs, type), (type(mine), type(theirs))


def _plain(x):
    if isinstance(x, (tuple, list)) and not isinstance(x, type):
        return [_plain(v) for v in x] if isinstance(x, list) else tuple(_plain(v) for v in x)
    return x


def layouts(lib):
    x = lib.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    return {
        "contiguous": x,
        "transposed": x.transpose(0, 2),
        "sliced": x[:, 1:, ::2],
        "expanded": x[:, :1].expand(2, 5, 4),
        "0d": x[1, 2, 3],
        "empty": x[:, :0],
        "int16": x.to(lib.int16)[1],
        "cl": x.view(1, 2, 3, 4).contiguous(memory_format=lib.channels_last),
    }


LAYOUTS = list(layouts(jtensor))


@pytest.mark.parametrize("name", LAYOUTS)
def test_shape_and_strides(name):
    same(lambda lib: tuple(layouts(lib)[name].shape))
    same(lambda lib: layouts(lib)[name].size())
    same(lambda lib: layouts(lib)[name].stride())
    same(lambda lib: layouts(lib)[name].storage_offset())
    same(lambda lib: layouts(lib)[name].dim())
    same(lambda lib: layouts(lib)[name].ndim)
    same(lambda lib: layouts(lib)[name].numel())
    same(lambda lib: layouts(lib)[name].element_size())
    same(lambda lib: layouts(lib)[name].nbytes)
    same(lambda lib: layouts(lib)[name].itemsize)
    same(lambda lib: str(layouts(lib)[name].dtype))
    # The run's device (cuda under --device cuda); PyTorch, the oracle, is on the CPU.
    assert layouts(jtensor)[name].device == jtensor.get_default_device()
    assert layouts(torch)[name].device.type == "cpu"
    same(lambda lib: layouts(lib)[name].is_contiguous())
    same(lambda lib: layouts(lib)[name].is_contiguous(memory_format=lib.channels_last))
    same(lambda lib: layouts(lib)[name].is_leaf)
    same(lambda lib: layouts(lib)[name].requires_grad)
    same(lambda lib: layouts(lib)[name]._is_view())
    same(lambda lib: layouts(lib)[name].untyped_storage().nbytes())
    for dim in (0, -1, 1, 5, -6):
        same(lambda lib, dim=dim: layouts(lib)[name].size(dim))
        same(lambda lib, dim=dim: layouts(lib)[name].stride(dim))


@pytest.mark.parametrize("name", LAYOUTS)
def test_python_protocols(name):
    same(lambda lib: len(layouts(lib)[name]))
    same(lambda lib: [tuple(t.shape) for t in layouts(lib)[name]])
    same(lambda lib: layouts(lib)[name].tolist())
    same(lambda lib: layouts(lib)[name].item())
    same(lambda lib: bool(layouts(lib)[name]))
    same(lambda lib: tuple(layouts(lib)[name].T.shape))
    same(lambda lib: layouts(lib)[name].T.stride())
    if name != "0d":
        same(lambda lib: layouts(lib)[name].mT.stride())


def test_mT_of_0d():
    same(lambda lib: layouts(lib)["0d"].mT.stride())


def test_number_conversions():
    for value, dtype in [(2.7, "float32"), (-2.7, "float64"), (3, "int64"), (True, "bool"),
                         (200, "uint8"), (1.5, "float16"), (1 + 2j, "complex64")]:
        make = (lambda v, d: lambda lib: lib.tensor(v, dtype=getattr(lib, d)))(value, dtype)
        for conv in (bool, float, complex, int):
            if dtype != "complex64" or conv in (bool, complex):
                same(lambda lib, conv=conv, make=make: conv(make(lib)))
        same(lambda lib, make=make: make(lib).__index__())
        same(lambda lib, make=make: make(lib)[None].__index__())
        same(lambda lib, make=make: make(lib).item())
        same(lambda lib, make=make: make(lib).tolist())
    same(lambda lib: [1, 2, 3][lib.tensor(1)])
    same(lambda lib: bool(lib.zeros(0)))
    same(lambda lib: bool(lib.zeros(2)))
    same(lambda lib: lib.zeros(2).item())
    same(lambda lib: lib.tensor([[True]]).__index__())
    same(lambda lib: lib.tensor([1, 2]).__index__())


def test_complex_to_real_python_number():
    # PyTorch: RuntimeError "value cannot be converted to type double without overflow".
    same(lambda lib: float(lib.tensor(1 + 2j)))
    same(lambda lib: int(lib.tensor(1 + 2j)))


def test_several_elements_to_python_number():
    # PyTorch raises ValueError for int()/float() of a tensor with several elements.
    same(lambda lib: int(lib.zeros(2)))
    same(lambda lib: float(lib.zeros(2)))


def test_bool_error_message():
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value "
                                           "is ambiguous"):
        bool(jtensor.zeros(2))


def test_base_and_views():
    x = jtensor.zeros(2, 3)
    assert x._base is None and not x._is_view()
    assert x[1]._base is x and x[1][0]._base is x and x.t().view(6 // 2, 2)._base is x
    assert x.detach()._base is None and x.data._base is None and not x.detach()._is_view()
    assert x[1]._is_view() and x.T._is_view()
    assert x.clone()._base is None


def test_data_ptr_includes_offset():
    for lib in (jtensor, torch):
        x = lib.zeros(3, 4, dtype=lib.float64)
        assert x[1, 2].data_ptr() - x.data_ptr() == (4 + 2) * 8
        assert x[1, 2].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert x.clone().untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
        assert x.t().data_ptr() == x.data_ptr()
        assert x.untyped_storage().nbytes() == 96 and x[1:].untyped_storage().nbytes() == 96


def test_version_counter():
    same(lambda lib: lib.zeros(3)._version)

    def bumps(lib):
        x = lib.zeros(3)
        v = x[1:]
        out = [x._version]
        x.add_(1)
        out.append((x._version, v._version))
        v.mul_(2)
        out.append((x._version, v._version))
        x.zero_()
        x.fill_(1)
        x.copy_(lib.ones(3))
        out.append(x._version)
        x[0] = 5
        out.append(x._version)
        y = x.detach()
        y.add_(1)
        out.append((x._version, y._version))
        d = x.data
        d.add_(1)
        out.append((x._version, d._version))
        return out

    same(bumps)


def test_data_and_detach_share_storage():
    for lib in (jtensor, torch):
        x = lib.zeros(3)
        d, y = x.data, x.detach()
        d[0] = 1
        y[1] = 2
        assert x.tolist() == [1.0, 2.0, 0.0]
        assert d.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


def test_requires_grad_flags():
    same(lambda lib: lib.zeros(2, requires_grad=True).requires_grad)
    same(lambda lib: lib.zeros(2, requires_grad=True).is_leaf)
    same(lambda lib: lib.zeros(2, requires_grad=True).detach().requires_grad)
    same(lambda lib: lib.zeros(2, dtype=lib.int64).requires_grad_())
    same(lambda lib: lib.zeros(2).requires_grad_(1))


def test_storage_repr_and_size():
    x = jtensor.zeros(2, 3)
    s = x.untyped_storage()
    assert "24 bytes" in repr(s) and str(x.device) in repr(s)
    assert s.nbytes() == len(s) == torch.zeros(2, 3).untyped_storage().nbytes()
    assert x.untyped_storage() is x[1].untyped_storage()


def test_item_and_tolist_types():
    same(lambda lib: type(lib.tensor(2.5).item()).__name__)
    same(lambda lib: type(lib.tensor(2).item()).__name__)
    same(lambda lib: type(lib.tensor(True).item()).__name__)
    same(lambda lib: type(lib.tensor(2.5, dtype=lib.bfloat16).item()).__name__)
    same(lambda lib: lib.tensor([[1.5, 2], [3, 4]], dtype=lib.bfloat16).tolist())
    same(lambda lib: lib.tensor(3.0).tolist())
