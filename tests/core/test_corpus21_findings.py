"""What the twenty-first corpus of teaching programs found (each compared with PyTorch):
``autograd.function.InplaceFunction`` (BinaryNet), the deprecated number-first overloads
given a 0-dim tensor as the number (DARTS' ``p.data.add_(R, v)``), the legacy sparse
constructors keeping the values' dtype (powerful-GNNs), and where warnings point (Glow, the
growing cellular automata, LSTNet, Grad-CAM)."""

import os
import subprocess
import sys
import warnings

import pytest

import jtensor

torch = pytest.importorskip("torch")

LIBS = [jtensor, torch]


def _outcome(fn):
    """The result (as a list) or the exception's type name of ``fn()``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn()
    except Exception as e:  # noqa: BLE001 (the outcome is compared)
        return type(e).__name__
    return (r.tolist(), str(r.dtype).split(".")[-1]) if hasattr(r, "tolist") else r


# ------------------------------------------------------------------ InplaceFunction
def _scale_fn(lib):
    from_function = lib.autograd.function

    class Scale(from_function.InplaceFunction):
        @staticmethod
        def forward(ctx, x, inplace=False):
            if inplace:
                ctx.mark_dirty(x)
                return x.mul_(3)
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return g * 3, None

    return Scale


@pytest.mark.parametrize("inplace", [False, True])
def test_inplace_function_subclass(inplace):
    seen = []
    for lib in LIBS:
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        y = _scale_fn(lib).apply(x.clone(), inplace)
        y.sum().backward()
        seen.append((y.tolist(), type(y.grad_fn).__name__, x.grad.tolist()))
    assert seen[0] == seen[1]
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            f = lib.autograd.function.InplaceFunction(inplace=True)
            assert f.inplace is True
            assert lib.autograd.function.InplaceFunction().inplace is False


def test_nested_io_function_is_importable_but_legacy():
    from jtensor.autograd.function import NestedIOFunction

    assert issubclass(NestedIOFunction, jtensor.autograd.Function)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        f = NestedIOFunction()
    with pytest.raises(RuntimeError, match="Legacy autograd function"):
        f(jtensor.ones(2))


# ---------------------------------------- deprecated overloads with a 0-dim tensor
CALLS = {
    "add_(R, v)": lambda lib, p, v: p.add_(lib.tensor(0.5), v),
    "sub_(R, v)": lambda lib, p, v: p.sub_(lib.tensor(1.0), v),
    "add(R, v)": lambda lib, p, v: p.add(lib.tensor(0.5), v),
    "sub(R, v)": lambda lib, p, v: p.sub(lib.tensor(0.5), v),
    "add(int R, v)": lambda lib, p, v: p.add(lib.tensor(2), v),
    "addcmul(R, v, v)": lambda lib, p, v: p.addcmul(lib.tensor(0.5), v, v),
    "addcdiv_(R, v, v + 1)": lambda lib, p, v: p.addcdiv_(lib.tensor(0.5), v, v + 1),
    "1-element 1-d R": lambda lib, p, v: p.add(lib.tensor([0.5]), v),
    "R requiring grad": lambda lib, p, v: p.add(lib.tensor(0.5, requires_grad=True), v),
    "bool R": lambda lib, p, v: p.add(lib.tensor(True), v),
    "float R, int tensors": lambda lib, p, v: p.long().add(lib.tensor(0.5), v.long()),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_zero_dim_tensor_as_the_deprecated_number(name):
    got = [_outcome(lambda lib=lib: CALLS[name](lib, lib.ones(3), lib.arange(3.0))) for lib in LIBS]
    assert got[0] == got[1]


def test_zero_dim_tensor_beta_and_alpha_of_addmm():
    for beta_alpha in ((2.0,), (2.0, 0.5)):
        got = []
        for lib in LIBS:
            numbers = [lib.tensor(b) for b in beta_alpha]
            m = lib.ones(3, 3)
            got.append(
                _outcome(
                    lambda m=m, lib=lib, numbers=numbers: m.addmm_(
                        *numbers, lib.ones(3, 2), lib.ones(2, 3)
                    )
                )
            )
        assert got[0] == got[1]


# ------------------------------------------------------- legacy sparse constructors
@pytest.mark.parametrize("ctor", ["FloatTensor", "DoubleTensor", "LongTensor"])
@pytest.mark.parametrize("dtype", ["float64", "int64", "float32", "bool"])
def test_legacy_sparse_constructor_keeps_the_values_dtype(ctor, dtype):
    got = []
    for lib in LIBS:
        i = lib.tensor([[0, 1], [1, 0]])
        values = lib.ones(2, dtype=getattr(lib, dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = getattr(lib.sparse, ctor)(i, values, lib.Size([2, 2]))
            empty = getattr(lib.sparse, ctor)(2, 3)
        got.append(
            (
                str(s.dtype).split(".")[-1],
                s.to_dense().tolist(),
                str(empty.dtype).split(".")[-1],
                tuple(empty.shape),
            )
        )
    assert got[0] == got[1]


def test_legacy_sparse_float64_values_multiply_float64_dense():
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = lib.sparse.FloatTensor(lib.tensor([[0, 1], [1, 0]]), lib.ones(2, dtype=lib.float64))
        assert str(lib.spmm(s, lib.ones(2, 1, dtype=lib.float64)).dtype).endswith("float64")


def test_legacy_sparse_constructor_refuses_a_list_of_values():
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(TypeError):
                lib.sparse.FloatTensor(lib.tensor([[0, 1], [1, 0]]), [1.0, 2.0], (2, 2))


# --------------------------------------------------------------- where warnings point
WARNERS = {
    "torch.qr (deprecated)": lambda lib: lib.qr(lib.eye(3)),
    "mse_loss target size": lambda lib: lib.nn.functional.mse_loss(lib.ones(4, 2), lib.ones(1, 2)),
    "size_average (module)": lambda lib: lib.nn.MSELoss(size_average=False),
    "size_average (functional)": lambda lib: lib.nn.functional.l1_loss(
        lib.ones(2), lib.ones(2), size_average=False
    ),
    "non-full backward hook": lambda lib: _non_full_hook(lib),
}


def _non_full_hook(lib):
    m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.register_backward_hook(lambda *a: None)
    m(lib.ones(1, 2, requires_grad=True)).sum().backward()


@pytest.mark.parametrize("name", list(WARNERS))
def test_a_warning_points_where_pytorchs_does(name):
    # The user's line (PyTorch's C++ warnings, and Python ones with a stacklevel reaching
    # out) or a line of the library: that decides how often Python's default filter shows it.
    at_user = []
    for lib in LIBS:
        if lib is jtensor and name == "torch.qr (deprecated)":
            jtensor._ops.linalg._WARNED.discard("qr")  # (once a process)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            WARNERS[name](lib)
        relevant = [x for x in w if not issubclass(x.category, DeprecationWarning)]
        if not relevant and lib is torch and name == "torch.qr (deprecated)":
            at_user.append(_torch_qr_warns_at_the_callers_line())
            continue
        assert relevant, name
        at_user.append(os.path.abspath(relevant[0].filename) == os.path.abspath(__file__))
    assert at_user[0] == at_user[1]


def _torch_qr_warns_at_the_callers_line():
    """PyTorch's ``torch.qr`` warns once a process: asked in a fresh one when this process
    has had its warning already."""
    script = (
        "import warnings, torch\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    torch.qr(torch.eye(3))\n"
        "print(w[0].filename)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return out.stdout.strip() == "<string>"


def test_library_attributed_warnings_show_once_under_the_default_filter():
    counts = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("default")
            lib.nn.L1Loss(size_average=False)
            lib.nn.MSELoss(size_average=False)
            lib.nn.L1Loss(size_average=False)
            for _ in range(2):
                _non_full_hook(lib)
                _non_full_hook(lib)
        counts.append(sorted(type(x.message).__name__ for x in w))
    assert counts[0] == counts[1]
