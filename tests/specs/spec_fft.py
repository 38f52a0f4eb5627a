"""Specs of ``torch.fft`` (``jtensor/_ops/spectral.py``): values, result dtypes (complex64 from
float32 and integer inputs, complex128 from float64), PyTorch's CPU result strides (batch dims
by input stride, transformed dims innermost), ``n``/``s``/``dim``/``norm``, ``out=`` and the
errors. PyTorch hands ``ifft``/``ihfft`` of a real input back as a conjugate view; those
cases resolve it (``resolve_conj``) so both sides compare plain values."""

from tests.harness.conformance import Case, OpSpec, T, arr

F32 = {"atol": 1e-4, "rtol": 1e-4}
F64 = {"atol": 1e-10, "rtol": 1e-9}


def real(*shape, dtype="float32", seed=0):
    return lambda lib: (T(lib, arr(*shape, dtype=dtype, seed=seed)),)


def cplx(*shape, dtype="complex128"):
    def make(lib):
        data = arr(*shape, dtype="float64") + 1j * arr(*shape, dtype="float64", seed=1)
        return (T(lib, data.astype(dtype)),)

    return make


def permuted(*shape, order, dtype="float64"):
    return lambda lib: (T(lib, arr(*shape, dtype=dtype)).permute(*order),)


def ints(lib):
    return (lib.arange(12).reshape(3, 4),)


def c(run, make, name, **kw):
    tol = F64 if "float64" in name or "complex128" in name else F32
    return Case(run, make=make, name=name, **{**tol, **kw})


def one_d_cases(name, real_only=False, resolve=False):
    """Cases of a 1-d transform ``torch.fft.<name>`` (``real_only``: it refuses complex)."""

    def f(lib, x, **kw):
        y = getattr(lib.fft, name)(x, **kw)
        return y.resolve_conj() if resolve and y.is_complex() else y

    cases = [
        c(lambda lib, x: f(lib, x), real(3, 8), "float32"),
        c(lambda lib, x: f(lib, x), real(3, 8, dtype="float64"), "float64"),
        c(lambda lib, x: f(lib, x), cplx(3, 8), "complex128"),
        c(lambda lib, x: f(lib, x), cplx(3, 8, dtype="complex64"), "complex64"),
        c(lambda lib, x: f(lib, x, dim=0), real(5, 4, 3, dtype="float64"), "dim0-float64"),
        c(lambda lib, x: f(lib, x, dim=1, n=3), cplx(4, 6, 5), "cut-complex128"),
        c(
            lambda lib, x: f(lib, x, n=11, norm="ortho"),
            real(2, 7, dtype="float64"),
            "pad-ortho-float64",
        ),
        c(lambda lib, x: f(lib, x, norm="forward"), cplx(2, 7), "forward-complex128"),
        c(lambda lib, x: f(lib, x, norm="backward"), real(6), "backward"),
        c(lambda lib, x: f(lib, x, dim=0), permuted(4, 6, 5, order=(2, 0, 1)), "permuted-float64"),
        c(lambda lib, x: f(lib, x, n=1), permuted(4, 6, 5, order=(2, 0, 1)), "size1-float64"),
        c(lambda lib, x: f(lib, x), ints, "int-to-complex64"),
        c(lambda lib, x: f(lib, x, norm="bad"), real(4), "bad-norm"),
        c(lambda lib, x: f(lib, x, n=0), real(4), "n0"),
        c(lambda lib, x: f(lib, x, dim=2), real(3, 4), "dim-out-of-range"),
        c(lambda lib, x: f(lib, x), lambda lib: (lib.tensor(1.0),), "zero-dim"),
        c(lambda lib, x: f(lib, x), real(4, 6, dtype="float16"), "float16-refused"),
        c(lambda lib, x: f(lib, [1.0, 2.0]), real(2), "list-refused"),
    ]
    if real_only:
        cases = [cs for cs in cases if "complex" not in cs.name]
        cases.append(c(lambda lib, x: f(lib, x), cplx(3, 4), "complex-refused"))
    return cases


def with_out(name, out_dtype, make, label):
    def run(lib, x):
        return getattr(lib.fft, name)(x, out=lib.empty(0, dtype=getattr(lib, out_dtype)))

    return c(run, make, label)


def nd_cases(name, two=False, resolve=False):
    """Cases of an n-d transform ``torch.fft.<name>`` (``two``: the 2-d form)."""

    def f(lib, x, **kw):
        y = getattr(lib.fft, name)(x, **kw)
        return y.resolve_conj() if resolve and y.is_complex() else y

    cases = [
        c(lambda lib, x: f(lib, x), real(3, 4, 6), "float32"),
        c(lambda lib, x: f(lib, x), real(3, 4, 6, dtype="float64"), "float64"),
        c(
            lambda lib, x: f(lib, x, dim=(1, 0)),
            real(4, 6, 5, dtype="float64"),
            "dims-reversed-float64",
        ),
        c(
            lambda lib, x: f(lib, x, dim=(0, 2)),
            permuted(4, 6, 5, order=(1, 2, 0)),
            "permuted-float64",
        ),
        c(
            lambda lib, x: f(lib, x, s=(3, 8)),
            real(4, 6, 5, dtype="float64"),
            "cut-and-pad-float64",
        ),
        c(
            lambda lib, x: f(lib, x, s=(-1, 4), dim=(0, -1), norm="ortho"),
            real(4, 6, 5, dtype="float64"),
            "keep-size-ortho-float64",
        ),
        c(lambda lib, x: f(lib, x, norm="forward"), real(4, 6, dtype="float64"), "forward-float64"),
        c(lambda lib, x: f(lib, x, dim=(0, 0)), real(4, 6), "repeated-dims"),
        c(lambda lib, x: f(lib, x, s=(3,), dim=(0, 1)), real(4, 6), "s-dim-mismatch"),
        c(lambda lib, x: f(lib, x, s=(0, 3)), real(4, 6), "s0"),
        c(lambda lib, x: f(lib, x, s=(2, 3, 4)), real(4, 6), "s-too-long"),
        c(lambda lib, x: f(lib, x), ints, "int-to-complex64"),
        c(lambda lib, x: f(lib, x), real(4, 6, dtype="float16"), "float16-refused"),
        c(lambda lib, x: f(lib, x, norm="bad"), real(4, 6), "bad-norm"),
    ]
    if not two:
        cases += [
            c(lambda lib, x: f(lib, x, dim=2), real(3, 4, 5, dtype="float64"), "one-dim-float64"),
            c(lambda lib, x: f(lib, x), real(2, 3, 4, 5, dtype="float64"), "4d-float64"),
        ]
    else:
        cases.append(c(lambda lib, x: f(lib, x), real(4), "one-dim-input"))
    return cases


def complex_input_cases(name, resolve=False):
    def f(lib, x, **kw):
        y = getattr(lib.fft, name)(x, **kw)
        return y.resolve_conj() if resolve and y.is_complex() else y

    return [
        c(lambda lib, x: f(lib, x), cplx(3, 4, 6), "complex128-input"),
        c(
            lambda lib, x: f(lib, x, dim=(0, 2)),
            cplx(4, 6, 5, dtype="complex64"),
            "complex64-input",
        ),
    ]


def freq_cases(name):
    def f(lib, *a, **kw):
        return getattr(lib.fft, name)(*a, **kw)

    return [
        c(lambda lib: f(lib, 5), None, "odd"),
        c(lambda lib: f(lib, 6, 0.1), None, "even-spacing"),
        c(lambda lib: f(lib, 7, 0.3, dtype=lib.float64), None, "float64"),
        c(lambda lib: f(lib, 7, 0.3, dtype=lib.float16), None, "float16", atol=1e-3),
        c(lambda lib: f(lib, 0), None, "empty"),
        c(lambda lib: f(lib, 4, 0), None, "zero-spacing"),
        c(lambda lib: f(lib, 4, requires_grad=True), None, "requires-grad"),
        c(lambda lib: f(lib, 4, out=lib.empty(0)), None, "out"),
        c(lambda lib: f(lib, 5, dtype=lib.int64), None, "int-refused"),
        c(lambda lib: f(lib, -1), None, "negative-n"),
    ]


SPECS = [
    OpSpec(
        "fft_fft",
        one_d_cases("fft")
        + [
            with_out("fft", "complex64", real(3, 4), "out"),
            with_out("fft", "complex128", real(3, 4), "out-wider"),
            with_out("fft", "float32", real(3, 4), "out-real-refused"),
            c(lambda lib, x: lib.fft.fft(x), real(0, 4), "empty-batch-refused"),
        ],
    ),
    OpSpec("fft_ifft", one_d_cases("ifft", resolve=True)),
    OpSpec(
        "fft_rfft",
        one_d_cases("rfft", real_only=True)
        + [
            with_out("rfft", "complex64", real(3, 4), "out"),
        ],
    ),
    OpSpec(
        "fft_irfft",
        one_d_cases("irfft")
        + [
            c(lambda lib, x: lib.fft.irfft(x), real(4, 1), "default-n-zero"),
            with_out("irfft", "float32", cplx(3, 4, dtype="complex64"), "out"),
            with_out("irfft", "complex64", real(3, 4), "out-complex-refused"),
        ],
    ),
    OpSpec("fft_hfft", one_d_cases("hfft")),
    OpSpec("fft_ihfft", one_d_cases("ihfft", real_only=True, resolve=True)),
    OpSpec(
        "fft_fft2",
        nd_cases("fft2", two=True)
        + complex_input_cases("fft2")
        + [
            with_out("fft2", "float32", real(3, 4), "out-real-refused"),
        ],
    ),
    OpSpec("fft_ifft2", nd_cases("ifft2", two=True) + complex_input_cases("ifft2")),
    OpSpec(
        "fft_fftn",
        nd_cases("fftn")
        + complex_input_cases("fftn")
        + [
            c(
                lambda lib, x: lib.fft.fftn(x, dim=()),
                permuted(4, 6, 5, order=(2, 0, 1)),
                "no-dims-float64",
            ),
            c(lambda lib, x: lib.fft.fftn(x), lambda lib: (lib.tensor(2.0),), "zero-dim"),
            with_out("fftn", "complex64", real(3, 4), "out"),
        ],
    ),
    OpSpec("fft_ifftn", nd_cases("ifftn") + complex_input_cases("ifftn")),
    OpSpec(
        "fft_rfft2",
        nd_cases("rfft2", two=True)
        + [
            c(lambda lib, x: lib.fft.rfft2(x), cplx(3, 4), "complex-refused"),
        ],
    ),
    OpSpec(
        "fft_rfftn",
        nd_cases("rfftn")
        + [
            c(lambda lib, x: lib.fft.rfftn(x), cplx(3, 4), "complex-refused"),
        ],
    ),
    OpSpec("fft_irfft2", nd_cases("irfft2", two=True) + complex_input_cases("irfft2")),
    OpSpec(
        "fft_irfftn",
        nd_cases("irfftn")
        + complex_input_cases("irfftn")
        + [
            c(lambda lib, x: lib.fft.irfftn(x), lambda lib: (lib.tensor(2.0),), "zero-dim-refused"),
            with_out("irfftn", "float64", cplx(3, 4), "out"),
        ],
    ),
    OpSpec("fft_hfft2", nd_cases("hfft2", two=True) + complex_input_cases("hfft2")),
    OpSpec("fft_hfftn", nd_cases("hfftn") + complex_input_cases("hfftn")),
    OpSpec(
        "fft_ihfft2",
        nd_cases("ihfft2", two=True, resolve=True)
        + [
            c(lambda lib, x: lib.fft.ihfft2(x), cplx(3, 4), "complex-refused"),
        ],
    ),
    OpSpec(
        "fft_ihfftn",
        nd_cases("ihfftn", resolve=True)
        + [
            c(lambda lib, x: lib.fft.ihfftn(x), cplx(3, 4), "complex-refused"),
            c(
                lambda lib, x: lib.fft.ihfftn(x, dim=1).resolve_conj(),
                real(3, 4, dtype="float64"),
                "one-dim-float64",
            ),
        ],
    ),
    OpSpec(
        "fft_fftfreq",
        freq_cases("fftfreq")
        + [
            c(lambda lib: lib.fft.fftfreq(5, dtype=lib.complex64), None, "complex-refused"),
            c(lambda lib: lib.fft.fftfreq(4, d=lib.tensor(2.0)), None, "tensor-spacing"),
        ],
    ),
    OpSpec("fft_rfftfreq", freq_cases("rfftfreq")),
]
