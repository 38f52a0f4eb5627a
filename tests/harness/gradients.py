"""Gradient specs: every differentiable op is checked by finite differences and against
PyTorch; every other op that can see a tensor requiring grad is declared non-differentiable.

A spec module ``tests/grad_specs/grad_<family>.py`` defines ``GRADS``, a list of:

- ``G(op, fn, shapes, ...)``: ``fn(lib, *inputs)`` calls the op (``lib`` is jtensor or
  torch); ``shapes`` gives one float64 input requiring grad per shape, filled with seeded
  random values in ``(low, high)``. ``make(lib, rng)`` instead returns the inputs
  (tensors made with ``lib.tensor(..., dtype=lib.float64, requires_grad=True)``; plain
  values pass through). ``second``: also check second derivatives (smooth ops).
  ``variants``: also check with a non-contiguous leaf, an expanded input and an overlapping
  view (turn off for ops that write into their input). ``torch``: compare the gradient
  values and the ``grad_fn`` name with PyTorch.
- ``NonDiff(op, reason)``: the op's outputs never require grad.
"""

from dataclasses import dataclass, field

import numpy as np


@dataclass
class G:
    op: str
    fn: object
    shapes: list = field(default_factory=list)
    make: object = None
    low: float = -2.0
    high: float = 2.0
    second: bool = True
    variants: bool = True
    torch: bool = True
    atol: float = 1e-5
    rtol: float = 1e-3
    name: str = None  # expected grad_fn class name when torch is not installed


@dataclass
class NonDiff:
    op: str
    reason: str


def make_inputs(lib, case, seed, variant=None):
    """The case's inputs for ``lib``; ``variant`` reshapes how the first input is held."""
    rng = np.random.default_rng(seed)
    if case.make is not None:
        return list(case.make(lib, rng)), None
    values = [rng.uniform(case.low, case.high, size=s) for s in case.shapes]
    return [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values], values


def variant_inputs(lib, case, seed, variant):
    """(leaves, wrap) where ``wrap(leaves)`` gives the inputs the op sees."""
    rng = np.random.default_rng(seed)
    values = [rng.uniform(case.low, case.high, size=s) for s in case.shapes]
    first = values[0]
    shape = first.shape
    if variant == "noncontiguous":
        big = np.repeat(first[..., None], 2, axis=-1)
        holder = lib.tensor(big, dtype=lib.float64)
        leaf = holder[..., 0].detach().requires_grad_()
        rest = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values[1:]]
        return [leaf] + rest, lambda ls: ls
    if variant == "expanded":
        small = first[:1]
        leaf = lib.tensor(small, dtype=lib.float64, requires_grad=True)
        rest = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values[1:]]
        return [leaf] + rest, lambda ls: [ls[0].expand(shape)] + ls[1:]
    if variant == "overlapping":
        m, n = shape
        flat = lib.tensor(rng.uniform(case.low, case.high, size=m + n - 1), dtype=lib.float64,
                          requires_grad=True)
        rest = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in values[1:]]
        return [flat] + rest, lambda ls: [ls[0].as_strided((m, n), (1, 1))] + ls[1:]
    raise ValueError(variant)


def variants_of(case):
    if not case.variants or case.make is not None or not case.shapes:
        return []
    shape = case.shapes[0]
    out = []
    if len(shape) >= 1 and shape[-1] > 0:
        out.append("noncontiguous")
    if len(shape) >= 1 and shape[0] > 1:
        out.append("expanded")
    if len(shape) == 2 and all(s > 1 for s in shape):
        out.append("overlapping")
    return out


def load_specs():
    import importlib
    import pkgutil

    from tests import grad_specs

    grads = []
    for info in sorted(pkgutil.iter_modules(grad_specs.__path__), key=lambda i: i.name):
        if info.name.startswith("grad_"):
            module = importlib.import_module(f"tests.grad_specs.{info.name}")
            grads.extend(module.GRADS)
    return grads


def tensors_in(x):
    if isinstance(x, (tuple, list)):
        return [t for item in x for t in tensors_in(item)]
    return [x] if hasattr(x, "grad_fn") else []


def grad_fn_name(t):
    fn = t.grad_fn
    if fn is None:
        return None
    name = fn.name()
    return name.rsplit(".", 1)[-1]
