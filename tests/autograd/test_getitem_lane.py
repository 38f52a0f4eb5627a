"""A recorded ``x[key]`` with a basic key that takes the op's own node (``x[0]``,
``x[:, 1:3]``, ``x[..., None]``) is recorded by ``graph.record_single`` (issue 18: loops
that read ``x[t]`` step by step). Its node, edges, stored values, view bookkeeping and
gradients must be those of the general recording path, and PyTorch's."""

import numpy as np
import pytest

import jtensor
from jtensor._registry import OPS
from jtensor.autograd.formulas import views as view_formulas
from jtensor.autograd.graph import DECLINED

from ..harness.graphs import record_and_describe
from ..harness.spies import fast_path_spy

KEYS = {
    "int": 1,
    "negative int": -1,
    "slice": slice(1, None),
    "stepped slice": slice(None, None, 2),
    "full slice": slice(None),
    "columns": (slice(None), slice(1, 3)),
    "last column": (slice(None), -1),
    "new axis last": (Ellipsis, None),
    "new axis first": (None,),
    "ellipsis": (Ellipsis,),
    "ellipsis then int": (Ellipsis, 0),
    "no-op slices": (slice(None), slice(None)),
    "row range then ellipsis": (slice(1, 2), Ellipsis),
    "empty slice": slice(5, 9),
    "lone None": None,
    "lone ellipsis": Ellipsis,
}


def _leaf(lib, dtype):
    data = np.random.default_rng(3).standard_normal((3, 4))
    return lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)


def _general_path(monkeypatch):
    """The formula without its lean start: chained keys still go to ``recorded_getitem``,
    every other call to the general path."""

    def chained_only(op, formula, impl, args, kwargs):
        if not kwargs and len(args) == 2 and args[1].__class__ is tuple:
            chained = view_formulas.recorded_getitem(op, args, kwargs)
            if chained is not None:
                return chained
        return DECLINED

    monkeypatch.setattr(OPS["__getitem__"].backward, "lean", chained_only)


def _describe(key, dtype):
    x = _leaf(jtensor, dtype)
    extra = []

    def make(x):
        out = x[key]
        node = out.grad_fn
        extra.append(
            (
                out._base is x,
                out._version,
                out.storage_offset(),
                sorted(k for k in node._values if k != "key_box"),
                node._values["key"],
                node._values["__needs__"],
                node._input_meta,
            )
        )
        return out * 2

    return record_and_describe(lambda x: make(x), [x]), extra


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(KEYS))
def test_the_lane_equals_the_general_path(name, dtype, monkeypatch):
    taken = fast_path_spy(monkeypatch, view_formulas, "record_single")
    lane = _describe(KEYS[name], dtype)
    assert taken == [True]
    _general_path(monkeypatch)
    assert _describe(KEYS[name], dtype) == lane
    assert taken == [True]  # (the general path did not call it)


def _same_as_pytorch(run):
    """``run(lib)`` under jtensor and under PyTorch: the same answers."""
    torch = pytest.importorskip("torch")
    assert run(jtensor) == run(torch)


@pytest.mark.parametrize("name", sorted(KEYS))
def test_nodes_views_and_gradients_are_pytorchs(name):
    def run(lib):
        x = _leaf(lib, "float64")
        out = x[KEYS[name]]
        weights = lib.arange(out.numel(), dtype=lib.float64).reshape(out.shape)
        (out * weights).sum().backward()
        return (
            out.grad_fn.name(),
            [(n.name() if n is not None else None, nr) for n, nr in out.grad_fn.next_functions],
            tuple(out.shape),
            out.stride(),
            out.storage_offset(),
            out._base is x,
            out.is_contiguous(),
            x.grad.numpy().tolist(),
        )

    _same_as_pytorch(run)


def test_a_non_leaf_input_and_a_retained_result():
    def run(lib):
        x = _leaf(lib, "float64")
        row = (x * 3)[1]
        row.retain_grad()
        handed = []
        row.register_hook(lambda g: handed.append(g.tolist()))
        (row**2).sum().backward()
        return row.grad_fn.name(), row.grad.tolist(), handed, x.grad.tolist()

    _same_as_pytorch(run)


def test_a_view_written_in_place_rebases_as_pytorch_does():
    def run(lib):
        x = _leaf(lib, "float64")
        y = x.clone()
        col = y[:, 2]
        col.mul_(5)
        y.sum().backward()
        return col.grad_fn.name(), y.grad_fn.name(), x.grad.tolist()

    _same_as_pytorch(run)


def test_a_saved_view_written_later_is_refused_at_backward():
    def run(lib):
        y = _leaf(lib, "float64") * 1
        row = y[0]
        out = row * row  # saves the row, a view of ``y``'s storage
        y.add_(1)  # bumps the version the row was saved at
        with pytest.raises(RuntimeError) as info:
            out.sum().backward()
        return "modified by an inplace operation" in str(info.value)

    _same_as_pytorch(run)


def test_a_base_written_after_the_read_refreshes_the_views_history():
    def run(lib):
        x = _leaf(lib, "float64")
        y = x * 1
        row = y[0]
        y.mul_(2)
        (row * lib.arange(4.0, dtype=lib.float64)).sum().backward()
        return row.grad_fn.name(), x.grad.tolist()

    _same_as_pytorch(run)


@pytest.mark.parametrize(
    "make",
    [
        lambda x, idx: x[idx],  # an index tensor
        lambda x, idx: x[[0, 2]],  # a list
        lambda x, idx: x[True],  # a bool
        lambda x, idx: x[np.int64(1)],  # a NumPy integer
        lambda x, idx: x[0, 1],  # two parts: a chain of nodes
        lambda x, idx: x[:, idx],  # a slice and an index tensor
    ],
    ids=["tensor", "list", "bool", "numpy-int", "two-parts", "slice-and-tensor"],
)
def test_other_keys_keep_their_paths(make, monkeypatch):
    taken = fast_path_spy(monkeypatch, view_formulas, "record_single")
    x = _leaf(jtensor, "float32")
    out = make(x, jtensor.tensor([0, 2]))
    assert out.requires_grad
    assert taken == []


def test_a_view_made_without_grad_keeps_the_general_path(monkeypatch):
    taken = fast_path_spy(monkeypatch, view_formulas, "record_single")

    def run(lib):
        x = _leaf(lib, "float32")
        with lib.no_grad():
            v = x[1:]
        out = v[0]
        return out.requires_grad, out.grad_fn.name()

    _same_as_pytorch(run)
    assert taken == []


@pytest.mark.parametrize("key", [7, (slice(None), 9), (0, 0, 0), -4], ids=str)
def test_errors_are_the_general_paths(key, monkeypatch):
    raised = []
    for general in (False, True):
        if general:
            _general_path(monkeypatch)
        x = _leaf(jtensor, "float32")
        with pytest.raises(IndexError) as info:
            x[key]
        raised.append(str(info.value))
    assert raised[0] == raised[1]


def _of_a_view(key):
    x = _leaf(jtensor, "float64")
    rows = x[1:]  # offset 4: the node's input metadata keeps it
    out = rows[key]
    return out.grad_fn._input_meta, out.storage_offset(), out.grad_fn.next_functions[0][0].name()


@pytest.mark.parametrize("name", sorted(KEYS))
def test_a_view_as_input(name, monkeypatch):
    lane = _of_a_view(KEYS[name])
    _general_path(monkeypatch)
    assert _of_a_view(KEYS[name]) == lane
