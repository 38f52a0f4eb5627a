"""The trace under function transforms: each op that vmap or forward AD runs for a user's op
says which transform ran it and for which op, so a learner can read how ``vmap`` batched a
function (one op for the whole batch) and where forward mode computed tangents."""

import jtensor
import jtensor.autograd.forward_ad as fwAD
from jtensor.func import vmap


def _ops(trace):
    return [(e.name, e.info.get("under")) for e in trace.events if e.op_kind is not None]


def test_vmap_ops_run_once_for_the_batch_and_say_so():
    x = jtensor.randn(4, 3)
    with jtensor.trace.record() as t:
        y = vmap(lambda r: (r * 2).sum())(x)
        z = x + 1
    ops = _ops(t)
    assert ops[0] == ("mul", "vmap level 1: batch size 4, for mul")
    assert ops[-1] == ("add", None)          # outside vmap: plain
    sums = [o for o in ops if o[0] == "sum"]
    assert sums == [("sum", "vmap level 1: batch size 4, for sum")]   # one sum, not four
    assert y.shape == (4,) and z.shape == (4, 3)
    text = t.to_text(sections=("ops",))
    assert "[vmap level 1: batch size 4, for mul]" in text
    assert "vmap level 1" in t.to_html()


def test_nested_vmaps_name_both_levels():
    x = jtensor.randn(2, 3, 5)
    with jtensor.trace.record() as t:
        vmap(vmap(lambda r: r.sin()))(x)
    labels = {u for _, u in _ops(t) if u}
    # The inner vmap takes the call first and runs its op through the outer one.
    assert "vmap level 2: batch size 3, for sin > vmap level 1: batch size 2, for sin" in labels


def test_forward_ad_tangent_ops_name_the_op_they_differentiate():
    with jtensor.trace.record() as t:
        with fwAD.dual_level():
            d = fwAD.make_dual(jtensor.ones(3), jtensor.ones(3))
            d.sin()
    under_sin = [name for name, u in _ops(t) if u and u.endswith("for sin")]
    assert under_sin[0] == "sin" and "cos" in under_sin   # the primal, then its tangent


def test_plain_ops_carry_no_label():
    with jtensor.trace.record() as t:
        (jtensor.ones(2) * 3).sum()
    assert all(u is None for _, u in _ops(t))
