"""Exercises of notebook 12_data.ipynb (data).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def batches_and_last():
    from jtensor.utils.data import DataLoader
    batches = list(DataLoader(range(13), batch_size=5))
    return (len(batches), len(batches[-1]),
            len(DataLoader(range(13), batch_size=5, drop_last=True)))


Exercise(
    "12-batches",
    "For DataLoader(range(13), batch_size=5), answer the tuple (number of batches, size of the "
    "last batch, number of batches with drop_last=True).",
    batches_and_last,
    hints=[
        Hint("drop_last is False by default: the 3 samples left over form a short last batch.",
             wrong=lambda: (2, 5, 2)),
        Hint("The last batch is not padded: 13 = 5 + 5 + 3, so it has 3 samples.",
             wrong=lambda: (3, 5, 2)),
        Hint("drop_last=True drops the short last batch: 2 batches remain.",
             wrong=lambda: (3, 3, 3)),
    ])


def _seqs():
    return ([torch.arange(1, 4), torch.arange(1, 2), torch.arange(1, 5)],)


def left_pad_batch(batch):
    longest = max(len(s) for s in batch)
    out = torch.zeros(len(batch), longest, dtype=batch[0].dtype)
    for row, s in enumerate(batch):
        out[row, longest - len(s):] = s  # right-aligned: the last real step is last
    return out


def _right_pad(batch):
    longest = max(len(s) for s in batch)
    out = torch.zeros(len(batch), longest, dtype=batch[0].dtype)
    for row, s in enumerate(batch):
        out[row, :len(s)] = s
    return out


Exercise(
    "12-left-pad",
    "Write f(batch) for a list of 1-D int64 tensors of different lengths: return a "
    "(len(batch), longest) tensor whose rows hold the sequences RIGHT-aligned, zeros first "
    "(left padding, so that every row ends with its last real element).",
    left_pad_batch, inputs=_seqs,
    rules=("shape", "dtype", "values"),
    hints=[
        Hint("That is right padding (zeros after the sequence): put the zeros first, "
             "out[row, longest - len(s):] = s.",
             wrong=_right_pad),
        Hint("Flipping reverses the sequences themselves: [1, 2, 3] must stay [.., 1, 2, 3], "
             "only the zeros move to the front.",
             wrong=lambda batch: _right_pad(batch).flip(1)),
    ])


def quiz_12():
    from jtensor.utils.data import DataLoader, IterableDataset

    class _Stream(IterableDataset):
        def __iter__(self):
            return iter(range(3))

    try:
        DataLoader(_Stream(), shuffle=True)
        shuffles = True
    except ValueError:
        shuffles = False
    batch = next(iter(DataLoader([(torch.zeros(1), 3), (torch.ones(1), 4)], batch_size=2)))
    return (len(DataLoader(range(7), batch_size=3)), shuffles,
            "tensor" if isinstance(batch[1], torch.Tensor) else type(batch[1]).__name__)


Exercise(
    "12-quiz",
    "Self-check. (1) len(DataLoader(range(7), batch_size=3)) (an int). (2) Does "
    "DataLoader(iterable_dataset, shuffle=True) work? (a bool) (3) With the default collate, "
    "samples (tensor, int) batch into [xb, yb]: is yb a 'tensor' or a 'list'? Answer a tuple.",
    quiz_12,
    hints=[
        Hint("(1) len(loader) counts batches, and the short last one is kept: 3, 3, 1.",
             wrong=lambda: (2, False, "tensor")),
        Hint("(2) An iterable dataset has no indices to shuffle: the DataLoader refuses.",
             wrong=lambda: (3, True, "tensor")),
        Hint("(3) default_collate turns Python numbers into a tensor too.",
             wrong=lambda: (3, False, "list")),
    ])
