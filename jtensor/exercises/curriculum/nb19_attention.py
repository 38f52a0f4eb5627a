"""Exercises of notebook 19_attention.ipynb (attention's reshapes, causal mask, merging heads).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def _activations():
    # (B, T, C) = (2, 3, 8) split into 2 heads of size 4: small enough to read, with T != C
    # so that dimensions taken in the wrong order show in the values.
    gen = torch.Generator().manual_seed(19)
    return (torch.randn(2, 3, 8, generator=gen), 2)


def split_heads(x, n_head):
    # (B, T, C) -> (B, T, heads, head_size) is a view (C splits head-major); the transpose
    # then moves heads before T without copying.
    B, T, C = x.shape
    return x.view(B, T, n_head, C // n_head).transpose(1, 2)


def _view_heads_first(x, n_head):
    B, T, C = x.shape
    return x.view(B, n_head, T, C // n_head)


def _split_head_minor(x, n_head):
    B, T, C = x.shape
    return x.view(B, T, C // n_head, n_head).permute(0, 3, 1, 2)


def _split_then_copy(x, n_head):
    return split_heads(x, n_head).contiguous()


Exercise(
    "19-split-heads",
    "Write f(x, n_head) taking x of shape (B, T, C) to (B, n_head, T, C // n_head), head h "
    "holding channels h * head_size to (h + 1) * head_size, as a view of x (no copy).",
    split_heads,
    inputs=_activations,
    rules=("shape", "dtype", "values", "stride", "shares"),
    hints=[
        Hint(
            "view(B, n_head, T, head_size) has the right shape but reads the memory in "
            "(B, T, C) order: it mixes time steps into heads. Split C first, "
            "view(B, T, n_head, head_size), then transpose(1, 2).",
            wrong=_view_heads_first,
        ),
        Hint(
            "C splits as (n_head, head_size), head first: view(B, T, head_size, n_head) "
            "interleaves the heads' channels.",
            wrong=_split_head_minor,
        ),
        Hint(
            "The transpose is a view: no .contiguous() is needed (it would copy every activation).",
            wrong=_split_then_copy,
        ),
    ],
)


def _scores():
    gen = torch.Generator().manual_seed(190)
    return (torch.randn(2, 2, 4, 4, generator=gen),)


def causal_mask(scores):
    # Position t may look at positions s <= t: the lower triangle is kept, the rest gets
    # -inf so that softmax gives it exactly zero weight.
    T = scores.shape[-1]
    keep = torch.ones(T, T, dtype=torch.bool, device=scores.device).tril()
    return scores.masked_fill(~keep, float("-inf"))


def _mask_upper_kept(scores):
    T = scores.shape[-1]
    keep = torch.ones(T, T, dtype=torch.bool).triu()
    return scores.masked_fill(~keep, float("-inf"))


def _mask_inverted(scores):
    T = scores.shape[-1]
    keep = torch.ones(T, T, dtype=torch.bool).tril()
    return scores.masked_fill(keep, float("-inf"))


def _mask_with_zero(scores):
    T = scores.shape[-1]
    keep = torch.ones(T, T, dtype=torch.bool).tril()
    return scores.masked_fill(~keep, 0.0)


Exercise(
    "19-causal-mask",
    "Write f(scores) taking attention scores of shape (B, heads, T, T) (row: query position, "
    "column: key position) and returning them with every future position (key after query) "
    "set to -inf.",
    causal_mask,
    inputs=_scores,
    hints=[
        Hint(
            "triu keeps the future and hides the past: query t may see keys 0..t, the lower "
            "triangle (tril).",
            wrong=_mask_upper_kept,
        ),
        Hint(
            "masked_fill writes where the mask is True: fill where the key is in the future "
            "(~tril), not where it is allowed.",
            wrong=_mask_inverted,
        ),
        Hint(
            "A score of 0 is not hidden: softmax gives it weight exp(0) like any other. Use "
            "float('-inf'), whose weight is exactly 0.",
            wrong=_mask_with_zero,
        ),
    ],
)


def _head_outputs():
    gen = torch.Generator().manual_seed(1900)
    return (torch.randn(2, 2, 3, 4, generator=gen),)


def merge_heads(y):
    # (B, heads, T, head_size) -> (B, T, heads, head_size) is a transpose, not contiguous;
    # contiguous() copies it into (B, T, C) order so that view can fuse the last two dims.
    B, H, T, hs = y.shape
    return y.transpose(1, 2).contiguous().view(B, T, H * hs)


def _merge_without_transpose(y):
    B, H, T, hs = y.shape
    return y.reshape(B, T, H * hs)


def _merge_view_of_transpose(y):
    B, H, T, hs = y.shape
    return y.transpose(1, 2).view(B, T, H * hs)


def _merge_wrong_order(y):
    B, H, T, hs = y.shape
    return y.permute(0, 2, 3, 1).reshape(B, T, H * hs)


Exercise(
    "19-merge-heads",
    "Write f(y) taking the heads' outputs y of shape (B, heads, T, head_size) back to "
    "(B, T, heads * head_size), head h in channels h * head_size to (h + 1) * head_size.",
    merge_heads,
    inputs=_head_outputs,
    rules=("shape", "dtype", "values", "stride"),
    hints=[
        Hint(
            "reshape alone keeps the (heads, T) memory order: it mixes heads into time steps. "
            "Move T before heads first: transpose(1, 2).",
            wrong=_merge_without_transpose,
        ),
        Hint(
            "After transpose(1, 2) the heads and head_size dims are not adjacent in memory, "
            "so view raises: call .contiguous() first (or use reshape, which copies).",
            wrong=_merge_view_of_transpose,
        ),
        Hint(
            "permute(0, 2, 3, 1) puts head_size before heads: each channel block then mixes "
            "heads. Keep (heads, head_size) in that order: transpose(1, 2).",
            wrong=_merge_wrong_order,
        ),
    ],
)


def quiz_19():
    return ((0, 1, 0), "attend")


Exercise(
    "19-quiz",
    "Self-check. (1) The stride of torch.ones(4, 1).expand(2, 4, 6) (a tuple). "
    "(2) In F.scaled_dot_product_attention, a boolean attn_mask's True means: 'attend' or "
    "'ignore'? Answer a tuple of the two.",
    quiz_19,
    hints=[
        Hint(
            "(1) expand gives stride 0 to every dimension it adds or stretches from size 1 "
            "(here the new leading dim and the last one); the kept dim keeps its stride.",
            wrong=lambda: ((24, 6, 1), "attend"),
        ),
        Hint(
            "(2) For scaled_dot_product_attention, True marks a position taking part in "
            "attention (nn.MultiheadAttention's attn_mask is the opposite: True hides).",
            wrong=lambda: ((0, 1, 0), "ignore"),
        ),
    ],
)
