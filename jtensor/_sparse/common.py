"""PyTorch's "not implemented for the 'SparseCPU' backend" error, shared by the sparse
package (the refusals of ``tensor``, and of the registry's layout step in ``dispatch``)."""

from .._errors import TensorNotImplementedError


def _not_supported(op):
    return TensorNotImplementedError(
        f"Could not run 'aten::{op}' with arguments from the 'SparseCPU' backend: this "
        "operation is not implemented for sparse COO tensors. Convert with .to_dense() first."
    )
