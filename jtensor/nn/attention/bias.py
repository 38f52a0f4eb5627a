"""``torch.nn.attention.bias``: causal masks for queries and keys of different lengths.

``causal_upper_left(L, S)`` lets query ``i`` see keys ``0..i`` (``is_causal=True``'s mask);
``causal_lower_right(L, S)`` aligns the last query with the last key, so query ``i`` sees
keys ``0..i + S - L`` (decoding the last L tokens of a sequence of S). Either is passed as
``attn_mask`` to ``scaled_dot_product_attention`` and prints as its boolean mask."""

from enum import IntEnum, auto

__all__ = ["CausalBias", "CausalVariant", "causal_lower_right", "causal_upper_left"]


class CausalVariant(IntEnum):
    """Where the causal mask's diagonal starts: the top left or the bottom right corner."""

    UPPER_LEFT = auto()
    LOWER_RIGHT = auto()


class CausalBias:
    """A causal mask of ``seq_len_q`` queries by ``seq_len_kv`` keys, made when needed."""

    def __init__(self, variant, seq_len_q, seq_len_kv):
        if not isinstance(variant, CausalVariant):
            raise AssertionError(
                f"variant must be a CausalVariant, got {type(variant).__name__}")
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            import warnings

            warnings.warn("Lower right causal bias will produce NaNs in the output when "
                          "seq_len_q > seq_len_kv!", stacklevel=2)

    def _materialize(self, device=None):
        """The boolean mask (True: may attend), ``(seq_len_q, seq_len_kv)``."""
        from ..._api import ops as J
        from ..._dtypes import bool_

        ones = J.ones((self.seq_len_q, self.seq_len_kv), dtype=bool_, device=device)
        if self.variant == CausalVariant.UPPER_LEFT:
            return ones.tril(0)
        return ones.tril(self.seq_len_kv - self.seq_len_q)

    def __repr__(self):
        return repr(self._materialize())


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
