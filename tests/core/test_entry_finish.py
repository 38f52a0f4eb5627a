"""The registry's entry finishes every call (issue 14): an implementation computes and returns;
the generated entry bumps the version of what the call wrote, calls the autograd hook and emits
one trace event. These tests pin that contract down with a plain hook on ``_dispatch``."""

import pytest

import jtensor
from jtensor import _dispatch
from jtensor._registry import OPS

pytestmark = pytest.mark.devices


class _Hook:
    def __init__(self):
        self.events = []

    def __call__(self, op, inputs, outputs, modified, info):
        self.events.append((op.name, tuple(inputs), outputs, modified, info))

    @property
    def names(self):
        return [e[0] for e in self.events]


@pytest.fixture
def hook(monkeypatch):
    h = _Hook()
    monkeypatch.setattr(_dispatch, "trace_hook", h)
    return h


def test_every_op_is_finished_by_its_entry_except_the_nn_functionals():
    # (An nn functional's body is an autograd Function: it finishes by hand, post=False.)
    hand = sorted(name for name, op in OPS.items() if op.post is None and op.kind != "nn")
    assert hand == [], f"ops that finish by hand: {hand}"


def test_a_call_is_one_event_with_the_call_s_tensors(hook):
    a, b = jtensor.ones(3), jtensor.ones(3)
    hook.events.clear()
    jtensor.add(a, b, alpha=2)
    a.sum(dim=0)
    a.view(3, 1)
    a + 2
    assert hook.names == ["add", "sum", "view", "add"]
    assert [len(e[1]) for e in hook.events] == [2, 1, 1, 1]
    assert all(e[3] is None for e in hook.events)


def test_in_place_and_out_bump_the_written_tensor_once(hook):
    a, b = jtensor.ones(3), jtensor.ones(3)
    hook.events.clear()
    a.add_(b)
    assert a._version == 1 and hook.events[-1][3] is a
    out = jtensor.empty(3)
    jtensor.mul(a, b, out=out)
    assert out._version == 1 and hook.events[-1][3] is out
    values, indices = jtensor.empty(3), jtensor.empty(3, dtype=jtensor.int64)
    jtensor.sort(jtensor.tensor([3.0, 1.0, 2.0]), out=(values, indices))
    assert (values._version, indices._version) == (1, 1)
    assert hook.events[-1][0] == "sort" and hook.events[-1][3] is values
    sign, logabs = jtensor.empty(()), jtensor.empty(())
    jtensor.slogdet(jtensor.eye(2), out=(sign, logabs))
    assert (sign._version, logabs._version) == (1, 1)
    out = jtensor.empty(3)
    jtensor.max(a, b, out=out)    # maximum's entry writes and reports it
    assert out._version == 1 and hook.names[-1] == "maximum"


def test_an_op_built_on_another_op_s_implementation_is_one_event(hook):
    x, zeros = jtensor.ones(2, 3), jtensor.zeros(2, 3)
    hook.events.clear()
    x.swapaxes(0, 1)              # transpose's implementation under PyTorch's other names
    jtensor.true_divide(x, 2)     # div's implementation
    jtensor.max(x, zeros)         # the element-wise maximum's entry
    assert hook.names == ["transpose", "div", "maximum"]


def test_a_recorded_call_is_one_event_too(hook):
    x = jtensor.ones(3, requires_grad=True)
    hook.events.clear()
    y = (x * 2).sum()
    assert hook.names == ["mul", "sum"]
    assert y.grad_fn is not None


def test_calls_that_hand_their_input_back_report_nothing(hook):
    x = jtensor.ones(2, 3)
    hook.events.clear()
    assert x.contiguous() is x and x.to(jtensor.float32) is x and x.flatten(1, 1) is x
    assert hook.names == []
    x.t().contiguous()
    assert hook.names == ["t", "contiguous"]


def test_setitem_reports_the_written_tensor_and_returns_none(hook):
    x = jtensor.zeros(3)
    hook.events.clear()
    assert x.__setitem__(0, 1.0) is None
    assert hook.events[-1][0] == "__setitem__" and hook.events[-1][2] is x
    assert x._version == 1
    x[False] = 2.0                # selects nothing: no write, no bump
    assert x._version == 1


def test_finish_does_nothing_for_an_op_its_entry_finishes(hook):
    x = jtensor.ones(2)
    hook.events.clear()
    assert _dispatch.finish(OPS["add"], (x,), x, modified=x) is x
    assert hook.names == [] and x._version == 0


def test_the_declared_device_check_runs_before_the_implementation():
    assert OPS["equal"].post.check_devices is True
    assert jtensor.equal(jtensor.ones(2), jtensor.ones(2))
