"""``torch.distributed`` in one process: nothing is ever initialised, the calls that need a
process group raise PyTorch's error for an uninitialised one, and code that only asks
(``is_initialized()``, ``isinstance(x, rpc.api.RRef)``) gets its answer."""

import pytest

import jtensor

torch = pytest.importorskip("torch")

NEEDS_A_GROUP = {
    "get_rank": (),
    "get_world_size": (),
    "barrier": (),
    "all_reduce": ("tensor",),
    "broadcast": ("tensor", 0),
}


def _args(lib, args):
    return [lib.ones(2) if a == "tensor" else a for a in args]


@pytest.mark.parametrize("name", sorted(NEEDS_A_GROUP))
def test_calls_that_need_a_group_raise_as_torch(name):
    messages = []
    for lib in (jtensor, torch):
        with pytest.raises(ValueError) as info:
            getattr(lib.distributed, name)(*_args(lib, NEEDS_A_GROUP[name]))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_questions_get_their_answers():
    for lib in (jtensor, torch):
        assert lib.distributed.is_initialized() is False
        assert not isinstance(lib.ones(1), lib.distributed.rpc.api.RRef)
        assert lib.distributed.rpc.RRef is lib.distributed.rpc.api.RRef
        assert lib.distributed.ReduceOp.SUM != lib.distributed.ReduceOp.MAX
    # jtensor has no backend at all (PyTorch's CPU build has gloo): guarded code skips it
    assert jtensor.distributed.is_available() is False
    assert jtensor.distributed.rpc.is_available() is False


def test_starting_a_group_or_an_rref_is_refused_clearly():
    with pytest.raises(RuntimeError, match="no distributed backend.*single process"):
        jtensor.distributed.init_process_group("gloo", world_size=1, rank=0)
    messages = []
    for lib in (jtensor, torch):
        with pytest.raises(RuntimeError) as info:
            lib.distributed.rpc.RRef(1)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
