"""Recording a trace must not change what the program does: the recorder's caches hold
weak references only. A strong reference to an input's storage or node (the snapshot cache
of single-input ops) kept the graph of a traced step alive after ``backward()`` and made
AccumulateGrad copy gradients it would have kept (notebook 16's memory figures)."""

import gc
import weakref

import jtensor


def test_a_traced_view_keeps_neither_node_nor_storage_alive():
    w = jtensor.ones(3, 3, requires_grad=True)
    with jtensor.trace.record():
        h = w * 2
        with jtensor.no_grad():
            v = h.t()  # not recorded by autograd: the input's snapshot is cached
        node, storage = weakref.ref(h.grad_fn), weakref.ref(h._storage)
        del h, v
        jtensor.zeros(1)  # (the next op completes the last recorded one)
        gc.collect()
        assert node() is None
        assert storage() is None


def test_a_traced_backward_keeps_the_gradient_it_computed():
    # linear's weight gradient is the transpose of a fresh product: AccumulateGrad keeps it
    # (no copy) whether or not a trace is recording.
    def weight_grad_is_the_product(trace):
        lin = jtensor.nn.Linear(4, 3)
        x = jtensor.ones(5, 4)
        if trace:
            with jtensor.trace.record():
                lin(x).sum().backward()
        else:
            lin(x).sum().backward()
        g = lin.weight.grad
        return g._base is not None or g._storage is not lin.weight._storage

    assert weight_grad_is_the_product(False)
    assert weight_grad_is_the_product(True)


def test_the_snapshot_cache_still_sees_changes():
    a = jtensor.zeros(4)
    with jtensor.trace.record() as t:
        a[0]
        a.add_(1)
        a[0]
    reads = [e for e in t.events if e.name in ("__getitem__", "select")]
    assert len(reads) == 2
    assert reads[0].inputs[0].version != reads[1].inputs[0].version
