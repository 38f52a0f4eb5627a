"""The shared test harness: how a test compares jtensor with PyTorch.

- ``conformance``: ``OpSpec``/``Case`` and ``run_case``/``compare``, the op-by-op comparison
  with PyTorch (values, dtype, shape, strides, offset, sharing, exception types) that the specs
  in ``tests/specs/`` use.
- ``gradients``: ``G``/``NonDiff`` gradient specs (``tests/grad_specs/``), float64 gradcheck and
  gradgradcheck, ``grad_fn`` names against PyTorch.
- ``training``: copying weights between jtensor and PyTorch modules and comparing training.
"""
