"""Issue 19: every ``torch.linalg`` function and the top-level linear-algebra aliases on NaN,
Inf, singular and non-positive-definite inputs, against PyTorch: the same values (NaN where
PyTorch gives NaN), the same ``info`` codes for the ``_ex`` variants, and the same exception
type and message where PyTorch raises. NumPy's ``LinAlgError`` never reaches the user."""

import math

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

NAN, INF = math.nan, math.inf

INPUTS = {
    "nan": [[1.0, NAN], [2.0, 3.0]],
    "nan-lower": [[1.0, 2.0], [NAN, 3.0]],
    "all-nan": [[NAN, NAN], [NAN, NAN]],
    "inf": [[1.0, INF], [2.0, 3.0]],
    "singular": [[1.0, 2.0], [2.0, 4.0]],
    "zero": [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
    "not-pd": [[1.0, 2.0], [2.0, 1.0]],
    "batch-singular": [[[1.0, 0, 0], [0, 1, 0], [0, 0, 1]], [[1.0, 0, 0], [0, 0, 0], [0, 0, 1]]],
    "spd": [[4.0, 1.0], [1.0, 3.0]],
}


def _rhs(lib, A):
    return lib.ones(tuple(A.shape[:-1]) + (1,), dtype=A.dtype)


# name -> (call, how to compare). "values": every output; "ex": the info outputs, and the
# values only where info is 0; "eigvals": eigenvalues sorted; "raises": only whether and
# what it raises (the returned values are LAPACK-implementation specific).
CALLS = {
    "linalg.det": (lambda lib, A: lib.linalg.det(A), "values"),
    "det": (lambda lib, A: lib.det(A), "values"),
    "linalg.slogdet": (lambda lib, A: tuple(lib.linalg.slogdet(A)), "values"),
    "logdet": (lambda lib, A: lib.logdet(A), "values"),
    "linalg.inv": (lambda lib, A: lib.linalg.inv(A), "values"),
    "inverse": (lambda lib, A: lib.inverse(A), "values"),
    "linalg.inv_ex": (lambda lib, A: tuple(lib.linalg.inv_ex(A)), "ex"),
    "linalg.solve": (lambda lib, A: lib.linalg.solve(A, _rhs(lib, A)), "values"),
    "linalg.solve_ex": (lambda lib, A: tuple(lib.linalg.solve_ex(A, _rhs(lib, A))), "ex"),
    "linalg.cholesky": (lambda lib, A: lib.linalg.cholesky(A), "values"),
    "linalg.cholesky-upper": (lambda lib, A: lib.linalg.cholesky(A, upper=True), "values"),
    "cholesky": (lambda lib, A: lib.cholesky(A), "values"),
    "linalg.cholesky_ex": (lambda lib, A: tuple(lib.linalg.cholesky_ex(A)), "ex"),
    "linalg.lu_factor": (lambda lib, A: tuple(lib.linalg.lu_factor(A)), "values"),
    "linalg.lu_factor_ex": (lambda lib, A: tuple(lib.linalg.lu_factor_ex(A)), "values"),
    "linalg.lu": (lambda lib, A: tuple(lib.linalg.lu(A)), "values"),
    "linalg.lu_solve": (
        lambda lib, A: lib.linalg.lu_solve(*lib.linalg.lu_factor_ex(A)[:2], _rhs(lib, A)),
        "values",
    ),
    "linalg.eigh": (lambda lib, A: lib.linalg.eigh(A)[0], "values"),
    "linalg.eigvalsh": (lambda lib, A: lib.linalg.eigvalsh(A), "values"),
    "linalg.svd": (lambda lib, A: lib.linalg.svd(A)[1], "values"),
    "linalg.svdvals": (lambda lib, A: lib.linalg.svdvals(A), "values"),
    "linalg.matrix_norm-2": (lambda lib, A: lib.linalg.matrix_norm(A, 2), "values"),
    "linalg.matrix_norm-nuc": (lambda lib, A: lib.linalg.matrix_norm(A, "nuc"), "values"),
    "linalg.pinv": (lambda lib, A: lib.linalg.pinv(A), "values"),
    "linalg.matrix_rank": (lambda lib, A: lib.linalg.matrix_rank(A), "values"),
    "linalg.cond": (lambda lib, A: lib.linalg.cond(A), "values"),
    "linalg.cond-fro": (lambda lib, A: lib.linalg.cond(A, "fro"), "values"),
    "linalg.cond-1": (lambda lib, A: lib.linalg.cond(A, 1), "values"),
    "linalg.matrix_power--1": (lambda lib, A: lib.linalg.matrix_power(A, -1), "values"),
    "linalg.matrix_exp": (lambda lib, A: lib.linalg.matrix_exp(A), "values"),
    "linalg.eig": (lambda lib, A: lib.linalg.eig(A)[0], "eigvals"),
    "linalg.eigvals": (lambda lib, A: lib.linalg.eigvals(A), "eigvals"),
    "linalg.qr": (lambda lib, A: lib.linalg.qr(A)[1].abs(), "values"),
    "linalg.lstsq": (lambda lib, A: lib.linalg.lstsq(A, _rhs(lib, A))[0], "raises"),
    "linalg.solve_triangular": (
        lambda lib, A: lib.linalg.solve_triangular(A, _rhs(lib, A), upper=True),
        "values",
    ),
    "cholesky_solve": (lambda lib, A: lib.cholesky_solve(_rhs(lib, A), A), "values"),
    "cholesky_inverse": (lambda lib, A: lib.cholesky_inverse(A), "values"),
    "slogdet": (lambda lib, A: tuple(lib.slogdet(A)), "values"),
    "svd": (lambda lib, A: lib.svd(A)[1], "values"),
    "pinverse": (lambda lib, A: lib.pinverse(A), "values"),
    "matrix_power--1": (lambda lib, A: lib.matrix_power(A, -1), "values"),
    "lu": (lambda lib, A: tuple(lib.lu(A, get_infos=True)), "values"),
    "lu_solve": (lambda lib, A: lib.lu_solve(_rhs(lib, A), *lib.lu(A)), "values"),
    "triangular_solve": (lambda lib, A: lib.triangular_solve(_rhs(lib, A), A)[0], "values"),
    "qr": (lambda lib, A: lib.qr(A)[1].abs(), "values"),
    "geqrf": (lambda lib, A: lib.geqrf(A)[0].abs(), "values"),
    "nuclear_norm": (lambda lib, A: lib.nuclear_norm(A), "values"),
    "linalg.ldl_solve": (
        lambda lib, A: lib.linalg.ldl_solve(*lib.linalg.ldl_factor_ex(A)[:2], _rhs(lib, A)),
        "values",
    ),
    "linalg.ldl_factor_ex": (lambda lib, A: tuple(lib.linalg.ldl_factor_ex(A)), "ex"),
    "linalg.tensorinv": (lambda lib, A: lib.linalg.tensorinv(A, ind=A.dim() - 1), "values"),
}

# Where PyTorch's answer is its LAPACK's (MKL's) accident and not a rule, and the reason.
KNOWN = {
    # MKL's geev reports an illegal argument for a NaN and returns stale numbers ([1, 3]);
    # jtensor returns NaN eigenvalues there, as every Inf input already gives in PyTorch.
    ("linalg.eigvals", "nan"): "MKL's DGEBAL error output",
    ("linalg.eigvals", "nan-lower"): "MKL's DGEBAL error output",
    # PyTorch: nan+0j here but nan+nanj for Inf; jtensor gives nan+nanj for both.
    ("linalg.eigvals", "all-nan"): "the imaginary part of MKL's NaN eigenvalues",
    # MKL's gelsy rejects NaN with an internal assertion (a RuntimeError); jtensor raises a
    # RuntimeError saying the matrix holds NaN or Inf: same type, clearer message.
    ("linalg.lstsq", "nan"): "message differs (PyTorch: an internal assert)",
    ("linalg.lstsq", "nan-lower"): "message differs (PyTorch: an internal assert)",
    ("linalg.lstsq", "all-nan"): "message differs (PyTorch: an internal assert)",
    ("linalg.lstsq", "inf"): "gelsy's rank decision on Inf input",
    # MKL's sytrf takes a 2x2 block for an all-NaN matrix (no info); LAPACK's reference
    # sytf2, which jtensor follows, stops at the NaN with info = 1.
    ("linalg.ldl_factor_ex", "all-nan"): "MKL's pivoting of NaN",
    # A rank-deficient pinv/cond value below rounding differs between LAPACKs
    ("linalg.cond", "singular"): "ratio to a singular value at rounding level",
    ("linalg.cond", "batch-singular"): "ratio to a singular value at rounding level",
}


def _run(lib, call, data):
    A = lib.tensor(data, dtype=lib.float64)
    try:
        return call(lib, A)
    except Exception as exc:  # noqa: BLE001 - compared below
        return exc


def _arrays(result):
    items = result if isinstance(result, tuple) else (result,)
    return [np.asarray(t.cpu().numpy() if hasattr(t, "cpu") else t) for t in items]


def _close(mine, theirs, where):
    assert len(mine) == len(theirs), where
    for m, t in zip(mine, theirs, strict=True):
        assert m.shape == t.shape, f"{where}: shape {m.shape} vs {t.shape}"
        np.testing.assert_allclose(m, t, rtol=1e-6, atol=1e-9, equal_nan=True, err_msg=where)


@pytest.mark.parametrize("input_name", list(INPUTS))
@pytest.mark.parametrize("fn_name", list(CALLS))
def test_linalg_on_nan_inf_singular_and_indefinite_inputs(fn_name, input_name):
    if (fn_name, input_name) in KNOWN:
        pytest.skip(KNOWN[(fn_name, input_name)])
    call, how = CALLS[fn_name]
    data = INPUTS[input_name]
    theirs = _run(torch, call, data)
    mine = _run(jtensor, call, data)
    where = f"{fn_name}({input_name})"
    assert not isinstance(mine, np.linalg.LinAlgError), f"{where}: NumPy's error leaked: {mine}"
    if isinstance(theirs, Exception):
        assert isinstance(mine, Exception), f"{where}: PyTorch raised {theirs!r}, got {mine!r}"
        for builtin in (IndexError, TypeError, ValueError, RuntimeError):
            assert isinstance(mine, builtin) == isinstance(theirs, builtin), (
                f"{where}: {type(mine).__name__} vs PyTorch's {type(theirs).__name__}"
            )
        assert type(mine).__name__ == type(theirs).__name__ or not isinstance(
            theirs, torch.linalg.LinAlgError
        ), f"{where}: {mine!r} is not a LinAlgError"
        if how != "raises":
            assert str(mine) == str(theirs), where
        return
    assert not isinstance(mine, Exception), f"{where}: PyTorch returned, jtensor raised {mine!r}"
    if how == "raises":
        return
    m, t = _arrays(mine), _arrays(theirs)
    if how == "eigvals":
        key = lambda a: np.sort_complex(a.reshape(-1, a.shape[-1]))  # noqa: E731
        _close([key(m[0])], [key(t[0])], where)
    elif how == "ex":
        np.testing.assert_array_equal(m[-1], t[-1], err_msg=f"{where}: info")
        ok = (t[-1] == 0).reshape(-1)
        flat = lambda a: a.reshape((-1,) + a.shape[-2:])[ok] if a.ndim > 1 else a  # noqa: E731
        if m[0].ndim >= 2:
            _close([flat(m[0])], [flat(t[0])], where)
    else:
        _close(m, t, where)


def test_linalg_error_is_pytorchs_class():
    """``torch.linalg.LinAlgError`` is a RuntimeError named ``_LinAlgError``."""
    assert issubclass(jtensor.linalg.LinAlgError, RuntimeError)
    assert jtensor.linalg.LinAlgError.__name__ == torch.linalg.LinAlgError.__name__
    with pytest.raises(jtensor.linalg.LinAlgError) as info:
        jtensor.linalg.cholesky(jtensor.tensor([[1.0, 2.0], [2.0, 1.0]]))
    assert str(info.value) == (
        "linalg.cholesky: The factorization could not be completed because the input is not "
        "positive-definite (the leading minor of order 2 is not positive-definite)."
    )


def test_failing_factorizations_leave_inputs_untouched():
    A = jtensor.tensor([[1.0, 2.0], [2.0, 4.0]])
    before = A.clone()
    for fn in (jtensor.linalg.inv, jtensor.linalg.cholesky, jtensor.linalg.lu_factor):
        with pytest.raises(RuntimeError):
            fn(A)
    assert bool((A == before).all())


def test_check_errors_of_the_ex_variants():
    singular = [[1.0, 2.0], [2.0, 4.0]]
    for name, call in [
        ("inv_ex", lambda lib, A: lib.linalg.inv_ex(A, check_errors=True)),
        ("cholesky_ex", lambda lib, A: lib.linalg.cholesky_ex(A, check_errors=True)),
        ("lu_factor_ex", lambda lib, A: lib.linalg.lu_factor_ex(A, check_errors=True)),
    ]:
        theirs = _run(torch, call, singular)
        mine = _run(jtensor, call, singular)
        assert isinstance(theirs, RuntimeError) and isinstance(mine, RuntimeError), name
        assert type(mine).__name__ == type(theirs).__name__, name
