"""``torch.nn.utils.stateless``: the older home of ``functional_call`` (PyTorch deprecates
it in favour of ``torch.func.functional_call``)."""

import warnings

from ...func import functional_call as _functional_call


def functional_call(
    module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    """``torch.func.functional_call`` with one dict of parameters and buffers; deprecated
    (warns as PyTorch does)."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will "
        "be removed in a future version of PyTorch. Please use "
        "`torch.func.functional_call` instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return _functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )
