"""Views made under no_grad, or several at once (split/chunk/unbind), as PyTorch treats them:
they require grad through their base, and autograd refuses to write them in place (or to read
their history after their base was written). Found by tests/core/test_random_programs.py."""

import pytest

import jtensor

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

torch = pytest.importorskip("torch")


def _kind(fn):
    try:
        r = fn()
    except RuntimeError as exc:
        return f"RuntimeError {str(exc)[:40]}"
    return r


def _name(t):
    return _kind(lambda: None if t.grad_fn is None else t.grad_fn.name())


def _script(L):
    a = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
    seen = {}
    with L.no_grad():
        v = a[0:2]
    seen["leaf view"] = (v.requires_grad, v.is_leaf, _name(v))
    y = a * 1
    with L.no_grad():
        v = y[0:2]
    seen["nonleaf view"] = (v.requires_grad, v.is_leaf, _name(v))
    seen["write it"] = _kind(lambda: v.mul_(2) and None)
    seen["version after refusal"] = y._version
    y.mul_(2)
    seen["read after base write"] = _name(v)
    y = a * 1
    with L.no_grad():
        v = y[0:2]
        y.mul_(2)  # written under no_grad too: the history still cannot be made
    seen["base written under no_grad"] = _name(v)
    b = L.zeros(3, dtype=L.float64)
    u = b[0:2]
    b.requires_grad_()
    seen["base requires grad later"] = (u.requires_grad, u.is_leaf)
    with L.no_grad():
        b.add_(1)
    seen["then written"] = _name(u)
    y = a * 1
    p, q = y.split(2)
    seen["split piece"] = (_name(p), _kind(lambda: p.mul_(2) and None))
    y.mul_(2)
    seen["split piece after base write"] = _name(q)
    seen["unbind piece"] = _kind(lambda: (a * 1).unbind(0)[1].add_(1) and None)
    c = L.zeros(3, dtype=L.float64)
    w = c.unbind(0)[0]
    seen["plain unbind piece"] = _kind(lambda: float(w.mul_(2)))
    seen["plain piece, recorded write"] = _kind(lambda: w.add_(a[0]) and None)
    with L.no_grad():
        p2 = (a * 1).chunk(2)[0]
    seen["chunk under no_grad"] = _kind(lambda: p2.mul_(2).tolist())
    d = a.detach()
    seen["detach is no view"] = (d._base is None, d.requires_grad)
    return seen


def test_views_made_under_no_grad_or_together_follow_pytorch():
    mine, theirs = _script(jtensor), _script(torch)
    for key in theirs:
        assert mine[key] == theirs[key], key


def test_split_gradients_still_flow_and_differentiate_twice():
    x = jtensor.arange(6.0, dtype=jtensor.float64).requires_grad_()
    assert jtensor.autograd.gradcheck(lambda t: t.split(4)[0] * t.split(4)[1].sum(), (x,))
    assert jtensor.autograd.gradgradcheck(lambda t: t.chunk(3)[1] ** 2, (x,))


def test_is_leaf_of_a_no_grad_view_after_its_base_was_written_raises():
    for L in (jtensor, torch):
        a = L.tensor(-5.0, dtype=L.float64, requires_grad=True)
        with L.no_grad():
            v = a[()]
            a[()] = a
        with pytest.raises(RuntimeError, match="no_grad mode"):
            v.is_leaf  # noqa: B018 - reading it is the check


def test_a_stale_view_of_a_base_that_requires_grad_later():
    def script(L):
        seen = []
        for no_grad in (True, False):
            b = L.tensor([1.0, 2.0], dtype=L.float64)
            if no_grad:
                with L.no_grad():
                    v = b[0:1]
            else:
                v = b[0:1]
            b[0] = 3.0
            seen.append(v.is_leaf)  # the base needs no grad: nothing to rebuild yet
            b.requires_grad_()
            try:
                seen.append(v.grad_fn.name())
            except RuntimeError:
                seen.append("raises")
        return seen

    assert script(jtensor) == script(torch)


def test_ops_on_a_view_requiring_grad_through_its_base_are_recorded_with_no_edge():
    def script(L):
        a = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        with L.no_grad():
            v = a[0:2]
        w = v * 2  # recorded (v requires grad) but its edge to v leads nowhere
        s = v[0:1]  # a view of it: SliceBackward0
        seen = [
            w.requires_grad,
            w.grad_fn.name(),
            w.grad_fn.next_functions[0][0] is None,
            s.grad_fn.name(),
        ]
        w.sum().backward()
        seen += [a.grad, v.grad]
        v.requires_grad_()  # the view's own flag now: it gets an accumulator
        (v * 3).sum().backward()
        seen.append(v.grad.tolist())
        return seen

    assert script(jtensor) == script(torch)


def test_a_no_grad_view_stops_requiring_grad_with_its_base():
    for L in (jtensor, torch):
        a = L.tensor(-5.0, dtype=L.float64, requires_grad=True)
        with L.no_grad():
            v = a[()]
        a.requires_grad_(False)
        assert not v.requires_grad


def test_backward_from_a_no_grad_view_has_no_node_to_start_from():
    for L in (jtensor, torch):
        a = L.tensor(-5.0, dtype=L.float64, requires_grad=True)
        with L.no_grad():
            v = a.expand([])
        with pytest.raises(RuntimeError, match="does not require grad"):
            v.backward(L.tensor(1.0, dtype=L.float64))


def test_a_recorded_view_rebuilds_its_node_after_its_base_stopped_requiring_grad():
    def script(L):
        a = L.tensor(-5.0, dtype=L.float64, requires_grad=True)
        v = a[()]
        a.requires_grad_(False)
        with L.no_grad():
            a[()] = a
        fn = v.grad_fn
        return fn.name(), fn.next_functions[0][0] is None, v.requires_grad, v.is_leaf

    assert script(jtensor) == script(torch)


def test_a_stale_no_grad_view_is_refused_before_the_op_checks_its_arguments():
    for L in (jtensor, torch):
        a = L.tensor([1.0], dtype=L.float64, requires_grad=True)
        with L.no_grad():
            v = a[None]
            a[0] = 2.0
        with pytest.raises(RuntimeError, match="no_grad mode"):
            v[0, 5]  # the index is out of range too: the view's refusal comes first


@pytest.mark.parametrize(
    "key", [0, (0, 5), (0, 0, 0), (slice(None), 7), (None, 0, 3), 5, (0, 0)], ids=str
)
def test_writing_a_stale_no_grad_view_through_a_bad_key_raises_as_torch(key):
    # PyTorch applies the key's items before it writes: a key with too many indices, or
    # one out of range before any item made a view, is its IndexError; once an item took
    # the view's edge, the no_grad view's refusal comes first.
    def run(L):
        a = L.tensor([1.0], dtype=L.float64, requires_grad=True)
        with L.no_grad():
            v = a[None]
            a[0] = 2.0
        try:
            v[key] = a[0] * 2
        except (IndexError, RuntimeError) as exc:
            return type(exc).__name__, "no_grad" in str(exc)
        return "ok"

    assert run(jtensor) == run(torch)


def test_writing_a_zero_dim_stale_no_grad_view_with_an_index_is_an_index_error():
    for L in (jtensor, torch):
        t0 = L.tensor(-5.0, dtype=L.float64, requires_grad=True)
        with L.no_grad():
            t1 = t0.view(())
            t0[()] = t0
        with pytest.raises(IndexError):
            t1[0] = t0
