"""What every module of the sparse package uses: the ``jtensor`` package itself (imported on
first call: the sparse ops are written with its public, differentiable ops) and PyTorch's
"not implemented for the 'SparseCPU' backend" error."""

from .._errors import TensorNotImplementedError


def _J():
    import jtensor

    return jtensor


def _not_supported(op):
    return TensorNotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the 'SparseCPU' backend: this "
        "operation is not implemented for sparse COO tensors. Convert with .to_dense() first.")
