"""Exercises of notebook 15_memory_formats.ipynb (memory formats).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def channels_last_strides():
    return tuple(torch.empty(4, 2, 3, 3, memory_format=torch.channels_last).stride())


Exercise(
    "15-cl-strides",
    "Answer the strides (a tuple) of torch.empty(4, 2, 3, 3, memory_format=torch.channels_last).",
    channels_last_strides,
    hints=[
        Hint("Those are the NCHW (contiguous_format) strides. In channels_last the channel "
             "index moves fastest: stride(C) = 1, stride(W) = C, stride(H) = W*C, "
             "stride(N) = H*W*C, and the shape stays (4, 2, 3, 3).",
             wrong=lambda: (18, 9, 3, 1)),
        Hint("Strides are listed in the order of the dimensions N, C, H, W, not in memory "
             "order (N, H, W, C): the channel dimension (second) has stride 1.",
             wrong=lambda: (18, 6, 2, 1)),
    ])


def _nchw_input():
    return (torch.arange(2 * 3 * 2 * 2, dtype=torch.float32).reshape(2, 3, 2, 2),)


def to_nhwc(x):
    return x.contiguous(memory_format=torch.channels_last).permute(0, 2, 3, 1)


Exercise(
    "15-nhwc",
    "Write f(x) that takes a contiguous NCHW tensor and returns the same images as a "
    "contiguous (N, H, W, C) tensor (result[n, h, w, c] == x[n, c, h, w], "
    "result.is_contiguous() True).",
    to_nhwc, inputs=_nchw_input,
    rules=("shape", "values", "stride"),
    hints=[
        Hint("permute alone only relabels the dimensions: the memory is still NCHW, so the "
             "result is not contiguous. Reorder the memory first "
             "(x.contiguous(memory_format=torch.channels_last)), then permute.",
             wrong=lambda x: x.permute(0, 2, 3, 1)),
        Hint("reshape keeps the memory order and only regroups it: result[n, h, w, c] is not "
             "x[n, c, h, w]. Move the channel dimension instead.",
             wrong=lambda x: x.reshape(x.shape[0], x.shape[2], x.shape[3], x.shape[1])),
    ])


def quiz_15():
    x = torch.empty(2, 3, 4, 5).to(memory_format=torch.channels_last)
    return (tuple(x.shape), x.is_contiguous(),
            torch.empty(2, 1, 1, 1).is_contiguous(memory_format=torch.channels_last))


Exercise(
    "15-quiz",
    "Self-check, x = torch.empty(2, 3, 4, 5).to(memory_format=torch.channels_last). (1) "
    "x.shape (a tuple). (2) x.is_contiguous() (a bool). (3) Is torch.empty(2, 1, 1, 1) "
    "contiguous in channels_last as well? (a bool) Answer a tuple of the three.",
    quiz_15,
    hints=[
        Hint("(1) A memory format changes the strides, not the shape: still (N, C, H, W).",
             wrong=lambda: ((2, 4, 5, 3), False, True)),
        Hint("(2) is_contiguous() asks about the default (row-major) format.",
             wrong=lambda: ((2, 3, 4, 5), True, True)),
        Hint("(3) With size-1 dimensions the strides of both formats describe the same layout.",
             wrong=lambda: ((2, 3, 4, 5), False, False)),
    ])
