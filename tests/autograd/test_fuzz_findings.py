"""Autograd differences from PyTorch found by the random programs
(tests/core/test_random_programs.py), each checked against torch."""

import pytest

import jtensor

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

torch = pytest.importorskip("torch")

SLICES = [
    slice(1, None),
    slice(-1, None),
    slice(-5, None),
    slice(0, 0),
    slice(None, -1),
    slice(None, 5),
    slice(None, -5),
    slice(3, None),
    slice(None, None, 1),
    slice(0, None, 3),
]


@pytest.mark.parametrize("n", [0, 2])
@pytest.mark.parametrize("s", SLICES, ids=str)
def test_which_slices_of_a_key_record_a_node(n, s):
    # PyTorch skips a slice whose own start is 0, stop reaches the end and step is 1; a start
    # that merely clamps to 0 (``empty[1:, ...]``) still records SliceBackward0.
    names = [L.zeros(n, requires_grad=True)[(s, ...)].grad_fn.name() for L in (jtensor, torch)]
    assert names[0] == names[1]


def test_retain_grad_on_a_view_requiring_grad_through_its_base():
    for L in (jtensor, torch):
        a = L.tensor(2.0, dtype=L.float64, requires_grad=True)
        with L.no_grad():
            v = a.expand([])
        v.retain_grad()  # a leaf that requires grad: nothing to do, no error
        assert v.requires_grad and v.is_leaf and not v.retains_grad


@pytest.mark.parametrize("key", ["list", "long", "mask", "mixed", "bool", "int", "slice"])
def test_a_second_backward_through_advanced_indexing_finds_the_indices_freed(key):
    # IndexBackward0 saves its indices (a list or a bool becomes a tensor): a second backward
    # without retain_graph raises, as PyTorch; basic keys save nothing.
    def script(L):
        keys = {
            "list": [0, 1],
            "long": L.tensor([0, 1]),
            "mask": L.tensor([True, False, True]),
            "mixed": (slice(None), [0]),
            "bool": True,
            "int": 1,
            "slice": slice(0, 2),
        }
        a = L.ones(3, 2, dtype=L.float64, requires_grad=True)
        y = a[keys[key]]
        y.sum().backward()
        try:
            y.sum().backward()
        except RuntimeError:
            return "raises", a.grad.sum().item()
        return "ok", a.grad.sum().item()

    assert script(jtensor) == script(torch)


@pytest.mark.parametrize("how", ["requires_grad_(False)", "detach_()"])
def test_a_leaf_that_stopped_requiring_grad_gets_no_gradient(how):
    def script(L):
        a = L.tensor(-5.0, dtype=L.float64, requires_grad=True)
        b = L.tensor(2.0, dtype=L.float64, requires_grad=True)
        y = a * a * b
        a.requires_grad_(False) if how.startswith("requires") else a.detach_()
        y.backward()
        return a.grad, float(b.grad)

    assert script(jtensor) == script(torch) == (None, 25.0)


def test_writing_a_grad_requiring_value_into_an_integer_tensor_records_nothing():
    for L in (jtensor, torch):
        t = L.tensor([-5, 3])
        v = L.tensor(-4.0, dtype=L.float64, requires_grad=True)
        t[0] = v
        t.copy_(v.expand(2))
        view = L.zeros(3, dtype=L.long)[1:]
        view.add_(v.long())
        assert not t.requires_grad and t.grad_fn is None and t.is_leaf
        assert not view.requires_grad and not view._base.requires_grad


@pytest.mark.parametrize("shape", [(), (2,), (2, 3)])
def test_movedim_node_name(shape):
    # a 0-d tensor's movedim is PyTorch's alias, any other a permute
    names = [
        L.zeros(shape, requires_grad=True).movedim(0, -1).grad_fn.name() for L in (jtensor, torch)
    ]
    assert names[0] == names[1]


def test_index_write_through_a_view_made_by_the_keys_basic_items_is_copyslices():
    # x[mask, None] = v: the None makes a view first, so PyTorch's node is CopySlices;
    # x[[0], :] = v writes into x itself (IndexPutBackward0).
    def script(L):
        m = L.ones(3, 4, dtype=L.bool)
        seen = []
        for key in [
            (m, None),
            (None, m),
            ([0],),
            ([0], slice(None)),
            ([0], slice(1, None)),
            (0, [1]),
            (Ellipsis, [1]),
            (True, [0]),
            (slice(0, 5), [1]),
            (slice(-3, None), [1]),
            ([0], None),
            (L.tensor(1), [0]),
        ]:
            a = L.ones(3, 4, dtype=L.float64, requires_grad=True)
            b = a * 1
            b[key] = 0.0
            b.sum().backward()
            seen.append((b.grad_fn.name().replace("torch::autograd::", ""), a.grad.sum().item()))
        return seen

    assert script(jtensor) == script(torch)


def test_a_retained_gradient_is_a_contiguous_copy():
    # (an empty expanded gradient kept its stride (0,); PyTorch's retain_grad clones with
    # a contiguous layout)
    def script(L):
        t = L.tensor([], dtype=L.float64, requires_grad=True)
        y = t * t
        y.retain_grad()
        y.sum().backward()
        x = L.ones(2, 3, dtype=L.float64, requires_grad=True)
        z = (x * 1).t()
        z.retain_grad()
        (z * L.ones(3, 2)).sum().backward()
        return y.grad.stride(), z.grad.stride()

    assert script(jtensor) == script(torch)
