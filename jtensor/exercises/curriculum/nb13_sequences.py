"""Exercises of notebook 13_sequences.ipynb (sequences).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def batch_sizes_for_lengths():
    from jtensor.nn.utils.rnn import pack_sequence
    seqs = [torch.zeros(n) for n in (4, 2, 2, 1)]
    return pack_sequence(seqs).batch_sizes.tolist()


Exercise(
    "13-batch-sizes",
    "pack_sequence of four sorted sequences with lengths [4, 2, 2, 1]: answer its batch_sizes "
    "as a list.",
    batch_sizes_for_lengths,
    hints=[
        Hint("Those are the lengths (one number per sequence). batch_sizes has one number per "
             "time step: how many sequences are still running at that step.",
             wrong=lambda: [4, 2, 2, 1]),
        Hint("Packing leaves the padding out: at step t count only the sequences longer than t, "
             "not all four.",
             wrong=lambda: [4, 4, 4, 4]),
    ])


def _padded_output():
    # (B=3, T=4, H=2): rows of lengths 4, 1, 2, padded with -1 after each length (as
    # pad_sequence(..., padding_value=-1) or pad_packed_sequence(..., padding_value=-1) give).
    out = torch.arange(1.0, 25.0).reshape(3, 4, 2)
    lengths = torch.tensor([4, 1, 2])
    for i, n in enumerate(lengths.tolist()):
        out[i, n:] = -1
    return out, lengths


def masked_mean(out, lengths):
    real = torch.arange(out.shape[1]) < lengths[:, None]  # (B, T): True on real steps
    total = (out * real[..., None].to(out.dtype)).sum(dim=1)
    return total / lengths[:, None].to(out.dtype)


Exercise(
    "13-masked-mean",
    "out (B, T, H) is a batch-first padded output whose padding is -1, lengths an int64 tensor "
    "of B lengths. Write f(out, lengths) returning the (B, H) mean of each sequence over its "
    "real steps only.",
    masked_mean, inputs=_padded_output,
    rules=("shape", "values"),
    hints=[
        Hint("out.mean(dim=1) averages the padding too, and divides by T for every row. Mask "
             "the padded steps: torch.arange(T) < lengths[:, None].",
             wrong=lambda out, lengths: out.mean(dim=1)),
        Hint("Dividing by the lengths is right, but the sum still adds the -1 padding: zero "
             "the padded steps with a mask before summing.",
             wrong=lambda out, lengths: out.sum(dim=1) / lengths[:, None]),
    ])


def quiz_13():
    from jtensor.nn.utils.rnn import pack_sequence, pad_sequence

    time_first = pad_sequence([torch.ones(3), torch.ones(2)]).shape[0] == 3
    try:
        pack_sequence([torch.ones(2), torch.ones(3)])
        accepts = True
    except RuntimeError:
        accepts = False
    return ("time first" if time_first else "batch first",
            int(pack_sequence([torch.ones(3), torch.ones(2)]).batch_sizes.sum()), accepts)


Exercise(
    "13-quiz",
    "Self-check. (1) pad_sequence's default layout: 'time first' or 'batch first'? (2) The "
    "sum of pack_sequence([torch.ones(3), torch.ones(2)]).batch_sizes (an int). (3) Does "
    "pack_sequence accept lengths [2, 3] in that order with its defaults? (a bool) Answer a "
    "tuple of the three.",
    quiz_13,
    hints=[
        Hint("(1) pad_sequence returns (T, B, *) unless you pass batch_first=True.",
             wrong=lambda: ("batch first", 5, False)),
        Hint("(2) batch_sizes counts the real steps: 3 + 2, the padding is not stored.",
             wrong=lambda: ("time first", 6, False)),
        Hint("(3) enforce_sorted=True is the default: the lengths must decrease.",
             wrong=lambda: ("time first", 5, True)),
    ])


def _unsorted_batch():
    x = torch.tensor([[[1.0], [2.0], [0.0]], [[3.0], [4.0], [5.0]], [[6.0], [0.0], [0.0]]])
    return (x, torch.tensor([2, 3, 1]))


def pack_any_order(x, lengths):
    from jtensor.nn.utils.rnn import pack_padded_sequence

    return pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False).data


def _sort_lengths_only(x, lengths):
    from jtensor.nn.utils.rnn import pack_padded_sequence

    return pack_padded_sequence(x, lengths.sort(descending=True).values, batch_first=True).data


def _pack_unsorted(x, lengths):
    from jtensor.nn.utils.rnn import pack_padded_sequence

    return pack_padded_sequence(x, lengths, batch_first=True).data


Exercise(
    "13-debug-unsorted",
    "Debug this: pack_padded_sequence(x, lengths, batch_first=True).data with lengths "
    "[2, 3, 1] raises RuntimeError (`lengths` array must be sorted in decreasing order). "
    "Write f(x, lengths) returning the .data of the packed batch, for lengths in any order.",
    pack_any_order, inputs=_unsorted_batch,
    hints=[
        Hint("Sorting only the lengths pairs them with the wrong rows of x. Pass "
             "enforce_sorted=False: PyTorch sorts the rows and the lengths together.",
             wrong=_sort_lengths_only),
        Hint("The lengths must decrease with enforce_sorted=True (the default): that is the "
             "error you are fixing.",
             wrong=_pack_unsorted),
    ])
