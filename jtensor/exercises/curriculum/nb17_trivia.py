"""Exercises of notebook 17_trivia.ipynb (trivia).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""


import jtensor as torch

from .. import Exercise, Hint


def _lengths():
    return (torch.tensor([2, 0, 3, 1]),)


def segment_ids(lengths):
    # sequence i's id, lengths[i] times in a row (an empty sequence contributes nothing)
    return torch.arange(len(lengths)).repeat_interleave(lengths)


Exercise(
    "17-segment-ids",
    "Sequences of lengths [2, 0, 3, 1] are stored one after the other in one flat tensor of 6 "
    "tokens. Write f(lengths) returning, for each token, the index of the sequence it belongs "
    "to ([0, 0, 2, 2, 2, 3]), for any 1-D int64 tensor of lengths.",
    segment_ids, inputs=_lengths,
    hints=[
        Hint("That repeats each LENGTH by itself. Repeat each sequence's index instead: "
             "torch.arange(len(lengths)).repeat_interleave(lengths).",
             wrong=lambda lengths: lengths.repeat_interleave(lengths)),
        Hint("That is each token's position in the flat tensor; the answer repeats sequence i's "
             "index lengths[i] times (repeat_interleave with a tensor of counts).",
             wrong=lambda lengths: torch.arange(int(lengths.sum()))),
        Hint("repeat tiles the whole tensor; repeat_interleave repeats each element in place.",
             wrong=lambda lengths: torch.arange(len(lengths)).repeat(2)[:int(lengths.sum())]),
    ])


def _images():
    x = torch.arange(2 * 3 * 2 * 2, dtype=torch.float32).reshape(2, 3, 2, 2)
    return ((x * 7 % 19) - 9,)  # image maxima 9 and 8, in different channels


def image_max(x):
    return x.amax(dim=(1, 2, 3))


Exercise(
    "17-image-max",
    "x is a batch of images, shape (N, C, H, W). Write f(x) returning shape (N,): the largest "
    "value of each image over all its channels and pixels.",
    image_max, inputs=_images,
    hints=[
        Hint("max(dim) reduces one dim only, and returns (values, indices). amax takes a tuple "
             "of dims: x.amax(dim=(1, 2, 3)).",
             wrong=lambda x: x.max(dim=1).values),
        Hint("That is the maximum of each channel of each image, shape (N, C): include the "
             "channel dim 1 in the tuple too.",
             wrong=lambda x: x.amax(dim=(2, 3))),
        Hint("That is the one maximum of the whole batch; keep dim 0 (the images) out of the "
             "reduction.",
             wrong=lambda x: x.max()),
    ])


def _batch_with_bad_rows():
    return (torch.tensor([[1.0, 2.0], [float("nan"), 3.0], [4.0, float("inf")], [5.0, 6.0],
                          [float("-inf"), 0.0]]),)


def finite_rows(x):
    return x[x.isfinite().all(dim=1)]


Exercise(
    "17-finite-rows",
    "x has shape (5, 2) and some entries are NaN, inf or -inf. Write f(x) returning the rows "
    "of x that hold no such entry, as a 2-D tensor (shape (k, 2)).",
    finite_rows, inputs=_batch_with_bad_rows,
    hints=[
        Hint("A mask of x's full shape selects single elements and flattens. Reduce it per "
             "row first: x.isfinite().all(dim=1) is one bool per row.",
             wrong=lambda x: x[x.isfinite()]),
        Hint("isnan misses inf and -inf: isfinite is False at all three.",
             wrong=lambda x: x[~x.isnan().any(dim=1)]),
    ])


def _masks():
    return (torch.tensor([True, False, True, False, True]),
            torch.tensor([True, True, False, False, False]))


def only_in_a(a, b):
    return a & ~b


Exercise(
    "17-debug-bool-minus",
    "Debug this: only_in_a(a, b) = a - b, meant to be True where mask a is True and mask b is "
    "False, raises RuntimeError (Subtraction, the `-` operator, with two bool tensors is not "
    "supported). Write the fixed function: a bool tensor.",
    only_in_a, inputs=_masks,
    hints=[
        Hint("That is the line that raises: PyTorch has no `-` for two bool tensors. Say what "
             "you mean with logic: True in a and (&) not (~) in b.",
             wrong=lambda a, b: a - b),
        Hint("The error suggests ^, but xor is also True where b is True and a is False. "
             "'a and not b' is a & ~b.",
             wrong=lambda a, b: a ^ b),
        Hint("Subtracting integers gives -1 where only b is True (and an int64 tensor): keep "
             "bools and write a & ~b.",
             wrong=lambda a, b: a.long() - b.long()),
    ])


def quiz_17():
    return ((2, 4), False, False)


Exercise(
    "17-quiz",
    "Self-check. (1) The shape of torch.tensor([1, 2]).repeat(2, 2) (a tuple). (2) Can "
    "torch.multinomial(torch.tensor([0.0, 5.0, 1.0]), 2) return index 0? (a bool) (3) Can "
    "torch.randint(0, 3, (1000,)) hold the value 3? (a bool) Answer a tuple of the three.",
    quiz_17,
    hints=[
        Hint("(1) repeat with more counts than dims treats the tensor as (1, 2) first: each "
             "dim is multiplied by its count, (1 * 2, 2 * 2).",
             wrong=lambda: ((4,), False, False)),
        Hint("(2) Weight 0 is never drawn while enough positive weights remain: two draws "
             "without replacement take indices 1 and 2.",
             wrong=lambda: ((2, 4), True, False)),
        Hint("(3) randint's high bound is excluded: values 0, 1 and 2.",
             wrong=lambda: ((2, 4), False, True)),
    ])
