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


def _stale_no_grad_view(L):
    # A view made under no_grad whose base was written afterwards: its history cannot be
    # rebuilt, so any op that reads it raises.
    x = L.tensor([-5.0, 2.0], dtype=L.float64, requires_grad=True)
    with L.no_grad():
        v = x[:]
    with L.no_grad():
        x.mul_(2)
    return v


HANDED_BACK = {
    "contiguous": lambda L, t: t.contiguous(),
    "to-same-dtype": lambda L, t: t.to(L.float64),
    "double": lambda L, t: t.double(),
    "type_as": lambda L, t: t.type_as(t),
    "to-own-device": lambda L, t: t.to(t.device),
    "flatten-1d": lambda L, t: t.flatten(),
    "atleast_1d": lambda L, t: L.atleast_1d(t),
    "conj-real": lambda L, t: t.conj(),
    "real-real": lambda L, t: t.real,
    "resolve_neg": lambda L, t: t.resolve_neg(),
    "sum_to_size-same": lambda L, t: t.sum_to_size(2),
    # and ops that do make something read the history, so they raise:
    "to-other-dtype": lambda L, t: t.to(L.float32),
    "reshape-same": lambda L, t: t.reshape(2),
    "view_as": lambda L, t: t.view_as(t),
    "clone": lambda L, t: t.clone(),
    "squeeze-noop": lambda L, t: t.squeeze(0),
}


@pytest.mark.parametrize("op", sorted(HANDED_BACK))
def test_an_op_that_hands_its_input_back_reads_no_history(op):
    # PyTorch returns the input itself from contiguous()/to()/... when nothing changes,
    # before autograd sees the call: a stale no_grad view passes through without error.
    outcomes = []
    for L in (jtensor, torch):
        v = _stale_no_grad_view(L)
        try:
            out = HANDED_BACK[op](L, v)
            outcomes.append(("returned", out is v))
        except RuntimeError as exc:
            assert "no_grad mode" in str(exc)
            outcomes.append(("raised",))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("dtype", ["float64", "int64", "int32"])
def test_view_as_a_dtype_is_not_differentiable_and_not_an_autograd_view(dtype):
    for L in (jtensor, torch):
        x = L.ones(2, dtype=L.float64, requires_grad=True)
        y = x.view(getattr(L, dtype))
        assert not y.requires_grad and y.grad_fn is None and y.is_leaf
        assert y._base is None and not y._is_view()
        assert y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        with L.no_grad():
            y.zero_()
        assert x._version == 1  # the version counter is shared
        assert _stale_no_grad_view(L).view(L.int64)._version == 1


@pytest.mark.parametrize("value", ["number", "tensor", "itself"])
def test_fill_of_an_overlapping_tensor_takes_a_number_but_not_a_tensor(value):
    outcomes = []
    for L in (jtensor, torch):
        base = L.tensor(-5.0, dtype=L.float64)
        wide = base.as_strided([1, 2], [0, 0], 0)
        v = {"number": 3.0, "tensor": L.tensor(3.0, dtype=L.float64), "itself": base}[value]
        try:
            wide.fill_(v)
            outcomes.append(("ok", base.item()))
        except RuntimeError as exc:
            assert "single memory location" in str(exc)
            outcomes.append(("raised", base.item()))
    assert outcomes[0] == outcomes[1]


LEAF_LAYOUTS = [
    ((1, 0), (2, 1)),
    ((3, 0), (5, 7)),
    ((0, 3), (1, 1)),
    ((2, 0, 3), (100, 7, 1)),
    ((0,), (5,)),
    ((3, 2), (1, 3)),
    ((3, 1), (5, 7)),
    ((1, 3), (9, 1)),
    ((2, 2), (0, 1)),
    ((2, 3), (1, 4)),
    ((1, 1), (7, 9)),
    ((0, 0), (0, 0)),
]


@pytest.mark.parametrize("how", ["sum", "mul"])
@pytest.mark.parametrize(("shape", "stride"), LEAF_LAYOUTS, ids=str)
def test_the_first_gradient_takes_pytorchs_layout(shape, stride, how):
    # PyTorch keeps a fresh gradient whose strides agree with the leaf's on every dim of
    # size other than 1 (a dense leaf) or that is row-major (any other leaf); otherwise it
    # copies it into the leaf's strides (dense leaf, empty ones included) or row-major.
    strides = []
    for L in (jtensor, torch):
        a = L.empty_strided(shape, stride, dtype=L.float64).requires_grad_()
        (a.sum() if how == "sum" else (a * 2).sum()).backward()
        strides.append(a.grad.stride())
    assert strides[0] == strides[1]


def _detach_saved_input(L, then):
    x = L.ones(3, dtype=L.float64, requires_grad=True)
    y = x * 2
    z = y * y  # saves y
    y.detach_()
    if then == "write":
        y.mul_(2)
    elif then == "requires_grad":
        y.requires_grad_()
    return z


def _detach_saved_output(L, then):
    x = L.ones(3, dtype=L.float64, requires_grad=True)
    z = (x * 2).exp()  # saves its own result
    w = z * 3  # saves nothing of z (a number)
    z.detach_()
    return w


@pytest.mark.parametrize(
    ("make", "then"),
    [
        (_detach_saved_input, None),
        (_detach_saved_input, "write"),
        (_detach_saved_input, "requires_grad"),
        (_detach_saved_output, None),
    ],
)
def test_backward_through_a_saved_tensor_detached_in_place(make, then):
    # detach_() takes a saved input's history away: PyTorch refuses to use it (before it
    # compares versions); a saved output has no such check.
    outcomes = []
    for L in (jtensor, torch):
        try:
            make(L, then).sum().backward()
            outcomes.append("ran")
        except RuntimeError as exc:
            assert "detached in-place" in str(exc)
            outcomes.append("refused")
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("shape", [(0,), (1, 0), (2, 0), (1, 3), (3,)])
def test_an_index_write_of_a_tensor_into_itself(shape):
    # PyTorch refuses x[idx] = x as an overlap, except where it first viewed the value
    # without its leading size-1 dims and the tensor is empty (no element, no overlap).
    outcomes = []
    for L in (jtensor, torch):
        x = L.zeros(shape)
        idx = L.arange(shape[0]) if x.numel() else L.tensor([], dtype=L.long)
        try:
            x[idx] = x
            outcomes.append("ok")
        except RuntimeError as exc:
            assert "single memory location" in str(exc)
            outcomes.append("refused")
    assert outcomes[0] == outcomes[1]


def test_a_leaf_moved_into_the_graph_interior_is_refused_at_backward():
    # x was a leaf when y was made from it; x.add_(y) (recorded, after x stopped requiring
    # grad) gives x a history, so the accumulator y's graph reaches has no leaf to fill.
    for L in (jtensor, torch):
        x = L.tensor(-5.0, dtype=L.float64, requires_grad=True)
        y = x + x
        x.requires_grad_(False)
        x.add_(y)
        assert x.grad_fn is not None
        with pytest.raises(RuntimeError, match="leaf variable has been moved into the graph"):
            (x * 2).backward()


def _view_then_write(L, how):
    if how == "leaf-moved":
        x = L.tensor(-5.0, dtype=L.float64, requires_grad=True)
        v = x[()]  # a view recorded while x required grad
        x.requires_grad_(False)
        x.add_(v)  # v's edge is taken before the write: x's old accumulator
        return x
    x = L.tensor(-5.0, dtype=L.float64, requires_grad=True) * 1
    with L.no_grad():
        v = x[()]  # a no_grad view
    x.mul_(v)  # saves v, which the write itself changes
    return x


@pytest.mark.parametrize("how", ["leaf-moved", "saved-view-of-self"])
def test_an_in_place_op_reading_a_view_of_its_target(how):
    # PyTorch takes the other argument's edge and saves it before the op runs, so a view of
    # the target keeps the history and version it had before the write.
    messages = []
    for L in (jtensor, torch):
        x = _view_then_write(L, how)
        with pytest.raises(RuntimeError) as info:
            (x * 2).sum().backward()
        messages.append(str(info.value)[:40])
    assert messages[0] == messages[1]


def test_a_retained_gradient_follows_a_base_written_through_its_view():
    # x.retain_grad(), then x[()].mul_(2): x's history is now CopySlices, and x.grad is the
    # gradient of x's value after the write (2 for y = 2 x), not before it (4).
    for L in (jtensor, torch):
        x = L.tensor(-5.0, dtype=L.float64, requires_grad=True) * 1
        x.retain_grad()
        x[()].mul_(2)
        (x * 2).backward()
        assert x.grad.item() == 2.0
        assert type(x.grad_fn).__name__ == "CopySlices"


GETITEM_KEYS = {
    "int": 0,
    "int-out-of-range": 5,
    "tuple-of-ints": (0, 0),
    "slice": slice(None),
    "two-slices": (slice(None), slice(None)),
    "three-slices": (slice(None),) * 3,
    "list": [0],
    "list-out-of-range": [9],
    "tuple-with-list-out-of-range": ([9],),
    "int-then-list": (0, [0]),
    "ellipsis-then-int": (Ellipsis, 0),
    "float": 1.5,
    "none": None,
}


@pytest.mark.parametrize("shape", [(), (2,), (2, 3), (0,), (2, 0)], ids=str)
@pytest.mark.parametrize("key", sorted(GETITEM_KEYS))
def test_indexing_a_stale_no_grad_view_raises_what_pytorch_checks_first(key, shape):
    # PyTorch parses an index before autograd sees the call (a bad int or too many indices
    # is an IndexError), but checks advanced indices' range inside the kernel, after it took
    # the inputs' edges (a stale no_grad view's RuntimeError comes first there; an index
    # into a dim of size 0 too).
    outcomes = []
    for L in (jtensor, torch):
        x = L.zeros(shape, dtype=L.float64, requires_grad=True)
        with L.no_grad():
            v = x[...]
            x.mul_(2)
        try:
            v[GETITEM_KEYS[key]]
            outcomes.append("ok")
        except (IndexError, RuntimeError) as exc:
            outcomes.append(type(exc).__name__ + (" (view)" if "no_grad mode" in str(exc) else ""))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("retain", [False, True])
def test_a_second_backward_through_copyslices(retain):
    # CopySlices (a write through a view) lets go of its op after a backward without
    # retain_graph, even when that op saved nothing: the second backward raises.
    outcomes = []
    for L in (jtensor, torch):
        x = L.tensor(-5.0, dtype=L.float64, requires_grad=True)
        y = x + x
        y[()] = x
        (y * 2).backward(retain_graph=retain)
        try:
            (y * 2).backward()
            outcomes.append(("ran", x.grad.item()))
        except RuntimeError as exc:
            assert "a second time" in str(exc)
            outcomes.append(("refused", x.grad.item()))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize(
    "key", ["long", "mask"], ids=["long-index-into-empty", "mask-with-int-into-empty"]
)
def test_an_index_error_of_an_advanced_key_is_raised_as_pytorch(key):
    # The check that explains which item was out of range must itself never fail.
    for L in (jtensor, torch):
        t = L.zeros(0, 2, dtype=L.float64, requires_grad=True)
        k = (L.tensor([0]),) if key == "long" else (L.zeros(0, dtype=L.bool), 5)
        with pytest.raises(IndexError):
            t[k]


def test_copy_of_a_tensor_into_itself_is_a_write_that_checks_nothing():
    for L in (jtensor, torch):
        wide = L.tensor(-5.0, dtype=L.float64).expand(2)  # repeats its one element
        wide.copy_(wide)
        assert wide._version == 1


@pytest.mark.parametrize("value", ["number", "tensor"])
def test_masked_fill_of_an_expanded_tensor_warns_and_writes(value):
    # A deprecated use PyTorch still runs (with a UserWarning), unlike other writes
    # through a stride-0 layout.
    results = []
    for L in (jtensor, torch):
        base = L.tensor(-5.0, dtype=L.float64)
        wide = base.expand(2)
        v = 1.0 if value == "number" else L.tensor(1.0, dtype=L.float64)
        with pytest.warns(UserWarning, match="masked_fill_ on expanded tensors"):
            wide.masked_fill_(L.tensor([True, False]), v)
        results.append(base.item())
    assert results[0] == results[1] == 1.0
