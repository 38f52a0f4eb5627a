"""Specs of the Python-callback in-place ops ``Tensor.apply_`` and ``Tensor.map_``
(``_ops/callbacks.py``)."""

import math

from tests.harness.conformance import OpSpec
from .spec_selection import case, mk


def no_grad(lib, f):
    with lib.no_grad():
        return f()


SPECS = [
    OpSpec("apply_", [
        case(lambda lib, a: a.apply_(lambda v: v * 2 + 1), mk((3, 4)), "float"),
        case(lambda lib, a: a.apply_(lambda v: v * 2.7), mk((3, 4), dtype="int64"),
             "int-truncates"),
        case(lambda lib, a: a.apply_(lambda v: v > 0), mk((3, 4)), "bool-result"),
        case(lambda lib, a: (a.t().apply_(lambda v: -v), a)[1], mk((3, 4)), "through-view"),
        case(lambda lib, a: a.apply_(lambda v: math.floor(v)), mk((3, 4), dtype="float64"),
             "float64"),
        # A tensor that requires grad is refused, even under no_grad; detach() first.
        case(lambda lib, a: a.requires_grad_().apply_(lambda v: v), mk((3, 4)),
             "requires-grad-error"),
        case(lambda lib, a: no_grad(lib, lambda: a.requires_grad_().apply_(lambda v: v)),
             mk((3, 4)), "requires-grad-no-grad-error"),
        case(lambda lib, a: (a.requires_grad_() * 2).apply_(lambda v: v), mk((3, 4)),
             "non-leaf-requires-grad-error"),
        case(lambda lib, a: a.requires_grad_().detach().apply_(lambda v: v + 1), mk((3, 4)),
             "detached"),
    ]),
    OpSpec("map_", [
        case(lambda lib, a, b: a.map_(b, lambda x, y: x * y + 1), mk((3, 4), (3, 4)), "same"),
        case(lambda lib, a, b: a.map_(other=b, callable=lambda x, y: x * y), mk((3, 4), (4,)),
             "keywords"),
        case(lambda lib, a, b: a.map_(tensor=b, callable=lambda x, y: x * y), mk((3, 4), (4,)),
             "tensor-keyword-error"),
        case(lambda lib, a, b: a.map_(b, lambda x, y: x - y), mk((3, 4), (4,)), "broadcast"),
        case(lambda lib, a, b: a.map_(b, lambda x, y: max(x, y)), mk((3, 4), (3, 4),
                                                                     dtype="int64"), "int"),
        case(lambda lib, a, b: a.map_(b, lambda x, y: x + y), mk((3, 4), (2, 4)),
             "broadcast-error"),
        case(lambda lib, a, b: a.map_(b.double(), lambda x, y: x + y), mk((3, 4), (4,)),
             "dtype-error"),
        # self or tensor requiring grad is refused, even under no_grad.
        case(lambda lib, a, b: a.requires_grad_().map_(b, lambda x, y: x + y),
             mk((3, 4), (4,)), "self-requires-grad-error"),
        case(lambda lib, a, b: a.map_(b.requires_grad_(), lambda x, y: x + y),
             mk((3, 4), (4,)), "tensor-requires-grad-error"),
        case(lambda lib, a, b: no_grad(lib, lambda: a.map_(b.requires_grad_(),
                                                           lambda x, y: x + y)),
             mk((3, 4), (4,)), "tensor-requires-grad-no-grad-error"),
        case(lambda lib, a, b: a.map_(b.requires_grad_().double(), lambda x, y: x + y),
             mk((3, 4), (4,)), "requires-grad-before-dtype-error"),
        case(lambda lib, a, b: a.map_(b.requires_grad_().detach(), lambda x, y: x * y),
             mk((3, 4), (4,)), "detached-tensor"),
    ]),
]
