"""``torch.nn.attention.bias``: causal masks for queries and keys of different lengths.

``causal_upper_left(L, S)`` lets query ``i`` see keys ``0..i`` (``is_causal=True``'s mask);
``causal_lower_right(L, S)`` aligns the last query with the last key, so query ``i`` sees
keys ``0..i + S - L`` (decoding the last L tokens of a sequence of S). Either is passed as
``attn_mask`` to ``scaled_dot_product_attention`` and prints as its boolean mask.

As in PyTorch, ``CausalBias`` is a ``Tensor`` subclass, and a peculiar one: PyTorch's class
keeps ``torch.Tensor``'s constructor, so the arguments ``(variant, seq_len_q, seq_len_kv)``
reach the legacy constructor ``torch.Tensor(*sizes)`` as a size. The tensor itself is
therefore an *uninitialised* ``(variant, seq_len_q, seq_len_kv)`` tensor of the default
dtype (``(1, L, S)`` for ``UPPER_LEFT``, ``(2, L, S)`` for ``LOWER_RIGHT``): its ``shape``,
``dtype`` and any arithmetic on it (``scores + bias``, ``bias.float()``) see that memory,
not the mask; nothing refuses. Only ``repr``/``str`` (the mask's) and
``scaled_dot_product_attention`` know what it stands for. ``_materialize()`` gives the
boolean mask itself.

``scaled_dot_product_attention`` reaches ``CausalBias._dispatch`` (PyTorch's
``__torch_function__`` override) through the registry's class dispatch: the bias is
registered as its own "layout" whose one kernel is that op's, selected when ``attn_mask``
is a ``CausalBias``. ``_dispatch`` refuses ``is_causal=True`` beside the bias (ValueError);
an upper-left bias, or one with ``seq_len_q == seq_len_kv``, becomes ``is_causal=True``
(the bias's own lengths are then not used); a lower-right one is materialised for the
query's device."""

import warnings
from enum import IntEnum, auto

from ..._errors import TensorRuntimeError, TensorValueError, type_name
from ..._registry import layout_kernel, register_layout
from ..._tensor import Tensor
from ..._torch_function import _disabled_torch_function_impl

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(IntEnum):
    """Where the causal mask's diagonal starts: the top left or the bottom right corner."""

    UPPER_LEFT = auto()
    LOWER_RIGHT = auto()


class CausalBias(Tensor):
    """A causal mask of ``seq_len_q`` queries by ``seq_len_kv`` keys, made when needed (by
    ``_materialize``, or by ``scaled_dot_product_attention`` when passed as its
    ``attn_mask``). See the module docstring for what the tensor itself holds.

    >>> import jtensor as torch
    >>> from jtensor.nn.attention.bias import causal_lower_right
    >>> bias = causal_lower_right(2, 3)
    >>> isinstance(bias, torch.Tensor), bias.seq_len_q, bias.seq_len_kv
    (True, 2, 3)
    >>> bias
    tensor([[ True,  True, False],
            [ True,  True,  True]])
    """

    # Not dispatched to ``__torch_function__`` (its results are plain tensors).
    __torch_function__ = _disabled_torch_function_impl

    __slots__ = ()  # Tensor's layout, so a tensor made by the legacy constructor can become one

    def __new__(cls, *args, **kwargs):
        # PyTorch's CausalBias inherits ``torch.Tensor.__new__``: the same arguments, the same
        # refusals (a variant that is not an int is refused here, before ``__init__``).
        self = Tensor.__new__(Tensor, *args, **kwargs)
        self.__class__ = cls
        return self

    def __init__(self, variant, seq_len_q, seq_len_kv):
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type_name(variant)}")
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warnings.warn(
                "Lower right causal bias will produce NaNs in the output when "
                "seq_len_q > seq_len_kv!",
                stacklevel=2,
            )

    # ------------------------------------------------------------------ the mask
    def _triangle(self, device, diagonal):
        from ..._api import ops as J
        from ..._dtypes import bool_

        ones = J.ones((self.seq_len_q, self.seq_len_kv), dtype=bool_, device=device)
        return ones.tril(diagonal)

    def _upper_left(self, device):
        """The upper-left mask: query ``i`` sees keys ``0..i``."""
        return self._triangle(device, 0)

    def _lower_right(self, device):
        """The lower-right mask: query ``i`` sees keys ``0..i + seq_len_kv - seq_len_q``."""
        return self._triangle(device, self.seq_len_kv - self.seq_len_q)

    def _materialize(self, device=None):
        """The boolean mask (True: may attend), ``(seq_len_q, seq_len_kv)``, a plain tensor
        on ``device`` (the CPU when None, as PyTorch's)."""
        if device is None:
            device = "cpu"
        if self.variant == CausalVariant.UPPER_LEFT:
            return self._upper_left(device)
        if self.variant == CausalVariant.LOWER_RIGHT:
            return self._lower_right(device)
        return None  # (PyTorch's falls through too; ``__init__`` admits no other variant)

    # ------------------------------------------------------------------ attention
    @staticmethod
    def _dispatch(
        query, key, value, attn_mask, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False
    ):
        """``scaled_dot_product_attention`` with ``attn_mask`` a ``CausalBias`` (PyTorch's
        ``CausalBias._dispatch``, what its ``__torch_function__`` calls)."""
        from .._functional.attention import scaled_dot_product_attention as sdpa

        if is_causal:
            raise TensorValueError("CausalBias should not be used with causal=True")
        if (
            attn_mask.seq_len_q == attn_mask.seq_len_kv
            or attn_mask.variant == CausalVariant.UPPER_LEFT
        ):
            return sdpa(
                query,
                key,
                value,
                attn_mask=None,
                dropout_p=dropout_p,
                is_causal=True,
                scale=scale,
                enable_gqa=enable_gqa,
            )
        if attn_mask.variant == CausalVariant.LOWER_RIGHT:
            # PyTorch's CPU build has no kernel for this mask: it checks the inputs as its
            # fused kernels would want them (ValueError), then materialises the mask.
            _check_inputs(query, key, value)
            return sdpa(
                query,
                key,
                value,
                attn_mask=attn_mask._materialize(query.device),
                dropout_p=dropout_p,
                is_causal=False,
                scale=scale,
                enable_gqa=enable_gqa,
            )
        raise TensorValueError(
            f"CausalBias.variant must be a CausalVariant type, but found: {attn_mask.variant}"
        )

    # ------------------------------------------------------------------ Python protocols
    def __repr__(self):
        return repr(self._materialize())

    def __reduce_ex__(self, protocol):
        # PyTorch pickles the subclass with its attributes (the data is uninitialised).
        return (_rebuild_causal_bias, (self.variant, self.seq_len_q, self.seq_len_kv))

    def __deepcopy__(self, memo):
        # PyTorch's deepcopy of this subclass fails (its ``new_empty`` is not one).
        raise TensorRuntimeError(
            "The default implementation of __deepcopy__() for non-wrapper subclasses only "
            "works for subclass types that implement new_empty() and for which that function "
            "returns another instance of the same subclass. You should either properly "
            "implement new_empty() for your subclass or override __deepcopy__() if it is "
            "intended behavior for new_empty() to return an instance of a different type."
        )


def _check_inputs(query, key, value):
    """PyTorch's ``_validate_sdpa_input`` (its messages; ValueError)."""
    if query.dtype != key.dtype or query.dtype != value.dtype:
        raise TensorValueError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{query.dtype}, key.dtype: {key.dtype}, and value.dtype: {value.dtype} instead."
        )
    if query.device != key.device or query.device != value.device:
        raise TensorValueError(
            f"Expected query, key, and value to have the same device type, but got "
            f"query.device: {query.device}, key.device: {key.device}, and value.device: "
            f"{value.device} instead."
        )
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise TensorValueError(  # (PyTorch's message, two spaces)
            f"Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.dim()}, key.dim: {key.dim()} and value.dim: {value.dim()} "
            f"instead."
        )


def _rebuild_causal_bias(variant, seq_len_q, seq_len_kv):
    """Unpickling: the bias again, without ``__init__``'s warning (PyTorch restores the
    attributes without calling it)."""
    self = CausalBias.__new__(CausalBias, variant, seq_len_q, seq_len_kv)
    self.variant = variant
    self.seq_len_q = seq_len_q
    self.seq_len_kv = seq_len_kv
    return self


def causal_upper_left(*size):
    """The ``is_causal=True`` mask: query ``i`` sees keys ``0..i``."""
    return CausalBias(CausalVariant.UPPER_LEFT, *_pair("causal_upper_left", size))


def causal_lower_right(*size):
    """The mask aligned at the bottom right: query ``i`` sees keys ``0..i + S - L``."""
    return CausalBias(CausalVariant.LOWER_RIGHT, *_pair("causal_lower_right", size))


def _pair(name, size):
    if len(size) != 2:
        raise AssertionError(f"{name} only supports 2D tensors")
    return size


# PyTorch's ``CausalBias.__torch_function__``: jtensor's counterpart is the registry's class
# dispatch (``_registry.register_layout``/``layout_kernel``, the step that sends sparse
# operands to their kernels). The bias is registered as a "layout" of its own with a kernel
# for ``scaled_dot_product_attention`` only, selected when ``attn_mask`` (its fourth
# parameter, by position or by name) is a CausalBias; every other op sees a plain tensor.
_CAUSAL_BIAS = "causal_bias"


def _no_kernel(name):  # (never raised: the layout refuses no op)
    return TensorRuntimeError(f"{name}: no kernel for a CausalBias")


register_layout(_CAUSAL_BIAS, CausalBias, error=_no_kernel)
layout_kernel("scaled_dot_product_attention", _CAUSAL_BIAS, on=(3,))(CausalBias._dispatch)
