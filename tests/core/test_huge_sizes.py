"""Extreme sizes never leak NumPy's exceptions: every factory and a sample of ops that
allocate fail as PyTorch does (``RuntimeError`` from the allocator or the storage-size check,
``TypeError`` for a size past int64), with the bytes or sizes in the message."""

import pytest

import jtensor

torch = pytest.importorskip("torch")

HUGE = 2 ** 40        # 4 TiB of uint8: no machine running the suite has it, none is touched
CASES = {
    "empty": lambda t: t.empty(HUGE, dtype=t.uint8),
    "empty-float64": lambda t: t.empty(HUGE, dtype=t.float64),
    "empty-overflow": lambda t: t.empty(2 ** 62),
    "empty-overflow-3d": lambda t: t.empty(2 ** 31, 2 ** 31, 4),
    "empty-overflow-itemsize": lambda t: t.empty(2 ** 61, dtype=t.float64),
    "empty-past-int64": lambda t: t.empty(2 ** 63),
    "zeros": lambda t: t.zeros(HUGE),
    "ones-2d": lambda t: t.ones(2 ** 20, 2 ** 20),
    "full": lambda t: t.full((HUGE,), 1.0),
    "rand": lambda t: t.rand(HUGE),
    "randn": lambda t: t.randn(HUGE),
    "randint": lambda t: t.randint(0, 5, (HUGE,)),
    "arange": lambda t: t.arange(HUGE),
    "eye": lambda t: t.eye(2 ** 21),
    "new-zeros": lambda t: t.ones(2).new_zeros(HUGE),
    "empty-like-expanded": lambda t: t.ones(1).expand(HUGE).contiguous(),
    "repeat": lambda t: t.ones(3).repeat(HUGE),
    "tile": lambda t: t.ones(3).tile(HUGE),
    "expand-mismatch": lambda t: t.ones(3).expand(HUGE).contiguous(),
    "negative": lambda t: t.empty(-1),
    "outer": lambda t: t.outer(t.ones(1).expand(2 ** 21), t.ones(1).expand(2 ** 21)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_extreme_sizes_raise_pytorchs_exception_types(name):
    raised = []
    for lib in (jtensor, torch):
        with pytest.raises(Exception) as info:   # noqa: PT011 (the type is compared below)
            CASES[name](lib)
        raised.append(info.value)
    mine, theirs = raised
    assert type(mine) is type(theirs), (name, mine, theirs)
    assert type(mine).__module__ == "builtins"
    # randint draws its 32-bit random words before the int64 result exists: the first
    # allocation to fail is half the size of PyTorch's (the error is the same kind).
    if "allocate" in str(theirs) and name != "randint":
        assert str(mine).split("DefaultCPUAllocator: ")[1].split(" Error")[0] == \
            str(theirs).split("DefaultCPUAllocator: ")[1].split(" Error")[0]
    if "overflowed with sizes" in str(theirs):
        assert str(mine) == str(theirs)
