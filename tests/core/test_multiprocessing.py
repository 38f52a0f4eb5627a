"""``Tensor.share_memory_``, ``Module.share_memory`` and ``jtensor.multiprocessing`` against
PyTorch's semantics: storages really move to shared memory (a forked child's writes reach
the parent: Hogwild), tensors sent to a 'spawn' child arrive over the same memory, and
``spawn`` runs ``fn(i, *args)`` and re-raises a child's exception."""

import multiprocessing
import pickle
import sys

import pytest

import jtensor
import jtensor.multiprocessing as jmp
from tests.core import mp_children

needs_fork = pytest.mark.skipif(
    not sys.platform.startswith("linux") or "fork" not in multiprocessing.get_all_start_methods(),
    reason="the 'fork' start method (Linux) is needed",
)


@pytest.fixture(params=["torch", "jtensor"])
def lib(request):
    if request.param == "torch":
        return pytest.importorskip("torch")
    return jtensor


def _fork():
    return multiprocessing.get_context("fork")


# ------------------------------------------------------------------ share_memory_
def test_share_memory_moves_the_whole_storage(lib):
    a = lib.arange(6.0)
    assert not a.is_shared()
    before = a.data_ptr()
    view = a[2:]
    assert view.share_memory_() is view  # sharing a view shares the whole storage
    assert a.is_shared() and view.is_shared()
    assert a.data_ptr() != before  # the bytes moved...
    assert view.data_ptr() - a.data_ptr() == 2 * a.element_size()  # ...views still views
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    view[0] = 100.0
    assert a[2].item() == 100.0
    moved = a.data_ptr()
    assert a.share_memory_() is a and a.data_ptr() == moved  # already shared: a no-op
    assert a.view(2, 3).is_shared() and a.detach().is_shared()
    assert not a.clone().is_shared()


def test_share_memory_edge_cases(lib):
    e = lib.empty(0)
    assert e.share_memory_().is_shared() and e.data_ptr() == 0
    w = lib.randn(3, requires_grad=True)
    assert w.share_memory_().is_shared() and w.requires_grad and w.is_leaf
    y = w * 2
    assert y.share_memory_().is_shared() and y.grad_fn is not None
    with pytest.raises(RuntimeError, match="only available on CPU"):
        lib.empty(2, device="meta").share_memory_()


def test_module_share_memory(lib):
    net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
    net[0].weight.grad = lib.zeros(2, 2)
    assert net.share_memory() is net
    assert all(p.is_shared() for p in net.parameters())
    assert all(b.is_shared() for b in net.buffers())
    assert net[0].weight.grad.is_shared() and net[0].bias.grad is None
    assert type(net[0].weight) is lib.nn.Parameter


@needs_fork
def test_forked_child_writes_reach_the_parent():
    t = jtensor.zeros(4)
    view = t[1:3]
    t.share_memory_()

    def child():
        view.fill_(7.0)
        t[3] = 9.0

    p = _fork().Process(target=child)
    p.start()
    p.join(30)
    assert p.exitcode == 0
    assert t.tolist() == [0.0, 7.0, 7.0, 9.0]


@needs_fork
def test_unshared_tensor_is_copied_on_fork():
    t = jtensor.zeros(2)
    p = _fork().Process(target=t.fill_, args=(5.0,))
    p.start()
    p.join(30)
    assert p.exitcode == 0 and t.tolist() == [0.0, 0.0]


@needs_fork
def test_hogwild_step_in_forked_child_updates_parent_model():
    jtensor.manual_seed(0)
    model = jtensor.nn.Linear(3, 1)
    model.share_memory()
    before = [p.detach().clone() for p in model.parameters()]

    def train():
        opt = jtensor.optim.SGD(model.parameters(), lr=0.01)
        x, y = jtensor.ones(4, 3), jtensor.full((4, 1), 10.0)
        for _ in range(2):
            opt.zero_grad()
            jtensor.nn.functional.mse_loss(model(x), y).backward()
            opt.step()

    workers = [_fork().Process(target=train) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
        assert w.exitcode == 0
    after = list(model.parameters())
    assert all(not jtensor.equal(a, b) for a, b in zip(after, before, strict=True))
    # the children moved the bias towards the target
    assert model.bias.item() > before[1].item()


# ------------------------------------------------------------------ sending tensors
@needs_fork
def test_fork_queue_from_child_and_dropped_sender():
    ctx = _fork()
    q, done = ctx.Queue(), ctx.Event()

    def producer():
        q.put(jtensor.full((3,), 4.0))  # made in the child, freed there once sent
        done.wait(30)

    p = ctx.Process(target=producer)
    p.start()
    got = q.get(timeout=30)
    done.set()
    p.join(30)
    assert got.is_shared() and got.tolist() == [4.0, 4.0, 4.0]
    got += 1
    assert got.tolist() == [5.0, 5.0, 5.0]


def test_pickling_keeps_metadata_and_shares_storages():
    from multiprocessing.reduction import ForkingPickler

    base = jtensor.arange(12.0)
    a = base.view(3, 4).t()[1:]
    b = base[5:]
    p = jtensor.nn.Parameter(jtensor.ones(2, 3))
    i = jtensor.arange(4, dtype=jtensor.int16)
    for strategy in sorted(jmp.get_all_sharing_strategies()):
        jmp.set_sharing_strategy(strategy)
        try:
            a2, b2, p2, i2 = pickle.loads(ForkingPickler.dumps((a, b, p, i)))
        finally:
            jmp.set_sharing_strategy(
                "file_descriptor" if sys.platform.startswith("linux") else "file_system"
            )
        assert base.is_shared() and p.is_shared()
        assert (a2.shape, a2.stride(), a2.storage_offset()) == (a.shape, a.stride(), 1)
        assert a2.untyped_storage().data_ptr() == b2.untyped_storage().data_ptr()
        assert type(p2) is jtensor.nn.Parameter and p2.requires_grad
        assert i2.dtype == jtensor.int16 and i2.tolist() == [0, 1, 2, 3]
        b2[0] = -5.0  # the same memory as the sender's
        assert base[5].item() == -5.0
    with pytest.raises(RuntimeError, match="Cowardly refusing"):
        ForkingPickler.dumps(p * 2)


def _expect_arrived(arrived, cls, requires_grad, values):
    name, shared, grad, shape, stride, offset, dtype, got = arrived
    assert (name, shared, grad, dtype, got) == (cls, True, requires_grad, "torch.float32", values)
    return shape, stride, offset


def test_tensor_through_spawn_queue_is_shared():
    ctx = jmp.get_context("spawn")
    inbox, outbox = ctx.Queue(), ctx.Queue()
    child = ctx.Process(target=mp_children.fill_from_queue, args=(inbox, outbox))
    child.start()
    try:
        x = jtensor.nn.Parameter(jtensor.arange(12.0).view(3, 4).t()[1:])
        sent = x.tolist()
        inbox.put(x)
        arrived = outbox.get(timeout=60)
        assert outbox.get(timeout=60) == "done"
    finally:
        child.join(60)
    assert child.exitcode == 0
    layout = _expect_arrived(arrived, "Parameter", True, sent)
    assert layout == ((3, 3), (1, 4), 1)
    assert x.is_shared()
    assert x.tolist() == [[10.0, 50.0, 90.0], [20.0, 60.0, 100.0], [30.0, 70.0, 110.0]]


def test_spawn_queue_pair_shares_one_storage():
    ctx = jmp.get_context("spawn")
    inbox, outbox = ctx.Queue(), ctx.Queue()
    child = ctx.Process(target=mp_children.pair_from_queue, args=(inbox, outbox))
    child.start()
    try:
        base = jtensor.arange(6.0)
        inbox.put((base[:2], base[3:]))
        same = outbox.get(timeout=60)
        assert outbox.get(timeout=60) == "done"
    finally:
        child.join(60)
    assert child.exitcode == 0 and same is True
    assert base.tolist() == [0.0, 1.0, 2.0, -1.0, -1.0, -1.0]


# ------------------------------------------------------------------ spawn
def test_spawn_runs_fn_per_rank_and_reraises():
    out = jtensor.zeros(3)
    assert jmp.spawn(mp_children.write_rank, args=(out, -1), nprocs=3) is None
    assert out.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(jmp.ProcessRaisedException) as info:
        jmp.spawn(mp_children.write_rank, args=(out, 1), nprocs=2)
    assert info.value.error_index == 1
    assert "ValueError: child 1 failed on purpose" in str(info.value)
    assert "-- Process 1 terminated with the following error:" in str(info.value)


@needs_fork
def test_start_processes_fork_join_false_and_exit_code():
    out = jtensor.zeros(2).share_memory_()
    context = jmp.start_processes(
        mp_children.write_rank, args=(out, -1), nprocs=2, join=False, start_method="fork"
    )
    assert isinstance(context, jmp.ProcessContext) and len(context.processes) == 2
    while not context.join():
        pass
    assert out.tolist() == [1.0, 2.0]
    with pytest.raises(jmp.ProcessExitedException, match="terminated with exit code 3") as info:
        jmp.start_processes(mp_children.exit_with, args=(3,), nprocs=1, start_method="fork")
    assert info.value.exit_code == 3


def test_spawn_other_start_method_warns():
    with pytest.warns(FutureWarning, match="only supports start_method=spawn"):
        context = jmp.spawn(mp_children.noop, nprocs=0, join=False, start_method="fork")
    assert context.join() is True


# ------------------------------------------------------------------ module surface
def test_module_surface_matches_torch():
    tmp = pytest.importorskip("torch.multiprocessing")
    assert sorted(jmp.__all__) == sorted(tmp.__all__)
    for name in (
        "Process",
        "Queue",
        "Pool",
        "get_context",
        "set_start_method",
        "get_start_method",
        "cpu_count",
        "spawn",
        "start_processes",
        "ProcessContext",
        "ProcessRaisedException",
        "ProcessExitedException",
    ):
        assert hasattr(jmp, name), name
    assert jmp.cpu_count() == tmp.cpu_count()
    assert jtensor.multiprocessing is jmp
    assert issubclass(jmp.ProcessRaisedException, jmp.ProcessException)


def test_sharing_strategies_match_torch():
    tmp = pytest.importorskip("torch.multiprocessing")
    assert jmp.get_sharing_strategy() == tmp.get_sharing_strategy()
    assert jmp.get_all_sharing_strategies() == tmp.get_all_sharing_strategies()
    for mod in (tmp, jmp):
        with pytest.raises(AssertionError) as info:
            mod.set_sharing_strategy("bogus")
        assert str(info.value).startswith("invalid sharing strategy 'bogus', expected one of")
    default = jmp.get_sharing_strategy()
    jmp.set_sharing_strategy("file_system")
    try:
        assert jmp.get_sharing_strategy() == "file_system"
    finally:
        jmp.set_sharing_strategy(default)


def test_import_jtensor_does_not_import_multiprocessing_package():
    import subprocess

    code = (
        "import jtensor, sys; print('jtensor.multiprocessing' in sys.modules); "
        "import jtensor.multiprocessing as mp; print(mp is jtensor.multiprocessing)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "True"]
