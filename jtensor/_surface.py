"""The top-level ``torch.<name>`` forms of nn operators (``torch.dropout``, ``torch.layer_norm``,
``torch.kl_div``, ``torch.convolution``...).

PyTorch exposes the ATen operators behind ``nn.functional`` at the top level with ATen's
signatures: every argument positional and required where ATen's is (``torch.dropout(input, p,
train)``), losses take ``reduction`` as ATen's integer enum (0 none, 1 mean, 2 sum; any other
value reduces nothing, as ATen's ``apply_loss_reduction``; omitted, it is 0: PyTorch's Python
binding reads ATen's ``at::Reduction::Mean`` default as 0, so ``torch.kl_div(a, b)`` is
unreduced although the stubs say 1), ``torch.embedding`` takes
``(weight, indices)`` with ``padding_idx=-1`` meaning none. These entries translate to the
``nn.functional`` forms (which hold the kernels, checks and autograd nodes, so the results
carry PyTorch's ``grad_fn`` names) and implement the dropout family directly as ATen's CPU
``_dropout_impl`` does (a Bernoulli noise tensor, multiplied in: ``MulBackward0``).
"""

import builtins
import math
import threading
import warnings
import weakref

import numpy as np

from . import _api, _dtypes, linalg
from . import return_types as _return_types
from ._errors import (
    TensorNotImplementedError,
    ignoring_warnings,
    TensorRuntimeError,
    TensorTypeError,
    TensorValueError,
    type_name,
)
from ._layout import _dimension_order
from ._size import Size
from ._storage import Storage, TypedStorage, fix_size, warn_typed_storage_removal
from ._tensor import Tensor
from ._torch_function import DisableTorchFunctionSubclass
from .amp import get_autocast_dtype, is_autocast_enabled
from .autograd import Function
from .autograd.forward.direct import GENERIC_BY_DESIGN
from .autograd.forward.rules import LINEAR
from .autograd.forward.rules import rule as forward_rule
from ._ops.surface import COPY_OF_VIEW, REFUSES_GRAD
from ._registry import OPS
from .autograd.graph import NONDIFF, Formula
from .nn import functional as F
from .nn._functional.dropout import _apply_noise
from .nn._functional.normalization_more import _alpha_dropout

__all__ = [
    "adaptive_max_pool1d",
    "alpha_dropout",
    "alpha_dropout_",
    "batch_norm",
    "binary_cross_entropy_with_logits",
    "constant_pad_nd",
    "convolution",
    "cosine_embedding_loss",
    "ctc_loss",
    "dropout",
    "dropout_",
    "embedding",
    "feature_alpha_dropout",
    "feature_alpha_dropout_",
    "feature_dropout",
    "feature_dropout_",
    "group_norm",
    "hinge_embedding_loss",
    "instance_norm",
    "kl_div",
    "layer_norm",
    "margin_ranking_loss",
    "max_pool1d_with_indices",
    "poisson_nll_loss",
    "rms_norm",
    "triplet_margin_loss",
    "unsafe_chunk",
    "unsafe_split",
    "unsafe_split_with_sizes",
    "nonzero_static",
    "is_inference",
    "detach_",
    "gcd_",
    "lcm_",
    "ldexp_",
    "xlogy_",
    "as_strided_",
    "range",
    "has_lapack",
    "has_spectral",
    "has_mkl",
    "has_openmp",
    "set_flush_denormal",
    "get_device_module",
    "empty_permuted",
    "frombuffer",
    "get_autocast_cpu_dtype",
    "get_autocast_gpu_dtype",
    "is_autocast_cpu_enabled",
    "thread_safe_generator",
    "histogramdd",
    "binomial",
    "svd_lowrank",
    "pca_lowrank",
    "StorageBase",
    "BFloat16Storage",
    "BoolStorage",
    "ByteStorage",
    "CharStorage",
    "ComplexDoubleStorage",
    "ComplexFloatStorage",
    "DoubleStorage",
    "FloatStorage",
    "HalfStorage",
    "IntStorage",
    "LongStorage",
    "ShortStorage",
]

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(fname, value, position):
    """ATen's integer reduction as nn.functional's string (PyTorch's TypeError otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TensorTypeError(
            f"{fname}(): argument 'reduction' (position {position}) must be "
            f"int, not {type_name(value)}"
        )
    return _REDUCTIONS.get(value, "none")


# ------------------------------------------------------------------------ dropout family
def _dropout_impl(input, p, train, *, feature, alpha, inplace):
    # ATen's _dropout_impl: the checks raise RuntimeError here (F.dropout's Python check is a
    # ValueError); the noise and its application are nn.functional's, one piece of code.
    if not 0 <= p <= 1:
        raise TensorRuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if feature and input.dim() < 2:
        raise TensorRuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if alpha:
        return _alpha_dropout(input, p, train, inplace, feature=feature)
    # One draw per (sample, channel) for feature dropout, broadcast over the other dimensions.
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2) if feature else None
    return _apply_noise(input, p, inplace, shape)


def dropout(input, p, train):
    """``torch.dropout(input, p, train)``: zero elements with probability ``p`` and scale the
    rest by ``1/(1-p)`` when ``train``; ``input`` itself otherwise (or for ``p == 0``)."""
    return _dropout_impl(input, p, train, feature=False, alpha=False, inplace=False)


def dropout_(input, p, train):
    """In-place ``torch.dropout``: writes ``input`` and returns it."""
    return _dropout_impl(input, p, train, feature=False, alpha=False, inplace=True)


def feature_dropout(input, p, train):
    """``torch.feature_dropout``: drop whole channels (dimension 1) of each sample, scaling the
    kept ones by ``1/(1-p)``; the form behind ``F.dropout1d/2d/3d``."""
    return _dropout_impl(input, p, train, feature=True, alpha=False, inplace=False)


def feature_dropout_(input, p, train):
    """In-place ``torch.feature_dropout``."""
    return _dropout_impl(input, p, train, feature=True, alpha=False, inplace=True)


def alpha_dropout(input, p, train):
    """``torch.alpha_dropout``: SELU-preserving dropout (dropped elements go to SELU's negative
    saturation, then an affine map restores mean and variance)."""
    return _dropout_impl(input, p, train, feature=False, alpha=True, inplace=False)


def alpha_dropout_(input, p, train):
    """In-place ``torch.alpha_dropout``."""
    return _dropout_impl(input, p, train, feature=False, alpha=True, inplace=True)


def feature_alpha_dropout(input, p, train):
    """``torch.feature_alpha_dropout``: alpha dropout of whole channels."""
    return _dropout_impl(input, p, train, feature=True, alpha=True, inplace=False)


def feature_alpha_dropout_(input, p, train):
    """In-place ``torch.feature_alpha_dropout``."""
    return _dropout_impl(input, p, train, feature=True, alpha=True, inplace=True)


# ------------------------------------------------------------------------ normalization
def batch_norm(
    input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled
):
    """``torch.batch_norm`` (ATen's argument order): ``F.batch_norm``; ``cudnn_enabled`` only
    picks a kernel in PyTorch."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(
    input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled
):
    """``torch.instance_norm`` (ATen's argument order): ``F.instance_norm``."""
    return F.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """``torch.layer_norm``: ``F.layer_norm`` (``cudnn_enable`` only picks a kernel)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """``torch.group_norm``: ``F.group_norm``."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``torch.rms_norm``: ``F.rms_norm``."""
    return F.rms_norm(input, normalized_shape, weight, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding(weight, indices)``: rows of ``weight``; a negative ``padding_idx``
    (ATen's -1 default) means no padding row."""
    return F.embedding(
        indices,
        weight,
        padding_idx if padding_idx >= 0 else None,
        scale_grad_by_freq=scale_grad_by_freq,
        sparse=sparse,
    )


# ------------------------------------------------------------------------ losses
def kl_div(input, target, reduction=0, *, log_target=False):
    """``torch.kl_div`` with ATen's integer ``reduction`` (1 is the mean over all elements,
    ``F.kl_div``'s deprecated 'mean', without its warning; omitted, unreduced as in
    PyTorch)."""
    mode = _reduction("kl_div", reduction, 3)
    loss = F.kl_div(input, target, reduction="none", log_target=log_target)
    # Reduced here rather than by F.kl_div: its 'mean' warns, ATen's integer mean does not.
    return loss.mean() if mode == "mean" else loss.sum() if mode == "sum" else loss


def ctc_loss(
    log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False
):
    """``torch.ctc_loss`` with ATen's integer ``reduction``: ``F.ctc_loss``."""
    return F.ctc_loss(
        log_probs,
        targets,
        input_lengths,
        target_lengths,
        blank,
        _reduction("ctc_loss", reduction, 6),
        zero_infinity,
    )


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.cosine_embedding_loss`` with ATen's integer ``reduction``."""
    return F.cosine_embedding_loss(
        input1, input2, target, margin, reduction=_reduction("cosine_embedding_loss", reduction, 5)
    )


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.margin_ranking_loss`` with ATen's integer ``reduction``."""
    return F.margin_ranking_loss(
        input1, input2, target, margin, reduction=_reduction("margin_ranking_loss", reduction, 5)
    )


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``torch.hinge_embedding_loss`` with ATen's integer ``reduction``."""
    return F.hinge_embedding_loss(
        input, target, margin, reduction=_reduction("hinge_embedding_loss", reduction, 4)
    )


def triplet_margin_loss(
    anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=0
):
    """``torch.triplet_margin_loss`` with ATen's integer ``reduction``."""
    return F.triplet_margin_loss(
        anchor,
        positive,
        negative,
        margin,
        p,
        eps,
        swap,
        reduction=_reduction("triplet_margin_loss", reduction, 8),
    )


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``torch.poisson_nll_loss`` (every argument required, integer ``reduction``)."""
    return F.poisson_nll_loss(
        input,
        target,
        log_input=log_input,
        full=full,
        eps=eps,
        reduction=_reduction("poisson_nll_loss", reduction, 6),
    )


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """``torch.binary_cross_entropy_with_logits`` with ATen's integer ``reduction``."""
    return F.binary_cross_entropy_with_logits(
        input,
        target,
        weight,
        reduction=_reduction("binary_cross_entropy_with_logits", reduction, 5),
        pos_weight=pos_weight,
    )


# ------------------------------------------------------------------------ padding, conv, pools
def constant_pad_nd(input, pad, value=0):
    """``torch.constant_pad_nd``: ``F.pad`` in constant mode (``ConstantPadNdBackward0``;
    negative pads crop)."""
    return F.pad(input, pad, mode="constant", value=value)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """``torch.convolution``: the N-d (transposed) convolution ``weight.dim() - 2`` picks, as
    ``F.conv{1,2,3}d``/``F.conv_transpose{1,2,3}d`` (``ConvolutionBackward0``)."""
    nd = weight.dim() - 2
    if nd < 1:
        raise TensorRuntimeError("weight should have at least three dimensions")
    if nd > 3:
        raise TensorRuntimeError(
            f"convolution: weight should have 3, 4 or 5 dimensions (1-d, 2-d or 3-d "
            f"convolution), but got weight of size {list(weight.shape)}"
        )
    if transposed:
        conv = getattr(F, f"conv_transpose{nd}d")
        return conv(
            input,
            weight,
            bias,
            tuple(stride),
            tuple(padding),
            tuple(output_padding),
            groups,
            tuple(dilation),
        )
    conv = getattr(F, f"conv{nd}d")
    return conv(input, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups)


def adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: ``(values, indices)``, as
    ``F.adaptive_max_pool1d(..., return_indices=True)``."""
    return tuple(F.adaptive_max_pool1d(input, output_size, return_indices=True))


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool1d_with_indices``: ``(values, indices)``; an empty ``stride`` is the
    kernel size."""
    stride = stride if stride not in ((), [], None) else None
    return tuple(
        F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)
    )


# ------------------------------------------------------------------------ *_copy derivatives
def _copy_name(name):
    if callable(name):
        return lambda values: name(values) + "_copy"
    return name + "_copy"


def _attach_copy_formulas():
    # The view op's formula under PyTorch's ``<ViewNode>_copy`` name; detach_copy stays
    # without a derivative, as detach, and view_as_complex_copy refuses inputs needing grad.
    for name, view_name in COPY_OF_VIEW.items():
        op, view = OPS[name], OPS[view_name].backward
        if view is NONDIFF or name in REFUSES_GRAD:
            op.backward = NONDIFF
            continue
        op.backward = Formula(
            op,
            view.backward,
            view.inputs,
            view.save,
            _copy_name(view.name),
            view.multi_grad,
            view.nondiff_outputs,
        )


_attach_copy_formulas()


# ------------------------------------------------------------------------ Tensor methods
def _no(name, device):
    def flag(self):
        return False

    flag.__name__ = name
    flag.__doc__ = f"False: jtensor has no {device} tensors."
    return property(flag)


_BACKEND_FLAGS = {
    "is_mps": "MPS",
    "is_xpu": "XPU",
    "is_ipu": "IPU",
    "is_maia": "MAIA",
    "is_mtia": "MTIA",
    "is_vulkan": "Vulkan",
    "is_xla": "XLA",
    "is_mkldnn": "oneDNN (mkldnn)",
    "is_nested": "nested",
    "is_quantized": "quantized",
    "is_sparse_csr": "CSR sparse",
}


def _output_nr(self):
    """Which output of its ``grad_fn`` this tensor is (0 for a leaf)."""
    return self._output_nr


def _name(self):
    """None: jtensor tensors carry no TorchScript debug name (PyTorch's is None too)."""
    return None


def _volatile(self):
    """Always False, with PyTorch's warning: ``volatile`` was removed (use ``no_grad``)."""
    warnings.warn(
        "volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2
    )
    return False


_REINFORCE = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""


def reinforce(self, reward):
    """Removed in PyTorch 0.4: raises PyTorch's RuntimeError pointing to distributions."""
    raise TensorRuntimeError(_REINFORCE)


def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory (PyTorch's ``dim_order``): ``(0, 1, 2)``
    for a contiguous tensor, ``(0, 2, 3, 1)`` for channels-last. ``ambiguity_check=True`` (or
    a list of memory formats) raises where size-1 dims, equal strides or broadcast dims make
    the order ambiguous."""
    if not isinstance(ambiguity_check, (bool, list)):
        raise TensorValueError("ambiguity_check should be a bool or a list of memory formats.")
    shape, strides = tuple(self.shape), self.stride()
    formats = ambiguity_check if isinstance(ambiguity_check, list) else []
    if ambiguity_check is not False:
        multiple = any(a == b for a, b in zip(strides, strides[1:], strict=False)) or any(
            s == 1 for s in shape
        )
        unique_format = sum(1 for f in formats if self.is_contiguous(memory_format=f)) == 1
        if multiple and not unique_format:
            raise TensorRuntimeError(
                "The tensor does not have unique dim order, or cannot map to exact one of the "
                "given memory formats."
            )
        if len(shape) > 1 and 0 in strides:
            raise TensorRuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(_dimension_order(shape, [strides])))


def const_data_ptr(self):
    """The address of the first element, as ``data_ptr()`` (PyTorch's read-only form)."""
    return self.data_ptr()


# ------------------------------------------------------------------ shared memory
# A CPU storage moved to shared memory (``share_memory_``, or sent to another process through
# ``jtensor.multiprocessing``) has its bytes in a POSIX shared-memory block (a named file
# mapping on Windows), mapped MAP_SHARED: processes forked afterwards, and processes that
# attach to the block by its name or a duplicated descriptor, read and write the same memory.
# ``_shared_blocks`` maps each such storage to its ``_SharedBlock`` (None: a storage of no
# bytes, shared trivially); ``_storages_by_block`` finds this process's storage over a block,
# so a block received twice (or sent back to its creator) rebuilds the same storage.
_shared_blocks = weakref.WeakKeyDictionary()
_storages_by_block = weakref.WeakValueDictionary()
_shared_lock = threading.RLock()


class _SharedBlock:
    """One shared-memory block: its name, size, an open descriptor (kept while the storage
    lives, for sending it by descriptor) and the pid of the process that created it, the one
    that unlinks it when its storage is freed."""

    __slots__ = ("name", "nbytes", "fd", "owner", "__weakref__")

    def __init__(self, name, nbytes, fd=None, owner=None):
        self.name, self.nbytes, self.fd, self.owner = name, nbytes, fd, owner


def _shm_open(name):
    """A read-write descriptor of the POSIX shared-memory block ``name``."""
    import os

    import _posixshmem

    return _posixshmem.shm_open("/" + name, os.O_RDWR, mode=0o600)


def _map_block(name, nbytes, fd=None):
    """A uint8 array over the block (its own mapping, which the array keeps alive: the memory
    stays valid while any array over it does, even after the block's name is unlinked). The
    mapping is not registered with the resource tracker (only the creator's block is)."""
    import mmap
    import os

    if os.name == "nt":
        mapping = mmap.mmap(-1, nbytes, tagname=name)
    elif fd is not None:
        mapping = mmap.mmap(fd, nbytes)
    else:
        fd = _shm_open(name)
        try:
            mapping = mmap.mmap(fd, nbytes)
        finally:
            os.close(fd)
    return np.frombuffer(mapping, dtype=np.uint8, count=nbytes)


def _release_block(block, shm):
    """The storage over ``block`` was freed: close its descriptor, and in the creating process
    unlink the block's name (and unregister it from the resource tracker)."""
    import os

    if block.fd is not None:
        try:
            os.close(block.fd)
        except OSError:
            pass
        block.fd = None
    if shm is not None and block.owner == os.getpid():
        try:
            shm.unlink()
        except (FileNotFoundError, OSError):
            pass


def _adopt_block(storage, block, shm=None):
    from multiprocessing import util

    _shared_blocks[storage] = block
    _storages_by_block[block.name] = storage
    fix_size(storage)   # (other processes map these bytes: they cannot move)
    # A multiprocessing finalizer: it runs when the storage is freed, and at the exit of the
    # process (a worker started by multiprocessing included, which skips ``atexit``), after
    # the queues have flushed (their priority is -5); a forked child drops its parent's.
    util.Finalize(storage, _release_block, args=(block, shm), exitpriority=-10)


def _share_storage(storage):
    """Move a CPU ``storage``'s bytes into a new shared-memory block (a no-op when they are
    there already); return its ``_SharedBlock`` (None for a storage of no bytes)."""
    with _shared_lock:
        if storage in _shared_blocks:
            return _shared_blocks[storage]
        data = storage._data
        nbytes = data.shape[0]
        if nbytes == 0:
            _shared_blocks[storage] = None
            return None
        import os
        from multiprocessing import shared_memory

        shm = shared_memory.SharedMemory(create=True, size=nbytes)
        try:
            array = _map_block(shm.name, nbytes)
        except BaseException:
            shm.close()
            shm.unlink()
            raise
        shm.close()   # (our own mapping holds the memory; the name stays until unlinked)
        array[:] = data
        block = _SharedBlock(shm.name, nbytes, owner=os.getpid())
        storage._data = array   # every tensor and view on the storage rebuilds its array
        _adopt_block(storage, block, shm)
        return block


def _block_fd(block):
    """An open descriptor of ``block`` (opened by name the first time it is needed)."""
    with _shared_lock:
        if block.fd is None:
            block.fd = _shm_open(block.name)
        return block.fd


def _storage_from_block(name, nbytes, fd=None):
    """This process's storage over the shared block ``name``: the one already attached (or
    created here), else a new one mapping it (through ``fd`` when given, which it then keeps,
    else by name). A ``fd`` that is not kept is closed."""
    import os

    from ._device import CPU

    with _shared_lock:
        storage = _storages_by_block.get(name)
        if storage is not None:
            if fd is not None:
                os.close(fd)
            return storage
        storage = Storage(_map_block(name, nbytes, fd), CPU)
        _adopt_block(storage, _SharedBlock(name, nbytes, fd))
        return storage


def share_memory_(self):
    """Move the storage to shared memory and return ``self``, as PyTorch's: the bytes are
    copied into a shared-memory block that processes forked afterwards write to as well (the
    parent sees their writes: Hogwild training), and that ``jtensor.multiprocessing`` sends
    to other processes without a copy. The whole storage moves (every view of it follows,
    ``data_ptr()`` changes once). A no-op when already shared, and for CUDA tensors; other
    devices (meta) raise PyTorch's error."""
    kind = self._storage.device.type
    if kind == "cpu":
        _share_storage(self._storage)
    elif kind != "cuda":
        raise TensorRuntimeError("_share_fd_: only available on CPU")
    return self


def is_shared(self):
    """Whether the storage is in shared memory (after ``share_memory_()``, or received from
    another process); CUDA tensors always are, as in PyTorch."""
    return self.is_cuda or self._storage in _shared_blocks


def record_stream(self, stream):
    """Tell the caching allocator that ``stream`` uses this tensor: jtensor's emulated device
    frees blocks only after every stream's queued work, so nothing more is needed; the
    argument is checked as PyTorch does."""
    from .cuda._streams import StreamBase

    if not isinstance(stream, StreamBase):
        raise TensorRuntimeError("unknown parameter type")
    if not self.is_cuda:
        raise TensorRuntimeError(
            f"record_stream: expected a CUDA tensor, got a tensor on {self.device}"
        )
    return None


def as_subclass(self, cls):
    """A tensor of class ``cls`` (a ``Tensor`` subclass) sharing ``self``'s data and
    history (an alias, ``AliasBackward0``, as PyTorch's)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TensorTypeError(
            "Creating a Tensor subclass from a class that does not inherit from Tensor is not "
            "possible. Make sure your class inherits from Tensor."
        )
    with DisableTorchFunctionSubclass():   # (not a torch function: no handler sees it)
        out = self._alias()
    out.__class__ = cls
    return out


def new(self, *args, **kwargs):
    """The legacy constructor of ``self``'s type (``torch.FloatTensor(...)`` for a float32
    tensor) on ``self``'s device: sizes give an uninitialized tensor, a sequence gives its
    values, nothing gives an empty tensor."""
    typed = _typed_constructor(self)
    if typed is None:  # complex and other dtypes without a legacy type: the same rules
        if not args:
            return self.new_empty(0)
        if all(isinstance(a, int) for a in args) or isinstance(args[0], Size):
            return self.new_empty(*args)
        return self.new_tensor(args[0])
    kwargs.setdefault("device", self.device)
    return typed(*args, **kwargs)


def _typed_constructor(t):
    from . import _tensortypes

    name = t.type().rsplit(".", 1)[-1]
    return getattr(_tensortypes, name, None)


class _Resize(Function):
    """PyTorch's autograd ``Resize`` (``ResizeBackward``): a reshape that keeps the element
    count, returning a fresh contiguous tensor."""

    _node_name = "ResizeBackward"

    @staticmethod
    def forward(ctx, tensor, sizes):
        total = math.prod(sizes)
        if tensor.numel() != total:
            have = "x".join(str(s) for s in tensor.shape)
            want = "x".join(str(s) for s in sizes)
            raise TensorRuntimeError(
                f"requested resize to {want} ({total} elements in total), but the given tensor "
                f"has a size of {have} ({tensor.numel()} elements). autograd's resize can only "
                "change the shape of a given tensor, while preserving the number of elements. "
            )
        ctx.input_sizes = tensor.shape
        return tensor.contiguous().view(sizes)

    @staticmethod
    def backward(ctx, grad):
        return grad.contiguous().view(ctx.input_sizes), None


def resize(self, *sizes):
    """Deprecated non-in-place resize: the same elements in shape ``sizes`` (the count must
    stay), with PyTorch's warning."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    return _Resize.apply(self, tuple(sizes))


def resize_as(self, tensor):
    """Deprecated non-in-place ``resize_as``: ``resize`` to ``tensor``'s shape."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _Resize.apply(self, tuple(tensor.shape))


def hardshrink(self, lambd=0.5):
    """``F.hardshrink(self, lambd)``."""
    return F.hardshrink(self, lambd)


def prelu(self, weight):
    """``F.prelu(self, weight)``."""
    return F.prelu(self, weight)


def to_sparse_coo(self):
    """The COO sparse form (``to_sparse()``)."""
    return self.to_sparse()


class _UnsafeSplit(Function):
    """``split``'s pieces as PyTorch's ``unsafe_split`` gives them: they share the input's
    memory but are no views (no base, a version counter of their own, an in-place write is
    not seen by the input's history), under one ``UnsafeSplitBackward0`` node (the pieces'
    gradients concatenated, zeros for a piece that got none). ``how`` is ``(method,
    argument, dim)`` of the split."""

    _node_name = "UnsafeSplitBackward0"

    @staticmethod
    def forward(ctx, input, how):
        method, argument, dim = how
        ctx.dim = dim
        return tuple(Tensor._make(p._storage, p._shape, p._stride, p._offset, p._dtype)
                     for p in getattr(input, method)(argument, dim))

    @staticmethod
    def backward(ctx, *grads):
        return _api.ops.cat(grads, ctx.dim), None


class _UnsafeSplitWithSizes(_UnsafeSplit):
    _node_name = "UnsafeSplitWithSizesBackward0"


def unsafe_chunk(input, chunks, dim=0):
    """``chunk``'s pieces, no views of ``input`` (PyTorch's ``UnsafeSplitBackward0``)."""
    return _UnsafeSplit.apply(input, ("chunk", chunks, dim))


def unsafe_split(input, split_size, dim=0):
    """``split``'s pieces, no views of ``input`` (PyTorch's ``UnsafeSplitBackward0``)."""
    return _UnsafeSplit.apply(input, ("split", split_size, dim))


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``split_with_sizes``'s pieces, no views of ``input``
    (``UnsafeSplitWithSizesBackward0``)."""
    return _UnsafeSplitWithSizes.apply(input, ("split_with_sizes", split_sizes, dim))


def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero()`` padded with rows of ``fill_value`` or cut to exactly ``size`` rows."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise TensorRuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = input.nonzero()
    if found.shape[0] >= size:
        return found[:size].clone()
    pad = found.new_full((size - found.shape[0], found.shape[1]), fill_value)
    return _api.ops.cat([found, pad])


def _attach_tensor_methods():
    for name, device in _BACKEND_FLAGS.items():
        setattr(Tensor, name, _no(name, device))
    Tensor.output_nr = property(_output_nr)
    Tensor.name = property(_name)
    Tensor.volatile = property(_volatile)
    for fn in (
        reinforce,
        dim_order,
        const_data_ptr,
        share_memory_,
        is_shared,
        record_stream,
        as_subclass,
        new,
        resize,
        resize_as,
        hardshrink,
        prelu,
        to_sparse_coo,
        unsafe_chunk,
        unsafe_split,
        unsafe_split_with_sizes,
        nonzero_static,
    ):
        setattr(Tensor, fn.__name__, fn)


_attach_tensor_methods()


def _attach_fill_formula():
    # fill_'s derivative (zeros for input, the gradient's sum for a tensor value) under the
    # out-of-place node names FillBackward0 (number) / FillBackward1 (tensor).
    op, inplace = OPS["fill"], OPS["fill_"].backward
    op.backward = Formula(
        op,
        inplace.backward,
        inplace.inputs,
        inplace.save,
        lambda values: (
            "FillBackward1" if isinstance(values.get("value"), Tensor) else "FillBackward0"
        ),
        inplace.multi_grad,
        inplace.nondiff_outputs,
    )


_attach_fill_formula()


# ------------------------------------------------------------------------ top-level odds
def is_inference(input):
    """``torch.is_inference(t)``: whether ``t`` was made under ``inference_mode``."""
    if not isinstance(input, Tensor):
        raise TensorTypeError(
            "is_inference(): argument 'input' (position 1) must be Tensor, "
            f"not {type_name(input)}"
        )
    return input.is_inference()


def _method_form(name):
    def function(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TensorTypeError(
                f"{name}(): argument 'input' (position 1) must be Tensor, "
                f"not {type_name(input)}"
            )
        return getattr(input, name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, ...)``: ``input.{name}(...)``, in place."
    return function


detach_ = _method_form("detach_")
gcd_ = _method_form("gcd_")
lcm_ = _method_form("lcm_")
ldexp_ = _method_form("ldexp_")
xlogy_ = _method_form("xlogy_")
as_strided_ = _method_form("as_strided_")


def range(
    start=0,
    end=None,
    step=1,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
):
    """Deprecated ``torch.range``: ``start`` to ``end`` *inclusive* by ``step`` (default
    dtype: the default float dtype), with PyTorch's warning; use ``arange``."""
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
        "which produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    if end is None:
        start, end = 0, start
    if step == 0:
        raise TensorRuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise TensorRuntimeError("upper bound and larger bound inconsistent with step sign")
    count = int(math.floor((end - start) / step)) + 1
    dtype = dtype if dtype is not None else _dtypes.get_default_dtype()
    values = _api.ops.arange(count, dtype=_dtypes.float64, device=device) * step + start
    result = values.to(dtype)
    if out is not None:
        out.resize_(result.shape).copy_(result)
        return out
    return result.requires_grad_() if requires_grad else result


# Build facts PyTorch reports; jtensor's linear algebra and FFT are NumPy's (LAPACK and
# pocketfft), it has no MKL, and NumPy's kernels are single-threaded (no OpenMP).
has_lapack = True
has_spectral = True
has_mkl = False
has_openmp = False


def set_flush_denormal(mode):
    """Flushing denormals to zero needs the CPU's FTZ/DAZ flags, which NumPy does not set:
    returns False (PyTorch's answer on a CPU without support) and changes nothing."""
    if not isinstance(mode, bool):
        raise TensorTypeError(
            f"set_flush_denormal(): argument 'mode' (position 1) must be bool, not "
            f"{type_name(mode)}"
        )
    return False


def get_device_module(device=None):
    """The module of ``device``'s type (``jtensor.cuda`` for ``'cuda'``, ``jtensor.cpu`` for
    ``'cpu'``); without a device, the current accelerator's, else ``jtensor.cpu``."""
    from . import cpu, cuda
    from ._device import device as _device_cls

    if device is None:
        kind = "cuda" if cuda.is_available() else "cpu"
    elif isinstance(device, _device_cls):
        kind = device.type
    elif isinstance(device, str):
        kind = _device_cls(device).type
    else:
        raise TensorRuntimeError(
            f"Invalid value of device '{device}', expect torch.device, str, or None"
        )
    module = {"cpu": cpu, "cuda": cuda}.get(kind)
    if module is None:
        raise TensorRuntimeError(
            f"Device '{kind}' does not have a corresponding module registered as 'torch.{kind}'."
        )
    return module


def empty_permuted(
    size,
    physical_layout,
    *,
    dtype=None,
    layout=None,
    device=None,
    requires_grad=False,
    pin_memory=False,
):
    """An uninitialized tensor of logical shape ``size`` whose memory walks the dims in
    ``physical_layout`` order (outermost first): ``empty(permuted size).permute(inverse)``."""
    size, order = tuple(size), tuple(physical_layout)
    if len(order) != len(size):
        raise TensorRuntimeError(
            f"Number of dimensions in size does not match the length of the physical_layout; "
            f"i.e. len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}"
        )
    if sorted(order) != list(builtins.range(len(size))):
        raise TensorRuntimeError("Duplicate dim not allowed")
    physical = _api.ops.empty(
        [size[d] for d in order], dtype=dtype, layout=layout, device=device, pin_memory=pin_memory
    )
    inverse = [order.index(d) for d in builtins.range(len(size))]
    result = physical.permute(inverse)
    return result.requires_grad_() if requires_grad else result


_warned_readonly = []


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the bytes of an object exposing the buffer protocol (shared, not
    copied): ``count`` elements of ``dtype`` from byte ``offset`` (-1: all that fit).
    A read-only buffer warns once, as PyTorch's."""
    view = memoryview(buffer).cast("B")
    if view.readonly and not _warned_readonly:
        _warned_readonly.append(True)
        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable "
            "tensors. This means you can write to the underlying (supposedly non-writable) "
            "buffer using the tensor. You may want to copy the buffer to protect its data or "
            "make it writable before converting it to a tensor. This type of warning will be "
            "suppressed for the rest of this program.",
            UserWarning,
            stacklevel=2,
        )
    nbytes, itemsize = view.nbytes, dtype.itemsize
    if offset < 0 or offset > nbytes:
        raise TensorValueError(
            f"offset ({offset} bytes) must be non-negative and no greater "
            f"than buffer length ({nbytes} bytes) minus 1"
        )
    if count == 0 or count < -1:
        raise TensorValueError(f"count must be positive or -1, but got {count}")
    if count == -1:
        if (nbytes - offset) % itemsize:
            raise TensorValueError(
                f"buffer length ({nbytes - offset} bytes) after offset ({offset} bytes) must "
                f"be a multiple of element size ({itemsize})"
            )
        count = (nbytes - offset) // itemsize
    elif offset + count * itemsize > nbytes:
        raise TensorValueError(
            f"requested buffer length ({count} * {itemsize} bytes) after offset ({offset} "
            f"bytes) must not be greater than actual buffer length ({nbytes} bytes)"
        )
    array = np.frombuffer(view, dtype=np.uint8, count=count * itemsize, offset=offset)
    # The buffer's own warning (above, once) replaces from_numpy's for a read-only array.
    with ignoring_warnings(message="The given NumPy array is not writable"):
        result = _api.ops.from_numpy(array.view(dtype.numpy))
    return result.requires_grad_() if requires_grad else result


def _declare_forward_rules():
    # The copies of views are linear maps of their input: the tangent is the same copy of the
    # input's tangent. torch.fill is affine (a number fill is constant, a tensor value enters
    # linearly): the generic rule, through fill_'s reverse formula, gives its tangent.
    forward_rule(*COPY_OF_VIEW, kind=LINEAR)
    GENERIC_BY_DESIGN["fill"] = (
        "affine, not linear (a number fill is a constant): the double vjp through fill_'s "
        "formula gives the value's tangent broadcast"
    )


_declare_forward_rules()


# ------------------------------------------------------------------------ legacy typed storages
class _LegacyStorageType(type):
    """The metaclass of ``FloatStorage`` and friends: ``isinstance`` matches a CPU
    ``TypedStorage`` of the class's dtype, as PyTorch's."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, TypedStorage) and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


class _LegacyStorage(metaclass=_LegacyStorageType):
    dtype = None

    def __new__(cls, *args, wrap_storage=None):
        """``FloatStorage()``, ``FloatStorage(size)``, ``FloatStorage(sequence)`` or
        ``FloatStorage(wrap_storage=untyped)``: a ``TypedStorage`` of the class's dtype on
        the CPU (deprecated in PyTorch, which warns once)."""
        warn_typed_storage_removal()
        if wrap_storage is not None and not args:
            return TypedStorage(wrap_storage, cls.dtype)
        if len(args) > 1 or wrap_storage is not None:
            raise TensorRuntimeError(
                f"{cls!r}.__new__ received an invalid combination of arguments. Expected one "
                "of:\n * no arguments\n * (int size)\n * (Sequence data)\n * (*, "
                "UntypedStorage wrap_storage)\nToo many positional arguments"
            )
        if not args:
            data = _api.ops.empty(0, dtype=cls.dtype)
        elif isinstance(args[0], int) and not isinstance(args[0], bool):
            data = _api.ops.empty(args[0], dtype=cls.dtype)
        elif isinstance(args[0], str):
            raise TensorTypeError("new(): invalid data type 'str'")
        else:
            data = _api.ops.tensor(args[0], dtype=cls.dtype)
        return TypedStorage(data.untyped_storage(), cls.dtype)


def _legacy_storage(name, dtype):
    return _LegacyStorageType(
        name,
        (_LegacyStorage,),
        {
            "dtype": dtype,
            "__module__": "jtensor",
            "__doc__": f"PyTorch's legacy ``torch.{name}``: a CPU TypedStorage of {dtype}.",
        },
    )


BFloat16Storage = _legacy_storage("BFloat16Storage", _dtypes.bfloat16)
BoolStorage = _legacy_storage("BoolStorage", _dtypes.bool_)
ByteStorage = _legacy_storage("ByteStorage", _dtypes.uint8)
CharStorage = _legacy_storage("CharStorage", _dtypes.int8)
ComplexDoubleStorage = _legacy_storage("ComplexDoubleStorage", _dtypes.complex128)
ComplexFloatStorage = _legacy_storage("ComplexFloatStorage", _dtypes.complex64)
DoubleStorage = _legacy_storage("DoubleStorage", _dtypes.float64)
FloatStorage = _legacy_storage("FloatStorage", _dtypes.float32)
HalfStorage = _legacy_storage("HalfStorage", _dtypes.float16)
IntStorage = _legacy_storage("IntStorage", _dtypes.int32)
LongStorage = _legacy_storage("LongStorage", _dtypes.int64)
ShortStorage = _legacy_storage("ShortStorage", _dtypes.int16)
_STORAGE_BY_DTYPE = {
    cls.dtype: cls
    for cls in (
        BFloat16Storage,
        BoolStorage,
        ByteStorage,
        CharStorage,
        ComplexDoubleStorage,
        ComplexFloatStorage,
        DoubleStorage,
        FloatStorage,
        HalfStorage,
        IntStorage,
        LongStorage,
        ShortStorage,
    )
}


def storage_type(self):
    """The legacy storage class of the tensor's dtype (``torch.FloatStorage`` for float32)."""
    found = _STORAGE_BY_DTYPE.get(self.dtype)
    if found is None:
        raise TensorRuntimeError(f"storage_type: no legacy storage class for {self.dtype}")
    return found


Tensor.storage_type = storage_type
StorageBase = Storage  # the base class of PyTorch's UntypedStorage: jtensor's Storage


# ------------------------------------------------------------------------ deprecated autocast
def _deprecated_autocast(name, replacement, call):
    def function():
        warnings.warn(
            f"torch.{name}() is deprecated. Please use torch.{replacement} instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return call()

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"Deprecated: ``torch.{replacement}`` (with PyTorch's warning)."
    return function


get_autocast_cpu_dtype = _deprecated_autocast(
    "get_autocast_cpu_dtype", "get_autocast_dtype('cpu')", lambda: get_autocast_dtype("cpu")
)
get_autocast_gpu_dtype = _deprecated_autocast(
    "get_autocast_gpu_dtype", "get_autocast_dtype('cuda')", lambda: get_autocast_dtype("cuda")
)
is_autocast_cpu_enabled = _deprecated_autocast(
    "is_autocast_cpu_enabled", "is_autocast_enabled('cpu')", lambda: is_autocast_enabled("cpu")
)


def thread_safe_generator():
    """The generator a DataLoader *thread* worker should draw from; None elsewhere (the main
    process and process workers use the default generator), which is every case in jtensor:
    its DataLoader workers are processes."""
    return None


# ------------------------------------------------------------------------ histogramdd
histogramdd_result = _return_types.return_type("histogramdd", ("hist", "bin_edges"))
# Registered where pickle looks for it, as PyTorch's torch.return_types.histogramdd.
_return_types.histogramdd = histogramdd_result


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """``D``-dimensional histogram of the points in ``input``'s last dimension (shape
    ``(..., D)``): ``bins`` is one count, ``D`` counts or ``D`` increasing edge tensors;
    ``range`` is ``[min_0, max_0, ..., min_{D-1}, max_{D-1}]`` (default: each coordinate's
    data range); ``weight`` weighs each point. Returns ``(hist, bin_edges)`` with ``hist`` of
    shape ``(bins_0, ..., bins_{D-1})`` in ``input``'s dtype and one edges tensor per dim."""
    if not isinstance(input, Tensor):
        raise TensorTypeError(
            f"histogramdd(): argument 'input' (position 1) must be Tensor, "
            f"not {type_name(input)}"
        )
    if not input.is_floating_point():
        raise TensorNotImplementedError(
            f"\"histogramdd\" not implemented for '{input.dtype._torch_name}'"
        )
    if input.dim() < 1:
        raise TensorRuntimeError(
            "torch.histogramdd: input tensor should have at least 1 dimension, but got 0"
        )
    dims = input.shape[-1]
    if isinstance(bins, int) and not isinstance(bins, bool):
        bins = [bins] * dims
    bins = list(bins)
    if len(bins) != dims:
        raise TensorRuntimeError(
            "histogramdd: The size of bins must be equal to the innermost dimension of the input."
        )
    np_bins = [
        b.detach().cpu().numpy().astype(np.float64) if isinstance(b, Tensor) else int(b)
        for b in bins
    ]
    for b in np_bins:
        if not isinstance(b, np.ndarray) and b <= 0:
            raise TensorRuntimeError(
                f"histogramdd(): bins must be > 0, but got {b} for a dimension"
            )
    ranges = None
    if range is not None:
        range = list(range)
        if len(range) != 2 * dims:
            raise TensorRuntimeError(
                f"histogramdd: for a {dims}-dimensional histogram, range should have "
                f"{2 * dims} elements, but got {len(range)}"
            )
        ranges = [(float(range[2 * d]), float(range[2 * d + 1])) for d in builtins.range(dims)]
    points = input.detach().cpu().numpy().reshape(-1, dims).astype(np.float64)
    weights = None
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape[:-1]):
            raise TensorRuntimeError(
                f"histogramdd: if weight tensor is provided it should have the same shape as "
                f"the input tensor excluding its innermost dimension, but got input with "
                f"shape {list(input.shape)} and weight with shape {list(weight.shape)}"
            )
        weights = weight.detach().cpu().numpy().reshape(-1).astype(np.float64)
    hist, edges = np.histogramdd(
        points, bins=np_bins, range=ranges, weights=weights, density=density
    )
    make = _api.ops.tensor
    return histogramdd_result(
        make(hist, dtype=input.dtype, device=input.device),
        tuple(make(e, dtype=input.dtype, device=input.device) for e in edges),
    )


# ------------------------------------------------------------------------ binomial
def binomial(count, prob, generator=None):
    """``torch.binomial(count, prob)``: one Binomial(``count``, ``prob``) draw per element
    (floating ``count`` and ``prob``; the result has ``count``'s dtype), PyTorch's numbers
    for the same seed or ``generator`` (the sampler of ``distributions.Binomial``)."""
    from .distributions._samplers import binomial as sample

    for name, t in (("count", count), ("prob", prob)):
        if not isinstance(t, Tensor):
            raise TensorTypeError(
                f"binomial(): argument '{name}' must be Tensor, not {type_name(t)}"
            )
        if not t.is_floating_point():
            raise TensorValueError(
                f"binomial only supports floating-point dtypes for {name}, "
                f"got: {t.dtype._torch_name}"
            )
    if tuple(count.shape) != tuple(prob.shape):
        count, prob = _api.ops.broadcast_tensors(count, prob)
    return sample(count.detach(), prob.detach(), generator)


# ------------------------------------------------------------------------ randomized low rank
def _approximate_basis(A, q, niter, M):
    # Halko, Martinsson & Tropp (2009), Algorithm 4.4: a Gaussian sketch of A's range, then
    # ``niter`` power iterations, re-orthonormalized (QR) after every product. M (A's
    # "mean") is subtracted implicitly: (A - M) X is A X - M X.
    J = _api.ops
    dtype = A.dtype if A.is_floating_point() or A.is_complex() else _dtypes.float32
    R = J.randn(A.shape[-1], q, dtype=dtype, device=A.device)

    def times(X, adjoint):
        left = A.mH if adjoint else A
        out = J.matmul(left, X)
        if M is not None:
            out = out - J.matmul(M.mH if adjoint else M, X)
        return out

    Q = linalg.qr(times(R, False)).Q
    for _ in builtins.range(niter):
        Q = linalg.qr(times(Q, True)).Q
        Q = linalg.qr(times(Q, False)).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """A randomized rank-``q`` SVD ``(U, S, V)`` with ``A ~= U diag(S) V^H`` (of ``A - M``
    when ``M`` is given, broadcast to ``A``'s shape), after Halko et al. (2009), Algorithm
    5.1: ``niter`` power iterations sharpen the basis. Draws from the default generator."""
    J = _api.ops
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    wide = m < n
    if wide:  # work on the tall A^H and swap the factors back at the end
        A = A.mH
        M = M.mH if M is not None else None
    Q = _approximate_basis(A, q, niter, M)
    B = J.matmul(Q.mH, A)
    if M is not None:
        B = B - J.matmul(Q.mH, M)
    U, S, Vh = linalg.svd(B, full_matrices=False)
    U, V = J.matmul(Q, U), Vh.mH
    return (V, S, U) if wide else (U, S, V)


def pca_lowrank(A, q=None, center=True, niter=2):
    """Randomized PCA: ``svd_lowrank`` of ``A`` (rows are samples) centred on its column
    means when ``center``; ``q`` defaults to ``min(6, m, n)``. ``V``'s columns are the
    principal directions, ``S**2 / (m - 1)`` the variances along them."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise TensorValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not niter >= 0:
        raise TensorValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter)
    return svd_lowrank(A - A.mean(dim=-2, keepdim=True), q, niter=niter)
