"""A 0-d CPU tensor beside a CUDA tensor, as PyTorch allows it in element-wise ops
(``x_gpu * torch.tensor(2.0)``): jtensor must hand the GPU kernel a number, never the host
array. CuPy refuses host arrays as operands (``TypeError: Unsupported type
<class 'numpy.ndarray'>``, seen on an H100); the emulated device is NumPy on both sides and
would not notice, so here every CPU array is made a ``HostOnly`` array that refuses to meet
a device array in one computation, as CuPy does.
"""

import numpy as np
import pytest

import jtensor
from jtensor import _device


_COPIES = {"copyto", "array", "asarray", "ascontiguousarray", "asanyarray"}


class HostOnly(np.ndarray):
    """A host array that refuses to be combined with a (plain, emulated-device) array."""

    @staticmethod
    def _check(arrays):
        host = any(isinstance(a, HostOnly) for a in arrays)
        device = any(type(a) is np.ndarray for a in arrays)
        if host and device:
            raise TypeError(
                "Unsupported type <class 'numpy.ndarray'> (a host array given to a device kernel)"
            )

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        self._check(list(inputs) + list(kwargs.get("out", ())))
        plain = [a.view(np.ndarray) if isinstance(a, HostOnly) else a for a in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(
                a.view(np.ndarray) if isinstance(a, HostOnly) else a for a in kwargs["out"]
            )
        return getattr(ufunc, method)(*plain, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        if func.__name__ in _COPIES:  # a host-to-device copy is how host data may travel
            return super().__array_function__(func, types, args, kwargs)
        flat = [a for a in args if isinstance(a, np.ndarray)]
        flat += [
            a
            for seq in args
            if isinstance(seq, (list, tuple))
            for a in seq
            if isinstance(a, np.ndarray)
        ]
        self._check(flat)
        return super().__array_function__(func, types, args, kwargs)


@pytest.fixture
def strict_host(emulated, monkeypatch):
    plain_view = _device.CPUBackend.view

    def view(data, shape, np_dtype, offset_bytes, strides_bytes):
        return plain_view(data, shape, np_dtype, offset_bytes, strides_bytes).view(HostOnly)

    monkeypatch.setattr(_device.CPUBackend, "view", staticmethod(view))
    monkeypatch.setattr(_device.CPUBackend, "view_nowait", staticmethod(view))


T = jtensor
OPS = {
    "add": lambda x, s: x + s,
    "radd": lambda x, s: s + x,
    "sub": lambda x, s: x - s,
    "rsub": lambda x, s: s - x,
    "mul": lambda x, s: x * s,
    "div": lambda x, s: x / s,
    "rdiv": lambda x, s: s / x,
    "pow": lambda x, s: x**s,
    "rpow": lambda x, s: s**x,
    "gt": lambda x, s: x > s,
    "eq": lambda x, s: x == s,
    "maximum": lambda x, s: T.maximum(x, s),
    "minimum": lambda x, s: T.minimum(x, s),
    "atan2": lambda x, s: T.atan2(x, s),
    "fmod": lambda x, s: T.fmod(x, s),
    "remainder": lambda x, s: T.remainder(x, s),
    "hypot": lambda x, s: T.hypot(x, s),
    "logaddexp": lambda x, s: T.logaddexp(x, s),
    "copysign": lambda x, s: T.copysign(x, s),
    "xlogy": lambda x, s: T.xlogy(x, s),
    "where_other": lambda x, s: T.where(x > 1, x, s),
    "where_self": lambda x, s: T.where(x > 1, s, x),
    "lerp_weight": lambda x, s: T.lerp(x, x * 3, s),
    "addcmul": lambda x, s: T.addcmul(x, x, s),
    "clamp_tensor": lambda x, s: x.clamp(min=s),
    "add_": lambda x, s: x.clone().add_(s),
    "mul_": lambda x, s: x.clone().mul_(s),
    "masked_fill": lambda x, s: x.masked_fill(x > 1, s),
    "fill_": lambda x, s: x.clone().fill_(s),
    "copy_": lambda x, s: x.clone().copy_(s),
    "setitem": lambda x, s: _setitem(x.clone(), s),
}


def _host_scalar():
    s = T.tensor(2.0)
    s._cached_array = None  # the constructor's own array: read it again through the backend
    return s


def _setitem(x, s):
    x[1] = s
    return x


@pytest.mark.parametrize("name", sorted(OPS))
def test_a_cpu_scalar_tensor_joins_a_cuda_op_as_a_number(strict_host, name):
    op = OPS[name]
    x = T.tensor([0.5, 1.5, 2.5], device="cuda")
    s = _host_scalar()
    s_cuda = s.to("cuda")
    got = op(x, s)
    want = op(x, s_cuda)
    assert got.device == x.device
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())


def test_the_harness_catches_a_host_array_in_a_device_computation(strict_host):
    x = T.tensor([0.5, 1.5], device="cuda")
    with pytest.raises(TypeError, match="host array"):
        np.add(x._array(), _host_scalar()._array())


def _host(t):
    t._cached_array = None
    return t


INDEXING = {
    "getitem_index": lambda x, i, m: x[i],
    "getitem_mask": lambda x, i, m: x[m],
    "getitem_pair": lambda x, i, m: x.view(3, 1)[i, T.zeros_like(i)],
    "setitem_index": lambda x, i, m: _assign(x.clone(), i, 7.0),
    "setitem_mask": lambda x, i, m: _assign(x.clone(), m, 7.0),
    "setitem_tensor_value": lambda x, i, m: _assign(
        x.clone(), i, T.tensor([5.0, 6.0], device="cuda")
    ),
    "index_put_accumulate": lambda x, i, m: x.clone().index_put_(
        (i,), T.tensor([1.0, 2.0], device="cuda"), accumulate=True
    ),
}


def _assign(x, key, value):
    x[key] = value
    return x


@pytest.mark.parametrize("name", sorted(INDEXING))
def test_cpu_indices_index_a_cuda_tensor(strict_host, name):
    """PyTorch takes CPU index tensors (and masks) for a tensor on any device."""
    op = INDEXING[name]
    x = T.tensor([0.5, 1.5, 2.5], device="cuda")
    i = _host(T.tensor([2, 0]))
    m = _host(T.tensor([True, False, True]))
    want = op(x, i.to("cuda"), m.to("cuda"))
    got = op(x, i, m)
    assert got.device == x.device
    np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())


def test_the_cpu_scalar_gets_its_gradient_on_the_cpu(emulated):
    """PyTorch's engine moves a 0-d gradient to its input's device: the CPU scalar's
    ``.grad`` is a CPU tensor, the CUDA input's a CUDA one."""
    x = T.tensor([1.0, 2.0, 3.0], device="cuda", requires_grad=True)
    s = T.tensor(2.0, requires_grad=True)
    (x * s + s).sum().backward()
    assert s.grad.device.type == "cpu" and s.grad.item() == 9.0
    assert x.grad.device.type == "cuda" and x.grad.tolist() == [2.0, 2.0, 2.0]
    (g,) = T.autograd.grad((x * s).sum(), s)
    assert g.device.type == "cpu" and g.item() == 6.0


# A Python number reaches a device kernel as a NumPy scalar (see ``_elementwise``), and any
# check made on it stays a NumPy scalar: ``number == 0`` is a ``numpy.bool``. CuPy's
# functions refuse those (``cupy.any``: "'a' must be a cupy.ndarray object, not <class
# 'numpy.bool'>", on the H100 for ``x // 3``, ``x % 3``, ``x ** 2`` of integer tensors);
# the methods (``.any()``) work on both. Here the emulated module's ``any``/``all`` refuse
# NumPy scalars as CuPy's do, for the ops that check their number operand.
NUMBER_CHECKS = {
    "floor_divide": lambda x: x // 3,
    "remainder": lambda x: x % 3,
    "fmod": lambda x: T.fmod(x, -3),
    "div_trunc": lambda x: T.div(x, 3, rounding_mode="trunc"),
    "div_floor": lambda x: T.div(x, 3, rounding_mode="floor"),
    "pow": lambda x: x**2,
    "rpow": lambda x: 2**x,
}


@pytest.fixture
def strict_any(emulated, monkeypatch):
    xp = jtensor.cuda._runtime.backend(0).xp

    def refusing(name):
        plain = getattr(np, name)

        def call(a, *args, **kwargs):
            if isinstance(a, np.generic):
                raise TypeError(f"'a' must be a cupy.ndarray object, not {type(a)}. (cupy.{name})")
            return plain(a, *args, **kwargs)

        return call

    for name in ("any", "all"):
        monkeypatch.setattr(xp, name, refusing(name))
    return xp


@pytest.mark.parametrize("name", sorted(NUMBER_CHECKS))
def test_number_operands_never_meet_a_device_only_function(strict_any, name):
    x = T.tensor([[7, -7, 0], [5, -2, 9]], device="cuda")
    got = NUMBER_CHECKS[name](x)
    want = NUMBER_CHECKS[name](x.cpu())
    assert got.device == x.device and got.dtype == want.dtype
    np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


def test_the_strict_any_refuses_a_numpy_scalar(strict_any):
    with pytest.raises(TypeError, match="cupy.ndarray"):
        strict_any.any(np.int64(3) == 0)
