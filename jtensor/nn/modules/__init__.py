"""Every layer: each module in this package lists its public classes in ``__all__``; all are
imported here (and re-exported by ``jtensor.nn``)."""

import importlib
import pkgutil

from .module import Module

__all__ = ["Module"]
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
    if _info.name.startswith("_") or _info.name == "module":
        continue
    _mod = importlib.import_module(f"{__name__}.{_info.name}")
    for _name in getattr(_mod, "__all__", ()):
        globals()[_name] = getattr(_mod, _name)
        __all__.append(_name)

# Where PyTorch defines the classes that live in jtensor's own files: each gets PyTorch's
# module path (``type(m)`` prints ``...nn.modules.activation.PReLU``, and a pickled model
# names the module that PyTorch's would), and that module re-exports it.
_HOMES = {
    "activation": ("CELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Mish",
                   "MultiheadAttention", "PReLU", "RReLU", "SELU", "Softmax2d", "Softshrink",
                   "Softsign", "Tanhshrink", "Threshold"),
    "batchnorm": ("LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d"),
    "channelshuffle": ("ChannelShuffle",),
    "conv": ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
             "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
             "LazyConvTranspose3d"),
    "dropout": ("AlphaDropout", "FeatureAlphaDropout"),
    "fold": ("Fold", "Unfold"),
    "instancenorm": ("InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
                     "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"),
    "linear": ("Identity", "LazyLinear"),
    "linear_cross_entropy_options": ("LinearCrossEntropyOptions",),
    "loss": ("CTCLoss", "CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss",
             "LinearCrossEntropyLoss", "MarginRankingLoss", "MultiLabelMarginLoss",
             "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "SoftMarginLoss",
             "TripletMarginLoss", "TripletMarginWithDistanceLoss"),
    "normalization": ("LocalResponseNorm",),
    "pooling": ("AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
                "FractionalMaxPool2d", "FractionalMaxPool3d", "LPPool1d", "LPPool2d",
                "LPPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"),
    "sparse": ("EmbeddingBag",),
}
for _home, _names in _HOMES.items():
    _mod = importlib.import_module(f"{__name__}.{_home}")
    for _name in _names:
        _cls = globals()[_name]
        _cls.__module__ = _mod.__name__
        setattr(_mod, _name, _cls)
del _home, _names, _mod, _name, _cls, _info
