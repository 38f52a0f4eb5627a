"""Pure metadata arithmetic on (shape, stride): PyTorch's rules, written out in Python.

Everything here works on plain tuples of ints and never touches data, so the same rules
serve views, the dispatcher and the visualisations.
"""

import functools

from ._errors import TensorRuntimeError


@functools.lru_cache(maxsize=4096)
def _contiguous_strides(shape):
    strides = [1] * len(shape)
    step = 1
    for i in range(len(shape) - 1, -1, -1):
        strides[i] = step
        step *= shape[i] if shape[i] > 1 else 1
    return tuple(strides)


def contiguous_strides(shape):
    """Row-major strides in elements; size-0 and size-1 dims count as 1, as in PyTorch."""
    return _contiguous_strides(shape if shape.__class__ is tuple else tuple(shape))


def channels_last_strides(shape):
    """NHWC strides for a 4-d shape (or NDHWC for 5-d).

    Unlike ``contiguous_strides``, a size-0 dim is NOT counted as 1 (PyTorch's
    ``get_channels_last_strides_2d``): ``(2, 3, 0, 4)`` gets strides ``(0, 1, 12, 3)``.
    """
    if len(shape) == 4:
        order = (1, 3, 2, 0)
    elif len(shape) == 5:
        order = (1, 4, 3, 2, 0)
    else:
        raise TensorRuntimeError(
            "required rank 4 tensor to use channels_last format, got a tensor of rank "
            f"{len(shape)}")
    strides = [0] * len(shape)
    step = 1
    for d in order:
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def is_contiguous(shape, stride):
    if 0 in shape:
        return True
    expected = 1
    for size, st in zip(reversed(shape), reversed(stride), strict=True):
        if size != 1:
            if st != expected:
                return False
            expected *= size
    return True


def is_channels_last(shape, stride):
    if len(shape) == 4:
        order = (1, 3, 2, 0)
    elif len(shape) == 5:
        order = (1, 4, 3, 2, 0)
    else:
        return False
    expected = 1
    for d in order:
        if shape[d] != 1:
            if stride[d] != expected:
                return False
            expected *= shape[d]
    return True


def is_non_overlapping_and_dense(shape, stride):
    """True when the elements fill a block of memory exactly once (any dim order).

    As in PyTorch, a contiguous (so also any empty) or channels-last-contiguous layout
    counts as dense whatever the strides of its size-0/size-1 dims.
    """
    if is_contiguous(shape, stride) or (len(shape) in (4, 5) and is_channels_last(shape, stride)):
        return True
    ndim = len(shape)
    if ndim == 1:
        return shape[0] < 2 or stride[0] == 1
    perm = sorted(range(ndim), key=lambda d: (shape[d] < 2, stride[d] if shape[d] >= 2 else 0))
    required = 1
    for d in perm:
        if shape[d] < 2:
            return True
        if stride[d] != required:
            return False
        required *= shape[d]
    return True


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def infer_size(shape, total):
    """Resolve one ``-1`` in ``shape`` for ``total`` elements, with PyTorch's errors."""
    known = 1
    infer_at = None
    for i, s in enumerate(shape):
        if s == -1:
            if infer_at is not None:
                raise TensorRuntimeError("only one dimension can be inferred")
            infer_at = i
        elif s >= 0:
            known *= s
        else:
            raise TensorRuntimeError(
                f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
    if total == known or (infer_at is not None and known > 0 and total % known == 0):
        if infer_at is None:
            return tuple(shape)
        if known == 0:
            raise TensorRuntimeError(
                f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous")
        result = list(shape)
        result[infer_at] = total // known
        return tuple(result)
    raise TensorRuntimeError(
        f"shape '{list(shape)}' is invalid for input of size {total}")


def view_strides(old_shape, old_stride, new_shape):
    """Strides that let ``new_shape`` view memory laid out as (old_shape, old_stride).

    Returns ``None`` when no such strides exist, that is when a new dimension would have to
    span two separately strided chunks of the old layout (PyTorch's ``computeStride``).
    """
    if not old_shape:
        return (1,) * len(new_shape)
    total = numel(old_shape)
    if total == 0 and tuple(old_shape) == tuple(new_shape):
        return tuple(old_stride)
    new_stride = [0] * len(new_shape)
    if total == 0:
        for d in range(len(new_shape) - 1, -1, -1):
            new_stride[d] = (1 if d == len(new_shape) - 1
                             else max(new_shape[d + 1], 1) * new_stride[d + 1])
        return tuple(new_stride)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_stride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        if tensor_d == 0 or (old_shape[tensor_d - 1] != 1
                             and old_stride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_stride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_stride)


def _dimension_order(shape, operand_strides):
    """TensorIterator's ordering of dims, fastest-moving first, from the operands' strides.

    ``operand_strides`` holds each input's strides broadcast to ``shape`` (0 where it is
    broadcast). Ties and broadcast dims are resolved exactly as ``reorder_dimensions`` does.
    """
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))
    if ndim <= 1:
        return perm

    def should_swap(dim0, dim1):
        for strides in operand_strides:
            s0, s1 = strides[dim0], strides[dim1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    for i in range(1, ndim):
        dim1 = i
        for dim0 in range(i - 1, -1, -1):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return perm


def _strides_for_order(shape, perm, at_least_one=False):
    """Dense strides that walk dims in ``perm`` order (fastest first), as TensorIterator does.

    ``at_least_one``: count size-0 dims as 1 (``infer_dense_strides``, used by
    ``empty_like``/``clone``); TensorIterator's output allocation multiplies raw sizes.
    """
    strides = [0] * len(shape)
    step = 1
    for d in perm:
        strides[d] = step
        size = shape[d]
        step *= size if size > 1 or not at_least_one else 1
    return tuple(strides)


def broadcast_strides(shape, in_shape, in_stride):
    """The strides of an input of (in_shape, in_stride) broadcast to ``shape`` (0 = repeated)."""
    lead = len(shape) - len(in_shape)
    result = [0] * lead
    for size, st, out_size in zip(in_shape, in_stride, shape[lead:], strict=True):
        result.append(0 if size == 1 and out_size != 1 else st)
    return result


def elementwise_output_strides(shape, operands):
    """Output strides of an element-wise op over ``operands`` [(shape, stride), ...].

    Mirrors TensorIterator: if every operand has the output's shape and they are all
    contiguous, channels-last, or dense with identical strides, the output copies that
    layout; otherwise dims are sorted by the inputs' strides so a transposed or permuted
    input gives a likewise permuted output.
    """
    if all(op_shape == shape for op_shape, _ in operands):
        if all(is_contiguous(s, st) for s, st in operands):
            return contiguous_strides(shape)
        # TensorIterator's fast path knows channels_last (4-d) only, not channels_last_3d.
        if len(shape) == 4 and all(is_channels_last(s, st) for s, st in operands):
            return channels_last_strides(shape)
        first = operands[0][1]
        if all(is_non_overlapping_and_dense(s, st) and st == first for s, st in operands):
            return tuple(first)
    perm = _dimension_order(shape, [broadcast_strides(shape, s, st) for s, st in operands])
    if perm == list(range(len(shape) - 1, -1, -1)):
        return contiguous_strides(shape)
    return _strides_for_order(shape, perm)


def dense_strides_like(shape, stride):
    """Strides for a dense copy that keeps the dim order of (shape, stride) (preserve_format).

    A dense input keeps its strides; any other gets PyTorch's ``infer_dense_strides``: dims
    sorted by stride as TensorIterator does (stride-0 dims stay where they are).
    """
    if is_non_overlapping_and_dense(shape, stride):
        return tuple(stride)
    perm = _dimension_order(shape, [list(stride)])
    return _strides_for_order(shape, perm, at_least_one=True)


def _channels_last_strides_like(shape, stride, order):
    # PyTorch's is_channels_last_strides_2d_s4 / _3d_s5: does the stride order say NHWC?
    if stride[1] == 0:
        return False
    smallest = 0
    for d in order:
        if shape[d] == 0 or stride[d] < smallest:
            return False
        if d == 0 and smallest == stride[1]:
            return False  # ambiguous (N111 or a sliced N11W): NCHW wins
        smallest = stride[d] * shape[d] if shape[d] > 1 else stride[d]
    return True


def suggest_memory_format(shape, stride):
    """The memory format a layout looks like (PyTorch's ``suggest_memory_format``).

    Returns ``"channels_last"``, ``"channels_last_3d"`` or ``"contiguous_format"``; ``to()``
    returns its input unchanged when this equals the requested format.
    """
    if len(shape) == 4 and _channels_last_strides_like(shape, stride, (1, 3, 2, 0)):
        return "channels_last"
    if len(shape) == 5 and _channels_last_strides_like(shape, stride, (1, 4, 3, 2, 0)):
        return "channels_last_3d"
    return "contiguous_format"


def suggests_channels_last(shape, stride):
    """Whether ``suggest_memory_format`` says channels-last (``channels_last`` for 4 dims,
    ``channels_last_3d`` for 5): the layout PyTorch's convolutions, poolings, interpolations
    and joins give their result. The stride order decides, not exact density (a sliced
    channels-last tensor suggests it), and the batch dim's stride counts (an unsqueezed
    ``(C, H, W)`` image permuted from ``(H, W, C)`` suggests contiguous)."""
    return suggest_memory_format(shape, stride) != "contiguous_format"


def broadcast_shapes(*shapes):
    """The shape all inputs broadcast to, or PyTorch's ``RuntimeError`` naming the clash."""
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        offset = ndim - len(shape)
        for i in range(len(shape) - 1, -1, -1):
            size = shape[i]
            current = result[offset + i]
            if size == current or size == 1:
                continue
            if current == 1:
                result[offset + i] = size
                continue
            raise TensorRuntimeError(
                f"The size of tensor a ({current}) must match the size of tensor b ({size}) "
                f"at non-singleton dimension {offset + i}"
            )
    return tuple(result)


def storage_extent(shape, stride, offset):
    """One past the largest element index the layout touches (0 for an empty tensor)."""
    if 0 in shape:
        return 0
    return offset + 1 + sum((s - 1) * st for s, st in zip(shape, stride, strict=True))


def broadcastable_to(shape, target):
    """Whether ``shape`` broadcasts to ``target`` (each trailing size equal or 1)."""
    if len(shape) > len(target):
        return False
    # strict=False: ``target``'s leading dims beyond ``shape``'s broadcast from nothing.
    for s, t in zip(reversed(shape), reversed(target), strict=False):
        if s != t and s != 1:
            return False
    return True
