"""``jtensor.nn.utils``: gradient clipping (``clip_grad_norm_``, ``clip_grad_value_``,
``get_total_norm``, ``clip_grads_with_norm_``)."""

from . import clip_grad  # noqa: F401
from .clip_grad import (  # noqa: F401
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from . import rnn  # noqa: E402,F401 (pack_padded_sequence, pad_sequence, ...)
from . import stateless  # noqa: E402,F401 (the deprecated functional_call)
