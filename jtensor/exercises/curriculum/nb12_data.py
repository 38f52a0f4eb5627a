"""Exercises of notebook 12_data.ipynb (data).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def batches_and_last():
    from jtensor.utils.data import DataLoader
    batches = list(DataLoader(range(10), batch_size=4))
    return (len(batches), len(batches[-1]))


Exercise(
    "12-batches",
    "loader = DataLoader(range(10), batch_size=4). Answer the tuple (number of batches, "
    "size of the last batch).",
    batches_and_last,
    hints=[
        Hint("drop_last is False by default: the 2 samples left over form a short last batch.",
             wrong=lambda: (2, 4)),
        Hint("The last batch is not padded: 10 = 4 + 4 + 2, so it has 2 samples.",
             wrong=lambda: (3, 4)),
    ])


def _seqs():
    return ([torch.arange(1, 4), torch.arange(1, 2), torch.arange(1, 5)],)


def pad_batch(batch):
    longest = max(len(s) for s in batch)
    out = torch.zeros(len(batch), longest, dtype=batch[0].dtype)
    for row, s in enumerate(batch):
        out[row, :len(s)] = s
    return out


Exercise(
    "12-pad-collate",
    "Write f(batch) for a list of 1-D int64 tensors of different lengths: return a "
    "(len(batch), longest) tensor whose rows are the sequences followed by zeros.",
    pad_batch, inputs=_seqs,
    rules=("shape", "dtype", "values"),
    hints=[
        Hint("Cutting every sequence to the shortest loses data: pad to the longest instead.",
             wrong=lambda batch: torch.stack([s[:min(len(t) for t in batch)] for s in batch])),
        Hint("The padding goes after each sequence (at the end of the row), not before it.",
             wrong=lambda batch: torch.stack([torch.cat([torch.zeros(
                 max(len(t) for t in batch) - len(s), dtype=s.dtype), s]) for s in batch])),
    ])
