"""Normalization layers given parameters of another dtype than their input: PyTorch's CPU
rule (float16/bfloat16 inputs may take float32 parameters) and its two messages, "expect
parameter to have scalar type of Float" for a float32 or half input and "all inputs must
share same datatype" for any other."""

import pytest

import jtensor

torch = pytest.importorskip("torch")


MIXED = [
    ("float32", "float64"),
    ("float64", "float32"),
    ("float16", "float64"),
    ("float32", "float16"),
    ("bfloat16", "float32"),
    ("float16", "float32"),
]


def _mixed_outcome(lib, name, input_dtype, param_dtype):
    x = lib.randn(2, 3, 4).to(getattr(lib, input_dtype))
    try:
        if name == "layer_norm":
            out = lib.nn.functional.layer_norm(
                x, (4,), lib.ones(4, dtype=getattr(lib, param_dtype))
            )
        elif name == "batch_norm":
            w = lib.ones(3, dtype=getattr(lib, param_dtype))
            out = lib.nn.functional.batch_norm(x, None, None, w, training=True)
        else:
            out = lib.nn.functional.group_norm(x, 3, lib.ones(3, dtype=getattr(lib, param_dtype)))
    except RuntimeError as e:
        return str(e).split(" (")[0].split(" Got")[0]
    return str(out.dtype)


@pytest.mark.parametrize("name", ["layer_norm", "batch_norm", "group_norm"])
@pytest.mark.parametrize("dtypes", MIXED, ids="-".join)
def test_mixed_parameter_dtypes_match_pytorch(name, dtypes):
    assert _mixed_outcome(jtensor, name, *dtypes) == _mixed_outcome(torch, name, *dtypes)
