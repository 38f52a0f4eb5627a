"""A seeded sweep: every element-wise op, on random dtypes and layouts, against PyTorch.

The specs test each op with hand-picked cases; this sweep adds breadth: transposed, strided
and expanded operands, bool and float16 inputs, and odd argument types in second position.
"""

import random

import pytest

import jtensor
from jtensor._registry import OPS

from tests.harness.conformance import Case, T, arr, compare, run_case, torch

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

LAYOUTS = {
    "plain": lambda t: t,
    "transposed": lambda t: t.t(),
    "strided": lambda t: t[:, ::2],
    "expanded": lambda t: t[:1].expand(3, 4),
}
DTYPES = ("float32", "float64", "int64", "bool", "float16")
NAMES = sorted(name for name, op in OPS.items() if op.kind == "elementwise")


# float16 inputs that PyTorch turns into complex32 (ComplexHalf), a dtype jtensor does not
# have: jtensor refuses them with a RuntimeError that says so (tested with the op's spec).
NO_FLOAT16 = {"complex", "polar"}


def _cases(name):
    rng = random.Random(name)  # the same draws every run, different for each op
    for _ in range(4):
        dtype = rng.choice(DTYPES)
        if dtype == "float16" and name in NO_FLOAT16:
            dtype = "float32"
        first, second = rng.choice(list(LAYOUTS)), rng.choice(list(LAYOUTS))
        seed = rng.randrange(1000)

        def make(lib, dtype=dtype, first=first, second=second, seed=seed):
            a = LAYOUTS[first](T(lib, arr(4, 4, dtype=dtype, seed=seed, low=-3, high=4))[:3])
            b = LAYOUTS[second](T(lib, arr(4, 4, dtype=dtype, seed=seed + 1, low=1, high=4))[:3])
            return a, b

        tolerance = dict(atol=1e-3, rtol=1e-3) if dtype == "float16" else {}
        for arity in (1, 2):
            def run(lib, a, b, arity=arity):
                function = getattr(lib, name)
                return function(a) if arity == 1 else function(a, b)

            yield f"{dtype}-{first}-{second}-{arity}", Case(run, make=make, **tolerance)


@pytest.mark.skipif(torch is None, reason="needs the PyTorch oracle")
@pytest.mark.parametrize("name", [n for n in NAMES if torch is None or hasattr(torch, n)])
def test_elementwise_op_on_random_layouts(name):
    compared = 0
    for label, case in _cases(name):
        _, mine = run_case(jtensor, case)
        _, theirs = run_case(torch, case)
        compare(mine, theirs, case, where=f"{name}[{label}]")
        compared += 1
    assert compared == 8
