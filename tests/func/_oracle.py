"""The one comparison the torch.func tests share: a case run with jtensor and with PyTorch,
everything observable compared (``tests/harness/conformance.py``), strides left out
(transforms' outputs may be laid out differently)."""

import jtensor
from tests.harness.conformance import Case, compare, run_case


def check_against_torch(torch, run, make, **tolerance):
    """Run ``run(lib, *make(lib))`` in both libraries and compare the results."""
    case = Case(
        run, make if make is not None else (lambda lib: ()), check_stride=False, **tolerance
    )
    _, mine = run_case(jtensor, case)
    _, theirs = run_case(torch, case)
    compare(mine, theirs, case)
