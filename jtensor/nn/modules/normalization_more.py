"""``InstanceNorm1d/2d/3d``, ``LocalResponseNorm``, ``AlphaDropout``,
``FeatureAlphaDropout`` and ``ChannelShuffle`` with PyTorch's arguments, buffers and reprs."""

import warnings

from ..._errors import TensorValueError
from .. import functional as F  # (looked up per call: a patched F.<name> is seen)
from .batchnorm import _NormBase
from .dropout import _DropoutNd
from .module import Module

__all__ = [
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LocalResponseNorm",
    "AlphaDropout",
    "FeatureAlphaDropout",
    "ChannelShuffle",
]


class _InstanceNorm(_NormBase):
    """Instance normalization: no affine parameters and no running statistics by default."""

    _dims = ()  # the accepted input ranks: (unbatched, batched)

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=False,
        track_running_stats=False,
        device=None,
        dtype=None,
    ):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def _check_input_dim(self, input):
        if input.dim() not in self._dims:
            raise TensorValueError(
                f"expected {self._dims[0]}D or {self._dims[1]}D input (got {input.dim()}D input)"
            )

    def forward(self, input):
        self._check_input_dim(input)
        no_batch = self._dims[0]
        feature_dim = input.dim() - no_batch
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise TensorValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.size(feature_dim)}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. You can "
                f"silence this warning by not passing in num_features, which is not used "
                f"because affine=False",
                stacklevel=2,
            )
        if input.dim() == no_batch:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

    def _apply_instance_norm(self, input):
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of ``(N, C, L)`` or ``(C, L)`` inputs."""

    _dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of ``(N, C, H, W)`` or ``(C, H, W)`` inputs."""

    _dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` inputs."""

    _dims = (4, 5)


class LocalResponseNorm(Module):
    """``F.local_response_norm`` across ``size`` neighbouring channels."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class AlphaDropout(_DropoutNd):
    """``F.alpha_dropout`` in training mode (identity in eval)."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """``F.feature_alpha_dropout`` in training mode (identity in eval)."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)


class ChannelShuffle(Module):
    """``F.channel_shuffle(input, groups)`` as a module."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
