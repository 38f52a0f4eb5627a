"""Gradient specs: every differentiable op is checked by finite differences and against
PyTorch; every other op that can see a tensor requiring grad is declared non-differentiable.

A spec module ``tests/grad_specs/grad_<family>.py`` defines ``GRADS``, a list of:

- ``G(op, fn, shapes, ...)``: ``fn(lib, *inputs)`` calls the op (``lib`` is jtensor or
  torch); ``shapes`` gives one float64 input requiring grad per shape, filled with seeded
  random values in ``(low, high)``. ``make(lib, rng)`` instead returns the inputs
  (tensors made with ``lib.tensor(..., dtype=lib.float64, requires_grad=True)``; plain
  values pass through). Every case is also checked to second order (gradgradcheck) unless
  it opts out with ``no_second="<reason>"``: only where PyTorch's own gradgradcheck fails
  or raises on the same case (a tie or kink at the case's points, a derivative PyTorch does
  not implement), and the reason says which (an error of PyTorch's is quoted in double
  quotes; ``tests/autograd/test_gradients.py`` checks each reason against PyTorch).
  ``second=False`` without a reason is the old spelling and fails that test.
  ``variants``: also check with a non-contiguous leaf, an expanded input and an overlapping
  view (turn off for ops that write into their input). ``torch``: compare the gradient
  values and the ``grad_fn`` name with PyTorch. ``eps``: the finite-difference step (larger
  where an input or output is float32, whose rounding would swamp a 1e-6 step).
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
    second: bool = True  # old spelling of the opt-out: False needs ``no_second``
    variants: bool = True
    torch: bool = True
    atol: float = 1e-5
    rtol: float = 1e-3
    name: str = None  # expected grad_fn class name when torch is not installed
    no_second: str = None  # why second derivatives are not checked (see the docstring)
    eps: float = 1e-6

    @property
    def checks_second(self):
        """Whether gradgradcheck runs on this case."""
        return self.second and self.no_second is None


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


def second_order_coverage(cases):
    """The gradgradcheck coverage of gradient specs ``cases`` (the ``G`` entries):
    ``(checked, differentiable, opt_outs)`` where ``differentiable`` is the set of op names
    with a case, ``checked`` those with at least one case checked to second order, and
    ``opt_outs`` maps each opt-out reason to the ops (with their case counts) giving it."""
    differentiable = {c.op for c in cases}
    checked = {c.op for c in cases if c.checks_second}
    opt_outs = {}
    for c in cases:
        if not c.checks_second:
            ops = opt_outs.setdefault(c.no_second or "(no reason given)", {})
            ops[c.op] = ops.get(c.op, 0) + 1
    return checked, differentiable, opt_outs


def coverage_report(cases):
    """``second_order_coverage`` as text: the figure, then the opt-outs grouped by reason."""
    checked, differentiable, opt_outs = second_order_coverage(cases)
    n_out = sum(n for ops in opt_outs.values() for n in ops.values())
    lines = [
        f"gradgradcheck coverage: {len(checked)}/{len(differentiable)} differentiable ops "
        f"({100 * len(checked) / max(len(differentiable), 1):.1f}%) have second derivatives "
        f"checked; {len(cases) - n_out}/{len(cases)} cases checked to second order",
        f"ops never checked to second order: {sorted(differentiable - checked) or 'none'}",
        f"{n_out} cases opt out:",
    ]
    for reason, ops in sorted(opt_outs.items()):
        listed = ", ".join(f"{op} x{n}" if n > 1 else op for op, n in sorted(ops.items()))
        lines.append(f"- {reason}\n    {listed}")
    return "\n".join(lines)


if __name__ == "__main__":  # python -m tests.harness.gradients: the coverage figure
    # The spec modules import this module under its package name, not as __main__.
    from tests.harness import gradients

    print(gradients.coverage_report(
        [s for s in gradients.load_specs() if isinstance(s, gradients.G)]))
