"""``torch.nn.parallel`` (``jtensor/nn/parallel/``): ``DataParallel``, ``data_parallel``,
``DistributedDataParallel`` and the steps (``scatter``/``gather``, ``replicate``,
``parallel_apply``).

Without CUDA devices every observation is compared with the installed PyTorch (a CPU build:
``DataParallel`` holds and calls the module, ``data_parallel`` and
``DistributedDataParallel`` raise). With jtensor's emulated CUDA device (one device, then
two) ``DataParallel`` behaves as PyTorch's does on one GPU and on several: the module moved to
``device_ids[0]``, the inputs scattered along ``dim``, the outputs gathered, gradients back
in the original parameters (checked against the module run on each chunk on the CPU, and
by float64 finite differences).
"""

import collections
import warnings

import numpy as np
import pytest

import jtensor
from jtensor.autograd import gradcheck
from jtensor.cuda._runtime import runtime

try:
    import torch
except ImportError:  # the oracle is optional
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")


@pytest.fixture
def no_cuda(monkeypatch):
    """jtensor without CUDA devices (as the PyTorch oracle, a CPU build)."""
    monkeypatch.delenv("JTENSOR_EMULATE_CUDA", raising=False)
    runtime._reset()
    monkeypatch.setattr(
        runtime,
        "_start_cupy",
        lambda: (
            setattr(runtime, "mode", "none")
            or setattr(runtime, "why_none", "CuPy is not installed (test)")
        ),
    )
    yield
    runtime._reset()


@pytest.fixture
def emulated(request):
    """The emulated CUDA with ``request.param`` devices (parametrize indirectly)."""
    runtime._reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jtensor.cuda.EmulatedCUDAWarning)
        jtensor.cuda.emulate(device_count=getattr(request, "param", 1))
    yield jtensor.cuda
    runtime._reset()


def _np(t):
    return np.asarray(t.detach().cpu().numpy())


def _net(lib, seed=0):
    lib.manual_seed(seed)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))


def _x(lib, n=6, dtype=None):
    x = lib.tensor(np.linspace(-1.0, 1.0, n * 3).reshape(n, 3).astype(np.float32))
    return x if dtype is None else x.to(dtype)


def _attribute(obj, name):
    try:
        return repr(getattr(obj, name))
    except AttributeError as e:
        return f"AttributeError: {e}"


# ---------------------------------------------------------------------- without CUDA
@needs_torch
def test_data_parallel_without_devices_holds_and_calls_the_module(no_cuda):
    """PyTorch's CPU build: ``DataParallel`` keeps the module as ``module``, has no device
    (``device_ids == []``, no ``dim``/``output_device``), calls the module, and its
    ``state_dict``, parameters, modules and repr carry the ``module.`` prefix."""
    seen = {}
    for L in (jtensor, torch):
        net = _net(L)
        dp = L.nn.DataParallel(net)
        out = dp(_x(L))
        seen[L.__name__] = (
            dp.module is net,
            dp.device_ids,
            repr(dp),
            list(dp.state_dict()),
            [n for n, _ in dp.named_parameters()],
            [n for n, _ in dp.named_modules()],
            _attribute(dp, "dim"),
            _attribute(dp, "output_device"),
            _attribute(dp, "src_device_obj"),
            type(out.grad_fn).__name__,
            out.requires_grad,
            tuple(out.shape),
            tuple(out.stride()),
            _np(out).tolist(),
            _np(net(_x(L))).tolist(),
            isinstance(dp, L.nn.Module),
            L.nn.DataParallel is L.nn.parallel.DataParallel,
            type(dp).__module__.replace(L.__name__, "torch"),
            dp.eval().module.training,
            dp.train().module.training,
        )
    ours, theirs = seen["jtensor"], seen["torch"]
    for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        if isinstance(b, list) and b and isinstance(b[0], list):
            np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=str(k))
        else:
            assert a == b, (k, a, b)


@needs_torch
def test_data_parallel_arguments_without_devices(no_cuda):
    """Whatever ``device_ids``/``output_device``/``dim`` say, a CPU build ignores them; the
    keyword arguments reach the module."""

    seen = {}
    for L in (jtensor, torch):

        class Shift(L.nn.Module):
            def forward(self, x, shift=0.0):
                return x + shift

        dp = L.nn.DataParallel(Shift(), device_ids=[0, 1], output_device=1, dim=1)
        out = dp(_x(L), shift=2.0)
        seen[L.__name__] = (
            dp.device_ids,
            _np(out).tolist(),
            "dim" in vars(dp),
            "output_device" in vars(dp),
        )
    assert seen["jtensor"] == seen["torch"]


@needs_torch
def test_state_dict_moves_between_the_libraries(no_cuda):
    """A checkpoint of a wrapped model (``module.``-prefixed keys) loads in the other
    library's wrapped model."""
    theirs = torch.nn.DataParallel(_net(torch, seed=1))
    ours = jtensor.nn.DataParallel(_net(jtensor, seed=2))
    ours.load_state_dict({k: jtensor.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    np.testing.assert_allclose(
        _np(ours(_x(jtensor))), theirs(_x(torch)).detach().numpy(), rtol=1e-6
    )


@needs_torch
def test_training_through_data_parallel_without_devices(no_cuda):
    losses = {}
    for L in (jtensor, torch):
        dp = L.nn.DataParallel(_net(L))
        opt = L.optim.SGD(dp.parameters(), lr=0.1, momentum=0.9)
        target = L.ones(6, 2)
        seen = []
        for _ in range(4):
            opt.zero_grad()
            loss = L.nn.functional.mse_loss(dp(_x(L)), target)
            loss.backward()
            opt.step()
            seen.append(loss.item())
        losses[L.__name__] = seen
    np.testing.assert_allclose(losses["jtensor"], losses["torch"], rtol=1e-5)


def _raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e)
    return None


REFUSED_WITHOUT_DEVICES = {
    "data_parallel": lambda L: L.nn.parallel.data_parallel(_net(L), _x(L)),
    "data_parallel_device_ids": lambda L: L.nn.parallel.data_parallel(_net(L), _x(L), [0]),
    "ddp": lambda L: L.nn.parallel.DistributedDataParallel(_net(L)),
    "ddp_device_ids": lambda L: L.nn.parallel.DistributedDataParallel(_net(L), device_ids=[0]),
    "ddp_half_delay_arguments": lambda L: L.nn.parallel.DistributedDataParallel(
        _net(L), param_to_hook_all_reduce=_net(L)[0].weight
    ),
    "ddp_no_parameters": lambda L: L.nn.parallel.DistributedDataParallel(L.nn.ReLU()),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(REFUSED_WITHOUT_DEVICES))
def test_refused_without_devices_like_torch(no_cuda, name):
    case = REFUSED_WITHOUT_DEVICES[name]
    assert _raised(lambda: case(jtensor)) == _raised(lambda: case(torch))


def test_distributed_with_a_process_group_says_what_is_missing(no_cuda):
    with pytest.raises(RuntimeError, match="Cannot specify both process_group and device_mesh"):
        jtensor.nn.parallel.DistributedDataParallel(
            _net(jtensor), process_group=object(), device_mesh=object()
        )
    with pytest.raises(RuntimeError, match="torch.distributed"):
        jtensor.nn.parallel.DistributedDataParallel(_net(jtensor), process_group=object())


@needs_torch
def test_namespace_matches_torch():
    assert sorted(jtensor.nn.parallel.__all__) == sorted(torch.nn.parallel.__all__)
    for name in torch.nn.parallel.__all__:
        ours, theirs = getattr(jtensor.nn.parallel, name), getattr(torch.nn.parallel, name)
        assert ours.__module__.replace("jtensor", "torch") == theirs.__module__, name


# ---------------------------------------------------------------------- one emulated device
@pytest.mark.parametrize("emulated", [1], indirect=True)
def test_one_device_moves_the_module_and_calls_it(emulated):
    """As PyTorch with one GPU: the module moves to ``cuda:0`` at construction; a call moves
    the inputs there and calls the module directly (its own ``grad_fn``, no gather)."""
    net = _net(jtensor)
    reference = _net(jtensor)
    dp = jtensor.nn.DataParallel(net)
    assert (dp.device_ids, dp.output_device, dp.dim) == ([0], 0, 0)
    assert dp.src_device_obj == jtensor.device("cuda", 0)
    assert all(p.device == jtensor.device("cuda", 0) for p in net.parameters())
    x = _x(jtensor).requires_grad_()
    out = dp(x)
    assert out.device == jtensor.device("cuda", 0)
    assert type(out.grad_fn).__name__ == "AddmmBackward0"
    np.testing.assert_allclose(_np(out), _np(reference(x)), rtol=1e-6)
    out.sum().backward()
    reference(x.detach()).sum().backward()
    for p, q in zip(net.parameters(), reference.parameters(), strict=True):
        assert p.grad.device == jtensor.device("cuda", 0)
        np.testing.assert_allclose(_np(p.grad), _np(q.grad), rtol=1e-5, atol=1e-6)
    assert x.grad is not None and x.grad.device == jtensor.device("cpu")
    assert jtensor.nn.parallel.data_parallel(net, _x(jtensor).cuda()).shape == (6, 2)


# ---------------------------------------------------------------------- two emulated devices
@pytest.mark.parametrize("emulated", [2], indirect=True)
def test_two_devices_scatter_replicate_gather(emulated):
    """The batch is split in two, each half runs on its device, the output is gathered on
    ``cuda:0``; values and every gradient (parameters, input) are the module's on the two
    halves."""
    net = _net(jtensor).cuda()
    reference = _net(jtensor)
    dp = jtensor.nn.DataParallel(net)
    assert dp.device_ids == [0, 1]
    x = _x(jtensor).requires_grad_()
    out = dp(x)
    assert out.device == jtensor.device("cuda", 0)
    assert type(out.grad_fn).__name__ == "GatherBackward"
    xr = x.detach().requires_grad_()
    expected = jtensor.cat([reference(xr[:3]), reference(xr[3:])])
    np.testing.assert_allclose(_np(out), _np(expected), rtol=1e-6)
    weight = jtensor.linspace(-1.0, 1.0, 12).reshape(6, 2)
    (out * weight.cuda()).sum().backward()
    (expected * weight).sum().backward()
    for p, q in zip(net.parameters(), reference.parameters(), strict=True):
        assert p.grad.device == jtensor.device("cuda", 0)
        np.testing.assert_allclose(_np(p.grad), _np(q.grad), rtol=1e-5, atol=1e-6)
    assert x.grad.device == jtensor.device("cpu")
    np.testing.assert_allclose(_np(x.grad), _np(xr.grad), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("emulated", [2], indirect=True)
def test_two_devices_options(emulated):
    net = _net(jtensor).cuda()
    # output_device, and a batch shorter than the device list (one replica)
    out = jtensor.nn.DataParallel(net, output_device=1)(_x(jtensor))
    assert out.device == jtensor.device("cuda", 1)
    single = jtensor.nn.DataParallel(net)(_x(jtensor, n=1))
    assert single.shape == (1, 2) and single.device == jtensor.device("cuda", 0)
    # dim=1, keyword arguments scattered too, nested outputs gathered
    Pair = collections.namedtuple("Pair", "doubled extra")

    class Nested(jtensor.nn.Module):
        def forward(self, a, scale=None, tag="t"):
            return Pair(a * 2, {"scale": scale * 1, "tag": [a.sum(0, keepdim=True)]})

    res = jtensor.nn.DataParallel(Nested(), dim=1)(
        jtensor.ones(2, 4), scale=jtensor.arange(4.0).reshape(1, 4)
    )
    assert isinstance(res, Pair) and res.doubled.shape == (2, 4)
    np.testing.assert_allclose(_np(res.extra["scale"]), [[0.0, 1.0, 2.0, 3.0]])
    np.testing.assert_allclose(_np(res.extra["tag"][0]), [[2.0, 2.0, 2.0, 2.0]])

    # 0-d outputs gathered along dim 0 become a vector, with PyTorch's warning
    class Total(jtensor.nn.Module):
        def forward(self, a):
            return a.sum()

    with pytest.warns(UserWarning, match="all input tensors were scalars"):
        total = jtensor.nn.DataParallel(Total())(jtensor.ones(4, 2))
    np.testing.assert_allclose(_np(total), [4.0, 4.0])
    # the module must sit on device_ids[0]
    with pytest.raises(
        RuntimeError,
        match=r"on device cuda:0 \(device_ids\[0\]\) but found "
        r"one of them on device: cpu",
    ):
        jtensor.nn.DataParallel(_net(jtensor))(_x(jtensor))

    # a replica's exception comes back with the replica named, as PyTorch's
    class Fails(jtensor.nn.Module):
        def forward(self, a):
            raise ValueError("boom")

    with pytest.raises(ValueError, match="Caught ValueError in replica 0 on device 0"):
        jtensor.nn.DataParallel(Fails())(jtensor.ones(4, 3))
    # under no_grad the replicas are detached copies
    with jtensor.no_grad():
        assert not jtensor.nn.DataParallel(net)(_x(jtensor)).requires_grad


@pytest.mark.parametrize("emulated", [2], indirect=True)
def test_two_devices_buffers_and_functional_form(emulated):
    """The first replica updates the original buffers (batch norm's running statistics
    from the first chunk only, as PyTorch's); ``data_parallel`` is the same step."""
    net = jtensor.nn.Sequential(jtensor.nn.Linear(3, 4), jtensor.nn.BatchNorm1d(4)).cuda()
    reference = jtensor.nn.Sequential(jtensor.nn.Linear(3, 4), jtensor.nn.BatchNorm1d(4))
    reference.load_state_dict({k: v.cpu() for k, v in net.state_dict().items()})
    x = _x(jtensor)
    out = jtensor.nn.DataParallel(net)(x)
    first = reference(x[:3])
    np.testing.assert_allclose(_np(out[:3]), _np(first), rtol=1e-5, atol=1e-6)
    assert int(net[1].num_batches_tracked) == 1
    np.testing.assert_allclose(_np(net[1].running_mean), _np(reference[1].running_mean), rtol=1e-6)
    net.eval()
    functional = jtensor.nn.parallel.data_parallel(
        net, x.cuda(), device_ids=[0, 1], module_kwargs=None
    )
    np.testing.assert_allclose(_np(functional), _np(jtensor.nn.DataParallel(net)(x)), rtol=1e-6)


@pytest.mark.parametrize("emulated", [2], indirect=True)
def test_two_devices_gradcheck(emulated):
    """Float64 finite differences through scatter, replicate (a buffer that needs a
    gradient goes through ``Broadcast``), the replicas and gather."""

    class Scaled(jtensor.nn.Module):
        def __init__(self, w):
            super().__init__()
            self.register_buffer("w", w)

        def forward(self, a):
            return (a * self.w).tanh()

    def f(x, w):
        return jtensor.nn.DataParallel(Scaled(w.cuda()))(x)

    x = jtensor.linspace(-1.0, 1.0, 12, dtype=jtensor.float64).reshape(4, 3).requires_grad_()
    w = jtensor.tensor([0.5, -1.0, 2.0], dtype=jtensor.float64, requires_grad=True)
    assert gradcheck(f, (x, w))


@pytest.mark.parametrize("emulated", [2], indirect=True)
def test_scatter_gather_and_replicate_steps(emulated):
    from jtensor.nn.parallel import gather, parallel_apply, replicate, scatter

    x = jtensor.arange(15.0).reshape(5, 3)
    chunks = scatter(x, [0, 1])
    assert isinstance(chunks, tuple) and [tuple(c.shape) for c in chunks] == [(3, 3), (2, 3)]
    assert [c.device.index for c in chunks] == [0, 1]
    assert scatter((x, "label"), [0, 1])[1][1] == "label"
    joined = gather(list(chunks), "cpu")
    assert joined.device == jtensor.device("cpu")
    np.testing.assert_array_equal(_np(joined), _np(x))
    net = _net(jtensor).cuda()
    replicas = replicate(net, [0, 1])
    # a replica reads its device's copies as plain attributes (no parameters of its own)
    assert [r[0].weight.device.index for r in replicas] == [0, 1]
    assert not list(replicas[1].parameters()) and replicas[1][0].weight.grad_fn is not None
    outs = parallel_apply(replicas, chunks, devices=[0, 1])
    np.testing.assert_allclose(
        _np(jtensor.cat([o.cpu() for o in outs])), _np(net(x.cuda())), rtol=1e-6
    )
    with pytest.raises(
        AssertionError, match="The number of modules 2 is not equal to the number of inputs 1"
    ):
        parallel_apply(replicas, chunks[:1])
