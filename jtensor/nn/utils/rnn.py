"""``torch.nn.utils.rnn``: padding and packing variable-length sequences.

``pad_sequence`` stacks sequences of different lengths into one padded tensor;
``pack_padded_sequence`` / ``pack_sequence`` turn a batch into a ``PackedSequence`` (time-major
rows of the sequences still running at each step, with ``batch_sizes``), which the recurrent
layers (``nn.RNN``, ``nn.LSTM``, ``nn.GRU``) accept; ``pad_packed_sequence`` and
``unpack_sequence`` / ``unpad_sequence`` undo them. ``sorted_indices`` / ``unsorted_indices``
follow PyTorch: ``enforce_sorted=False`` always records the sorting permutation (even when the
lengths were already sorted).
"""

from collections import namedtuple
from collections.abc import Iterable

import numpy as np

from ... import _dtypes
from ..._api import ops as J
from ..._errors import TensorIndexError, TensorRuntimeError, TensorTypeError, TensorValueError
from ..._tensor import Tensor
from ...autograd.function import Function, _node_class
from .._functional._op import nn_op
from ..._errors import type_name

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]

_PackedSequenceBase = namedtuple(
    "PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(_PackedSequenceBase):
    """Holds the ``data`` and ``batch_sizes`` of a packed batch of sequences (a named tuple:
    ``data, batch_sizes, sorted_indices, unsorted_indices``).

    ``data`` holds, time step after time step, the rows of the sequences still running at that
    step; ``batch_sizes[t]`` is how many there are (a CPU int64 tensor). ``sorted_indices`` is
    the permutation that sorted the batch by decreasing length (None when it was already
    sorted with ``enforce_sorted=True``), ``unsorted_indices`` its inverse. Make them with
    ``pack_padded_sequence`` or ``pack_sequence`` rather than by hand.

    >>> import jtensor as torch
    >>> from jtensor.nn.utils.rnn import pack_sequence
    >>> pack_sequence([torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor([6])])
    PackedSequence(data=tensor([1, 4, 6, 2, 5, 3]), batch_sizes=tensor([3, 2, 1]), \
sorted_indices=None, unsorted_indices=None)
    """

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise TensorValueError(
                    "batch_sizes should always be on CPU. Instances of PackedSequence should "
                    "never be created manually. They should be instantiated by functions like "
                    "pack_sequence and pack_padded_sequences in nn.utils.rnn.")
        else:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """Convert ``data`` (dtype and/or device, like ``Tensor.to``); the index tensors follow
        ``data``'s device, ``batch_sizes`` stays on the CPU. Returns ``self`` when nothing
        changes."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        non_blocking = bool(kwargs.get("non_blocking", False))

        def call_to(t):
            return t.to(data.device, non_blocking=non_blocking)

        return type(self)(data, self.batch_sizes, _bind(self.sorted_indices, call_to),
                          _bind(self.unsorted_indices, call_to))

    def cuda(self, *args, **kwargs):
        """Move to a CUDA device (``data`` and the index tensors)."""
        kwargs.setdefault("device", "cuda")
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        """Move to the CPU."""
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def pin_memory(self):
        """Pinned-memory copy (a no-op on the NumPy backend)."""
        return self

    def double(self):
        return self.to(dtype=_dtype("float64"))

    def float(self):
        return self.to(dtype=_dtype("float32"))

    def half(self):
        return self.to(dtype=_dtype("float16"))

    def long(self):
        return self.to(dtype=_dtype("int64"))

    def int(self):
        return self.to(dtype=_dtype("int32"))

    def short(self):
        return self.to(dtype=_dtype("int16"))

    def char(self):
        return self.to(dtype=_dtype("int8"))

    def byte(self):
        return self.to(dtype=_dtype("uint8"))

    @property
    def is_cuda(self):
        """Whether ``data`` is on a GPU."""
        return self.data.is_cuda

    def is_pinned(self):
        """Whether ``data`` is in pinned memory (never on the NumPy backend)."""
        return False


def _dtype(name):
    return _dtypes.ALIASES[name]


def invert_permutation(permutation):
    """The inverse of a 1-D permutation tensor (None stays None)."""
    if permutation is None:
        return None
    output = J.empty_like(permutation)
    output.scatter_(0, permutation, J.arange(0, permutation.numel(), device=permutation.device))
    return output


# ---------------------------------------------------------------------- packing
class _PackPadded(Function):
    """Gathers the rows of the running sequences, step by step, with one ``index_select``;
    the backward scatters the gradient back into a zero tensor of the input's shape."""

    @staticmethod
    def forward(ctx, input, index):
        rest = tuple(input.shape[2:])
        ctx.index = index
        ctx.shape = tuple(input.shape)
        return input.reshape((-1,) + rest).index_select(0, index)

    @staticmethod
    def backward(ctx, grad):
        shape = ctx.shape
        n = shape[0] * shape[1]
        out = grad.new_zeros((n,) + shape[2:])
        out = out.index_add(0, ctx.index, grad)
        return out.view(shape), None


_node = _node_class(_PackPadded)
_node.__name__ = _node.__qualname__ = "PackPaddedSequenceBackward0"


def _lengths_tensor(lengths):
    if isinstance(lengths, Tensor):
        if lengths.device.type != "cpu" or lengths.dim() != 1:
            raise TensorRuntimeError(
                f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                f"{lengths.dim()}D {lengths.device.type} {lengths.dtype} tensor")
        return lengths.to(dtype=_dtypes.int64)
    arr = np.asarray(lengths)
    if arr.ndim != 1:
        raise TensorRuntimeError(
            f"'lengths' argument should be a 1D list or CPU int64 tensor, but got "
            f"{arr.ndim}D lengths")
    return J.as_tensor(lengths, dtype=_dtypes.int64, device="cpu")


def _check_lengths(lens, batch_size, max_len, enforce_sorted, batch_first):
    if len(lens) != batch_size:
        # With enforce_sorted=False and too many lengths, PyTorch fails while picking rows
        # that do not exist: IndexError when the batch is dim 0 (batch_first), RuntimeError
        # when it is dim 1. With too few it silently drops the last rows, which jtensor
        # refuses like the enforce_sorted=True case.
        cls = TensorIndexError if (len(lens) > batch_size and not enforce_sorted
                                   and batch_first) else TensorRuntimeError
        raise cls(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
            f"(batch_size={batch_size})")
    if len(lens) and lens.min() <= 0:
        raise TensorRuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            f"'lengths' that is <= 0 (lengths={lens.tolist()})")
    if enforce_sorted and np.any(lens[1:] > lens[:-1]):
        raise TensorRuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability.")
    if len(lens) and lens.max() > max_len:
        raise TensorRuntimeError(
            f"a length in 'lengths' ({int(lens.max())}) is larger than the padded sequence "
            f"length of the input ({max_len}); lengths={lens.tolist()}")


@nn_op()
def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch ``input`` (``T x B x *``, or ``B x T x *`` with ``batch_first``)
    of sequences with the given ``lengths`` (a list or a 1-D CPU tensor) into a
    ``PackedSequence``.

    With ``enforce_sorted=True`` the lengths must be in decreasing order (RuntimeError
    otherwise); with ``False`` the batch is sorted first and the permutation is recorded in
    ``sorted_indices``. Every length must be > 0 and there must be one per batch element.
    A registered op (kind ``"nn"``): one call is one trace event, whose ``data`` carries
    PyTorch's ``PackPaddedSequenceBackward0`` node.

    >>> import jtensor as torch
    >>> from jtensor.nn.utils.rnn import pack_padded_sequence
    >>> seq = torch.tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]])
    >>> pack_padded_sequence(seq, [2, 1, 3], batch_first=True, enforce_sorted=False)
    PackedSequence(data=tensor([4, 1, 3, 5, 2, 6]), batch_sizes=tensor([3, 2, 1]), \
sorted_indices=tensor([2, 0, 1]), unsorted_indices=tensor([1, 2, 0]))
    """
    if not isinstance(input, Tensor):
        raise TensorTypeError(
            f"pack_padded_sequence(): input must be a Tensor, not {type_name(input)}")
    lengths = _lengths_tensor(lengths)
    if input.dim() < 2:
        raise TensorRuntimeError(
            f"pack_padded_sequence(): input must have at least 2 dimensions (T x B x * or "
            f"B x T x *), got {input.dim()}")
    batch_dim, time_dim = (0, 1) if batch_first else (1, 0)
    batch_size, max_len = input.shape[batch_dim], input.shape[time_dim]
    lens = lengths.numpy().astype(np.int64)
    sorted_indices = None
    _check_lengths(lens, batch_size, max_len, enforce_sorted, batch_first)
    if not enforce_sorted:
        lengths, sorted_indices = J.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(batch_dim, sorted_indices)
        lens = lengths.numpy().astype(np.int64)
    steps = int(lens[0]) if len(lens) else 0
    # batch_sizes[t] = number of sequences longer than t.
    batch_sizes = (lens[None, :] > np.arange(steps)[:, None]).sum(axis=1).astype(np.int64)
    # Flat row index (in input.reshape(-1, *rest)) of each packed row, time-major.
    t_idx = np.repeat(np.arange(steps), batch_sizes)
    b_idx = np.concatenate([np.arange(int(bs)) for bs in batch_sizes]) if steps else \
        np.zeros(0, np.int64)
    flat = b_idx * max_len + t_idx if batch_first else t_idx * batch_size + b_idx
    index = J.as_tensor(flat.astype(np.int64), device=input.device)
    data = _PackPadded.apply(input, index)
    # batch_sizes always live on the CPU, as in PyTorch.
    return PackedSequence(data, J.as_tensor(batch_sizes, dtype=_dtypes.int64, device="cpu"),
                          sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Pad a ``PackedSequence`` back into a tensor (``T x B x *``, or ``B x T x *`` with
    ``batch_first``); returns ``(padded, lengths)`` with the batch in its original order.
    ``total_length`` pads to that many steps (ValueError if shorter than the longest
    sequence).

    >>> import jtensor as torch
    >>> from jtensor.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    >>> seq = torch.tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]])
    >>> packed = pack_padded_sequence(seq, [2, 1, 3], batch_first=True, enforce_sorted=False)
    >>> pad_packed_sequence(packed, batch_first=True)
    (tensor([[1, 2, 0],
            [3, 0, 0],
            [4, 5, 6]]), tensor([2, 1, 3]))
    """
    if not isinstance(sequence, PackedSequence):
        raise TensorTypeError(
            f"pad_packed_sequence(): expected a PackedSequence, got {type_name(sequence)}")
    batch_sizes = sequence.batch_sizes.numpy().astype(np.int64)
    max_seq_length = len(batch_sizes)
    if total_length is not None:
        if total_length < max_seq_length:
            raise TensorValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{max_seq_length}")
        max_seq_length = total_length
    data = sequence.data
    batch = int(batch_sizes[0]) if len(batch_sizes) else 0
    rest = tuple(data.shape[1:])
    out = data.new_full((max_seq_length, batch) + rest, padding_value)
    t_idx = np.repeat(np.arange(len(batch_sizes)), batch_sizes)
    b_idx = np.concatenate([np.arange(int(bs)) for bs in batch_sizes]) if len(batch_sizes) \
        else np.zeros(0, np.int64)
    index = J.as_tensor((t_idx * batch + b_idx).astype(np.int64), device=data.device)
    # A write through a view: the result's history is CopySlices, as in PyTorch.
    out.view((max_seq_length * batch,) + rest)[index] = data
    # lengths[b] = number of steps at which b is still running.
    lens = (batch_sizes[None, :] > np.arange(batch)[:, None]).sum(axis=1).astype(np.int64)
    lengths = J.as_tensor(lens, dtype=_dtypes.int64)
    if batch_first:
        out = out.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return (out.index_select(batch_dim, sequence.unsorted_indices),
                lengths[sequence.unsorted_indices.cpu()])
    return out, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack a list of ``L_i x *`` tensors into one ``T x B x *`` tensor (``B x T x *`` with
    ``batch_first``), padding each to the longest length ``T`` with ``padding_value`` on the
    ``padding_side`` (``"right"`` or ``"left"``). The result has the first tensor's dtype.

    >>> import jtensor as torch
    >>> from jtensor.nn.utils.rnn import pad_sequence
    >>> pad_sequence([torch.ones(3), torch.ones(1)], batch_first=True)
    tensor([[1., 1., 1.],
            [1., 0., 0.]])
    """
    if not isinstance(sequences, Iterable):
        raise TensorRuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise TensorRuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise TensorRuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}.")
    for i, s in enumerate(sequences):
        if not isinstance(s, Tensor):
            raise TensorTypeError(
                f"pad_sequence: expected a sequence of Tensors, but element {i} is "
                f"{type(s).__name__}")
        if s.dim() == 0:
            raise TensorRuntimeError(
                f"pad_sequence: sequence {i} is a 0-d tensor; each sequence needs a length "
                "dimension (L x *)")
    first = sequences[0]
    rest = tuple(first.shape[1:])
    for i, s in enumerate(sequences):
        if tuple(s.shape[1:]) != rest:
            raise TensorRuntimeError(
                f"pad_sequence: all sequences must have the same trailing dimensions; "
                f"sequence 0 has shape {list(first.shape)} and sequence {i} has shape "
                f"{list(s.shape)}")
    lens = np.array([s.shape[0] for s in sequences], dtype=np.int64)
    batch, max_len = len(sequences), int(lens.max())
    shape = (batch, max_len) if batch_first else (max_len, batch)
    out = J.full(shape + rest, padding_value, dtype=first.dtype, device=first.device)
    b_idx = np.repeat(np.arange(batch), lens)
    starts = (max_len - lens) if padding_side == "left" else np.zeros(batch, np.int64)
    t_idx = np.concatenate([np.arange(int(s), int(s) + int(n))
                            for s, n in zip(starts, lens, strict=True)])
    flat = b_idx * max_len + t_idx if batch_first else t_idx * batch + b_idx
    if len(flat):
        values = sequences[0] if batch == 1 else J.cat(
            [s if s.dtype == first.dtype else s.to(first.dtype) for s in sequences])
        index = J.as_tensor(flat, device=first.device)
        out.view((batch * max_len,) + rest)[index] = values
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded tensor back into a list of tensors of the given ``lengths``.

    PyTorch transposes ``padded_sequences`` in place when ``batch_first=False``; jtensor does
    the same when ``Tensor.transpose_`` exists, and otherwise reads a transposed view (the
    argument is then left as it was).

    >>> import jtensor as torch
    >>> from jtensor.nn.utils.rnn import unpad_sequence
    >>> unpad_sequence(torch.ones(3, 2), torch.tensor([3, 1]))
    [tensor([1., 1., 1.]), tensor([1.])]
    """
    unpadded = []
    if not batch_first:
        if hasattr(padded_sequences, "transpose_"):
            padded_sequences.transpose_(0, 1)
        else:  # no in-place transpose in the core yet
            padded_sequences = padded_sequences.transpose(0, 1)
    max_length = padded_sequences.shape[1]
    idx = J.arange(max_length, device=lengths.device)
    if len(padded_sequences) != len(lengths):
        raise TensorValueError(
            f"unpad_sequence: {len(padded_sequences)} padded sequences but {len(lengths)} "
            "lengths")
    for seq, length in zip(padded_sequences, lengths, strict=True):
        unpadded.append(seq[idx < length])
    return unpadded


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of ``L_i x *`` tensors (``pad_sequence`` then ``pack_padded_sequence``).

    >>> import jtensor as torch
    >>> from jtensor.nn.utils.rnn import pack_sequence
    >>> a, b, c = torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor([6])
    >>> pack_sequence([a, c, b], enforce_sorted=False)
    PackedSequence(data=tensor([1, 4, 6, 2, 5, 3]), batch_sizes=tensor([3, 2, 1]), \
sorted_indices=tensor([0, 2, 1]), unsorted_indices=tensor([0, 2, 1]))
    """
    lengths = J.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Unpack a ``PackedSequence`` into the list of its sequences (original order).

    >>> import jtensor as torch
    >>> from jtensor.nn.utils.rnn import pack_sequence, unpack_sequence
    >>> unpack_sequence(pack_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])]))
    [tensor([1, 2, 3]), tensor([4])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
