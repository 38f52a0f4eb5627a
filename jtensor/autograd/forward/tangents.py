"""Where tangents live and how a tensor gets one.

A tensor's tangents are in ``Tensor._fw_grads``, a dict ``{level: tangent}`` (None at class
level, so the plain path never pays for it). ``None`` as a value means "explicitly no
tangent" (``unpack_dual``'s primal): the lookup then stops there instead of reading the
base's.

PyTorch keeps a tangent's layout equal to its primal's (same shape, strides and storage
offset), so that a view of a dual has a tangent that is the same view of the base's tangent
and an in-place op on either is seen by both. ``with_layout_of`` enforces it;
``tangent_of`` reads a view's tangent out of its base's when the view has none of its own
(the view was made before the base became dual).
"""

import weakref

from ..._api import ops as J

_MISSING = object()


def element_count(t):
    """Elements in ``t``'s storage (in ``t``'s dtype)."""
    return t._storage.nbytes() // t._dtype.itemsize


def own_tangent(t, level):
    """``t``'s own tangent at ``level`` (no lookup through the base), or None."""
    fw = t._fw_grads
    if fw is None:
        return None
    return fw.get(level)


def tangent_of(t, level):
    """``t``'s tangent at ``level``, or None (a view without its own reads its base's)."""
    fw = t._fw_grads
    if fw is not None:
        tangent = fw.get(level, _MISSING)
        if tangent is not _MISSING:
            return tangent
    base = t._base
    if base is None:
        return None
    base_tangent = own_tangent(base, level)
    if base_tangent is None or base._dtype is not t._dtype:
        return None
    tangent = _view_of_base_tangent(base_tangent, t, base)
    attach(level, t, tangent)
    return tangent


def _view_of_base_tangent(base_tangent, view, base):
    # The base's tangent has the base's layout, so the view's geometry applies to it.
    return J.as_strided(
        base_tangent, view._shape, view._stride, base_tangent._offset + view._offset - base._offset
    )


def attach(level, t, tangent):
    """Record ``tangent`` as ``t``'s tangent at ``level`` (no layout check)."""
    fw = t.__dict__.get("_fw_grads")
    if fw is None:
        fw = t._fw_grads = {}
        level.duals.append(weakref.ref(t))
    fw[level] = tangent


def same_layout(tangent, primal):
    """True when ``tangent`` may stand as ``primal``'s tangent as it is."""
    return (
        tangent._shape == primal._shape
        and tangent._stride == primal._stride
        and tangent._offset == primal._offset
    )


def _zeros_with_layout_of(primal, dtype):
    """Zeros over a storage as large as ``primal``'s, viewed with ``primal``'s geometry."""
    if primal._offset == 0 and primal._base is None and primal.is_contiguous():
        return J.zeros(primal._shape, dtype=dtype, device=primal.device)
    flat = J.zeros(max(element_count(primal), 1), dtype=dtype, device=primal.device)
    return J.as_strided(flat, primal._shape, primal._stride, primal._offset)


def with_layout_of(tangent, primal):
    """``tangent`` itself when its layout is ``primal``'s, else a copy with that layout."""
    if same_layout(tangent, primal):
        return tangent
    if primal._offset == 0 and not _overlapping(primal):
        result = J.empty_strided(
            primal._shape, primal._stride, dtype=tangent._dtype, device=primal.device
        )
    else:
        result = _zeros_with_layout_of(primal, tangent._dtype)
    result.copy_(tangent)
    return result


def _overlapping(t):
    # An expanded primal (stride 0) cannot own a dense tangent of its layout by
    # empty_strided's rules: such tangents go through a flat buffer instead.
    return any(s == 0 and n > 1 for s, n in zip(t._stride, t._shape, strict=True))


def materialize(level, t, dtype=None):
    """Give ``t`` a zero tangent of its own layout (a view of its base's, made zero when
    the base has none yet), as PyTorch does before an in-place op writes into a tensor that
    had no tangent. Returns the tangent."""
    dtype = t._dtype if dtype is None else dtype
    base = t._base
    if base is not None and base._dtype is t._dtype:
        base_tangent = own_tangent(base, level)
        if base_tangent is None:
            base_tangent = _zeros_with_layout_of(base, dtype)
            attach(level, base, base_tangent)
        tangent = _view_of_base_tangent(base_tangent, t, base)
    else:
        tangent = _zeros_with_layout_of(t, dtype)
    attach(level, t, tangent)
    return tangent


def set_output_tangent(level, t, tangent):
    """``t`` is a new output: its tangent is ``tangent`` with ``t``'s layout."""
    if tangent._shape != t._shape:
        tangent = J.broadcast_to(tangent, t._shape)
    attach(level, t, with_layout_of(tangent, t))


def update_in_place(level, t, tangent):
    """An in-place op wrote ``t``: its tangent (made when it had none) takes the new value
    in place, so that the tangents of its views and base see the write."""
    current = tangent_of(t, level)
    if current is None:
        current = materialize(level, t, None if tangent is None else tangent._dtype)
    if tangent is None:
        current.zero_()
    elif tangent is not current:
        current.copy_(tangent)
    return current


def has_tangent(t):
    """Whether ``t`` (or its base) holds a tangent at any level."""
    if t._fw_grads:
        return True
    base = t._base
    return base is not None and bool(base._fw_grads)
