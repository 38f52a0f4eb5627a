"""Named-tuple results of ops, like ``torch.return_types``: ``max``, ``min``, ``median``,
``nanmedian``, ``cummax``, ``cummin``, ``aminmax``, ``sort``, ``topk`` and ``kthvalue``.

Each is a tuple subclass with named fields (``values``/``indices``; ``min``/``max`` for
``aminmax``) that prints as PyTorch's does, e.g. ``torch.return_types.max(\\nvalues=...,
\\nindices=...)``. Like PyTorch's, the constructor takes one sequence.
"""

import operator

from ._errors import TensorTypeError


def _rt_repr(self):
    body = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self, strict=True))
    return f"torch.return_types.{type(self).__name__}(\n{body})"


def return_type(name, fields=("values", "indices")):
    """A tuple subclass like ``torch.return_types.<name>`` with named fields."""

    def __new__(cls, *values):
        if len(values) == 1 and isinstance(values[0], (tuple, list)):
            values = tuple(values[0])
        if len(values) != len(fields):
            raise TensorTypeError(
                f"torch.return_types.{name} takes a {len(fields)}-sequence "
                f"({len(values)}-sequence given)")
        return tuple.__new__(cls, values)

    namespace = {"__slots__": (), "_fields": tuple(fields), "__new__": __new__,
                 "__repr__": _rt_repr, "__module__": "jtensor.return_types",
                 "__reduce__": lambda self: (type(self), (tuple(self),))}
    for i, field in enumerate(fields):
        namespace[field] = property(operator.itemgetter(i), doc=f"Alias for field {i}")
    return type(name, (tuple,), namespace)


# Module attributes named as the types (shadowing the builtins max/min, as torch does), so
# that pickling finds each class as ``jtensor.return_types.<name>``.
max = return_type("max")
min = return_type("min")
median = return_type("median")
nanmedian = return_type("nanmedian")
cummax = return_type("cummax")
cummin = return_type("cummin")
aminmax = return_type("aminmax", ("min", "max"))
sort = return_type("sort")
topk = return_type("topk")
kthvalue = return_type("kthvalue")
mode = return_type("mode")
histogram = return_type("histogram", ("hist", "bin_edges"))
# torch.slogdet / torch.linalg.* named tuples.
slogdet = return_type("slogdet", ("sign", "logabsdet"))
linalg_slogdet = return_type("linalg_slogdet", ("sign", "logabsdet"))
linalg_qr = return_type("linalg_qr", ("Q", "R"))
linalg_eigh = return_type("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_svd = return_type("linalg_svd", ("U", "S", "Vh"))
frexp = return_type("frexp", ("mantissa", "exponent"))
