"""Specs of the window functions (``_ops/windows.py``): hann, hamming, bartlett, blackman
and kaiser windows, periodic and symmetric, every floating dtype, PyTorch's errors."""

from tests.harness.conformance import Case, OpSpec

_LOW = {"atol": 2e-2, "rtol": 2e-2}  # float16/bfloat16: each step rounds (a few ulps)


def _cases(name, *extra):
    def w(*args, **kwargs):
        return lambda lib: getattr(lib, name)(*args, **kwargs)

    return [
        Case(w(8), name="default"),
        Case(w(8, False), name="symmetric"),
        Case(w(9, periodic=True, dtype=None), name="odd"),
        Case(w(64, dtype="double"), name="float64-64"),
        Case(w(7, False, dtype="double"), name="float64-symmetric"),
        Case(w(0), name="empty"),
        Case(w(1), name="one"),
        Case(w(2, False), name="two-symmetric"),
        Case(w(1, dtype="double"), name="one-double"),
        Case(w(1000), name="long", atol=1e-5),
        Case(w(16, dtype="half"), name="half", **_LOW),
        Case(w(16, False, dtype="bfloat16"), name="bfloat16", **_LOW),
        Case(w(5, requires_grad=True), name="requires_grad"),
        Case(w(5, dtype="long"), name="int-error"),
        Case(w(5, dtype="cfloat"), name="complex-error"),
        Case(w(-1), name="negative-error"),
        Case(w(5.0), name="float-length-error"),
        Case(w(5, layout="sparse_coo"), name="sparse-error"),
        Case(w(5, device=None, layout="strided"), name="device-layout"),
        Case(lambda lib: getattr(lib, name)(lib.tensor(4)), name="0d-tensor-length"),
        *extra,
    ]


def _named_dtypes(cases):
    """Resolve dtype/layout names inside the case's own library."""
    out = []
    for c in cases:
        run = c.run

        def resolved(lib, run=run):
            return run(_Lib(lib))

        out.append(Case(resolved, name=c.name, atol=c.atol, rtol=c.rtol))
    return out


class _Lib:
    """``lib`` whose functions read a dtype or layout given by name as ``lib.<name>``."""

    def __init__(self, lib):
        self._lib = lib

    def __getattr__(self, attr):
        target = getattr(self._lib, attr)
        if not callable(target) or attr == "tensor":
            return target

        def call(*args, **kwargs):
            for key in ("dtype", "layout"):
                if isinstance(kwargs.get(key), str):
                    kwargs[key] = getattr(self._lib, kwargs[key])
            return target(*args, **kwargs)

        return call


SPECS = [
    OpSpec("hann_window", _named_dtypes(_cases("hann_window"))),
    OpSpec(
        "hamming_window",
        _named_dtypes(
            _cases(
                "hamming_window",
                Case(lambda lib: lib.hamming_window(10, True, 0.3), name="alpha"),
                Case(
                    lambda lib: lib.hamming_window(10, False, 0.3, 0.2, dtype=lib.float64),
                    name="alpha-beta",
                ),
                Case(lambda lib: lib.hamming_window(5, alpha=0.3), name="alpha-keyword-error"),
            )
        ),
    ),
    OpSpec("bartlett_window", _named_dtypes(_cases("bartlett_window"))),
    OpSpec("blackman_window", _named_dtypes(_cases("blackman_window"))),
    OpSpec(
        "kaiser_window",
        _named_dtypes(
            _cases(
                "kaiser_window",
                Case(lambda lib: lib.kaiser_window(10, False, 3.5), name="beta"),
                Case(
                    lambda lib: lib.kaiser_window(33, True, 0.0, dtype=lib.float64), name="beta-0"
                ),
                Case(lambda lib: lib.kaiser_window(12, beta=5.0), name="beta-keyword-error"),
                Case(
                    lambda lib: lib.kaiser_window(20, True, 50.0, dtype=lib.float64),
                    name="large-beta",
                ),
            )
        ),
    ),
]
