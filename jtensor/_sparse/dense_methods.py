"""What a dense (strided) tensor answers to the sparse methods, as PyTorch: ``to_dense`` is
itself, ``sparse_dim`` 0, ``dense_dim`` its ``dim()``; the sparse-only ones
(``indices``, ``values``, ``coalesce``, ``_nnz``, ...) raise. Registered as Tensor methods
(``tensor_method``), never replacing a core definition."""

from .._errors import TensorNotImplementedError, TensorRuntimeError
from .._registry import tensor_method
from .._tensor import Tensor


@tensor_method("to_dense")
def to_dense(self, dtype=None, *, masked_grad=None):
    """A dense tensor is its own dense form (returned unchanged, as PyTorch)."""
    if dtype is not None and dtype is not self._dtype:
        return self.to(dtype)
    return self


def _dense_refusal(name, message):
    def refuse(self, *args, **kwargs):
        if message is None:
            raise TensorNotImplementedError(
                f"Could not run 'aten::{name}' with arguments from the 'CPU' backend: "
                f"{name}() is only defined for sparse tensors (this one is strided)"
            )
        raise TensorRuntimeError(message + " (convert with .to_sparse() first)")

    refuse.__name__ = name
    refuse.__doc__ = "Sparse-only: a dense tensor raises, as in PyTorch."
    return refuse


for _name, _message in (
    ("is_coalesced", "is_coalesced expected sparse coordinate tensor layout but got Strided"),
    ("coalesce", "coalesce expected sparse coordinate tensor layout but got Strided"),
    ("indices", "indices expected sparse coordinate tensor layout but got Strided"),
    ("values", "values expected sparse tensor layout but got Strided"),
    ("_nnz", None),
    ("_indices", None),
    ("_values", None),
):
    if not hasattr(Tensor, _name):  # never replace a core definition
        tensor_method(_name)(_dense_refusal(_name, _message))


@tensor_method("sparse_dim")
def sparse_dim(self):
    """0 for a dense (strided) tensor."""
    return 0


@tensor_method("dense_dim")
def dense_dim(self):
    """``dim()`` for a dense (strided) tensor."""
    return self.dim()
