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
from . import convert_parameters, fusion, init, parametrizations, parametrize  # noqa: E402,F401
from . import prune  # noqa: E402,F401 (torch.nn.utils.prune)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: E402,F401
from .fusion import (  # noqa: E402,F401
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .init import skip_init  # noqa: E402,F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402,F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402,F401
