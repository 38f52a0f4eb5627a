"""What the sparse package's modules share: PyTorch's "not implemented for the 'SparseCPU'
backend" error (the refusals of ``tensor``, and of the registry's layout step in
``dispatch``) and the write of a dense result into ``out=``."""

from .._errors import TensorNotImplementedError


def _not_supported(op):
    return TensorNotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the 'SparseCPU' backend: this "
        "operation is not implemented for sparse COO tensors. Convert with .to_dense() first."
    )


def write_into(out, result):
    """``result`` written into ``out`` (resized to its shape first, as the sparse kernels'
    ``out=``); returns ``out``."""
    if tuple(out._shape) != tuple(result._shape):
        out.resize_(result._shape)
    return out.copy_(result)
